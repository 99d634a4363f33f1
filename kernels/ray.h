// Where a ray p + x v, x ≥ 0, first meets a shape: the smallest such x, or −1 when it misses.
// The shape is a plane (its front face), sphere, capsule, ellipsoid, cylinder or box with a geom's
// size numbers, at
// position c with orientation R (row-major); in its frame the ray is p' = Rᵀ (p − c),
// v' = Rᵀ v.  A ray that starts inside the shape meets its surface from within, so x ≥ 0 holds
// exactly when the ray starts inside the shape or enters it.  v need not be a unit vector:
// x counts multiples of v; a distance that is not a number (a zero size) is a miss.  As MuJoCo's
// ray functions (engine_ray.c): a quadric's roots count when the discriminant is at least 1e-15, a
// flat face when |v'_i| > 1e-15, and capsules, cylinders and boxes are first tested against their
// bounding spheres.
#pragma once

#include "kernels/hd.h"
#include "kernels/lanes.h"
#include "kernels/math_vec.h"

namespace zwang {

constexpr double kRayMinVal = 1e-15;

template <class T>
ZW_HD ZW_INLINE T ray_abs(T x) {
  return vselect(x < T(0), -x, x);
}

template <class T>
ZW_HD ZW_INLINE T ray_component(const Vec3<T>& v, int i) {
  return i == 0 ? v.x : (i == 1 ? v.y : v.z);
}

// the nearer of two candidate distances, where −1 means none
template <class T>
ZW_HD ZW_INLINE T ray_nearer(T best, T candidate, MaskOf<T> valid) {
  return vselect(valid && (best < T(0) || candidate < best), candidate, best);
}

// the roots x₀ ≤ x₁ of a x² + 2 b x + c = 0, a > 0, and whether they exist
template <class T>
struct RayRoots {
  T x0, x1;
  MaskOf<T> real;
};

template <class T>
ZW_HD ZW_INLINE RayRoots<T> ray_roots(T a, T b, T c) {
  const T det = b * b - a * c;
  const MaskOf<T> real = det >= T(kRayMinVal);
  const T s = vsqrt(vselect(real, det, T(0)));
  return {(-b - s) / a, (-b + s) / a, real};
}

// the first non-negative root, −1 without one
template <class T>
ZW_HD ZW_INLINE T ray_first_root(const RayRoots<T>& r) {
  const T x = vselect(r.x0 >= T(0), r.x0, vselect(r.x1 >= T(0), r.x1, T(-1)));
  return vselect(r.real, x, T(-1));
}

// |p + x v − c| = radius
template <class T>
ZW_HD ZW_INLINE T ray_sphere(const Vec3<T>& c, T radius, const Vec3<T>& p, const Vec3<T>& v) {
  const Vec3<T> d = p - c;
  return ray_first_root(ray_roots(dot(v, v), dot(v, d), dot(d, d) - radius * radius));
}

// the side of a z-aligned capsule or cylinder: x² + y² = r² between z = −h and h
template <class T>
ZW_HD ZW_INLINE T ray_round_side(T r, T h, const Vec3<T>& p, const Vec3<T>& v) {
  const T a = v.x * v.x + v.y * v.y;
  // a ray along the axis never meets the side; a > 0 keeps the roots finite
  const MaskOf<T> across = a > T(0);
  const T safe = vselect(across, a, T(1));
  const T x = ray_first_root(ray_roots(safe, v.x * p.x + v.y * p.y, p.x * p.x + p.y * p.y - r * r));
  return vselect(across && x >= T(0) && ray_abs(p.z + x * v.z) <= h, x, T(-1));
}

template <class T>
ZW_HD T ray_capsule(T r, T h, const Vec3<T>& p, const Vec3<T>& v) {
  T best = ray_round_side(r, h, p, v);
  // the two hemispherical caps, each only on its own side of the flat sides
  for (int side = -1; side <= 1; side += 2) {
    const T zc = T(side) * h;
    const Vec3<T> d{p.x, p.y, p.z - zc};
    const RayRoots<T> roots = ray_roots(dot(v, v), dot(v, d), dot(d, d) - r * r);
    for (int k = 0; k < 2; ++k) {
      const T x = k == 0 ? roots.x0 : roots.x1;
      const T z = p.z + x * v.z;
      const MaskOf<T> cap = side > 0 ? z >= h : z <= -h;
      best = ray_nearer(best, x, roots.real && x >= T(0) && cap);
    }
  }
  return best;
}

template <class T>
ZW_HD T ray_ellipsoid(const Vec3<T>& radii, const Vec3<T>& p, const Vec3<T>& v) {
  const Vec3<T> s{T(1) / (radii.x * radii.x), T(1) / (radii.y * radii.y),
                  T(1) / (radii.z * radii.z)};
  const T a = s.x * v.x * v.x + s.y * v.y * v.y + s.z * v.z * v.z;
  const T b = s.x * v.x * p.x + s.y * v.y * p.y + s.z * v.z * p.z;
  const T c = s.x * p.x * p.x + s.y * p.y * p.y + s.z * p.z * p.z - T(1);
  return ray_first_root(ray_roots(a, b, c));
}

template <class T>
ZW_HD T ray_cylinder(T r, T h, const Vec3<T>& p, const Vec3<T>& v) {
  T best = ray_round_side(r, h, p, v);
  // the flat sides z = ±h, within the radius
  const MaskOf<T> crosses = ray_abs(v.z) > T(kRayMinVal);
  const T vz = vselect(crosses, v.z, T(1));
  for (int side = -1; side <= 1; side += 2) {
    const T x = (T(side) * h - p.z) / vz;
    const T px = p.x + x * v.x, py = p.y + x * v.y;
    best = ray_nearer(best, x, crosses && x >= T(0) && px * px + py * py <= r * r);
  }
  return best;
}

template <class T>
ZW_HD T ray_box(const Vec3<T>& half, const Vec3<T>& p, const Vec3<T>& v) {
  T best = T(-1);
  for (int i = 0; i < 3; ++i) {
    const int j = (i + 1) % 3, k = (i + 2) % 3;
    const T vi = ray_component(v, i), pi = ray_component(p, i), hi = ray_component(half, i);
    const MaskOf<T> crosses = ray_abs(vi) > T(kRayMinVal);
    const T safe = vselect(crosses, vi, T(1));
    for (int side = -1; side <= 1; side += 2) {
      const T x = (T(side) * hi - pi) / safe;
      const T pj = ray_component(p, j) + x * ray_component(v, j);
      const T pk = ray_component(p, k) + x * ray_component(v, k);
      const MaskOf<T> on_face =
          ray_abs(pj) <= ray_component(half, j) && ray_abs(pk) <= ray_component(half, k);
      best = ray_nearer(best, x, crosses && x >= T(0) && on_face);
    }
  }
  return best;
}

// a plane's front face (z' = 0 seen from z' > 0), within its rendered half-sizes where they are
// positive
template <class T>
ZW_HD T ray_plane(const Vec3<T>& size, const Vec3<T>& p, const Vec3<T>& v) {
  const MaskOf<T> facing = v.z < T(-kRayMinVal);
  const T x = -p.z / vselect(facing, v.z, T(-1));
  const T px = p.x + x * v.x, py = p.y + x * v.y;
  const MaskOf<T> within =
      (size.x <= T(0) || ray_abs(px) <= size.x) && (size.y <= T(0) || ray_abs(py) <= size.y);
  return vselect(facing && x >= T(0) && within, x, T(-1));
}

// the ray against the shape of GeomType `type` (0 plane, 2 sphere … 6 box); −1 for other types
template <class T>
ZW_HD T ray_shape(int type, const Vec3<T>& c, const Mat3<T>& rot, const Vec3<T>& size,
                  const Vec3<T>& p, const Vec3<T>& v) {
  const Vec3<T> lp = mul_transposed(rot, p - c), lv = mul_transposed(rot, v);
  switch (type) {
    case 0:
      return ray_plane(size, lp, lv);
    case 2:
      return ray_sphere(c, size.x, p, v);
    case 3: {
      const T reach = size.x + size.y;
      return vselect(ray_sphere(c, reach, p, v) < T(0), T(-1), ray_capsule(size.x, size.y, lp, lv));
    }
    case 4:
      return ray_ellipsoid(size, lp, lv);
    case 5: {
      const T reach = vsqrt(size.x * size.x + size.y * size.y);
      return vselect(ray_sphere(c, reach, p, v) < T(0), T(-1),
                     ray_cylinder(size.x, size.y, lp, lv));
    }
    case 6: {
      const T reach = vsqrt(dot(size, size));
      return vselect(ray_sphere(c, reach, p, v) < T(0), T(-1), ray_box(size, lp, lv));
    }
    default:
      return T(-1);
  }
}

}  // namespace zwang
