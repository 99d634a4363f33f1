// <compiler fusestatic="true">: bodies without joints merged into their parents, as MuJoCo 4.0's
// compiler merges them.  A body stays when it has joints, is a mocap body, says fuse="false", is
// named by another element, or carries the site of a force or torque sensor; and, where it would
// merge into a body other than the world, when it has mass and either a gravity compensation
// other than that body's or a fluid around it, or, in a fluid, a geom of the ellipsoid model, or
// (inertiafromgeom="true") when boundmass or boundinertia raised its mass or inertia or that
// body's.  The parent takes a merged
// body's mass, centre of mass and inertia (a child of the world gives them up: the world does not
// move), its geoms and sites, and its child bodies, each in the parent's frame; the body leaves
// the model's bodies for its merged bodies (Model::fused_*), whose frames zwang::derive poses.
// Fewer bodies are fewer terms in every per-body pass of a step.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "host/load/body_merge.hpp"
#include "host/mjcf/body.hpp"
#include "host/model/mass_matrix_check.hpp"

namespace zwang::mjcf {
namespace {

// Body names that other elements use: MuJoCo keeps such a body.  Attributes that name a body
// (an exclusion's, an equality's, a subtree sensor's, an actuator's, a contact sensor's, a skin
// bone's, a camera's or light's target) and object names of type body or xbody;
// a force or torque sensor keeps the body of its site, and a knife edge or rolling sphere
// (zwang's <custom> constraints) its body.
class References {
 public:
  References(Context& ctx, pugi::xml_node root) : ctx_(ctx) { visit(root); }

  bool named(const Body& body) const { return names_.contains(body.name); }
  bool measures_force(const Body& body) const {
    for (const Site& s : body.sites) {
      if (!s.name.empty() && force_sites_.contains(s.name)) return true;
    }
    return false;
  }

 private:
  // every element below `root` but the default classes, with a stack of its own: a body tree
  // thousands deep loads (read_bodies() does not recurse either)
  void visit(pugi::xml_node root) {
    std::vector<pugi::xml_node> open{root};
    while (!open.empty()) {
      const pugi::xml_node node = open.back();
      open.pop_back();
      for (const pugi::xml_node child : ctx_.children(node)) {
        if (std::string_view(child.name()) == "default") continue;
        note(child);
        open.push_back(child);
      }
    }
  }

  void note(pugi::xml_node e) {
    const std::string_view tag = e.name();
    for (const char* attr : {"body", "body1", "body2", "subtree1", "subtree2"}) {
      if (const pugi::xml_attribute a = e.attribute(attr)) names_.insert(a.value());
    }
    if (tag == "camera" || tag == "light") {
      if (const pugi::xml_attribute a = e.attribute("target")) names_.insert(a.value());
    }
    for (const auto& [type, name] : {std::pair{"objtype", "objname"}, {"reftype", "refname"}}) {
      const std::string_view t = e.attribute(type).value();
      if (t == "body" || t == "xbody") names_.insert(e.attribute(name).value());
    }
    if (tag == "force" || tag == "torque") {
      if (const pugi::xml_attribute a = e.attribute("site")) force_sites_.insert(a.value());
    }
    // zwang's own constraints on a body: <custom><numeric name="knife_edge:BODY">
    if (tag == "numeric") {
      const std::string_view name = e.attribute("name").value();
      for (const std::string_view prefix : {"knife_edge:", "rolling_sphere:"}) {
        if (name.starts_with(prefix)) names_.insert(std::string(name.substr(prefix.size())));
      }
    }
  }

  Context& ctx_;
  std::set<std::string, std::less<>> names_, force_sites_;
};

}  // namespace

std::vector<FusedBody> fuse_static(Context& ctx, pugi::xml_node root, const Compiler& c, bool fluid,
                                   std::vector<Body>& bodies, std::vector<MassProperties>& mass) {
  const References references(ctx, root);
  const std::size_t n = bodies.size();
  // what add_bodies() would refuse of a body that is merged before it gets there
  std::map<std::string_view, pugi::xml_node> seen;
  for (std::size_t i = 1; i < n; ++i) {
    const Body& body = bodies[i];
    const std::string who =
        body.name.empty() ? std::string("the unnamed body") : fmt::format("body '{}'", body.name);
    if (!body.name.empty()) {
      const auto [at, added] = seen.emplace(body.name, body.node);
      if (!added) {
        ctx.fail(body.node, fmt::format("body name '{}' is already used by the body at {}",
                                        body.name, ctx.where(at->second)));
      }
    }
    if (!std::isfinite(mass[i].mass) || mass[i].mass < 0) {
      ctx.fail(body.node, fmt::format("{}: mass must be positive (got {})", who, mass[i].mass));
    }
    // a merged body without mass adds nothing, whatever its inertia
    if (!(mass[i].mass >= 1e-15)) continue;
    try {
      check_inertia(mass[i].inertia, mass[i].mass, who);
    } catch (const ModelError& e) {
      ctx.fail(body.node, e.what());
    }
  }
  // In document order, each body after its parent, as MuJoCo merges them one by one: a merged
  // body goes into its nearest ancestor that stays (`up`), where `pose` is its frame.
  std::vector<int> up(n, 0), index(n, 0);
  std::vector<FramePose> pose(n);
  std::vector<bool> stays(n, true);
  std::vector<Body> kept;
  std::vector<MassProperties> kept_mass;
  std::vector<FusedBody> fused;
  kept.push_back(std::move(bodies[0]));
  kept_mass.push_back(mass[0]);
  for (std::size_t i = 1; i < n; ++i) {
    Body& body = bodies[i];
    const int parent = body.parent;
    FramePose f{body.pos, body.quat};
    up[i] = stays[parent] ? parent : up[parent];
    if (!stays[parent]) to_outer(pose[parent], f.pos, f.quat);
    pose[i] = f;
    const int owner = index[up[i]];
    // MuJoCo 4.0 keeps a body with mass where merging it into a body that moves would change
    // the forces: its gravity compensation differs from that body's, or a fluid acts on each
    // body on its own (and then, with or without mass, a body with a geom of the fluid's
    // ellipsoid model); and, where geoms alone give the inertias, one whose mass or inertia, or
    // that body's, a bound raised
    const bool massive = mass[i].mass >= 1e-15;
    const bool into_body = owner > 0;
    const bool fluid_geom = std::any_of(body.geoms.begin(), body.geoms.end(),
                                        [](const Geom& g) { return g.def.fluid_ellipsoid; });
    stays[i] = !body.joints.empty() || body.mocap || !body.fuse ||
               (!body.name.empty() && references.named(body)) || references.measures_force(body) ||
               (into_body && massive && (fluid || body.gravcomp != kept[owner].gravcomp)) ||
               (into_body && fluid && fluid_geom) ||
               (into_body && c.inertiafromgeom == InertiaFromGeom::kTrue &&
                (mass[i].bounded || mass[up[i]].bounded));
    if (stays[i]) {
      body.parent = owner;
      body.pos = f.pos;
      body.quat = f.quat;
      index[i] = static_cast<int>(kept.size());
      kept.push_back(std::move(body));
      kept_mass.push_back(mass[i]);
      continue;
    }
    // its centre of mass in the frame of the body that takes it: p_f + R_f c
    FramePose com{mass[i].com, {1, 0, 0, 0}};
    to_outer(f, com.pos, com.quat);
    fused.push_back({body.name, owner, f, mass[i].mass, com.pos});
    // the world does not move: what is welded to it adds no mass
    if (owner > 0 && massive) {
      MassProperties& to = kept_mass[owner];
      const BodyMass m =
          joined({to.mass, to.com, to.inertia}, {mass[i].mass, mass[i].com, mass[i].inertia}, f);
      to.mass = m.mass;
      to.com = m.com;
      to.inertia = m.inertia;
    }
    for (Geom& g : body.geoms) {
      to_outer(f, g.def.pos, g.def.quat);
      kept[owner].geoms.push_back(std::move(g));
    }
    for (Site& s : body.sites) {
      to_outer(f, s.def.pos, s.def.quat);
      kept[owner].sites.push_back(std::move(s));
    }
  }
  bodies = std::move(kept);
  mass = std::move(kept_mass);
  return fused;
}

}  // namespace zwang::mjcf
