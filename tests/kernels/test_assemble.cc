// H and qfrc_bias of kernels/assemble.h (gathered per subtree) against the per-body sums of
// seed 000 evaluated plainly with Eigen from the Jacobians (SingleInstance::body_jacobian):
//   H = Σ_k J_kᵀ M_k J_k + diag(armature),  qfrc_bias = Σ_k J_kᵀ (M_k (J̇_k q̇ − [g; 0]) + n_k)
// on a branched model with free, ball, hinge and slide joints, a welded body and two trees.
#include <gtest/gtest.h>

#include <limits>

#include "kernels/assemble.h"
#include "kernels/body_jacobians.h"
#include "kernels/body_terms.h"
#include "kernels/forward_kinematics.h"
#include "test_util.h"
#include "zwang/loaders.hpp"

namespace zwang::test {
namespace {

constexpr const char* kBranched = R"(
<mujoco model="branched">
  <option gravity="0.3 -0.2 -9.81"/>
  <worldbody>
    <body name="torso" pos="0.4 -0.3 1.2">
      <freejoint/>
      <inertial pos="0.02 -0.01 0.05" mass="5" fullinertia="0.3 0.25 0.12 0.01 -0.02 0.015"/>
      <body name="arm" pos="0.2 0.15 0.1" euler="0.3 0 0.2">
        <joint name="shoulder" type="ball" pos="0 0 0.02" armature="0.02"/>
        <inertial pos="0.12 0 0.01" mass="1.2" diaginertia="0.004 0.02 0.021"/>
        <body name="forearm" pos="0.25 0 0">
          <joint name="elbow" type="hinge" axis="0 1 0.3" pos="0.01 0 0" armature="0.01"/>
          <inertial pos="0.1 0.01 0" mass="0.7" diaginertia="0.002 0.01 0.011"/>
          <body name="hand" pos="0.22 0 0.02" euler="0 0.4 0">
            <inertial pos="0.03 0.01 0" mass="0.3" diaginertia="0.0005 0.0008 0.0009"/>
          </body>
        </body>
      </body>
      <body name="leg" pos="0 -0.1 -0.3" euler="0 0 0.5">
        <joint name="extend" type="slide" axis="0.2 0 1"/>
        <joint name="hip" type="hinge" pos="0 0 0.05" axis="1 0.1 0"/>
        <inertial pos="0 0.02 -0.2" mass="1.5" diaginertia="0.02 0.021 0.003"/>
        <body name="foot" pos="0 0 -0.4">
          <joint name="ankle" type="ball" pos="0 0 0.01"/>
          <inertial pos="0.05 0 -0.02" mass="0.4" diaginertia="0.001 0.002 0.0025"/>
        </body>
      </body>
    </body>
    <body name="crane" pos="-1 0.5 0.3">
      <joint name="turn" type="hinge" axis="0 0 1" armature="0.1"/>
      <joint name="reach" type="slide" axis="1 0 0"/>
      <inertial pos="0.3 0 0" mass="2" diaginertia="0.01 0.2 0.2"/>
      <body name="hook" pos="0.6 0 -0.1">
        <joint name="swing" type="hinge" axis="0 1 0"/>
        <inertial pos="0 0 -0.3" mass="0.5" diaginertia="0.015 0.015 0.001"/>
      </body>
    </body>
  </worldbody>
</mujoco>
)";

// R I Rᵀ from a body-frame inertia (xx yy zz xy xz yz) and the body's quaternion (w x y z)
Eigen::Matrix3d world_inertia(const Eigen::VectorXd& i6, const Eigen::VectorXd& q4) {
  Eigen::Matrix3d i;
  i << i6[0], i6[3], i6[4], i6[3], i6[1], i6[5], i6[4], i6[5], i6[2];
  const Eigen::Matrix3d r = Eigen::Quaterniond(q4[0], q4[1], q4[2], q4[3]).toRotationMatrix();
  return r * i * r.transpose();
}

TEST(Assemble, MatchesPerBodySumsOfJacobians) {
  const Model m = load_mjcf_string(kBranched, "branched.xml").model;
  ASSERT_EQ(m.nv, 6 + 3 + 1 + 2 + 3 + 3);
  SingleInstance s(m);
  const Layout& lay = s.batch.layout();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::mt19937 rng(31);
  double worst_h = 0, worst_bias = 0;
  for (int k = 0; k < 20; ++k) {
    const RandomState st = random_state(m, rng);
    set(s.batch.qpos(), 0, st.qpos);
    set(s.batch.qvel(), 0, st.qvel);
    const Instance<double> d = s.instance();
    forward_kinematics(s.view, d);
    body_jacobians(s.view, d);
    body_terms(s.view, d);
    set(s.batch.qM(), 0, Eigen::VectorXd::Constant(m.nv * (m.nv + 1) / 2, nan));
    set(s.batch.qfrc_bias(), 0, Eigen::VectorXd::Constant(m.nv, nan));
    assemble(s.view, d);

    // Σ_k over bodies, from the Jacobians, COM accelerations and orientations
    const Eigen::VectorXd biasacc = s.scratch(lay.body_biasacc, 6 * m.nbody);
    const Eigen::VectorXd mass = get(s.batch.body_mass(), 0),
                          inertia = get(s.batch.body_inertia(), 0);
    const Eigen::VectorXd xquat = get(s.batch.xquat(), 0),
                          armature = get(s.batch.dof_armature(), 0);
    const Eigen::Vector3d g = get(s.batch.gravity(), 0);
    Eigen::MatrixXd h = armature.asDiagonal();
    Eigen::VectorXd bias = Eigen::VectorXd::Zero(m.nv);
    for (int b = 1; b < m.nbody; ++b) {
      const Eigen::MatrixXd j = s.body_jacobian(m, b);
      Eigen::MatrixXd mk = Eigen::MatrixXd::Zero(6, 6);
      mk.topLeftCorner<3, 3>() = mass[b] * Eigen::Matrix3d::Identity();
      mk.bottomRightCorner<3, 3>() =
          world_inertia(inertia.segment<6>(6 * b), xquat.segment<4>(4 * b));
      const Eigen::Vector3d w = (j * st.qvel).tail<3>();
      Eigen::VectorXd a = biasacc.segment<6>(6 * b);
      a.head<3>() -= g;
      Eigen::VectorXd nk = Eigen::VectorXd::Zero(6);
      nk.tail<3>() = w.cross(mk.bottomRightCorner<3, 3>() * w);
      h += j.transpose() * mk * j;
      bias += j.transpose() * (mk * a + nk);
    }

    const double err_h = relative_error(unpack(get(s.batch.qM(), 0), m.nv), h);
    const double err_bias = relative_error(get(s.batch.qfrc_bias(), 0), bias);
    EXPECT_LT(err_h, 1e-12) << "state " << k << ": H";
    EXPECT_LT(err_bias, 1e-12) << "state " << k << ": qfrc_bias";
    worst_h = std::max(worst_h, err_h);
    worst_bias = std::max(worst_bias, err_bias);
  }
  std::printf("largest relative error against Σ_k J_kᵀ M_k J_k  H %.2e  bias %.2e\n", worst_h,
              worst_bias);
}

}  // namespace
}  // namespace zwang::test
