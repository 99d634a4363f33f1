// The box pairs of the narrow phase (kernels/narrowphase_box.h: sphere–box, capsule–box,
// box–box) against MuJoCo 2.2.2's mj_collision.  Each case is an MJCF model of two geoms on free
// bodies (nothing filters the pair), posed through qpos, in either order in the file; zwang's
// collide_box runs on MuJoCo's geom_xpos, geom_xmat and geom_size, geom1 the smaller type as
// MuJoCo orders them, with the pair's margin (the larger geom margin).  Like MuJoCo's driver,
// the case is skipped when the bounding spheres are farther apart than the margin (MuJoCo then
// never calls the narrow phase).  The counts must agree, and each MuJoCo contact, matched with
// zwang's nearest by pos, must have dist, pos and all nine frame entries within 1e-9
// (measured: 0, MuJoCo's order of operations is kept) and come in MuJoCo's order.  Random poses
// put the geoms near or into each other; the special ones are where rounding decides: a box
// resting flat on a box (faces parallel, ties between separating axes, repeated candidates),
// edges crossing, a capsule parallel to a face, a sphere centre inside a box.  The float
// instantiation is checked on the random cases to 1e-4.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <mujoco/mujoco.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
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

using Rng = std::mt19937_64;
using Quat4 = std::array<double, 4>;  // w, x, y, z

// a geom on its own free body
struct Placement {
  int type;
  std::array<double, 3> size;
  double margin;
  std::array<double, 3> pos;
  Quat4 quat;
};

// two geoms, in the order of the MJCF file
struct Case {
  Placement a, b;
};

const char* type_name(int type) {
  return type == kGeomSphere ? "sphere" : (type == kGeomCapsule ? "capsule" : "box");
}

std::string mjcf(const Case& c) {
  std::string xml = "<mujoco><size nconmax=\"100\"/><worldbody>\n";
  for (const Placement* p : {&c.a, &c.b}) {
    const int count = p->type == kGeomSphere ? 1 : (p->type == kGeomCapsule ? 2 : 3);
    std::string size;
    for (int i = 0; i < count; ++i) size += fmt::format("{:.17g} ", p->size[i]);
    xml += fmt::format(R"(<body><freejoint/><geom type="{}" size="{}" margin="{:.17g}"/></body>)",
                       type_name(p->type), size, p->margin) +
           "\n";
  }
  return xml + "</worldbody></mujoco>\n";
}

// MuJoCo's contacts of a case and zwang's inputs for them
struct Oracle {
  int t1 = 0, t2 = 0;
  GeomPose<double> g1, g2;
  double margin = 0;
  bool filtered = false;  // MuJoCo's bounding-sphere filter rejected the pair
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
  for (int k = 0; k < 2; ++k) {
    const Placement& p = k == 0 ? c.a : c.b;
    std::copy(p.pos.begin(), p.pos.end(), d->qpos + 7 * k);
    std::copy(p.quat.begin(), p.quat.end(), d->qpos + 7 * k + 3);
  }
  mj_kinematics(m.get(), d.get());
  mj_collision(m.get(), d.get());
  // MuJoCo's geom1 has the smaller type
  const int g1 = m->geom_type[0] <= m->geom_type[1] ? 0 : 1, g2 = 1 - g1;
  o.t1 = m->geom_type[g1];
  o.t2 = m->geom_type[g2];
  o.g1 = pose_of(m.get(), d.get(), g1);
  o.g2 = pose_of(m.get(), d.get(), g2);
  o.margin = std::max(m->geom_margin[0], m->geom_margin[1]);
  const Vec3<double> gap = o.g1.pos - o.g2.pos;
  o.filtered = norm(gap) > m->geom_rbound[0] + m->geom_rbound[1] + o.margin;
  for (int i = 0; i < d->ncon; ++i) {
    const mjContact& con = d->contact[i];
    EXPECT_EQ(con.geom1, g1);
    EXPECT_EQ(con.geom2, g2);
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

template <class T>
std::vector<ContactGeo<T>> zwang_contacts(const Oracle& o) {
  std::vector<ContactGeo<T>> out;
  const int n = collide_box(o.t1, o.t2, cast<T>(o.g1), cast<T>(o.g2), T(o.margin),
                            [&](const ContactGeo<T>& g) { out.push_back(g); });
  EXPECT_EQ(n, std::ssize(out));
  EXPECT_LE(n, max_contacts_box(o.t1, o.t2));
  return out;
}

// the largest |zwang − MuJoCo| over the cases whose counts agree
struct Tally {
  double dist = 0, pos = 0, frame = 0;
  int cases = 0, touching = 0, several = 0, contacts = 0, positive = 0, most = 0;
  int filtered = 0, filtered_found = 0;  // zwang's contacts where the driver skips the pair
  int count_mismatch = 0, order_mismatch = 0;
};

template <class T>
void compare(const std::vector<ContactGeo<T>>& zw, const Oracle& o, double tol, Tally& e,
             const std::string& where, bool exact) {
  ++e.cases;
  e.touching += o.contacts.empty() ? 0 : 1;
  e.several += o.contacts.size() > 1 ? 1 : 0;
  e.contacts += static_cast<int>(o.contacts.size());
  e.most = std::max(e.most, static_cast<int>(o.contacts.size()));
  if (zw.size() != o.contacts.size()) {
    ++e.count_mismatch;
    EXPECT_FALSE(exact) << where << ": zwang " << zw.size() << " contacts, MuJoCo "
                        << o.contacts.size();
    return;
  }
  std::vector<bool> used(zw.size(), false);
  for (std::size_t i = 0; i < o.contacts.size(); ++i) {
    const ContactGeo<double>& m = o.contacts[i];
    e.positive += m.dist > 0 ? 1 : 0;
    // zwang's nearest unused contact
    std::size_t k = zw.size();
    double nearest = std::numeric_limits<double>::infinity();
    for (std::size_t j = 0; j < zw.size(); ++j) {
      const Vec3<double> z{double(zw[j].pos.x), double(zw[j].pos.y), double(zw[j].pos.z)};
      const double d = norm(z - m.pos);
      if (!used[j] && d < nearest) {
        nearest = d;
        k = j;
      }
    }
    used[k] = true;
    if (k != i) ++e.order_mismatch;
    if (exact) {
      EXPECT_EQ(k, i) << where << ": MuJoCo's contact " << i << " is zwang's " << k;
    }
    const ContactGeo<T>& z = zw[k];
    const double dd = std::abs(double(z.dist) - m.dist);
    const double dp =
        std::max({std::abs(double(z.pos.x) - m.pos.x), std::abs(double(z.pos.y) - m.pos.y),
                  std::abs(double(z.pos.z) - m.pos.z)});
    double df = 0;
    for (int f = 0; f < 9; ++f) df = std::max(df, std::abs(double(z.frame.m[f]) - m.frame.m[f]));
    e.dist = std::max(e.dist, dd);
    e.pos = std::max(e.pos, dp);
    e.frame = std::max(e.frame, df);
    EXPECT_LE(std::max({dd, dp, df}), tol) << fmt::format(
        "{} contact {}: dist {:.17g} / MuJoCo {:.17g}, error dist {:.3g} pos {:.3g} frame {:.3g}",
        where, i, double(z.dist), m.dist, dd, dp, df);
  }
}

// random poses -------------------------------------------------------------------------------

double uniform(Rng& rng, double lo, double hi) {
  return std::uniform_real_distribution<double>(lo, hi)(rng);
}

Quat4 random_quat(Rng& rng) {
  std::normal_distribution<double> normal(0, 1);
  Quat4 q;
  double n = 0;
  for (double& x : q) {
    x = normal(rng);
    n += x * x;
  }
  for (double& x : q) x /= std::sqrt(n);
  return q;
}

Vec3<double> random_unit(Rng& rng) {
  const Quat4 q = random_quat(rng);
  return (1 / std::sqrt(q[1] * q[1] + q[2] * q[2] + q[3] * q[3])) * Vec3<double>{q[1], q[2], q[3]};
}

// a ⊗ b
Quat4 qmul(const Quat4& a, const Quat4& b) {
  const Quat<double> r =
      mul(Quat<double>{a[0], a[1], a[2], a[3]}, Quat<double>{b[0], b[1], b[2], b[3]});
  return {r.w, r.x, r.y, r.z};
}

// rotation by angle about coordinate axis k
Quat4 about(int k, double angle) {
  Quat4 q{std::cos(angle / 2), 0, 0, 0};
  q[1 + k] = std::sin(angle / 2);
  return q;
}

Mat3<double> rotation(const Quat4& q) {
  return to_mat(Quat<double>{q[0], q[1], q[2], q[3]});
}

std::array<double, 3> arr(const Vec3<double>& v) {
  return {v.x, v.y, v.z};
}
Vec3<double> vec(const std::array<double, 3>& a) {
  return {a[0], a[1], a[2]};
}

constexpr Quat4 kIdentity{1, 0, 0, 0};

// a geom of `type` with random size, margin (zero in half the cases), pose
Placement random_geom(int type, Rng& rng) {
  Placement p{type, {}, 0, {}, random_quat(rng)};
  if (type == kGeomBox) {
    for (double& s : p.size) s = uniform(rng, 0.05, 0.5);
  } else {
    p.size = {uniform(rng, 0.05, 0.4), uniform(rng, 0.05, 0.6), 0};
  }
  p.margin = uniform(rng, 0, 1) < 0.5 ? 0.0 : uniform(rng, 0, 0.1);
  p.pos = {uniform(rng, -0.5, 0.5), uniform(rng, -0.5, 0.5), uniform(rng, -0.5, 0.5)};
  return p;
}

// the radius of the sphere around a geom's centre that holds it
double bound(const Placement& p) {
  return p.type == kGeomSphere ? p.size[0]
         : p.type == kGeomCapsule
             ? p.size[0] + p.size[1]
             : std::sqrt(p.size[0] * p.size[0] + p.size[1] * p.size[1] + p.size[2] * p.size[2]);
}

// geom b at 0.15 to 0.9 of the sum of the bounding radii from a, in a random direction; the
// file order is random
Case random_case(int t1, int t2, Rng& rng) {
  Case c{random_geom(t1, rng), random_geom(t2, rng)};
  const double reach = (bound(c.a) + bound(c.b)) * uniform(rng, 0.15, 0.9);
  c.b.pos = arr(vec(c.a.pos) + reach * random_unit(rng));
  if (uniform(rng, 0, 1) < 0.5) std::swap(c.a, c.b);
  return c;
}

// runs the cases in double (exact) and, when `single`, in float (counts may differ at the
// margin to rounding); prints and returns the double tally
Tally check(const std::string& name, const std::vector<Case>& cases, bool single) {
  Tally dbl, flt;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const Oracle o = oracle(cases[i]);
    if (o.filtered) {
      ++dbl.filtered;
      dbl.filtered_found += zwang_contacts<double>(o).empty() ? 0 : 1;
      EXPECT_TRUE(o.contacts.empty());
      continue;
    }
    const std::string where = fmt::format("{} case {}\n{}", name, i, mjcf(cases[i]));
    compare(zwang_contacts<double>(o), o, kTol, dbl, where, true);
    if (single) compare(zwang_contacts<float>(o), o, kFloatTol, flt, where, false);
  }
  fmt::print(
      "{}: {} cases ({} filtered by bounding spheres, {} of them with zwang contacts), {} "
      "touching, {} with several contacts, {} contacts (at most {}, {} with dist > 0); max error "
      "dist {:.2g} pos {:.2g} frame {:.2g}\n",
      name, dbl.cases, dbl.filtered, dbl.filtered_found, dbl.touching, dbl.several, dbl.contacts,
      dbl.most, dbl.positive, dbl.dist, dbl.pos, dbl.frame);
  if (single) {
    fmt::print(
        "{} float: {} count mismatches, {} out of order; max error dist {:.2g} pos {:.2g} frame "
        "{:.2g}\n",
        name, flt.count_mismatch, flt.order_mismatch, flt.dist, flt.pos, flt.frame);
    EXPECT_LE(flt.count_mismatch, flt.cases / 50) << name;
  }
  ::testing::Test::RecordProperty("max_error_" + name,
                                  fmt::format("{:.3g}", std::max({dbl.dist, dbl.pos, dbl.frame})));
  return dbl;
}

std::vector<Case> random_cases(int t1, int t2, int count, std::uint64_t seed) {
  Rng rng(seed);
  std::vector<Case> cases;
  for (int i = 0; i < count; ++i) cases.push_back(random_case(t1, t2, rng));
  return cases;
}

TEST(CollisionBox, SphereBox) {
  const Tally t = check("sphere-box", random_cases(kGeomSphere, kGeomBox, 400, 21), true);
  EXPECT_GE(t.touching, t.cases / 3);
  EXPECT_LT(t.touching, t.cases);
  EXPECT_GT(t.positive, 0);

  // centres inside the box, nearest each face in turn, and on its centre (a tie: the −x face)
  Rng rng(22);
  std::vector<Case> inside;
  for (int i = 0; i < 60; ++i) {
    Placement box = random_geom(kGeomBox, rng);
    if (i % 3 == 0) box.quat = kIdentity;
    Placement sphere = random_geom(kGeomSphere, rng);
    Vec3<double> local{uniform(rng, -0.9, 0.9) * box.size[0], uniform(rng, -0.9, 0.9) * box.size[1],
                       uniform(rng, -0.9, 0.9) * box.size[2]};
    if (i % 10 == 0) local = {0, 0, 0};
    sphere.pos = arr(vec(box.pos) + mul(rotation(box.quat), local));
    inside.push_back(i % 2 ? Case{sphere, box} : Case{box, sphere});
  }
  const Tally in = check("sphere-box inside", inside, false);
  EXPECT_EQ(in.touching, in.cases);
}

TEST(CollisionBox, CapsuleBox) {
  const Tally t = check("capsule-box", random_cases(kGeomCapsule, kGeomBox, 500, 31), true);
  EXPECT_GE(t.touching, t.cases / 3);
  EXPECT_LT(t.touching, t.cases);
  EXPECT_GT(t.several, 10);
  EXPECT_GT(t.positive, 0);
}

// a capsule lying along a face of the box (its axis along the box's x or y axis, or tilted a
// little, or a little off the face's plane), over the face or partly beyond it
TEST(CollisionBox, CapsuleParallelToFace) {
  Rng rng(32);
  std::vector<Case> cases;
  for (int i = 0; i < 200; ++i) {
    Placement box = random_geom(kGeomBox, rng);
    if (i % 4 == 0) box.quat = kIdentity;
    Placement cap = random_geom(kGeomCapsule, rng);
    // capsule z along box x (about y by 90°) or box y (about x by 90°)
    Quat4 lie = i % 2 ? about(1, std::numbers::pi / 2) : about(0, std::numbers::pi / 2);
    if (i % 3 == 1) lie = qmul(lie, about(i % 2, uniform(rng, -0.2, 0.2)));
    cap.quat = qmul(box.quat, lie);
    const double depth = uniform(rng, -0.3, 1) * 0.2 * cap.size[0];
    const Vec3<double> local{uniform(rng, -1.2, 1.2) * box.size[0],
                             uniform(rng, -1.2, 1.2) * box.size[1],
                             box.size[2] + cap.size[0] - depth};
    cap.pos = arr(vec(box.pos) + mul(rotation(box.quat), local));
    cases.push_back(i % 5 ? Case{cap, box} : Case{box, cap});
  }
  const Tally t = check("capsule-box parallel", cases, false);
  EXPECT_GE(t.touching, t.cases / 2);
  EXPECT_GT(t.several, t.cases / 4);
}

TEST(CollisionBox, BoxBox) {
  const Tally t = check("box-box", random_cases(kGeomBox, kGeomBox, 500, 41), true);
  EXPECT_GE(t.touching, t.cases / 3);
  EXPECT_LT(t.touching, t.cases);
  EXPECT_GT(t.several, 20);
  EXPECT_GT(t.positive, 0);
}

// Box b resting on top of box a, faces parallel: turned about the shared normal or not, a
// little into a or above it (within the margin or not), in a frame that is the identity (exact
// coordinates, dyadic sizes: coincident edges and corners, ties between separating axes,
// repeated candidates) or a random rotation of the pair.
TEST(CollisionBox, BoxRestingFlat) {
  Rng rng(42);
  std::vector<Case> cases;
  auto dyadic = [&](double lo, double hi) { return std::round(uniform(rng, lo, hi) * 64) / 64; };
  for (int i = 0; i < 240; ++i) {
    const bool exact = i % 2 == 0;
    Placement a{kGeomBox, {dyadic(0.1, 0.5), dyadic(0.1, 0.5), dyadic(0.1, 0.5)}, 0, {}, kIdentity};
    Placement b{kGeomBox, {dyadic(0.1, 0.5), dyadic(0.1, 0.5), dyadic(0.1, 0.5)}, 0, {}, kIdentity};
    if (i % 8 < 2) b.size = a.size;  // equal boxes: every edge coincides
    b.margin = i % 3 == 0 ? 0.0625 : 0.0;
    const double sink = std::array{0.0, 0.03125, 0.0625, -0.015625}[i % 4];
    Vec3<double> offset{dyadic(-0.5, 0.5), dyadic(-0.5, 0.5), a.size[2] + b.size[2] - sink};
    if (i % 8 < 4) offset.x = offset.y = 0;
    if (i % 5 == 1) b.quat = about(2, std::numbers::pi / 2);
    if (i % 5 == 2) b.quat = about(2, uniform(rng, -0.5, 0.5));
    if (!exact) {
      a.quat = random_quat(rng);
      b.quat = qmul(a.quat, b.quat);
      a.pos = {uniform(rng, -0.5, 0.5), uniform(rng, -0.5, 0.5), uniform(rng, -0.5, 0.5)};
      offset = mul(rotation(a.quat), offset);
    }
    b.pos = arr(vec(a.pos) + offset);
    cases.push_back(i % 3 == 2 ? Case{b, a} : Case{a, b});
  }
  const Tally t = check("box-box resting", cases, false);
  EXPECT_GE(t.touching, t.cases / 2);
  EXPECT_GT(t.several, t.cases / 3);
}

// Crossing edges: a turned 45° about x (an edge along x on top), b turned 45° about y (an edge
// along y at the bottom), b's edge a little into a's or above it; tilted a little, shifted
// along the edges, the pair in a random frame
TEST(CollisionBox, BoxEdgeEdge) {
  Rng rng(43);
  std::vector<Case> cases;
  const double quarter = std::numbers::pi / 4;
  for (int i = 0; i < 200; ++i) {
    Placement a = random_geom(kGeomBox, rng), b = random_geom(kGeomBox, rng);
    const Quat4 frame = i % 4 == 0 ? kIdentity : random_quat(rng);
    const double tilt = i % 2 ? uniform(rng, -0.1, 0.1) : 0.0;
    a.quat = qmul(frame, about(0, quarter + tilt));
    b.quat = qmul(frame, qmul(about(2, uniform(rng, -0.3, 0.3)), about(1, quarter)));
    const double top = (a.size[1] + a.size[2]) * std::sqrt(0.5);
    const double bottom = (b.size[0] + b.size[2]) * std::sqrt(0.5);
    const double sink = uniform(rng, -0.02, 0.05);
    const Vec3<double> offset{uniform(rng, -0.8, 0.8) * a.size[0], uniform(rng, -0.05, 0.05),
                              top + bottom - sink};
    b.pos = arr(vec(a.pos) + mul(rotation(frame), offset));
    cases.push_back(i % 2 ? Case{b, a} : Case{a, b});
  }
  const Tally t = check("box-box edges", cases, false);
  EXPECT_GE(t.touching, t.cases / 2);
}

TEST(CollisionBox, MaxContacts) {
  EXPECT_EQ(max_contacts_box(kGeomSphere, kGeomBox), 1);
  EXPECT_EQ(max_contacts_box(kGeomCapsule, kGeomBox), 2);
  EXPECT_EQ(max_contacts_box(kGeomBox, kGeomBox), 24);
  EXPECT_EQ(max_contacts_box(kGeomSphere, kGeomSphere), 0);
  EXPECT_EQ(max_contacts_box(kGeomPlane, kGeomBox), 0);
  EXPECT_EQ(max_contacts_box(kGeomBox, kGeomMesh), 0);
  const GeomPose<double> g{{0, 0, 0}, {{1, 0, 0, 0, 1, 0, 0, 0, 1}}, {0.5, 0.5, 0.5}};
  int calls = 0;
  EXPECT_EQ(
      collide_box(kGeomPlane, kGeomBox, g, g, 1.0, [&](const ContactGeo<double>&) { ++calls; }), 0);
  EXPECT_EQ(calls, 0);
}

}  // namespace
}  // namespace zwang::test
