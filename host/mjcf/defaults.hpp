// The MJCF reader's default classes: the attributes each class gives its elements.
#pragma once

#include <array>
#include <functional>
#include <map>
#include <optional>
#include <pugixml.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "host/mjcf/compiler.hpp"

namespace zwang::mjcf {

enum class Limited { kAuto, kFalse, kTrue };

// a limited flag and its range as MuJoCo resolves them; `what` names the attributes
bool resolve_limited(const Attrs& a, Limited limited, const std::array<double, 2>& range,
                     bool autolimits, std::string_view flag, std::string_view range_name);

struct JointDef {
  JointType type = JointType::kHinge;
  Vec3d pos{0, 0, 0};
  Vec3d axis{0, 0, 1};
  double damping = 0, armature = 0, stiffness = 0, frictionloss = 0;
  double ref = 0, springref = 0;  // hinge: in the compiler's angle unit
  Limited limited = Limited::kAuto;
  std::array<double, 2> range{0, 0};  // hinge and ball: in the compiler's angle unit
  double margin = 0;                  // rad or m: MuJoCo converts no margin from degrees
  SolRef solreflimit = kDefaultSolRef, solreffriction = kDefaultSolRef;
  SolImp solimplimit = kDefaultSolImp, solimpfriction = kDefaultSolImp;
  Limited actfrclimited = Limited::kAuto;  // MuJoCo 3: the actuators' total force on the joint
  std::array<double, 2> actfrcrange{0, 0};
  bool actgravcomp = false;  // MuJoCo 3: gravity compensation as an actuator force
};

struct GeomDef {
  GeomType type = GeomType::kSphere;
  std::array<double, 3> size{0, 0, 0};
  double density = 1000;
  double mass = -1;  // < 0: from the density
  int group = 0;
  Vec3d pos{0, 0, 0};
  Quatd quat{1, 0, 0, 0};
  std::optional<std::array<double, 6>> fromto;
  // a mesh geom's mesh, or the mesh a primitive is fitted to (scaled by fitscale); shellinertia:
  // the mesh's surface carries the mass (MuJoCo 2.2.2's attribute, MuJoCo 3's shell)
  std::string mesh;
  std::string hfield;  // a height-field geom's <hfield>
  double fitscale = 1;
  bool shellinertia = false;
  // what rangefinder rays see: the alpha of rgba, or of the material's rgba where it has one
  double alpha = 1;
  std::string material;
  // contact parameters, GeomSpec's
  int contype = 1, conaffinity = 1, condim = 3, priority = 0;
  Vec3d friction{1, 0.005, 0.0001};
  double margin = 0, gap = 0, solmix = 1;
  SolRef solref = kDefaultSolRef;
  SolImp solimp = kDefaultSolImp;
  // the fluid forces' ellipsoid model (fluidshape, fluidcoef), GeomSpec's
  bool fluid_ellipsoid = false;
  std::array<double, 5> fluidcoef{0.5, 0.25, 1.5, 1.0, 1.0};
};

// a site's frame in its body; fromto (capsule, cylinder, box, ellipsoid) sets both, as a geom's
struct SiteDef {
  GeomType type = GeomType::kSphere;
  Vec3d size{0.005, 0.005, 0.005};  // numbers not given keep the class's
  Vec3d pos{0, 0, 0};
  Quatd quat{1, 0, 0, 0};
  std::optional<std::array<double, 6>> fromto;
};

// what <default><pair> sets: MuJoCo 2.2.2's mjCPair starts from these values, never from its
// geoms (the compiler's mixing of unset pair parameters cannot be reached from MJCF)
struct PairDef {
  int condim = 3;
  std::array<double, 5> friction{1, 1, 0.005, 0.0001, 0.0001};
  SolRef solref = kDefaultSolRef;
  SolImp solimp = kDefaultSolImp;
  double margin = 0, gap = 0;
};

// MuJoCo's general actuator, which motor, position and velocity set up
struct ActuatorDef {
  int dyntype = 0;   // none integrator filter muscle user filterexact
  int gaintype = 0;  // fixed affine muscle user
  int biastype = 0;  // none affine muscle user
  std::array<double, 10> gainprm{1, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  std::array<double, 10> biasprm{};
  std::array<double, 10> dynprm{1, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  Limited actlimited = Limited::kAuto;
  std::array<double, 2> actrange{0, 0};
  bool actearly = false;  // MuJoCo 3: the force from the activation at the end of the step
  std::array<double, 2> lengthrange{0, 0};
  std::array<double, 6> gear{1, 0, 0, 0, 0, 0};
  Limited ctrllimited = Limited::kAuto, forcelimited = Limited::kAuto;
  std::array<double, 2> ctrlrange{0, 0}, forcerange{0, 0};
  double inheritrange = 0;  // position (MuJoCo 3): > 0, ctrlrange from the target's range
};

struct TendonDef {
  double stiffness = 0, damping = 0, frictionloss = 0;
  std::array<double, 2> springlength{-1, -1};  // −1 −1: the length at qpos_spring
  Limited limited = Limited::kAuto;
  std::array<double, 2> range{0, 0};
  double margin = 0;
  SolRef solreflimit = kDefaultSolRef, solreffriction = kDefaultSolRef;
  SolImp solimplimit = kDefaultSolImp, solimpfriction = kDefaultSolImp;
  Limited actfrclimited = Limited::kAuto;
  std::array<double, 2> actfrcrange{0, 0};
};

// what <default><equality> sets for connect, weld and joint equalities
struct EqualityDef {
  bool active = true;
  SolRef solref = kDefaultSolRef;
  SolImp solimp = kDefaultSolImp;
};

// what <default><mesh> sets
struct MeshDef {
  Vec3d scale{1, 1, 1};
  std::optional<int> inertia;  // MuJoCo 3's inertia attribute: legacy exact convex shell
};

struct DefaultClass {
  MeshDef mesh;
  JointDef joint;
  GeomDef geom;
  ActuatorDef actuator;
  TendonDef tendon;
  EqualityDef equality;
  PairDef pair;
  SiteDef site;
  double material_alpha = 1;  // the alpha of <material rgba>
};

class Defaults {
 public:
  // the classes of every <default> section, "main" at the top
  Defaults(Context& ctx, std::span<const pugi::xml_node> sections, const Compiler& c);
  // the class named by the element's `class`, else `active` (a body's childclass)
  const DefaultClass& of(Attrs& a, std::string_view active) const;
  const DefaultClass& named(pugi::xml_node node, std::string_view name) const;

 private:
  // one top <default> and the classes nested in it
  void read(pugi::xml_node section);
  // the class of one <default>, starting from its parent's; its nested <default> elements
  std::vector<pugi::xml_node> define(pugi::xml_node node, const std::string& name,
                                     const DefaultClass& parent);
  Context& ctx_;
  const Compiler& compiler_;
  std::map<std::string, DefaultClass, std::less<>> classes_;
};

// the attributes an element sets on top of its class (shared by <default> and the model)
void read_joint(Attrs& a, JointDef& d);
void read_geom(Attrs& a, GeomDef& d, const Compiler& c);
// `kind` is motor, position, velocity or general, each with MuJoCo's rule
void read_actuator(Attrs& a, std::string_view kind, ActuatorDef& d);
void read_tendon(Attrs& a, TendonDef& d);
void read_equality(Attrs& a, EqualityDef& d);
void read_pair(Attrs& a, PairDef& d);
void read_site(Attrs& a, SiteDef& d, const Compiler& c);
void read_mesh(Attrs& a, MeshDef& d);
bool is_actuator_kind(std::string_view tag);
bool is_supported_actuator_kind(std::string_view tag);

}  // namespace zwang::mjcf
