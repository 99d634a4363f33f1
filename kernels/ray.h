// Where a ray p + x v, x ≥ 0, first meets a shape: the smallest such x, or −1 when it misses.
// The shape is a plane (its front face), sphere, capsule, ellipsoid, cylinder or box with a geom's
// size numbers, at
// position c with orientation R (row-major); in its frame the ray is p' = Rᵀ (p − c),
// v' = Rᵀ v.  A ray that starts inside the shape meets its surface from within, so x ≥ 0 holds
// exactly when the ray starts inside the shape or enters it.  v need not be a unit vector:
// x counts multiples of v; a distance that is not a number (a zero size) is a miss.  As MuJoCo's
// ray functions (engine_ray.c): a quadric's roots count when the discriminant is at least 1e-15, a
// flat face when |v'_i| > 1e-15, and capsules, cylinders and boxes are first tested against their
// bounding spheres.  A mesh geom's convex hull (ray_mesh) and a height field (ray_hfield, MuJoCo's
// mj_rayHfield) take the ray in their frame.
#pragma once

#include "kernels/hd.h"
#include "kernels/lanes.h"
#include "kernels/math_vec.h"

namespace zwang {

constexpr double kRayMinVal = 1e-15;

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
  return vselect(across && x >= T(0) && vabs(p.z + x * v.z) <= h, x, T(-1));
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
  const MaskOf<T> crosses = vabs(v.z) > T(kRayMinVal);
  const T vz = vselect(crosses, v.z, T(1));
  for (int side = -1; side <= 1; side += 2) {
    const T x = (T(side) * h - p.z) / vz;
    const T px = p.x + x * v.x, py = p.y + x * v.y;
    best = ray_nearer(best, x, crosses && x >= T(0) && px * px + py * py <= r * r);
  }
  return best;
}

// `faces`, where given: each face's hit (−x, +x, −y, +y, −z, +z), −1 where the ray misses it
template <class T>
ZW_HD T ray_box(const Vec3<T>& half, const Vec3<T>& p, const Vec3<T>& v, T* faces = nullptr) {
  T best = T(-1);
  for (int i = 0; i < 3; ++i) {
    const int j = (i + 1) % 3, k = (i + 2) % 3;
    const T vi = ray_component(v, i), pi = ray_component(p, i), hi = ray_component(half, i);
    const MaskOf<T> crosses = vabs(vi) > T(kRayMinVal);
    const T safe = vselect(crosses, vi, T(1));
    for (int side = -1; side <= 1; side += 2) {
      const T x = (T(side) * hi - pi) / safe;
      const T pj = ray_component(p, j) + x * ray_component(v, j);
      const T pk = ray_component(p, k) + x * ray_component(v, k);
      const MaskOf<T> on_face =
          vabs(pj) <= ray_component(half, j) && vabs(pk) <= ray_component(half, k);
      best = ray_nearer(best, x, crosses && x >= T(0) && on_face);
      if (faces != nullptr)
        faces[2 * i + (side + 1) / 2] = vselect(crosses && x >= T(0) && on_face, x, T(-1));
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
      (size.x <= T(0) || vabs(px) <= size.x) && (size.y <= T(0) || vabs(py) <= size.y);
  return vselect(facing && x >= T(0) && within, x, T(-1));
}

// v / |v|, or e_x where |v| < 1e-15 (MuJoCo's mju_normalize3)
template <class T>
ZW_HD ZW_INLINE Vec3<T> ray_unit(const Vec3<T>& v) {
  const T len = vsqrt(dot(v, v));
  const MaskOf<T> tiny = len < T(kRayMinVal);
  const T inv = T(1) / vselect(tiny, T(1), len);
  return {vselect(tiny, T(1), inv * v.x), vselect(tiny, T(0), inv * v.y),
          vselect(tiny, T(0), inv * v.z)};
}

// a mesh's convex hull, as the planes of its triangles (a, b, c counter-clockwise seen from
// outside, n = (b − a) × (c − a) / |…|): the ray enters at the largest t of the planes it crosses
// inward and leaves at the smallest it crosses outward; it meets the hull where it enters before
// it leaves (the exit where it starts inside).  A ray parallel to a plane outside it misses, and
// so does a ray that is not finite.  The same distance as MuJoCo's mj_rayMesh, which tests every
// triangle of the mesh, where the mesh is convex.
// (Ptr: the model's reals, Lanes<T>::ConstPtr)
template <class T, class Ptr>
ZW_HD T ray_mesh(Ptr vert, int nface, const int* face, const Vec3<T>& p, const Vec3<T>& v) {
  if (nface == 0) return T(-1);
  const T far = T(1e30);
  T enter = -far, leave = far;
  MaskOf<T> outside_parallel = T(0) > T(1);
  const auto corner = [&](int k) {
    return Vec3<T>{T(vert[3 * k]), T(vert[3 * k + 1]), T(vert[3 * k + 2])};
  };
  for (int f = 0; f < nface; ++f) {
    const Vec3<T> a = corner(face[3 * f]), b = corner(face[3 * f + 1]), c = corner(face[3 * f + 2]);
    const Vec3<T> normal = cross(b - a, c - a);
    const T len = vsqrt(dot(normal, normal));
    // a triangle of no area bounds nothing
    const MaskOf<T> plane = len > T(kRayMinVal);
    const Vec3<T> n = (T(1) / vselect(plane, len, T(1))) * normal;
    const T height = dot(n, p - a), rate = dot(n, v);
    const MaskOf<T> flat = vabs(rate) < T(kRayMinVal);
    const T t = -height / vselect(flat, T(1), rate);
    enter = vselect(plane && !flat && rate < T(0) && t > enter, t, enter);
    leave = vselect(plane && !flat && rate > T(0) && t < leave, t, leave);
    outside_parallel = outside_parallel || (plane && flat && height > T(0));
  }
  const MaskOf<T> hit =
      !outside_parallel && enter > -far && leave < far && enter <= leave && leave >= T(0);
  return vselect(hit, vselect(enter >= T(0), enter, leave), T(-1));
}

// a value of the height field's data at a lane's own index k (a whole number in [0, n)): read
// directly on one lane, picked over every index on a pack
template <class T, class Ptr>
ZW_HD ZW_INLINE T ray_pick(Ptr data, T k, int n, int stride, int offset) {
  if constexpr (kOneLane<T>) {
    return T(data[static_cast<int>(k) * stride + offset]);
  } else {
    T out = T(0);
    for (int i = 0; i < n; ++i) out = vselect(k == T(i), T(data[i * stride + offset]), out);
    return out;
  }
}

// where the ray meets the triangle a, b, c (MuJoCo's ray_triangle): the triangle's corners in the
// plane across the ray (axes e0, e1 there) must hold the ray's point; then the ray against the
// triangle's plane
template <class T>
ZW_HD T ray_triangle(const Vec3<T>& a, const Vec3<T>& b, const Vec3<T>& c, const Vec3<T>& p,
                     const Vec3<T>& v, const Vec3<T>& e0, const Vec3<T>& e1) {
  const Vec3<T> da = a - p, db = b - p, dc = c - p;
  const T a0 = dot(e0, da), a1 = dot(e1, da), b0 = dot(e0, db), b1 = dot(e1, db);
  const T c0 = dot(e0, dc), c1 = dot(e1, dc);
  const MaskOf<T> apart =
      (a0 > T(0) && b0 > T(0) && c0 > T(0)) || (a0 < T(0) && b0 < T(0) && c0 < T(0)) ||
      (a1 > T(0) && b1 > T(0) && c1 > T(0)) || (a1 < T(0) && b1 < T(0) && c1 < T(0));
  // (a − c, b − c) t = −c in the plane
  const T m00 = a0 - c0, m01 = b0 - c0, m10 = a1 - c1, m11 = b1 - c1;
  const T det = m00 * m11 - m01 * m10;
  const MaskOf<T> singular = vabs(det) < T(kRayMinVal);
  const T safe = vselect(singular, T(1), det);
  const T t0 = (m11 * -c0 - m01 * -c1) / safe, t1 = (-m10 * -c0 + m00 * -c1) / safe;
  const MaskOf<T> inside = t0 >= T(0) && t1 >= T(0) && t0 + t1 <= T(1);
  const Vec3<T> n = cross(a - c, b - c);
  const T denom = dot(v, n);
  const MaskOf<T> flat = vabs(denom) < T(kRayMinVal);
  const T x = -dot(p - c, n) / vselect(flat, T(1), denom);
  return vselect(!apart && !singular && inside && !flat, x, T(-1));
}

// a height field (MuJoCo's mj_rayHfield) in its frame: nrow × ncol elevations e in [0, 1] over
// [−s₀, s₀] × [−s₁, s₁], the surface s₂ e, the base down to −s₃.  The base box (below z = 0), then
// within the top box (0 to s₂) the grid's triangles (the cell (c, r) split from (c, r) to
// (c + 1, r + 1)) over the cells of the rectangle under the ray's stretch in that box, one cell
// around, and the top box's four sides below the field's edge profile; the nearest hit.
template <class T, class Ptr>
ZW_HD T ray_hfield(Ptr data, int nrow, int ncol, Ptr size, const Vec3<T>& p, const Vec3<T>& v) {
  const T s0 = T(size[0]), s1 = T(size[1]), s2 = T(size[2]), s3 = T(size[3]);
  T x = ray_box(Vec3<T>{s0, s1, T(0.5) * s3}, Vec3<T>{p.x, p.y, p.z + T(0.5) * s3}, v);
  T faces[6];
  const T top =
      ray_box(Vec3<T>{s0, s1, T(0.5) * s2}, Vec3<T>{p.x, p.y, p.z - T(0.5) * s2}, v, faces);
  const MaskOf<T> in_top = top >= T(0);
  if (!any_lane<T>(in_top)) return x;
  // the plane across the ray: e0, e1 from (1, 1, 1) less the ray's largest component
  const T ax = vabs(v.x), ay = vabs(v.y), az = vabs(v.z);
  const MaskOf<T> along_x = ax >= ay && ax >= az;
  const MaskOf<T> along_y = (ax < ay || ax < az) && ay >= az;
  const Vec3<T> b{vselect(along_x, T(0), T(1)), vselect(along_y, T(0), T(1)),
                  vselect(along_x || along_y, T(1), T(0))};
  const Vec3<T> e1 = ray_unit(b - (dot(v, b) / dot(v, v)) * v);
  const Vec3<T> e0 = ray_unit(cross(e1, v));
  // the ray's stretch within the top box
  T seg0 = T(0), seg1 = top;
  for (int i = 0; i < 6; ++i) {
    const MaskOf<T> later = faces[i] > seg1;
    seg0 = vselect(later, top, seg0);
    seg1 = vselect(later, faces[i], seg1);
  }
  const T dx = T(2) * s0 / T(ncol - 1), dy = T(2) * s1 / T(nrow - 1);
  const T sx0 = (p.x + seg0 * v.x + s0) / dx, sx1 = (p.x + seg1 * v.x + s0) / dx;
  const T sy0 = (p.y + seg0 * v.y + s1) / dy, sy1 = (p.y + seg1 * v.y + s1) / dy;
  // whole numbers, clamped to [0, last] (NaN to 0)
  const auto clamp_index = [](T k, int last) {
    return vselect(k >= T(0), vselect(k > T(last), T(last), k), T(0));
  };
  const T cmin = clamp_index(vfloor(vselect(sx0 < sx1, sx0, sx1)) - T(1), ncol - 1);
  const T cmax = clamp_index(vceil(vselect(sx0 > sx1, sx0, sx1)) + T(1), ncol - 1);
  const T rmin = clamp_index(vfloor(vselect(sy0 < sy1, sy0, sy1)) - T(1), nrow - 1);
  const T rmax = clamp_index(vceil(vselect(sy0 > sy1, sy0, sy1)) + T(1), nrow - 1);
  // the cells: exactly the ray's on one lane; every lane's on a pack, masked
  int r_first = 0, r_end = nrow - 1, c_first = 0, c_end = ncol - 1;
  if constexpr (kOneLane<T>) {
    r_first = static_cast<int>(rmin);
    r_end = static_cast<int>(rmax);
    c_first = static_cast<int>(cmin);
    c_end = static_cast<int>(cmax);
  }
  const auto corner = [&](int r, int c) {
    return Vec3<T>{dx * T(c) - s0, dy * T(r) - s1, T(data[r * ncol + c]) * s2};
  };
  for (int r = r_first; r < r_end; ++r) {
    const MaskOf<T> row = in_top && T(r) >= rmin && T(r) < rmax;
    if (!any_lane<T>(row)) continue;
    for (int c = c_first; c < c_end; ++c) {
      const MaskOf<T> cell = row && T(c) >= cmin && T(c) < cmax;
      if (!any_lane<T>(cell)) continue;
      const Vec3<T> v00 = corner(r, c), v10 = corner(r, c + 1), v11 = corner(r + 1, c + 1);
      const Vec3<T> v01 = corner(r + 1, c);
      const T first = ray_triangle(v00, v10, v11, p, v, e0, e1);
      x = ray_nearer(x, first, cell && first >= T(0));
      const T second = ray_triangle(v00, v11, v01, p, v, e0, e1);
      x = ray_nearer(x, second, cell && second >= T(0));
    }
  }
  // the top box's sides where the ray meets them below the field's edge
  for (int i = 0; i < 4; ++i) {
    const T at = faces[i];
    const MaskOf<T> maybe = in_top && at >= T(0) && (at < x || x < T(0));
    if (!any_lane<T>(maybe)) continue;
    const T z = (p.z + at * v.z) / s2;
    const bool across_x = i < 2;  // the faces x = ±s₀ run along y
    const T u = across_x ? (p.y + at * v.y + s1) / dy : (p.x + at * v.x + s0) / dx;
    const int n = across_x ? nrow : ncol;
    const T u0 = clamp_index(vfloor(u), n - 2);
    // the edge's elevations at u0 and u0 + 1: column 0 or ncol − 1, row 0 or nrow − 1
    const int stride = across_x ? ncol : 1;
    const int offset = across_x ? (i == 1 ? ncol - 1 : 0) : (i == 3 ? (nrow - 1) * ncol : 0);
    const T z0 = ray_pick(data, u0, n - 1, stride, offset);
    const T z1 = ray_pick(data, u0 + T(1), n, stride, offset);
    const MaskOf<T> below = z < z0 * (u0 + T(1) - u) + z1 * (u - u0);
    x = vselect(maybe && below, at, x);
  }
  return x;
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
