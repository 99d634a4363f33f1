// The convex narrow phase (kernels/narrowphase_convex.h: libccd's MPR as MuJoCo 2.2.2's
// mjc_Convex runs it, and mjc_PlaneConvex) against MuJoCo 2.2.2's mj_collision, through the
// harness of tests/collision_util.h: for every pair of types MuJoCo sends to its convex solver
// (less meshes and height fields), random poses put the two geoms near or into each other and
// zwang's collide on MuJoCo's geom poses must return MuJoCo's contact count, and its dist, pos
// and nine frame entries within kTol (1e-9) in double (measured: bit-identical, 0 error on every
// case): the MPR steps follow libccd's order of operations, so its discrete choices (which
// portal vertex a support point replaces, when the tolerance is reached) fall the same way.
// Degenerate cases take the branches random poses never reach: coincident centres (libccd's v0
// nudge), stacked coaxial cylinders (flat faces, where the nearest point of the portal face lies on
// an edge).  The float instantiation is checked on the random cases to kConvexFloatTol.
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

// float against MuJoCo's double.  MPR's depth is that of the portal face it stops at, not the
// least penetration, and which face that is depends discontinuously on the inputs: on most
// cases float agrees to ~1e-4, but on a few (poses rounded to float, FLT_EPSILON in libccd's
// comparisons) the portal takes other steps and lands on another face, another answer of the
// same algorithm.  Measured over these cases: dist 0.062, pos 0.023, frame 0.28 (geoms of
// 0.05 to 0.6); counts always agreed.
constexpr double kConvexFloatTol = 0.3;

// a geom of `type` as random_geom makes it, with three semi-axes for an ellipsoid
Placement convex_geom(int type, Rng& rng) {
  Placement p = random_geom(type, rng);
  if (type == GeomType::kEllipsoid) {
    for (double& s : p.size) s = uniform(rng, 0.05, 0.4);
  }
  return p;
}

// half-width of the geom along the unit n
double extent(const Placement& p, const Vec3<double>& n) {
  const Vec3<double> x = axis(p.quat, 0), y = axis(p.quat, 1), z = axis(p.quat, 2);
  const double an = std::abs(dot(z, n));
  switch (p.type) {
    case GeomType::kSphere:
      return p.size[0];
    case GeomType::kCapsule:
      return p.size[0] + p.size[1] * an;
    case GeomType::kCylinder:
      return p.size[0] * std::sqrt(std::max(0.0, 1 - an * an)) + p.size[1] * an;
    case GeomType::kEllipsoid:
      return std::sqrt(std::pow(p.size[0] * dot(x, n), 2) + std::pow(p.size[1] * dot(y, n), 2) +
                       std::pow(p.size[2] * an, 2));
    default:
      return p.size[0] * std::abs(dot(x, n)) + p.size[1] * std::abs(dot(y, n)) + p.size[2] * an;
  }
}

// the vector part of a random unit quaternion, normalised: a random direction
Vec3<double> random_direction(Rng& rng) {
  const Quat4 q = random_quat(rng);
  const Vec3<double> v{q[1], q[2], q[3]};
  return (1 / norm(v)) * v;
}

// geom b's centre along a random direction n from a's, at around the sum of their extents
// along n (some overlapping deeply, some apart)
Case pair_case(int t1, int t2, Rng& rng) {
  Case c{convex_geom(t1, rng), convex_geom(t2, rng)};
  const Vec3<double> n = random_direction(rng);
  const double reach = (extent(c.a, n) + extent(c.b, n)) * uniform(rng, 0.4, 1.3) +
                       std::max(c.a.margin, c.b.margin) * uniform(rng, 0, 1.5);
  c.b.pos = arr(vec(c.a.pos) + reach * n);
  return c;
}

// an ellipsoid's centre around its extent above a random plane, some below it
Case plane_case(Rng& rng) {
  Case c{random_geom(GeomType::kPlane, rng), convex_geom(GeomType::kEllipsoid, rng)};
  const Vec3<double> n = axis(c.a.quat, 2);
  Vec3<double> t = random_direction(rng);
  t = t - dot(t, n) * n;
  const double margin = std::max(c.a.margin, c.b.margin);
  const double height = extent(c.b, n) * uniform(rng, -0.3, 1.5) + margin * uniform(rng, 0, 1.5);
  c.b.pos = arr(vec(c.a.pos) + uniform(rng, 0, 0.5) * t + height * n);
  return c;
}

// random cases of the pair against MuJoCo in double and float, then the degenerate ones in
// double
void check_pair(int t1, int t2, const std::vector<Case>& degenerate = {}) {
  const std::string name = fmt::format("{}-{}", type_name(t1), type_name(t2));
  const std::vector<Case> cases = random_cases(400, 1000 * t1 + t2 + 77, [&](Rng& rng) {
    return t1 == GeomType::kPlane ? plane_case(rng) : pair_case(t1, t2, rng);
  });
  Tally random, single, special;
  compare_cases(name + " random", cases, kHarness, kTol, random, kConvexFloatTol, &single);
  compare_cases(name + " degenerate", degenerate, kHarness, kTol, special);
  fmt::print(
      "{}: random {} cases, {} touching; max error dist {:.2g} pos {:.2g} frame {:.2g}; "
      "degenerate {} cases, {} touching, max error dist {:.2g} pos {:.2g} frame {:.2g}; float: "
      "{} count mismatches, max error dist {:.2g} pos {:.2g} frame {:.2g}\n",
      name, random.cases, random.touching, random.dist, random.pos, random.frame, special.cases,
      special.touching, special.dist, special.pos, special.frame, single.count_mismatch,
      single.dist, single.pos, single.frame);
  // both outcomes, and a good fraction in contact
  EXPECT_GE(random.touching, random.cases / 4) << name;
  EXPECT_LT(random.touching, random.cases) << name;
  // float may see another count only where the contact is at the margin to rounding
  EXPECT_LE(single.count_mismatch, random.cases / 50) << name;
  // MPR's one contact; under MuJoCo 4.0's rules a cylinder against a cylinder or a box has up
  // to four (its caps and sides clipped, test_cylinder_pairs.py), a capsule along a cap two
  const bool faceted =
      t1 == GeomType::kCylinder && (t2 == GeomType::kCylinder || t2 == GeomType::kBox);
  const bool along_cap = t1 == GeomType::kCapsule && t2 == GeomType::kCylinder;
  EXPECT_EQ(max_contacts(t1, t2), faceted ? 4 : (along_cap ? 2 : 1)) << name;
}

// two geoms of the given types, sizes and poses, no margin
Case posed(int t1, std::array<double, 3> s1, std::array<double, 3> p1, Quat4 q1, int t2,
           std::array<double, 3> s2, std::array<double, 3> p2, Quat4 q2) {
  return {{t1, s1, 0, p1, q1}, {t2, s2, 0, p2, q2}};
}

TEST(CollisionConvex, PlaneEllipsoid) {
  // resting on z = 0 with each semi-axis vertical, and tilted
  std::vector<Case> special;
  const double s = std::sqrt(0.5);
  for (Quat4 q : {kIdentity, Quat4{s, s, 0, 0}, Quat4{s, 0, s, 0}, Quat4{0.9, 0.1, 0.3, 0.3}}) {
    special.push_back({{GeomType::kPlane, {5, 5, 0.1}, 0, {0, 0, 0}, kIdentity},
                       {GeomType::kEllipsoid, {0.1, 0.2, 0.3}, 0.01, {0.1, 0.2, 0.15}, q}});
  }
  check_pair(GeomType::kPlane, GeomType::kEllipsoid, special);
}

TEST(CollisionConvex, SphereEllipsoid) {
  // coincident centres: libccd nudges v0 off the origin
  check_pair(GeomType::kSphere, GeomType::kEllipsoid,
             {posed(GeomType::kSphere, {0.1, 0, 0}, {0, 0, 0}, kIdentity, GeomType::kEllipsoid,
                    {0.1, 0.2, 0.3}, {0, 0, 0}, kIdentity)});
}

TEST(CollisionConvex, SphereCylinder) {
  // on the axis above the disk, beside the round wall, coincident
  check_pair(GeomType::kSphere, GeomType::kCylinder,
             {posed(GeomType::kSphere, {0.1, 0, 0}, {0, 0, 0.28}, kIdentity, GeomType::kCylinder,
                    {0.1, 0.2, 0}, {0, 0, 0}, kIdentity),
              posed(GeomType::kSphere, {0.1, 0, 0}, {0.18, 0, 0.05}, kIdentity, GeomType::kCylinder,
                    {0.1, 0.2, 0}, {0, 0, 0}, kIdentity),
              posed(GeomType::kSphere, {0.1, 0, 0}, {0, 0, 0}, kIdentity, GeomType::kCylinder,
                    {0.1, 0.2, 0}, {0, 0, 0}, kIdentity)});
}

TEST(CollisionConvex, CapsuleEllipsoid) {
  check_pair(GeomType::kCapsule, GeomType::kEllipsoid);
}

TEST(CollisionConvex, CapsuleCylinder) {
  // Pusher's case: a capsule lying across a standing cylinder's round wall
  const double s = std::sqrt(0.5);
  check_pair(GeomType::kCapsule, GeomType::kCylinder,
             {posed(GeomType::kCapsule, {0.05, 0.2, 0}, {0.13, 0.01, 0.02}, Quat4{s, s, 0, 0},
                    GeomType::kCylinder, {0.1, 0.2, 0}, {0, 0, 0}, kIdentity)});
}

TEST(CollisionConvex, EllipsoidEllipsoid) {
  check_pair(GeomType::kEllipsoid, GeomType::kEllipsoid);
}

TEST(CollisionConvex, EllipsoidCylinder) {
  check_pair(GeomType::kEllipsoid, GeomType::kCylinder);
}

TEST(CollisionConvex, EllipsoidBox) {
  check_pair(GeomType::kEllipsoid, GeomType::kBox);
}

TEST(CollisionConvex, CylinderCylinder) {
  // stacked coaxial, disk on disk, slightly overlapping
  check_pair(GeomType::kCylinder, GeomType::kCylinder,
             {posed(GeomType::kCylinder, {0.1, 0.2, 0}, {0, 0, 0}, kIdentity, GeomType::kCylinder,
                    {0.1, 0.2, 0}, {0.01, 0.02, 0.39}, kIdentity)});
}

TEST(CollisionConvex, CylinderBox) {
  // a cylinder standing on a box's top face, slightly into it
  check_pair(GeomType::kCylinder, GeomType::kBox,
             {posed(GeomType::kCylinder, {0.1, 0.2, 0}, {0.05, 0, 0.39}, kIdentity, GeomType::kBox,
                    {0.3, 0.3, 0.2}, {0, 0, 0}, kIdentity)});
}

}  // namespace
}  // namespace zwang::test
