// \brief A kinematic tree of rigid bodies with joints and actuators, shared by every instance
// of a batch, and the builder that validates it.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/layout.h"
#include "kernels/model_fields.h"
#include "kernels/types.h"

namespace zwang {

// \brief An invalid model: the message names the body, joint or actuator (and, for a file,
// the file and line).
class ModelError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

std::string_view to_string(JointType type);
std::string_view to_string(Integrator integrator);
std::string_view to_string(ActuatorType type);

using Vec3d = std::array<double, 3>;
using Quatd = std::array<double, 4>;  // w, x, y, z

// \brief MuJoCo's softness of a constraint row.  solref (timeconst, dampratio) > 0, or
// (−stiffness, −damping) ≤ 0 for the direct form; solimp (dmin, dmax, width, midpoint, power)
// is the impedance, rising from dmin at the constraint to dmax at distance `width`.
using SolRef = std::array<double, 2>;
using SolImp = std::array<double, 5>;
inline constexpr SolRef kDefaultSolRef{0.02, 1};
inline constexpr SolImp kDefaultSolImp{0.9, 0.95, 0.001, 0.5, 2};

// \brief How ModelBuilder checks masses and inertias.
enum class InertiaRule : int {
  // each body's inertia is a rigid body's (principal moments ≥ 0 with A + B ≥ C, none without
  // mass), a body on joints has mass below it and a positive definite inertia if it has mass:
  // MJCF files (MuJoCo's compiler also refuses A + B < C and massless moving bodies) and models
  // built in code
  kRigidBody = 0,
  // masses ≥ 0 and finite inertias, whatever they are; the joints must make H positive
  // definite, at qpos0 or at a second configuration (H singular at both: ModelError naming the
  // joint): what URDF importers (Pinocchio, MuJoCo's) let through
  kMassMatrix = 1,
};

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
  // a child of the world without joints whose pose each instance prescribes (Batch mocap_pos,
  // mocap_quat; MuJoCo's mocap bodies): body_pos and body_quat are its default pose
  bool mocap = false;
  // gravity compensation: the passive force −gravcomp m g at the COM (MuJoCo 2.3's gravcomp)
  double gravcomp = 0;
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
  bool limited = false;  // range enforced by limit rows (hinge, slide: q; ball: rotation angle)
  std::array<double, 2> range{0, 0};  // (rad or m); a ball uses max(range) as its cone angle
  double margin = 0;                  // a limit row is active at distance < margin
  SolRef solreflimit = kDefaultSolRef;
  SolImp solimplimit = kDefaultSolImp;
  double frictionloss = 0;  // dry friction per dof (N m or N), a friction row when > 0
  SolRef solreffriction = kDefaultSolRef;
  SolImp solimpfriction = kDefaultSolImp;
};

// \brief An equality constraint, MuJoCo's <equality> elements.
//   connect: body1's point `anchor` (body1 frame) stays at the same world point as the point
//            of body2 that coincided with it at qpos0 (3 rows)
//   weld:    body2's point `anchor` (body2 frame) and body2's orientation keep the pose relative
//            to body1 given by `relpose` (position in body1's frame, quaternion q1⁻¹ q2), or the
//            pose at qpos0 when relpose's quaternion is zero (6 rows; rotation rows scaled by
//            torquescale)
//   joint:   q1 − q1₀ = Σ_k polycoef_k (q2 − q2₀)^k, or q1 − q1₀ = polycoef_0 without joint2
//            (1 row; hinge and slide joints)
struct EqualitySpec {
  std::string name;  // unique among equalities; may be empty
  EqualityType type = EqualityType::kConnect;
  std::string obj1;  // body1 (connect, weld) or joint1 (joint)
  std::string obj2;  // body2 (empty: the world) or joint2 (empty: none)
  Vec3d anchor{0, 0, 0};
  std::array<double, 7> relpose{0, 0, 0, 0, 0, 0, 0};
  double torquescale = 1;
  std::array<double, 5> polycoef{0, 1, 0, 0, 0};
  bool active = true;
  // exact (Gauss projection with drift correction by solref) instead of MuJoCo's soft row
  bool hard = false;
  SolRef solref = kDefaultSolRef;
  SolImp solimp = kDefaultSolImp;
};

// \brief A driven hinge or slide joint (rheonomic constraint): its coordinate follows
// q(t) = q0 + v0 t + amplitude sin(omega t + phase) exactly (hard row); the five numbers are
// per-instance parameters (Batch::drive_prm).  solref sets the drift correction.
struct DriveSpec {
  std::string joint;
  double q0 = 0, v0 = 0, amplitude = 0, omega = 0, phase = 0;
  SolRef solref = kDefaultSolRef;
};

// \brief A constraint linear in velocity, A(q) q̇ = 0, enforced exactly at acceleration level:
// A q̈ + Ȧ q̇ = 0 (seed 001 §5).
struct NonholonomicSpec {
  std::string name;  // may be empty
  NonholonomicType type = NonholonomicType::kKnifeEdge;
  std::string body;
  Vec3d point{0, 0, 0};            // knife edge: the contact point, body frame
  Vec3d direction{0, 1, 0};        // knife edge: the blocked direction, body frame, normalised
  double radius = 0;               // rolling sphere
  double height = 0;               // rolling sphere: the plane
  SolRef solref = kDefaultSolRef;  // drift correction of the sphere's height
};

// \brief A collision geom (MuJoCo's <geom>): a shape fixed to a body.  Two geoms collide when
// (contype₁ & conaffinity₂) | (contype₂ & conaffinity₁) ≠ 0, they are not on the same rigid
// piece, nor on a body and its parent (unless the parent is the world), nor on an excluded body
// pair.  Their contact takes condim, friction, solref and solimp by MuJoCo's mixing rules.
struct GeomSpec {
  std::string name;  // unique among geoms; may be empty
  std::string body = "world";
  GeomType type = GeomType::kSphere;
  // sphere: radius; capsule, cylinder: radius, half-length; box: half-sizes; ellipsoid:
  // semi-axes; plane: rendering half-sizes (a plane is infinite)
  Vec3d size{0, 0, 0};
  Vec3d pos{0, 0, 0};      // in the body frame (m)
  Quatd quat{1, 0, 0, 0};  // in the body frame; a plane's normal is its z axis
  int contype = 1, conaffinity = 1;
  int condim = 3;    // 1 frictionless, 3 sliding friction, 4 and torsion, 6 and rolling
  int priority = 0;  // the higher priority's condim, friction, solref, solimp win
  Vec3d friction{1, 0.005, 0.0001};  // sliding, torsional, rolling
  double margin = 0;                 // contacts are found at distance < margin
  double gap = 0;                    // and act at distance < margin − gap
  double solmix = 1;                 // weight of this geom's solref and solimp in a mixed contact
  SolRef solref = kDefaultSolRef;
  SolImp solimp = kDefaultSolImp;
  // mesh geoms: a mesh added before it (ModelBuilder::add_mesh), in the geom's frame; `size`
  // then holds the half-extents of the mesh along the geom's axes (MuJoCo's aabb)
  std::string mesh{};
  // rangefinder rays pass through a geom that is not visible (MuJoCo: rgba, or its material's,
  // with alpha 0)
  bool visible = true;
};

// \brief A mesh's convex hull (MuJoCo's <mesh>, whose vertices a mesh geom collides with): its
// vertices in the frame of the geoms that use it and its triangles, counter-clockwise seen from
// outside, as indices into `vert`.
struct MeshSpec {
  std::string name;          // unique among meshes
  std::vector<double> vert;  // x y z per vertex (m); may be empty where no hull exists
  std::vector<int> face;     // three indices per triangle
};

// \brief A geom pair that always collides, with its own contact parameters (MuJoCo's <pair>);
// an unset parameter takes the geoms' mixed value.
struct ContactPairSpec {
  std::string name;  // may be empty
  std::string geom1, geom2;
  std::optional<int> condim;
  std::optional<std::array<double, 5>> friction;  // tangent 1, tangent 2, torsion, roll 1, 2
  std::optional<SolRef> solref;
  std::optional<SolImp> solimp;
  std::optional<double> margin, gap;
};

struct ActuatorSpec {
  std::string name;   // unique; empty gives "actuator<id>"
  std::string joint;  // a hinge or slide joint (empty when `tendon` is given)
  ActuatorType type = ActuatorType::kMotor;
  double gear = 1;
  bool ctrllimited = false;
  std::array<double, 2> ctrlrange{0, 0};
  bool forcelimited = false;
  std::array<double, 2> forcerange{0, 0};
  double kp = 1;  // position servo: f = kp (u − l)
  double kv = 1;  // velocity servo: f = kv (u − l̇)
  // general: f = gain u + bias[0] + bias[1] l + bias[2] l̇, u replaced by the activation a
  // when the actuator has dynamics; an affine gain is gain + gain_slope[0] l + gain_slope[1] l̇
  double gain = 1;
  std::array<double, 3> bias{0, 0, 0};
  std::string tendon{};  // or a tendon: exactly one of joint and tendon
  ActuatorGain gaintype = ActuatorGain::kFixed;
  std::array<double, 2> gain_slope{0, 0};
  ActuatorBias biastype = ActuatorBias::kAffine;  // kMuscle, or affine (none when bias is 0)
  ActuatorDyn dyntype = ActuatorDyn::kNone;
  // filter: τ (s); muscle: activation and deactivation time constants (s)
  std::array<double, 3> dynprm{1, 0, 0};
  bool actlimited = false;
  std::array<double, 2> actrange{0, 0};  // a clamped to it after each step when actlimited
  bool actearly = false;                 // MuJoCo 3: the force from the activation after the step
  // muscle gain and bias, MuJoCo's gainprm and biasprm: range0, range1, force (< 0: scale /
  // acc0), scale, lmin, lmax, vmax, fpmax, fvmax (the bias reads range, force, scale, lmax, fpmax)
  std::array<double, 9> muscle_gain{0.75, 1.05, -1, 200, 0.5, 1.6, 1.5, 1.3, 1.2};
  std::array<double, 9> muscle_bias{0.75, 1.05, -1, 200, 0.5, 1.6, 1.5, 1.3, 1.2};
  // the range of the actuator length a muscle works over (lo < hi); when not given, the joint's
  // range if `lengthrange_from_limit` and the joint is limited (MuJoCo's uselimit), else an
  // error: zwang does not find it by simulation as MuJoCo's compiler does
  std::array<double, 2> lengthrange{0, 0};
  bool lengthrange_from_limit = false;
};

// \brief A keyframe (MuJoCo's <key>): a state to start or reset instances from.  An empty
// vector takes MuJoCo's default: qpos0, zero qvel and ctrl, the mocap bodies' body_pos and
// body_quat.  Quaternions (ball and free joints in qpos, mquat) are normalised, a zero one
// made the identity, as MuJoCo's compiler does.
struct KeyframeSpec {
  std::string name;  // may be empty; unique among keyframes otherwise
  double time = 0;   // (s)
  std::vector<double> qpos, qvel, ctrl;
  std::vector<double> mpos, mquat;  // mocap poses in mocap order (nmocap x 3, nmocap x 4)
  std::vector<double> act = {};     // activations (na)
};

// \brief A site (MuJoCo's <site>): a frame fixed to a body, where positions and orientations
// are observed.  It has no effect on the dynamics.
struct SiteSpec {
  std::string name;  // unique among sites; may be empty
  std::string body = "world";
  Vec3d pos{0, 0, 0};      // in the body frame (m)
  Quatd quat{1, 0, 0, 0};  // in the body frame, normalised
  // the site's zone, where a touch sensor counts contacts: a sphere, capsule, ellipsoid, cylinder
  // or box, with a geom's size numbers (radius, half-length, semi-axes, half-sizes)
  GeomType type = GeomType::kSphere;
  Vec3d size{0.005, 0.005, 0.005};
};

// \brief A body merged into the body it is welded to when a model was loaded (Model::fused_*).
struct FusedBodySpec {
  std::string name;  // unique among bodies and merged bodies; may be empty
  std::string body = "world";
  Vec3d pos{0, 0, 0};      // its frame's origin in the body's frame (m)
  Quatd quat{1, 0, 0, 0};  // its frame's orientation there, normalised
  double mass = 0;         // (kg)
  Vec3d ipos{0, 0, 0};     // its centre of mass in the body's frame (m)
};

// \brief A tendon (MuJoCo's <tendon>).
//   fixed:   length L = Σ_i coef_i q_i over hinge and slide joints (m or rad, as the joints)
//   spatial: a path through sites, straight between consecutive sites, L = Σ |p_{i+1} − p_i| / d
//            where d is the divisor of the last pulley before the segment (1 before any)
// Passive force on the tendon −k (L − springlength) − b L̇ (springlength < 0: the length at
// qpos_spring); limits and friction loss are constraint rows as a joint's.
struct TendonSpec {
  std::string name;  // unique; empty gives "tendon<id>"
  struct Term {
    std::string joint;  // a hinge or slide joint
    double coef = 1;
  };
  std::vector<Term> joints;  // fixed: at least one
  // spatial: a site, or a pulley (empty site) whose divisor applies to the segments after it
  struct Point {
    std::string site;
    double divisor = 0;
  };
  std::vector<Point> path{};  // spatial: at least two sites
  bool spatial = false;
  double stiffness = 0, damping = 0;  // (N/m, N s/m, or per rad)
  double springlength = -1;
  double frictionloss = 0;
  bool limited = false;
  std::array<double, 2> range{0, 0};
  double margin = 0;
  SolRef solreflimit = kDefaultSolRef, solreffriction = kDefaultSolRef;
  SolImp solimplimit = kDefaultSolImp, solimpfriction = kDefaultSolImp;
};

std::string_view to_string(SensorType type);  // MJCF's element name: "accelerometer", ...
std::string_view to_string(ObjType type);     // MJCF's objtype: "body", "xbody", ...

// \brief A sensor (MuJoCo's <sensor> elements): values computed from the state of each
// instance into the output `sensordata`, as MuJoCo's mj_sensorPos/Vel/Acc compute them, by
// forward() and by step() at the state the step starts from (as mj_step leaves them).
//   site sensors (accelerometer, velocimeter, gyro, force, torque, magnetometer): objtype site
//   jointpos, jointvel: a hinge or slide; ballquat, ballangvel: a ball; jointlimit*: a limited
//   joint; tendonpos, tendonvel: a tendon; tendonlimit*: a limited tendon; actuatorpos,
//   actuatorvel, actuatorfrc
//   frame sensors (frame*): objtype body, xbody, geom or site, and for framepos, framequat,
//   the axes and the velocities an optional reference frame (reftype, refname) of those types;
//   the orientation of a kBody (its principal axes) is not available: use kXBody or a site
//   subtreecom, subtreelinvel, subtreeangmom: a body; clock: no object
//   user: `dim` values that zwang never writes (the user's own, 0 after a reset)
// Frames of cameras and the orientation of a body's principal axes are not computed
// (ModelError).
struct SensorSpec {
  std::string name;  // unique among sensors; empty gives "sensor<id>"
  SensorType type = SensorType::kClock;
  ObjType objtype = ObjType::kUnknown;  // kUnknown: the type's own (site, joint, ...)
  std::string objname{};
  ObjType reftype = ObjType::kUnknown;  // kUnknown: the world frame
  std::string refname{};
  double cutoff = 0;  // > 0: values clamped as their data type says
  double noise = 0;   // standard deviation: recorded, never added (MuJoCo adds none by default)
  int dim = 0;        // user sensors: the number of values
  SensorDataType datatype = SensorDataType::kReal;  // user sensors
};

// \brief The shape of a Model array: rows, then the widths of a row (at most three numbers).
struct ArrayShape {
  int ndim = 0;
  std::array<std::int64_t, 3> dim{};

  template <class... N>
  static ArrayShape of(N... n) {
    static_assert(sizeof...(N) >= 1 && sizeof...(N) <= 3);
    return {static_cast<int>(sizeof...(N)), {static_cast<std::int64_t>(n)...}};
  }
  // \brief Values of the array: the product of the dims (INT64_MAX past it).
  std::int64_t count() const {
    std::int64_t c = 1;
    for (int k = 0; k < ndim; ++k) {
      if (__builtin_mul_overflow(c, dim[k], &c)) return INT64_MAX;
    }
    return c;
  }
};

// \brief A validated model.  Arrays follow MuJoCo's names and layout: body 0 is the world;
// joints are numbered body by body; qpos/qvel addresses follow joint order (free: 7/6,
// ball: 4/3, hinge and slide: 1/1).
struct Model {
  int nq = 0;      // generalized coordinates
  int nv = 0;      // degrees of freedom
  int nu = 0;      // actuators
  int na = 0;      // activations: the actuators with dynamics, in actuator order
  int nbody = 1;   // bodies, the world included
  int njnt = 0;    // joints
  int nmocap = 0;  // mocap bodies: children of the world posed per instance
  int ntendon = 0;
  int neq = 0;     // equality constraints
  int ndrive = 0;  // driven joints
  int nnhc = 0;    // non-holonomic constraints
  int ngeom = 0;
  // meshes (MuJoCo's <mesh> assets, in their order): the convex hull of each, in the frame of
  // its geoms (MuJoCo's mesh frame: centred at the mesh's centre of mass, along its principal
  // axes); kept for the narrow phase, which has no mesh pairs
  int nmesh = 0;
  int npair = 0;     // explicit geom pairs (MuJoCo's <pair>)
  int nexclude = 0;  // excluded body pairs (<exclude>)
  // sites: frames fixed to bodies (MuJoCo's <site>), in MuJoCo's order: bodies as numbered, a
  // body's sites in the order they were added
  int nsite = 0;
  // bodies merged at load into the body they are welded to (MJCF <compiler fusestatic>, URDF
  // LoadOptions::fuse_static), in body order (MJCF: the document's; URDF: depth-first, as the
  // bodies): no longer bodies of the model, but their frames stay known in the body that took
  // them, and zwang::derive gives their world poses and velocities (Derived::kFusedXpos ...) as
  // MuJoCo gives those of the bodies before merging
  int nfused = 0;
  // sensors (MuJoCo's <sensor>), in the order they were added: sensor i writes sensor_dim[i]
  // values at sensor_adr[i] of each instance's `sensordata`
  int nsensor = 0;
  int nsensordata = 0;  // Σ sensor_dim
  // keyframes (MuJoCo's <keyframe>), complete: every array has its values for every key
  int nkey = 0;

  double timestep = 0.002;  // (s)
  Integrator integrator = Integrator::kEuler;
  Vec3d gravity{0, 0, -9.81};  // (m/s²)
  Vec3d magnetic{0, -0.5, 0};  // magnetic field, world (T): magnetometers
  // constraint solver (MuJoCo's <option iterations tolerance> and <flag>)
  int iterations = 100;     // Newton iterations at most
  double tolerance = 1e-8;  // on the scaled gradient norm
  int disableflags = 0;     // DisableBit
  // contacts
  Cone cone = Cone::kPyramidal;
  double impratio = 1;  // frictional-to-normal impedance ratio (MuJoCo's impratio)
  ContactMargin contact_margin = ContactMargin::kMax;  // margin and gap of a geom pair's contact
  int nconmax = 0;  // contacts per instance at most; 0: the bound the model implies

  // the arrays of kernels/model_fields.h, with their meanings and shapes there
#define ZW_X(use, type, name, shape, meaning) std::vector<type> name;
  ZW_MODEL_ARRAYS(ZW_X)
#undef ZW_X

  // counts that are the sizes of arrays
  int njac() const {
    return static_cast<int>(tree_dof.size());
  }  // Σ body_treenum
  int nwrap() const {
    return static_cast<int>(wrap_type.size());
  }  // Σ tendon_num
  int nmeshvert() const {
    return static_cast<int>(mesh_vert.size() / 3);
  }
  int nmeshface() const {
    return static_cast<int>(mesh_face.size() / 3);
  }

  // \brief f(name, array, shape, text) for each array of kernels/model_fields.h, in its order:
  // the shape its counts give, and its meaning followed by its shape, "mass (nbody)".
  template <class F>
  void for_each_array(F&& f) const {
#define ZW_X(use, type, name, shape, meaning) \
  f(#name, name, ArrayShape::of shape, meaning " " #shape);
    ZW_MODEL_ARRAYS(ZW_X)
#undef ZW_X
  }
  // \brief Index of a named element, -1 if there is none (fused_id: also for "", which names
  // every unnamed merged body).
  int body_id(std::string_view name) const;
  int joint_id(std::string_view name) const;
  int actuator_id(std::string_view name) const;
  int tendon_id(std::string_view name) const;
  int equality_id(std::string_view name) const;
  int geom_id(std::string_view name) const;
  int site_id(std::string_view name) const;
  int fused_id(std::string_view name) const;
  int sensor_id(std::string_view name) const;
  int key_id(std::string_view name) const;
  int mesh_id(std::string_view name) const;

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
  // \brief Adds an equality constraint between bodies or joints added before it.
  void add_equality(const EqualitySpec& spec);
  // \brief Drives a hinge or slide joint added before it; at most one drive per joint.
  void add_drive(const DriveSpec& spec);
  void add_nonholonomic(const NonholonomicSpec& spec);
  // \brief Adds a mesh (its convex hull) for mesh geoms; returns its index.
  int add_mesh(const MeshSpec& spec);
  // \brief Adds a collision geom to a body added before it.
  void add_geom(const GeomSpec& spec);
  // \brief Adds a site to a body added before it.
  void add_site(const SiteSpec& spec);
  // \brief Records a body that a loader merged into `spec.body`, added before it (Model::fused_*).
  void add_fused_body(const FusedBodySpec& spec);
  // \brief Adds a sensor on elements added before it (sites, joints, geoms, ...).
  void add_sensor(const SensorSpec& spec);
  // \brief The magnetic field magnetometers measure (MuJoCo's <option magnetic>).
  ModelBuilder& set_magnetic(const Vec3d& field);
  // \brief Adds a keyframe; build() gives its empty entries their defaults and refuses wrong
  // lengths ("keyframe 'name'" or "keyframe <index>").
  void add_keyframe(const KeyframeSpec& spec);
  // \brief Adds a geom pair that always collides (geoms added before it).
  void add_contact_pair(const ContactPairSpec& spec);
  // \brief Excludes the contacts between two bodies added before it.
  void add_contact_exclude(std::string_view body1, std::string_view body2);
  // \brief Friction cone and impedance ratio of contacts.
  ModelBuilder& set_cone(Cone cone, double impratio = 1);
  // \brief Contacts per instance at most; 0 takes the bound the model implies.
  ModelBuilder& set_max_contacts(int nconmax);
  // \brief How two geoms' margins and gaps combine (the larger by default, as MuJoCo 2.2.2).
  ModelBuilder& set_contact_margin(ContactMargin rule);
  // \brief Disables constraint types (DisableBit).
  ModelBuilder& set_disableflags(int flags);
  // \brief Solver iterations and tolerance of the constraint solver.
  ModelBuilder& set_solver(int iterations, double tolerance);
  // \brief How masses and inertias are checked (InertiaRule); set before the first body.
  ModelBuilder& set_inertia_rule(InertiaRule rule);

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
  std::vector<EqualitySpec> equalities_;
  std::vector<DriveSpec> drives_;
  std::vector<NonholonomicSpec> nonholonomic_;
  void add_contacts(Model& m) const;

  std::vector<GeomSpec> geoms_;
  std::vector<MeshSpec> meshes_;
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
  ContactMargin contact_margin_ = ContactMargin::kMax;
  int nconmax_ = 0;
  int disableflags_ = 0;
  int iterations_ = 100;
  double tolerance_ = 1e-8;
  InertiaRule inertia_rule_ = InertiaRule::kRigidBody;
};

// \brief The parameters of a contact between two geoms by MuJoCo's rules: with different
// priorities the higher one's; else condim and friction the larger, solref and solimp mixed by
// solmix (solref of the direct form: the smaller); margin and gap, whatever the priorities, the
// larger or the sum as Model::contact_margin says.
struct ContactMix {
  int condim;
  std::array<double, 5> friction;  // tangent 1, tangent 2, torsion, roll 1, roll 2
  SolRef solref;
  SolImp solimp;
  double margin, gap;
};
ContactMix mix_contact(const Model& model, int geom1, int geom2);

// \brief The default poses of the mocap bodies (MuJoCo's mj_resetData): each one's body_pos and
// body_quat, in mocap order (nmocap x 3, nmocap x 4).
std::vector<double> mocap_pos0(const Model& model);
std::vector<double> mocap_quat0(const Model& model);

// \brief Length of every tendon at a configuration (ntendon), the mocap bodies at their default
// poses: fixed Σ_i coef_i qpos[jnt_qposadr[j_i]], spatial the path through its sites;
// std::invalid_argument if qpos does not have nq values.
std::vector<double> tendon_lengths(const Model& model, std::span<const double> qpos);

}  // namespace zwang
