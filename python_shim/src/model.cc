// The Python Model: sizes, names, every array of kernels/model_fields.h as a read-only NumPy
// copy (sensor_objtype and sensor_reftype as names, actuator_ctrllimited as bools), and the
// lookups by name. A model's numbers are fixed once built; every number a user may
// change per instance is a parameter of the Simulator (Simulator.params).
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "bindings.hpp"

namespace zwang::python {
namespace {

// a read-only NumPy copy of a model array with the given shape
template <class T, class U>
nb::object copy_array(const std::vector<U>& values, std::vector<std::size_t> shape) {
  T* p = new T[std::max<std::size_t>(values.size(), 1)];
  std::transform(values.begin(), values.end(), p, [](const U& v) { return static_cast<T>(v); });
  nb::capsule owner(p, [](void* q) noexcept { delete[] static_cast<T*>(q); });
  return nb::cast(nb::ndarray<nb::numpy, T, nb::ro>(p, shape.size(), shape.data(), owner),
                  nb::rv_policy::automatic);
}

std::size_t sz(int n) {
  return static_cast<std::size_t>(n);
}

// the index of a named element, KeyError naming it when there is none
int id_of(int id, const char* kind, const std::string& name) {
  if (id < 0) throw nb::key_error(("no " + std::string(kind) + " named '" + name + "'").c_str());
  return id;
}

// a Model array as Python sees it: a read-only NumPy copy of its shape (ints and enums as
// int32, reals as float64), names as a list of str
template <class U>
nb::object array_of(const std::vector<U>& values, const ArrayShape& shape) {
  if constexpr (std::is_same_v<U, std::string>) {
    return nb::cast(values);
  } else {
    const std::vector<std::size_t> dims(shape.dim.begin(), shape.dim.begin() + shape.ndim);
    if constexpr (std::is_same_v<U, double>)
      return copy_array<double>(values, dims);
    else
      return copy_array<int>(values, dims);
  }
}

// array `index` of kernels/model_fields.h
nb::object model_array(const Model& model, int index) {
  nb::object out;
  int k = 0;
  model.for_each_array([&](const char*, const auto& values, const ArrayShape& shape, const char*) {
    if (k++ == index) out = array_of(values, shape);
  });
  return out;
}

// a Model member read as a property of the Python Model
template <class V>
struct Member {
  const char* name;
  V Model::*value;
  const char* doc;
};

template <class V, std::size_t N>
void def_members(nb::class_<PyModel>& model, const Member<V> (&members)[N]) {
  for (const Member<V>& m : members) {
    model.def_prop_ro(
        m.name, [m](const PyModel& p) { return p.model.*m.value; }, m.doc);
  }
}

// object types by MJCF's names, "" for none
std::vector<std::string> object_types(const std::vector<ObjType>& types) {
  std::vector<std::string> names;
  for (const ObjType t : types) names.emplace_back(t == ObjType::kUnknown ? "" : to_string(t));
  return names;
}

}  // namespace

void bind_model(nb::module_& m) {
  // model attributes: sizes and names as plain Python values, arrays as read-only copies
  nb::class_<PyModel> model(
      m, "Model",
      "A validated rigid multibody model, shared by every instance of a Simulator. Arrays "
      "follow MuJoCo's names and layout; body 0 is the world.");
  // every array of kernels/model_fields.h, its meaning and shape as the docstring; the
  // properties below that share a name give Python a friendlier form of the same array
  int index = 0;
  Model().for_each_array(
      [&](const char* name, const auto&, const ArrayShape&, const char* meaning) {
        model.def_prop_ro(
            name, [index](const PyModel& p) { return model_array(p.model, index); }, meaning);
        ++index;
      });
  // the names some arrays had before they took MuJoCo's: the same values, with a
  // DeprecationWarning
  static constexpr std::pair<const char*, const char*> kRenamed[] = {
      {"body_parent", "body_parentid"}, {"jnt_body", "jnt_bodyid"},
      {"dof_jnt", "dof_jntid"},         {"dof_body", "dof_bodyid"},
      {"dof_parent", "dof_parentid"},   {"geom_body", "geom_bodyid"}};
  for (const auto& [before, now] : kRenamed) {
    int k = 0, at = -1;
    Model().for_each_array([&](const char* name, const auto&, const ArrayShape&, const char*) {
      if (std::string_view(name) == now) at = k;
      ++k;
    });
    model.def_prop_ro(
        before,
        [at, before, now](const PyModel& p) {
          if (PyErr_WarnFormat(PyExc_DeprecationWarning, 1, "Model.%s is now Model.%s", before,
                               now) < 0) {
            throw nb::python_error();
          }
          return model_array(p.model, at);
        },
        "deprecated: the array of this name with MuJoCo's 'id' ending (body_parent: "
        "body_parentid, with the world's parent -1)");
  }
  model
      .def_prop_ro(
          "path",
          [](const PyModel& p) -> std::optional<std::string> {
            if (p.path.empty()) return std::nullopt;
            return p.path;
          },
          "the file zwang.load() read (absolute), None for a model built in code")
      .def_prop_ro(
          "load_arguments",
          [](const PyModel& p) -> nb::object {
            if (p.path.empty()) return nb::none();
            const LoadArguments& a = p.arguments;
            nb::dict d;
            d["path"] = p.path;
            d["floating_base"] = a.floating_base;
            d["contact_margin"] = a.contact_margin ? nb::cast(*a.contact_margin) : nb::none();
            d["balance_inertia"] = a.balance_inertia;
            d["fuse_static"] = a.fuse_static;
            d["wrap_rules"] = a.wrap_rules ? nb::cast(*a.wrap_rules) : nb::none();
            d["rules"] = a.rules;
            return d;
          },
          "zwang.load()'s arguments that made this model (zwang.load(**m.load_arguments) loads "
          "it again, as sweep workers do), None for a model built in code")
      .def_prop_ro(
          "timestep", [](const PyModel& p) { return p.model.timestep; }, "integration step (s)")
      .def_prop_ro(
          "integrator", [](const PyModel& p) { return std::string(to_string(p.model.integrator)); },
          "'Euler' (semi-implicit, damping implicit, as MuJoCo's), 'RK4', 'implicitfast' or "
          "'implicit' (MuJoCo's)")
      .def_prop_ro(
          "contact_margin",
          [](const PyModel& p) {
            return std::string(p.model.contact_margin == ContactMargin::kSum ? "sum" : "max");
          },
          "how two geoms' margins and gaps combine: 'max' (MuJoCo to 3.4) or 'sum' (from 3.5)")
      .def_prop_ro(
          "wrap_rules",
          [](const PyModel& p) {
            return std::string(p.model.wrap_rules == WrapRules::kMujoco2 ? "2.2.2" : "4.0");
          },
          "how spatial tendons pass a wrap geom with a side site: '4.0' or '2.2.2' (MuJoCo's)")
      .def_prop_ro(
          "rules",
          [](const PyModel& p) {
            return std::string(p.model.rules == Rules::kMujoco2 ? "2.2.2" : "4.0");
          },
          "which MuJoCo the model is computed as where MuJoCo 2.2.2 and 4.0 differ (connect and "
          "weld rows, box-box, sphere-in-box and ellipsoid contacts; contact_margin and "
          "wrap_rules are set with it by zwang.load)")
      .def_prop_ro(
          "gravity",
          [](const PyModel& p) {
            return copy_array<double>(
                std::vector<double>(p.model.gravity.begin(), p.model.gravity.end()), {3});
          },
          "gravitational acceleration, world (3,) (m/s²)")
      .def_prop_ro(
          "density", [](const PyModel& p) { return p.model.density; },
          "density of the medium of the fluid forces (kg/m³); each instance's: Simulator.params")
      .def_prop_ro(
          "viscosity", [](const PyModel& p) { return p.model.viscosity; },
          "viscosity of the medium of the fluid forces (Pa s)")
      .def_prop_ro(
          "wind",
          [](const PyModel& p) {
            return copy_array<double>(std::vector<double>(p.model.wind.begin(), p.model.wind.end()),
                                      {3});
          },
          "velocity of the medium, world (3,) (m/s)")
      .def_prop_ro(
          "warnings", [](const PyModel& p) { return p.warnings; },
          "what the loader ignored or approximated, one 'file:line: ...' string each")
      .def_prop_ro(
          "sensor_types",
          [](const PyModel& p) {
            std::vector<std::string> types;
            for (const SensorType t : p.model.sensor_type) types.emplace_back(to_string(t));
            return types;
          },
          "type of each sensor (nsensor), as MJCF names it: 'accelerometer', 'framepos', ...; "
          "'user' for sensors zwang does not compute (their values stay 0, Model.warnings says "
          "why)")
      .def_prop_ro(
          "sensor_objtype", [](const PyModel& p) { return object_types(p.model.sensor_objtype); },
          "what each sensor is attached to (nsensor): 'site', 'joint', 'body', 'xbody', 'geom', "
          "'tendon', 'actuator', '' for none")
      .def_prop_ro(
          "sensor_reftype", [](const PyModel& p) { return object_types(p.model.sensor_reftype); },
          "the frame each frame sensor is measured in (nsensor): 'body', 'xbody', 'geom', 'site', "
          "'' for the world")
      .def_prop_ro(
          "actuator_ctrllimited",
          [](const PyModel& p) {
            return copy_array<bool>(p.model.actuator_ctrllimited, {sz(p.model.nu)});
          },
          "whether each actuator's control is clamped to its ctrlrange (nu,)")
      .def_prop_ro(
          "body_parentid",
          [](const PyModel& p) {
            std::vector<int> parent = p.model.body_parentid;
            parent[0] = 0;
            return copy_array<int>(parent, {sz(p.model.nbody)});
          },
          "parent of each body (nbody,); the world's is 0, as in MuJoCo")
      .def(
          "id",
          [](const PyModel& p, const std::string& kind, const std::string& name) {
            for (int t = 0; t <= static_cast<int>(ObjType::kKey); ++t) {
              const auto type = static_cast<ObjType>(t);
              if (to_string(type) != kind) continue;
              if (p.model.names(type) == nullptr)
                throw nb::value_error(("the " + kind + " objects have no names").c_str());
              return id_of(p.model.id(type, name), kind.c_str(), name);
            }
            throw nb::value_error(("no kind of object is named '" + kind +
                                   "' (body, xbody, joint, geom, site, mesh, equality, tendon, "
                                   "actuator, sensor, key)")
                                      .c_str());
          },
          nb::arg("kind"), nb::arg("name"),
          "Index of the object of that kind ('body', 'joint', 'geom', 'site', 'mesh', "
          "'equality', 'tendon', 'actuator', 'sensor', 'key') and name, as MuJoCo's mj_name2id; "
          "KeyError if there is none.")
      .def(
          "body_id",
          [](const PyModel& p, const std::string& name) {
            const int fused = p.model.fused_id(name);
            if (p.model.id(ObjType::kBody, name) < 0 && fused >= 0) {
              throw nb::key_error(("no body named '" + name + "': it was merged into body '" +
                                   p.model.body_name[p.model.fused_bodyid[fused]] +
                                   "' when the model was loaded; model.fused_id('" + name +
                                   "') indexes its frame in Simulator.fused_xpos, fused_xquat, ...")
                                      .c_str());
            }
            return id_of(p.model.id(ObjType::kBody, name), "body", name);
          },
          nb::arg("name"),
          "Index of the body named ``name``; KeyError if there is none (naming fused_id() for a "
          "merged body).")
      .def(
          "fused_id",
          [](const PyModel& p, const std::string& name) {
            return id_of(p.model.fused_id(name), "merged body", name);
          },
          nb::arg("name"),
          "Index of the merged body named ``name`` in ``fused_names`` and Simulator.fused_xpos, "
          "fused_xquat, ...; KeyError if there is none.")
      .def(
          "to_mjcf", [](const PyModel& p) { return p.model.to_mjcf(); },
          "The model as MJCF text (zwang export): every value explicit, meshes as their convex "
          "hulls, zwang's own constraints as <custom> numerics; zwang.load() reads the file "
          "back as the same model (with the same rules and wrap_rules) and MuJoCo loads it. "
          "ModelError when the bodies are not numbered depth first as MJCF numbers them.")
      .def(
          "sensor_slice",
          [](const PyModel& p, const std::string& name) {
            const int s = id_of(p.model.id(ObjType::kSensor, name), "sensor", name);
            const int adr = p.model.sensor_adr[s];
            return nb::slice(adr, adr + p.model.sensor_dim[s]);
          },
          nb::arg("name"),
          "The values of the sensor named ``name`` in sensordata: "
          "``sim.sensordata[:, model.sensor_slice('gyro')]``; KeyError if there is none.")
      .def("__repr__", [](const PyModel& p) {
        const Model& z = p.model;
        return "<zwang.Model nq=" + std::to_string(z.nq) + " nv=" + std::to_string(z.nv) +
               " nu=" + std::to_string(z.nu) + " nbody=" + std::to_string(z.nbody) + " " +
               std::string(to_string(z.integrator)) + ">";
      });

  // sizes and counts as Python ints
  static constexpr Member<int> kSizes[] = {
      {"nq", &Model::nq, "generalized coordinates"},
      {"nv", &Model::nv, "degrees of freedom"},
      {"nu", &Model::nu, "actuators"},
      {"na", &Model::na, "activations: the actuators with dynamics, in actuator order"},
      {"nbody", &Model::nbody, "bodies, the world (body 0) included"},
      {"njnt", &Model::njnt, "joints"},
      {"ngeom", &Model::ngeom, "collision geoms"},
      {"nmesh", &Model::nmesh, "meshes (their convex hulls)"},
      {"nhfield", &Model::nhfield, "height fields"},
      {"nsite", &Model::nsite, "sites"},
      {"nfused", &Model::nfused,
       "bodies merged into the body they are welded to when the model was loaded (MJCF "
       "<compiler fusestatic>, URDF fuse_static): no bodies of the model, their frames in "
       "Simulator.fused_xpos, fused_xquat, fused_xmat, fused_xipos, fused_vel"},
      {"ntendon", &Model::ntendon, "tendons"},
      {"nsensor", &Model::nsensor, "sensors"},
      {"nsensordata", &Model::nsensordata,
       "values of all sensors: the width of Simulator.sensordata"},
      {"nmocap", &Model::nmocap, "mocap bodies, posed by each instance's mocap_pos and mocap_quat"},
      {"disableflags", &Model::disableflags,
       "what <option><flag> switched off: MuJoCo 2.2.2's mjtDisableBit values, then "
       "spring (1 << 13), damper (1 << 14) and eulerdamp (1 << 15)"},
      {"nkey", &Model::nkey, "keyframes"},
  };
  def_members(model, kSizes);

  // names as lists of str
  static constexpr Member<std::vector<std::string>> kNames[] = {
      {"body_names", &Model::body_name, "body names (nbody); body 0 is 'world'"},
      {"joint_names", &Model::jnt_name, "joint names (njnt)"},
      {"actuator_names", &Model::actuator_name, "actuator names (nu)"},
      {"geom_names", &Model::geom_name, "geom names (ngeom), '' for an unnamed geom"},
      {"site_names", &Model::site_name, "site names (nsite), '' for an unnamed site"},
      {"fused_names", &Model::fused_name,
       "names of the merged bodies (nfused), '' for an unnamed one"},
      {"sensor_names", &Model::sensor_name,
       "sensor names (nsensor); an unnamed sensor is 'sensor<i>'"},
      {"key_names", &Model::key_name, "keyframe names (nkey), '' for an unnamed one"},
  };
  def_members(model, kNames);

  // the lookups of one kind of object by name: the index, KeyError naming the kind if none
  struct IdLookup {
    const char* method;
    ObjType type;
    const char* kind;
    const char* doc;
  };
  static constexpr IdLookup kIdLookups[] = {
      {"key_id", ObjType::kKey, "keyframe",
       "Index of the keyframe named ``name``; KeyError if there is none."},
      {"joint_id", ObjType::kJoint, "joint",
       "Index of the joint named ``name``; KeyError if there is none."},
      {"actuator_id", ObjType::kActuator, "actuator",
       "Index of the actuator named ``name``; KeyError if there is none."},
      {"geom_id", ObjType::kGeom, "geom",
       "Index of the geom named ``name``; KeyError if there is none."},
      {"site_id", ObjType::kSite, "site",
       "Index of the site named ``name``; KeyError if there is none."},
      {"sensor_id", ObjType::kSensor, "sensor",
       "Index of the sensor named ``name``; KeyError if there is none."},
  };
  for (const IdLookup& l : kIdLookups) {
    model.def(
        l.method,
        [l](const PyModel& p, const std::string& name) {
          return id_of(p.model.id(l.type, name), l.kind, name);
        },
        nb::arg("name"), l.doc);
  }
}

}  // namespace zwang::python
