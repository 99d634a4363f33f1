// (two convex geoms, margin) => contacts (dist, pos, frame)
//
// MuJoCo 4.0's convex collision (its native GJK and EPA, mjc_Convex) for the pairs with a mesh,
// sphere, capsule, ellipsoid, cylinder, box or mesh against a mesh geom's convex hull, and under
// 4.0's rules for an ellipsoid against a sphere, capsule, ellipsoid, cylinder or box and a
// cylinder against a capsule, cylinder or box.  Each geom
// is inflated by margin/2 (its support point moves that far along the direction), and
//   GJK      the point x of the Minkowski difference A − B nearest the origin, by support points
//            along −x (A) and x (B) and the simplex's nearest point (ccd_iterations = 35 steps;
//            stops when ⟨x, x − s⟩ < ½ tol², 0 when both geoms are polytopes, or when a support
//            point proves the geoms apart, ⟨x, s⟩ > 0); a tetrahedron around the origin, or
//            |x| ≤ tol, means overlap
//   EPA      the polytope of the final simplex (a tetrahedron; a triangle or a segment grown by
//            support points into a closed polytope around the origin) expanded at its face
//            nearest the origin by the support point along that face's normal, until the support
//            point is within tol of the face (or repeats a vertex pair of two polytopes): depth
//            the face's distance, the witness points x₁ on A and x₂ on B at the origin's
//            projection's barycentric coordinates in that face
//   contact  dist = margin − depth, pos = (x₁ + x₂)/2, normal (x₁ − x₂)/|x₁ − x₂|, frame by
//            mju_makeFrame with no tangent hint
// with tol = ccd_tolerance = 1e-6 (two polytopes without margin: GJK and EPA to 1e-15, 1e-7 in
// float, as they end in finitely many steps).  A sphere or capsule first runs as its core (the
// centre, the segment) at distance: where the core is more than tol from the other geom, the
// contact is that distance less the radius (witness points moved along the normal), else both run
// whole as above.
//
// Two polytopes (a box or a mesh against a mesh), and a cylinder against a cylinder, box or mesh
// (its caps as 16-gons, its sides as lines along the axis), then take the multi-contact step
// below, so that a box-shaped object or a standing cylinder rests on four contacts and a lying
// cylinder on two; a capsule lying along a mesh face or a cylinder's cap, or a cylinder along a
// mesh face, gets a contact at each end (along_face).  GJK and EPA find two polytopes' distance and
// penetration exactly; a smooth or inflated geom's to tol where the iterations suffice (EPA may
// stop at 35 a few 1e-4 short), its contact point and normal EPA's approximation (MuJoCo's to
// within a few degrees).  Unlike MuJoCo, GJK does not stop where the geom centres coincide: it
// starts from a support point instead, so that a geom placed on another's centre still collides
// (where the origin falls exactly on a face of EPA's polytope, as with two shapes symmetric about
// their common centre, both find no depth).
//
// Included by kernels/narrowphase.h after GeomPose, ContactGeo and the primitives; never on its
// own.
#pragma once

#include <cmath>

#include "kernels/hd.h"
#include "kernels/math_vec.h"

namespace zwang {
namespace ccd {

// MuJoCo's option defaults ccd_iterations, ccd_tolerance
constexpr int kIterations = 35;
template <class T>
ZW_HD ZW_INLINE T tolerance() {
  return T(1e-6);
}
// the expanding polytope's room: MuJoCo's, 5 + iterations vertices and 6 faces per iteration
constexpr int kMaxVerts = 5 + kIterations;
constexpr int kMaxFaces = 6 * kIterations;
// a horizon has at most this many edges (each added vertex adds at most this many faces)
constexpr int kMaxHorizon = 64;

// MuJoCo's mjMINVAL
template <class T>
ZW_HD ZW_INLINE T min_value() {
  return T(1e-15);
}

// MuJoCo's mjMAX_LIMIT: the distance of geoms found apart
template <class T>
ZW_HD ZW_INLINE T far_apart() {
  return T(1e30);
}

// what of a geom the support function sees
enum Core : int { kWhole = 0, kCentre = 1, kSegment = 2 };

template <class T>
struct Shape {
  int type;
  const GeomPose<T>* g;  // a height field's prism: its centre, g->pos
  T half_margin;         // the support point moves this far along the direction
  int core;              // a sphere as its centre, a capsule as its segment
  // a height field's prism (type kHfield): bottom corners 0..2, the top corners 3..5 above them,
  // in the frame the other geom is given in
  const Vec3<T>* prism = nullptr;
};

// a point of the Minkowski difference: x = a − b with a on geom A, b on geom B, and the polytope
// vertices a and b are (−1 for a smooth geom)
template <class T>
struct Vertex {
  Vec3<T> x, a, b;
  int ia, ib;
};

// the point of the geom farthest along the unit world direction d, and its vertex (box corner
// bits, mesh vertex, a cylinder's cap: 0 the top, 1 the bottom; −1 for the other smooth geoms)
template <class T>
ZW_HD Vec3<T> support(const Shape<T>& s, const Vec3<T>& d, int& index) {
  const GeomPose<T>& g = *s.g;
  index = -1;
  if (s.type == GeomType::kHfield) {
    // the first best corner of the bottom (d pointing down) or the top
    const int first = d.z < T(0) ? 0 : 3;
    index = first;
    T best = dot(s.prism[first], d);
    for (int i = first + 1; i < first + 3; ++i) {
      const T v = dot(s.prism[i], d);
      index = v > best ? i : index;
      best = v > best ? v : best;
    }
    return s.prism[index] + s.half_margin * d;
  }
  if (s.core == kCentre) return g.pos;
  if (s.core == kSegment) {
    const Vec3<T> axis = column(g.mat, 2);
    return g.pos + (dot(axis, d) >= T(0) ? g.size.y : -g.size.y) * axis;
  }
  const Vec3<T> l = mul_transposed(g.mat, d);
  Vec3<T> p{T(0), T(0), T(0)};
  switch (s.type) {
    case GeomType::kSphere:
      return g.pos + g.size.x * d + s.half_margin * d;
    case GeomType::kCapsule:
      p = g.size.x * l;
      p.z += l.z >= T(0) ? g.size.y : -g.size.y;
      break;
    case GeomType::kEllipsoid: {
      const Vec3<T> sl{l.x * g.size.x, l.y * g.size.y, l.z * g.size.z};
      const T n2 = dot(sl, sl);
      if (n2 < min_value<T>() * min_value<T>()) {
        p = {g.size.x, T(0), T(0)};
      } else {
        const T k = T(1) / vsqrt(n2);
        p = {sl.x * k * g.size.x, sl.y * k * g.size.y, sl.z * k * g.size.z};
      }
      break;
    }
    case GeomType::kCylinder: {
      const T n2 = l.x * l.x + l.y * l.y;
      const T k = n2 >= min_value<T>() * min_value<T>() ? g.size.x / vsqrt(n2) : T(0);
      p = {k * l.x, k * l.y, l.z >= T(0) ? g.size.y : -g.size.y};
      index = l.z >= T(0) ? 0 : 1;
      break;
    }
    case GeomType::kBox:
      p = {l.x >= T(0) ? g.size.x : -g.size.x, l.y >= T(0) ? g.size.y : -g.size.y,
           l.z >= T(0) ? g.size.z : -g.size.z};
      index = (p.x > T(0) ? 1 : 0) | (p.y > T(0) ? 2 : 0) | (p.z > T(0) ? 4 : 0);
      break;
    case GeomType::kMesh:
      index = g.mesh.farthest(l);
      p = g.mesh.vertex(index);
      break;
    default:
      break;
  }
  return mul(g.mat, p) + g.pos + s.half_margin * d;
}

// the support point of A − B along the unit direction d: A along d, B along −d
template <class T>
ZW_HD ZW_INLINE Vertex<T> support(const Shape<T>& a, const Shape<T>& b, const Vec3<T>& d) {
  Vertex<T> v;
  v.a = support(a, d, v.ia);
  v.b = support(b, T(-1) * d, v.ib);
  v.x = v.a - v.b;
  return v;
}

// both geoms polytopes (boxes or meshes, no margin): GJK and EPA end in finitely many steps
template <class T>
ZW_HD ZW_INLINE bool discrete(const Shape<T>& a, const Shape<T>& b) {
  const auto polytope = [](const Shape<T>& s) {
    return s.half_margin == T(0) &&
           (s.type == GeomType::kBox || s.type == GeomType::kMesh || s.type == GeomType::kHfield);
  };
  return polytope(a) && polytope(b);
}

// barycentric coordinates of the point of segment pq nearest the origin
template <class T>
ZW_HD void nearest2(const Vec3<T>& p, const Vec3<T>& q, T lambda[2]) {
  const Vec3<T> e = q - p;
  const T ee = dot(e, e);
  T t = ee > T(0) ? -dot(p, e) / ee : T(0);
  t = t < T(0) ? T(0) : (t > T(1) ? T(1) : t);
  lambda[0] = T(1) - t;
  lambda[1] = t;
}

// barycentric coordinates of the point of triangle abc nearest the origin (the regions of
// Ericson's Real-Time Collision Detection, 5.1.5); a triangle of no area gives its nearest edge
template <class T>
ZW_HD void nearest3(const Vec3<T>& a, const Vec3<T>& b, const Vec3<T>& c, T lambda[3]) {
  lambda[0] = lambda[1] = lambda[2] = T(0);
  const Vec3<T> ab = b - a, ac = c - a;
  const T d1 = -dot(ab, a), d2 = -dot(ac, a);
  if (d1 <= T(0) && d2 <= T(0)) {
    lambda[0] = T(1);
    return;
  }
  const T d3 = -dot(ab, b), d4 = -dot(ac, b);
  if (d3 >= T(0) && d4 <= d3) {
    lambda[1] = T(1);
    return;
  }
  const T vc = d1 * d4 - d3 * d2;
  if (vc <= T(0) && d1 >= T(0) && d3 <= T(0)) {
    const T v = d1 / (d1 - d3);
    lambda[0] = T(1) - v;
    lambda[1] = v;
    return;
  }
  const T d5 = -dot(ab, c), d6 = -dot(ac, c);
  if (d6 >= T(0) && d5 <= d6) {
    lambda[2] = T(1);
    return;
  }
  const T vb = d5 * d2 - d1 * d6;
  if (vb <= T(0) && d2 >= T(0) && d6 <= T(0)) {
    const T w = d2 / (d2 - d6);
    lambda[0] = T(1) - w;
    lambda[2] = w;
    return;
  }
  const T va = d3 * d6 - d5 * d4;
  if (va <= T(0) && d4 - d3 >= T(0) && d5 - d6 >= T(0)) {
    const T w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
    lambda[1] = T(1) - w;
    lambda[2] = w;
    return;
  }
  const T sum = va + vb + vc;
  if (!(sum > T(0))) {
    // no area: the nearest of the three edges
    T best = T(-1);
    const Vec3<T>* v[3] = {&a, &b, &c};
    for (int e = 0; e < 3; ++e) {
      T l[2];
      nearest2(*v[e], *v[(e + 1) % 3], l);
      const Vec3<T> x = l[0] * *v[e] + l[1] * *v[(e + 1) % 3];
      const T d = dot(x, x);
      if (best < T(0) || d < best) {
        best = d;
        lambda[0] = lambda[1] = lambda[2] = T(0);
        lambda[e] = l[0];
        lambda[(e + 1) % 3] = l[1];
      }
    }
    return;
  }
  const T v = vb / sum, w = vc / sum;
  lambda[0] = T(1) - v - w;
  lambda[1] = v;
  lambda[2] = w;
}

template <class T>
ZW_HD ZW_INLINE T det3(const Vec3<T>& a, const Vec3<T>& b, const Vec3<T>& c) {
  return dot(a, cross(b, c));
}

// barycentric coordinates of the point of tetrahedron s₀s₁s₂s₃ nearest the origin: the origin's
// own where it is inside, else the nearest point of the faces it is outside of
template <class T>
ZW_HD void nearest4(const Vec3<T> s[4], T lambda[4]) {
  // volumes with the origin in place of each vertex, against the whole
  const T c0 = det3(s[1], s[2], s[3]), c1 = -det3(s[0], s[2], s[3]);
  const T c2 = det3(s[0], s[1], s[3]), c3 = -det3(s[0], s[1], s[2]);
  const T whole = c0 + c1 + c2 + c3;
  const T c[4] = {c0, c1, c2, c3};
  bool inside = whole != T(0);
  for (int i = 0; i < 4; ++i) inside = inside && (c[i] == T(0) || (c[i] > T(0)) == (whole > T(0)));
  if (inside) {
    for (int i = 0; i < 4; ++i) lambda[i] = c[i] / whole;
    return;
  }
  T best = T(-1);
  for (int skip = 0; skip < 4; ++skip) {
    // only the faces the origin is beyond (all of them for a flat tetrahedron)
    if (whole != T(0) && c[skip] != T(0) && (c[skip] > T(0)) == (whole > T(0))) continue;
    int k[3], n = 0;
    for (int i = 0; i < 4; ++i) {
      if (i != skip) k[n++] = i;
    }
    T l[3];
    nearest3(s[k[0]], s[k[1]], s[k[2]], l);
    const Vec3<T> x = l[0] * s[k[0]] + l[1] * s[k[1]] + l[2] * s[k[2]];
    const T d = dot(x, x);
    if (best < T(0) || d < best) {
      best = d;
      lambda[skip] = T(0);
      for (int i = 0; i < 3; ++i) lambda[k[i]] = l[i];
    }
  }
}

template <class T>
struct GjkResult {
  Vertex<T> simplex[4];
  int n = 0;
  Vec3<T> a, b;  // the nearest points (approximate where the geoms overlap)
  T dist =
      T(0);  // far_apart() where a support point proved the geoms farther apart than the cutoff
  bool separated = false;
};

// GJK from the geom centres; `cutoff` > 0: the distance is wanted up to that (geoms farther apart
// end as separated), else only whether they overlap
template <class T>
ZW_HD GjkResult<T> gjk(const Shape<T>& A, const Shape<T>& B, T cutoff) {
  GjkResult<T> r;
  const bool polytopes = discrete(A, B);
  const T tol = tolerance<T>();
  const T epsilon = polytopes ? T(0) : T(0.5) * tol * tol;
  const T min_norm = polytopes ? min_value<T>() : tol;
  r.a = A.g->pos;
  r.b = B.g->pos;
  Vec3<T> x = r.a - r.b;
  T x_norm = norm(x), x_prev = T(0);
  // coincident centres: start from a support point instead (MuJoCo stops there, no contact)
  if (x_norm < min_norm) {
    const Vertex<T> s0 = support(A, B, Vec3<T>{T(1), T(0), T(0)});
    r.a = s0.a;
    r.b = s0.b;
    x = s0.x;
    x_norm = norm(x);
  }
  T lambda[4] = {T(1), T(0), T(0), T(0)};
  int n = 0;
  for (int k = 0; k < kIterations; ++k) {
    if (x_norm < min_norm || T(vfabs(x_prev - x_norm)) < min_value<T>()) break;
    const Vertex<T> s = support(A, B, (T(-1) / x_norm) * x);
    // the Frank–Wolfe gap ⟨x, x − s⟩ bounds |x|² − dist²
    if (dot(x, x - s.x) < epsilon) break;
    // ⟨x, s⟩ / |x| bounds the distance from below
    const T lower = dot(x, s.x);
    if (lower > T(0) && (cutoff <= T(0) || lower >= cutoff * x_norm)) {
      r.separated = true;
      r.n = 0;
      r.dist = far_apart<T>();
      return r;
    }
    r.simplex[n] = s;
    Vec3<T> pts[4];
    for (int i = 0; i <= n; ++i) pts[i] = r.simplex[i].x;
    for (int i = 0; i < 4; ++i) lambda[i] = T(0);
    if (n == 0) {
      lambda[0] = T(1);
    } else if (n == 1) {
      nearest2(pts[0], pts[1], lambda);
    } else if (n == 2) {
      nearest3(pts[0], pts[1], pts[2], lambda);
    } else {
      nearest4(pts, lambda);
    }
    // keep the vertices the nearest point needs
    int kept = 0;
    for (int i = 0; i <= n; ++i) {
      if (lambda[i] == T(0)) continue;
      r.simplex[kept] = r.simplex[i];
      lambda[kept++] = lambda[i];
    }
    for (int i = kept; i < 4; ++i) lambda[i] = T(0);
    n = kept;
    if (n < 1) {
      r.separated = true;
      r.n = 0;
      r.dist = far_apart<T>();
      return r;
    }
    x = Vec3<T>{T(0), T(0), T(0)};
    for (int i = 0; i < n; ++i) x = x + lambda[i] * r.simplex[i].x;
    x_prev = x_norm;
    x_norm = norm(x);
    if (n == 4) break;
  }
  if (n > 0) {
    r.a = r.b = Vec3<T>{T(0), T(0), T(0)};
    for (int i = 0; i < n; ++i) {
      r.a = r.a + lambda[i] * r.simplex[i].a;
      r.b = r.b + lambda[i] * r.simplex[i].b;
    }
  }
  // a final check that the geoms are apart
  if (x_norm > T(0)) {
    const Vertex<T> s = support(A, B, (T(-1) / x_norm) * x);
    if (dot(x, s.x) > T(0)) r.separated = true;
  }
  r.n = n;
  r.dist = (n == 4 && !r.separated) ? T(0) : x_norm;
  return r;
}

template <class T>
struct Face {
  int v[3];    // vertices, counter-clockwise seen from outside
  int adj[3];  // the face across edge v[e] → v[e + 1]
  Vec3<T> p;   // the origin's projection on the face's plane
  T d2;        // |p|²
  bool alive;
};

template <class T>
struct Polytope {
  Vertex<T> vert[kMaxVerts];
  Face<T> face[kMaxFaces];
  int nvert = 0, nface = 0;
};

// sets the face's plane; false when the triangle has no normal
template <class T>
ZW_HD bool set_plane(const Polytope<T>& pt, Face<T>& f) {
  const Vec3<T>& a = pt.vert[f.v[0]].x;
  Vec3<T> n = cross(pt.vert[f.v[1]].x - a, pt.vert[f.v[2]].x - a);
  const T len = norm(n);
  if (!(len > min_value<T>())) return false;
  n = (T(1) / len) * n;
  f.p = dot(n, a) * n;
  f.d2 = dot(f.p, f.p);
  return true;
}

// the polytope of `count` triangles, each wound counter-clockwise seen from outside: their planes
// and neighbours; false when a triangle has no normal or an edge no neighbour
template <class T>
ZW_HD bool link_polytope(Polytope<T>& pt, const int (*tri)[3], int count) {
  pt.nface = count;
  for (int f = 0; f < count; ++f) {
    Face<T>& face = pt.face[f];
    for (int k = 0; k < 3; ++k) face.v[k] = tri[f][k];
    face.alive = true;
    if (!set_plane(pt, face)) return false;
  }
  for (int f = 0; f < count; ++f) {
    for (int e = 0; e < 3; ++e) {
      const int from = pt.face[f].v[e], to = pt.face[f].v[(e + 1) % 3];
      pt.face[f].adj[e] = -1;
      for (int g = 0; g < count; ++g) {
        for (int k = 0; k < 3; ++k) {
          if (g != f && pt.face[g].v[k] == to && pt.face[g].v[(k + 1) % 3] == from) {
            pt.face[f].adj[e] = g;
          }
        }
      }
      if (pt.face[f].adj[e] < 0) return false;
    }
  }
  return true;
}

// whether the origin is in the tetrahedron of polytope vertices i, j, k, l (on its boundary too)
template <class T>
ZW_HD bool origin_in(const Polytope<T>& pt, int i, int j, int k, int l) {
  const Vec3<T> s[4] = {pt.vert[i].x, pt.vert[j].x, pt.vert[k].x, pt.vert[l].x};
  const T c[4] = {det3(s[1], s[2], s[3]), -det3(s[0], s[2], s[3]), det3(s[0], s[1], s[3]),
                  -det3(s[0], s[1], s[2])};
  const T whole = c[0] + c[1] + c[2] + c[3];
  if (whole == T(0)) return false;
  bool inside = true;
  for (int m = 0; m < 4; ++m) inside = inside && (c[m] == T(0) || (c[m] > T(0)) == (whole > T(0)));
  return inside;
}

// The initial polytope around the origin from GJK's simplex of two to four vertices: a
// tetrahedron as it is; a triangle with the support points along both its normals (a double
// pyramid); a segment with three support points around it, 120° apart.  Each face wound outward
// by construction; false where the origin is in none of its tetrahedra (the geoms only touch)
template <class T>
ZW_HD bool start_polytope(Polytope<T>& pt, const GjkResult<T>& g, const Shape<T>& A,
                          const Shape<T>& B) {
  pt.nvert = 0;
  for (int i = 0; i < g.n; ++i) pt.vert[pt.nvert++] = g.simplex[i];
  if (g.n == 4) {
    // wound away from the vertex each face leaves out
    const bool positive = det3(pt.vert[1].x - pt.vert[0].x, pt.vert[2].x - pt.vert[0].x,
                               pt.vert[3].x - pt.vert[0].x) > T(0);
    const int up[4][3] = {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}};
    const int down[4][3] = {{0, 1, 2}, {0, 3, 1}, {0, 2, 3}, {1, 3, 2}};
    return origin_in(pt, 0, 1, 2, 3) && link_polytope(pt, positive ? up : down, 4);
  }
  if (g.n == 3) {
    Vec3<T> n = cross(pt.vert[1].x - pt.vert[0].x, pt.vert[2].x - pt.vert[0].x);
    const T len = norm(n);
    if (!(len > min_value<T>())) return false;
    n = (T(1) / len) * n;
    // vertex 3 above the triangle (counter-clockwise about n), vertex 4 below it
    pt.vert[3] = support(A, B, n);
    pt.vert[4] = support(A, B, T(-1) * n);
    pt.nvert = 5;
    if (!origin_in(pt, 0, 1, 2, 3) && !origin_in(pt, 0, 1, 2, 4)) return false;
    const int tri[6][3] = {{0, 1, 3}, {1, 2, 3}, {2, 0, 3}, {1, 0, 4}, {2, 1, 4}, {0, 2, 4}};
    return link_polytope(pt, tri, 6);
  }
  if (g.n == 2) {
    Vec3<T> axis = pt.vert[1].x - pt.vert[0].x;
    const T len = norm(axis);
    if (!(len > min_value<T>())) return false;
    axis = (T(1) / len) * axis;
    // a unit vector across the axis, from its smallest component's axis
    const T ax = vfabs(axis.x), ay = vfabs(axis.y), az = vfabs(axis.z);
    const Vec3<T> e = ax <= ay && ax <= az ? Vec3<T>{T(1), T(0), T(0)}
                      : ay <= az           ? Vec3<T>{T(0), T(1), T(0)}
                                           : Vec3<T>{T(0), T(0), T(1)};
    Vec3<T> d = cross(axis, e);
    d = (T(1) / norm(d)) * d;
    const Vec3<T> d2 = cross(axis, d);
    const T c = T(-0.5), s = T(0.86602540378443864676);
    // vertices 2, 3, 4 counter-clockwise about the axis from vertex 0 to vertex 1
    pt.vert[2] = support(A, B, d);
    pt.vert[3] = support(A, B, c * d + s * d2);
    pt.vert[4] = support(A, B, c * d - s * d2);
    pt.nvert = 5;
    if (!origin_in(pt, 0, 1, 2, 3) && !origin_in(pt, 0, 1, 3, 4) && !origin_in(pt, 0, 1, 4, 2)) {
      return false;
    }
    const int tri[6][3] = {{0, 3, 2}, {0, 4, 3}, {0, 2, 4}, {1, 2, 3}, {1, 3, 4}, {1, 4, 2}};
    return link_polytope(pt, tri, 6);
  }
  return false;
}

template <class T>
struct EpaResult {
  bool found = false;
  T depth = T(0);
  Vec3<T> a, b;         // the witness points
  Vertex<T> corner[3];  // the final face's vertices
};

// barycentric coordinates of p in the plane of triangle abc
template <class T>
ZW_HD void plane_coordinates(const Vec3<T>& a, const Vec3<T>& b, const Vec3<T>& c, const Vec3<T>& p,
                             T lambda[3]) {
  const Vec3<T> n = cross(b - a, c - a);
  const T nn = dot(n, n);
  lambda[1] = dot(cross(p - a, c - a), n) / nn;
  lambda[2] = dot(cross(b - a, p - a), n) / nn;
  lambda[0] = T(1) - lambda[1] - lambda[2];
}

// EPA on the polytope GJK left
template <class T>
ZW_HD EpaResult<T> epa(Polytope<T>& pt, const Shape<T>& A, const Shape<T>& B) {
  EpaResult<T> r;
  const bool polytopes = discrete(A, B);
  // MuJoCo's mjMINEPATOL: a bound the float type can resolve
  const T tol = polytopes ? (sizeof(T) == 4 ? T(1e-7) : min_value<T>()) : tolerance<T>();
  T upper = T(1e30), upper2 = T(1e30);
  int best = -1;
  for (int k = 0; k < kIterations; ++k) {
    // the face nearest the origin: a lower bound of the depth
    int face = -1;
    T lower2 = T(1e30);
    for (int f = 0; f < pt.nface; ++f) {
      if (pt.face[f].alive && pt.face[f].d2 < lower2) {
        lower2 = pt.face[f].d2;
        face = f;
      }
    }
    if (face < 0 || lower2 > upper2) break;
    best = face;
    if (!(lower2 > T(0))) break;
    const T lower = vsqrt(lower2);
    const Face<T> near = pt.face[face];
    const Vertex<T> w = support(A, B, (T(1) / lower) * near.p);
    // the support point bounds the depth from above
    const T upper_k = dot(near.p, w.x) / lower;
    if (upper_k < upper) {
      upper = upper_k;
      upper2 = upper * upper;
    }
    if (upper - lower < tol) {
      // the geoms do not overlap after all
      if (k == 0 && upper < lower - T(1e-10)) best = -1;
      break;
    }
    // a vertex pair of two polytopes already in the polytope: nothing further to gain
    bool repeated = false;
    for (int i = 0; polytopes && i < pt.nvert; ++i) {
      repeated = repeated || (pt.vert[i].ia == w.ia && pt.vert[i].ib == w.ib);
    }
    if (repeated || pt.nvert == kMaxVerts) break;
    // the faces w sees, connected to `face`, are removed; their boundary is the horizon
    int stack[kMaxFaces];
    int nstack = 0;
    pt.face[face].alive = false;
    stack[nstack++] = face;
    int h_from[kMaxHorizon], h_to[kMaxHorizon], h_face[kMaxHorizon], h_edge[kMaxHorizon];
    int nh = 0;
    bool broken = false;
    while (nstack > 0 && !broken) {
      const int f = stack[--nstack];
      for (int e = 0; e < 3; ++e) {
        const int g = pt.face[f].adj[e];
        if (!pt.face[g].alive) continue;
        if (dot(pt.face[g].p, w.x) - pt.face[g].d2 > min_value<T>()) {
          pt.face[g].alive = false;
          stack[nstack++] = g;
          continue;
        }
        if (nh == kMaxHorizon) {
          broken = true;
          break;
        }
        const int from = pt.face[f].v[e], to = pt.face[f].v[(e + 1) % 3];
        int edge = 0;
        while (edge < 3 && pt.face[g].v[edge] != to) ++edge;
        if (edge == 3) {
          broken = true;
          break;
        }
        h_from[nh] = from;
        h_to[nh] = to;
        h_face[nh] = g;
        h_edge[nh] = edge;
        ++nh;
      }
    }
    if (broken || nh < 3 || pt.nface + nh > kMaxFaces) break;
    // the horizon as a loop: each edge starts where the one before it ends
    for (int i = 1; i < nh && !broken; ++i) {
      int j = i;
      while (j < nh && h_from[j] != h_to[i - 1]) ++j;
      if (j == nh) {
        broken = true;
        break;
      }
      const int t0 = h_from[i], t1 = h_to[i], t2 = h_face[i], t3 = h_edge[i];
      h_from[i] = h_from[j];
      h_to[i] = h_to[j];
      h_face[i] = h_face[j];
      h_edge[i] = h_edge[j];
      h_from[j] = t0;
      h_to[j] = t1;
      h_face[j] = t2;
      h_edge[j] = t3;
    }
    if (broken || h_to[nh - 1] != h_from[0]) break;
    // w joined to every horizon edge
    const int wi = pt.nvert;
    pt.vert[pt.nvert++] = w;
    const int first = pt.nface;
    for (int i = 0; i < nh && !broken; ++i) {
      Face<T>& f = pt.face[first + i];
      f.v[0] = h_from[i];
      f.v[1] = h_to[i];
      f.v[2] = wi;
      f.adj[0] = h_face[i];
      f.adj[1] = first + (i + 1) % nh;
      f.adj[2] = first + (i + nh - 1) % nh;
      f.alive = true;
      pt.face[h_face[i]].adj[h_edge[i]] = first + i;
      broken = !set_plane(pt, f);
    }
    pt.nface += nh;
    // a new face with no normal: no depth to trust (MuJoCo gives no contact either)
    if (broken) {
      best = -1;
      break;
    }
  }
  if (best < 0) return r;
  const Face<T>& f = pt.face[best];
  T lambda[3];
  plane_coordinates(pt.vert[f.v[0]].x, pt.vert[f.v[1]].x, pt.vert[f.v[2]].x, f.p, lambda);
  r.found = true;
  r.depth = vsqrt(f.d2);
  for (int i = 0; i < 3; ++i) r.corner[i] = pt.vert[f.v[i]];
  r.a =
      lambda[0] * pt.vert[f.v[0]].a + lambda[1] * pt.vert[f.v[1]].a + lambda[2] * pt.vert[f.v[2]].a;
  r.b =
      lambda[0] * pt.vert[f.v[0]].b + lambda[1] * pt.vert[f.v[1]].b + lambda[2] * pt.vert[f.v[2]].b;
  return r;
}

// the contact of the witness points a on geom 1 and b on geom 2 at signed distance `dist`
template <class T, class Emit>
ZW_HD void emit_contact(const Vec3<T>& a, const Vec3<T>& b, T dist, Emit& emit) {
  Vec3<T> n = a - b;
  primitive::normalize(n);
  emit(ContactGeo<T>{dist, T(0.5) * (a + b), primitive::make_frame(n, Vec3<T>{T(0), T(0), T(0)})});
}

// geom 1 of type t1 against geom 2 of type t2 (t1 ≤ t2, one of them a mesh): the contact where
// the inflated geoms overlap (dist < margin)
// ------------------------------------------------------------------------------------------
// Several contacts of two polytopes (boxes, meshes; a cylinder, its caps as 16-gons) touching
// along a face, as MuJoCo 4.0's multi-contact step after EPA: the final face's vertices give each
// geom's touching feature (a vertex, an edge, a face: its distinct polytope vertices; a
// cylinder's caps), and each feature the faces it lies on (a box's by its corner bits, a mesh's
// polygons, a cylinder's cap where the feature lies on one).  Where a face of geom 1 and a face
// of geom 2 are opposed within kFaceTol (n₁·n₂ < −kFaceTol), the smaller face is clipped by the
// larger (Sutherland–Hodgman against the planes through its edges, square to it), and each
// clipped point p below the clipping face or within the margin above it (d = n·(p − face₀) ≤
// margin) is a contact of distance d midway between p and its projection on that face's plane,
// normal −n₂; more than four points are pruned to four spanning a large area (MuJoCo's search).
// Failing that, an edge of one geom (the lower-dimensional feature) lying along a face of the
// other within kEdgeTol (|e·n| < kEdgeTol) is clipped by that face: its two farthest points (a
// cylinder's edge: the side's line from the feature's support point to the other cap; where that
// lies along no face of geom 2, geom 2's edge is tried on the cylinder's cap, as MuJoCo 4.0.0
// does).  Otherwise, or when no point is close enough, the EPA contact alone.

// MuJoCo's mjFACE_TOL and mjEDGE_TOL (about 5°)
template <class T>
ZW_HD ZW_INLINE T face_tol() {
  return T(0.996);
}
template <class T>
ZW_HD ZW_INLINE T edge_tol() {
  return T(0.0888);
}
// room for a face's corners and for a clipped polygon
constexpr int kMaxFaceCorners = 32;
constexpr int kMaxClipped = 2 * kMaxFaceCorners;
constexpr int kMaxCandidates = 32;
// a cylinder's cap as a polygon
constexpr int kCapCorners = 16;

// p₀, p_{n−1}, …, p₁: the polygon's corners the other way round from the same first corner
template <class T>
ZW_HD void reverse_from_first(Vec3<T>* p, int count) {
  for (int i = 1, j = count - 1; i < j; ++i, --j) {
    const Vec3<T> t = p[i];
    p[i] = p[j];
    p[j] = t;
  }
}

// a geom's candidate faces at a feature: their world normals and ids (box 0..5 for +x −x +y −y
// +z −z; mesh polygon)
template <class T>
struct Candidates {
  Vec3<T> n[kMaxCandidates];
  int id[kMaxCandidates];
  int count = 0;
};

// a box corner (its bits) or mesh vertex in the world, as the geom is (not inflated by the margin)
template <class T>
ZW_HD Vec3<T> polytope_vertex(const Shape<T>& s, int index) {
  const GeomPose<T>& g = *s.g;
  if (s.type == GeomType::kBox) {
    const Vec3<T> local{(index & 1) != 0 ? g.size.x : -g.size.x,
                        (index & 2) != 0 ? g.size.y : -g.size.y,
                        (index & 4) != 0 ? g.size.z : -g.size.z};
    return mul(g.mat, local) + g.pos;
  }
  return mul(g.mat, g.mesh.vertex(index)) + g.pos;
}

// a cylinder's rim point of cap `index` under the support point x, which the margin moved out
// along the support direction: the same radial direction (the support point's is the
// direction's own), so r x_xy/|x_xy| at ±h in the cylinder's frame (the cap's centre where x is
// on the axis)
template <class T>
ZW_HD Vec3<T> rim_point(const Shape<T>& s, int index, const Vec3<T>& x) {
  const GeomPose<T>& g = *s.g;
  const Vec3<T> l = mul_transposed(g.mat, x - g.pos);
  const T n2 = l.x * l.x + l.y * l.y;
  const T k = n2 >= min_value<T>() * min_value<T>() ? g.size.x / vsqrt(n2) : T(0);
  return mul(g.mat, Vec3<T>{k * l.x, k * l.y, index == 0 ? g.size.y : -g.size.y}) + g.pos;
}

// the distinct polytope vertices of a geom's feature: 1, 2 or 3 of the face's corners (a
// cylinder's: its caps, 1 or 2, at the rim points under the support points)
template <class T>
ZW_HD int feature(const Shape<T>& s, const Vertex<T> corner[3], bool first, int index[3],
                  Vec3<T> point[3]) {
  for (int i = 0; i < 3; ++i) {
    index[i] = first ? corner[i].ia : corner[i].ib;
    point[i] = s.type == GeomType::kCylinder
                   ? rim_point(s, index[i], first ? corner[i].a : corner[i].b)
                   : polytope_vertex(s, index[i]);
  }
  if (index[0] == index[1]) {
    if (index[0] == index[2]) return 1;
    index[1] = index[2];
    point[1] = point[2];
    return 2;
  }
  return index[2] == index[0] || index[2] == index[1] ? 2 : 3;
}

template <class T>
ZW_HD ZW_INLINE Vec3<T> box_axis(const GeomPose<T>& g, int face) {
  const T s = face % 2 == 0 ? T(1) : T(-1);
  return s * column(g.mat, face / 2);
}

// the box face within kFaceTol of the direction d, if any
template <class T>
ZW_HD void box_face_along(const GeomPose<T>& g, const Vec3<T>& d, Candidates<T>& c) {
  Vec3<T> l = mul_transposed(g.mat, d);
  l = (T(1) / norm(l)) * l;
  const T comp[3] = {l.x, l.y, l.z};
  for (int f = 0; f < 6; ++f) {
    const T along = f % 2 == 0 ? comp[f / 2] : -comp[f / 2];
    if (along > face_tol<T>()) {
      c.n[0] = box_axis(g, f);
      c.id[0] = f;
      c.count = 1;
      return;
    }
  }
}

// the faces of a geom at its feature of `dim` vertices; d the contact direction out of the geom
// (where a box's feature names no face, its face within kFaceTol of d)
template <class T>
ZW_HD void faces_at(const Shape<T>& s, int dim, const int index[3], const Vec3<T>& d,
                    Candidates<T>& c) {
  const GeomPose<T>& g = *s.g;
  c.count = 0;
  if (s.type == GeomType::kCylinder) {
    // a feature on one cap: that cap
    if (dim == 1) {
      c.n[0] = (index[0] == 0 ? T(1) : T(-1)) * column(g.mat, 2);
      c.id[0] = index[0];
      c.count = 1;
    }
    return;
  }
  if (s.type == GeomType::kBox) {
    // the axes on which every vertex of the feature has the same corner bit
    int shared[3], nshared = 0;
    for (int k = 0; k < 3; ++k) {
      const int bit = 1 << k;
      bool all_set = true, none_set = true;
      for (int i = 0; i < dim; ++i) {
        all_set = all_set && (index[i] & bit) != 0;
        none_set = none_set && (index[i] & bit) == 0;
      }
      if (all_set || none_set) shared[nshared++] = 2 * k + (all_set ? 0 : 1);
    }
    if (nshared == 4 - dim) {
      for (int i = 0; i < nshared; ++i) {
        c.n[i] = box_axis(g, shared[i]);
        c.id[i] = shared[i];
      }
      c.count = nshared;
    } else {
      box_face_along(g, d, c);
    }
    return;
  }
  // a mesh: the polygons every vertex of the feature is on
  const MeshHull<T>& h = g.mesh;
  const int v0 = index[0];
  for (int k = 0; k < h.polymapnum[v0] && c.count < kMaxCandidates; ++k) {
    const int p = h.polymap[h.polymapadr[v0] + k];
    bool on_all = true;
    for (int i = 1; i < dim; ++i) {
      bool on = false;
      for (int j = 0; j < h.polymapnum[index[i]]; ++j) {
        on = on || h.polymap[h.polymapadr[index[i]] + j] == p;
      }
      on_all = on_all && on;
    }
    if (!on_all) continue;
    c.n[c.count] = mul(g.mat, h.polynormal_of(p));
    c.id[c.count++] = p;
    // three vertices lie on one polygon only
    if (dim == 3) break;
  }
}

// the corners of face `id` of a geom, counter-clockwise seen from outside (a cylinder's cap
// clockwise); returns how many
template <class T>
ZW_HD int face_corners(const Shape<T>& s, int id, Vec3<T>* out) {
  const GeomPose<T>& g = *s.g;
  if (s.type == GeomType::kBox) {
    const int k = id / 2, u = (k + 1) % 3, w = (k + 2) % 3;
    const T sk = id % 2 == 0 ? T(1) : T(-1);
    const T size[3] = {g.size.x, g.size.y, g.size.z};
    // (u, w, k) is right-handed: counter-clockwise about +k, reversed about −k
    const T su[4] = {T(1), T(-1), T(-1), T(1)}, sw[4] = {T(1), T(1), T(-1), T(-1)};
    for (int i = 0; i < 4; ++i) {
      const int j = sk > T(0) ? i : 3 - i;
      T local[3];
      local[k] = sk * size[k];
      local[u] = su[j] * size[u];
      local[w] = sw[j] * size[w];
      out[i] = mul(g.mat, Vec3<T>{local[0], local[1], local[2]}) + g.pos;
    }
    return 4;
  }
  if (s.type == GeomType::kCylinder) {
    // a cap as MuJoCo's regular 16-gon, corner k at angle ∓2πk/16 from the x axis: clockwise
    // seen from outside, the order its clipped points and the four kept of them follow; turned
    // counter-clockwise from the same first corner (below) where it clips
    const T side = id == 0 ? T(1) : T(-1);
    for (int k = 0; k < kCapCorners; ++k) {
      T sn, cs;
      vsincos(T(2 * k) * T(3.14159265358979323846) / T(kCapCorners), sn, cs);
      const Vec3<T> local{g.size.x * cs, -side * g.size.x * sn, side * g.size.y};
      out[k] = mul(g.mat, local) + g.pos;
    }
    return kCapCorners;
  }
  const MeshHull<T>& h = g.mesh;
  // a polygon of more corners than there is room for: no multi-contact
  const int count = h.polyvertnum[id];
  if (count > kMaxFaceCorners) return 0;
  for (int i = 0; i < count; ++i) {
    out[i] = mul(g.mat, h.vertex(h.polyvert[h.polyvertadr[id] + i])) + g.pos;
  }
  return count;
}

// the corners of face `id` counter-clockwise seen from outside, to clip by
template <class T>
ZW_HD int clipping_face(const Shape<T>& s, int id, Vec3<T>* out) {
  const int count = face_corners(s, id, out);
  if (s.type == GeomType::kCylinder) reverse_from_first(out, count);
  return count;
}

// the edges at a feature of one or two vertices: their unit directions and far ends
template <class T>
ZW_HD int edges_at(const Shape<T>& s, int dim, const int index[3], const Vec3<T> point[3],
                   Vec3<T>* dir, Vec3<T>* end) {
  const GeomPose<T>& g = *s.g;
  if (s.type == GeomType::kCylinder) {
    // the side's line from the support point to the other cap
    dir[0] = (index[0] == 0 ? T(-1) : T(1)) * column(g.mat, 2);
    end[0] = point[0] + (T(2) * g.size.y) * dir[0];
    return 1;
  }
  if (dim == 2) {
    end[0] = point[1];
    dir[0] = point[1] - point[0];
    primitive::normalize(dir[0]);
    return 1;
  }
  if (s.type == GeomType::kBox) {
    // the three corners one bit away
    const T size[3] = {g.size.x, g.size.y, g.size.z};
    for (int k = 0; k < 3; ++k) {
      T local[3];
      for (int j = 0; j < 3; ++j) {
        const T sj = (index[0] & (1 << j)) != 0 ? size[j] : -size[j];
        local[j] = j == k ? -sj : sj;
      }
      end[k] = mul(g.mat, Vec3<T>{local[0], local[1], local[2]}) + g.pos;
      dir[k] = end[k] - point[0];
      primitive::normalize(dir[k]);
    }
    return 3;
  }
  // a mesh vertex: to the corner before it on each of its polygons
  const MeshHull<T>& h = g.mesh;
  const int v = index[0];
  int count = 0;
  for (int k = 0; k < h.polymapnum[v] && count < kMaxCandidates; ++k) {
    const int p = h.polymap[h.polymapadr[v] + k];
    const int adr = h.polyvertadr[p], n = h.polyvertnum[p];
    for (int j = 0; j < n; ++j) {
      if (h.polyvert[adr + j] != v) continue;
      const int before = h.polyvert[adr + (j == 0 ? n - 1 : j - 1)];
      end[count] = mul(g.mat, h.vertex(before)) + g.pos;
      dir[count] = end[count] - point[0];
      primitive::normalize(dir[count]);
      ++count;
      break;
    }
  }
  return count;
}

// the area of a planar polygon
template <class T>
ZW_HD T polygon_area(const Vec3<T>* p, int count) {
  Vec3<T> sum{T(0), T(0), T(0)};
  for (int i = 1; i + 1 < count; ++i) sum = sum + cross(p[i] - p[0], p[i + 1] - p[0]);
  return T(0.5) * norm(sum);
}

template <class T>
ZW_HD ZW_INLINE T quad_area4(const Vec3<T>& a, const Vec3<T>& b, const Vec3<T>& c,
                             const Vec3<T>& d) {
  return T(0.5) * norm(cross(a - c, b - d));
}

// the contacts of `poly` (count points) clipped by the face `face` (nface corners,
// counter-clockwise about its outward normal n): each point v below the face or less than the
// margin above it, at distance d = n·(v − face₀), midway between v and its projection on the
// face's plane, with the given normal (from geom 1 to geom 2); returns how many it emitted
template <class T, class Emit>
ZW_HD int clip(const Vec3<T>* face, int nface, const Vec3<T>& n, const Vec3<T>* poly, int count,
               const Vec3<T>& normal, T margin, Emit& emit) {
  if (nface < 3 || count < 2) return 0;
  Vec3<T> buffer[2][kMaxClipped];
  int nbuf = count < kMaxClipped ? count : kMaxClipped;
  for (int i = 0; i < nbuf; ++i) buffer[0][i] = poly[i];
  int cur = 0;
  for (int e = 0; e < nface; ++e) {
    // the plane through edge e, square to the face, its inner side along n × edge
    const Vec3<T>& a = face[e];
    Vec3<T> m = cross(n, face[(e + 1) % nface] - a);
    primitive::normalize(m);
    const T md = dot(m, a);
    int out = 0;
    for (int i = 0; i < nbuf && out < kMaxClipped - 1; ++i) {
      const Vec3<T>& p = buffer[cur][i];
      const Vec3<T>& q = buffer[cur][i + 1 < nbuf ? i + 1 : 0];
      const bool p_in = dot(p - a, m) > -min_value<T>();
      const bool q_in = dot(q - a, m) > -min_value<T>();
      if (!p_in && !q_in) continue;
      if (p_in && q_in) {
        buffer[1 - cur][out++] = q;
        continue;
      }
      const Vec3<T> pq = q - p;
      const T along = dot(m, pq);
      if (along != T(0)) {
        const T t = (md - dot(m, p)) / along;
        if (t >= T(0) && t <= T(1)) buffer[1 - cur][out++] = p + t * pq;
      }
      if (q_in && out < kMaxClipped) buffer[1 - cur][out++] = q;
    }
    cur = 1 - cur;
    nbuf = out;
  }
  // the points below the face, or within the margin above it
  int below = 0;
  for (int i = 0; i < nbuf; ++i) {
    if (dot(buffer[cur][i] - face[0], n) <= margin) buffer[cur][below++] = buffer[cur][i];
  }
  if (below == 0) return 0;
  int pick[4] = {0, 1, 2, 3};
  int npick = below;
  if (below > 4) {
    // four corners spanning a large area, as MuJoCo 4.0 searches for them: for each first corner
    // a in turn, the last corner d moves on while the area grows, and after each such move the
    // third c, then the second b; the four are carried over to the next a (b, c, d moved past it
    // where it caught up with them)
    const Vec3<T>* p = buffer[cur];
    const auto area = [&](int i, int j, int k, int l) {
      return quad_area4(p[i], p[j], p[k], p[l]);
    };
    int a = 0, b = 1, c = 2, d = 3;
    T best = area(a, b, c, d);
    const auto keep = [&]() {
      best = area(a, b, c, d);
      pick[0] = a;
      pick[1] = b;
      pick[2] = c;
      pick[3] = d;
    };
    for (; a < below; ++a) {
      while (area(a, b, c, (d + 1) % below) > best) {
        d = (d + 1) % below;
        keep();
        while (area(a, b, (c + 1) % below, d) > best) {
          c = (c + 1) % below;
          keep();
        }
        while (area(a, (b + 1) % below, c, d) > best) {
          b = (b + 1) % below;
          keep();
        }
      }
      if (b == a) {
        b = (b + 1) % below;
        if (c == b) {
          c = (c + 1) % below;
          if (d == c) d = (d + 1) % below;
        }
      }
    }
    npick = 4;
  } else if (count == 2 && below > 2) {
    // an edge: its two farthest points
    T far = T(-1);
    for (int i = 0; i < below; ++i) {
      for (int j = i + 1; j < below; ++j) {
        const Vec3<T> e = buffer[cur][j] - buffer[cur][i];
        if (dot(e, e) > far) {
          far = dot(e, e);
          pick[0] = i;
          pick[1] = j;
        }
      }
    }
    npick = 2;
  }
  const Mat3<T> frame = primitive::make_frame(normal, Vec3<T>{T(0), T(0), T(0)});
  for (int i = 0; i < npick; ++i) {
    const Vec3<T>& v = buffer[cur][pick[i]];
    const T d = dot(v - face[0], n);
    // midway between v and its projection on the face's plane
    emit(ContactGeo<T>{d, v - (T(0.5) * d) * n, frame});
  }
  return npick;
}

// the multi-contact step; returns how many contacts it emitted (0: keep EPA's one)
template <class T, class Emit>
ZW_HD int multicontact(const Shape<T>& A, const Shape<T>& B, const EpaResult<T>& e, T margin,
                       Emit& emit) {
  int ia[3], ib[3];
  Vec3<T> pa[3], pb[3];
  const int dim_a = feature(A, e.corner, true, ia, pa);
  const int dim_b = feature(B, e.corner, false, ib, pb);
  const Vec3<T> toward_b = e.b - e.a, toward_a = e.a - e.b;
  Candidates<T> fa, fb;
  faces_at(A, dim_a, ia, toward_a, fa);
  faces_at(B, dim_b, ib, toward_b, fb);
  Vec3<T> face[kMaxFaceCorners], other[kMaxFaceCorners];
  for (int i = 0; i < fa.count; ++i) {
    for (int j = 0; j < fb.count; ++j) {
      if (!(dot(fa.n[i], fb.n[j]) < -face_tol<T>())) continue;
      // face to face: the smaller face clipped by the larger, the normal against B's face
      const int na = face_corners(A, fa.id[i], face);
      const int nb = face_corners(B, fb.id[j], other);
      const Vec3<T> normal = T(-1) * fb.n[j];
      if (polygon_area(face, na) <= polygon_area(other, nb)) {
        if (B.type == GeomType::kCylinder) reverse_from_first(other, nb);
        return clip(other, nb, fb.n[j], face, na, normal, margin, emit);
      }
      if (A.type == GeomType::kCylinder) reverse_from_first(face, na);
      return clip(face, na, fa.n[i], other, nb, normal, margin, emit);
    }
  }
  Vec3<T> dir[kMaxCandidates], end[kMaxCandidates];
  if (dim_a < 3 && dim_a <= dim_b) {
    // an edge of A on a face of B
    const int ne = edges_at(A, dim_a, ia, pa, dir, end);
    for (int i = 0; i < fb.count; ++i) {
      for (int j = 0; j < ne; ++j) {
        if (!(T(vfabs(dot(dir[j], fb.n[i]))) < edge_tol<T>())) continue;
        const int nb = clipping_face(B, fb.id[i], face);
        const Vec3<T> edge[2] = {pa[0], end[j]};
        return clip(face, nb, fb.n[i], edge, 2, T(-1) * fb.n[i], margin, emit);
      }
    }
    // a cylinder's side on none of B's faces: B's edge on its cap
    if (A.type != GeomType::kCylinder) return 0;
  }
  if (dim_b < 3) {
    // an edge of B on a face of A
    const int ne = edges_at(B, dim_b, ib, pb, dir, end);
    for (int i = 0; i < fa.count; ++i) {
      for (int j = 0; j < ne; ++j) {
        if (!(T(vfabs(dot(dir[j], fa.n[i]))) < edge_tol<T>())) continue;
        const int na = clipping_face(A, fa.id[i], face);
        const Vec3<T> edge[2] = {pb[0], end[j]};
        return clip(face, na, fa.n[i], edge, 2, fa.n[i], margin, emit);
      }
    }
  }
  return 0;
}

// A capsule's segment, or a cylinder's side, lying along a face of a mesh (or a capsule's along a
// cylinder's cap): MuJoCo 4.0's contact at each end.  Of the faces at the touching feature of the
// mesh or cylinder (its distinct vertices or caps of the final simplex or EPA face), the first
// with |a·n| < kEdgeTol (a the geom's axis) takes the segment moved by −r w, w = n − (n·a) a for a
// capsule (as MuJoCo 4.0, not normalised), w/|w| for a cylinder (its side's line nearest the
// face), clipped by the planes through the face's edges (square to it); each end p of it is a
// contact of distance d = n·(p − face₀) ≤ margin at
// p − (d/2) n, normal −n.  Returns how many (0: none aligned)
template <class T, class Emit>
ZW_HD int along_face(const Shape<T>& A, const Shape<T>& B, int count, const int* mesh_vertex,
                     T margin, Emit& emit) {
  int feat[3], dim = 0;
  for (int i = 0; i < count && dim < 3; ++i) {
    bool known = false;
    for (int j = 0; j < dim; ++j) known = known || feat[j] == mesh_vertex[i];
    if (!known && mesh_vertex[i] >= 0) feat[dim++] = mesh_vertex[i];
  }
  if (dim == 0) return 0;
  Candidates<T> faces;
  faces_at(B, dim, feat, Vec3<T>{T(0), T(0), T(1)}, faces);
  const GeomPose<T>& g = *A.g;
  const Vec3<T> a = column(g.mat, 2);
  for (int f = 0; f < faces.count; ++f) {
    const Vec3<T>& n = faces.n[f];
    const T along = dot(a, n);
    if (!(T(vfabs(along)) < edge_tol<T>())) continue;
    // the first aligned face only, as MuJoCo: where it leaves nothing, the contact of the nearest
    // points
    Vec3<T> corner[kMaxFaceCorners];
    const int nc = clipping_face(B, faces.id[f], corner);
    if (nc < 3) return 0;
    // the segment moved onto the geom's surface nearest the face, then its parameter interval
    // inside the face's edge planes
    Vec3<T> w = n - along * a;
    if (A.type == GeomType::kCylinder) w = (T(1) / norm(w)) * w;
    const Vec3<T> e0 = g.pos - g.size.y * a - g.size.x * w;
    const Vec3<T> e1 = g.pos + g.size.y * a - g.size.x * w;
    T t0 = T(0), t1 = T(1);
    for (int e = 0; e < nc; ++e) {
      const Vec3<T> m = cross(n, corner[(e + 1) % nc] - corner[e]);
      const T at0 = dot(e0 - corner[e], m), slope = dot(e1 - e0, m);
      if (slope == T(0)) {
        if (at0 < T(0)) return 0;
        continue;
      }
      const T t = -at0 / slope;
      if (slope > T(0)) {
        t0 = t > t0 ? t : t0;
      } else {
        t1 = t < t1 ? t : t1;
      }
    }
    if (t0 > t1) return 0;
    const Mat3<T> frame = primitive::make_frame(T(-1) * n, Vec3<T>{T(0), T(0), T(0)});
    int emitted = 0;
    const T ends[2] = {t0, t1};
    for (int k = 0; k < 2; ++k) {
      const Vec3<T> p = e0 + ends[k] * (e1 - e0);
      const T d = dot(n, p - corner[0]);
      if (d > margin) continue;
      emit(ContactGeo<T>{d, p - (T(0.5) * d) * n, frame});
      ++emitted;
    }
    return emitted;
  }
  return 0;
}

// `prism`: geom 1 is that prism of a height field (t1 = kHfield), centred at g1.pos
template <class T, class Emit>
ZW_HD ZW_NOINLINE int collide(int t1, int t2, const GeomPose<T>& g1, const GeomPose<T>& g2,
                              T margin, Emit& emit, const Vec3<T>* prism = nullptr) {
  // a mesh without a hull (no vertices) collides with nothing
  if ((t1 == GeomType::kMesh && g1.mesh.nvert == 0) ||
      (t2 == GeomType::kMesh && g2.mesh.nvert == 0)) {
    return 0;
  }
  const T half = T(0.5) * margin;
  Shape<T> A{t1, &g1, half, kWhole, prism}, B{t2, &g2, half, kWhole};
  // a sphere or a capsule: its core at distance first
  const bool round1 = t1 == GeomType::kSphere || t1 == GeomType::kCapsule;
  const bool round2 = t2 == GeomType::kSphere || t2 == GeomType::kCapsule;
  if (round1 || round2) {
    const T r1 = round1 ? g1.size.x + half : T(0), r2 = round2 ? g2.size.x + half : T(0);
    const Shape<T> core1{t1, &g1, round1 ? T(0) : half,
                         round1 ? (t1 == GeomType::kSphere ? kCentre : kSegment) : kWhole, prism};
    const Shape<T> core2{t2, &g2, round2 ? T(0) : half,
                         round2 ? (t2 == GeomType::kSphere ? kCentre : kSegment) : kWhole};
    const GjkResult<T> g = gjk(core1, core2, r1 + r2);
    if (g.dist > tolerance<T>()) {
      // shallow: the cores' nearest points moved out by the radii
      Vec3<T> n = g.b - g.a;
      primitive::normalize(n);
      const T dist = g.dist - (r1 + r2);
      if (!(dist < T(0))) return 0;
      if (t1 == GeomType::kCapsule && (t2 == GeomType::kMesh || t2 == GeomType::kCylinder)) {
        int touched[4];
        for (int i = 0; i < g.n; ++i) touched[i] = g.simplex[i].ib;
        const int n_along = along_face(A, B, g.n, touched, margin, emit);
        if (n_along > 0) return n_along;
      }
      emit_contact(g.a + r1 * n, g.b - r2 * n, margin + dist, emit);
      return 1;
    }
  }
  const GjkResult<T> g = gjk(A, B, T(0));
  if (g.separated || !(g.dist <= tolerance<T>()) || g.n < 2) return 0;
  Polytope<T> pt;
  if (!start_polytope(pt, g, A, B)) return 0;
  const EpaResult<T> e = epa(pt, A, B);
  if (!e.found || !(e.depth > T(0))) return 0;
  const auto polytope = [](int t) { return t == GeomType::kBox || t == GeomType::kMesh; };
  // a cylinder's caps and side lines are faces and edges against a cylinder, box or mesh
  const bool faceted = t1 == GeomType::kCylinder &&
                       (t2 == GeomType::kCylinder || t2 == GeomType::kBox || t2 == GeomType::kMesh);
  if ((polytope(t1) && polytope(t2)) || faceted) {
    const int n = multicontact(A, B, e, margin, emit);
    if (n > 0) return n;
  }
  if ((t1 == GeomType::kCapsule && t2 == GeomType::kCylinder) ||
      ((t1 == GeomType::kCapsule || t1 == GeomType::kCylinder) && t2 == GeomType::kMesh)) {
    const int touched[3] = {e.corner[0].ib, e.corner[1].ib, e.corner[2].ib};
    const int n = along_face(A, B, 3, touched, margin, emit);
    if (n > 0) return n;
  }
  emit_contact(e.a, e.b, margin - e.depth, emit);
  return 1;
}

}  // namespace ccd
}  // namespace zwang
