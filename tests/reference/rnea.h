// A plain textbook reference for the tests: Featherstone's recursive Newton–Euler algorithm
// in body coordinates with 6x6 Plücker transforms (angular part first), written with Eigen
// and sharing nothing with kernels/.  Each joint of a body is a massless link of its own;
// the body's inertia sits on the last one.
#pragma once

#include <Eigen/Dense>
#include <vector>

#include "zwang/model.hpp"

namespace zwang::reference {

using Vec6 = Eigen::Matrix<double, 6, 1>;
using Mat6 = Eigen::Matrix<double, 6, 6>;

// a body's frame and motion in world coordinates
struct BodyMotion {
  Eigen::Matrix3d rotation;  // body axes in the world
  Eigen::Vector3d origin;    // body frame origin
  Eigen::Vector3d com;       // centre of mass
  Eigen::Vector3d com_velocity;
  Eigen::Vector3d angular_velocity;
};

class Rnea {
 public:
  explicit Rnea(const Model& model);

  // τ = H q̈ + C(q, q̇) q̇ + g(q) − Σ J_kᵀ w_k, without armature; `gravity` switches g(q) on,
  // `xfrc` (nbody x 6: force, torque in the world, at the COM) are external wrenches
  Eigen::VectorXd inverse_dynamics(const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                                   const Eigen::VectorXd& qdd, bool gravity,
                                   const Eigen::MatrixXd* xfrc = nullptr) const;
  // H e_i = ID(q, 0, e_i) without gravity, plus armature
  Eigen::MatrixXd mass_matrix(const Eigen::VectorXd& q) const;
  // ID(q, q̇, 0) with gravity: MuJoCo's qfrc_bias
  Eigen::VectorXd bias(const Eigen::VectorXd& q, const Eigen::VectorXd& qd) const;
  // −b q̇ − k (q − q_spring) (ball: −k log(q_spring⁻¹ q))
  Eigen::VectorXd passive(const Eigen::VectorXd& q, const Eigen::VectorXd& qd) const;
  // gear · clamp(gain u + bias0 + bias1 gear q + bias2 gear q̇)
  Eigen::VectorXd actuator(const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                           const Eigen::VectorXd& ctrl) const;
  // Σ J_kᵀ w_k = ID(q, q̇, 0) − ID(q, q̇, 0, xfrc)
  Eigen::VectorXd applied(const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                          const Eigen::MatrixXd& xfrc) const;
  // H⁻¹ (passive + actuator − bias)
  Eigen::VectorXd forward_dynamics(const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                                   const Eigen::VectorXd& ctrl) const;

  std::vector<BodyMotion> motion(const Eigen::VectorXd& q, const Eigen::VectorXd& qd) const;
  // classical acceleration of each COM and angular acceleration, world (nbody x 6)
  Eigen::MatrixXd body_accelerations(const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                                     const Eigen::VectorXd& qdd) const;
  // Σ ½ m v_c² + ½ ωᵀ I ω + ½ armature q̇²  and  − Σ m g·c
  double kinetic_energy(const Eigen::VectorXd& q, const Eigen::VectorXd& qd) const;
  double potential_energy(const Eigen::VectorXd& q) const;
  // Σ m v_c  and  Σ (c × m v_c + I_world ω), about the world origin
  Eigen::Vector3d linear_momentum(const Eigen::VectorXd& q, const Eigen::VectorXd& qd) const;
  Eigen::Vector3d angular_momentum(const Eigen::VectorXd& q, const Eigen::VectorXd& qd) const;

 private:
  struct Link {
    int parent;              // link index, -1 for the world
    int joint;               // model joint, -1 for a welded body
    int body;                // body whose inertia the link carries, -1 for a massless joint link
    Eigen::Matrix3d tree_e;  // frame before the joint: its coordinates = tree_e · parent's
    Eigen::Vector3d tree_r;  // its origin, parent link coordinates
  };
  struct Pass;
  Pass run(const Eigen::VectorXd& q, const Eigen::VectorXd& qd, const Eigen::VectorXd& qdd,
           bool gravity, const Eigen::MatrixXd* xfrc) const;

  Model model_;
  std::vector<Link> links_;
  std::vector<int> body_link_;  // the link carrying each body's frame
  std::vector<Mat6> inertia_;   // spatial inertia of each body in its frame
};

}  // namespace zwang::reference
