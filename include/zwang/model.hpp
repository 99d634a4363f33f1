// \brief A kinematic tree of rigid bodies with joints and actuators, shared by every instance
// of a batch, and the builder that validates it.
#pragma once

#include <array>
#include <map>
#include <optional>
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

// cylinder: a general actuator with a filter of time constant dynprm[0], gain = the area;
// muscle: muscle gain, bias and dynamics
enum class ActuatorType : int { kMotor, kPosition, kVelocity, kGeneral, kCylinder, kMuscle };
// \brief Activation dynamics, numbered as MuJoCo's mjtDyn: none (no activation state),
// integrator (ȧ = u), filter (ȧ = (u − a) / τ), muscle (MuJoCo's mju_muscleDynamics), and
// MuJoCo 3's filterexact (the filter integrated exactly over a step), numbered 5.
enum class ActuatorDyn : int {
  kNone = 0,
  kIntegrator = 1,
  kFilter = 2,
  kMuscle = 3,
  kFilterExact = 5
};
// \brief Gain and bias laws, numbered as MuJoCo's mjtGain and mjtBias.
enum class ActuatorGain : int { kFixed = 0, kAffine = 1, kMuscle = 2 };
enum class ActuatorBias : int { kNone = 0, kAffine = 1, kMuscle = 2 };

// what an actuator drives, numbered as MuJoCo's mjtTrn
enum class TransmissionType : int { kJoint = 0, kTendon = 3 };

// an entry of a tendon's path, numbered as MuJoCo's mjtWrap
enum class WrapType : int { kJoint = 1, kPulley = 2, kSite = 3 };

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

// \brief What Model::disableflags switches off: MuJoCo 2.2.2's mjtDisableBit values, then the
// flags MuJoCo 3 added (their bits are zwang's own; MuJoCo 3 renumbered the set).
enum DisableBit : int {
  kDisableConstraint = 1 << 0,    // every constraint row
  kDisableEquality = 1 << 1,      // equality constraints
  kDisableFrictionloss = 1 << 2,  // dof friction loss
  kDisableLimit = 1 << 3,         // joint limits
  kDisableContact = 1 << 4,       // contacts
  // springs, damping forces and gravity compensation (qfrc_passive = 0); as in MuJoCo 2.2.2
  // the Euler step still integrates joint damping implicitly
  kDisablePassive = 1 << 5,
  kDisableGravity = 1 << 6,       // gravity: qfrc_bias without it, no gravity compensation
  kDisableClampctrl = 1 << 7,     // ctrl is not clamped to ctrlrange
  kDisableWarmstart = 1 << 8,     // none: the solver always starts from q̈_smooth
  kDisableFilterparent = 1 << 9,  // a body and its parent may collide
  kDisableActuation = 1 << 10,    // actuator forces are zero
  kDisableRefsafe = 1 << 11,      // solref time constants below 2 h are kept
  kDisableSensor = 1 << 12,       // sensors
  kDisableSpring = 1 << 13,       // MuJoCo 3: spring forces
  kDisableDamper = 1 << 14,       // MuJoCo 3: damping, in the forces and the Euler step
  kDisableEulerdamp = 1 << 15,    // MuJoCo 3: the Euler step integrates damping explicitly
};

// numbered as MuJoCo's mjtGeom
enum class GeomType : int {
  kPlane = 0,
  kHfield = 1,
  kSphere = 2,
  kCapsule = 3,
  kEllipsoid = 4,
  kCylinder = 5,
  kBox = 6,
  kMesh = 7
};

// friction cone of contacts (MuJoCo's <option cone>)
enum class Cone : int { kPyramidal = 0, kElliptic = 1 };

// \brief How the margins and gaps of two geoms combine into their contact's: a rule MuJoCo
// changed in its release 3.5.
enum class ContactMargin : int {
  kMax = 0,  // the larger of the two: MuJoCo up to 3.4, and 2.2.2, the reference of the tests
  kSum = 1,  // their sum, a margin inflating each geom: MuJoCo from 3.5 on (4.0)
};

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

enum class EqualityType : int { kConnect = 0, kWeld = 1, kJoint = 2, kTendon = 3 };

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

enum class NonholonomicType : int {
  kKnifeEdge = 0,      // the body point `point` has no velocity along the body axis `direction`
  kRollingSphere = 1,  // a sphere of `radius` centred at the body origin rolls without slipping
                       // on the plane z = `height` (its contact point has zero velocity)
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

// numbered as MuJoCo's mjtSensor
enum class SensorType : int {
  kTouch = 0,
  kAccelerometer,
  kVelocimeter,
  kGyro,
  kForce,
  kTorque,
  kMagnetometer,
  kRangefinder,
  kJointPos,
  kJointVel,
  kTendonPos,
  kTendonVel,
  kActuatorPos,
  kActuatorVel,
  kActuatorFrc,
  kBallQuat,
  kBallAngVel,
  kJointLimitPos,
  kJointLimitVel,
  kJointLimitFrc,
  kTendonLimitPos,
  kTendonLimitVel,
  kTendonLimitFrc,
  kFramePos,
  kFrameQuat,
  kFrameXAxis,
  kFrameYAxis,
  kFrameZAxis,
  kFrameLinVel,
  kFrameAngVel,
  kFrameLinAcc,
  kFrameAngAcc,
  kSubtreeCom,
  kSubtreeLinVel,
  kSubtreeAngMom,
  kClock,
  kUser,
};

// the objects a sensor may be attached to, numbered as MuJoCo's mjtObj; kBody is the frame of
// the principal axes of inertia at the centre of mass, kXBody the body frame
enum class ObjType : int {
  kUnknown = 0,
  kBody = 1,
  kXBody = 2,
  kJoint = 3,
  kGeom = 5,
  kSite = 6,
  kCamera = 7,
  kTendon = 17,
  kActuator = 18,
};

// how a sensor's values behave under cutoff, MuJoCo's mjtDataType: real values are clamped to
// [−cutoff, cutoff], positive ones to cutoff above; axes and quaternions take no cutoff
enum class SensorDataType : int { kReal = 0, kPositive = 1, kAxis = 2, kQuaternion = 3 };

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

  // constraint solver (MuJoCo's <option iterations tolerance> and <flag>)
  int iterations = 100;     // Newton iterations at most
  double tolerance = 1e-8;  // on the scaled gradient norm
  int disableflags = 0;     // DisableBit

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

  std::vector<double> body_gravcomp;  // gravity compensation, a fraction of m g (nbody)
  std::vector<int> body_mocapid;      // index among the mocap bodies, -1 if none (nbody)
  int nmocap = 0;                     // mocap bodies: children of the world posed per instance

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
  std::vector<double> jnt_margin;     // (njnt)
  std::vector<double> jnt_solref;     // limit rows (njnt x 2)
  std::vector<double> jnt_solimp;     // limit rows (njnt x 5)
  std::vector<double> qpos0;          // default configuration (nq)
  std::vector<double> qpos_spring;    // spring rest configuration (nq)

  std::vector<int> dof_jnt;              // (nv)
  std::vector<int> dof_body;             // (nv)
  std::vector<int> dof_parent;           // previous dof on the path to the root, -1 (nv)
  std::vector<double> dof_damping;       // (nv)
  std::vector<double> dof_armature;      // (nv)
  std::vector<double> dof_frictionloss;  // (nv)
  std::vector<double> dof_solref;        // friction rows (nv x 2)
  std::vector<double> dof_solimp;        // friction rows (nv x 5)
  // mean diagonal of J H⁻¹ Jᵀ at qpos0: the scale of R (MuJoCo's invweight0)
  std::vector<double> body_invweight0;  // translation, rotation (nbody x 2)
  std::vector<double> dof_invweight0;   // (nv)
  std::vector<int> tree_dof;            // ancestor dofs of each body, increasing

  std::vector<std::string> actuator_name;
  std::vector<ActuatorType> actuator_type;      // (nu)
  std::vector<int> actuator_trntype;            // TransmissionType (nu)
  std::vector<int> actuator_trnid;              // driven joint or tendon (nu)
  std::vector<double> actuator_gear;            // (nu)
  std::vector<double> actuator_gainprm;         // gain0 gain1 gain2: fixed gain0 (nu x 3)
  std::vector<double> actuator_biasprm;         // (nu x 3)
  std::vector<ActuatorDyn> actuator_dyntype;    // (nu)
  std::vector<ActuatorGain> actuator_gaintype;  // (nu)
  std::vector<ActuatorBias> actuator_biastype;  // (nu)
  std::vector<double> actuator_dynprm;          // filter: τ, 0, 0 (nu x 3)
  std::vector<int> actuator_actadr;             // index in act, -1 without dynamics (nu)
  std::vector<int> actuator_actlimited;         // (nu)
  std::vector<int> actuator_actearly;           // force from next_activation (MuJoCo 3) (nu)
  std::vector<double> actuator_actrange;        // (nu x 2)
  std::vector<double> actuator_lengthrange;     // muscles' length range, else 0 0 (nu x 2)
  // muscle curves (kernels/actuator_dynamics.h): lengthrange0 L0 range0 lmin lmax vmax fvmax 0
  std::vector<double> actuator_musclegain;  // (nu x 8)
  std::vector<double> actuator_musclebias;  // lengthrange0 L0 range0 lmax (nu x 4)
  int na = 0;  // activations: the actuators with dynamics, in actuator order
  std::vector<int> actuator_ctrllimited;    // (nu)
  std::vector<double> actuator_ctrlrange;   // (nu x 2)
  std::vector<int> actuator_forcelimited;   // (nu)
  std::vector<double> actuator_forcerange;  // (nu x 2)

  int ntendon = 0;  // tendons, fixed and spatial
  std::vector<std::string> tendon_name;
  std::vector<int> tendon_adr;              // first entry in wrap_* (ntendon)
  std::vector<int> tendon_num;              // entries (ntendon)
  std::vector<int> wrap_type;               // WrapType of each entry (Σ tendon_num)
  std::vector<int> wrap_objid;              // joint or site, -1 for a pulley (Σ tendon_num)
  std::vector<double> wrap_prm;             // joint coefficient or pulley divisor (Σ tendon_num)
  std::vector<double> tendon_stiffness;     // (ntendon)
  std::vector<double> tendon_damping;       // (ntendon)
  std::vector<double> tendon_lengthspring;  // spring rest length (ntendon)
  std::vector<double> tendon_length0;       // length at qpos0 (ntendon)
  std::vector<double> tendon_invweight0;    // J H⁻¹ Jᵀ at qpos0 (ntendon)
  std::vector<double> tendon_frictionloss;  // (ntendon)
  std::vector<int> tendon_limited;          // (ntendon)
  std::vector<double> tendon_range;         // (ntendon x 2)
  std::vector<double> tendon_margin;        // (ntendon)
  std::vector<double> tendon_solref_lim;    // (ntendon x 2)
  std::vector<double> tendon_solimp_lim;    // (ntendon x 5)
  std::vector<double> tendon_solref_fri;    // (ntendon x 2)
  std::vector<double> tendon_solimp_fri;    // (ntendon x 5)

  int neq = 0;  // equality constraints
  std::vector<std::string> eq_name;
  std::vector<EqualityType> eq_type;  // (neq)
  std::vector<int> eq_obj1id;         // body or joint (neq)
  std::vector<int> eq_obj2id;         // body (0: world) or joint (-1: none) (neq)
  std::vector<int> eq_active;         // (neq)
  std::vector<int> eq_hard;           // (neq)
  // MuJoCo's eq_data: connect anchor1, anchor2; weld anchor2, anchor1, relquat, torquescale;
  // joint polycoef (neq x 11)
  std::vector<double> eq_data;
  std::vector<double> eq_solref;  // (neq x 2)
  std::vector<double> eq_solimp;  // (neq x 5)

  int ndrive = 0;                    // driven joints
  std::vector<int> drive_jnt;        // (ndrive)
  std::vector<double> drive_prm;     // q0 v0 amplitude omega phase (ndrive x 5)
  std::vector<double> drive_solref;  // (ndrive x 2)

  int nnhc = 0;  // non-holonomic constraints
  std::vector<std::string> nhc_name;
  std::vector<NonholonomicType> nhc_type;  // (nnhc)
  std::vector<int> nhc_body;               // (nnhc)
  std::vector<double> nhc_data;            // point, direction | radius, height, 0 ... (nnhc x 6)
  std::vector<double> nhc_solref;          // (nnhc x 2)

  // contacts: geoms, explicit pairs (MuJoCo's <pair>), excluded body pairs (<exclude>)
  int ngeom = 0;
  std::vector<std::string> geom_name;
  std::vector<GeomType> geom_type;    // (ngeom)
  std::vector<int> geom_body;         // (ngeom)
  std::vector<double> geom_pos;       // body frame (ngeom x 3)
  std::vector<double> geom_quat;      // body frame (ngeom x 4)
  std::vector<double> geom_size;      // (ngeom x 3)
  std::vector<double> geom_rbound;    // bounding sphere radius, 0 for planes (ngeom)
  std::vector<int> geom_contype;      // (ngeom)
  std::vector<int> geom_visible;      // 1: rangefinder rays see it (ngeom)
  std::vector<int> geom_conaffinity;  // (ngeom)
  std::vector<int> geom_condim;       // (ngeom)
  std::vector<int> geom_priority;     // (ngeom)
  std::vector<double> geom_friction;  // (ngeom x 3)
  std::vector<double> geom_margin;    // (ngeom)
  std::vector<double> geom_gap;       // (ngeom)
  std::vector<double> geom_solmix;    // (ngeom)
  std::vector<double> geom_solref;    // (ngeom x 2)
  std::vector<double> geom_solimp;    // (ngeom x 5)
  std::vector<int> geom_dataid;       // mesh of a mesh geom, -1 for the others (ngeom)
  // meshes (MuJoCo's <mesh> assets, in their order): the convex hull of each, in the frame of
  // its geoms (MuJoCo's mesh frame: centred at the mesh's centre of mass, along its principal
  // axes); kept for the narrow phase, which has no mesh pairs yet
  int nmesh = 0;
  std::vector<std::string> mesh_name;
  std::vector<int> mesh_vertadr;  // first vertex in mesh_vert (nmesh)
  std::vector<int> mesh_vertnum;  // hull vertices, 0 where there is no hull (nmesh)
  std::vector<double> mesh_vert;  // (Σ mesh_vertnum x 3)
  std::vector<int> mesh_faceadr;  // first triangle in mesh_face (nmesh)
  std::vector<int> mesh_facenum;  // hull triangles (nmesh)
  std::vector<int> mesh_face;     // vertex indices within the mesh, outward (Σ mesh_facenum x 3)
  int npair = 0;
  std::vector<std::string> pair_name;
  std::vector<int> pair_geom1;        // (npair)
  std::vector<int> pair_geom2;        // (npair)
  std::vector<int> pair_dim;          // (npair)
  std::vector<double> pair_friction;  // (npair x 5)
  std::vector<double> pair_solref;    // (npair x 2)
  std::vector<double> pair_solimp;    // (npair x 5)
  std::vector<double> pair_margin;    // (npair)
  std::vector<double> pair_gap;       // (npair)
  int nexclude = 0;
  std::vector<int> exclude_body1;  // (nexclude)
  std::vector<int> exclude_body2;  // (nexclude)
  Cone cone = Cone::kPyramidal;
  double impratio = 1;  // frictional-to-normal impedance ratio (MuJoCo's impratio)
  ContactMargin contact_margin = ContactMargin::kMax;  // margin and gap of a geom pair's contact
  int nconmax = 0;  // contacts per instance at most; 0: the bound the model implies

  // sites: frames fixed to bodies (MuJoCo's <site>), in MuJoCo's order: bodies as numbered, a
  // body's sites in the order they were added
  int nsite = 0;
  std::vector<std::string> site_name;
  std::vector<int> site_bodyid;   // (nsite)
  std::vector<double> site_pos;   // body frame (nsite x 3)
  std::vector<double> site_quat;  // body frame, unit (nsite x 4)
  std::vector<int> site_type;     // GeomType of the zone (nsite)
  std::vector<double> site_size;  // its size, as a geom's (nsite x 3)

  // bodies merged at load into the body they are welded to (MJCF <compiler fusestatic>, URDF
  // LoadOptions::fuse_static), in body order (MJCF: the document's; URDF: depth-first, as the
  // bodies): no longer bodies of the model, but their frames stay known in the body that took
  // them, and zwang::derive gives their world poses and velocities (Derived::kFusedXpos ...) as
  // MuJoCo gives those of the bodies before merging
  int nfused = 0;
  std::vector<std::string> fused_name;  // '' for an unnamed body (nfused)
  std::vector<int> fused_bodyid;        // the body that took it, 0 the world (nfused)
  std::vector<double> fused_pos;        // its frame's origin in that body's frame (nfused x 3)
  std::vector<double> fused_quat;       // its frame's orientation there, unit (nfused x 4)
  // its mass, joined to that body's unless that is the world (settotalmass scales it as the
  // masses of the bodies that stay) (nfused)
  std::vector<double> fused_mass;
  std::vector<double> fused_ipos;  // its centre of mass in that body's frame (nfused x 3)

  // sensors (MuJoCo's <sensor>), in the order they were added: sensor i writes sensor_dim[i]
  // values at sensor_adr[i] of each instance's `sensordata`
  int nsensor = 0;
  int nsensordata = 0;  // Σ sensor_dim
  std::vector<std::string> sensor_name;
  std::vector<SensorType> sensor_type;          // (nsensor)
  std::vector<SensorDataType> sensor_datatype;  // (nsensor)
  std::vector<ObjType> sensor_objtype;          // (nsensor)
  std::vector<int> sensor_objid;                // -1 for none (clock, user) (nsensor)
  std::vector<ObjType> sensor_reftype;          // (nsensor)
  std::vector<int> sensor_refid;                // -1: the world frame (nsensor)
  std::vector<int> sensor_dim;                  // (nsensor)
  std::vector<int> sensor_adr;                  // first value in sensordata (nsensor)
  std::vector<double> sensor_cutoff;            // 0: none (nsensor)
  std::vector<double> sensor_noise;             // never added (nsensor)
  Vec3d magnetic{0, -0.5, 0};                   // magnetic field, world (T): magnetometers
  // keyframes (MuJoCo's <keyframe>), complete: every array has its values for every key
  int nkey = 0;
  std::vector<std::string> key_name;  // '' for an unnamed key (nkey)
  std::vector<double> key_time;       // (nkey)
  std::vector<double> key_qpos;       // quaternions normalised (nkey x nq)
  std::vector<double> key_qvel;       // (nkey x nv)
  std::vector<double> key_ctrl;       // (nkey x nu)
  std::vector<double> key_act;        // (nkey x na)
  std::vector<double> key_mpos;       // (nkey x nmocap x 3)
  std::vector<double> key_mquat;      // unit (nkey x nmocap x 4)

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
