// The narrow phase of primitive pairs (kernels/narrowphase.h) against MuJoCo 2.2.2's
// mj_collision: each case is an MJCF model of two geoms (a plane in the world body, other geoms
// on free bodies so that nothing filters the pair), posed through qpos; zwang's collide runs on
// MuJoCo's geom_xpos, geom_xmat and geom_size of the two geoms with the pair's margin (the larger
// geom margin) and must return MuJoCo's contacts in MuJoCo's order: dist, pos and all nine frame
// entries within 1e-9 (measured: bit-identical, as the operations follow MuJoCo's order).  Random
// cases put the geoms near or into each other; degenerate ones take the branches random poses never
// reach (parallel capsules, a sphere centre on a capsule axis, centres that coincide, a capsule or
// cylinder lying flat on a plane, a cylinder standing on it).  The float instantiation is checked
// on the random cases to 1e-4.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <mujoco/mujoco.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "kernels/narrowphase.h"
#include "mujoco_util.h"

namespace zwang::test {
namespace {

constexpr double kTol = 1e-9;
constexpr double kFloatTol = 1e-4;

// a geom as MJCF sees it: the plane's pose is in the world body, the others' go to qpos
struct Placement {
  int type;
  std::array<double, 3> size;
  double margin;
  std::array<double, 3> pos;
  std::array<double, 4> quat;  // w, x, y, z
};

// two geoms, a.type ≤ b.type: MuJoCo's geom1 and geom2
struct Case {
  Placement a, b;
};

const char* type_name(int type) {
  static const char* names[] = {"plane",     "hfield",   "sphere", "capsule",
                                "ellipsoid", "cylinder", "box",    "mesh"};
  return names[type];
}

int size_count(int type) {
  return type == kGeomSphere ? 1 : (type == kGeomBox || type == kGeomPlane ? 3 : 2);
}

std::string geom_xml(const Placement& p, bool pose) {
  std::string size;
  for (int i = 0; i < size_count(p.type); ++i) size += fmt::format("{:.17g} ", p.size[i]);
  std::string xml = fmt::format(R"(<geom type="{}" size="{}" margin="{:.17g}")", type_name(p.type),
                                size, p.margin);
  if (pose) {
    xml += fmt::format(R"( pos="{:.17g} {:.17g} {:.17g}" quat="{:.17g} {:.17g} {:.17g} {:.17g}")",
                       p.pos[0], p.pos[1], p.pos[2], p.quat[0], p.quat[1], p.quat[2], p.quat[3]);
  }
  return xml + "/>";
}

std::string mjcf(const Case& c) {
  std::string xml = "<mujoco><worldbody>\n";
  for (const Placement* p : {&c.a, &c.b}) {
    xml += p->type == kGeomPlane ? geom_xml(*p, true)
                                 : "<body><freejoint/>" + geom_xml(*p, false) + "</body>";
    xml += "\n";
  }
  return xml + "</worldbody></mujoco>\n";
}

// MuJoCo's contacts of a case, and the inputs of zwang's collide for it
struct Oracle {
  GeomPose<double> g1, g2;
  double margin = 0;
  std::vector<ContactGeo<double>> contacts;
};

GeomPose<double> pose_of(const mjModel* m, const mjData* d, int g) {
  GeomPose<double> p;
  p.pos = {d->geom_xpos[3 * g], d->geom_xpos[3 * g + 1], d->geom_xpos[3 * g + 2]};
  std::copy(d->geom_xmat + 9 * g, d->geom_xmat + 9 * g + 9, p.mat.m);
  p.size = {m->geom_size[3 * g], m->geom_size[3 * g + 1], m->geom_size[3 * g + 2]};
  return p;
}

Oracle oracle(const Case& c) {
  Oracle o;
  std::string error;
  const MjModelPtr m = load_mujoco_string(mjcf(c), "pair.xml", &error);
  EXPECT_TRUE(m) << error;
  if (!m) return o;
  m->opt.disableflags &= ~mjDSBL_CONSTRAINT;
  const MjDataPtr d(mj_makeData(m.get()));
  int q = 0;
  for (const Placement* p : {&c.a, &c.b}) {
    if (p->type == kGeomPlane) continue;
    std::copy(p->pos.begin(), p->pos.end(), d->qpos + q);
    std::copy(p->quat.begin(), p->quat.end(), d->qpos + q + 3);
    q += 7;
  }
  mj_kinematics(m.get(), d.get());
  mj_collision(m.get(), d.get());
  // geom 0 is a, geom 1 is b, and MuJoCo puts the smaller type (then the smaller id) first
  o.g1 = pose_of(m.get(), d.get(), 0);
  o.g2 = pose_of(m.get(), d.get(), 1);
  o.margin = std::max(m->geom_margin[0], m->geom_margin[1]);
  for (int i = 0; i < d->ncon; ++i) {
    const mjContact& con = d->contact[i];
    EXPECT_EQ(con.geom1, 0);
    EXPECT_EQ(con.geom2, 1);
    ContactGeo<double> g;
    g.dist = con.dist;
    g.pos = {con.pos[0], con.pos[1], con.pos[2]};
    std::copy(con.frame, con.frame + 9, g.frame.m);
    o.contacts.push_back(g);
  }
  return o;
}

template <class T>
GeomPose<T> cast(const GeomPose<double>& p) {
  GeomPose<T> q;
  q.pos = {T(p.pos.x), T(p.pos.y), T(p.pos.z)};
  for (int i = 0; i < 9; ++i) q.mat.m[i] = T(p.mat.m[i]);
  q.size = {T(p.size.x), T(p.size.y), T(p.size.z)};
  return q;
}

// zwang's contacts for MuJoCo's inputs, in T
template <class T>
std::vector<ContactGeo<T>> zwang_contacts(const Case& c, const Oracle& o) {
  std::vector<ContactGeo<T>> out;
  const int n = collide(c.a.type, c.b.type, cast<T>(o.g1), cast<T>(o.g2), T(o.margin),
                        [&](const ContactGeo<T>& g) { out.push_back(g); });
  EXPECT_EQ(n, std::ssize(out));
  EXPECT_LE(n, max_contacts(c.a.type, c.b.type));
  return out;
}

// the largest |zwang − MuJoCo| of dist, pos and frame over contacts of equal counts
struct Errors {
  double dist = 0, pos = 0, frame = 0;
  int cases = 0, touching = 0, several = 0, count_mismatch = 0;
};

template <class T>
void compare(const std::vector<ContactGeo<T>>& zw, const Oracle& o, double tol, Errors& e,
             const std::string& where, bool expect_counts) {
  ++e.cases;
  e.touching += !o.contacts.empty();
  e.several += o.contacts.size() > 1;
  if (zw.size() != o.contacts.size()) {
    ++e.count_mismatch;
    EXPECT_FALSE(expect_counts) << where << ": zwang " << zw.size() << " contacts, MuJoCo "
                                << o.contacts.size();
    return;
  }
  for (std::size_t i = 0; i < zw.size(); ++i) {
    const ContactGeo<double>& m = o.contacts[i];
    const ContactGeo<T>& z = zw[i];
    const double dd = std::abs(double(z.dist) - m.dist);
    const double dp =
        std::max({std::abs(double(z.pos.x) - m.pos.x), std::abs(double(z.pos.y) - m.pos.y),
                  std::abs(double(z.pos.z) - m.pos.z)});
    double df = 0;
    for (int k = 0; k < 9; ++k) df = std::max(df, std::abs(double(z.frame.m[k]) - m.frame.m[k]));
    e.dist = std::max(e.dist, dd);
    e.pos = std::max(e.pos, dp);
    e.frame = std::max(e.frame, df);
    EXPECT_LE(std::max({dd, dp, df}), tol) << fmt::format(
        "{} contact {}: dist {:.17g} / {:.17g}, error dist {:.3g} pos {:.3g} frame "
        "{:.3g}",
        where, i, double(z.dist), m.dist, dd, dp, df);
  }
}

// random geoms -------------------------------------------------------------------------------

using Rng = std::mt19937_64;

double uniform(Rng& rng, double lo, double hi) {
  return std::uniform_real_distribution<double>(lo, hi)(rng);
}

std::array<double, 4> random_quat(Rng& rng) {
  std::normal_distribution<double> normal(0, 1);
  std::array<double, 4> q;
  double n = 0;
  for (double& x : q) {
    x = normal(rng);
    n += x * x;
  }
  for (double& x : q) x /= std::sqrt(n);
  return q;
}

Vec3<double> random_unit(Rng& rng) {
  const auto q = random_quat(rng);
  return {q[1], q[2], q[3]};
}

Vec3<double> axis(const std::array<double, 4>& q, int c) {
  return column(to_mat(Quat<double>{q[0], q[1], q[2], q[3]}), c);
}

std::array<double, 3> arr(const Vec3<double>& v) {
  return {v.x, v.y, v.z};
}
Vec3<double> vec(const std::array<double, 3>& a) {
  return {a[0], a[1], a[2]};
}

// a geom of `type` with random size, margin (zero in half the cases) and orientation
Placement random_geom(int type, Rng& rng) {
  Placement p{type, {}, 0, {}, random_quat(rng)};
  if (type == kGeomPlane) {
    p.size = {5, 5, 0.1};
  } else if (type == kGeomBox) {
    for (double& s : p.size) s = uniform(rng, 0.05, 0.5);
  } else {
    p.size = {uniform(rng, 0.05, 0.4), uniform(rng, 0.05, 0.6), 0};
  }
  p.margin = uniform(rng, 0, 1) < 0.5 ? 0.0 : uniform(rng, 0, 0.1);
  p.pos = {uniform(rng, -0.5, 0.5), uniform(rng, -0.5, 0.5), uniform(rng, -0.5, 0.5)};
  return p;
}

// half-width of the geom along the unit n
double extent(const Placement& p, const Vec3<double>& n) {
  const double an = std::abs(dot(axis(p.quat, 2), n));
  switch (p.type) {
    case kGeomSphere:
      return p.size[0];
    case kGeomCapsule:
      return p.size[0] + p.size[1] * an;
    case kGeomCylinder:
      return p.size[0] * std::sqrt(std::max(0.0, 1 - an * an)) + p.size[1] * an;
    default:
      return p.size[0] * std::abs(dot(axis(p.quat, 0), n)) +
             p.size[1] * std::abs(dot(axis(p.quat, 1), n)) + p.size[2] * an;
  }
}

// the geom's centre at a height around its extent above a random plane, some below it
Case plane_case(int type, Rng& rng) {
  Case c{random_geom(kGeomPlane, rng), random_geom(type, rng)};
  const Vec3<double> n = axis(c.a.quat, 2);
  Vec3<double> t = random_unit(rng);
  t = t - dot(t, n) * n;
  const double margin = std::max(c.a.margin, c.b.margin);
  const double height = extent(c.b, n) * uniform(rng, -0.3, 1.5) + margin * uniform(rng, 0, 1.5);
  c.b.pos = arr(vec(c.a.pos) + uniform(rng, 0, 0.5) * t + height * n);
  return c;
}

// a point of geom a (its centre, or a point of a capsule's segment, a bit past the ends too),
// then geom b's at about the sum of the radii from it
Case pair_case(int t1, int t2, Rng& rng) {
  Case c{random_geom(t1, rng), random_geom(t2, rng)};
  auto segment_point = [&](const Placement& p) {
    const double x = p.type == kGeomCapsule ? uniform(rng, -1.2, 1.2) * p.size[1] : 0;
    return x * axis(p.quat, 2);
  };
  const Vec3<double> p1 = vec(c.a.pos) + segment_point(c.a);
  const double reach = (c.a.size[0] + c.b.size[0]) * uniform(rng, 0.3, 1.5) +
                       std::max(c.a.margin, c.b.margin) * uniform(rng, 0, 1.5);
  const Vec3<double> p2 = p1 + reach * random_unit(rng);
  c.b.pos = arr(p2 - segment_point(c.b));
  return c;
}

std::vector<Case> random_cases(int t1, int t2, int count, std::uint64_t seed) {
  Rng rng(seed);
  std::vector<Case> cases;
  for (int i = 0; i < count; ++i) {
    cases.push_back(t1 == kGeomPlane ? plane_case(t2, rng) : pair_case(t1, t2, rng));
  }
  return cases;
}

// quaternion product a ⊗ b
std::array<double, 4> qmul(const std::array<double, 4>& a, const std::array<double, 4>& b) {
  const Quat<double> r =
      mul(Quat<double>{a[0], a[1], a[2], a[3]}, Quat<double>{b[0], b[1], b[2], b[3]});
  return {r.w, r.x, r.y, r.z};
}

constexpr std::array<double, 4> kIdentity{1, 0, 0, 0};

// both sets of cases against MuJoCo in double, the random ones also in float; returns the
// degenerate cases' tally
Errors check_pair(int t1, int t2, const std::vector<Case>& degenerate, double min_touching) {
  const std::string name = fmt::format("{}-{}", type_name(t1), type_name(t2));
  const std::vector<Case> cases = random_cases(t1, t2, 400, 1000 * t1 + t2);
  Errors random, special, single;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const Oracle o = oracle(cases[i]);
    const std::string where = fmt::format("{} random case {}\n{}", name, i, mjcf(cases[i]));
    compare(zwang_contacts<double>(cases[i], o), o, kTol, random, where, true);
    compare(zwang_contacts<float>(cases[i], o), o, kFloatTol, single, where, false);
  }
  for (std::size_t i = 0; i < degenerate.size(); ++i) {
    const Oracle o = oracle(degenerate[i]);
    const std::string where =
        fmt::format("{} degenerate case {}\n{}", name, i, mjcf(degenerate[i]));
    compare(zwang_contacts<double>(degenerate[i], o), o, kTol, special, where, true);
  }
  fmt::print(
      "{}: random {} cases, {} touching, {} with several contacts; max error dist {:.2g} pos "
      "{:.2g} frame {:.2g}; degenerate {} cases, {} touching, {} with several contacts, max error "
      "dist {:.2g} pos {:.2g} frame {:.2g}; float: {} count mismatches, max error dist {:.2g} pos "
      "{:.2g} frame {:.2g}\n",
      name, random.cases, random.touching, random.several, random.dist, random.pos, random.frame,
      special.cases, special.touching, special.several, special.dist, special.pos, special.frame,
      single.count_mismatch, single.dist, single.pos, single.frame);
  // the random cases must exercise both outcomes, and multi-contact pairs their extra contacts
  EXPECT_GE(random.touching, min_touching * random.cases) << name;
  EXPECT_LT(random.touching, random.cases) << name;
  if (max_contacts(t1, t2) > 1 && t1 == kGeomPlane) {
    EXPECT_GT(random.several, 0) << name;
  }
  // float may see another count only where a contact sits at the margin to rounding
  EXPECT_LE(single.count_mismatch, random.cases / 100) << name;
  for (const Case& c : degenerate) EXPECT_TRUE(c.a.type == t1 && c.b.type == t2);
  return special;
}

// a geom with its centre at `height` above the plane z = 0
Case on_flat_plane(int type, std::array<double, 3> size, std::array<double, 4> quat, double height,
                   double margin) {
  return {{kGeomPlane, {5, 5, 0.1}, margin, {0, 0, 0}, kIdentity},
          {type, size, 0, {0.125, -0.25, height}, quat}};
}

TEST(Collision, PlaneSphere) {
  std::vector<Case> special;
  // 0.375: dist is the margin exactly, which MuJoCo keeps
  for (double h : {0.25, 0.3, 0.3125, 0.375, 0.5}) {
    special.push_back(on_flat_plane(kGeomSphere, {0.3125, 0, 0}, kIdentity, h, 0.0625));
  }
  check_pair(kGeomPlane, kGeomSphere, special, 0.5);
}

TEST(Collision, PlaneCapsule) {
  // lying flat (axis along x or y): both ends touch with the same dist; standing on one end
  const double s = std::sqrt(0.5);
  std::vector<Case> special;
  for (double h : {0.1, 0.125, 0.2, 0.25}) {
    special.push_back(on_flat_plane(kGeomCapsule, {0.125, 0.5, 0}, {s, 0, s, 0}, h, 0.0));
    special.push_back(on_flat_plane(kGeomCapsule, {0.125, 0.5, 0}, {s, s, 0, 0}, h, 0.05));
    special.push_back(on_flat_plane(kGeomCapsule, {0.125, 0.25, 0}, kIdentity, h + 0.25, 0.0));
  }
  EXPECT_GE(check_pair(kGeomPlane, kGeomCapsule, special, 0.5).several, 4);
}

TEST(Collision, PlaneCylinder) {
  // standing (disks parallel to the plane: the rim point is along the cylinder's x axis), lying
  // flat, and tilted a little
  const double s = std::sqrt(0.5);
  std::vector<Case> special;
  for (double h : {0.2, 0.25, 0.3}) {
    special.push_back(on_flat_plane(kGeomCylinder, {0.125, 0.25, 0}, kIdentity, h, 0.0));
    special.push_back(on_flat_plane(kGeomCylinder, {0.125, 0.25, 0}, {0, 1, 0, 0}, h, 0.0));
    special.push_back(on_flat_plane(kGeomCylinder, {0.125, 0.25, 0}, {s, s, 0, 0}, h - 0.1, 0.0));
    special.push_back(
        on_flat_plane(kGeomCylinder, {0.125, 0.25, 0}, {0.999, 0.02, 0.03, 0}, h, 0.0));
    // the far disk within the margin too
    special.push_back(on_flat_plane(kGeomCylinder, {0.25, 0.0625, 0}, kIdentity, h - 0.1, 0.2));
  }
  EXPECT_GE(check_pair(kGeomPlane, kGeomCylinder, special, 0.5).several, 4);
}

TEST(Collision, PlaneBox) {
  std::vector<Case> special;
  for (double h : {0.2, 0.25, 0.3}) {
    special.push_back(on_flat_plane(kGeomBox, {0.5, 0.25, 0.25}, kIdentity, h, 0.0));
    special.push_back(on_flat_plane(kGeomBox, {0.5, 0.25, 0.25}, {0, 0, 0, 1}, h, 0.1));
    special.push_back(on_flat_plane(kGeomBox, {0.5, 0.25, 0.25}, {0.9, 0, 0, 0.1}, h, 0.0));
  }
  EXPECT_GE(check_pair(kGeomPlane, kGeomBox, special, 0.5).several, 4);
}

TEST(Collision, SphereSphere) {
  // coincident centres: n from the z axes' cross product, e_x when they are parallel
  Rng rng(4);
  std::vector<Case> special;
  for (int i = 0; i < 4; ++i) {
    Case c{random_geom(kGeomSphere, rng), random_geom(kGeomSphere, rng)};
    c.b.pos = c.a.pos;
    if (i % 2 == 0) c.a.quat = c.b.quat = kIdentity;
    special.push_back(c);
  }
  check_pair(kGeomSphere, kGeomSphere, special, 0.5);
  // MuJoCo took the coincident-centre branch: parallel z axes give n = e_x
  const Oracle o = oracle(special[0]);
  ASSERT_EQ(o.contacts.size(), 1u);
  EXPECT_EQ(o.contacts[0].frame.m[0], 1.0);
}

TEST(Collision, SphereCapsule) {
  // sphere centres exactly on the axis (dyadic numbers, so the nearest point is the centre)
  Rng rng(5);
  std::vector<Case> special;
  for (double x : {-0.75, -0.25, 0.0, 0.25, 0.5, 1.0}) {
    for (bool turned : {false, true}) {
      const Placement cap{kGeomCapsule, {0.125, 0.5, 0}, 0, {0.125, -0.25, 0.5}, kIdentity};
      Placement sphere{kGeomSphere, {0.25, 0, 0}, 0.01, {0.125, -0.25, 0.5 + x}, kIdentity};
      if (turned) sphere.quat = random_quat(rng);
      special.push_back({sphere, cap});
    }
  }
  check_pair(kGeomSphere, kGeomCapsule, special, 0.5);
  // MuJoCo took the coincident-centre branch at x = 0.25: parallel z axes give n = e_x
  const Oracle o = oracle(special[6]);
  ASSERT_EQ(o.contacts.size(), 1u);
  EXPECT_EQ(o.contacts[0].frame.m[0], 1.0);
}

TEST(Collision, CapsuleCapsule) {
  // parallel and antiparallel axes, side by side with the segments overlapping or not, crossing
  // axes, and one segment along the other
  Rng rng(6);
  std::vector<Case> special;
  for (int i = 0; i < 24; ++i) {
    const auto q = i < 8 ? kIdentity : random_quat(rng);
    const Vec3<double> z = axis(q, 2), x = axis(q, 0);
    Placement a{kGeomCapsule, {0.125, 0.5, 0}, 0.0, {0.125, -0.25, 0.5}, q};
    Placement b{kGeomCapsule, {0.25, 0.25, 0}, i % 3 == 0 ? 0.05 : 0.0, {}, q};
    if (i % 2 == 1) b.quat = qmul(q, {0, 1, 0, 0});  // antiparallel
    const double shift = 0.25 * (i % 6) - 0.5;
    b.pos = arr(vec(a.pos) + 0.3 * x + shift * z);
    special.push_back({a, b});
  }
  for (double shift : {0.0, 0.5, 0.875}) {
    Placement a{kGeomCapsule, {0.125, 0.5, 0}, 0.0, {0.125, -0.25, 0.5}, kIdentity};
    Placement b{kGeomCapsule, {0.125, 0.25, 0}, 0.0, {0.125, -0.25, 0.5 + shift}, kIdentity};
    special.push_back({a, b});
    const double s = std::sqrt(0.5);
    b.quat = {s, s, 0, 0};
    special.push_back({a, b});
  }
  EXPECT_GE(check_pair(kGeomCapsule, kGeomCapsule, special, 0.5).several, 8);
}

// pairs MuJoCo 2.2.2 hands to libccd or height fields: nothing here
TEST(Collision, UnsupportedPairs) {
  const GeomPose<double> g{{0, 0, 0}, {{1, 0, 0, 0, 1, 0, 0, 0, 1}}, {0.5, 0.5, 0.5}};
  int calls = 0;
  auto count = [&](const ContactGeo<double>&) { ++calls; };
  for (int t1 = 0; t1 < 8; ++t1) {
    for (int t2 = t1; t2 < 8; ++t2) {
      const bool primitive = (t1 == kGeomPlane && (t2 == kGeomSphere || t2 == kGeomCapsule ||
                                                   t2 == kGeomCylinder || t2 == kGeomBox)) ||
                             (t1 == kGeomSphere && (t2 == kGeomSphere || t2 == kGeomCapsule)) ||
                             (t1 == kGeomCapsule && t2 == kGeomCapsule);
      const bool box =
          t2 == kGeomBox && (t1 == kGeomSphere || t1 == kGeomCapsule || t1 == kGeomBox);
      if (primitive || box) continue;
      EXPECT_EQ(max_contacts(t1, t2), 0) << type_name(t1) << "-" << type_name(t2);
      EXPECT_EQ(collide(t1, t2, g, g, 1.0, count), 0) << type_name(t1) << "-" << type_name(t2);
    }
  }
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(max_contacts(kGeomPlane, kGeomSphere), 1);
  EXPECT_EQ(max_contacts(kGeomPlane, kGeomCapsule), 2);
  EXPECT_EQ(max_contacts(kGeomPlane, kGeomCylinder), 4);
  EXPECT_EQ(max_contacts(kGeomPlane, kGeomBox), 4);
  EXPECT_EQ(max_contacts(kGeomSphere, kGeomSphere), 1);
  EXPECT_EQ(max_contacts(kGeomSphere, kGeomCapsule), 1);
  EXPECT_EQ(max_contacts(kGeomCapsule, kGeomCapsule), 2);
}

}  // namespace
}  // namespace zwang::test
