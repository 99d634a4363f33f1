// MJCF <sensor> elements as MuJoCo 2.2.2 reads them: the element names the type, one attribute
// its object (site, joint, tendon, actuator, body; objtype and objname for frame sensors, with
// reftype and refname), name, cutoff and noise; sensors have no default classes.  <option
// magnetic> is the field magnetometers measure.
#include "host/mjcf/sensor.hpp"

#include <fmt/format.h>

#include <array>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "host/model/sensors.hpp"
#include "zwang/builder.hpp"

namespace zwang::mjcf {
namespace {

constexpr int kSensorTypes = static_cast<int>(SensorType::kUser) + 1;

std::optional<SensorType> sensor_type(std::string_view tag) {
  for (int t = 0; t < kSensorTypes; ++t) {
    if (to_string(static_cast<SensorType>(t)) == tag) return static_cast<SensorType>(t);
  }
  return std::nullopt;
}

// the attribute naming a non-frame sensor's object
const char* object_attribute(ObjType type) {
  switch (type) {
    case ObjType::kSite:
      return "site";
    case ObjType::kJoint:
      return "joint";
    case ObjType::kTendon:
      return "tendon";
    case ObjType::kActuator:
      return "actuator";
    default:
      return "body";
  }
}

// objtype and reftype of frame sensors, as MuJoCo's mju_str2Type names the spatial objects
ObjType frame_object(Attrs& a, const char* name) {
  constexpr ObjType kTypes[] = {ObjType::kBody, ObjType::kXBody, ObjType::kGeom, ObjType::kSite,
                                ObjType::kCamera};
  const auto k = a.keyword(name, {"body", "xbody", "geom", "site", "camera"});
  return k ? kTypes[*k] : ObjType::kUnknown;
}

// "sensor<i>" for the unnamed, with '_' appended until no sensor has the name
std::vector<std::string> sensor_names(std::span<const pugi::xml_node> nodes) {
  std::set<std::string, std::less<>> taken;
  for (const pugi::xml_node n : nodes) taken.insert(n.attribute("name").value());
  std::vector<std::string> names;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    std::string name = nodes[i].attribute("name").value();
    if (name.empty()) {
      name = fmt::format("sensor{}", i);
      while (taken.count(name) != 0) name += '_';
      taken.insert(name);
    }
    names.push_back(std::move(name));
  }
  return names;
}

SensorSpec read_sensor(Attrs& a, SensorType type, const std::string& name) {
  SensorSpec spec;
  spec.name = name;
  spec.type = type;
  a.ignore({"name", "user"});
  spec.cutoff = a.number("cutoff").value_or(0);
  spec.noise = a.number("noise").value_or(0);
  if (type == SensorType::kUser) {
    // MuJoCo's user sensor names an object of any type, which only its callback reads
    a.required_text("objtype");
    a.required_text("objname");
    const std::optional<int> dim = a.integer("dim");
    if (!dim) a.fail("<user> needs the attribute 'dim'");
    spec.dim = *dim;
    if (!a.keyword("needstage", {"none", "pos", "vel", "acc"})) {
      a.fail("<user> needs the attribute 'needstage'");
    }
    const auto datatype = a.keyword("datatype", {"real", "positive", "axis", "quaternion"});
    if (!datatype) a.fail("<user> needs the attribute 'datatype'");
    spec.datatype = static_cast<SensorDataType>(*datatype);
  } else if (is_frame_sensor(type)) {
    spec.objtype = frame_object(a, "objtype");
    if (spec.objtype == ObjType::kUnknown) {
      a.fail(fmt::format("<{}> needs the attribute 'objtype'", a.tag()));
    }
    spec.objname = a.required_text("objname");
    if (type != SensorType::kFrameLinAcc && type != SensorType::kFrameAngAcc) {
      spec.reftype = frame_object(a, "reftype");
      if (spec.reftype != ObjType::kUnknown) {
        spec.refname = a.required_text("refname");
      } else if (a.has("refname")) {
        a.fail(fmt::format("<{}> refname '{}' given but reftype is missing", a.tag(),
                           *a.text("refname")));
      }
    }
  } else if (type != SensorType::kClock) {
    spec.objtype = sensor_object(type);
    spec.objname = a.required_text(object_attribute(spec.objtype));
  }
  a.finish();
  return spec;
}

}  // namespace

void add_sensors(Context& ctx, std::span<const pugi::xml_node> options,
                 std::span<const pugi::xml_node> nodes, ModelBuilder& builder) {
  // the attribute only; <option> itself is read with the other options
  for (const pugi::xml_node node : options) {
    Attrs a(ctx, node);
    std::array<double, 3> field{};
    if (a.exact("magnetic", field)) builder.set_magnetic(field);
  }
  const std::vector<std::string> names = sensor_names(nodes);
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const pugi::xml_node node = nodes[i];
    const std::optional<SensorType> type = sensor_type(node.name());
    // a sensor left out would move the later ones away from MuJoCo's addresses
    if (!type) {
      ctx.fail(node, fmt::format("<{}> is not a sensor of MuJoCo 2.2.2", node.name()));
    }
    Attrs a(ctx, node);
    SensorSpec spec = read_sensor(a, *type, names[i]);
    const std::string why = sensor_not_computed(spec.type, spec.objtype, spec.reftype);
    if (!why.empty()) {
      // kept as a user sensor of the same size, which zwang never writes
      const SensorShape shape = sensor_shape(spec.type);
      ctx.warn(node, fmt::format("{}; its {} value{} in sensordata stay{} 0", why, shape.dim,
                                 shape.dim == 1 ? "" : "s", shape.dim == 1 ? "s" : ""));
      spec.type = SensorType::kUser;
      spec.objtype = spec.reftype = ObjType::kUnknown;
      spec.objname.clear();
      spec.refname.clear();
      spec.dim = shape.dim;
      spec.datatype = shape.datatype;
    } else if (spec.type == SensorType::kUser) {
      ctx.warn(node, fmt::format("user sensor: zwang calls no sensor callback; its {} value{} in "
                                 "sensordata are the user's to write (0 after a reset)",
                                 spec.dim, spec.dim == 1 ? "" : "s"));
    }
    try {
      builder.add_sensor(spec);
    } catch (const ModelError& e) {
      ctx.fail(node, e.what());
    }
  }
}

}  // namespace zwang::mjcf
