// What a model is made of, element by element: the specs ModelBuilder takes (bodies,
// joints, geoms, actuators, constraints, tendons, sensors, keyframes) and the small types they
// share. The enums they name are the model's vocabulary in kernels/types.h.
#pragma once

#include <array>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/types.h"

namespace zwang {

// An invalid model: the message names the body, joint or actuator (and, for a file,
// the file and line).
class ModelError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

std::string_view to_string(JointType type);
std::string_view to_string(GeomType type);  // MJCF's type: "plane", "sphere", ...
std::string_view to_string(Integrator integrator);
std::string_view to_string(ActuatorType type);

using Vec3d = std::array<double, 3>;
using Quatd = std::array<double, 4>;  // w, x, y, z

// MuJoCo's softness of a constraint row.  solref (timeconst, dampratio) > 0, or
// (−stiffness, −damping) ≤ 0 for the direct form; solimp (dmin, dmax, width, midpoint, power)
// is the impedance, rising from dmin at the constraint to dmax at distance `width`.
using SolRef = std::array<double, 2>;
using SolImp = std::array<double, 5>;
inline constexpr SolRef kDefaultSolRef{0.02, 1};
inline constexpr SolImp kDefaultSolImp{0.9, 0.95, 0.001, 0.5, 2};

// How ModelBuilder checks masses and inertias.
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

// Inertia tensor about the centre of mass in the body frame: xx yy zz xy xz yz (kg m²).
using Inertia6 = std::array<double, 6>;

// The tensor R diag(principal) Rᵀ for principal moments along the axes of `frame`.
Inertia6 inertia_from_principal(const Vec3d& principal, const Quatd& frame = {1, 0, 0, 0});

struct BodySpec {
  std::string name;                    // unique; empty gives "body<id>"
  std::string parent = "world";        // a body added before this one
  Vec3d pos{0, 0, 0};                  // frame origin in the parent frame (m)
  Quatd quat{1, 0, 0, 0};              // frame orientation in the parent frame, normalised
  double mass = 0;                     // (kg)
  Vec3d com{0, 0, 0};                  // centre of mass in the body frame (m)
  Inertia6 inertia{0, 0, 0, 0, 0, 0};  // about the COM, body frame (kg m²)
  // orientation of the principal axes of `inertia` in the body frame (MuJoCo's body_iquat), the
  // frame of the fluid forces' inertia box; used where it diagonalises `inertia`, else (and when
  // empty) the body frame if `inertia` is diagonal there, else its eigenvectors
  std::optional<Quatd> iquat = std::nullopt;
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
  // hinge and slide: the actuators' total force on the joint clamped to actfrcrange (N m or N;
  // MuJoCo 3's actuatorfrcrange)
  bool actfrclimited = false;
  std::array<double, 2> actfrcrange{0, 0};
  // the gravity compensation of the joint's dofs is an actuator force, in qfrc_actuator (and
  // clamped with it) rather than qfrc_passive (MuJoCo 3's actuatorgravcomp)
  bool actgravcomp = false;
};

// An equality constraint, MuJoCo's <equality> elements.
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

// A driven hinge or slide joint (rheonomic constraint): its coordinate follows
// q(t) = q0 + v0 t + amplitude sin(omega t + phase) exactly (hard row); the five numbers are
// per-instance parameters (Batch::drive_prm).  solref sets the drift correction.
struct DriveSpec {
  std::string joint;
  double q0 = 0, v0 = 0, amplitude = 0, omega = 0, phase = 0;
  SolRef solref = kDefaultSolRef;
};

// A constraint linear in velocity, A(q) q̇ = 0, enforced exactly at acceleration level:
// A q̈ + Ȧ q̇ = 0 (seed 001 §5).
struct NonholonomicSpec {
  std::string name;  // may be empty
  NonholonomicType type = NonholonomicType::kKnifeEdge;
  std::string body;
  Vec3d point{0, 0, 0};            // knife edge: the contact point, body frame
  Vec3d direction{0, 1, 0};        // knife edge: the blocked direction, body frame, normalised
  double radius = 0;               // rolling sphere
  double height = 0;               // rolling sphere: the plane
  SolRef solref = kDefaultSolRef;  // drift correction: the knife edge's row, the sphere's height
};

// A collision geom (MuJoCo's <geom>): a shape fixed to a body.  Two geoms collide when
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
  // height-field geoms: a height field added before it (ModelBuilder::add_hfield), in the geom's
  // frame; `size` is then the height field's (MuJoCo's geom_size: x, y half-sizes and
  // ¼ elevation + ½ base), whatever was given
  std::string hfield{};
  // rangefinder rays pass through a geom that is not visible (MuJoCo: rgba, or its material's,
  // with alpha 0)
  bool visible = true;
  // the fluid forces' ellipsoid model (MuJoCo's fluidshape="ellipsoid"): the geom, as the
  // ellipsoid of its semi-axes, feels drag, lift and added-mass forces of the medium, and its
  // body no longer those of its inertia box; fluidcoef: blunt drag, slender drag, angular drag,
  // Kutta lift, Magnus lift (MuJoCo's defaults)
  bool fluid_ellipsoid = false;
  std::array<double, 5> fluidcoef{0.5, 0.25, 1.5, 1.0, 1.0};
};

// A mesh's convex hull (MuJoCo's <mesh>, whose vertices a mesh geom collides with): its
// vertices in the frame of the geoms that use it and its triangles, counter-clockwise seen from
// outside, as indices into `vert`.
struct MeshSpec {
  std::string name;          // unique among meshes
  std::vector<double> vert;  // x y z per vertex (m); may be empty where no hull exists
  std::vector<int> face;     // three indices per triangle; none exactly where vert is empty
};

// A height field (MuJoCo's <hfield>): a grid of elevations over the rectangle
// [−size[0], size[0]] × [−size[1], size[1]] of its geoms' xy plane, nrow rows along y (row 0 at
// y = −size[1]) of ncol points along x (column 0 at x = −size[0]).  The elevations are scaled to
// [0, 1] as MuJoCo does (in float: e ← (e − min) / (max − min), all 0 where they are equal); the
// surface is then size[2] · e above the geom's origin, and the solid goes down to −size[3] (the
// base).  Geoms collide with the solid as MuJoCo does: each grid cell (columns c, c + 1, rows
// r, r + 1) two triangular prisms split along its diagonal from (c, r) to (c + 1, r + 1).
struct HFieldSpec {
  std::string name;  // unique among height fields
  int nrow = 0, ncol = 0;
  std::vector<double> elevation;           // nrow · ncol, row by row from y = −size[1]
  std::array<double, 4> size{0, 0, 0, 0};  // x and y half-sizes, elevation scale, base (m)
};

// A geom pair that always collides, with its own contact parameters (MuJoCo's <pair>);
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
  double kp = 1;  // position servo: f = kp (u − l) − kd l̇
  double kd = 0;  // the position servo's damping (MuJoCo 3's kv of a position actuator)
  // or, > 0, its damping ratio (MuJoCo 3's dampratio): kd = dampratio 2 √(kp m) with m the
  // inertia reflected through the moment at qpos0, 1 / (momentᵀ H⁻¹ moment) (kd must then be 0)
  double dampratio = 0;
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
  // > 0: ctrlrange is the range of the joint or tendon (limited or not; it must have one) about
  // its middle, its half-width scaled by this (MuJoCo 3's inheritrange of a position actuator);
  // 0: ctrlrange as given
  double inheritrange = 0;
};

// A keyframe (MuJoCo's <key>): a state to start or reset instances from.  An empty
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

// A site (MuJoCo's <site>): a frame fixed to a body, where positions and orientations
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

// A body merged into the body it is welded to when a model was loaded (Model::fused_*).
struct FusedBodySpec {
  std::string name;  // unique among bodies and merged bodies; may be empty
  std::string body = "world";
  Vec3d pos{0, 0, 0};      // its frame's origin in the body's frame (m)
  Quatd quat{1, 0, 0, 0};  // its frame's orientation there, normalised
  double mass = 0;         // (kg)
  Vec3d ipos{0, 0, 0};     // its centre of mass in the body's frame (m)
};

// A tendon (MuJoCo's <tendon>).
//   fixed:   length L = Σ_i coef_i q_i over hinge and slide joints (m or rad, as the joints)
//   spatial: a path through sites, straight between consecutive sites, L = Σ |p_{i+1} − p_i| / d
//            where d is the divisor of the last pulley before the segment (1 before any); a
//            sphere or cylinder geom between two sites bends the segment around it where the
//            straight one would pass through (kernels/tendon_wrap.h), to the side of its side
//            site if it has one
// Passive force on the tendon −k x − b L̇, x = L − upper above springlength's upper end, L −
// lower below its lower end, 0 between (MuJoCo 3's dead band; a rest length is both ends;
// −1 −1: the length at qpos_spring); limits and friction loss are constraint rows as a joint's.
struct TendonSpec {
  std::string name;  // unique; empty gives "tendon<id>"
  struct Term {
    std::string joint;  // a hinge or slide joint
    double coef = 1;
  };
  std::vector<Term> joints;  // fixed: at least one
  // spatial: a site; a pulley (site and geom empty) whose divisor applies to the segments after
  // it; or a sphere or cylinder geom to wrap around, with an optional side site
  struct Point {
    std::string site;
    double divisor = 0;
    std::string geom{};
    std::string sidesite{};
  };
  std::vector<Point> path{};  // spatial: at least two sites
  bool spatial = false;
  double stiffness = 0, damping = 0;           // (N/m, N s/m, or per rad)
  std::array<double, 2> springlength{-1, -1};  // lower ≤ upper
  double frictionloss = 0;
  bool limited = false;
  std::array<double, 2> range{0, 0};
  double margin = 0;
  SolRef solreflimit = kDefaultSolRef, solreffriction = kDefaultSolRef;
  SolImp solimplimit = kDefaultSolImp, solimpfriction = kDefaultSolImp;
  // MuJoCo 3's actuatorfrcrange: the actuators on the tendon scaled together so that their total
  // force stays in [lo, hi] (lo < hi, 0 in it), before each actuator's own forcerange
  bool actfrclimited = false;
  std::array<double, 2> actfrcrange{0, 0};
};

std::string_view to_string(SensorType type);  // MJCF's element name: "accelerometer", ...
std::string_view to_string(ObjType type);     // MJCF's objtype: "body", "xbody", ...

// argument-dependent lookup searches an enum's own namespace (kernels/types.h): there, too,
// to_string(model.jnt_type[j]) is the name, also beside `using std::to_string`
namespace joint_types {
using zwang::to_string;
}
namespace geom_types {
using zwang::to_string;
}
namespace integrators {
using zwang::to_string;
}
namespace actuator_types {
using zwang::to_string;
}
namespace sensor_types {
using zwang::to_string;
}
namespace obj_types {
using zwang::to_string;
}

// A sensor (MuJoCo's <sensor> elements): values computed from the state of each
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

}  // namespace zwang
