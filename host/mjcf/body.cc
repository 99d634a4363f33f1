// The MJCF body tree (<worldbody>, <body>, <joint>, <freejoint>, <geom>, <inertial>) and the
// mass, centre of mass and inertia of each body, by MuJoCo 2.2.2's rules.
#include "host/mjcf/body.hpp"

#include <fmt/format.h>

#include <Eigen/Eigenvalues>
#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <numbers>

#include "host/load/body_merge.hpp"

namespace zwang::mjcf {

namespace {

constexpr double kPi = std::numbers::pi;

// the frame fromto gives a geom or a site (`element`): centred on the segment, z along
// from − to; returns the segment's length.  MuJoCo refuses it for other shapes and beside a pos,
// its class's included.
template <class Def>
double fromto_frame(Attrs& a, const char* element, Def& g) {
  const std::array<double, 6>& f = *g.fromto;
  if (g.type != GeomType::kCapsule && g.type != GeomType::kCylinder && g.type != GeomType::kBox &&
      g.type != GeomType::kEllipsoid) {
    a.fail(fmt::format("{} fromto needs a capsule, cylinder, box or ellipsoid, not a {}", element,
                       zwang::to_string(g.type)));
  }
  if (g.pos[0] != 0 || g.pos[1] != 0 || g.pos[2] != 0) {
    a.fail(fmt::format("{} has both fromto and pos ({} {} {})", element, g.pos[0], g.pos[1],
                       g.pos[2]));
  }
  const Vec3d d{f[0] - f[3], f[1] - f[4], f[2] - f[5]};
  const double length = std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  if (length < 1e-14) a.fail(fmt::format("{} fromto: the two points coincide", element));
  g.pos = {(f[0] + f[3]) / 2, (f[1] + f[4]) / 2, (f[2] + f[5]) / 2};
  g.quat = z_to(d);
  return length;
}

// fromto: a geom or site is centred on the segment with its z axis along from − to (MuJoCo
// 2.2.2's sign); the segment is 2 size[1] long for a capsule or cylinder, 2 size[2] for a box or
// ellipsoid, which take size[0] across both other axes
template <class Def>
void apply_fromto(Attrs& a, const char* element, Def& g) {
  const double length = fromto_frame(a, element, g);
  if (g.type == GeomType::kCapsule || g.type == GeomType::kCylinder) {
    g.size[1] = length / 2;
  } else {
    g.size[1] = g.size[0];
    g.size[2] = length / 2;
  }
}

}  // namespace

// the size values a shape needs, all positive; a plane's third (its grid spacing), as MuJoCo
void check_geom_size(Attrs& a, const GeomDef& g) {
  int needed = 0;
  std::string_view meaning;
  switch (g.type) {
    case GeomType::kPlane:
      if (!(g.size[2] > 0)) {
        a.fail(
            fmt::format("<geom> of type plane needs a positive third size value (grid "
                        "spacing); size is {} {} {}",
                        g.size[0], g.size[1], g.size[2]));
      }
      return;
    case GeomType::kSphere:
      needed = 1, meaning = "radius";
      break;
    case GeomType::kCapsule:
    case GeomType::kCylinder:
      needed = 2, meaning = "radius, half-length";
      break;
    case GeomType::kBox:
      needed = 3, meaning = "three half-sizes";
      break;
    case GeomType::kEllipsoid:
      needed = 3, meaning = "three radii";
      break;
    default:
      return;
  }
  for (int i = 0; i < needed; ++i) {
    if (!(g.size[i] > 0)) {
      a.fail(fmt::format("<geom> of type {} needs {} positive size value{} ({}); size is {} {} {}",
                         zwang::to_string(g.type), needed, needed == 1 ? "" : "s", meaning,
                         g.size[0], g.size[1], g.size[2]));
    }
  }
}

namespace {

// what an element zwang cannot read would have added to the model
std::string_view generates(std::string_view tag) {
  if (tag == "frame") return "places the bodies, joints, geoms and sites inside it";
  if (tag == "attach") return "attaches the bodies of another model";
  if (tag == "replicate") return "repeats the bodies inside it";
  return "generates bodies and joints";
}

class TreeReader {
 public:
  TreeReader(Context& ctx, const Defaults& defaults, const Compiler& c)
      : ctx_(ctx), defaults_(defaults), c_(c) {}

  std::vector<Body> read(std::span<const pugi::xml_node> worldbodies) {
    bodies_.assign(1, Body{});
    bodies_[0].name = "world";
    for (const pugi::xml_node node : worldbodies) {
      if (!bodies_[0].node) bodies_[0].node = node;
      Attrs a(ctx_, node);
      a.finish();
      walk(ctx_.children(node));
    }
    return std::move(bodies_);
  }

 private:
  // the children of a body still to be read, with the class its elements default to
  struct Level {
    std::vector<pugi::xml_node> children;
    std::size_t next = 0;
    int body = 0;
    std::string active;
  };

  // depth first in document order, on a stack of our own rather than the call stack, which a
  // deep chain of bodies would overflow
  void walk(std::vector<pugi::xml_node> children) {
    std::vector<Level> stack;
    stack.push_back({std::move(children), 0, 0, "main"});
    while (!stack.empty()) {
      Level& level = stack.back();
      if (level.next == level.children.size()) {
        stack.pop_back();
        continue;
      }
      const pugi::xml_node node = level.children[level.next++];
      const int b = level.body;
      const std::string_view tag = node.name();
      if (tag == "body") {
        stack.push_back(body(node, b, level.active));
      } else if (tag == "joint" || tag == "freejoint") {
        joint(node, b, level.active);
      } else if (tag == "geom") {
        geom(node, b, level.active);
      } else if (tag == "inertial") {
        inertial(node, b);
      } else if (tag == "site") {
        site(node, b, level.active);
      } else if (tag == "camera" || tag == "light") {
        // rendering: no effect on the dynamics
        continue;
      } else if (tag == "composite" || tag == "flexcomp" || tag == "replicate" || tag == "frame" ||
                 tag == "attach") {
        // these make bodies, joints or actuators: leaving them out would change the layout
        ctx_.fail(node, fmt::format("element <{}> is not supported: it {} (expand it into bodies, "
                                    "joints and geoms, e.g. by saving the model from MuJoCo)",
                                    tag, generates(tag)));
      } else {
        ctx_.unsupported(node);
      }
    }
  }

  // the body's own attributes; its children are read next
  Level body(pugi::xml_node node, int parent, const std::string& active) {
    Attrs a(ctx_, node);
    Body b;
    b.node = node;
    b.parent = parent;
    b.name = a.text("name").value_or("");
    std::string cls = active;
    if (const auto childclass = a.text("childclass")) {
      defaults_.named(node, *childclass);
      cls = *childclass;
    }
    a.exact("pos", b.pos);
    if (const auto q = read_orientation(a, c_)) b.quat = *q;
    b.mocap = a.boolean("mocap").value_or(false);
    b.gravcomp = a.number("gravcomp").value_or(0);
    if (const auto fuse = a.keyword("fuse", {"false", "auto"})) b.fuse = *fuse == 1;
    a.ignore({"user"});
    a.finish();
    std::vector<pugi::xml_node> children = ctx_.children(node);
    const bool has_joint = std::any_of(children.begin(), children.end(), [](pugi::xml_node n) {
      const std::string_view t = n.name();
      return t == "joint" || t == "freejoint";
    });
    b.is_static = bodies_[parent].is_static && !has_joint;
    const int index = static_cast<int>(bodies_.size());
    bodies_.push_back(std::move(b));
    return {std::move(children), 0, index, std::move(cls)};
  }

  void joint(pugi::xml_node node, int b, const std::string& active) {
    Attrs a(ctx_, node);
    if (b == 0) a.fail(fmt::format("<{}> cannot move the world; put it in a <body>", a.tag()));
    Joint j;
    j.node = node;
    j.name = a.text("name").value_or("");
    if (a.tag() == "freejoint") {
      // a free joint of its own: no class applies
      j.def.type = JointType::kFree;
      a.ignore({"group"});
    } else {
      j.def = defaults_.of(a, active).joint;
      read_joint(a, j.def);
    }
    a.finish();
    bodies_[b].joints.push_back(std::move(j));
  }

  // a site's frame; fromto centres it on the segment with its z axis along from − to, as a geom
  void site(pugi::xml_node node, int b, const std::string& active) {
    Attrs a(ctx_, node);
    Site s;
    s.node = node;
    s.name = a.text("name").value_or("");
    s.def = defaults_.of(a, active).site;
    read_site(a, s.def, c_);
    a.finish();
    if (s.def.fromto) apply_fromto(a, "<site>", s.def);
    bodies_[b].sites.push_back(std::move(s));
  }

  void geom(pugi::xml_node node, int b, const std::string& active) {
    Attrs a(ctx_, node);
    Geom g;
    g.node = node;
    g.name = a.text("name").value_or("");
    g.def = defaults_.of(a, active).geom;
    read_geom(a, g.def, c_);
    a.finish();
    if (!g.def.mesh.empty() && g.def.fromto) {
      a.fail(fmt::format("<geom> with mesh '{}' cannot have fromto", g.def.mesh));
    }
    if (g.def.type == GeomType::kMesh && g.def.mesh.empty()) {
      a.fail("<geom> of type mesh needs the attribute 'mesh'");
    }
    if (g.def.fromto) apply_fromto(a, "<geom>", g.def);
    // a mesh gives the size of a mesh geom, and of a primitive fitted to it (Meshes::apply); a
    // height field that of its geom (HFields::apply)
    if (g.def.mesh.empty() && g.def.type != GeomType::kHfield) check_geom_size(a, g.def);
    if (g.def.type == GeomType::kPlane && !bodies_[b].is_static) {
      a.fail("a plane geom can only be used in the world or in a body welded to it");
    }
    if (g.def.condim != 1 && g.def.condim != 3 && g.def.condim != 4 && g.def.condim != 6) {
      a.fail(fmt::format("<geom> condim {} is not 1, 3, 4 or 6", g.def.condim));
    }
    bodies_[b].geoms.push_back(std::move(g));
  }

  // pos and mass are required; the inertia is diaginertia in the frame of the orientation, or
  // fullinertia (xx yy zz xy xz yz) in the body frame, or zero
  void inertial(pugi::xml_node node, int b) {
    Attrs a(ctx_, node);
    if (b == 0) a.fail("the world has no <inertial>");
    if (bodies_[b].inertial) a.fail("a body has at most one <inertial>");
    Inertial in;
    in.node = node;
    if (!a.has("pos")) a.fail("<inertial> needs the attribute 'pos'");
    if (!a.has("mass")) a.fail("<inertial> needs the attribute 'mass'");
    a.exact("pos", in.pos);
    in.mass = *a.number("mass");
    if (in.mass < 0) a.fail(fmt::format("<inertial> mass {} is negative", in.mass));
    const bool full = a.has("fullinertia");
    if (full && (a.has("diaginertia") || a.has("quat") || a.has("axisangle") || a.has("euler") ||
                 a.has("xyaxes") || a.has("zaxis"))) {
      a.fail(
          "<inertial> fullinertia gives the orientation itself; it cannot be combined with "
          "diaginertia or an orientation");
    }
    if (full) {
      a.exact("fullinertia", in.inertia);
    } else {
      const Quatd q = read_orientation(a, c_).value_or(Quatd{1, 0, 0, 0});
      std::array<double, 3> diag{0, 0, 0};
      a.exact("diaginertia", diag);
      in.inertia = inertia_from_principal(diag, q);
      in.iquat = q;
    }
    a.finish();
    bodies_[b].inertial = in;
  }

  Context& ctx_;
  const Defaults& defaults_;
  const Compiler& c_;
  std::vector<Body> bodies_;
};

// ---------------------------------------------------------------------------------------------
// mass properties

struct GeomMass {
  double mass = 0;
  Vec3d principal{0, 0, 0};  // moments about the geom's own axes
};

// uniform density ρ (from `mass` when given: ρ = mass / volume); the moments of each shape
// about its centre, with a capsule as a cylinder of length L = 2 half-length plus a sphere split
// into two hemispheres at its ends, each moved by the parallel-axis theorem; a mesh's those of
// its equivalent box (b its half-sizes) on the volume MuJoCo spreads the mass over
GeomMass geom_mass(const Geom& geom) {
  const GeomDef& g = geom.def;
  const double r = g.size[0], a = g.size[0], b = g.size[1], c = g.size[2];
  double volume = 0;
  switch (g.type) {
    case GeomType::kMesh:
      volume = geom.mesh->volume;
      break;
    case GeomType::kSphere:
      volume = 4 * kPi * r * r * r / 3;
      break;
    case GeomType::kCapsule:
      volume = kPi * r * r * 2 * b + 4 * kPi * r * r * r / 3;
      break;
    case GeomType::kCylinder:
      volume = kPi * r * r * 2 * b;
      break;
    case GeomType::kEllipsoid:
      volume = 4 * kPi * a * b * c / 3;
      break;
    case GeomType::kBox:
    case GeomType::kHfield:  // MuJoCo's: the box of its geom_size
      volume = 8 * a * b * c;
      break;
    default:
      break;
  }
  const double density = g.mass >= 0 ? (volume > 0 ? g.mass / volume : 0) : g.density;
  GeomMass out;
  out.mass = density * volume;
  const double m = out.mass;
  switch (g.type) {
    case GeomType::kSphere:
      out.principal.fill(0.4 * m * r * r);
      break;
    case GeomType::kCapsule: {
      // cylinder m_c (3 r² + L²)/12 across, m_c r²/2 along; hemispheres m_s (2r²/5 + L²/4 + 3Lr/8)
      // across, m_s 2r²/5 along
      const double length = 2 * b;
      const double mc = density * kPi * r * r * length;
      const double ms = density * 4 * kPi * r * r * r / 3;
      const double across = mc * (3 * r * r + length * length) / 12 +
                            ms * (0.4 * r * r + length * length / 4 + 3 * length * r / 8);
      out.principal = {across, across, mc * r * r / 2 + ms * 0.4 * r * r};
      break;
    }
    case GeomType::kCylinder: {
      const double length = 2 * b;
      const double across = m * (3 * r * r + length * length) / 12;
      out.principal = {across, across, m * r * r / 2};
      break;
    }
    case GeomType::kEllipsoid:
      out.principal = {m * (b * b + c * c) / 5, m * (a * a + c * c) / 5, m * (a * a + b * b) / 5};
      break;
    case GeomType::kBox:
    case GeomType::kHfield:
      out.principal = {m * (b * b + c * c) / 3, m * (a * a + c * c) / 3, m * (a * a + b * b) / 3};
      break;
    case GeomType::kMesh: {
      const Vec3d& x = geom.mesh->box;
      out.principal = {m * (x[1] * x[1] + x[2] * x[2]) / 3, m * (x[0] * x[0] + x[2] * x[2]) / 3,
                       m * (x[0] * x[0] + x[1] * x[1]) / 3};
      break;
    }
    default:
      break;
  }
  return out;
}

// Σ_g [R_g diag(I_g) R_gᵀ + m_g (|d|² E − d dᵀ)], d = p_g − com
MassProperties from_geoms(Context& ctx, const Body& body, const Compiler& c) {
  std::vector<const Geom*> used;
  for (const Geom& g : body.geoms) {
    if (g.def.group >= c.inertiagrouprange[0] && g.def.group <= c.inertiagrouprange[1]) {
      used.push_back(&g);
    }
  }
  MassProperties out;
  std::vector<GeomMass> masses;
  std::vector<Vec3d> pos;
  std::vector<Quatd> quat;
  for (const Geom* g : used) {
    // MuJoCo 2.2.2 looks at a mesh's inertia only where a geom's mass is not zero
    if (g->mesh && !g->mesh->defect.empty() && g->def.mass != 0) {
      ctx.fail(g->node, g->mesh->defect);
    }
    masses.push_back(geom_mass(*g));
    out.mass += masses.back().mass;
    // where the geom's mass sits: its frame, or a mesh shell's within it
    Vec3d p = g->def.pos;
    Quatd q = g->def.quat;
    if (g->mesh) {
      const Eigen::Quaterniond r(q[0], q[1], q[2], q[3]);
      const Eigen::Vector3d d =
          r * Eigen::Vector3d(g->mesh->pos[0], g->mesh->pos[1], g->mesh->pos[2]);
      const Eigen::Quaterniond rq = r * Eigen::Quaterniond(g->mesh->quat[0], g->mesh->quat[1],
                                                           g->mesh->quat[2], g->mesh->quat[3]);
      for (int k = 0; k < 3; ++k) p[k] += d(k);
      q = {rq.w(), rq.x(), rq.y(), rq.z()};
    }
    pos.push_back(p);
    quat.push_back(q);
  }
  if (used.size() == 1) {
    out.com = pos[0];
    out.inertia = inertia_from_principal(masses[0].principal, quat[0]);
    out.iquat = quat[0];
    return out;
  }
  if (!(out.mass > 0)) return MassProperties{};
  for (std::size_t i = 0; i < used.size(); ++i) {
    for (int k = 0; k < 3; ++k) out.com[k] += masses[i].mass * pos[i][k] / out.mass;
  }
  for (std::size_t i = 0; i < used.size(); ++i) {
    const Inertia6 own = inertia_from_principal(masses[i].principal, quat[i]);
    const double m = masses[i].mass;
    const Vec3d& p = pos[i];
    const double dx = p[0] - out.com[0], dy = p[1] - out.com[1], dz = p[2] - out.com[2];
    const Inertia6 shift{m * (dy * dy + dz * dz),
                         m * (dx * dx + dz * dz),
                         m * (dx * dx + dy * dy),
                         -m * dx * dy,
                         -m * dx * dz,
                         -m * dy * dz};
    for (int k = 0; k < 6; ++k) out.inertia[k] += own[k] + shift[k];
  }
  return out;
}

// principal moments raised to at least `bound`: V max(Λ, bound) Vᵀ
Inertia6 bound_inertia(const Inertia6& i, double bound) {
  const Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> eig(inertia_matrix(i));
  if (eig.eigenvalues().minCoeff() >= bound) return i;
  const Eigen::Vector3d principal = eig.eigenvalues().cwiseMax(bound);
  const Eigen::Matrix3d r =
      eig.eigenvectors() * principal.asDiagonal() * eig.eigenvectors().transpose();
  return {r(0, 0), r(1, 1), r(2, 2), r(1, 0), r(2, 0), r(2, 1)};
}

}  // namespace

std::vector<Body> read_bodies(Context& ctx, std::span<const pugi::xml_node> worldbodies,
                              const Defaults& defaults, const Compiler& c) {
  return TreeReader(ctx, defaults, c).read(worldbodies);
}

std::vector<MassProperties> mass_properties(Context& ctx, const std::vector<Body>& bodies,
                                            const Compiler& c) {
  std::vector<MassProperties> out(bodies.size());
  for (std::size_t b = 1; b < bodies.size(); ++b) {
    const Body& body = bodies[b];
    const bool geoms = c.inertiafromgeom == InertiaFromGeom::kTrue ||
                       (c.inertiafromgeom == InertiaFromGeom::kAuto && !body.inertial);
    if (geoms) {
      out[b] = from_geoms(ctx, body, c);
    } else if (body.inertial) {
      out[b] = {body.inertial->mass, body.inertial->pos, body.inertial->inertia,
                body.inertial->iquat};
    }
    // MuJoCo 2.2.2 puts the centre of a body that has no mass of its own at the body's pos (in
    // the body frame), which matters once boundmass gives it mass
    if (!(out[b].mass > 0) && !body.inertial) out[b].com = body.pos;
    const MassProperties own = out[b];
    out[b].mass = std::max(out[b].mass, c.boundmass);
    if (c.boundinertia > 0) out[b].inertia = bound_inertia(out[b].inertia, c.boundinertia);
    out[b].bounded = out[b].mass != own.mass || out[b].inertia != own.inertia;
  }
  if (c.settotalmass > 0) {
    double total = 0;
    for (const MassProperties& p : out) total += p.mass;
    if (!(total > 0)) ctx.fail(c.node, "settotalmass: the model has no mass to scale");
  }
  return out;
}

double set_total_mass(const Compiler& c, std::vector<MassProperties>& mass) {
  if (!(c.settotalmass > 0)) return 1;
  double total = 0;
  for (const MassProperties& p : mass) total += p.mass;
  // all of it on bodies merged into the world (fuse_static()): nothing moves to scale
  if (!(total >= 1e-15)) return 1;
  const double scale = c.settotalmass / total;
  for (std::size_t b = 1; b < mass.size(); ++b) {
    mass[b].mass *= scale;
    for (double& v : mass[b].inertia) v *= scale;
  }
  return scale;
}

}  // namespace zwang::mjcf
