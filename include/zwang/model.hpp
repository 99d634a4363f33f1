// \brief A kinematic tree of rigid bodies with joints and actuators, shared by every instance
// of a batch, and the builder that validates it.
#pragma once

#include <array>
#include <map>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/layout.h"

namespace zwang {

// \brief An invalid model: the message names the body, joint or actuator (and, for a file,
// the file and line).
class ModelError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// numbered as MuJoCo's mjtJoint; kFixed welds a body to its parent and adds no coordinate
enum class JointType : int { kFree = 0, kBall = 1, kSlide = 2, kHinge = 3, kFixed = 4 };

// kEuler is semi-implicit (velocity first) with joint damping implicit, as MuJoCo's Euler
enum class Integrator : int { kEuler = 0, kRK4 = 1 };

enum class ActuatorType : int { kMotor, kPosition, kVelocity, kGeneral };

std::string_view to_string(JointType type);
std::string_view to_string(Integrator integrator);
std::string_view to_string(ActuatorType type);

using Vec3d = std::array<double, 3>;
using Quatd = std::array<double, 4>;  // w, x, y, z

// \brief Inertia tensor about the centre of mass in the body frame: xx yy zz xy xz yz (kg m²).
using Inertia6 = std::array<double, 6>;

// \brief The tensor R diag(principal) Rᵀ for principal moments along the axes of `frame`.
Inertia6 inertia_from_principal(const Vec3d& principal, const Quatd& frame = {1, 0, 0, 0});

struct BodySpec {
  std::string name;                    // unique; empty gives "body<id>"
  std::string parent = "world";        // a body added before this one
  Vec3d pos{0, 0, 0};                  // frame origin in the parent frame (m)
  Quatd quat{1, 0, 0, 0};              // frame orientation in the parent frame, normalised
  double mass = 0;                     // (kg)
  Vec3d com{0, 0, 0};                  // centre of mass in the body frame (m)
  Inertia6 inertia{0, 0, 0, 0, 0, 0};  // about the COM, body frame (kg m²)
};

struct JointSpec {
  std::string name;  // unique; empty gives "joint<id>"
  JointType type = JointType::kHinge;
  Vec3d pos{0, 0, 0};    // anchor in the body frame (m); unused by free joints
  Vec3d axis{0, 0, 1};   // hinge and slide axis in the body frame, normalised
  double damping = 0;    // viscous damping per dof (N m s/rad or N s/m)
  double armature = 0;   // rotor inertia added to H per dof
  double stiffness = 0;  // spring stiffness (N m/rad or N/m)
  double springref = 0;  // spring rest position, hinge and slide
  double ref = 0;        // hinge and slide position of the body frame as built (qpos0)
  bool limited = false;  // range stored for later constraints, not enforced yet
  std::array<double, 2> range{0, 0};
};

struct ActuatorSpec {
  std::string name;   // unique; empty gives "actuator<id>"
  std::string joint;  // a hinge or slide joint
  ActuatorType type = ActuatorType::kMotor;
  double gear = 1;
  bool ctrllimited = false;
  std::array<double, 2> ctrlrange{0, 0};
  bool forcelimited = false;
  std::array<double, 2> forcerange{0, 0};
  double kp = 1;  // position servo: f = kp (u − l)
  double kv = 1;  // velocity servo: f = kv (u − l̇)
  // general: f = gain u + bias[0] + bias[1] l + bias[2] l̇
  double gain = 1;
  std::array<double, 3> bias{0, 0, 0};
};

// \brief A fixed tendon: a linear combination of hinge and slide coordinates,
// length = Σ_i coef_i q_i (m or rad, as the joints).
struct TendonSpec {
  std::string name;  // unique; empty gives "tendon<id>"
  struct Term {
    std::string joint;  // a hinge or slide joint
    double coef = 1;
  };
  std::vector<Term> joints;  // at least one
};

// \brief A validated model.  Arrays follow MuJoCo's names and layout: body 0 is the world;
// joints are numbered body by body; qpos/qvel addresses follow joint order (free: 7/6,
// ball: 4/3, hinge and slide: 1/1).
struct Model {
  int nq = 0;               // generalized coordinates
  int nv = 0;               // degrees of freedom
  int nu = 0;               // actuators
  int nbody = 1;            // bodies, the world included
  int njnt = 0;             // joints
  double timestep = 0.002;  // (s)
  Integrator integrator = Integrator::kEuler;
  Vec3d gravity{0, 0, -9.81};  // (m/s²)

  std::vector<std::string> body_name;
  std::vector<int> body_parent;      // -1 for the world
  std::vector<int> body_jntadr;      // first joint (nbody)
  std::vector<int> body_jntnum;      // joints (nbody)
  std::vector<int> body_dofadr;      // first own dof, -1 if none (nbody)
  std::vector<int> body_dofnum;      // own dofs (nbody)
  std::vector<int> body_treeadr;     // first entry in tree_dof (nbody)
  std::vector<int> body_treenum;     // dofs from the root to the body (nbody)
  std::vector<double> body_pos;      // (nbody x 3)
  std::vector<double> body_quat;     // (nbody x 4)
  std::vector<double> body_mass;     // (nbody)
  std::vector<double> body_ipos;     // COM in the body frame (nbody x 3)
  std::vector<double> body_inertia;  // about the COM, body frame (nbody x 6)

  std::vector<std::string> jnt_name;
  std::vector<JointType> jnt_type;    // (njnt)
  std::vector<int> jnt_body;          // (njnt)
  std::vector<int> jnt_qposadr;       // (njnt)
  std::vector<int> jnt_dofadr;        // (njnt)
  std::vector<double> jnt_pos;        // anchor, body frame (njnt x 3)
  std::vector<double> jnt_axis;       // unit axis, body frame (njnt x 3)
  std::vector<double> jnt_stiffness;  // (njnt)
  std::vector<int> jnt_limited;       // (njnt)
  std::vector<double> jnt_range;      // (njnt x 2)
  std::vector<double> qpos0;          // default configuration (nq)
  std::vector<double> qpos_spring;    // spring rest configuration (nq)

  std::vector<int> dof_jnt;          // (nv)
  std::vector<int> dof_body;         // (nv)
  std::vector<int> dof_parent;       // previous dof on the path to the root, -1 (nv)
  std::vector<double> dof_damping;   // (nv)
  std::vector<double> dof_armature;  // (nv)
  std::vector<int> tree_dof;         // ancestor dofs of each body, increasing

  std::vector<std::string> actuator_name;
  std::vector<ActuatorType> actuator_type;  // (nu)
  std::vector<int> actuator_trnid;          // driven joint (nu)
  std::vector<double> actuator_gear;        // (nu)
  std::vector<double> actuator_gainprm;     // (nu)
  std::vector<double> actuator_biasprm;     // (nu x 3)
  std::vector<int> actuator_ctrllimited;    // (nu)
  std::vector<double> actuator_ctrlrange;   // (nu x 2)
  std::vector<int> actuator_forcelimited;   // (nu)
  std::vector<double> actuator_forcerange;  // (nu x 2)

  int ntendon = 0;  // fixed tendons
  std::vector<std::string> tendon_name;
  std::vector<int> tendon_adr;    // first term in wrap_jnt/wrap_coef (ntendon)
  std::vector<int> tendon_num;    // terms (ntendon)
  std::vector<int> wrap_jnt;      // joint of each term (Σ tendon_num)
  std::vector<double> wrap_coef;  // coefficient of each term (Σ tendon_num)

  // \brief Index of a named element, -1 if there is none.
  int body_id(std::string_view name) const;
  int joint_id(std::string_view name) const;
  int actuator_id(std::string_view name) const;
  int tendon_id(std::string_view name) const;

  Sizes sizes() const;
  // \brief ModelError naming the field when the arrays do not fit the sizes, the tree or one
  // another (a Model is a plain struct and may have been edited after build()).
  void validate() const;
  double total_mass() const;
};

// \brief Builds a Model, checking each element as it is added; errors are ModelError.
class ModelBuilder {
 public:
  ModelBuilder& set_gravity(const Vec3d& g);
  ModelBuilder& set_timestep(double dt);
  ModelBuilder& set_integrator(Integrator integrator);

  // \brief Adds a body below `spec.parent`; returns its index.
  int add_body(const BodySpec& spec);
  // \brief Adds a joint to a body; a body's joints act in the order they are added.
  void add_joint(std::string_view body, const JointSpec& spec);
  void add_actuator(const ActuatorSpec& spec);
  // \brief Adds a fixed tendon over joints added before it.
  void add_tendon(const TendonSpec& spec);

  // \brief The model; checks what needs the whole tree (joint order, massless moving bodies).
  Model build() const;

 private:
  struct Joint {
    int body;
    JointSpec spec;
  };
  double timestep_ = 0.002;
  Integrator integrator_ = Integrator::kEuler;
  Vec3d gravity_{0, 0, -9.81};
  std::vector<BodySpec> bodies_{BodySpec{"world", "", {0, 0, 0}, {1, 0, 0, 0}, 0, {0, 0, 0}, {}}};
  std::vector<int> parents_{-1};
  std::vector<Joint> joints_;
  std::map<std::string, int, std::less<>> body_index_{{"world", 0}};  // name => body
  std::vector<std::vector<int>> body_joints_{{}};                     // body => its joints_
  std::vector<int> body_ball_{-1};  // body => its ball joint in joints_, -1 if none
  std::set<std::string, std::less<>> joint_names_;
  std::vector<ActuatorSpec> actuators_;
  std::vector<TendonSpec> tendons_;
};

// \brief Length of every fixed tendon at a configuration: Σ_i coef_i qpos[jnt_qposadr[j_i]]
// (ntendon); std::invalid_argument if qpos does not have nq values.
std::vector<double> tendon_lengths(const Model& model, std::span<const double> qpos);

}  // namespace zwang
