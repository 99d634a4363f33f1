// ModelBuilder: a Model assembled element by element, each checked as it is added.
#pragma once

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "zwang/model.hpp"
#include "zwang/spec.hpp"

namespace zwang {

// Builds a Model, checking each element as it is added; errors are ModelError.
class ModelBuilder {
 public:
  ModelBuilder& set_gravity(const Vec3d& g);
  ModelBuilder& set_timestep(double dt);
  ModelBuilder& set_integrator(Integrator integrator);

  // Adds a body below `spec.parent`; returns its index.
  int add_body(const BodySpec& spec);
  // Adds a joint to a body; a body's joints act in the order they are added.
  void add_joint(std::string_view body, const JointSpec& spec);
  void add_actuator(const ActuatorSpec& spec);
  // Adds a fixed tendon over joints added before it.
  void add_tendon(const TendonSpec& spec);
  // Adds an equality constraint between bodies or joints added before it.
  void add_equality(const EqualitySpec& spec);
  // Drives a hinge or slide joint added before it; at most one drive per joint.
  void add_drive(const DriveSpec& spec);
  void add_nonholonomic(const NonholonomicSpec& spec);
  // Adds a mesh (its convex hull) for mesh geoms; returns its index.
  int add_mesh(const MeshSpec& spec);
  // Adds a height field for height-field geoms; returns its index.
  int add_hfield(const HFieldSpec& spec);
  // Adds a collision geom to a body added before it.  The model numbers geoms body by body
  // (MuJoCo's order), each body's in the order they were added.
  void add_geom(const GeomSpec& spec);
  // Adds a site to a body added before it.
  void add_site(const SiteSpec& spec);
  // Records a body that a loader merged into `spec.body`, added before it (Model::fused_*).
  void add_fused_body(const FusedBodySpec& spec);
  // Adds a sensor on elements added before it (sites, joints, geoms, ...).
  void add_sensor(const SensorSpec& spec);
  // The magnetic field magnetometers measure (MuJoCo's <option magnetic>).
  ModelBuilder& set_magnetic(const Vec3d& field);
  // The medium of the fluid forces (MuJoCo's <option density viscosity wind>): density and
  // viscosity ≥ 0, forces where either is positive.
  ModelBuilder& set_fluid(double density, double viscosity, const Vec3d& wind);
  // Adds a keyframe; build() gives its empty entries their defaults and refuses wrong
  // lengths ("keyframe 'name'" or "keyframe <index>").
  void add_keyframe(const KeyframeSpec& spec);
  // Adds a geom pair that always collides (geoms added before it).
  void add_contact_pair(const ContactPairSpec& spec);
  // Excludes the contacts between two bodies added before it.
  void add_contact_exclude(std::string_view body1, std::string_view body2);
  // Friction cone and impedance ratio of contacts.
  ModelBuilder& set_cone(Cone cone, double impratio = 1);
  // Contacts per instance at most; 0 takes the bound the model implies.
  ModelBuilder& set_max_contacts(int nconmax);
  // How two geoms' margins and gaps combine (the sum by default, as MuJoCo 4.0; the larger as
  // MuJoCo 2.2.2).
  ModelBuilder& set_contact_margin(ContactMargin rule);
  // How spatial tendons pass a sphere or cylinder with a side site (MuJoCo 4.0's by default).
  // The tendons' constants at qpos0 (length0, the default spring length, invweight0) follow it.
  ModelBuilder& set_wrap_rules(WrapRules rules);
  // Which MuJoCo the model is computed as where MuJoCo 2.2.2 and 4.0 differ (Rules; 4.0's by
  // default): connect and weld rows, box–box, sphere-in-box and ellipsoid contacts (Rules).
  // Contact margins and wrapping are set apart above.
  ModelBuilder& set_rules(Rules rules);
  // Disables constraint types (DisableBit).
  ModelBuilder& set_disableflags(int flags);
  // Solver iterations and tolerance of the constraint solver.
  ModelBuilder& set_solver(int iterations, double tolerance);
  // How masses and inertias are checked (InertiaRule); set before the first body.
  ModelBuilder& set_inertia_rule(InertiaRule rule);

  // The model; checks what needs the whole tree (joint order, massless moving bodies).
  Model build() const;

 private:
  struct Joint {
    int body;
    JointSpec spec;
  };
  double timestep_ = 0.002;
  Integrator integrator_ = Integrator::kEuler;
  Vec3d gravity_{0, 0, -9.81};
  double density_ = 0, viscosity_ = 0;
  Vec3d wind_{0, 0, 0};
  std::vector<BodySpec> bodies_{BodySpec{"world", "", {0, 0, 0}, {1, 0, 0, 0}, 0, {0, 0, 0}, {}}};
  std::vector<int> parents_{-1};
  std::vector<Joint> joints_;
  std::map<std::string, int, std::less<>> body_index_{{"world", 0}};  // name => body
  std::vector<std::vector<int>> body_joints_{{}};                     // body => its joints_
  std::vector<int> body_ball_{-1};  // body => its ball joint in joints_, -1 if none
  std::set<std::string, std::less<>> joint_names_;
  std::vector<ActuatorSpec> actuators_;
  std::vector<TendonSpec> tendons_;
  std::vector<EqualitySpec> equalities_;
  std::vector<DriveSpec> drives_;
  std::vector<NonholonomicSpec> nonholonomic_;
  void add_contacts(Model& m) const;

  std::vector<GeomSpec> geoms_;
  std::vector<MeshSpec> meshes_;
  std::vector<HFieldSpec> hfields_;
  std::vector<SiteSpec> sites_;
  void add_sites(Model& m) const;
  std::vector<FusedBodySpec> fused_;
  void add_fused(Model& m) const;
  void add_tendons(Model& m) const;
  int tendon_index(const std::string& name) const;  // -1 if none
  std::vector<SensorSpec> sensors_;
  Vec3d magnetic_{0, -0.5, 0};
  void add_sensors(Model& m) const;
  std::vector<KeyframeSpec> keyframes_;
  void add_keyframes(Model& m) const;
  std::vector<ContactPairSpec> pairs_;
  std::vector<std::array<std::string, 2>> excludes_;
  Cone cone_ = Cone::kPyramidal;
  double impratio_ = 1;
  ContactMargin contact_margin_ = ContactMargin::kSum;
  WrapRules wrap_rules_ = WrapRules::kMujoco4;
  Rules rules_ = Rules::kMujoco4;
  int nconmax_ = 0;
  int disableflags_ = 0;
  int iterations_ = 100;
  double tolerance_ = 1e-8;
  InertiaRule inertia_rule_ = InertiaRule::kRigidBody;
};

}  // namespace zwang
