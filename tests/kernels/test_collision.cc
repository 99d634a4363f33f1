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

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "collision_util.h"

namespace zwang::test {
namespace {

// MuJoCo's contact i against zwang's i; no bounding-sphere filter
constexpr Harness kHarness{.box = false, .nearest = false, .filter = false};

// the vector part of a random unit quaternion: a random direction, of length at most 1
Vec3<double> random_vector(Rng& rng) {
  const Quat4 q = random_quat(rng);
  return {q[1], q[2], q[3]};
}

// half-width of the geom along the unit n
double extent(const Placement& p, const Vec3<double>& n) {
  const double an = std::abs(dot(axis(p.quat, 2), n));
  switch (p.type) {
    case GeomType::kSphere:
      return p.size[0];
    case GeomType::kCapsule:
      return p.size[0] + p.size[1] * an;
    case GeomType::kCylinder:
      return p.size[0] * std::sqrt(std::max(0.0, 1 - an * an)) + p.size[1] * an;
    default:
      return p.size[0] * std::abs(dot(axis(p.quat, 0), n)) +
             p.size[1] * std::abs(dot(axis(p.quat, 1), n)) + p.size[2] * an;
  }
}

// the geom's centre at a height around its extent above a random plane, some below it
Case plane_case(int type, Rng& rng) {
  Case c{random_geom(GeomType::kPlane, rng), random_geom(type, rng)};
  const Vec3<double> n = axis(c.a.quat, 2);
  Vec3<double> t = random_vector(rng);
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
    const double x = p.type == GeomType::kCapsule ? uniform(rng, -1.2, 1.2) * p.size[1] : 0;
    return x * axis(p.quat, 2);
  };
  const Vec3<double> p1 = vec(c.a.pos) + segment_point(c.a);
  const double reach = (c.a.size[0] + c.b.size[0]) * uniform(rng, 0.3, 1.5) +
                       std::max(c.a.margin, c.b.margin) * uniform(rng, 0, 1.5);
  const Vec3<double> p2 = p1 + reach * random_vector(rng);
  c.b.pos = arr(p2 - segment_point(c.b));
  return c;
}

// both sets of cases against MuJoCo in double, the random ones also in float; returns the
// degenerate cases' tally
Tally check_pair(int t1, int t2, const std::vector<Case>& degenerate, double min_touching) {
  const std::string name = fmt::format("{}-{}", type_name(t1), type_name(t2));
  const std::vector<Case> cases = random_cases(400, 1000 * t1 + t2, [&](Rng& rng) {
    return t1 == GeomType::kPlane ? plane_case(t2, rng) : pair_case(t1, t2, rng);
  });
  Tally random, special, single;
  compare_cases(name + " random", cases, kHarness, kTol, random, kFloatTol, &single);
  compare_cases(name + " degenerate", degenerate, kHarness, kTol, special);
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
  if (max_contacts(t1, t2) > 1 && t1 == GeomType::kPlane) {
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
  return {{GeomType::kPlane, {5, 5, 0.1}, margin, {0, 0, 0}, kIdentity},
          {type, size, 0, {0.125, -0.25, height}, quat}};
}

// MuJoCo took the coincident-centre branch in case c: parallel z axes give n = e_x
void expect_coincident_branch(const Case& c) {
  const Oracle o = oracle(c);
  ASSERT_EQ(o.contacts.size(), 1u);
  EXPECT_EQ(o.contacts[0].frame.m[0], 1.0);
}

TEST(Collision, PlaneSphere) {
  std::vector<Case> special;
  // 0.375: dist is the margin exactly, which MuJoCo keeps
  for (double h : {0.25, 0.3, 0.3125, 0.375, 0.5}) {
    special.push_back(on_flat_plane(GeomType::kSphere, {0.3125, 0, 0}, kIdentity, h, 0.0625));
  }
  check_pair(GeomType::kPlane, GeomType::kSphere, special, 0.5);
}

TEST(Collision, PlaneCapsule) {
  // lying flat (axis along x or y): both ends touch with the same dist; standing on one end
  const double s = std::sqrt(0.5);
  std::vector<Case> special;
  for (double h : {0.1, 0.125, 0.2, 0.25}) {
    special.push_back(on_flat_plane(GeomType::kCapsule, {0.125, 0.5, 0}, {s, 0, s, 0}, h, 0.0));
    special.push_back(on_flat_plane(GeomType::kCapsule, {0.125, 0.5, 0}, {s, s, 0, 0}, h, 0.05));
    special.push_back(
        on_flat_plane(GeomType::kCapsule, {0.125, 0.25, 0}, kIdentity, h + 0.25, 0.0));
  }
  EXPECT_GE(check_pair(GeomType::kPlane, GeomType::kCapsule, special, 0.5).several, 4);
}

TEST(Collision, PlaneCylinder) {
  // standing (disks parallel to the plane: the rim point is along the cylinder's x axis), lying
  // flat, and tilted a little
  const double s = std::sqrt(0.5);
  std::vector<Case> special;
  for (double h : {0.2, 0.25, 0.3}) {
    special.push_back(on_flat_plane(GeomType::kCylinder, {0.125, 0.25, 0}, kIdentity, h, 0.0));
    special.push_back(on_flat_plane(GeomType::kCylinder, {0.125, 0.25, 0}, {0, 1, 0, 0}, h, 0.0));
    special.push_back(
        on_flat_plane(GeomType::kCylinder, {0.125, 0.25, 0}, {s, s, 0, 0}, h - 0.1, 0.0));
    special.push_back(
        on_flat_plane(GeomType::kCylinder, {0.125, 0.25, 0}, {0.999, 0.02, 0.03, 0}, h, 0.0));
    // the far disk within the margin too
    special.push_back(
        on_flat_plane(GeomType::kCylinder, {0.25, 0.0625, 0}, kIdentity, h - 0.1, 0.2));
  }
  EXPECT_GE(check_pair(GeomType::kPlane, GeomType::kCylinder, special, 0.5).several, 4);
}

TEST(Collision, PlaneBox) {
  std::vector<Case> special;
  for (double h : {0.2, 0.25, 0.3}) {
    special.push_back(on_flat_plane(GeomType::kBox, {0.5, 0.25, 0.25}, kIdentity, h, 0.0));
    special.push_back(on_flat_plane(GeomType::kBox, {0.5, 0.25, 0.25}, {0, 0, 0, 1}, h, 0.1));
    special.push_back(on_flat_plane(GeomType::kBox, {0.5, 0.25, 0.25}, {0.9, 0, 0, 0.1}, h, 0.0));
  }
  EXPECT_GE(check_pair(GeomType::kPlane, GeomType::kBox, special, 0.5).several, 4);
}

TEST(Collision, SphereSphere) {
  // coincident centres: n from the z axes' cross product, e_x when they are parallel
  Rng rng(4);
  std::vector<Case> special;
  for (int i = 0; i < 4; ++i) {
    Case c{random_geom(GeomType::kSphere, rng), random_geom(GeomType::kSphere, rng)};
    c.b.pos = c.a.pos;
    if (i % 2 == 0) c.a.quat = c.b.quat = kIdentity;
    special.push_back(c);
  }
  check_pair(GeomType::kSphere, GeomType::kSphere, special, 0.5);
  expect_coincident_branch(special[0]);
}

TEST(Collision, SphereCapsule) {
  // sphere centres exactly on the axis (dyadic numbers, so the nearest point is the centre)
  Rng rng(5);
  std::vector<Case> special;
  for (double x : {-0.75, -0.25, 0.0, 0.25, 0.5, 1.0}) {
    for (bool turned : {false, true}) {
      const Placement cap{GeomType::kCapsule, {0.125, 0.5, 0}, 0, {0.125, -0.25, 0.5}, kIdentity};
      Placement sphere{GeomType::kSphere, {0.25, 0, 0}, 0.01, {0.125, -0.25, 0.5 + x}, kIdentity};
      if (turned) sphere.quat = random_quat(rng);
      special.push_back({sphere, cap});
    }
  }
  check_pair(GeomType::kSphere, GeomType::kCapsule, special, 0.5);
  expect_coincident_branch(special[6]);  // x = 0.25
}

TEST(Collision, CapsuleCapsule) {
  // parallel and antiparallel axes, side by side with the segments overlapping or not, crossing
  // axes, and one segment along the other
  Rng rng(6);
  std::vector<Case> special;
  for (int i = 0; i < 24; ++i) {
    const auto q = i < 8 ? kIdentity : random_quat(rng);
    const Vec3<double> z = axis(q, 2), x = axis(q, 0);
    Placement a{GeomType::kCapsule, {0.125, 0.5, 0}, 0.0, {0.125, -0.25, 0.5}, q};
    Placement b{GeomType::kCapsule, {0.25, 0.25, 0}, i % 3 == 0 ? 0.05 : 0.0, {}, q};
    if (i % 2 == 1) b.quat = qmul(q, {0, 1, 0, 0});  // antiparallel
    const double shift = 0.25 * (i % 6) - 0.5;
    b.pos = arr(vec(a.pos) + 0.3 * x + shift * z);
    special.push_back({a, b});
  }
  for (double shift : {0.0, 0.5, 0.875}) {
    Placement a{GeomType::kCapsule, {0.125, 0.5, 0}, 0.0, {0.125, -0.25, 0.5}, kIdentity};
    Placement b{GeomType::kCapsule, {0.125, 0.25, 0}, 0.0, {0.125, -0.25, 0.5 + shift}, kIdentity};
    special.push_back({a, b});
    const double s = std::sqrt(0.5);
    b.quat = {s, s, 0, 0};
    special.push_back({a, b});
  }
  EXPECT_GE(check_pair(GeomType::kCapsule, GeomType::kCapsule, special, 0.5).several, 8);
}

// pairs MuJoCo 2.2.2 hands to libccd (kernels/narrowphase_convex.h, tested in
// test_collision_convex.cc) have one contact; a mesh against a plane, box or mesh up to four,
// against a capsule or cylinder two, a sphere or ellipsoid one (kernels/narrowphase_mesh.h,
// narrowphase_ccd.h, tested against MuJoCo 4.0 in python_shim/tests/test_mesh_collision.py); a
// height field against sphere .. mesh up to 50 (kernels/narrowphase_hfield.h, tested in
// python_shim/tests/test_hfield.py), against a plane or a height field none
TEST(Collision, UnsupportedPairs) {
  const GeomPose<double> g{{0, 0, 0}, {{1, 0, 0, 0, 1, 0, 0, 0, 1}}, {0.5, 0.5, 0.5}};
  int calls = 0;
  auto count = [&](const ContactGeo<double>&) { ++calls; };
  for (int t1 = 0; t1 < 8; ++t1) {
    for (int t2 = t1; t2 < 8; ++t2) {
      const bool primitive =
          (t1 == GeomType::kPlane && (t2 == GeomType::kSphere || t2 == GeomType::kCapsule ||
                                      t2 == GeomType::kCylinder || t2 == GeomType::kBox)) ||
          (t1 == GeomType::kSphere && (t2 == GeomType::kSphere || t2 == GeomType::kCapsule)) ||
          (t1 == GeomType::kCapsule && t2 == GeomType::kCapsule);
      const bool box = t2 == GeomType::kBox && (t1 == GeomType::kSphere ||
                                                t1 == GeomType::kCapsule || t1 == GeomType::kBox);
      const bool round = t2 == GeomType::kEllipsoid || t2 == GeomType::kCylinder;
      const bool convex =
          (round && t1 >= GeomType::kSphere && t1 <= GeomType::kCylinder) ||
          (t2 == GeomType::kBox && (t1 == GeomType::kEllipsoid || t1 == GeomType::kCylinder)) ||
          (t1 == GeomType::kPlane && t2 == GeomType::kEllipsoid);
      // MuJoCo 4.0's multi-contact step: a cylinder's caps and sides against a cylinder or a box,
      // a capsule along a cap
      const bool cylinder_pair = (t1 == GeomType::kCylinder || t1 == GeomType::kCapsule) &&
                                 (t2 == GeomType::kCylinder || t2 == GeomType::kBox) &&
                                 (t1 == GeomType::kCylinder || t2 == GeomType::kCylinder);
      if (convex) {
        EXPECT_EQ(max_contacts(t1, t2), cylinder_pair ? (t1 == GeomType::kCapsule ? 2 : 4) : 1)
            << type_name(t1) << "-" << type_name(t2);
      }
      if (t1 == GeomType::kHfield && t2 >= GeomType::kSphere) {
        // a contact per prism, as many as MuJoCo's mjMAXCONPAIR
        EXPECT_EQ(max_contacts(t1, t2), 50) << type_name(t1) << "-" << type_name(t2);
        continue;
      }
      if (t2 == GeomType::kMesh) {
        // plane–mesh, box–mesh, mesh–mesh and cylinder–mesh (a cap on a face) have up to four; a
        // capsule along a face two; a sphere or an ellipsoid one
        const bool four = t1 == GeomType::kPlane || t1 == GeomType::kBox || t1 == GeomType::kMesh ||
                          t1 == GeomType::kCylinder;
        const bool two = t1 == GeomType::kCapsule;
        EXPECT_EQ(max_contacts(t1, t2), four ? 4 : (two ? 2 : 1))
            << type_name(t1) << "-" << type_name(t2);
        continue;
      }
      if (primitive || box || convex) continue;
      EXPECT_EQ(max_contacts(t1, t2), 0) << type_name(t1) << "-" << type_name(t2);
      EXPECT_EQ(collide(t1, t2, g, g, 1.0, count), 0) << type_name(t1) << "-" << type_name(t2);
    }
  }
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(max_contacts(GeomType::kPlane, GeomType::kSphere), 1);
  EXPECT_EQ(max_contacts(GeomType::kPlane, GeomType::kCapsule), 2);
  EXPECT_EQ(max_contacts(GeomType::kPlane, GeomType::kCylinder), 4);
  EXPECT_EQ(max_contacts(GeomType::kPlane, GeomType::kBox), 4);
  EXPECT_EQ(max_contacts(GeomType::kSphere, GeomType::kSphere), 1);
  EXPECT_EQ(max_contacts(GeomType::kSphere, GeomType::kCapsule), 1);
  EXPECT_EQ(max_contacts(GeomType::kCapsule, GeomType::kCapsule), 2);
}

}  // namespace
}  // namespace zwang::test
