// (geom_xpos, geom_xmat, geom_size of two geoms, margin) => one contact (dist, pos, frame)
//
// MuJoCo 2.2.2's general convex collision (engine_collision_convex.c) for the pairs its table
// sends there that zwang supports: sphere, capsule, ellipsoid, cylinder or box against an
// ellipsoid or a cylinder (mjc_Convex), and plane–ellipsoid (mjc_PlaneConvex).  Meshes and height
// fields stay unsupported.
//
// mjc_Convex runs libccd 2.1's MPR (ccdMPRPenetration, double precision, CCD_EPS = DBL_EPSILON)
// on the Minkowski difference A − B of the two geoms, each inflated by margin/2 (the support
// point gains dir·margin/2), with the geom centres as the interior point; mpr_tolerance 1e-6
// and mpr_iterations 50 (MuJoCo's option defaults).  The three phases:
//   discovery   a tetrahedron (v₀ the centre difference, v₁ v₂ v₃ support points) whose face
//               v₁v₂v₃ the ray from v₀ through the origin crosses; none: no contact
//   refinement  v₁v₂v₃ replaced by support points along its outward normal until the origin is
//               inside (contact) or the face cannot move past it by more than the tolerance
//   penetration the same expansion until the face moves less than the tolerance (or 50 times):
//               depth = |w|, w the point of face v₁v₂v₃ nearest the origin, dir = w/|w|;
//               pos the midpoint of the two geoms' points at the barycentric coordinates of the
//               origin in the tetrahedron
// and the contact is
//   dist = margin − depth,   pos,   n = dir (none where dir = 0, a touching contact)
// after which mjc_fixNormal replaces n by the geoms' own surface normals at pos where it can
// (sphere; capsule; ellipsoid, by a small iterative projection; the round wall of a cylinder
// away from its disks): n = n₁ − n₂ normalised when both geoms give one, else the one given.
// The frame is that of mju_makeFrame with no tangent hint (MuJoCo zeroes it).  One contact per
// pair: mjc_Convex adds more only under mjENBL_MULTICCD, off by default and never for spheres
// and ellipsoids.
//
// Plane–ellipsoid: the ellipsoid's support point s along −n (n the plane's z axis, no margin
// inflation) gives dist = (s − p)·n, kept when ≤ margin, pos = s − (dist/2) n, frame from n.
//
// Each step follows libccd's and MuJoCo's order of operations, so that in double the results
// are theirs to rounding.  libccd's discovery and refinement loops have no bound; here they stop
// after kMaxPortalSteps (no contact), far above the few tens of steps convex geoms take.
//
// Included by kernels/narrowphase.h after GeomPose and ContactGeo; never on its own.
#pragma once

#include <cmath>
#include <limits>

#include "kernels/hd.h"
#include "kernels/math_vec.h"

namespace zwang {
namespace convex {

// MuJoCo's option defaults mpr_tolerance, mpr_iterations
template <class T>
ZW_HD ZW_INLINE T mpr_tolerance() {
  return T(1e-6);
}
constexpr int kMprIterations = 50;
// bound on libccd's unbounded portal discovery and refinement loops
constexpr int kMaxPortalSteps = 1000;

// libccd's CCD_EPS: the machine epsilon of its real type
template <class T>
ZW_HD ZW_INLINE T ccd_eps() {
  return std::numeric_limits<T>::epsilon();
}

// ccdIsZero
template <class T>
ZW_HD ZW_INLINE bool is_zero(T x) {
  return T(vfabs(x)) < ccd_eps<T>();
}

// ccdEq: equal to an absolute or relative epsilon
template <class T>
ZW_HD ZW_INLINE bool eq(T a, T b) {
  const T ab = vfabs(a - b);
  if (ab < ccd_eps<T>()) return true;
  const T fa = vfabs(a), fb = vfabs(b);
  return ab < ccd_eps<T>() * (fb > fa ? fb : fa);
}

template <class T>
ZW_HD ZW_INLINE bool is_origin(const Vec3<T>& v) {
  return eq(v.x, T(0)) && eq(v.y, T(0)) && eq(v.z, T(0));
}

// ccdVec3Normalize: v · (1/|v|), no guard
template <class T>
ZW_HD ZW_INLINE Vec3<T> unit(const Vec3<T>& v) {
  const T k = T(1) / vsqrt(dot(v, v));
  return k * v;
}

template <class T>
ZW_HD ZW_INLINE T sign(T x) {
  return x < T(0) ? T(-1) : (x > T(0) ? T(1) : T(0));
}

// v / |v|, or e_x when |v| < mjMINVAL (mju_normalize3)
template <class T>
ZW_HD ZW_INLINE Vec3<T> normalized(Vec3<T> v) {
  primitive::normalize(v);
  return v;
}

// a geom as the support function sees it
template <class T>
struct Shape {
  int type;
  const GeomPose<T>& g;
  T margin;  // the shape is inflated by margin/2
};

// mjccd_support: the point of the geom farthest along the world direction d
template <class T>
ZW_HD Vec3<T> support(const Shape<T>& s, const Vec3<T>& d) {
  const Vec3<T> dir = mul_transposed(s.g.mat, d);
  const Vec3<T>& size = s.g.size;
  Vec3<T> res{T(0), T(0), T(0)};
  switch (s.type) {
    case GeomType::kSphere:
      res = size.x * dir;
      break;
    case GeomType::kCapsule:
      res = size.x * dir;
      res.z += sign(dir.z) * size.y;
      break;
    case GeomType::kEllipsoid:
      // the support of the unit sphere along S dir, mapped back by S
      res = normalized(Vec3<T>{dir.x * size.x, dir.y * size.y, dir.z * size.z});
      res = {res.x * size.x, res.y * size.y, res.z * size.z};
      break;
    case GeomType::kCylinder: {
      const T len = vsqrt(dir.x * dir.x + dir.y * dir.y);
      if (len > primitive::min_length<T>()) {
        res.x = dir.x / len * size.x;
        res.y = dir.y / len * size.x;
      }
      res.z = sign(dir.z) * size.y;
      break;
    }
    case GeomType::kBox:
      res = {sign(dir.x) * size.x, sign(dir.y) * size.y, sign(dir.z) * size.z};
      break;
    default:
      break;
  }
  // inflate by margin/2
  res.x += dir.x * s.margin / T(2);
  res.y += dir.y * s.margin / T(2);
  res.z += dir.z * s.margin / T(2);
  return mul(s.g.mat, res) + s.g.pos;
}

// a point of the Minkowski difference v = v1 − v2 with the geoms' points v1, v2
template <class T>
struct Point {
  Vec3<T> v, v1, v2;
};

// __ccdSupport: geom 1 along d, geom 2 along −d
template <class T>
ZW_HD ZW_INLINE Point<T> support(const Shape<T>& a, const Shape<T>& b, const Vec3<T>& d) {
  Point<T> p;
  p.v1 = support(a, d);
  p.v2 = support(b, T(-1) * d);
  p.v = p.v1 - p.v2;
  return p;
}

// the portal: v0 the interior point, v1 v2 v3 the face towards the origin
template <class T>
struct Portal {
  Point<T> v0, v1, v2, v3;
};

// portalDir: the unit normal of face v1 v2 v3
template <class T>
ZW_HD ZW_INLINE Vec3<T> portal_dir(const Portal<T>& p) {
  return unit(cross(p.v2.v - p.v1.v, p.v3.v - p.v1.v));
}

// portalReachTolerance: v4 lies less than the tolerance beyond the face along dir
template <class T>
ZW_HD ZW_INLINE bool reach_tolerance(const Portal<T>& p, const Point<T>& v4, const Vec3<T>& dir) {
  const T dv1 = dot(p.v1.v, dir), dv2 = dot(p.v2.v, dir), dv3 = dot(p.v3.v, dir);
  const T dv4 = dot(v4.v, dir);
  T least = fmin(dv4 - dv1, dv4 - dv2);
  least = fmin(least, dv4 - dv3);
  return eq(least, mpr_tolerance<T>()) || least < mpr_tolerance<T>();
}

// ccd's "zero or positive"
template <class T>
ZW_HD ZW_INLINE bool non_negative(T x) {
  return is_zero(x) || x > T(0);
}

// expandPortal: v4 replaces the vertex of v1 v2 v3 that keeps the origin ray inside
template <class T>
ZW_HD ZW_INLINE void expand(Portal<T>& p, const Point<T>& v4) {
  const Vec3<T> v4v0 = cross(v4.v, p.v0.v);
  if (dot(p.v1.v, v4v0) > T(0)) {
    if (dot(p.v2.v, v4v0) > T(0)) {
      p.v1 = v4;
    } else {
      p.v3 = v4;
    }
  } else {
    if (dot(p.v3.v, v4v0) > T(0)) {
      p.v2 = v4;
    } else {
      p.v1 = v4;
    }
  }
}

// discoverPortal: 0 with a portal, −1 when the origin is outside, 1 when it is on v1, 2 when it
// is on the segment v0 v1
template <class T>
ZW_HD int discover(const Shape<T>& a, const Shape<T>& b, Portal<T>& p) {
  // v0: the centre difference, moved off the origin
  p.v0.v1 = a.g.pos;
  p.v0.v2 = b.g.pos;
  p.v0.v = p.v0.v1 - p.v0.v2;
  if (is_origin(p.v0.v)) p.v0.v.x += ccd_eps<T>() * T(10);

  // v1: towards the origin
  Vec3<T> dir = unit(T(-1) * p.v0.v);
  p.v1 = support(a, b, dir);
  T d = dot(p.v1.v, dir);
  if (is_zero(d) || d < T(0)) return -1;

  // v2: normal to v0 and v1
  dir = cross(p.v0.v, p.v1.v);
  if (is_zero(dot(dir, dir))) return is_origin(p.v1.v) ? 1 : 2;
  dir = unit(dir);
  p.v2 = support(a, b, dir);
  d = dot(p.v2.v, dir);
  if (is_zero(d) || d < T(0)) return -1;

  // v3: normal to the triangle v0 v1 v2, facing away from v0
  dir = unit(cross(p.v1.v - p.v0.v, p.v2.v - p.v0.v));
  if (dot(dir, p.v0.v) > T(0)) {
    const Point<T> t = p.v1;
    p.v1 = p.v2;
    p.v2 = t;
    dir = T(-1) * dir;
  }
  for (int step = 0; step < kMaxPortalSteps; ++step) {
    p.v3 = support(a, b, dir);
    const T d3 = dot(p.v3.v, dir);
    if (is_zero(d3) || d3 < T(0)) return -1;
    // the origin outside (v1, v0, v3): v3 replaces v2; outside (v3, v0, v2): v3 replaces v1
    T side = dot(cross(p.v1.v, p.v3.v), p.v0.v);
    bool moved = false;
    if (side < T(0) && !is_zero(side)) {
      p.v2 = p.v3;
      moved = true;
    } else {
      side = dot(cross(p.v3.v, p.v2.v), p.v0.v);
      if (side < T(0) && !is_zero(side)) {
        p.v1 = p.v3;
        moved = true;
      }
    }
    if (!moved) return 0;
    dir = unit(cross(p.v1.v - p.v0.v, p.v2.v - p.v0.v));
  }
  return -1;
}

// refinePortal: true when the portal comes to hold the origin
template <class T>
ZW_HD bool refine(const Shape<T>& a, const Shape<T>& b, Portal<T>& p) {
  for (int step = 0; step < kMaxPortalSteps; ++step) {
    const Vec3<T> dir = portal_dir(p);
    if (non_negative(dot(dir, p.v1.v))) return true;
    const Point<T> v4 = support(a, b, dir);
    if (!non_negative(dot(v4.v, dir)) || reach_tolerance(p, v4, dir)) return false;
    expand(p, v4);
  }
  return false;
}

// ccdVec3PointSegmentDist2 from the origin to segment x0 b, with its nearest point w
template <class T>
ZW_HD ZW_INLINE T segment_dist2(const Vec3<T>& x0, const Vec3<T>& b, Vec3<T>& w) {
  const Vec3<T> d = b - x0;
  T t = T(-1) * dot(x0, d);
  t /= dot(d, d);
  if (t < T(0) || is_zero(t)) {
    w = x0;
  } else if (t > T(1) || eq(t, T(1))) {
    w = b;
  } else {
    w = t * d + x0;
  }
  return dot(w, w);
}

// ccdVec3PointTriDist2 from the origin to triangle x0 b c, with its nearest point w
template <class T>
ZW_HD T triangle_dist2(const Vec3<T>& x0, const Vec3<T>& b, const Vec3<T>& c, Vec3<T>& w) {
  const Vec3<T> d1 = b - x0, d2 = c - x0;
  const T v = dot(d1, d1), ww = dot(d2, d2);
  const T p = dot(x0, d1), q = dot(x0, d2), r = dot(d1, d2);
  const T det = ww * v - r * r;
  T s = T(-1), t = T(-1);
  if (!is_zero(det)) {
    s = (q * r - ww * p) / det;
    t = (-s * r - q) / ww;
  }
  if (non_negative(s) && (eq(s, T(1)) || s < T(1)) && non_negative(t) &&
      (eq(t, T(1)) || t < T(1)) && (eq(t + s, T(1)) || t + s < T(1))) {
    w = x0 + s * d1;
    w += t * d2;
    return dot(w, w);
  }
  T dist = segment_dist2(x0, b, w);
  Vec3<T> w2;
  T dist2 = segment_dist2(x0, c, w2);
  if (dist2 < dist) {
    dist = dist2;
    w = w2;
  }
  dist2 = segment_dist2(b, c, w2);
  if (dist2 < dist) {
    dist = dist2;
    w = w2;
  }
  return dist;
}

// findPos: the midpoint of the geoms' points at the origin's barycentric coordinates in the
// portal (in face v1 v2 v3 when the tetrahedron is flat or inverted)
template <class T>
ZW_HD Vec3<T> find_pos(const Portal<T>& p) {
  const Vec3<T> dir = portal_dir(p);
  T b0 = dot(cross(p.v1.v, p.v2.v), p.v3.v);
  T b1 = dot(cross(p.v3.v, p.v2.v), p.v0.v);
  T b2 = dot(cross(p.v0.v, p.v1.v), p.v3.v);
  T b3 = dot(cross(p.v2.v, p.v1.v), p.v0.v);
  T sum = b0 + b1 + b2 + b3;
  if (is_zero(sum) || sum < T(0)) {
    b0 = T(0);
    b1 = dot(cross(p.v2.v, p.v3.v), dir);
    b2 = dot(cross(p.v3.v, p.v1.v), dir);
    b3 = dot(cross(p.v1.v, p.v2.v), dir);
    sum = b1 + b2 + b3;
  }
  const T inv = T(1) / sum;
  Vec3<T> p1 = b0 * p.v0.v1;
  p1 += b1 * p.v1.v1;
  p1 += b2 * p.v2.v1;
  p1 += b3 * p.v3.v1;
  Vec3<T> p2 = b0 * p.v0.v2;
  p2 += b1 * p.v1.v2;
  p2 += b2 * p.v2.v2;
  p2 += b3 * p.v3.v2;
  return T(0.5) * (inv * p1 + inv * p2);
}

// ccdMPRPenetration of the two shapes: false when they do not overlap
template <class T>
ZW_HD bool mpr_penetration(const Shape<T>& a, const Shape<T>& b, T& depth, Vec3<T>& dir,
                           Vec3<T>& pos) {
  Portal<T> p;
  const int found = discover(a, b, p);
  if (found < 0) return false;
  if (found == 1) {
    // touching at v1: no direction
    depth = T(0);
    dir = {T(0), T(0), T(0)};
    pos = T(0.5) * (p.v1.v1 + p.v1.v2);
    return true;
  }
  if (found == 2) {
    // the origin on segment v0 v1: v1 itself
    pos = T(0.5) * (p.v1.v1 + p.v1.v2);
    dir = p.v1.v;
    depth = vsqrt(dot(dir, dir));
    dir = unit(dir);
    return true;
  }
  if (!refine(a, b, p)) return false;

  // expand the portal towards the surface of the difference
  for (int iter = 0;; ++iter) {
    const Vec3<T> d = portal_dir(p);
    const Point<T> v4 = support(a, b, d);
    if (reach_tolerance(p, v4, d) || iter > kMprIterations) {
      Vec3<T> w;
      depth = vsqrt(triangle_dist2(p.v1.v, p.v2.v, p.v3.v, w));
      dir = is_zero(depth) ? Vec3<T>{T(0), T(0), T(0)} : unit(w);
      pos = find_pos(p);
      return true;
    }
    expand(p, v4);
  }
}

// mjc_ellipsoidInside: the normal at the point of the ellipsoid (semi-axes s) hit by the ray
// from pos (inside) along nrm, iterated to a fixed point; false where none is found
template <class T>
ZW_HD bool ellipsoid_inside(Vec3<T>& nrm, const Vec3<T>& pos, const Vec3<T>& s) {
  const Vec3<T> s2inv{T(1) / (s.x * s.x), T(1) / (s.y * s.y), T(1) / (s.z * s.z)};
  const T c = pos.x * pos.x * s2inv.x + pos.y * pos.y * s2inv.y + pos.z * pos.z * s2inv.z - T(1);
  if (c > T(0)) return false;
  nrm = normalized(nrm);
  for (int iter = 0; iter < 30; ++iter) {
    // (pos + x nrm) on the ellipsoid, x ≥ 0: A x² + 2 B x + C = 0
    const T qa = nrm.x * nrm.x * s2inv.x + nrm.y * nrm.y * s2inv.y + nrm.z * nrm.z * s2inv.z;
    const T qb = pos.x * nrm.x * s2inv.x + pos.y * nrm.y * s2inv.y + pos.z * nrm.z * s2inv.z;
    const T det = qb * qb - qa * c;
    if (det < primitive::min_length<T>() || qa < primitive::min_length<T>()) return iter > 0;
    const T x = (-qb + vsqrt(det)) / qa;
    if (x < T(0)) return iter > 0;
    const Vec3<T> pnt = pos + x * nrm;
    const Vec3<T> next = normalized(Vec3<T>{pnt.x * s2inv.x, pnt.y * s2inv.y, pnt.z * s2inv.z});
    const Vec3<T> step = nrm - next;
    const T change = vsqrt(step.x * step.x + step.y * step.y + step.z * step.z);
    nrm = next;
    if (change < T(1e-6)) break;
  }
  return true;
}

// mjc_ellipsoidOutside: the normal at the point of the ellipsoid nearest pos (outside), from
// the multiplier λ of Σ pos_i² s_i² / (s_i² + λ)² = 1 by Newton's method
template <class T>
ZW_HD bool ellipsoid_outside(Vec3<T>& nrm, const Vec3<T>& pos, const Vec3<T>& s) {
  const Vec3<T> s2{s.x * s.x, s.y * s.y, s.z * s.z};
  const Vec3<T> ps2{pos.x * pos.x * s2.x, pos.y * pos.y * s2.y, pos.z * pos.z * s2.z};
  T la = T(0);
  for (int iter = 0; iter < 30; ++iter) {
    const Vec3<T> r{T(1) / (s2.x + la), T(1) / (s2.y + la), T(1) / (s2.z + la)};
    const T val = ps2.x * r.x * r.x + ps2.y * r.y * r.y + ps2.z * r.z * r.z - T(1);
    if (val < T(1e-6)) break;
    const T deriv =
        T(-2) * (ps2.x * r.x * r.x * r.x + ps2.y * r.y * r.y * r.y + ps2.z * r.z * r.z * r.z);
    if (deriv > -primitive::min_length<T>()) break;
    const T delta = -val / deriv;
    if (delta < T(1e-6)) break;
    la += delta;
  }
  nrm = normalized(Vec3<T>{pos.x / (s2.x + la), pos.y / (s2.y + la), pos.z / (s2.z + la)});
  return true;
}

// mjc_fixNormal for one geom: its outward surface normal near the contact point, replacing
// `normal` (world) where the geom's type gives one; false where it does not
template <class T>
ZW_HD bool surface_normal(int type, const GeomPose<T>& g, const Vec3<T>& at, Vec3<T>& normal) {
  const Vec3<T> pos = mul_transposed(g.mat, at - g.pos);
  Vec3<T> nrm = mul_transposed(g.mat, normal);
  const Vec3<T>& size = g.size;
  bool done = false;
  switch (type) {
    case GeomType::kSphere:
      nrm = pos;
      done = true;
      break;
    case GeomType::kCapsule:
      // from the nearest point of the segment
      nrm.z = pos.z < -size.y ? pos.z + size.y : (pos.z > size.y ? pos.z - size.y : T(0));
      nrm.x = pos.x;
      nrm.y = pos.y;
      done = true;
      break;
    case GeomType::kEllipsoid: {
      if (size.x < primitive::min_length<T>() || size.y < primitive::min_length<T>() ||
          size.z < primitive::min_length<T>())
        break;
      const T inside = pos.x * pos.x / (size.x * size.x) + pos.y * pos.y / (size.y * size.y) +
                       pos.z * pos.z / (size.z * size.z);
      done = inside <= T(1) ? ellipsoid_inside(nrm, pos, size) : ellipsoid_outside(nrm, pos, size);
      break;
    }
    case GeomType::kCylinder: {
      // the round wall only, away from the disks: 5% of the length, 4x closer than the disk
      if (T(vfabs(pos.z)) > T(0.95) * size.y) break;
      const T to_disk = vfabs(size.y - vfabs(pos.z));
      const T to_wall = vfabs(size.x - vsqrt(pos.x * pos.x + pos.y * pos.y));
      if (to_disk < T(0.25) * to_wall) break;
      nrm = {pos.x, pos.y, T(0)};
      done = true;
      break;
    }
    default:
      break;
  }
  if (done) normal = mul(g.mat, normalized(nrm));
  return done;
}

// mjc_Convex (without multiCCD) for geoms of types t1 ≤ t2
template <class T, class Emit>
ZW_HD int convex_convex(int t1, int t2, const GeomPose<T>& g1, const GeomPose<T>& g2, T margin,
                        Emit& emit) {
  const Shape<T> a{t1, g1, margin}, b{t2, g2, margin};
  T depth;
  Vec3<T> dir, pos;
  if (!mpr_penetration(a, b, depth, dir, pos)) return 0;
  if (is_origin(dir)) return 0;

  // mjc_fixNormal: n₁ − n₂ from the surfaces where both give one
  Vec3<T> n1 = dir, n2 = T(-1) * dir;
  const bool fix1 = surface_normal(t1, g1, pos, n1);
  const bool fix2 = surface_normal(t2, g2, pos, n2);
  Vec3<T> n = dir;
  if (fix1 && fix2) {
    n = normalized(n1 - n2);
  } else if (fix1) {
    n = n1;
  } else if (fix2) {
    n = T(-1) * n2;
  }
  emit(ContactGeo<T>{margin - depth, pos, primitive::make_frame(n, Vec3<T>{T(0), T(0), T(0)})});
  return 1;
}

// mjc_PlaneConvex for an ellipsoid: its support point along −n
template <class T, class Emit>
ZW_HD int plane_convex(int t2, const GeomPose<T>& plane, const GeomPose<T>& g2, T margin,
                       Emit& emit) {
  const Vec3<T> n = column(plane.mat, 2);
  const Vec3<T> s = support(Shape<T>{t2, g2, T(0)}, Vec3<T>{-n.x, -n.y, -n.z});
  const T dist = dot(n, s - plane.pos);
  if (dist > margin) return 0;
  emit(ContactGeo<T>{dist, s + (T(-0.5) * dist) * n,
                     primitive::make_frame(n, Vec3<T>{T(0), T(0), T(0)})});
  return 1;
}

}  // namespace convex

// the pairs of types t1 ≤ t2 that MuJoCo 2.2.2 sends to mjc_Convex or mjc_PlaneConvex, less
// meshes and height fields
ZW_HD constexpr bool convex_pair(int t1, int t2) {
  const bool round = t2 == GeomType::kEllipsoid || t2 == GeomType::kCylinder;
  const bool solid = t1 >= GeomType::kSphere && t1 <= GeomType::kCylinder;
  return (round && solid) || (t1 == GeomType::kEllipsoid && t2 == GeomType::kBox) ||
         (t1 == GeomType::kCylinder && t2 == GeomType::kBox) ||
         (t1 == GeomType::kPlane && t2 == GeomType::kEllipsoid);
}

// most contacts of the convex narrow phase for types t1 ≤ t2; 0 for a pair it does not handle
ZW_HD constexpr int max_contacts_convex(int t1, int t2) {
  return convex_pair(t1, t2) ? 1 : 0;
}

// narrow phase of the convex pairs (types t1 ≤ t2, as MuJoCo orders them): emit(const
// ContactGeo<T>&) for the contact, if any; returns how many
template <class T, class Emit>
ZW_HD int collide_convex(int t1, int t2, const GeomPose<T>& g1, const GeomPose<T>& g2, T margin,
                         Emit&& emit) {
  if (!convex_pair(t1, t2)) return 0;
  if (t1 == GeomType::kPlane) return convex::plane_convex(t2, g1, g2, margin, emit);
  return convex::convex_convex(t1, t2, g1, g2, margin, emit);
}

}  // namespace zwang
