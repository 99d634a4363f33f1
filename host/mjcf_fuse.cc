// <compiler fusestatic="true">: bodies without joints merged into their parents, as MuJoCo 4.0's
// compiler merges them.  A body stays when it has joints, is a mocap body, says fuse="false", is
// named by another element, carries the site of a force or torque sensor, has mass and either a
// gravity compensation other than its parent's or a fluid around it, or (inertiafromgeom="true")
// has a mass or inertia that boundmass or boundinertia raised.  The parent takes a merged
// body's mass, centre of mass and inertia (a child of the world gives them up: the world does not
// move), its geoms and sites, and its child bodies, each in the parent's frame; the body leaves
// the model, so the body-level outputs (xpos, cvel, ...) of what was two bodies are those of the
// parent.  Fewer bodies are fewer terms in every per-body pass of a step.
#include <fmt/format.h>

#include <Eigen/Geometry>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "mjcf_reader.hpp"

namespace zwang::mjcf {
namespace {

Eigen::Quaterniond eigen(const Quatd& q) {
  return Eigen::Quaterniond(q[0], q[1], q[2], q[3]);
}

Eigen::Vector3d eigen(const Vec3d& v) {
  return Eigen::Vector3d(v[0], v[1], v[2]);
}

// a body's frame in another's
struct Pose {
  Vec3d pos{0, 0, 0};
  Quatd quat{1, 0, 0, 0};
};

// a frame (p, q) given in frame f, in the frame that f is given in: (p_f + R_f p, q_f q)
void to_outer(const Pose& f, Vec3d& pos, Quatd& quat) {
  const Eigen::Quaterniond qf = eigen(f.quat);
  const Eigen::Vector3d p = eigen(f.pos) + qf * eigen(pos);
  const Eigen::Quaterniond q = qf * eigen(quat);
  pos = {p.x(), p.y(), p.z()};
  quat = {q.w(), q.x(), q.y(), q.z()};
}

Eigen::Matrix3d matrix(const Inertia6& i) {
  Eigen::Matrix3d m;
  m << i[0], i[3], i[4], i[3], i[1], i[5], i[4], i[5], i[2];
  return m;
}

// the mass of a body at pose f in its parent's frame joined to the parent's: m = m_p + m_b,
// c = (m_p c_p + m_b c_b) / m and I = Σ_k R_k I_k R_kᵀ + m_k (|d_k|² E − d_k d_kᵀ), d_k = c_k − c,
// all in the parent's frame
MassProperties joined(const MassProperties& parent, const MassProperties& own, const Pose& f) {
  const Eigen::Matrix3d r = eigen(f.quat).toRotationMatrix();
  const Eigen::Vector3d c[2] = {eigen(parent.com), eigen(f.pos) + r * eigen(own.com)};
  const Eigen::Matrix3d inertia[2] = {matrix(parent.inertia),
                                      r * matrix(own.inertia) * r.transpose()};
  const double m[2] = {parent.mass, own.mass};
  MassProperties out;
  out.mass = m[0] + m[1];
  // MuJoCo's mjMINVAL: a smaller total is no mass at all
  if (out.mass < 1e-15) return MassProperties{};
  const Eigen::Vector3d com = (m[0] * c[0] + m[1] * c[1]) / out.mass;
  Eigen::Matrix3d total = Eigen::Matrix3d::Zero();
  for (int k = 0; k < 2; ++k) {
    const Eigen::Vector3d d = c[k] - com;
    total +=
        inertia[k] + m[k] * (d.squaredNorm() * Eigen::Matrix3d::Identity() - d * d.transpose());
  }
  out.com = {com.x(), com.y(), com.z()};
  out.inertia = {total(0, 0), total(1, 1), total(2, 2), total(1, 0), total(2, 0), total(2, 1)};
  return out;
}

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

void fuse_static(Context& ctx, pugi::xml_node root, const Compiler& c, bool fluid,
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
    try {
      check_inertia(mass[i].inertia, mass[i].mass, who);
    } catch (const ModelError& e) {
      ctx.fail(body.node, e.what());
    }
  }
  // In document order, each body after its parent, as MuJoCo merges them one by one: a merged
  // body goes into its nearest ancestor that stays (`up`), where `pose` is its frame.
  std::vector<int> up(n, 0), index(n, 0);
  std::vector<Pose> pose(n);
  std::vector<bool> stays(n, true);
  std::vector<Body> kept;
  std::vector<MassProperties> kept_mass;
  kept.push_back(std::move(bodies[0]));
  kept_mass.push_back(mass[0]);
  for (std::size_t i = 1; i < n; ++i) {
    Body& body = bodies[i];
    const int parent = body.parent;
    Pose f{body.pos, body.quat};
    up[i] = stays[parent] ? parent : up[parent];
    if (!stays[parent]) to_outer(pose[parent], f.pos, f.quat);
    pose[i] = f;
    const int owner = index[up[i]];
    // MuJoCo 4.0 keeps a body with mass where merging it would change the forces: its gravity
    // compensation differs from its parent's, or a fluid acts on each body on its own; and, where
    // geoms alone give the inertias, one whose mass or inertia a bound raised
    const bool massive = mass[i].mass >= 1e-15;
    stays[i] = !body.joints.empty() || body.mocap || !body.fuse ||
               (!body.name.empty() && references.named(body)) || references.measures_force(body) ||
               (massive && (fluid || body.gravcomp != kept[owner].gravcomp)) ||
               (c.inertiafromgeom == InertiaFromGeom::kTrue && mass[i].bounded);
    if (stays[i]) {
      body.parent = owner;
      body.pos = f.pos;
      body.quat = f.quat;
      index[i] = static_cast<int>(kept.size());
      kept.push_back(std::move(body));
      kept_mass.push_back(mass[i]);
      continue;
    }
    // the world does not move: what is welded to it adds no mass
    if (owner > 0 && mass[i].mass >= 1e-15) kept_mass[owner] = joined(kept_mass[owner], mass[i], f);
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
}

}  // namespace zwang::mjcf
