// Sensors: the builder's checks (MuJoCo 2.2.2's mjCSensor::Compile rules, and what zwang does
// not compute), their layout in sensordata, and Model::validate's share.
#include "host/model/sensors.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "host/model/element_name.hpp"
#include "zwang/builder.hpp"

namespace zwang {
namespace {

constexpr int kLastSensorType = static_cast<int>(SensorType::kUser);

bool known_type(SensorType type) {
  const int t = static_cast<int>(type);
  return t >= 0 && t <= kLastSensorType;
}

bool known_datatype(SensorDataType type) {
  const int t = static_cast<int>(type);
  return t >= 0 && t <= static_cast<int>(SensorDataType::kQuaternion);
}

bool is_spatial(ObjType t) {
  return t == ObjType::kBody || t == ObjType::kXBody || t == ObjType::kGeom || t == ObjType::kSite;
}

// frame sensors that may be measured in a reference frame (MuJoCo 2.2.2's parser reads reftype
// for these, not for framelinacc and frameangacc)
bool takes_reference(SensorType type) {
  return is_frame_sensor(type) && type != SensorType::kFrameLinAcc &&
         type != SensorType::kFrameAngAcc;
}

// frame sensors that read the orientation of their object
bool reads_orientation(SensorType type) {
  return type == SensorType::kFrameQuat || type == SensorType::kFrameXAxis ||
         type == SensorType::kFrameYAxis || type == SensorType::kFrameZAxis;
}

// the rules that do not depend on the objects themselves; `who` starts each message
void check_kinds(const std::string& who, SensorType type, ObjType objtype, ObjType reftype,
                 bool has_ref, double cutoff, double noise, int dim, SensorDataType datatype) {
  if (!known_type(type)) {
    throw ModelError(fmt::format("{}: unknown type {}", who, static_cast<int>(type)));
  }
  const std::string_view kind = to_string(type);
  const std::string why = sensor_not_computed(type, objtype, has_ref ? reftype : ObjType::kUnknown);
  if (!why.empty()) throw ModelError(fmt::format("{}: {}", who, why));
  if (!(cutoff >= 0) || !std::isfinite(cutoff)) {
    throw ModelError(fmt::format("{}: cutoff must be finite and >= 0 (got {})", who, cutoff));
  }
  if (!(noise >= 0) || !std::isfinite(noise)) {
    throw ModelError(fmt::format("{}: noise must be finite and >= 0 (got {})", who, noise));
  }
  if (type == SensorType::kUser) {
    if (!known_datatype(datatype)) {
      throw ModelError(fmt::format("{}: unknown datatype {}", who, static_cast<int>(datatype)));
    }
    if (dim < 0) throw ModelError(fmt::format("{}: dim must be >= 0 (got {})", who, dim));
    if (datatype == SensorDataType::kAxis && dim != 3)
      throw ModelError(fmt::format("{}: datatype axis needs dim 3 (got {})", who, dim));
    if (datatype == SensorDataType::kQuaternion && dim != 4)
      throw ModelError(fmt::format("{}: datatype quaternion needs dim 4 (got {})", who, dim));
    if (objtype != ObjType::kUnknown || has_ref) {
      throw ModelError(fmt::format("{}: a user sensor is attached to no object", who));
    }
  } else if (is_frame_sensor(type)) {
    if (!is_spatial(objtype)) {
      throw ModelError(
          fmt::format("{}: a {} sensor needs objtype body, xbody, geom or site", who, kind));
    }
    if (has_ref && !takes_reference(type)) {
      throw ModelError(fmt::format("{}: a {} sensor has no reference frame", who, kind));
    }
    if (has_ref && !is_spatial(reftype)) {
      throw ModelError(
          fmt::format("{}: the reference frame must be a body, xbody, geom or site", who));
    }
  } else {
    const ObjType own = sensor_object(type);
    if (objtype != ObjType::kUnknown && objtype != own) {
      throw ModelError(fmt::format("{}: a {} sensor is attached to a {}", who, kind,
                                   own == ObjType::kUnknown ? "nothing" : to_string(own)));
    }
    if (has_ref) throw ModelError(fmt::format("{}: a {} sensor has no reference frame", who, kind));
  }
  const SensorDataType dt = type == SensorType::kUser ? datatype : sensor_shape(type).datatype;
  if (cutoff > 0 && (dt == SensorDataType::kAxis || dt == SensorDataType::kQuaternion)) {
    throw ModelError(fmt::format("{}: cutoff does not apply to the {} values of a {} sensor", who,
                                 dt == SensorDataType::kAxis ? "axis" : "quaternion", kind));
  }
}

}  // namespace

std::string_view to_string(SensorType type) {
  constexpr std::string_view kNames[] = {"touch",
                                         "accelerometer",
                                         "velocimeter",
                                         "gyro",
                                         "force",
                                         "torque",
                                         "magnetometer",
                                         "rangefinder",
                                         "jointpos",
                                         "jointvel",
                                         "tendonpos",
                                         "tendonvel",
                                         "actuatorpos",
                                         "actuatorvel",
                                         "actuatorfrc",
                                         "ballquat",
                                         "ballangvel",
                                         "jointlimitpos",
                                         "jointlimitvel",
                                         "jointlimitfrc",
                                         "tendonlimitpos",
                                         "tendonlimitvel",
                                         "tendonlimitfrc",
                                         "framepos",
                                         "framequat",
                                         "framexaxis",
                                         "frameyaxis",
                                         "framezaxis",
                                         "framelinvel",
                                         "frameangvel",
                                         "framelinacc",
                                         "frameangacc",
                                         "subtreecom",
                                         "subtreelinvel",
                                         "subtreeangmom",
                                         "clock",
                                         "user"};
  static_assert(std::size(kNames) == kLastSensorType + 1);
  return known_type(type) ? kNames[static_cast<int>(type)] : "unknown";
}

std::string_view to_string(ObjType type) {
  // MuJoCo 2.2.2's names by mjtObj value, "" for the kinds zwang has not
  constexpr std::string_view kNames[] = {
      "unknown",  "body",   "xbody",    "joint",  "dof", "geom", "site", "camera",
      "",         "mesh",   "",         "hfield", "",    "",     "",     "",
      "equality", "tendon", "actuator", "sensor", "",    "",     "",     "key"};
  const int t = static_cast<int>(type);
  return t >= 0 && t < static_cast<int>(std::size(kNames)) && !kNames[t].empty() ? kNames[t]
                                                                                 : "unknown";
}

SensorShape sensor_shape(SensorType type) {
  switch (type) {
    case SensorType::kTouch:
    case SensorType::kRangefinder:
      return {1, SensorDataType::kPositive};
    case SensorType::kJointPos:
    case SensorType::kJointVel:
    case SensorType::kTendonPos:
    case SensorType::kTendonVel:
    case SensorType::kActuatorPos:
    case SensorType::kActuatorVel:
    case SensorType::kActuatorFrc:
    case SensorType::kJointLimitPos:
    case SensorType::kJointLimitVel:
    case SensorType::kJointLimitFrc:
    case SensorType::kTendonLimitPos:
    case SensorType::kTendonLimitVel:
    case SensorType::kTendonLimitFrc:
    case SensorType::kClock:
      return {1, SensorDataType::kReal};
    case SensorType::kBallQuat:
    case SensorType::kFrameQuat:
      return {4, SensorDataType::kQuaternion};
    case SensorType::kFrameXAxis:
    case SensorType::kFrameYAxis:
    case SensorType::kFrameZAxis:
      return {3, SensorDataType::kAxis};
    case SensorType::kUser:
      return {0, SensorDataType::kReal};
    default:
      return {3, SensorDataType::kReal};
  }
}

ObjType sensor_object(SensorType type) {
  switch (type) {
    case SensorType::kTouch:
    case SensorType::kAccelerometer:
    case SensorType::kVelocimeter:
    case SensorType::kGyro:
    case SensorType::kForce:
    case SensorType::kTorque:
    case SensorType::kMagnetometer:
    case SensorType::kRangefinder:
      return ObjType::kSite;
    case SensorType::kJointPos:
    case SensorType::kJointVel:
    case SensorType::kBallQuat:
    case SensorType::kBallAngVel:
    case SensorType::kJointLimitPos:
    case SensorType::kJointLimitVel:
    case SensorType::kJointLimitFrc:
      return ObjType::kJoint;
    case SensorType::kTendonPos:
    case SensorType::kTendonVel:
    case SensorType::kTendonLimitPos:
    case SensorType::kTendonLimitVel:
    case SensorType::kTendonLimitFrc:
      return ObjType::kTendon;
    case SensorType::kActuatorPos:
    case SensorType::kActuatorVel:
    case SensorType::kActuatorFrc:
      return ObjType::kActuator;
    case SensorType::kSubtreeCom:
    case SensorType::kSubtreeLinVel:
    case SensorType::kSubtreeAngMom:
      return ObjType::kBody;
    default:
      return ObjType::kUnknown;
  }
}

bool is_frame_sensor(SensorType type) {
  const int t = static_cast<int>(type);
  return t >= static_cast<int>(SensorType::kFramePos) &&
         t <= static_cast<int>(SensorType::kFrameAngAcc);
}

std::string sensor_not_computed(SensorType type, ObjType objtype, ObjType reftype) {
  const std::string_view kind = to_string(type);
  if (!is_frame_sensor(type)) return {};
  if (objtype == ObjType::kCamera || reftype == ObjType::kCamera) {
    return fmt::format(
        "{} sensors of cameras are not computed (cameras are not part of zwang's "
        "models)",
        kind);
  }
  // MuJoCo's frame of a body object is that of its principal axes of inertia, which a zwang
  // model does not keep (it holds the inertia tensor in the body frame)
  if ((objtype == ObjType::kBody && reads_orientation(type)) ||
      (reftype == ObjType::kBody && takes_reference(type))) {
    return fmt::format(
        "the orientation of a body's principal axes of inertia (objtype or reftype 'body') is not "
        "available to a {} sensor; use 'xbody' (the body frame) or a site",
        kind);
  }
  return {};
}

int sensor_body_rows(const Model& m) {
  for (const SensorType t : m.sensor_type) {
    if (t == SensorType::kSubtreeLinVel || t == SensorType::kSubtreeAngMom ||
        t == SensorType::kForce || t == SensorType::kTorque) {
      return m.nbody;
    }
  }
  return 0;
}

ModelBuilder& ModelBuilder::set_magnetic(const Vec3d& field) {
  for (double b : field) {
    if (!std::isfinite(b)) throw ModelError("magnetic field: not finite");
  }
  magnetic_ = field;
  return *this;
}

void ModelBuilder::add_sensor(const SensorSpec& in) {
  SensorSpec spec = in;
  const std::string who = claim_name(spec.name, sensors_, "sensor", "a");
  const bool has_ref = spec.reftype != ObjType::kUnknown || !spec.refname.empty();
  if (spec.reftype == ObjType::kUnknown && !spec.refname.empty()) {
    throw ModelError(fmt::format("{}: refname '{}' without reftype", who, spec.refname));
  }
  if (spec.reftype != ObjType::kUnknown && spec.refname.empty()) {
    throw ModelError(fmt::format("{}: reftype {} without refname", who, to_string(spec.reftype)));
  }
  check_kinds(who, spec.type, spec.objtype, spec.reftype, has_ref, spec.cutoff, spec.noise,
              spec.dim, spec.datatype);
  if (spec.objtype == ObjType::kUnknown) spec.objtype = sensor_object(spec.type);
  if (spec.objtype == ObjType::kUnknown && !spec.objname.empty()) {
    throw ModelError(fmt::format("{}: a {} sensor is attached to no object (objname '{}')", who,
                                 to_string(spec.type), spec.objname));
  }

  // the named object exists and is of the kind the sensor needs
  auto check_object = [&](ObjType type, const std::string& name, std::string_view role) {
    const std::string_view kind = type == ObjType::kXBody ? "body" : to_string(type);
    if (name.empty()) throw ModelError(fmt::format("{}: needs the name of its {}", who, role));
    bool found = false;
    switch (type) {
      case ObjType::kBody:
      case ObjType::kXBody:
        found = body_index_.contains(name);
        break;
      case ObjType::kGeom:
        found = std::any_of(geoms_.begin(), geoms_.end(),
                            [&](const GeomSpec& g) { return g.name == name; });
        break;
      case ObjType::kSite:
        found = std::any_of(sites_.begin(), sites_.end(),
                            [&](const SiteSpec& s) { return s.name == name; });
        break;
      case ObjType::kActuator:
        found = std::any_of(actuators_.begin(), actuators_.end(),
                            [&](const ActuatorSpec& a) { return a.name == name; });
        break;
      case ObjType::kTendon: {
        const auto it = std::find_if(tendons_.begin(), tendons_.end(),
                                     [&](const TendonSpec& t) { return t.name == name; });
        found = it != tendons_.end();
        const SensorType st = spec.type;
        if (found && !it->limited &&
            (st == SensorType::kTendonLimitPos || st == SensorType::kTendonLimitVel ||
             st == SensorType::kTendonLimitFrc)) {
          throw ModelError(fmt::format("{}: tendon '{}' is not limited; {} needs a limited tendon",
                                       who, name, to_string(st)));
        }
        break;
      }
      case ObjType::kJoint: {
        const auto it = std::find_if(joints_.begin(), joints_.end(),
                                     [&](const Joint& j) { return j.spec.name == name; });
        found = it != joints_.end();
        if (!found) break;
        const JointType jt = it->spec.type;
        const SensorType st = spec.type;
        if ((st == SensorType::kJointPos || st == SensorType::kJointVel) &&
            jt != JointType::kHinge && jt != JointType::kSlide) {
          throw ModelError(fmt::format("{}: joint '{}' is a {} joint; {} needs a hinge or a slide",
                                       who, name, to_string(jt), to_string(st)));
        }
        if ((st == SensorType::kBallQuat || st == SensorType::kBallAngVel) &&
            jt != JointType::kBall) {
          throw ModelError(fmt::format("{}: joint '{}' is a {} joint; {} needs a ball joint", who,
                                       name, to_string(jt), to_string(st)));
        }
        if ((st == SensorType::kJointLimitPos || st == SensorType::kJointLimitVel ||
             st == SensorType::kJointLimitFrc) &&
            !it->spec.limited) {
          throw ModelError(fmt::format("{}: joint '{}' is not limited; {} needs a limited joint",
                                       who, name, to_string(st)));
        }
        break;
      }
      default:
        break;
    }
    if (!found) throw ModelError(fmt::format("{}: no {} named '{}'", who, kind, name));
  };
  if (spec.objtype != ObjType::kUnknown) check_object(spec.objtype, spec.objname, "object");
  if (spec.reftype != ObjType::kUnknown) check_object(spec.reftype, spec.refname, "reference");
  sensors_.push_back(std::move(spec));
}

// ids of the sensors' objects (sites and geoms are numbered once the model is laid out), and
// each sensor's values after the previous ones
void ModelBuilder::add_sensors(Model& m) const {
  for (const SensorSpec& s : sensors_) {
    const SensorShape shape =
        s.type == SensorType::kUser ? SensorShape{s.dim, s.datatype} : sensor_shape(s.type);
    m.sensor_name.push_back(s.name);
    m.sensor_type.push_back(s.type);
    m.sensor_datatype.push_back(shape.datatype);
    m.sensor_objtype.push_back(s.objtype);
    m.sensor_objid.push_back(m.id(s.objtype, s.objname));
    m.sensor_reftype.push_back(s.reftype);
    m.sensor_refid.push_back(m.id(s.reftype, s.refname));
    m.sensor_dim.push_back(shape.dim);
    m.sensor_adr.push_back(m.nsensordata);
    m.sensor_cutoff.push_back(s.cutoff);
    m.sensor_noise.push_back(s.noise);
    m.nsensordata += shape.dim;
  }
  m.nsensor = static_cast<int>(sensors_.size());
  m.magnetic = magnetic_;
}

void validate_sensors(const Model& m) {
  const auto n = static_cast<std::size_t>(m.nsensor);
  auto size_is = [&](const char* field, std::size_t size) {
    if (size != n) {
      throw ModelError(fmt::format("model: {} has {} values, nsensor is {}", field, size, n));
    }
  };
  if (m.nsensor < 0) throw ModelError("model: nsensor is negative");
  size_is("sensor_name", m.sensor_name.size());
  size_is("sensor_type", m.sensor_type.size());
  size_is("sensor_datatype", m.sensor_datatype.size());
  size_is("sensor_objtype", m.sensor_objtype.size());
  size_is("sensor_objid", m.sensor_objid.size());
  size_is("sensor_reftype", m.sensor_reftype.size());
  size_is("sensor_refid", m.sensor_refid.size());
  size_is("sensor_dim", m.sensor_dim.size());
  size_is("sensor_adr", m.sensor_adr.size());
  size_is("sensor_cutoff", m.sensor_cutoff.size());
  size_is("sensor_noise", m.sensor_noise.size());
  for (double b : m.magnetic) {
    if (!std::isfinite(b)) throw ModelError("model: magnetic is not finite");
  }
  // objects by type, and how many the model has of each
  auto count = [&](ObjType type) {
    const std::vector<std::string>* names = m.names(type);
    return names ? static_cast<int>(names->size()) : 0;
  };
  long long adr = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::string who = fmt::format("model: sensor {}", i);
    const SensorType type = m.sensor_type[i];
    const bool has_ref = m.sensor_refid[i] >= 0 || m.sensor_reftype[i] != ObjType::kUnknown;
    const ObjType objtype = is_frame_sensor(type) || m.sensor_objtype[i] != sensor_object(type)
                                ? m.sensor_objtype[i]
                                : ObjType::kUnknown;
    check_kinds(who, type, objtype, m.sensor_reftype[i], has_ref, m.sensor_cutoff[i],
                m.sensor_noise[i], m.sensor_dim[i], m.sensor_datatype[i]);
    const SensorShape shape = type == SensorType::kUser
                                  ? SensorShape{m.sensor_dim[i], m.sensor_datatype[i]}
                                  : sensor_shape(type);
    if (m.sensor_dim[i] != shape.dim || m.sensor_datatype[i] != shape.datatype) {
      throw ModelError(fmt::format("{}: a {} sensor has {} values of data type {}", who,
                                   to_string(type), shape.dim, static_cast<int>(shape.datatype)));
    }
    if (m.sensor_adr[i] != adr) {
      throw ModelError(fmt::format("{}: sensor_adr is {}, the sensors before it have {} values",
                                   who, m.sensor_adr[i], adr));
    }
    adr += m.sensor_dim[i];
    const ObjType own = m.sensor_objtype[i];
    const int id = m.sensor_objid[i];
    if (own == ObjType::kUnknown) {
      if (id != -1) throw ModelError(fmt::format("{}: sensor_objid must be -1", who));
    } else if (id < 0 || id >= count(own)) {
      throw ModelError(
          fmt::format("{}: sensor_objid {} is not a {} of the model", who, id, to_string(own)));
    }
    if (own == ObjType::kJoint) {
      const JointType jt = m.jnt_type[id];
      const bool scalar = jt == JointType::kHinge || jt == JointType::kSlide;
      if ((type == SensorType::kJointPos || type == SensorType::kJointVel) && !scalar) {
        throw ModelError(fmt::format("{}: {} of a {} joint", who, to_string(type), to_string(jt)));
      }
      if ((type == SensorType::kBallQuat || type == SensorType::kBallAngVel) &&
          jt != JointType::kBall) {
        throw ModelError(fmt::format("{}: {} of a {} joint", who, to_string(type), to_string(jt)));
      }
    }
    const int ref = m.sensor_refid[i];
    if (m.sensor_reftype[i] == ObjType::kUnknown ? ref != -1
                                                 : ref < 0 || ref >= count(m.sensor_reftype[i])) {
      throw ModelError(fmt::format("{}: sensor_refid {} is not a {} of the model", who, ref,
                                   to_string(m.sensor_reftype[i])));
    }
  }
  if (m.nsensordata != adr) {
    throw ModelError(
        fmt::format("model: nsensordata is {}, the sensors have {} values", m.nsensordata, adr));
  }
}

}  // namespace zwang
