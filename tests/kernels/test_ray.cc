// The ray kernel (kernels/ray.h), which decides which contacts a touch sensor's zone counts,
// against MuJoCo 2.2.2's mju_rayGeom: spheres, capsules, ellipsoids, cylinders and boxes of
// random sizes and poses, rays from random points (inside and outside) in random directions of
// random lengths, and rays along the shapes' axes (the flat faces' branches).  Both must miss
// together, or hit at the same distance to 1e-12 relative.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <mujoco/mujoco.h>

#include <array>
#include <cmath>
#include <random>

#include "kernels/ray.h"

namespace zwang::test {
namespace {

using Rng = std::mt19937_64;

struct Tally {
  int hits = 0, misses = 0;
};

Mat3<double> random_rotation(Rng& rng) {
  std::normal_distribution<double> normal(0, 1);
  std::array<double, 4> q{normal(rng), normal(rng), normal(rng), normal(rng)};
  const double n = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  for (double& x : q) x /= n;
  Mat3<double> r;
  mju_quat2Mat(r.m, q.data());
  return r;
}

// one ray against one shape, in both implementations
void check(int type, const Vec3<double>& c, const Mat3<double>& r, const Vec3<double>& size,
           const Vec3<double>& p, const Vec3<double>& v, Tally& tally) {
  const double pos[3] = {c.x, c.y, c.z}, s[3] = {size.x, size.y, size.z};
  const double pnt[3] = {p.x, p.y, p.z}, vec[3] = {v.x, v.y, v.z};
  const double expected = mju_rayGeom(pos, r.m, s, pnt, vec, type);
  const double got = ray_shape<double>(type, c, r, size, p, v);
  const std::string where =
      fmt::format("type {} size ({} {} {}) centre ({} {} {}) ray ({} {} {}) + x ({} {} {})", type,
                  size.x, size.y, size.z, c.x, c.y, c.z, p.x, p.y, p.z, v.x, v.y, v.z);
  if (expected < 0) {
    EXPECT_EQ(got, -1.0) << where;
    ++tally.misses;
    return;
  }
  EXPECT_NEAR(got, expected, 1e-12 * std::max(1.0, expected)) << where;
  ++tally.hits;
}

TEST(Ray, ShapesAgainstMuJoCo) {
  Rng rng(17);
  std::uniform_real_distribution<double> unit(-1, 1), length(0.3, 2), side(0.05, 0.5);
  std::normal_distribution<double> normal(0, 1);
  for (int type = mjGEOM_SPHERE; type <= mjGEOM_BOX; ++type) {
    Tally tally;
    for (int shape = 0; shape < 40; ++shape) {
      const Vec3<double> size{side(rng), side(rng), side(rng)};
      const Vec3<double> c{0.5 * unit(rng), 0.5 * unit(rng), 0.5 * unit(rng)};
      const Mat3<double> r = random_rotation(rng);
      for (int ray = 0; ray < 200; ++ray) {
        const Vec3<double> p{unit(rng), unit(rng), unit(rng)};
        // towards the shape's centre, give or take, so that about half the rays hit
        Vec3<double> v = c - p;
        v = v + 0.6 * norm(v) * Vec3<double>{normal(rng), normal(rng), normal(rng)};
        check(type, c, r, size, p, (length(rng) / norm(v)) * v, tally);
      }
      // along each of the shape's axes, from outside and from a point inside
      for (int axis = 0; axis < 3; ++axis) {
        const Vec3<double> e = column(r, axis);
        for (double from : {-2.0, 0.0}) {
          const Vec3<double> offset{0.3 * size.x * unit(rng), 0.3 * size.y * unit(rng),
                                    0.3 * size.z * unit(rng)};
          const Vec3<double> p = c + from * e + mul(r, offset);
          check(type, c, r, size, p, e, tally);
          check(type, c, r, size, p, -e, tally);
        }
      }
    }
    // a zero size: distances that are not numbers, which both count as misses
    for (int k = 0; k < 3; ++k) {
      Vec3<double> flat{0.2, 0.3, 0.4};
      (k == 0 ? flat.x : k == 1 ? flat.y : flat.z) = 0;
      const Vec3<double> c{0, 0, 0}, p{0.01, 0.02, -1};
      check(type, c, random_rotation(rng), flat, p, Vec3<double>{0, 0, 1}, tally);
      check(type, c, random_rotation(rng), flat, p, Vec3<double>{0.01, 0, 1}, tally);
    }
    SCOPED_TRACE(fmt::format("type {}: {} hits, {} misses", type, tally.hits, tally.misses));
    EXPECT_GT(tally.hits, 1000);
    EXPECT_GT(tally.misses, 1000);
  }
}

}  // namespace
}  // namespace zwang::test
