// A Model as MJCF (Model::to_mjcf): every value explicit, no default classes, angles in radians,
// each body's mass properties as an <inertial>, so that MuJoCo draws the same bodies and
// load_mjcf reads the Model back.  zwang's own elements are <custom> numerics (drive:, hard:,
// knife_edge:, rolling_sphere:, hull:), which MuJoCo ignores.
#include <fmt/format.h>

#include <Eigen/Eigenvalues>
#include <Eigen/Geometry>
#include <algorithm>
#include <array>
#include <cmath>
#include <pugixml.hpp>
#include <set>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "host/mjcf/actuator_names.hpp"
#include "host/model/flag_names.hpp"
#include "host/model/sensors.hpp"
#include "zwang/model.hpp"

namespace zwang {
namespace {

// the shortest text that reads back as the same double
std::string number(double x) {
  return fmt::format("{}", x == 0 ? 0.0 : x);
}

std::string numbers(std::span<const double> v) {
  std::string out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i > 0) out += ' ';
    out += number(v[i]);
  }
  return out;
}

std::string integers(std::span<const int> v) {
  std::string out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i > 0) out += ' ';
    out += std::to_string(v[i]);
  }
  return out;
}

template <std::size_t N>
std::span<const double> row(const std::vector<double>& a, int i) {
  return std::span<const double>(a).subspan(N * static_cast<std::size_t>(i), N);
}

void set(pugi::xml_node n, const char* attribute, const std::string& value) {
  n.append_attribute(attribute).set_value(value.c_str());
}
void set(pugi::xml_node n, const char* attribute, double value) {
  set(n, attribute, number(value));
}
void set(pugi::xml_node n, const char* attribute, std::span<const double> value) {
  set(n, attribute, numbers(value));
}
void set_bool(pugi::xml_node n, const char* attribute, bool value) {
  set(n, attribute, std::string(value ? "true" : "false"));
}

// the names elements are written with: the model's, and for an unnamed element that another
// one names, "<kind><index>" with '_' appended until no element of its kind has it
class Names {
 public:
  Names(const std::vector<std::string>& names, std::string_view kind) : names_(names) {
    taken_.insert(names.begin(), names.end());
    kind_ = kind;
  }
  // the element's name, made where it has none
  const std::string& ref(int i) {
    if (names_[i].empty()) {
      std::string name = fmt::format("{}{}", kind_, i);
      while (taken_.count(name) != 0) name += '_';
      taken_.insert(name);
      names_[i] = std::move(name);
    }
    return names_[i];
  }
  // on the element: its name, if it has or was given one
  void put(pugi::xml_node n, int i) const {
    if (!names_[i].empty()) set(n, "name", names_[i]);
  }

 private:
  std::vector<std::string> names_;
  std::set<std::string, std::less<>> taken_;
  std::string kind_;
};

class Writer {
 public:
  explicit Writer(const Model& m)
      : m_(m),
        body_(m.body_name, "body"),
        joint_(m.jnt_name, "joint"),
        geom_(m.geom_name, "geom"),
        site_(m.site_name, "site"),
        tendon_(m.tendon_name, "tendon"),
        actuator_(m.actuator_name, "actuator"),
        eq_(m.eq_name, "equality") {}

  std::string write() {
    m_.validate();
    // MJCF numbers bodies depth first, each body's children in document order
    std::vector<std::vector<int>> children(m_.nbody);
    for (int b = 1; b < m_.nbody; ++b) children[m_.body_parentid[b]].push_back(b);
    {
      std::vector<int> order;
      std::vector<int> stack{0};
      while (!stack.empty()) {
        const int b = stack.back();
        stack.pop_back();
        order.push_back(b);
        for (auto c = children[b].rbegin(); c != children[b].rend(); ++c) stack.push_back(*c);
      }
      for (int b = 0; b < m_.nbody; ++b) {
        if (order[b] != b) {
          throw ModelError(fmt::format(
              "the model cannot be written as MJCF: its bodies are not numbered depth first "
              "(body {} '{}' comes where MJCF would put body {} '{}'); add each body's "
              "descendants right after it",
              b, m_.body_name[b], order[b], m_.body_name[order[b]]));
        }
      }
    }
    // and each body's geoms and sites after those of the bodies before it
    const auto in_body_order = [&](const std::vector<int>& body, const char* kind) {
      for (std::size_t i = 1; i < body.size(); ++i) {
        if (body[i] < body[i - 1]) {
          throw ModelError(fmt::format(
              "the model cannot be written as MJCF: its {}s are not in body order ({} {} is on "
              "body {}, after one on body {})",
              kind, kind, i, body[i], body[i - 1]));
        }
      }
    };
    in_body_order(m_.geom_bodyid, "geom");
    in_body_order(m_.site_bodyid, "site");
    // name every element another one refers to, before any is written
    for (int e = 0; e < m_.neq; ++e) refer_equality(e);
    for (int i = 0; i < m_.nexclude; ++i) {
      body_.ref(m_.exclude_body1[i]);
      body_.ref(m_.exclude_body2[i]);
    }
    for (int i = 0; i < m_.npair; ++i) {
      geom_.ref(m_.pair_geom1[i]);
      geom_.ref(m_.pair_geom2[i]);
    }
    for (int w = 0; w < m_.nwrap(); ++w) {
      const WrapType t = static_cast<WrapType>(m_.wrap_type[w]);
      if (t == WrapType::kJoint) joint_.ref(m_.wrap_objid[w]);
      if (t == WrapType::kSite) site_.ref(m_.wrap_objid[w]);
      if (t == WrapType::kSphere || t == WrapType::kCylinder) geom_.ref(m_.wrap_objid[w]);
      if (m_.wrap_sideid[w] >= 0) site_.ref(m_.wrap_sideid[w]);
    }
    for (int a = 0; a < m_.nu; ++a) transmission(a);
    for (int s = 0; s < m_.nsensor; ++s) {
      if (m_.sensor_objid[s] >= 0) object(m_.sensor_objtype[s], m_.sensor_objid[s]);
      if (m_.sensor_refid[s] >= 0) object(m_.sensor_reftype[s], m_.sensor_refid[s]);
    }
    for (int d = 0; d < m_.ndrive; ++d) joint_.ref(m_.drive_jnt[d]);
    for (int n = 0; n < m_.nnhc; ++n) body_.ref(m_.nhc_body[n]);
    body_.ref(0);

    pugi::xml_node root = doc_.append_child("mujoco");
    set(root, "model", std::string("zwang"));
    header(root);
    assets(root);
    // the tree without recursion, however deep: each body's element is made, in document order,
    // when its parent is written
    std::vector<std::vector<int>> geoms(m_.nbody), sites(m_.nbody);
    for (int g = 0; g < m_.ngeom; ++g) geoms[m_.geom_bodyid[g]].push_back(g);
    for (int k = 0; k < m_.nsite; ++k) sites[m_.site_bodyid[k]].push_back(k);
    std::vector<std::pair<pugi::xml_node, int>> stack{{root.append_child("worldbody"), 0}};
    while (!stack.empty()) {
      auto [n, b] = stack.back();
      stack.pop_back();
      body_content(n, b, geoms[b], sites[b]);
      std::vector<std::pair<pugi::xml_node, int>> made;
      for (const int c : children[b]) made.emplace_back(n.append_child("body"), c);
      stack.insert(stack.end(), made.rbegin(), made.rend());
    }
    contacts(root);
    equalities(root);
    tendons(root);
    actuators(root);
    sensors(root);
    keyframes(root);
    custom(root);
    std::ostringstream out;
    doc_.save(out, "  ", pugi::format_indent, pugi::encoding_utf8);
    return out.str();
  }

 private:
  void refer_equality(int e) {
    const EqualityType t = m_.eq_type[e];
    if (t == EqualityType::kConnect || t == EqualityType::kWeld) {
      body_.ref(m_.eq_obj1id[e]);
      body_.ref(m_.eq_obj2id[e]);
    } else if (t == EqualityType::kJoint) {
      joint_.ref(m_.eq_obj1id[e]);
      if (m_.eq_obj2id[e] >= 0) joint_.ref(m_.eq_obj2id[e]);
    } else {
      tendon_.ref(m_.eq_obj1id[e]);
      if (m_.eq_obj2id[e] >= 0) tendon_.ref(m_.eq_obj2id[e]);
    }
    if (m_.eq_hard[e] != 0) eq_.ref(e);
  }

  const std::string& transmission(int a) {
    return m_.actuator_trntype[a] == static_cast<int>(TransmissionType::kTendon)
               ? tendon_.ref(m_.actuator_trnid[a])
               : joint_.ref(m_.actuator_trnid[a]);
  }

  const std::string& object(ObjType type, int id) {
    switch (type) {
      case ObjType::kBody:
      case ObjType::kXBody:
        return body_.ref(id);
      case ObjType::kJoint:
        return joint_.ref(id);
      case ObjType::kGeom:
        return geom_.ref(id);
      case ObjType::kSite:
        return site_.ref(id);
      case ObjType::kTendon:
        return tendon_.ref(id);
      case ObjType::kActuator:
        return actuator_.ref(id);
      default:
        throw ModelError(
            fmt::format("the model cannot be written as MJCF: a sensor names an "
                        "object of type '{}'",
                        to_string(type)));
    }
  }

  void header(pugi::xml_node root) {
    pugi::xml_node c = root.append_child("compiler");
    set(c, "angle", std::string("radian"));
    set_bool(c, "autolimits", true);
    set_bool(c, "inertiafromgeom", false);
    pugi::xml_node o = root.append_child("option");
    set(o, "timestep", m_.timestep);
    set(o, "integrator", std::string(to_string(m_.integrator)));
    set(o, "gravity", m_.gravity);
    set(o, "magnetic", m_.magnetic);
    set(o, "density", m_.density);
    set(o, "viscosity", m_.viscosity);
    set(o, "wind", m_.wind);
    set(o, "iterations", static_cast<double>(m_.iterations));
    set(o, "tolerance", m_.tolerance);
    set(o, "cone", std::string(m_.cone == Cone::kElliptic ? "elliptic" : "pyramidal"));
    set(o, "impratio", m_.impratio);
    // MuJoCo 2.2.2's passive flag, which MuJoCo 4.0 refuses, is the numeric flag:passive
    if ((m_.disableflags & ~kDisablePassive) != 0) {
      pugi::xml_node f = o.append_child("flag");
      for (const auto& [bit, name] : kDisableFlagNames) {
        if (bit != kDisablePassive && (m_.disableflags & bit) != 0) {
          set(f, std::string(name).c_str(), std::string("disable"));
        }
      }
    }
    if (m_.nconmax > 0) {
      set(root.append_child("size"), "nconmax", static_cast<double>(m_.nconmax));
    }
  }

  // meshes as their hulls in the frame of their geoms (numeric hull:NAME), height fields with
  // their elevations
  void assets(pugi::xml_node root) {
    if (m_.nmesh == 0 && m_.nhfield == 0) return;
    pugi::xml_node asset = root.append_child("asset");
    for (int k = 0; k < m_.nmesh; ++k) {
      pugi::xml_node n = asset.append_child("mesh");
      set(n, "name", m_.mesh_name[k]);
      const int nv = m_.mesh_vertnum[k];
      if (nv > 0) {
        set(n, "vertex",
            std::span<const double>(m_.mesh_vert).subspan(3 * m_.mesh_vertadr[k], 3 * nv));
        set(n, "face",
            integers(std::span<const int>(m_.mesh_face)
                         .subspan(3 * m_.mesh_faceadr[k], 3 * m_.mesh_facenum[k])));
      } else {
        // no hull (no geom of it collides): the corners of its geoms' bounding box stand in
        std::array<double, 3> h{0.01, 0.01, 0.01};
        for (int g = 0; g < m_.ngeom; ++g) {
          if (m_.geom_type[g] == GeomType::kMesh && m_.geom_dataid[g] == k) {
            for (int i = 0; i < 3; ++i) h[i] = std::max(m_.geom_size[3 * g + i], 1e-6);
            break;
          }
        }
        std::vector<double> corners;
        for (int c = 0; c < 8; ++c) {
          for (int i = 0; i < 3; ++i) corners.push_back((c >> i & 1) != 0 ? h[i] : -h[i]);
        }
        set(n, "vertex", corners);
      }
      hulls_.push_back({m_.mesh_name[k], nv > 0});
    }
    for (int k = 0; k < m_.nhfield; ++k) {
      pugi::xml_node n = asset.append_child("hfield");
      set(n, "name", m_.hfield_name[k]);
      set(n, "nrow", std::to_string(m_.hfield_nrow[k]));
      set(n, "ncol", std::to_string(m_.hfield_ncol[k]));
      set(n, "size", row<4>(m_.hfield_size, k));
      // MJCF's first row is the one at y = +size[1]
      const int nrow = m_.hfield_nrow[k], ncol = m_.hfield_ncol[k];
      std::vector<double> elevation;
      for (int r = nrow - 1; r >= 0; --r) {
        const auto first = m_.hfield_data.begin() + m_.hfield_adr[k] + std::ptrdiff_t{r} * ncol;
        elevation.insert(elevation.end(), first, first + ncol);
      }
      set(n, "elevation", elevation);
    }
  }

  void body_content(pugi::xml_node n, int b, const std::vector<int>& geoms,
                    const std::vector<int>& sites) {
    if (b > 0) {
      body_.put(n, b);
      set(n, "pos", row<3>(m_.body_pos, b));
      set(n, "quat", row<4>(m_.body_quat, b));
      if (m_.body_mocapid[b] >= 0) set_bool(n, "mocap", true);
      if (m_.body_gravcomp[b] != 0) set(n, "gravcomp", m_.body_gravcomp[b]);
      inertial(n.append_child("inertial"), b);
      for (int j = m_.body_jntadr[b]; j < m_.body_jntadr[b] + m_.body_jntnum[b]; ++j) {
        joint(n.append_child("joint"), j);
      }
    }
    for (const int g : geoms) geom(n.append_child("geom"), g);
    for (const int s : sites) site(n.append_child("site"), s);
  }

  // diaginertia along body_iquat, which diagonalises the inertia
  void inertial(pugi::xml_node n, int b) {
    set(n, "pos", row<3>(m_.body_ipos, b));
    set(n, "mass", m_.body_mass[b]);
    const std::span<const double> in = row<6>(m_.body_inertia, b);
    const std::span<const double> q = row<4>(m_.body_iquat, b);
    const bool aligned = q[0] == 1 && q[1] == 0 && q[2] == 0 && q[3] == 0;
    if (aligned && in[3] == 0 && in[4] == 0 && in[5] == 0) {
      set(n, "diaginertia", in.first(3));
      return;
    }
    Eigen::Matrix3d i;
    i << in[0], in[3], in[4], in[3], in[1], in[5], in[4], in[5], in[2];
    const Eigen::Matrix3d r = Eigen::Quaterniond(q[0], q[1], q[2], q[3]).toRotationMatrix();
    const Eigen::Matrix3d local = r.transpose() * i * r;
    set(n, "quat", q);
    set(n, "diaginertia", std::array<double, 3>{local(0, 0), local(1, 1), local(2, 2)});
  }

  void joint(pugi::xml_node n, int j) {
    joint_.put(n, j);
    const JointType t = m_.jnt_type[j];
    const int d = m_.jnt_dofadr[j], q = m_.jnt_qposadr[j];
    set(n, "type", std::string(to_string(t)));
    const bool axial = t == JointType::kHinge || t == JointType::kSlide;
    set(n, "pos", row<3>(m_.jnt_pos, j));
    if (axial) {
      set(n, "axis", row<3>(m_.jnt_axis, j));
      set(n, "ref", m_.qpos0[q]);
      set(n, "springref", m_.qpos_spring[q]);
    }
    set(n, "stiffness", m_.jnt_stiffness[j]);
    set(n, "damping", m_.dof_damping[d]);
    set(n, "armature", m_.dof_armature[d]);
    set(n, "frictionloss", m_.dof_frictionloss[d]);
    set(n, "solreffriction", row<2>(m_.dof_solref, d));
    set(n, "solimpfriction", row<5>(m_.dof_solimp, d));
    // a free joint cannot be limited (MuJoCo refuses the attributes)
    if (t != JointType::kFree) {
      set_bool(n, "limited", m_.jnt_limited[j] != 0);
      set(n, "range", row<2>(m_.jnt_range, j));
    }
    set(n, "margin", m_.jnt_margin[j]);
    set(n, "solreflimit", row<2>(m_.jnt_solref, j));
    set(n, "solimplimit", row<5>(m_.jnt_solimp, j));
    if (axial) {
      set_bool(n, "actuatorfrclimited", m_.jnt_actfrclimited[j] != 0);
      set(n, "actuatorfrcrange", row<2>(m_.jnt_actfrcrange, j));
    }
    if (m_.jnt_actgravcomp[j] != 0) set_bool(n, "actuatorgravcomp", true);
  }

  void geom(pugi::xml_node n, int g) {
    geom_.put(n, g);
    const GeomType t = m_.geom_type[g];
    set(n, "type", std::string(to_string(t)));
    if (t == GeomType::kMesh) set(n, "mesh", m_.mesh_name[m_.geom_dataid[g]]);
    if (t == GeomType::kHfield) {
      set(n, "hfield", m_.hfield_name[m_.geom_dataid[g]]);
    } else {
      set(n, "size", row<3>(m_.geom_size, g));
    }
    set(n, "pos", row<3>(m_.geom_pos, g));
    set(n, "quat", row<4>(m_.geom_quat, g));
    set(n, "contype", std::to_string(m_.geom_contype[g]));
    set(n, "conaffinity", std::to_string(m_.geom_conaffinity[g]));
    set(n, "condim", std::to_string(m_.geom_condim[g]));
    set(n, "priority", std::to_string(m_.geom_priority[g]));
    set(n, "friction", row<3>(m_.geom_friction, g));
    set(n, "margin", m_.geom_margin[g]);
    set(n, "gap", m_.geom_gap[g]);
    set(n, "solmix", m_.geom_solmix[g]);
    set(n, "solref", row<2>(m_.geom_solref, g));
    set(n, "solimp", row<5>(m_.geom_solimp, g));
    if (m_.geom_visible[g] == 0) set(n, "rgba", std::string("0.5 0.5 0.5 0"));
    if (m_.geom_fluidshape[g] != 0) {
      set(n, "fluidshape", std::string("ellipsoid"));
      set(n, "fluidcoef", row<12>(m_.geom_fluid, g).subspan(1, 5));
    }
  }

  void site(pugi::xml_node n, int s) {
    site_.put(n, s);
    set(n, "type", std::string(to_string(static_cast<GeomType>(m_.site_type[s]))));
    set(n, "size", row<3>(m_.site_size, s));
    set(n, "pos", row<3>(m_.site_pos, s));
    set(n, "quat", row<4>(m_.site_quat, s));
  }

  void contacts(pugi::xml_node root) {
    if (m_.npair == 0 && m_.nexclude == 0) return;
    pugi::xml_node c = root.append_child("contact");
    for (int i = 0; i < m_.npair; ++i) {
      pugi::xml_node n = c.append_child("pair");
      if (!m_.pair_name[i].empty()) set(n, "name", m_.pair_name[i]);
      set(n, "geom1", geom_.ref(m_.pair_geom1[i]));
      set(n, "geom2", geom_.ref(m_.pair_geom2[i]));
      set(n, "condim", std::to_string(m_.pair_dim[i]));
      set(n, "friction", row<5>(m_.pair_friction, i));
      set(n, "solref", row<2>(m_.pair_solref, i));
      set(n, "solimp", row<5>(m_.pair_solimp, i));
      set(n, "margin", m_.pair_margin[i]);
      set(n, "gap", m_.pair_gap[i]);
    }
    for (int i = 0; i < m_.nexclude; ++i) {
      pugi::xml_node n = c.append_child("exclude");
      set(n, "body1", body_.ref(m_.exclude_body1[i]));
      set(n, "body2", body_.ref(m_.exclude_body2[i]));
    }
  }

  void equalities(pugi::xml_node root) {
    if (m_.neq == 0) return;
    pugi::xml_node section = root.append_child("equality");
    for (int e = 0; e < m_.neq; ++e) {
      const EqualityType t = m_.eq_type[e];
      const std::span<const double> data = row<11>(m_.eq_data, e);
      const char* tag = t == EqualityType::kConnect ? "connect"
                        : t == EqualityType::kWeld  ? "weld"
                        : t == EqualityType::kJoint ? "joint"
                                                    : "tendon";
      pugi::xml_node n = section.append_child(tag);
      eq_.put(n, e);
      if (t == EqualityType::kConnect || t == EqualityType::kWeld) {
        set(n, "body1", body_.ref(m_.eq_obj1id[e]));
        set(n, "body2", body_.ref(m_.eq_obj2id[e]));
        set(n, "anchor", data.first(3));
        if (t == EqualityType::kWeld) {
          set(n, "relpose", data.subspan(3, 7));
          set(n, "torquescale", data[10]);
        }
      } else {
        Names& names = t == EqualityType::kJoint ? joint_ : tendon_;
        const bool joint = t == EqualityType::kJoint;
        set(n, joint ? "joint1" : "tendon1", names.ref(m_.eq_obj1id[e]));
        if (m_.eq_obj2id[e] >= 0) set(n, joint ? "joint2" : "tendon2", names.ref(m_.eq_obj2id[e]));
        set(n, "polycoef", data.first(5));
      }
      set_bool(n, "active", m_.eq_active[e] != 0);
      set(n, "solref", row<2>(m_.eq_solref, e));
      set(n, "solimp", row<5>(m_.eq_solimp, e));
    }
  }

  void tendons(pugi::xml_node root) {
    if (m_.ntendon == 0) return;
    pugi::xml_node section = root.append_child("tendon");
    for (int t = 0; t < m_.ntendon; ++t) {
      const int adr = m_.tendon_adr[t], num = m_.tendon_num[t];
      const bool fixed = static_cast<WrapType>(m_.wrap_type[adr]) == WrapType::kJoint;
      pugi::xml_node n = section.append_child(fixed ? "fixed" : "spatial");
      tendon_.put(n, t);
      set(n, "stiffness", m_.tendon_stiffness[t]);
      set(n, "damping", m_.tendon_damping[t]);
      set(n, "springlength", row<2>(m_.tendon_lengthspring, t));
      set(n, "frictionloss", m_.tendon_frictionloss[t]);
      set_bool(n, "limited", m_.tendon_limited[t] != 0);
      set(n, "range", row<2>(m_.tendon_range, t));
      set(n, "margin", m_.tendon_margin[t]);
      set(n, "solreflimit", row<2>(m_.tendon_solref_lim, t));
      set(n, "solimplimit", row<5>(m_.tendon_solimp_lim, t));
      set(n, "solreffriction", row<2>(m_.tendon_solref_fri, t));
      set(n, "solimpfriction", row<5>(m_.tendon_solimp_fri, t));
      set_bool(n, "actuatorfrclimited", m_.tendon_actfrclimited[t] != 0);
      set(n, "actuatorfrcrange", row<2>(m_.tendon_actfrcrange, t));
      for (int w = adr; w < adr + num; ++w) {
        const int id = m_.wrap_objid[w];
        switch (static_cast<WrapType>(m_.wrap_type[w])) {
          case WrapType::kJoint: {
            pugi::xml_node p = n.append_child("joint");
            set(p, "joint", joint_.ref(id));
            set(p, "coef", m_.wrap_prm[w]);
            break;
          }
          case WrapType::kPulley:
            set(n.append_child("pulley"), "divisor", m_.wrap_prm[w]);
            break;
          case WrapType::kSite:
            set(n.append_child("site"), "site", site_.ref(id));
            break;
          default: {
            pugi::xml_node p = n.append_child("geom");
            set(p, "geom", geom_.ref(id));
            if (m_.wrap_sideid[w] >= 0) set(p, "sidesite", site_.ref(m_.wrap_sideid[w]));
          }
        }
      }
    }
  }

  // the element each actuator was written as where its numbers fit it, else <general>
  void actuators(pugi::xml_node root) {
    if (m_.nu == 0) return;
    pugi::xml_node section = root.append_child("actuator");
    for (int a = 0; a < m_.nu; ++a) {
      const std::span<const double> gain = row<3>(m_.actuator_gainprm, a);
      const std::span<const double> bias = row<3>(m_.actuator_biasprm, a);
      const std::span<const double> dynprm = row<3>(m_.actuator_dynprm, a);
      const ActuatorGain gt = m_.actuator_gaintype[a];
      const ActuatorBias bt = m_.actuator_biastype[a];
      const ActuatorDyn dt = m_.actuator_dyntype[a];
      const bool plain = gt == ActuatorGain::kFixed && dt == ActuatorDyn::kNone;
      // the activation's clamp and actearly: only <general> carries them
      const bool act_plain = m_.actuator_actlimited[a] == 0 && m_.actuator_actearly[a] == 0;
      const bool no_bias = bt == ActuatorBias::kNone;
      const bool affine = bt == ActuatorBias::kAffine;
      const MuscleParams mg = muscle_gain(a), mb = muscle_bias(a);
      ActuatorType kind = ActuatorType::kGeneral;
      switch (m_.actuator_type[a]) {
        case ActuatorType::kMotor:
          if (plain && no_bias && gain[0] == 1) kind = ActuatorType::kMotor;
          break;
        case ActuatorType::kPosition:
          if (plain && ((affine && bias[0] == 0 && bias[1] == -gain[0] && bias[2] <= 0) ||
                        (no_bias && gain[0] == 0))) {
            kind = ActuatorType::kPosition;
          }
          break;
        case ActuatorType::kVelocity:
          if (plain && ((affine && bias[0] == 0 && bias[1] == 0 && bias[2] == -gain[0]) ||
                        (no_bias && gain[0] == 0))) {
            kind = ActuatorType::kVelocity;
          }
          break;
        case ActuatorType::kCylinder:
          if (gt == ActuatorGain::kFixed && dt == ActuatorDyn::kFilter && dynprm[1] == 0 &&
              dynprm[2] == 0 && (affine || no_bias) && act_plain) {
            kind = ActuatorType::kCylinder;
          }
          break;
        case ActuatorType::kMuscle:
          if (gt == ActuatorGain::kMuscle && bt == ActuatorBias::kMuscle &&
              dt == ActuatorDyn::kMuscle && dynprm[2] == 0 && mg.range == mb.range &&
              mg.lmax == mb.lmax && act_plain) {
            kind = ActuatorType::kMuscle;
          }
          break;
        case ActuatorType::kGeneral:
          break;
      }
      pugi::xml_node n = section.append_child(std::string(to_string(kind)).c_str());
      actuator_.put(n, a);
      const bool tendon = m_.actuator_trntype[a] == static_cast<int>(TransmissionType::kTendon);
      set(n, tendon ? "tendon" : "joint", transmission(a));
      set(n, "gear", m_.actuator_gear[a]);
      set_bool(n, "ctrllimited", m_.actuator_ctrllimited[a] != 0);
      set(n, "ctrlrange", row<2>(m_.actuator_ctrlrange, a));
      set_bool(n, "forcelimited", m_.actuator_forcelimited[a] != 0);
      set(n, "forcerange", row<2>(m_.actuator_forcerange, a));
      const bool muscle = gt == ActuatorGain::kMuscle || bt == ActuatorBias::kMuscle;
      if (muscle) set(n, "lengthrange", row<2>(m_.actuator_lengthrange, a));
      switch (kind) {
        case ActuatorType::kMotor:
          break;
        case ActuatorType::kPosition:
          set(n, "kp", gain[0]);
          set(n, "kv", no_bias ? 0.0 : -bias[2]);
          break;
        case ActuatorType::kVelocity:
          set(n, "kv", gain[0]);
          break;
        case ActuatorType::kCylinder:
          set(n, "timeconst", dynprm[0]);
          set(n, "area", gain[0]);
          set(n, "bias", bias);
          break;
        case ActuatorType::kMuscle: {
          set(n, "timeconst", dynprm.first(2));
          set(n, "range", mg.range);
          set(n, "force", mg.force);
          set(n, "lmin", mg.lmin);
          set(n, "lmax", mg.lmax);
          set(n, "vmax", mg.vmax);
          set(n, "fpmax", mb.fpmax);
          set(n, "fvmax", mg.fvmax);
          break;
        }
        case ActuatorType::kGeneral: {
          set(n, "dyntype", std::string(mjcf::kDynTypes[dt]));
          set(n, "gaintype", std::string(mjcf::kGainTypes[gt]));
          set(n, "biastype", std::string(mjcf::kBiasTypes[bt]));
          set(n, "dynprm", dynprm);
          if (gt == ActuatorGain::kMuscle) {
            set(n, "gainprm", mg.prm());
          } else {
            set(n, "gainprm", gain);
          }
          if (bt == ActuatorBias::kMuscle) {
            set(n, "biasprm", mb.prm());
          } else {
            set(n, "biasprm", bias);
          }
          set_bool(n, "actlimited", m_.actuator_actlimited[a] != 0);
          set(n, "actrange", row<2>(m_.actuator_actrange, a));
          set_bool(n, "actearly", m_.actuator_actearly[a] != 0);
          break;
        }
      }
    }
  }

  // MuJoCo's muscle numbers (ActuatorSpec::muscle_gain) from the Model's: the range's upper end
  // from the optimal length L0 = (lengthrange1 − lengthrange0) / (range1 − range0), the peak
  // force F0 from gainprm0 (the bias's from biasprm0 = F0 fpmax, with fpmax as the gain's)
  struct MuscleParams {
    std::array<double, 2> range{0.75, 1.05};
    double force = 0, lmin = 0.5, lmax = 1.6, vmax = 1.5, fpmax = 1.3, fvmax = 1.2;
    std::array<double, 9> prm() const {
      return {range[0], range[1], force, 200, lmin, lmax, vmax, fpmax, fvmax};
    }
  };
  std::array<double, 2> muscle_range(int a, double range0, double l0) const {
    const double span = m_.actuator_lengthrange[2 * a + 1] - m_.actuator_lengthrange[2 * a];
    return {range0, l0 > 0 ? range0 + span / l0 : range0 + 1};
  }
  MuscleParams muscle_gain(int a) const {
    MuscleParams p;
    if (m_.actuator_gaintype[a] != ActuatorGain::kMuscle) return p;
    const std::span<const double> g = row<8>(m_.actuator_musclegain, a);
    p.range = muscle_range(a, g[2], g[1]);
    p.force = m_.actuator_gainprm[3 * a];
    p.lmin = g[3];
    p.lmax = g[4];
    p.vmax = g[5];
    p.fvmax = g[6];
    if (m_.actuator_biastype[a] == ActuatorBias::kMuscle && p.force != 0) {
      p.fpmax = m_.actuator_biasprm[3 * a] / p.force;
    }
    return p;
  }
  MuscleParams muscle_bias(int a) const {
    MuscleParams p;
    if (m_.actuator_biastype[a] != ActuatorBias::kMuscle) return p;
    const std::span<const double> b = row<4>(m_.actuator_musclebias, a);
    p.range = muscle_range(a, b[2], b[1]);
    p.lmax = b[3];
    const double f0 =
        m_.actuator_gaintype[a] == ActuatorGain::kMuscle ? m_.actuator_gainprm[3 * a] : 0.0;
    p.force = f0 != 0 ? f0 : m_.actuator_biasprm[3 * a];
    p.fpmax = f0 != 0 ? m_.actuator_biasprm[3 * a] / f0 : 1;
    return p;
  }

  void sensors(pugi::xml_node root) {
    if (m_.nsensor == 0) return;
    pugi::xml_node section = root.append_child("sensor");
    for (int s = 0; s < m_.nsensor; ++s) {
      const SensorType t = m_.sensor_type[s];
      pugi::xml_node n = section.append_child(std::string(to_string(t)).c_str());
      set(n, "name", m_.sensor_name[s]);
      if (t == SensorType::kUser) {
        set(n, "objtype", std::string("body"));
        set(n, "objname", body_.ref(0));
        set(n, "dim", std::to_string(m_.sensor_dim[s]));
        set(n, "needstage", std::string("acc"));
        constexpr const char* kData[] = {"real", "positive", "axis", "quaternion"};
        set(n, "datatype", std::string(kData[static_cast<int>(m_.sensor_datatype[s])]));
      } else if (is_frame_sensor(t)) {
        set(n, "objtype", std::string(to_string(m_.sensor_objtype[s])));
        set(n, "objname", object(m_.sensor_objtype[s], m_.sensor_objid[s]));
        if (m_.sensor_refid[s] >= 0) {
          set(n, "reftype", std::string(to_string(m_.sensor_reftype[s])));
          set(n, "refname", object(m_.sensor_reftype[s], m_.sensor_refid[s]));
        }
      } else if (t != SensorType::kClock) {
        const ObjType o = m_.sensor_objtype[s];
        const char* attribute = o == ObjType::kSite       ? "site"
                                : o == ObjType::kJoint    ? "joint"
                                : o == ObjType::kTendon   ? "tendon"
                                : o == ObjType::kActuator ? "actuator"
                                                          : "body";
        set(n, attribute, object(o, m_.sensor_objid[s]));
      }
      if (m_.sensor_cutoff[s] != 0) set(n, "cutoff", m_.sensor_cutoff[s]);
      if (m_.sensor_noise[s] != 0) set(n, "noise", m_.sensor_noise[s]);
    }
  }

  void keyframes(pugi::xml_node root) {
    if (m_.nkey == 0) return;
    pugi::xml_node section = root.append_child("keyframe");
    const auto part = [](const std::vector<double>& a, int k, int width) {
      return std::span<const double>(a).subspan(static_cast<std::size_t>(k) * width, width);
    };
    // a value equal to the default a missing attribute takes (qpos0, zeros, the mocap bodies'
    // poses) is left out
    const std::vector<double> mpos0 = mocap_pos0(m_), mquat0 = mocap_quat0(m_);
    const auto put = [](pugi::xml_node n, const char* attribute, std::span<const double> v,
                        std::span<const double> fallback) {
      const bool zero = std::all_of(v.begin(), v.end(), [](double x) { return x == 0; });
      const bool same = fallback.empty() ? zero : std::equal(v.begin(), v.end(), fallback.begin());
      if (!v.empty() && !same) set(n, attribute, v);
    };
    for (int k = 0; k < m_.nkey; ++k) {
      pugi::xml_node n = section.append_child("key");
      if (!m_.key_name[k].empty()) set(n, "name", m_.key_name[k]);
      set(n, "time", m_.key_time[k]);
      put(n, "qpos", part(m_.key_qpos, k, m_.nq), m_.qpos0);
      put(n, "qvel", part(m_.key_qvel, k, m_.nv), {});
      put(n, "act", part(m_.key_act, k, m_.na), {});
      put(n, "ctrl", part(m_.key_ctrl, k, m_.nu), {});
      put(n, "mpos", part(m_.key_mpos, k, 3 * m_.nmocap), mpos0);
      put(n, "mquat", part(m_.key_mquat, k, 4 * m_.nmocap), mquat0);
    }
  }

  void custom(pugi::xml_node root) {
    std::vector<std::pair<std::string, std::vector<double>>> numerics;
    // a drive's and a rolling sphere's solref after their numbers where it is not the default
    const auto with_solref = [](std::vector<double> v, std::span<const double> solref) {
      if (solref[0] != kDefaultSolRef[0] || solref[1] != kDefaultSolRef[1])
        v.insert(v.end(), solref.begin(), solref.end());
      return v;
    };
    for (int d = 0; d < m_.ndrive; ++d) {
      const std::span<const double> p = row<5>(m_.drive_prm, d);
      numerics.push_back({"drive:" + joint_.ref(m_.drive_jnt[d]),
                          with_solref({p.begin(), p.end()}, row<2>(m_.drive_solref, d))});
    }
    for (int e = 0; e < m_.neq; ++e) {
      if (m_.eq_hard[e] != 0) numerics.push_back({"hard:" + eq_.ref(e), {1}});
    }
    std::set<std::string, std::less<>> nhc_names;
    for (int k = 0; k < m_.nnhc; ++k) {
      const std::span<const double> d = row<6>(m_.nhc_data, k);
      const std::string& body = body_.ref(m_.nhc_body[k]);
      const bool knife = m_.nhc_type[k] == NonholonomicType::kKnifeEdge;
      std::string name = (knife ? "knife_edge:" : "rolling_sphere:") + body;
      if (!nhc_names.insert(name).second) {
        throw ModelError(fmt::format(
            "the model cannot be written as MJCF: body '{}' has two {} constraints, and MJCF "
            "names one per body (numeric '{}')",
            body, knife ? "knife-edge" : "rolling-sphere", name));
      }
      std::vector<double> v =
          knife ? std::vector<double>(d.begin(), d.end()) : std::vector<double>{d[0], d[1]};
      numerics.push_back({std::move(name), with_solref(std::move(v), row<2>(m_.nhc_solref, k))});
    }
    if ((m_.disableflags & kDisablePassive) != 0) numerics.push_back({"flag:passive", {1}});
    for (const auto& [name, hull] : hulls_)
      numerics.push_back({"hull:" + name, {hull ? 1.0 : 0.0}});
    if (numerics.empty()) return;
    pugi::xml_node section = root.append_child("custom");
    for (const auto& [name, data] : numerics) {
      pugi::xml_node n = section.append_child("numeric");
      set(n, "name", name);
      set(n, "data", data);
    }
  }

  const Model& m_;
  Names body_, joint_, geom_, site_, tendon_, actuator_, eq_;
  std::vector<std::pair<std::string, bool>> hulls_;
  pugi::xml_document doc_;
};

}  // namespace

std::string Model::to_mjcf() const {
  return Writer(*this).write();
}

}  // namespace zwang
