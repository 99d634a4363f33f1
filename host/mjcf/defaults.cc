// MJCF default classes and the element attributes they share with the model: joints, geoms,
// actuators, tendons, equalities and contact pairs.  A class starts as a copy of its parent; an
// element starts as a copy of its class, and each attribute it gives overwrites the value (for a
// list, its first values).
#include "host/mjcf/defaults.hpp"

#include <fmt/format.h>

#include <cmath>
#include <numbers>
#include <span>

#include "host/mjcf/actuator_names.hpp"

namespace zwang::mjcf {
namespace {

std::optional<Limited> read_limited(Attrs& a, const char* name) {
  const std::optional<int> k = a.keyword(name, {"false", "true", "auto"});
  if (!k) return std::nullopt;
  return *k == 0 ? Limited::kFalse : *k == 1 ? Limited::kTrue : Limited::kAuto;
}

void set_if(Attrs& a, const char* name, double& out) {
  if (const std::optional<double> v = a.number(name)) out = *v;
}

// what joints and tendons share: the range and its limit rows, and the solver parameters of
// their limit and friction rows
template <class Def>
void read_limits(Attrs& a, Def& d) {
  if (const auto limited = read_limited(a, "limited")) d.limited = *limited;
  a.exact("range", d.range);
  set_if(a, "margin", d.margin);
  a.numbers("solreflimit", d.solreflimit, 1);
  a.numbers("solimplimit", d.solimplimit, 1);
  a.numbers("solreffriction", d.solreffriction, 1);
  a.numbers("solimpfriction", d.solimpfriction, 1);
}

}  // namespace

void read_joint(Attrs& a, JointDef& d) {
  if (const auto type = a.keyword("type", {"free", "ball", "slide", "hinge"})) {
    d.type = static_cast<JointType>(*type);
  }
  a.exact("pos", d.pos);
  a.exact("axis", d.axis);
  set_if(a, "damping", d.damping);
  set_if(a, "armature", d.armature);
  set_if(a, "stiffness", d.stiffness);
  set_if(a, "frictionloss", d.frictionloss);
  set_if(a, "ref", d.ref);
  set_if(a, "springref", d.springref);
  read_limits(a, d);
  if (const auto limited = read_limited(a, "actuatorfrclimited")) d.actfrclimited = *limited;
  a.exact("actuatorfrcrange", d.actfrcrange);
  if (const auto g = a.keyword("actuatorgravcomp", {"false", "true"})) d.actgravcomp = *g == 1;
  a.ignore({"group", "user"});
}

void read_geom(Attrs& a, GeomDef& d, const Compiler& c) {
  if (const auto type = a.keyword("type", {"plane", "hfield", "sphere", "capsule", "ellipsoid",
                                           "cylinder", "box", "mesh"})) {
    d.type = static_cast<GeomType>(*type);
  }
  a.numbers("size", d.size, 1);
  set_if(a, "density", d.density);
  if (const auto mass = a.number("mass")) {
    if (*mass < 0) a.fail(fmt::format("<geom> mass {} is negative", *mass));
    d.mass = *mass;
  }
  if (const auto group = a.integer("group")) d.group = *group;
  a.exact("pos", d.pos);
  if (const auto q = read_orientation(a, c)) d.quat = *q;
  std::array<double, 6> fromto{};
  if (a.exact("fromto", fromto)) d.fromto = fromto;
  if (d.density < 0) a.fail(fmt::format("<geom> density {} is negative", d.density));
  // contacts; condim is checked on the geom, whose class may set a value it replaces
  if (const auto v = a.integer("contype")) d.contype = *v;
  if (const auto v = a.integer("conaffinity")) d.conaffinity = *v;
  if (const auto v = a.integer("condim")) d.condim = *v;
  if (const auto v = a.integer("priority")) d.priority = *v;
  a.numbers("friction", d.friction, 1);
  set_if(a, "margin", d.margin);
  set_if(a, "gap", d.gap);
  set_if(a, "solmix", d.solmix);
  a.numbers("solref", d.solref, 1);
  a.numbers("solimp", d.solimp, 1);
  if (const auto mesh = a.text("mesh")) d.mesh = *mesh;
  if (const auto hfield = a.text("hfield")) d.hfield = *hfield;
  set_if(a, "fitscale", d.fitscale);
  if (const auto shell = a.boolean("shellinertia")) d.shellinertia = *shell;
  std::array<double, 4> rgba{};
  if (a.exact("rgba", rgba)) d.alpha = rgba[3];
  if (const auto material = a.text("material")) d.material = *material;
  if (const auto shape = a.keyword("fluidshape", {"none", "ellipsoid"})) {
    d.fluid_ellipsoid = *shape == 1;
  }
  a.exact("fluidcoef", d.fluidcoef);
  a.ignore({"user"});
}

void read_mesh(Attrs& a, MeshDef& d) {
  a.exact("scale", d.scale);
  if (const auto inertia = a.keyword("inertia", {"legacy", "exact", "convex", "shell"})) {
    d.inertia = *inertia;
  }
  // the convex hull's vertex budget: zwang keeps the whole hull
  a.ignore({"maxhullvert"});
}

void read_site(Attrs& a, SiteDef& d, const Compiler& c) {
  if (const auto type = a.keyword("type", {"plane", "hfield", "sphere", "capsule", "ellipsoid",
                                           "cylinder", "box", "mesh"})) {
    d.type = static_cast<GeomType>(*type);
  }
  a.exact("pos", d.pos);
  if (const auto q = read_orientation(a, c)) d.quat = *q;
  std::array<double, 6> fromto{};
  if (a.exact("fromto", fromto)) d.fromto = fromto;
  a.numbers("size", d.size, 1);
  // rendering and user data
  a.ignore({"material", "rgba", "group", "user"});
}

bool is_actuator_kind(std::string_view tag) {
  return is_supported_actuator_kind(tag) || tag == "adhesion" || tag == "damper" ||
         tag == "intvelocity";
}

bool is_supported_actuator_kind(std::string_view tag) {
  return tag == "general" || tag == "motor" || tag == "position" || tag == "velocity" ||
         tag == "cylinder" || tag == "muscle";
}

void read_actuator(Attrs& a, std::string_view kind, ActuatorDef& d) {
  if (const auto limited = read_limited(a, "ctrllimited")) d.ctrllimited = *limited;
  if (const auto limited = read_limited(a, "forcelimited")) d.forcelimited = *limited;
  // a position's inheritrange and a ctrlrange: refused together in one element or class, else
  // the one given last (the element over its classes, a class over its parents) holds
  const std::optional<double> inherit =
      kind == "position" ? a.number("inheritrange") : std::nullopt;
  if (inherit && *inherit > 0 && a.has("ctrlrange")) {
    a.fail(fmt::format("<{}> has both 'ctrlrange' and 'inheritrange'", kind));
  }
  if (inherit) {
    d.inheritrange = *inherit;
    if (*inherit > 0) d.ctrlrange = {0, 0};
  }
  if (a.has("ctrlrange")) d.inheritrange = 0;
  a.exact("ctrlrange", d.ctrlrange);
  a.exact("forcerange", d.forcerange);
  a.numbers("gear", d.gear, 1);
  a.exact("lengthrange", d.lengthrange);
  // the crank length only matters for a transmission zwang rejects
  a.ignore({"group", "user", "cranklength"});
  if (kind == "general") {
    if (const auto limited = read_limited(a, "actlimited")) d.actlimited = *limited;
    a.exact("actrange", d.actrange);
    if (const auto early = a.boolean("actearly")) d.actearly = *early;
    if (const auto t = a.keyword("dyntype", kDynTypes)) d.dyntype = *t;
    if (const auto t = a.keyword("gaintype", kGainTypes)) d.gaintype = *t;
    if (const auto t = a.keyword("biastype", kBiasTypes)) d.biastype = *t;
    a.numbers("gainprm", d.gainprm, 1);
    a.numbers("biasprm", d.biasprm, 1);
    a.numbers("dynprm", d.dynprm, 1);
    return;
  }
  // cylinder: a filter of time constant timeconst, gain area (π d² / 4 from a diameter), an
  // affine bias
  if (kind == "cylinder") {
    a.numbers("timeconst", std::span(d.dynprm).first(1), 1);
    a.numbers("bias", std::span(d.biasprm).first(3), 1);
    a.numbers("area", std::span(d.gainprm).first(1), 1);
    if (const auto diameter = a.number("diameter"))
      d.gainprm[0] = std::numbers::pi / 4 * *diameter * *diameter;
    d.dyntype = 2;
    d.gaintype = 0;
    d.biastype = 1;
    return;
  }
  // muscle: MuJoCo 2.2.2's defaults where the class left the general defaults, then the
  // attributes; the bias reads the gain's numbers
  if (kind == "muscle") {
    constexpr std::array<double, 9> kGeneral{1, 0, 0, 0, 0, 0, 0, 0, 0};
    constexpr std::array<double, 9> kMuscle{0.75, 1.05, -1, 200, 0.5, 1.6, 1.5, 1.3, 1.2};
    if (d.dynprm[0] == 1) d.dynprm[0] = 0.01;
    if (d.dynprm[1] == 0) d.dynprm[1] = 0.04;
    for (int k = 0; k < 9; ++k) {
      if (d.gainprm[k] == kGeneral[k]) d.gainprm[k] = kMuscle[k];
    }
    a.numbers("timeconst", std::span(d.dynprm).first(2), 1);
    a.numbers("range", std::span(d.gainprm).first(2), 1);
    const char* names[] = {"force", "scale", "lmin", "lmax", "vmax", "fpmax", "fvmax"};
    for (int k = 0; k < 7; ++k) a.numbers(names[k], std::span(d.gainprm).subspan(2 + k, 1), 1);
    std::copy(d.gainprm.begin(), d.gainprm.begin() + 9, d.biasprm.begin());
    d.dyntype = 3;
    d.gaintype = 2;
    d.biastype = 2;
    return;
  }
  // the shortcuts: no activation, a fixed gain, and a bias that is none (motor), −kp l − kv l̇
  // (position; kv 0 unless given, here or by a position of the class) or −kv l̇ (velocity); kp
  // and a velocity's kv default to the class's gain
  d.dyntype = 0;
  d.gaintype = 0;
  if (kind == "motor") {
    d.gainprm[0] = 1;
    d.biastype = 0;
    return;
  }
  const bool position = kind == "position";
  const double k = a.number(position ? "kp" : "kv").value_or(d.gainprm[0]);
  d.gainprm[0] = k;
  d.biastype = 1;
  if (!position) {
    d.biasprm.fill(0);
    d.biasprm[2] = -k;
    return;
  }
  // MuJoCo's position (mjs_setToPosition): kp in gain0 and −bias1, MuJoCo 3's damping in bias2
  // as −kv or as a positive damping ratio where given (one of the two), else the class's bias2
  // (and bias0) stays
  const auto kv = a.number("kv"), ratio = a.number("dampratio");
  if (kv && ratio) a.fail("<position> has both 'kv' and 'dampratio'");
  if ((kv && *kv < 0) || (ratio && *ratio < 0)) {
    a.fail(fmt::format("<position> {} cannot be negative", kv ? "kv" : "dampratio"));
  }
  d.biasprm[1] = -k;
  if (kv) d.biasprm[2] = -*kv;
  if (ratio) d.biasprm[2] = *ratio;
}

void read_tendon(Attrs& a, TendonDef& d) {
  set_if(a, "stiffness", d.stiffness);
  set_if(a, "damping", d.damping);
  set_if(a, "frictionloss", d.frictionloss);
  // one value: a rest length; two: MuJoCo 3's dead band
  if (a.numbers("springlength", d.springlength, 1) == 1) d.springlength[1] = d.springlength[0];
  if (d.springlength[0] > d.springlength[1]) {
    a.fail(fmt::format("<tendon> springlength [{}, {}] is empty: the lower end is above the upper",
                       d.springlength[0], d.springlength[1]));
  }
  read_limits(a, d);
  if (const auto limited = read_limited(a, "actuatorfrclimited")) d.actfrclimited = *limited;
  a.exact("actuatorfrcrange", d.actfrcrange);
  // rendering and user data
  a.ignore({"group", "width", "rgba", "material", "user"});
}

void read_equality(Attrs& a, EqualityDef& d) {
  if (const auto active = a.boolean("active")) d.active = *active;
  a.numbers("solref", d.solref, 1);
  a.numbers("solimp", d.solimp, 1);
}

void read_pair(Attrs& a, PairDef& d) {
  if (const auto condim = a.integer("condim")) d.condim = *condim;
  a.numbers("friction", d.friction, 1);
  a.numbers("solref", d.solref, 1);
  a.numbers("solimp", d.solimp, 1);
  set_if(a, "margin", d.margin);
  set_if(a, "gap", d.gap);
}

// ---------------------------------------------------------------------------------------------
// Defaults

Defaults::Defaults(Context& ctx, std::span<const pugi::xml_node> sections, const Compiler& c)
    : ctx_(ctx), compiler_(c) {
  classes_["main"] = DefaultClass{};
  for (const pugi::xml_node node : sections) {
    const pugi::xml_attribute name = node.attribute("class");
    if (name && std::string_view(name.value()) != "main") {
      ctx_.fail(node, fmt::format("the top <default> is class 'main', not '{}'", name.value()));
    }
    read(node);
  }
}

// depth first in document order, on a stack of our own rather than the call stack, which a deep
// nesting of classes would overflow
void Defaults::read(pugi::xml_node section) {
  struct Level {
    std::vector<pugi::xml_node> nested;  // the class's <default> children
    std::size_t next = 0;
    std::string name;
  };
  std::vector<Level> stack;
  stack.push_back({define(section, "main", classes_.at("main")), 0, "main"});
  while (!stack.empty()) {
    Level& level = stack.back();
    if (level.next == level.nested.size()) {
      stack.pop_back();
      continue;
    }
    const pugi::xml_node child = level.nested[level.next++];
    const pugi::xml_attribute child_name = child.attribute("class");
    if (!child_name) ctx_.fail(child, "a nested <default> needs the attribute 'class'");
    const std::string name = child_name.value();
    stack.push_back({define(child, name, classes_.at(level.name)), 0, name});
  }
}

std::vector<pugi::xml_node> Defaults::define(pugi::xml_node node, const std::string& name,
                                             const DefaultClass& parent) {
  DefaultClass cls = parent;
  Attrs self(ctx_, node);
  self.ignore({"class"});
  self.finish();
  const std::vector<pugi::xml_node> children = ctx_.children(node);
  // a class's own settings come first, then its nested classes inherit all of them
  for (const pugi::xml_node child : children) {
    const std::string_view tag = child.name();
    if (tag == "default") continue;
    Attrs a(ctx_, child);
    if (tag == "joint") {
      read_joint(a, cls.joint);
    } else if (tag == "geom") {
      read_geom(a, cls.geom, compiler_);
    } else if (is_supported_actuator_kind(tag)) {
      read_actuator(a, tag, cls.actuator);
    } else if (tag == "tendon") {
      read_tendon(a, cls.tendon);
    } else if (tag == "equality") {
      read_equality(a, cls.equality);
    } else if (tag == "pair") {
      read_pair(a, cls.pair);
    } else if (tag == "site") {
      read_site(a, cls.site, compiler_);
    } else if (tag == "mesh") {
      read_mesh(a, cls.mesh);
    } else if (tag == "material") {
      // only the opacity matters (to rangefinder rays); the rest is rendering
      std::array<double, 4> rgba{};
      if (a.exact("rgba", rgba)) cls.material_alpha = rgba[3];
      continue;
    } else if (tag == "camera" || tag == "light") {
      // defaults of elements that are ignored or warned about where they are used
      continue;
    } else {
      ctx_.unsupported(child);
      continue;
    }
    a.finish();
  }
  if (name != "main" && classes_.count(name) != 0) {
    ctx_.fail(node, fmt::format("default class '{}' is defined twice", name));
  }
  classes_[name] = cls;
  std::vector<pugi::xml_node> nested;
  for (const pugi::xml_node child : children) {
    if (std::string_view(child.name()) == "default") nested.push_back(child);
  }
  return nested;
}

const DefaultClass& Defaults::named(pugi::xml_node node, std::string_view name) const {
  const auto it = classes_.find(name);
  if (it == classes_.end()) ctx_.fail(node, fmt::format("unknown default class '{}'", name));
  return it->second;
}

const DefaultClass& Defaults::of(Attrs& a, std::string_view active) const {
  if (const std::optional<std::string> cls = a.text("class")) return named(a.node(), *cls);
  return named(a.node(), active.empty() ? "main" : active);
}

}  // namespace zwang::mjcf
