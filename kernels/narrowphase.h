// (geom_xpos, geom_xmat, geom_size of two geoms, margin) => contacts (dist, pos, frame)
//
// The narrow phase of MuJoCo 2.2.2 for primitive pairs (engine_collision_primitive.c); the pairs
// of its engine_collision_box.c (sphere–box, capsule–box, box–box) come from
// kernels/narrowphase_box.h when that header exists.  Per contact, as d->contact holds it after
// mj_forward:
//   dist   signed distance between the two surfaces along n (negative in penetration)
//   pos    the midpoint between the two surfaces along n
//   frame  rows n, t₁, t₂ (mju_makeFrame): n from geom1 to geom2; t₁ the pair's tangent hint
//          minus its n part, normalised, where the hint is the capsule axis for plane–capsule
//          and e_y for every other pair (e_z when |n_y| ≥ ½); t₂ = n × t₁
// A contact is returned when dist ≤ margin: MuJoCo's primitives drop a contact only when
// dist > margin.  The bounding-sphere tests mj_collideGeoms makes first never drop a contact of
// these pairs (geom_rbound bounds the extents used here), so callers can skip them.
// The pairs MuJoCo 2.2.2 hands to libccd's MPR (ellipsoids, cylinders against anything but a
// plane) come from kernels/narrowphase_convex.h, one contact each; plane–mesh from
// kernels/narrowphase_mesh.h (MuJoCo 4.0's); a mesh against the other geoms from
// kernels/narrowphase_ccd.h (MuJoCo 4.0's GJK and EPA); a height field against sphere, capsule,
// ellipsoid, cylinder, box and mesh from kernels/narrowphase_hfield.h (its prisms, each by GJK and
// EPA); a height field against a plane or a height field has no contacts (MuJoCo has none).
//
// Include this header, never kernels/narrowphase_box.h, _convex.h or _mesh.h on their own: they are
// read in the middle of this one, after the types and helpers they use, before the dispatch that
// calls them.
#pragma once

#include <cmath>

#include "kernels/hd.h"
#include "kernels/math_vec.h"
#include "kernels/types.h"

namespace zwang {

// a geom in the world: MuJoCo's geom_xpos, geom_xmat (row-major, columns are the geom axes),
// geom_size (sphere r; capsule, cylinder r, half-length; box half-sizes; plane unused)
// a mesh geom's convex hull as the model holds it (shared by all instances): its vertices in the
// mesh frame and its polygons (the hull's triangles of one plane merged), each with its corners
// (vertices of the mesh, counter-clockwise seen from outside) and outward normal, and each
// vertex's polygons; all indices within the mesh
template <class T>
struct MeshHull {
  const T* vert = nullptr;  // x y z per vertex
  int nvert = 0;
  const int* polyvertadr = nullptr;  // per polygon: first corner in polyvert
  const int* polyvertnum = nullptr;  // per polygon: corners
  const int* polyvert = nullptr;
  const T* polynormal = nullptr;    // per polygon: x y z
  const int* polymapadr = nullptr;  // per vertex: first polygon in polymap
  const int* polymapnum = nullptr;  // per vertex: polygons
  const int* polymap = nullptr;
  ZW_HD ZW_INLINE Vec3<T> vertex(int v) const {
    return {vert[3 * v], vert[3 * v + 1], vert[3 * v + 2]};
  }
  ZW_HD ZW_INLINE Vec3<T> polynormal_of(int p) const {
    return {polynormal[3 * p], polynormal[3 * p + 1], polynormal[3 * p + 2]};
  }
  // the vertex farthest along the mesh-frame direction d, the first of equals
  ZW_HD int farthest(const Vec3<T>& d) const {
    int best = 0;
    T most = dot(d, vertex(0));
    for (int v = 1; v < nvert; ++v) {
      const T s = dot(d, vertex(v));
      if (s > most) {
        most = s;
        best = v;
      }
    }
    return best;
  }
};

// a height field as the model holds it (shared by all instances): nrow rows along y of ncol
// elevations in [0, 1] along x, over [−size[0], size[0]] × [−size[1], size[1]], the surface
// size[2] · elevation high and the solid down to −size[3]
template <class T>
struct HFieldGrid {
  const T* data = nullptr;
  int nrow = 0, ncol = 0;
  T size[4] = {T(0), T(0), T(0), T(0)};
  ZW_HD ZW_INLINE T elevation(int r, int c) const { return data[r * ncol + c]; }
};

template <class T>
struct GeomPose {
  Vec3<T> pos;
  Mat3<T> mat;
  Vec3<T> size;
  MeshHull<T> mesh{};      // a mesh geom's hull; empty for the other types
  HFieldGrid<T> hfield{};  // a height-field geom's grid; empty for the other types
};

// one contact as MuJoCo's mjContact: dist, pos, frame (row 0 the normal from geom1 to geom2,
// rows 1, 2 the tangents)
template <class T>
struct ContactGeo {
  T dist;
  Vec3<T> pos;
  Mat3<T> frame;
};

namespace primitive {

// MuJoCo's mjMINVAL: the smallest length a direction is taken from
template <class T>
ZW_HD ZW_INLINE T min_length() {
  return T(1e-15);
}

// v ← v / |v|, or e_x when |v| < mjMINVAL (mju_normalize3); returns |v|
template <class T>
ZW_HD ZW_INLINE T normalize(Vec3<T>& v) {
  T len;
  v = unit_or_x(v, len);
  return len;
}

// mju_makeFrame: rows n/|n|, t₁, n × t₁ with t₁ = h − (n·h) n normalised; a hint h shorter
// than ½ is replaced by e_y, or by e_z where |n_y| ≥ ½ (e_y would be nearly along n)
template <class T>
ZW_HD ZW_INLINE Mat3<T> make_frame(Vec3<T> n, const Vec3<T>& hint) {
  normalize(n);
  const bool y_ok = n.y < T(0.5) && n.y > T(-0.5);
  const Vec3<T> fallback{T(0), T(y_ok), T(!y_ok)};
  const Vec3<T> h = norm(hint) < T(0.5) ? fallback : hint;
  Vec3<T> t1 = h - dot(n, h) * n;
  normalize(t1);
  const Vec3<T> t2 = cross(n, t1);
  return {{n.x, n.y, n.z, t1.x, t1.y, t1.z, t2.x, t2.y, t2.z}};
}

template <class T>
ZW_HD ZW_INLINE T clamp_unit(T x) {
  return x > T(1) ? T(1) : (x < T(-1) ? T(-1) : x);
}

// plane (point p, normal n) and a sphere (centre c, radius r), kept when (c − p)·n ≤ margin + r:
//   dist = (c − p)·n − r,   pos = c − (r + dist/2) n
template <class T, class Emit>
ZW_HD ZW_INLINE int plane_sphere(const Vec3<T>& p, const Vec3<T>& n, const Vec3<T>& c, T r,
                                 const Vec3<T>& hint, T margin, Emit& emit) {
  const T height = dot(c - p, n);
  if (height > margin + r) return 0;
  const T dist = height - r;
  emit(ContactGeo<T>{dist, c + (-dist / T(2) - r) * n, make_frame(n, hint)});
  return 1;
}

// two spheres, kept when |c₂ − c₁| ≤ margin + r₁ + r₂: n = (c₂ − c₁)/|c₂ − c₁|,
// dist = |c₂ − c₁| − r₁ − r₂, pos = c₁ + (r₁ + dist/2) n.  Coincident centres take
// n = z₁ × z₂ normalised (e_x when the z axes are parallel): a sphere test stands for the
// nearest points of capsules, whose axes these are.
template <class T, class Emit>
ZW_HD ZW_INLINE int sphere_sphere(const Vec3<T>& c1, T r1, const Vec3<T>& z1, const Vec3<T>& c2,
                                  T r2, const Vec3<T>& z2, T margin, Emit& emit) {
  const Vec3<T> d = c1 - c2;
  const T centres = vsqrt(dot(d, d));
  if (centres > margin + r1 + r2) return 0;
  const T dist = centres - r1 - r2;
  Vec3<T> n = c2 - c1;
  const T len = normalize(n);
  Vec3<T> nz = cross(z1, z2);
  normalize(nz);
  n = len < min_length<T>() ? nz : n;
  emit(ContactGeo<T>{dist, (r1 + dist / T(2)) * n + c1, make_frame(n, Vec3<T>{T(0), T(0), T(0)})});
  return 1;
}

// the plane is geom1: n is its z axis
template <class T, class Emit>
ZW_HD int plane_sphere(const GeomPose<T>& plane, const GeomPose<T>& s, T margin, Emit& emit) {
  const Vec3<T> zero{T(0), T(0), T(0)};
  return plane_sphere(plane.pos, column(plane.mat, 2), s.pos, s.size.x, zero, margin, emit);
}

// the two end spheres c ± h a, the end at +h a first; t₁ hint: the axis a
template <class T, class Emit>
ZW_HD int plane_capsule(const GeomPose<T>& plane, const GeomPose<T>& cap, T margin, Emit& emit) {
  const Vec3<T> n = column(plane.mat, 2), a = column(cap.mat, 2);
  const Vec3<T> seg = cap.size.y * a;
  const int count = plane_sphere(plane.pos, n, cap.pos + seg, cap.size.x, a, margin, emit);
  return count + plane_sphere(plane.pos, n, cap.pos - seg, cap.size.x, a, margin, emit);
}

// a cylinder (centre c, axis a, radius r, half-length h) on a plane (p, n).  With a turned
// towards the plane (a·n ≤ 0) and v the radius vector of the rim point nearest the plane,
//   v = r (a (a·n) − n) / |a (a·n) − n|   (r x_cyl when the disks are parallel to the plane)
// the candidates are, at height (c − p)·n + h a·n + v·n and so on:
//   1  c + v + h a            the nearest point; nothing when it is beyond the margin
//   2  c + v − h a            the same rim point on the far disk
//   3  c + w + h a − v/2      the near disk's rim at ±120° from v, w = ±(√3/2) r (v × a)/|v × a|
//   4  c − w + h a − v/2
// each at pos = point − (dist/2) n.
template <class T, class Emit>
ZW_HD int plane_cylinder(const GeomPose<T>& plane, const GeomPose<T>& cyl, T margin, Emit& emit) {
  const Vec3<T> n = column(plane.mat, 2), zero{T(0), T(0), T(0)};
  const T r = cyl.size.x, h = cyl.size.y;
  Vec3<T> a = column(cyl.mat, 2);
  T an = dot(n, a);
  const T flip = an > T(0) ? T(-1) : T(1);
  a = flip * a;
  an = flip * an;
  const T dist0 = dot(cyl.pos - plane.pos, n);

  // v: the radial direction of the rim point nearest the plane, scaled to the radius
  Vec3<T> v = an * a - n;
  const T len = norm(v);
  const bool flat = !(len >= min_length<T>());
  const T scl = r / (flat ? T(1) : len);
  v = flat ? r * column(cyl.mat, 0) : scl * v;
  const T vn = dot(v, n);

  const Vec3<T> axis = h * a;
  const T ahn = an * h;
  const Mat3<T> frame = make_frame(n, zero);
  ContactGeo<T> c;
  c.frame = frame;

  c.dist = dist0 + ahn + vn;
  if (!(c.dist <= margin)) return 0;
  c.pos = cyl.pos + v + axis + (-c.dist * T(0.5)) * n;
  emit(c);
  int count = 1;

  c.dist = dist0 - ahn + vn;
  c.pos = cyl.pos + v - axis + (-c.dist * T(0.5)) * n;
  if (c.dist <= margin) {
    emit(c);
    ++count;
  }

  c.dist = dist0 + ahn + -vn * T(0.5);
  if (c.dist <= margin) {
    Vec3<T> w = cross(v, axis);
    normalize(w);
    w = (r * vsqrt(T(3)) / T(2)) * w;
    const Vec3<T> lift = (-c.dist * T(0.5)) * n;
    c.pos = cyl.pos + w + axis + T(-0.5) * v + lift;
    emit(c);
    c.pos = cyl.pos - w + axis + T(-0.5) * v + lift;
    emit(c);
    count += 2;
  }
  return count;
}

// the corners c + R (±s_x, ±s_y, ±s_z), corner k taking +s_i where bit i of k is set, that lie
// on the plane's side of the centre (R s·n ≤ 0) and within the margin; the first four of them
template <class T, class Emit>
ZW_HD int plane_box(const GeomPose<T>& plane, const GeomPose<T>& box, T margin, Emit& emit) {
  const Vec3<T> n = column(plane.mat, 2), zero{T(0), T(0), T(0)};
  const T dist0 = dot(box.pos - plane.pos, n);
  ContactGeo<T> c;
  c.frame = make_frame(n, zero);
  int count = 0;
  for (int k = 0; k < 8 && count < 4; ++k) {
    const Vec3<T> local{(k & 1) ? box.size.x : -box.size.x, (k & 2) ? box.size.y : -box.size.y,
                        (k & 4) ? box.size.z : -box.size.z};
    const Vec3<T> corner = mul(box.mat, local);
    const T height = dot(n, corner);
    c.dist = dist0 + height;
    if (c.dist > margin || height > T(0)) continue;
    c.pos = corner + box.pos + (-c.dist / T(2)) * n;
    emit(c);
    ++count;
  }
  return count;
}

template <class T, class Emit>
ZW_HD int sphere_sphere(const GeomPose<T>& s1, const GeomPose<T>& s2, T margin, Emit& emit) {
  return sphere_sphere(s1.pos, s1.size.x, column(s1.mat, 2), s2.pos, s2.size.x, column(s2.mat, 2),
                       margin, emit);
}

// the sphere against the point of the capsule's segment c + x h a, x ∈ [−1, 1], nearest its
// centre
template <class T, class Emit>
ZW_HD int sphere_capsule(const GeomPose<T>& s, const GeomPose<T>& cap, T margin, Emit& emit) {
  const Vec3<T> a = column(cap.mat, 2), axis = cap.size.y * a;
  const T x = clamp_unit(dot(axis, s.pos - cap.pos) / dot(axis, axis));
  return sphere_sphere(s.pos, s.size.x, column(s.mat, 2), x * axis + cap.pos, cap.size.x, a, margin,
                       emit);
}

// a sphere (centre s, radius ρ) and a cylinder (centre c, axis a, radius r, half-length h), as
// MuJoCo 4.0: with x = a·(s − c) and p = (s − c) − x a the sphere's offset from the axis,
//   side    |x| < h, |p| ≥ r (or the centre inside, nearer the side than a cap): the sphere
//           against the axis point c + x a as a sphere of radius r
//   cap     |p| < r, |x| ≥ h (or inside, nearer a cap): the sphere on the cap's plane
//           (c ± h a, normal ±a), normal from the sphere into the cylinder
//   rim     otherwise: the sphere against the rim point c ± h a + r p/|p| as a point
template <class T, class Emit>
ZW_HD int sphere_cylinder(const GeomPose<T>& s, const GeomPose<T>& cyl, T margin, Emit& emit) {
  const T r = cyl.size.x, h = cyl.size.y;
  const Vec3<T> a = column(cyl.mat, 2), zs = column(s.mat, 2);
  const Vec3<T> rel = s.pos - cyl.pos;
  const T x = dot(a, rel);
  const Vec3<T> along = x * a;
  Vec3<T> p = rel - along;
  const T pp = dot(p, p);
  bool side = T(vfabs(x)) < h;
  bool cap = pp < r * r;
  if (side && cap) {
    const bool nearer_cap = h - T(vfabs(x)) < r - vsqrt(pp);
    side = !nearer_cap;
    cap = nearer_cap;
  }
  if (side) return sphere_sphere(s.pos, s.size.x, zs, along + cyl.pos, r, a, margin, emit);
  if (cap) {
    const Vec3<T> n = x > T(0) ? a : T(-1) * a;
    const T height = dot(s.pos - (cyl.pos + h * n), n);
    if (height > margin + s.size.x) return 0;
    const T dist = height - s.size.x;
    const Vec3<T> zero{T(0), T(0), T(0)};
    emit(ContactGeo<T>{dist, s.pos + (-dist / T(2) - s.size.x) * n, make_frame(T(-1) * n, zero)});
    return 1;
  }
  p = (r / vsqrt(pp)) * p;
  const Vec3<T> rim = (x > T(0) ? h : -h) * a + p + cyl.pos;
  return sphere_sphere(s.pos, s.size.x, zs, rim, T(0), a, margin, emit);
}

// two capsules: the nearest points of the segments c₁ + x₁ A₁, c₂ + x₂ A₂ (A = h a,
// x ∈ [−1, 1]) as two spheres.  Unclamped,
//   [ A₁·A₁  −A₁·A₂ ] [x₁]   [ −A₁·(c₁ − c₂) ]
//   [ −A₁·A₂  A₂·A₂ ] [x₂] = [  A₂·(c₁ − c₂) ]
// then x₁ is clamped with x₂ re-solved for it, and if x₂ leaves [−1, 1] it is clamped with x₁
// re-solved and clamped: the nearest points of the two segments.
// Parallel axes (|det| < mjMINVAL) try each end of capsule 1 against its nearest point on
// segment 2, then, while fewer than two contacts were found, each end of capsule 2: up to two.
template <class T, class Emit>
ZW_HD int capsule_capsule(const GeomPose<T>& k1, const GeomPose<T>& k2, T margin, Emit& emit) {
  const Vec3<T> z1 = column(k1.mat, 2), z2 = column(k2.mat, 2);
  const Vec3<T> a1 = k1.size.y * z1, a2 = k2.size.y * z2;
  const Vec3<T> dif = k1.pos - k2.pos;
  const T ma = dot(a1, a1), mb = -dot(a1, a2), mc = dot(a2, a2);
  const T u = -dot(a1, dif), v = dot(a2, dif);
  const T det = ma * mc - mb * mb;
  const T r1 = k1.size.x, r2 = k2.size.x;

  if (T(vfabs(det)) >= min_length<T>()) {
    T x1 = (mc * u - mb * v) / det;
    T x2 = (ma * v - mb * u) / det;
    // s = ±1 where x clamps: x₂ = (v − s mb)/mc on x₁ = s, x₁ = (u − s mb)/ma on x₂ = s
    const T s1 = x1 > T(1) ? T(1) : (x1 < T(-1) ? T(-1) : T(0));
    x2 = s1 != T(0) ? (v - s1 * mb) / mc : x2;
    x1 = s1 != T(0) ? s1 : x1;
    const T s2 = x2 > T(1) ? T(1) : (x2 < T(-1) ? T(-1) : T(0));
    x1 = s2 != T(0) ? clamp_unit((u - s2 * mb) / ma) : x1;
    x2 = s2 != T(0) ? s2 : x2;
    return sphere_sphere(x1 * a1 + k1.pos, r1, z1, x2 * a2 + k2.pos, r2, z2, margin, emit);
  }

  // parallel: end j of one capsule (sign s) against the nearest point of the other's segment
  int count = 0;
  for (int j = 0; j < 4; ++j) {
    const T s = (j & 1) ? T(-1) : T(1);
    const bool end_of_1 = j < 2;
    const T x2 = clamp_unit((v - s * mb) / mc), x1 = clamp_unit((u - s * mb) / ma);
    const Vec3<T> p1 = end_of_1 ? k1.pos + s * a1 : x1 * a1 + k1.pos;
    const Vec3<T> p2 = end_of_1 ? x2 * a2 + k2.pos : k2.pos + s * a2;
    if (j < 2 || count < 2) count += sphere_sphere(p1, r1, z1, p2, r2, z2, margin, emit);
  }
  return count;
}

}  // namespace primitive
}  // namespace zwang

#if __has_include("kernels/narrowphase_box.h")
#include "kernels/narrowphase_box.h"
#define ZW_NARROWPHASE_BOX 1
#else
#define ZW_NARROWPHASE_BOX 0
#endif
#include "kernels/narrowphase_ccd.h"
#include "kernels/narrowphase_convex.h"
#include "kernels/narrowphase_hfield.h"
#include "kernels/narrowphase_mesh.h"

namespace zwang {

// one code per ordered pair of types t1 ≤ t2, for a switch
ZW_HD constexpr int geom_pair(int t1, int t2) {
  return 8 * t1 + t2;
}

// most contacts the narrow phase of types t1 ≤ t2 can return; 0 when the pair is not supported
ZW_HD inline int max_contacts(int t1, int t2) {
  switch (geom_pair(t1, t2)) {
    case geom_pair(GeomType::kMesh, GeomType::kMesh):
      return 4;
    case geom_pair(GeomType::kPlane, GeomType::kSphere):
    case geom_pair(GeomType::kSphere, GeomType::kSphere):
    case geom_pair(GeomType::kSphere, GeomType::kCapsule):
      return 1;
    case geom_pair(GeomType::kPlane, GeomType::kCapsule):
    case geom_pair(GeomType::kCapsule, GeomType::kCapsule):
      return 2;
    case geom_pair(GeomType::kPlane, GeomType::kCylinder):
    case geom_pair(GeomType::kPlane, GeomType::kBox):
    case geom_pair(GeomType::kPlane, GeomType::kMesh):
      return 4;
#if ZW_NARROWPHASE_BOX
    // the pairs of MuJoCo's engine_collision_box.c
    case geom_pair(GeomType::kSphere, GeomType::kBox):
    case geom_pair(GeomType::kCapsule, GeomType::kBox):
    case geom_pair(GeomType::kBox, GeomType::kBox):
      return max_contacts_box(t1, t2);
#endif
    default:
      // a height field against sphere, capsule, ellipsoid, cylinder, box or mesh
      if (t1 == GeomType::kHfield && t2 >= GeomType::kSphere) return hfield::kMaxContacts;
      // a mesh against sphere, capsule, ellipsoid, cylinder, box or mesh
      if (t2 == GeomType::kMesh && t1 >= GeomType::kSphere) {
        return t1 == GeomType::kBox || t1 == GeomType::kCylinder
                   ? 4
                   : (t1 == GeomType::kCapsule ? 2 : 1);
      }
      // a cylinder against a capsule (along a cap), a cylinder or a box (faces and edges)
      if (t2 == GeomType::kCylinder && t1 == GeomType::kCapsule) return 2;
      if ((t1 == GeomType::kCylinder && t2 == GeomType::kCylinder) ||
          (t1 == GeomType::kCylinder && t2 == GeomType::kBox)) {
        return 4;
      }
      return max_contacts_convex(t1, t2);
  }
}

// narrow phase of two geoms of types t1 ≤ t2 (MuJoCo's order: geom1 has the smaller type): calls
// emit(const ContactGeo<T>&) once per contact with dist ≤ margin, in MuJoCo's order; returns
// how many it emitted.  `rules` (Rules): MuJoCo 4.0's pairs, or 2.2.2's where they differ
template <class T, class Emit>
ZW_HD int collide(int t1, int t2, const GeomPose<T>& g1, const GeomPose<T>& g2, T margin,
                  Emit&& emit, int rules = Rules::kMujoco4) {
  switch (geom_pair(t1, t2)) {
    case geom_pair(GeomType::kPlane, GeomType::kSphere):
      return primitive::plane_sphere(g1, g2, margin, emit);
    case geom_pair(GeomType::kPlane, GeomType::kCapsule):
      return primitive::plane_capsule(g1, g2, margin, emit);
    case geom_pair(GeomType::kPlane, GeomType::kCylinder):
      return primitive::plane_cylinder(g1, g2, margin, emit);
    case geom_pair(GeomType::kPlane, GeomType::kBox):
      return primitive::plane_box(g1, g2, margin, emit);
    case geom_pair(GeomType::kPlane, GeomType::kMesh):
      return mesh::plane_mesh(g1, g2, margin, emit);
    case geom_pair(GeomType::kSphere, GeomType::kSphere):
      return primitive::sphere_sphere(g1, g2, margin, emit);
    case geom_pair(GeomType::kSphere, GeomType::kCapsule):
      return primitive::sphere_capsule(g1, g2, margin, emit);
    case geom_pair(GeomType::kCapsule, GeomType::kCapsule):
      return primitive::capsule_capsule(g1, g2, margin, emit);
#if ZW_NARROWPHASE_BOX
    case geom_pair(GeomType::kSphere, GeomType::kBox):
    case geom_pair(GeomType::kCapsule, GeomType::kBox):
    case geom_pair(GeomType::kBox, GeomType::kBox):
      return collide_box(t1, t2, g1, g2, margin, emit, rules);
#endif
    default:
      if (t1 == GeomType::kHfield && t2 >= GeomType::kSphere) {
        return hfield::collide(t2, g1, g2, margin, emit);
      }
      if (t2 == GeomType::kMesh && t1 >= GeomType::kSphere) {
        return ccd::collide(t1, t2, g1, g2, margin, emit);
      }
      if (rules != Rules::kMujoco2 && t1 >= GeomType::kSphere) {
        // MuJoCo 4.0: its sphere–cylinder; an ellipsoid against a sphere, capsule, ellipsoid,
        // cylinder or box, and a cylinder against a capsule, cylinder or box, by its native convex
        // collision (one contact with an ellipsoid: its multi-contact search skips them)
        if (t1 == GeomType::kSphere && t2 == GeomType::kCylinder) {
          return primitive::sphere_cylinder(g1, g2, margin, emit);
        }
        if (t1 == GeomType::kEllipsoid || t2 == GeomType::kEllipsoid || t1 == GeomType::kCylinder ||
            t2 == GeomType::kCylinder) {
          return ccd::collide(t1, t2, g1, g2, margin, emit);
        }
      }
      // MuJoCo 2.2.2's MPR
      return collide_convex(t1, t2, g1, g2, margin, emit);
  }
}

}  // namespace zwang
