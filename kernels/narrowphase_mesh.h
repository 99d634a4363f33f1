// (a plane, a mesh geom's convex hull) => up to four contacts (dist, pos, frame)
//
// MuJoCo 4.0's plane–mesh collision, with n the plane's z axis, p its origin, x(v) = pos + R v
// the world point of hull vertex v (mesh frame):
//   v₀       the vertex deepest along −n: greatest −(Rᵀn)·v, the first of equals
//   contact  dist = n·(x(v₀) − p), pos = x(v₀) − (dist/2) n, frame from n (no tangent hint);
//            none at all when dist > margin
//   face     of the polygons at v₀ (the hull's triangles of one plane merged), the one whose
//            outward normal n_f is most against n: least n_f·(Rᵀn), the first of equals
//   corners  that polygon pruned to four corners keeping v₀ (a): b, c, d start at the three
//            corners after a, counter-clockwise; d moves on while the area ½|(a − c) × (b − d)|
//            grows, and after each move of d, c and then b move on while it grows
//   contacts each corner after a below the geom's centre along n (n·(x − pos) ≤ 0) gives a
//            contact as v₀'s when its dist ≤ margin
// so that a box-shaped mesh resting on a face has its four corners.  Where several vertices
// are deepest (a face exactly parallel to the plane) MuJoCo climbs the hull's graph to one of
// them and may start the pruning at another corner; the contacts are then other corners of the
// same face.
//
// Included by kernels/narrowphase.h after GeomPose, ContactGeo and the primitives; never on its
// own.
#pragma once

#include "kernels/hd.h"
#include "kernels/math_vec.h"

namespace zwang {
namespace mesh {

// the four-corner pruning's area of corners a, b, c, d of a polygon
template <class T>
ZW_HD ZW_INLINE T quad_area(const MeshHull<T>& h, const int* corner, int a, int b, int c, int d) {
  return ccd::quad_area4(h.vertex(corner[a]), h.vertex(corner[b]), h.vertex(corner[c]),
                         h.vertex(corner[d]));
}

// at most four corners of the polygon of `count` corners, the first `a`; returns how many
template <class T>
ZW_HD int four_corners(const MeshHull<T>& h, const int* corner, int count, int a, int out[4]) {
  int b = (a + 1) % count, c = (a + 2) % count, d = (a + 3) % count;
  out[0] = a;
  out[1] = b;
  out[2] = c;
  out[3] = d;
  if (count <= 4) return count;
  T area = quad_area(h, corner, a, b, c, d);
  // each accepted move grows the area, so no state repeats: count moves bound each loop
  for (int i = 0; i < count; ++i) {
    const int d_next = (d + 1) % count;
    const T area_d = quad_area(h, corner, a, b, c, d_next);
    if (!(area_d > area)) break;
    d = d_next;
    area = area_d;
    for (int j = 0; j < count; ++j) {
      const int c_next = (c + 1) % count;
      const T area_c = quad_area(h, corner, a, b, c_next, d);
      if (!(area_c > area)) break;
      c = c_next;
      area = area_c;
    }
    for (int j = 0; j < count; ++j) {
      const int b_next = (b + 1) % count;
      const T area_b = quad_area(h, corner, a, b_next, c, d);
      if (!(area_b > area)) break;
      b = b_next;
      area = area_b;
    }
  }
  out[1] = b;
  out[2] = c;
  out[3] = d;
  return 4;
}

template <class T, class Emit>
ZW_HD int plane_mesh(const GeomPose<T>& plane, const GeomPose<T>& g, T margin, Emit& emit) {
  const MeshHull<T>& h = g.mesh;
  if (h.nvert == 0) return 0;
  const Vec3<T> n = column(plane.mat, 2);
  const Vec3<T> local_n = mul_transposed(g.mat, n);
  const int deepest = h.farthest(T(-1) * local_n);
  const Mat3<T> frame = primitive::make_frame(n, Vec3<T>{T(0), T(0), T(0)});
  const auto contact = [&](const Vec3<T>& x) {
    const T dist = dot(n, x - plane.pos);
    if (dist > margin) return false;
    emit(ContactGeo<T>{dist, x - (T(0.5) * dist) * n, frame});
    return true;
  };
  if (!contact(mul(g.mat, h.vertex(deepest)) + g.pos)) return 0;
  int count = 1;
  // the polygon at the deepest vertex most against n
  int face = -1;
  T least = T(1);
  for (int k = 0; k < h.polymapnum[deepest]; ++k) {
    const int f = h.polymap[h.polymapadr[deepest] + k];
    const T along = dot(h.polynormal_of(f), local_n);
    if (along < least) {
      least = along;
      face = f;
    }
  }
  if (face < 0) return count;
  const int* corner = h.polyvert + h.polyvertadr[face];
  const int ncorner = h.polyvertnum[face];
  int a = 0;
  for (int k = 0; k < ncorner; ++k) {
    if (corner[k] == deepest) {
      a = k;
      break;
    }
  }
  int chosen[4];
  const int nchosen = four_corners(h, corner, ncorner, a, chosen);
  for (int k = 1; k < nchosen; ++k) {
    const Vec3<T> x = mul(g.mat, h.vertex(corner[chosen[k]])) + g.pos;
    if (dot(n, x - g.pos) > T(0)) continue;
    count += contact(x) ? 1 : 0;
  }
  return count;
}

}  // namespace mesh
}  // namespace zwang
