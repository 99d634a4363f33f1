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

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "collision_util.h"

namespace zwang::test {
namespace {

// MuJoCo's contact i against zwang's nearest by pos, pairs beyond the bounding spheres skipped
constexpr Harness kHarness{.box = true, .nearest = true, .filter = true};

// poses -------------------------------------------------------------------------------

// a random unit vector
Vec3<double> random_unit(Rng& rng) {
  const Quat4 q = random_quat(rng);
  return (1 / std::sqrt(q[1] * q[1] + q[2] * q[2] + q[3] * q[3])) * Vec3<double>{q[1], q[2], q[3]};
}

// rotation by angle about coordinate axis k
Quat4 about(int k, double angle) {
  Quat4 q{std::cos(angle / 2), 0, 0, 0};
  q[1 + k] = std::sin(angle / 2);
  return q;
}

// the radius of the sphere around a geom's centre that holds it
double bound(const Placement& p) {
  return p.type == GeomType::kSphere ? p.size[0]
         : p.type == GeomType::kCapsule
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
  compare_cases(name, cases, kHarness, kTol, dbl, kFloatTol, single ? &flt : nullptr);
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

// random cases of types t1 and t2, which must touch in a third of the cases, not in all, and
// sometimes with dist > 0
Tally check_random(int t1, int t2, int count, std::uint64_t seed) {
  const std::string name = fmt::format("{}-{}", type_name(t1), type_name(t2));
  const Tally t = check(
      name, random_cases(count, seed, [&](Rng& rng) { return random_case(t1, t2, rng); }), true);
  EXPECT_GE(t.touching, t.cases / 3) << name;
  EXPECT_LT(t.touching, t.cases) << name;
  EXPECT_GT(t.positive, 0) << name;
  return t;
}

TEST(CollisionBox, SphereBox) {
  check_random(GeomType::kSphere, GeomType::kBox, 400, 21);

  // centres inside the box, nearest each face in turn, and on its centre (a tie: the −x face)
  Rng rng(22);
  std::vector<Case> inside;
  for (int i = 0; i < 60; ++i) {
    Placement box = random_geom(GeomType::kBox, rng);
    if (i % 3 == 0) box.quat = kIdentity;
    Placement sphere = random_geom(GeomType::kSphere, rng);
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
  EXPECT_GT(check_random(GeomType::kCapsule, GeomType::kBox, 500, 31).several, 10);
}

// a capsule lying along a face of the box (its axis along the box's x or y axis, or tilted a
// little, or a little off the face's plane), over the face or partly beyond it
TEST(CollisionBox, CapsuleParallelToFace) {
  Rng rng(32);
  std::vector<Case> cases;
  for (int i = 0; i < 200; ++i) {
    Placement box = random_geom(GeomType::kBox, rng);
    if (i % 4 == 0) box.quat = kIdentity;
    Placement cap = random_geom(GeomType::kCapsule, rng);
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

// a planar mechanism: box and capsule turned about y alone, centres at y = 0, so that the
// capsule's axis in the box frame has a y component of ±0 and the second sphere's reach along
// the box's y edge is a division by zero (+∞ in MuJoCo, whose fabs drops the sign of −0)
TEST(CollisionBox, CapsuleInThePlaneOfTheBox) {
  Rng rng(33);
  std::vector<Case> cases;
  for (int i = 0; i < 300; ++i) {
    Placement box = random_geom(GeomType::kBox, rng);
    Placement cap = random_geom(GeomType::kCapsule, rng);
    box.quat = about(1, uniform(rng, -std::numbers::pi, std::numbers::pi));
    cap.quat = about(1, uniform(rng, -std::numbers::pi, std::numbers::pi));
    const double reach = (bound(box) + bound(cap)) * uniform(rng, 0.15, 0.9);
    const double angle = uniform(rng, -std::numbers::pi, std::numbers::pi);
    cap.pos = {box.pos[0] + reach * std::cos(angle), 0, box.pos[2] + reach * std::sin(angle)};
    box.pos[1] = 0;
    cases.push_back(i % 2 ? Case{cap, box} : Case{box, cap});
  }
  const Tally t = check("capsule-box planar", cases, false);
  EXPECT_GE(t.touching, t.cases / 3);
  EXPECT_GT(t.several, 10);
}

TEST(CollisionBox, BoxBox) {
  EXPECT_GT(check_random(GeomType::kBox, GeomType::kBox, 500, 41).several, 20);
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
    Placement a{
        GeomType::kBox, {dyadic(0.1, 0.5), dyadic(0.1, 0.5), dyadic(0.1, 0.5)}, 0, {}, kIdentity};
    Placement b{
        GeomType::kBox, {dyadic(0.1, 0.5), dyadic(0.1, 0.5), dyadic(0.1, 0.5)}, 0, {}, kIdentity};
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
    Placement a = random_geom(GeomType::kBox, rng), b = random_geom(GeomType::kBox, rng);
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
  EXPECT_EQ(max_contacts_box(GeomType::kSphere, GeomType::kBox), 1);
  EXPECT_EQ(max_contacts_box(GeomType::kCapsule, GeomType::kBox), 2);
  EXPECT_EQ(max_contacts_box(GeomType::kBox, GeomType::kBox), 24);
  EXPECT_EQ(max_contacts_box(GeomType::kSphere, GeomType::kSphere), 0);
  EXPECT_EQ(max_contacts_box(GeomType::kPlane, GeomType::kBox), 0);
  EXPECT_EQ(max_contacts_box(GeomType::kBox, GeomType::kMesh), 0);
  const GeomPose<double> g{{0, 0, 0}, {{1, 0, 0, 0, 1, 0, 0, 0, 1}}, {0.5, 0.5, 0.5}};
  int calls = 0;
  EXPECT_EQ(collide_box(
                GeomType::kPlane, GeomType::kBox, g, g, 1.0,
                [&](const ContactGeo<double>&) { ++calls; }, Rules::kMujoco4),
            0);
  EXPECT_EQ(calls, 0);
}

}  // namespace
}  // namespace zwang::test
