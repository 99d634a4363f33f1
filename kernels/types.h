// The vocabulary of a model: joint, geom, actuator, constraint and sensor types and the
// option flags, numbered as MuJoCo numbers them. The public API (zwang::Model, the specs) and
// the kernels use these same enums: each is unscoped inside a namespace of its own, so that its
// values are named as a scoped enum's (JointType::kHinge) and compare with the int arrays of a
// ModelView (m.jnt_type[j] == JointType::kHinge).
#pragma once

#include "kernels/hd.h"

namespace zwang {

// numbered as MuJoCo's mjtJoint; kFixed welds a body to its parent and adds no coordinate
namespace joint_types {
enum JointType : int { kFree = 0, kBall = 1, kSlide = 2, kHinge = 3, kFixed = 4 };
}  // namespace joint_types
using joint_types::JointType;

// numbered as MuJoCo's mjtIntegrator.  kEuler is semi-implicit (velocity first) with joint
// damping implicit, as MuJoCo's Euler; kImplicitFast is that step with every velocity derivative
// of the passive and actuator forces implicit (kernels/implicit.h), as MuJoCo's implicitfast;
// kImplicit adds the Coriolis and centrifugal forces' derivative, as MuJoCo's implicit
namespace integrators {
enum Integrator : int { kEuler = 0, kRK4 = 1, kImplicit = 2, kImplicitFast = 3 };
}  // namespace integrators
using integrators::Integrator;

// cylinder: a general actuator with a filter of time constant dynprm[0], gain = the area;
// muscle: muscle gain, bias and dynamics
namespace actuator_types {
enum ActuatorType : int { kMotor, kPosition, kVelocity, kGeneral, kCylinder, kMuscle };
}  // namespace actuator_types
using actuator_types::ActuatorType;

// Activation dynamics, numbered as MuJoCo's mjtDyn: none (no activation state),
// integrator (ȧ = u), filter (ȧ = (u − a) / τ), muscle (MuJoCo's mju_muscleDynamics), and
// MuJoCo 3's filterexact (the filter integrated exactly over a step), numbered 5.
namespace actuator_dyns {
enum ActuatorDyn : int { kNone = 0, kIntegrator = 1, kFilter = 2, kMuscle = 3, kFilterExact = 5 };
}  // namespace actuator_dyns
using actuator_dyns::ActuatorDyn;

// Gain and bias laws, numbered as MuJoCo's mjtGain and mjtBias.
namespace actuator_gains {
enum ActuatorGain : int { kFixed = 0, kAffine = 1, kMuscle = 2 };
}  // namespace actuator_gains
using actuator_gains::ActuatorGain;

namespace actuator_biases {
enum ActuatorBias : int { kNone = 0, kAffine = 1, kMuscle = 2 };
}  // namespace actuator_biases
using actuator_biases::ActuatorBias;

// what an actuator drives, numbered as MuJoCo's mjtTrn
namespace transmission_types {
enum TransmissionType : int { kJoint = 0, kTendon = 3 };
}  // namespace transmission_types
using transmission_types::TransmissionType;

// an entry of a tendon's path, numbered as MuJoCo's mjtWrap
namespace wrap_types {
enum WrapType : int { kJoint = 1, kPulley = 2, kSite = 3, kSphere = 4, kCylinder = 5 };
}  // namespace wrap_types
using wrap_types::WrapType;

// What Model::disableflags switches off: MuJoCo 2.2.2's mjtDisableBit values, then the
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
namespace geom_types {
enum GeomType : int {
  kPlane = 0,
  kHfield = 1,
  kSphere = 2,
  kCapsule = 3,
  kEllipsoid = 4,
  kCylinder = 5,
  kBox = 6,
  kMesh = 7
};
}  // namespace geom_types
using geom_types::GeomType;

// friction cone of contacts (MuJoCo's <option cone>)
namespace cones {
enum Cone : int { kPyramidal = 0, kElliptic = 1 };
}  // namespace cones
using cones::Cone;

// How the margins and gaps of two geoms combine into their contact's: a rule MuJoCo
// changed in its release 3.5.
namespace contact_margins {
enum ContactMargin : int {
  kMax = 0,  // the larger of the two: MuJoCo up to 3.4, and 2.2.2, the reference of the tests
  kSum = 1,  // their sum, a margin inflating each geom: MuJoCo from 3.5 on (4.0)
};
}  // namespace contact_margins
using contact_margins::ContactMargin;

// How a spatial tendon passes a sphere or cylinder that has a side site (kernels/tendon_wrap.h):
// a rule MuJoCo changed after 2.2.2.
namespace wrap_rules {
enum WrapRules : int {
  kMujoco4 = 0,  // the path winds about the geom as the side site does (MuJoCo 4.0)
  kMujoco2 = 1,  // the side site's half-plane and nearest tangents (MuJoCo 2.2.2)
};
}  // namespace wrap_rules
using wrap_rules::WrapRules;

// Which MuJoCo a model is computed as where MuJoCo 2.2.2 and 4.0 give it different meanings
// (docs/mjcf.md, "MuJoCo 2.2.2's rules"); in the kernels, a connect's and a weld's rows
// (kernels/constraint_rows.h), box–box contacts and a sphere's depth inside a box
// (kernels/narrowphase_box.h).  Contact margins and tendon wrapping have their own fields
// (ContactMargin, WrapRules), which a loader sets from the same choice.
namespace rule_sets {
enum Rules : int {
  kMujoco4 = 0,  // MuJoCo 4.0, the version today's files are written for
  kMujoco2 = 1,  // MuJoCo 2.2.2, the reference of the C++ cross-checks
};
}  // namespace rule_sets
using rule_sets::Rules;

namespace equality_types {
enum EqualityType : int { kConnect = 0, kWeld = 1, kJoint = 2, kTendon = 3 };
}  // namespace equality_types
using equality_types::EqualityType;

namespace nonholonomic_types {
enum NonholonomicType : int {
  kKnifeEdge = 0,      // the body point `point` has no velocity along the body axis `direction`
  kRollingSphere = 1,  // a sphere of `radius` centred at the body origin rolls without slipping
                       // on the plane z = `height` (its contact point has zero velocity)
};
}  // namespace nonholonomic_types
using nonholonomic_types::NonholonomicType;

// numbered as MuJoCo's mjtSensor
namespace sensor_types {
enum SensorType : int {
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
}  // namespace sensor_types
using sensor_types::SensorType;

// the kinds of object, numbered as MuJoCo 2.2.2's mjtObj: what a sensor is attached to and what
// Model::id() looks up; kBody is the frame of the principal axes of inertia at the centre of
// mass, kXBody the body frame
namespace obj_types {
enum ObjType : int {
  kUnknown = 0,
  kBody = 1,
  kXBody = 2,
  kJoint = 3,
  kDof = 4,
  kGeom = 5,
  kSite = 6,
  kCamera = 7,
  kMesh = 9,
  kHfield = 11,
  kEquality = 16,
  kTendon = 17,
  kActuator = 18,
  kSensor = 19,
  kKey = 23,
};
}  // namespace obj_types
using obj_types::ObjType;

// how a sensor's values behave under cutoff, MuJoCo's mjtDataType: real values are clamped to
// [−cutoff, cutoff], positive ones to cutoff above; axes and quaternions take no cutoff
namespace sensor_data_types {
enum SensorDataType : int { kReal = 0, kPositive = 1, kAxis = 2, kQuaternion = 3 };
}  // namespace sensor_data_types
using sensor_data_types::SensorDataType;

// dofs and coordinates of a joint type
ZW_HD inline int joint_nv(int type) {
  return type == JointType::kFree ? 6 : type == JointType::kBall ? 3 : 1;
}
ZW_HD inline int joint_nq(int type) {
  return type == JointType::kFree ? 7 : type == JointType::kBall ? 4 : 1;
}

}  // namespace zwang
