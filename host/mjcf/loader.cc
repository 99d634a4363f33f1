// MJCF (MuJoCo's XML) to a Model through ModelBuilder, following MuJoCo 2.2.2: the body, joint,
// qpos/qvel, geom and actuator order of the document; MuJoCo's defaults, orientations, limits,
// inertia from geoms, collision geoms, contact pairs and exclusions, equalities, solver options
// and flags (MuJoCo 3's too), keyframes, mocap bodies and gravcomp.  <custom> numerics named
// drive:, hard:, knife_edge: and rolling_sphere: add zwang's own constraints, hull: marks a mesh
// stored as its hull (host/mjcf/mesh.hpp).  Elements and attributes outside the supported subset
// give one warning per kind; what would change the bodies or the qpos, qvel or ctrl layout is an
// error, and so is a malformed file: a ModelError "file:line: what is wrong" followed by the
// warnings said before it.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <map>
#include <set>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "host/load/model_file.hpp"
#include "host/mjcf/contact.hpp"
#include "host/mjcf/hfield.hpp"
#include "host/mjcf/sensor.hpp"
#include "host/model/size.hpp"
#include "zwang/builder.hpp"
#include "zwang/loaders.hpp"

namespace zwang {
namespace mjcf {
namespace {

// names for unnamed elements: base<index>, with '_' appended until no other element (nor one of
// `also_taken`) has it
std::vector<std::string> complete_names(std::vector<std::string> names, std::string_view base,
                                        std::span<const std::string> also_taken = {}) {
  std::set<std::string, std::less<>> taken(names.begin(), names.end());
  taken.insert(also_taken.begin(), also_taken.end());
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (!names[i].empty()) continue;
    std::string name = fmt::format("{}{}", base, i);
    while (taken.count(name) != 0) name += '_';
    taken.insert(name);
    names[i] = std::move(name);
  }
  return names;
}

// the elements of every section with the tag, in document order
std::vector<pugi::xml_node> section_children(Context& ctx,
                                             std::span<const pugi::xml_node> sections) {
  std::vector<pugi::xml_node> out;
  for (const pugi::xml_node section : sections) {
    Attrs self(ctx, section);
    self.finish();
    const std::vector<pugi::xml_node> children = ctx.children(section);
    out.insert(out.end(), children.begin(), children.end());
  }
  return out;
}

std::vector<std::string> name_attributes(std::span<const pugi::xml_node> nodes) {
  std::vector<std::string> names;
  for (const pugi::xml_node n : nodes) names.emplace_back(n.attribute("name").value());
  return names;
}

// sections whose content only matters for rendering or user data
bool is_ignored_section(std::string_view tag) {
  return tag == "visual" || tag == "statistic";
}

class Loader {
 public:
  explicit Loader(Context& ctx) : ctx_(ctx) {}

  LoadResult load(pugi::xml_node root) {
    root_ = root;
    Attrs self(ctx_, root);
    self.ignore({"model"});
    self.finish();
    const std::vector<pugi::xml_node> top = ctx_.children(root);
    auto sections = [&](std::string_view tag) {
      std::vector<pugi::xml_node> out;
      for (const pugi::xml_node n : top) {
        if (tag == n.name()) out.push_back(n);
      }
      return out;
    };
    // the compiler's settings hold for the whole document, wherever it stands
    for (const pugi::xml_node node : sections("compiler")) compiler(node);
    for (const pugi::xml_node node : sections("option")) option(node);
    for (const pugi::xml_node node : sections("size")) size(node);
    const Defaults defaults(ctx_, sections("default"), compiler_);
    bodies_ = read_bodies(ctx_, sections("worldbody"), defaults, compiler_);
    const StoredHulls stored = stored_hulls(section_children(ctx_, sections("custom")));
    const Meshes meshes(ctx_, sections("asset"), defaults, compiler_, bodies_, stored);
    for (const auto& [name, hull] : stored) {
      if (!meshes.has(name)) {
        ctx_.fail(hull.node, fmt::format("numeric 'hull:{}': no mesh is named '{}'", name, name));
      }
    }
    meshes.apply(bodies_);
    const HFields hfields(ctx_, sections("asset"), compiler_);
    hfields.apply(bodies_);
    std::vector<MassProperties> mass = mass_properties(ctx_, bodies_, compiler_);
    std::vector<FusedBody> fused;
    if (compiler_.fusestatic) {
      fused = fuse_static(ctx_, root, compiler_, density_ != 0 || viscosity_ != 0, bodies_, mass);
    }
    const double scale = set_total_mass(compiler_, mass);
    std::vector<std::string> fused_names;
    for (const FusedBody& f : fused) fused_names.push_back(f.name);
    add_bodies(mass, fused_names);
    add_fused(fused, scale);
    meshes.add_to(builder_);
    hfields.add_to(builder_);
    materials(sections("asset"), defaults);
    add_geoms();
    add_sites();
    add_contacts(ctx_, section_children(ctx_, sections("contact")), defaults, bodies_, body_names_,
                 geoms_, builder_);
    tendons(section_children(ctx_, sections("tendon")), defaults);
    actuators(section_children(ctx_, sections("actuator")), defaults);
    // hard: numerics before the equalities they make hard, which may name any body or joint
    custom(section_children(ctx_, sections("custom")));
    equalities(section_children(ctx_, sections("equality")), defaults);
    add_sensors(ctx_, sections("option"), section_children(ctx_, sections("sensor")), builder_);
    rangefinders_and_meshes(section_children(ctx_, sections("sensor")));
    key_nodes_ =
        read_keyframes(ctx_, section_children(ctx_, sections("keyframe")), nkey_, builder_);
    for (const pugi::xml_node node : top) {
      const std::string_view tag = node.name();
      if (!is_ignored_section(tag) && tag != "compiler" && tag != "option" && tag != "size" &&
          tag != "default" && tag != "asset" && tag != "worldbody" && tag != "contact" &&
          tag != "actuator" && tag != "tendon" && tag != "custom" && tag != "equality" &&
          tag != "sensor" && tag != "keyframe") {
        ctx_.unsupported(node);
      }
    }
    builder_.set_disableflags(disableflags_);
    builder_.set_wrap_rules(ctx_.wrap_rules);
    Model model = build();
    model.disableflags = disableflags_;
    if (model.integrator == Integrator::kImplicit) {
      // validate()'s rule, located at the <option> that chose the integrator
      const int nhard = model.sizes().nhard;
      if (nhard > 0) {
        ctx_.fail(integrator_node_,
                  fmt::format("the implicit integrator cannot hold the {} hard rows (drives, "
                              "non-holonomic constraints, hard equalities); use implicitfast or "
                              "Euler",
                              nhard));
      }
    }
    note_unsupported_pairs(ctx_, model, model_geoms_);
    return {std::move(model), ctx_.warnings.lines()};
  }

 private:
  // a hard: numeric, by the name of its equality
  struct Hard {
    bool on = false;
    pugi::xml_node node;
    bool used = false;
  };

  void compiler(pugi::xml_node node) {
    Attrs a(ctx_, node);
    read_compiler(a, compiler_);
    compiler_.node = node;
    a.finish();
    for (const pugi::xml_node child : ctx_.children(node)) {
      if (std::string_view(child.name()) != "lengthrange") {
        ctx_.unsupported(child);
        continue;
      }
      Attrs lr(ctx_, child);
      read_lengthrange(lr, compiler_);
      lr.finish();
    }
  }

  void option(pugi::xml_node node) {
    Attrs a(ctx_, node);
    // the attributes are read outside the try: their errors carry file:line already
    const std::optional<double> dt = a.number("timestep");
    std::array<double, 3> g{};
    const bool has_gravity = a.exact("gravity", g);
    if (const auto n = a.integer("iterations")) iterations_ = *n;
    if (const auto t = a.number("tolerance")) tolerance_ = *t;
    if (const auto cone = a.keyword("cone", {"pyramidal", "elliptic"})) {
      cone_ = *cone == 1 ? Cone::kElliptic : Cone::kPyramidal;
    }
    if (const auto r = a.number("impratio")) impratio_ = *r;
    if (const auto n = a.integer("noslip_iterations"); n && *n > 0) {
      a.fail(fmt::format("<option> noslip_iterations {}: noslip is not supported (0 turns it off)",
                         *n));
    }
    // the noslip solver's tolerance has no effect without its iterations
    a.ignore({"noslip_tolerance"});
    if (const auto c = a.keyword("collision", {"all", "predefined", "dynamic"}); c && *c != 0) {
      a.fail(fmt::format("<option> collision '{}' is not supported; only 'all' is",
                         node.attribute("collision").value()));
    }
    try {
      if (dt) builder_.set_timestep(*dt);
      if (has_gravity) builder_.set_gravity(g);
      builder_.set_solver(iterations_, tolerance_);
      builder_.set_cone(cone_, impratio_);
    } catch (const ModelError& e) {
      fail(node, e.what());
    }
    if (iterations_ == 0 && a.has("iterations")) {
      ctx_.warn(node,
                "iterations 0: the constraint solver does not run, so limits, contacts, friction "
                "loss and soft equalities carry no force (MuJoCo's meaning); hard rows still hold");
    }
    if (const auto i = a.keyword("integrator", {"Euler", "RK4", "implicit", "implicitfast"})) {
      constexpr Integrator kByName[] = {Integrator::kEuler, Integrator::kRK4, Integrator::kImplicit,
                                        Integrator::kImplicitFast};
      builder_.set_integrator(kByName[*i]);
      integrator_node_ = node;
    }
    std::array<double, 3> wind{0, 0, 0};
    if (const auto d = a.number("density")) density_ = *d;
    if (const auto v = a.number("viscosity")) viscosity_ = *v;
    a.exact("wind", wind);
    if (density_ < 0) a.fail(fmt::format("<option> density {} is negative", density_));
    if (viscosity_ < 0) a.fail(fmt::format("<option> viscosity {} is negative", viscosity_));
    builder_.set_fluid(density_, viscosity_, wind);
    // the field of magnetometers, read with the sensors (host/mjcf/sensor.cc); the contact
    // override's values only with <flag override="enable">, which zwang refuses
    a.ignore({"magnetic", "o_margin", "o_solref", "o_solimp", "o_friction"});
    a.finish();
    for (const pugi::xml_node child : ctx_.children(node)) {
      if (std::string_view(child.name()) == "flag") {
        read_flag(ctx_, child, disableflags_);
      } else {
        ctx_.unsupported(child);
      }
    }
  }

  // nconmax bounds the contacts per instance; MuJoCo's default -1 (any negative value) leaves
  // the bound to the model; nkey asks for default keyframes beyond those written; the other
  // sizes are MuJoCo's memory and user data
  void size(pugi::xml_node node) {
    Attrs a(ctx_, node);
    if (const auto n = a.integer("nconmax")) {
      builder_.set_max_contacts(std::max(*n, 0));
      nconmax_node_ = node;
    }
    if (const auto n = a.integer("nkey")) {
      if (*n > kMaxKeyframes) {
        a.fail(fmt::format("<size> nkey {}: a model may have at most {} keyframes", *n,
                           kMaxKeyframes));
      }
      nkey_ = *n;
      size_node_ = node;
    }
    a.ignore({"njmax", "nstack", "nuserdata", "nuser_body", "nuser_jnt", "nuser_geom", "nuser_site",
              "nuser_cam", "nuser_tendon", "nuser_actuator", "nuser_sensor"});
    a.finish();
    for (const pugi::xml_node child : ctx_.children(node)) ctx_.unsupported(child);
  }

  // `fused_names`: those of the merged bodies, which an unnamed body's made-up name avoids
  void add_bodies(const std::vector<MassProperties>& mass,
                  const std::vector<std::string>& fused_names) {
    std::vector<std::string> body_names, joint_names;
    for (const Body& body : bodies_) {
      body_names.push_back(body.name);
      for (const Joint& j : body.joints) joint_names.push_back(j.name);
    }
    body_names_ = complete_names(body_names, "body", fused_names);
    joint_names = complete_names(joint_names, "joint");
    std::size_t joint = 0;
    for (std::size_t b = 1; b < bodies_.size(); ++b) {
      const Body& body = bodies_[b];
      const BodySpec spec{.name = body_names_[b],
                          .parent = body_names_[body.parent],
                          .pos = body.pos,
                          .quat = body.quat,
                          .mass = mass[b].mass,
                          .com = mass[b].com,
                          .inertia = mass[b].inertia,
                          .iquat = mass[b].iquat,
                          .mocap = body.mocap,
                          .gravcomp = body.gravcomp};
      try {
        builder_.add_body(spec);
      } catch (const ModelError& e) {
        fail(body.node, e.what());
      }
      for (const Joint& j : body.joints) {
        JointSpec js = joint_spec(j);
        js.name = joint_names[joint++];
        try {
          builder_.add_joint(body_names_[b], js);
        } catch (const ModelError& e) {
          fail(j.node, e.what());
        }
      }
    }
  }

  // the merged bodies, their masses scaled by settotalmass's factor as the bodies that stay
  void add_fused(const std::vector<FusedBody>& fused, double scale) {
    for (const FusedBody& f : fused) {
      builder_.add_fused_body({.name = f.name,
                               .body = body_names_[f.body],
                               .pos = f.pose.pos,
                               .quat = f.pose.quat,
                               .mass = f.mass * scale,
                               .ipos = f.ipos});
    }
  }

  // rangefinder rays meet a mesh geom's convex hull: each rangefinder of a model with mesh geoms
  // gets a note
  void rangefinders_and_meshes(const std::vector<pugi::xml_node>& sensors) {
    int meshes = 0;
    for (const Geom* g : model_geoms_) meshes += g->def.type == GeomType::kMesh ? 1 : 0;
    if (meshes == 0) return;
    for (const pugi::xml_node node : sensors) {
      if (std::string_view(node.name()) != "rangefinder") continue;
      ctx_.warn(node,
                fmt::format("rangefinder rays meet the model's {} mesh geom{} as convex hulls "
                            "(MuJoCo's meet the mesh triangles: the same where a mesh is "
                            "convex; a mesh without a hull is not seen)",
                            meshes, meshes == 1 ? "" : "s"));
    }
  }

  // the opacity of each <asset><material> (its class's rgba unless it has its own)
  void materials(const std::vector<pugi::xml_node>& assets, const Defaults& defaults) {
    for (const pugi::xml_node asset : assets) {
      for (const pugi::xml_node node : ctx_.children(asset)) {
        if (std::string_view(node.name()) != "material") continue;
        Attrs a(ctx_, node);
        double alpha = defaults.of(a, "").material_alpha;
        std::array<double, 4> rgba{};
        if (a.exact("rgba", rgba)) alpha = rgba[3];
        const std::optional<std::string> name = a.text("name");
        if (name) material_alpha_[*name] = alpha;
      }
    }
  }

  // a geom's opacity to rays: its material's where it has one
  bool visible(const Geom& g) {
    if (g.def.material.empty()) return g.def.alpha != 0;
    const auto it = material_alpha_.find(g.def.material);
    if (it == material_alpha_.end()) {
      ctx_.fail(g.node, fmt::format("material '{}' is not defined in <asset>", g.def.material));
    }
    return it->second != 0;
  }

  // the geoms of every body in MuJoCo's order: bodies as numbered (depth first), a body's geoms
  // in document order.  Names are unique among all geoms, as in MuJoCo.
  void add_geoms() {
    for (std::size_t b = 0; b < bodies_.size(); ++b) {
      for (const Geom& g : bodies_[b].geoms) {
        if (!g.name.empty()) {
          const auto [it, added] = geoms_.emplace(g.name, GeomRef{&g, static_cast<int>(b)});
          if (!added) {
            ctx_.fail(g.node, fmt::format("geom name '{}' is already used by the geom at {}",
                                          g.name, ctx_.where(it->second.geom->node)));
          }
        }
        const GeomDef& d = g.def;
        const GeomSpec spec{.name = g.name,
                            .body = body_names_[b],
                            .type = d.type,
                            .size = d.size,
                            .pos = d.pos,
                            .quat = d.quat,
                            .contype = d.contype,
                            .conaffinity = d.conaffinity,
                            .condim = d.condim,
                            .priority = d.priority,
                            .friction = d.friction,
                            .margin = d.margin,
                            .gap = d.gap,
                            .solmix = d.solmix,
                            .solref = d.solref,
                            .solimp = d.solimp,
                            .mesh = d.type == GeomType::kMesh ? d.mesh : "",
                            .hfield = d.type == GeomType::kHfield ? d.hfield : "",
                            .visible = visible(g),
                            .fluid_ellipsoid = g.def.fluid_ellipsoid,
                            .fluidcoef = g.def.fluidcoef};
        try {
          builder_.add_geom(spec);
        } catch (const ModelError& e) {
          fail(g.node, e.what());
        }
        model_geoms_.push_back(&g);
      }
    }
  }

  // the sites of every body in MuJoCo's order (bodies as numbered, a body's sites in document
  // order), names unique among sites
  void add_sites() {
    std::map<std::string, pugi::xml_node, std::less<>> named;
    for (std::size_t b = 0; b < bodies_.size(); ++b) {
      for (const Site& s : bodies_[b].sites) {
        if (!s.name.empty()) {
          const auto [it, added] = named.emplace(s.name, s.node);
          if (!added) {
            ctx_.fail(s.node, fmt::format("site name '{}' is already used by the site at {}",
                                          s.name, ctx_.where(it->second)));
          }
        }
        try {
          builder_.add_site({.name = s.name,
                             .body = body_names_[b],
                             .pos = s.def.pos,
                             .quat = s.def.quat,
                             .type = s.def.type,
                             .size = s.def.size});
        } catch (const ModelError& e) {
          fail(s.node, e.what());
        }
      }
    }
  }

  // angles of hinges (ref, springref, range) and balls (range) in the compiler's unit
  JointSpec joint_spec(const Joint& j) const {
    const JointDef& d = j.def;
    const double hinge = d.type == JointType::kHinge ? compiler_.angle_scale() : 1.0;
    const double range =
        d.type == JointType::kHinge || d.type == JointType::kBall ? compiler_.angle_scale() : 1.0;
    Attrs a(ctx_, j.node);
    const bool limited =
        resolve_limited(a, d.limited, d.range, compiler_.autolimits, "limited", "range");
    // as MuJoCo, only a hinge's or a slide's (a ball's or free joint's is not read)
    const bool scalar = d.type == JointType::kHinge || d.type == JointType::kSlide;
    const bool actuator_force_limited =
        scalar && resolve_limited(a, d.actfrclimited, d.actfrcrange, compiler_.autolimits,
                                  "actuatorfrclimited", "actuatorfrcrange");
    return {.name = j.name,
            .type = d.type,
            .pos = d.pos,
            .axis = d.axis,
            .damping = d.damping,
            .armature = d.armature,
            .stiffness = d.stiffness,
            .springref = d.springref * hinge,
            .ref = d.ref * hinge,
            .limited = limited,
            .range = {d.range[0] * range, d.range[1] * range},
            .margin = d.margin,
            .solreflimit = d.solreflimit,
            .solimplimit = d.solimplimit,
            .frictionloss = d.frictionloss,
            .solreffriction = d.solreffriction,
            .solimpfriction = d.solimpfriction,
            .actfrclimited = actuator_force_limited,
            .actfrcrange = d.actfrcrange,
            .actgravcomp = d.actgravcomp};
  }

  void actuators(const std::vector<pugi::xml_node>& nodes, const Defaults& defaults) {
    const std::vector<std::string> names = complete_names(name_attributes(nodes), "actuator");
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      const pugi::xml_node node = nodes[i];
      const std::string_view kind = node.name();
      // whatever MuJoCo reads in <actuator> is an actuator: one left out would shift ctrl
      if (!is_actuator_kind(kind)) {
        ctx_.fail(node, fmt::format("element <{}> in <actuator> is not supported: it would add an "
                                    "actuator that zwang leaves out, and change nu",
                                    kind));
      }
      // an actuator left out would shift the ctrl layout away from MuJoCo's
      if (!is_supported_actuator_kind(kind)) {
        ctx_.fail(node, fmt::format("<{}> actuators are not supported (motor, position, velocity, "
                                    "cylinder, muscle and general are)",
                                    kind));
      }
      Attrs a(ctx_, node);
      ActuatorDef d = defaults.of(a, "").actuator;
      ActuatorSpec spec;
      a.ignore({"name"});
      spec.name = names[i];
      read_actuator(a, kind, d);
      for (const char* other : {"site", "body", "cranksite", "slidersite", "refsite"}) {
        if (a.has(other)) {
          a.fail(
              fmt::format("<{}> transmission through a {} is not supported; only joints and "
                          "tendons are",
                          kind, other));
        }
      }
      std::optional<std::string> joint = a.text("joint");
      if (!joint) joint = a.text("jointinparent");
      const std::optional<std::string> tendon = a.text("tendon");
      if (!joint && !tendon)
        a.fail(fmt::format("<{}> needs the attribute 'joint' or 'tendon'", kind));
      if (joint && tendon) a.fail(fmt::format("<{}> has both 'joint' and 'tendon'", kind));
      a.finish();
      if (d.dyntype == 4) {
        a.fail(
            fmt::format("<{}> dyntype \"user\" is not supported (none, integrator, filter, "
                        "filterexact and muscle are)",
                        kind));
      }
      if (d.gaintype > 2) {
        a.fail(fmt::format("<{}> gaintype \"user\" is not supported (fixed, affine and muscle are)",
                           kind));
      }
      if (d.biastype > 2) {
        a.fail(fmt::format("<{}> biastype \"user\" is not supported (none, affine and muscle are)",
                           kind));
      }
      spec.joint = joint.value_or("");
      spec.tendon = tendon.value_or("");
      spec.type = kind == "motor"      ? ActuatorType::kMotor
                  : kind == "position" ? ActuatorType::kPosition
                  : kind == "velocity" ? ActuatorType::kVelocity
                  : kind == "cylinder" ? ActuatorType::kCylinder
                  : kind == "muscle"   ? ActuatorType::kMuscle
                                       : ActuatorType::kGeneral;
      spec.gear = d.gear[0];
      // a position default's inheritrange reaches positions and general actuators, as in
      // MuJoCo; the builder takes the range from the joint or tendon
      const double inherit = kind == "position" || kind == "general" ? d.inheritrange : 0.0;
      if (inherit < 0) {
        a.fail(
            fmt::format("<{}> attribute 'inheritrange': {} is negative (0 is off, X > 0 the "
                        "target's range scaled by X about its middle)",
                        kind, inherit));
      }
      if (inherit > 0) {
        if (d.ctrllimited == Limited::kAuto && !compiler_.autolimits) {
          a.fail(
              fmt::format("<{}> has 'inheritrange' but not 'ctrllimited', and the model sets "
                          "<compiler autolimits=\"false\">: give ctrllimited=\"true\" or "
                          "\"false\"",
                          kind));
        }
        spec.ctrllimited = d.ctrllimited != Limited::kFalse;
        spec.inheritrange = inherit;
      } else {
        spec.ctrllimited = resolve_limited(a, d.ctrllimited, d.ctrlrange, compiler_.autolimits,
                                           "ctrllimited", "ctrlrange");
      }
      spec.ctrlrange = d.ctrlrange;
      spec.forcelimited = resolve_limited(a, d.forcelimited, d.forcerange, compiler_.autolimits,
                                          "forcelimited", "forcerange");
      spec.forcerange = d.forcerange;
      spec.kp = spec.kv = spec.gain = d.gainprm[0];
      if (kind == "position") {
        // bias2: −kv, or a damping ratio when positive (MuJoCo 3's encoding)
        spec.kd = d.biasprm[2] < 0 ? -d.biasprm[2] : 0;
        spec.dampratio = d.biasprm[2] > 0 ? d.biasprm[2] : 0;
      }
      if (d.biastype == 1) spec.bias = {d.biasprm[0], d.biasprm[1], d.biasprm[2]};
      if (d.gaintype == 1) spec.gain_slope = {d.gainprm[1], d.gainprm[2]};
      spec.gaintype = static_cast<ActuatorGain>(d.gaintype);
      spec.biastype = static_cast<ActuatorBias>(d.biastype);
      std::copy_n(d.gainprm.begin(), 9, spec.muscle_gain.begin());
      std::copy_n(d.biasprm.begin(), 9, spec.muscle_bias.begin());
      spec.dyntype = static_cast<ActuatorDyn>(d.dyntype);
      std::copy_n(d.dynprm.begin(), 3, spec.dynprm.begin());
      // MuJoCo's length range rules (<compiler><lengthrange>): a muscle's given range when
      // useexisting (or when mode none computes nothing), else its joint's range when uselimit
      const bool computes = compiler_.lengthrange_mode != 0;
      if (compiler_.lengthrange_useexisting || !computes) spec.lengthrange = d.lengthrange;
      spec.lengthrange_from_limit = computes && compiler_.lengthrange_uselimit;
      spec.actlimited = resolve_limited(a, d.actlimited, d.actrange, compiler_.autolimits,
                                        "actlimited", "actrange");
      spec.actrange = d.actrange;
      spec.actearly = d.actearly;
      try {
        builder_.add_actuator(spec);
      } catch (const ModelError& e) {
        fail(node, e.what());
      }
    }
  }

  void tendons(const std::vector<pugi::xml_node>& nodes, const Defaults& defaults) {
    const std::vector<std::string> names = complete_names(name_attributes(nodes), "tendon");
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      const pugi::xml_node node = nodes[i];
      const std::string_view tag = node.name();
      if (tag != "fixed" && tag != "spatial") {
        ctx_.unsupported(node);
        continue;
      }
      Attrs a(ctx_, node);
      TendonDef d = defaults.of(a, "").tendon;
      TendonSpec spec;
      a.ignore({"name"});
      spec.name = names[i];
      spec.spatial = tag == "spatial";
      read_tendon(a, d);
      a.finish();
      spec.limited =
          resolve_limited(a, d.limited, d.range, compiler_.autolimits, "limited", "range");
      spec.range = d.range;
      spec.stiffness = d.stiffness;
      spec.damping = d.damping;
      spec.springlength = d.springlength;
      spec.frictionloss = d.frictionloss;
      spec.margin = d.margin;
      spec.solreflimit = d.solreflimit;
      spec.solimplimit = d.solimplimit;
      spec.solreffriction = d.solreffriction;
      spec.solimpfriction = d.solimpfriction;
      spec.actfrclimited = resolve_limited(a, d.actfrclimited, d.actfrcrange, compiler_.autolimits,
                                           "actuatorfrclimited", "actuatorfrcrange");
      spec.actfrcrange = d.actfrcrange;
      for (const pugi::xml_node child : ctx_.children(node)) {
        const std::string_view kind = child.name();
        Attrs c(ctx_, child);
        if (!spec.spatial && kind == "joint") {
          const std::string joint = c.required_text("joint");
          const std::optional<double> coef = c.number("coef");
          if (!coef) c.fail("<joint> of a fixed tendon needs the attribute 'coef'");
          spec.joints.push_back({joint, *coef});
        } else if (spec.spatial && kind == "site") {
          spec.path.push_back({c.required_text("site"), 0});
        } else if (spec.spatial && kind == "pulley") {
          const std::optional<double> divisor = c.number("divisor");
          if (!divisor) c.fail("<pulley> needs the attribute 'divisor'");
          spec.path.push_back({"", *divisor});
        } else if (spec.spatial && kind == "geom") {
          TendonSpec::Point p{"", 0, c.required_text("geom")};
          if (const auto side = c.text("sidesite")) p.sidesite = std::string(*side);
          spec.path.push_back(p);
        } else {
          c.fail(fmt::format("<{}> is not an element of a {} tendon", kind, tag));
        }
        c.finish();
      }
      try {
        builder_.add_tendon(spec);
      } catch (const ModelError& e) {
        fail(node, e.what());
      }
    }
  }

  // exactly `count` numbers in a numeric's data, or `longer` where that is positive; its size,
  // when given, is the same
  std::vector<double> numeric_data(Attrs& a, const std::string& name, int count,
                                   std::string_view meaning, int longer = 0) {
    const std::string_view text = a.node().attribute("data").value();
    int given = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
      const bool space = std::isspace(static_cast<unsigned char>(text[i])) != 0;
      const bool start = i == 0 || std::isspace(static_cast<unsigned char>(text[i - 1])) != 0;
      if (!space && start) ++given;
    }
    if (longer > 0 && given == longer) count = longer;
    if (given != count) {
      a.fail(fmt::format("numeric '{}' needs {}{} number{} in 'data' ({}), not {}", name, count,
                         longer > 0 ? fmt::format(" or {}", longer) : "",
                         count == 1 && longer == 0 ? "" : "s", meaning, given));
    }
    std::vector<double> data(count);
    a.numbers("data", data, count);
    if (const auto size = a.integer("size"); size && *size != count) {
      a.fail(fmt::format("numeric '{}': size {} differs from its {} numbers", name, *size, count));
    }
    return data;
  }

  // numerics hull:MESH, 1 or 0 (StoredHulls), read before the meshes they describe
  StoredHulls stored_hulls(const std::vector<pugi::xml_node>& nodes) {
    StoredHulls out;
    for (const pugi::xml_node node : nodes) {
      const std::string name = node.attribute("name").value();
      if (std::string_view(node.name()) != "numeric" || !name.starts_with("hull:")) continue;
      Attrs a(ctx_, node);
      a.ignore({"name"});
      const std::vector<double> v =
          numeric_data(a, name, 1, "1: the mesh's vertices and faces are its hull, 0: it has none");
      a.finish();
      if (v[0] != 0 && v[0] != 1) {
        a.fail(fmt::format("numeric '{}': data must be 1 or 0, not {}", name, v[0]));
      }
      if (!out.emplace(name.substr(5), StoredHull{v[0] == 1, node}).second) {
        a.fail(fmt::format("numeric '{}' is defined twice", name));
      }
    }
    return out;
  }

  // numerics named kind:target carry zwang's constraints, which MuJoCo ignores:
  //   drive:JOINT          q0 v0 amplitude omega phase [solref]
  //   hard:EQUALITY        1 (an exact row) or 0
  //   knife_edge:BODY      point, direction (body frame) [solref]
  //   flag:passive         1: passive forces off (MuJoCo 2.2.2's flag, which 4.0 refuses)
  //   rolling_sphere:BODY  radius, height of the plane [solref]
  // other numerics, texts and tuples are the user's
  void custom(const std::vector<pugi::xml_node>& nodes) {
    std::set<std::string, std::less<>> seen;
    for (const pugi::xml_node node : nodes) {
      if (std::string_view(node.name()) != "numeric") continue;
      const std::string name = node.attribute("name").value();
      const std::size_t colon = name.find(':');
      if (colon == std::string::npos) continue;
      const std::string kind = name.substr(0, colon), target = name.substr(colon + 1);
      const int count = kind == "drive"                    ? 5
                        : kind == "hard" || kind == "flag" ? 1
                        : kind == "knife_edge"             ? 6
                        : kind == "rolling_sphere"         ? 2
                                                           : 0;
      if (count == 0) continue;
      Attrs a(ctx_, node);
      a.ignore({"name"});
      if (!seen.insert(name).second) a.fail(fmt::format("numeric '{}' is defined twice", name));
      if (kind == "flag" && target != "passive") {
        a.fail(
            fmt::format("numeric '{}': the only flag numeric is 'flag:passive' (MuJoCo 2.2.2's "
                        "passive flag, which MuJoCo 4.0 no longer reads)",
                        name));
      }
      const std::string_view meaning =
          kind == "drive"                    ? "q0 v0 amplitude omega phase, then optionally solref"
          : kind == "hard" || kind == "flag" ? "1 or 0"
          : kind == "knife_edge" ? "point and direction in the body frame, then optionally solref"
                                 : "radius and the plane's height, then optionally solref";
      const int longer =
          kind == "drive" || kind == "knife_edge" || kind == "rolling_sphere" ? count + 2 : 0;
      const std::vector<double> v = numeric_data(a, name, count, meaning, longer);
      // the drift correction's solref after the numbers, where given
      const SolRef solref =
          static_cast<int>(v.size()) == longer ? SolRef{v[count], v[count + 1]} : kDefaultSolRef;
      a.finish();
      if ((kind == "hard" || kind == "flag") && v[0] != 0 && v[0] != 1) {
        a.fail(fmt::format("numeric '{}': data must be 1 or 0, not {}", name, v[0]));
      }
      if (kind == "flag") {
        // 1: passive forces off, as <flag passive="disable"> under MuJoCo 2.2.2
        if (v[0] == 1) disableflags_ |= kDisablePassive;
        continue;
      }
      try {
        if (kind == "drive") {
          constraint_nodes_[fmt::format("the drive of joint '{}'", target)] = node;
          builder_.add_drive({.joint = target,
                              .q0 = v[0],
                              .v0 = v[1],
                              .amplitude = v[2],
                              .omega = v[3],
                              .phase = v[4],
                              .solref = solref});
        } else if (kind == "hard") {
          hard_[target] = {v[0] == 1, node};
        } else if (kind == "knife_edge") {
          constraint_nodes_[fmt::format("'{}'", name)] = node;
          builder_.add_nonholonomic({.name = name,
                                     .type = NonholonomicType::kKnifeEdge,
                                     .body = target,
                                     .point = {v[0], v[1], v[2]},
                                     .direction = {v[3], v[4], v[5]},
                                     .solref = solref});
        } else {
          constraint_nodes_[fmt::format("'{}'", name)] = node;
          builder_.add_nonholonomic({.name = name,
                                     .type = NonholonomicType::kRollingSphere,
                                     .body = target,
                                     .radius = v[0],
                                     .height = v[1],
                                     .solref = solref});
        }
      } catch (const ModelError& e) {
        fail(node, e.what());
      }
    }
  }

  // connect, weld and joint equalities: active, solref and solimp from the class (no
  // childclass reaches them), the rest from the element
  void equalities(const std::vector<pugi::xml_node>& nodes, const Defaults& defaults) {
    for (const pugi::xml_node node : nodes) {
      const std::string_view tag = node.name();
      if (tag == "distance") {
        ctx_.fail(node,
                  "<distance> equality constraints are not supported (MuJoCo 2.2.2 removed them); "
                  "connect, weld, joint and tendon are");
      }
      if (tag != "connect" && tag != "weld" && tag != "joint" && tag != "tendon") {
        ctx_.unsupported(node);
        continue;
      }
      Attrs a(ctx_, node);
      EqualityDef d = defaults.of(a, "").equality;
      read_equality(a, d);
      EqualitySpec spec;
      spec.name = a.text("name").value_or("");
      spec.active = d.active;
      spec.solref = d.solref;
      spec.solimp = d.solimp;
      if (tag == "joint" || tag == "tendon") {
        const bool joint = tag == "joint";
        spec.type = joint ? EqualityType::kJoint : EqualityType::kTendon;
        spec.obj1 = a.required_text(joint ? "joint1" : "tendon1");
        spec.obj2 = a.text(joint ? "joint2" : "tendon2").value_or("");
        a.exact("polycoef", spec.polycoef);
      } else {
        spec.type = tag == "connect" ? EqualityType::kConnect : EqualityType::kWeld;
        spec.obj1 = a.required_text("body1");
        spec.obj2 = a.text("body2").value_or("");
        if (tag == "connect" && !a.has("anchor")) a.fail("<connect> needs the attribute 'anchor'");
        a.exact("anchor", spec.anchor);
        if (tag == "weld") {
          a.exact("relpose", spec.relpose);
          if (const auto t = a.number("torquescale")) spec.torquescale = *t;
        }
      }
      a.finish();
      const auto hard = spec.name.empty() ? hard_.end() : hard_.find(spec.name);
      if (hard != hard_.end()) {
        spec.hard = hard->second.on;
        hard->second.used = true;
      }
      constraint_nodes_[spec.name.empty() ? fmt::format("equality {}", nequality_)
                                          : fmt::format("equality '{}'", spec.name)] = node;
      ++nequality_;
      try {
        builder_.add_equality(spec);
      } catch (const ModelError& e) {
        if (spec.hard) {
          ctx_.fail(node, fmt::format("{} (numeric 'hard:{}' at {})", e.what(), spec.name,
                                      ctx_.where(hard->second.node)));
        }
        fail(node, e.what());
      }
    }
    for (const auto& [name, h] : hard_) {
      if (!h.used) {
        ctx_.fail(h.node, fmt::format("numeric 'hard:{}': no equality is named '{}'", name, name));
      }
    }
  }

  // what only the whole tree can check, located at the body or keyframe it names
  Model build() {
    try {
      return builder_.build();
    } catch (const ModelError& e) {
      const std::string_view what = e.what();
      for (std::size_t b = 1; b < bodies_.size(); ++b) {
        if (what.starts_with(fmt::format("body '{}'", body_names_[b]))) fail(bodies_[b].node, what);
      }
      for (std::size_t k = 0; k < key_nodes_.size(); ++k) {
        const std::string name = key_nodes_[k].attribute("name").value();
        const std::string label =
            name.empty() ? fmt::format("keyframe {}:", k) : fmt::format("keyframe '{}':", name);
        if (what.starts_with(label)) ctx_.fail(key_nodes_[k], what);
      }
      if (what.starts_with("keyframe") && size_node_) ctx_.fail(size_node_, what);
      if (what.starts_with("nconmax ") && nconmax_node_) ctx_.fail(nconmax_node_, what);
      // contradicting hard constraints: at the first one the message names
      if (what.find("hard constraints contradict") != std::string_view::npos) {
        std::size_t first = std::string_view::npos;
        pugi::xml_node at;
        for (const auto& [label, node] : constraint_nodes_) {
          const std::size_t pos = what.find(label);
          if (pos < first) {
            first = pos;
            at = node;
          }
        }
        if (at) ctx_.fail(at, what);
      }
      fail(root_, what);
    }
  }

  // "file:line: what" with each body that has no name in the file called by its place, not by
  // the name zwang gave it ("the unnamed body at file:line"; "unnamed body" when `node` is it)
  [[noreturn]] void fail(pugi::xml_node node, std::string_view what) const {
    std::string out(what);
    for (std::size_t b = 1; b < bodies_.size() && b < body_names_.size(); ++b) {
      if (!bodies_[b].name.empty()) continue;
      const std::string invented = fmt::format("body '{}'", body_names_[b]);
      const std::string place = bodies_[b].node == node ? std::string("unnamed body")
                                                        : fmt::format("the unnamed body at {}",
                                                                      ctx_.where(bodies_[b].node));
      for (std::size_t at = out.find(invented); at != std::string::npos;
           at = out.find(invented, at + place.size())) {
        out.replace(at, invented.size(), place);
      }
    }
    ctx_.fail(node, out);
  }

  Context& ctx_;
  pugi::xml_node root_;
  Compiler compiler_;
  ModelBuilder builder_;
  std::vector<Body> bodies_;
  std::vector<std::string> body_names_;
  int iterations_ = 100;  // MuJoCo's defaults
  double tolerance_ = 1e-8;
  int disableflags_ = 0;
  double density_ = 0, viscosity_ = 0;  // of the medium: fluid forces where either is positive
  Cone cone_ = Cone::kPyramidal;
  double impratio_ = 1;
  std::map<std::string, Hard, std::less<>> hard_;
  std::map<std::string, GeomRef, std::less<>> geoms_;          // named geoms of the document
  std::vector<const Geom*> model_geoms_;                       // the model's geoms
  std::map<std::string, double, std::less<>> material_alpha_;  // opacity of each material
  int nkey_ = 0;                                               // <size nkey>
  pugi::xml_node size_node_;                                   // the <size> that sets it
  pugi::xml_node nconmax_node_;                                // the <size> that sets nconmax
  pugi::xml_node integrator_node_;                             // the <option> that sets it
  // each equality, drive and non-holonomic constraint by the words a message names it with
  std::map<std::string, pugi::xml_node, std::less<>> constraint_nodes_;
  int nequality_ = 0;                      // equalities added
  std::vector<pugi::xml_node> key_nodes_;  // the <key> elements, in key order
};

// a failed load shows the warnings said before its error
LoadResult load(Context& ctx, pugi::xml_node root) {
  try {
    return Loader(ctx).load(root);
  } catch (const ModelError& e) {
    throw with_warnings(e, ctx.warnings);
  }
}

}  // namespace
}  // namespace mjcf

LoadResult load_mjcf(const std::filesystem::path& file, const LoadOptions& options) {
  check_mjcf_options(options, file.string());
  mjcf::Context ctx;
  ctx.wrap_rules = wrap_rules_of(options);
  ctx.rules = options.rules;
  const pugi::xml_node root = ctx.parse(read_model_file(file, file.string()), file.string(), file,
                                        file.parent_path(), nullptr);
  LoadResult r = mjcf::load(ctx, root);
  r.model.contact_margin = contact_margin_of(options);
  r.model.rules = options.rules;
  return r;
}

LoadResult load_mjcf_string(std::string_view xml, std::string_view name,
                            const std::filesystem::path& dir, const LoadOptions& options) {
  check_mjcf_options(options, name);
  mjcf::Context ctx;
  ctx.wrap_rules = wrap_rules_of(options);
  ctx.rules = options.rules;
  const pugi::xml_node root = ctx.parse(std::string(xml), std::string(name), {}, dir, nullptr);
  LoadResult r = mjcf::load(ctx, root);
  r.model.contact_margin = contact_margin_of(options);
  r.model.rules = options.rules;
  return r;
}

}  // namespace zwang
