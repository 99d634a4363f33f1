// (geom_xpos, geom_xmat, geom_size of two geoms, margin) => contacts (dist, pos, frame)
//
// The pairs of MuJoCo 2.2.2's engine_collision_box.c, contact for contact:
//   sphere–box    1 contact
//   capsule–box   2: the sphere of the capsule at the segment point nearest the box, and one
//                 more along the segment where it lies flat on a face or across an edge
//   box–box       24 at most from the code paths (a clipped quadrilateral has at most 8
//                 vertices; more only where candidates nearly repeat: 9 seen with a box resting
//                 flat on another)
// Each contact is the contact of MuJoCo after mj_collideGeoms: box–box drops a candidate whose
// pos equals that of a later one bit for bit, and the frame is that of mju_makeFrame, rows
//   n  the normal from geom1 to geom2, normalised (e_x below mjMINVAL)
//   t₁ e_y − (n·e_y) n normalised, or e_z − (n·e_z) n where |n_y| ≥ ½ (no pair here sets a
//      tangent: MuJoCo's box functions zero it)
//   t₂ n × t₁
// dist ≤ margin (to rounding) for every contact, as MuJoCo drops candidates beyond it; the
// bounding-sphere filter of the driver, |x₁ − x₂| > rbound₁ + rbound₂ + margin, is the caller's.
// MuJoCo's own quirks are kept, as the oracle is MuJoCo: a sphere whose centre is inside the
// box reports dist = −r whatever its depth, and box–box face contacts report half the depth of
// the incident point (their pos is the midpoint, their dist is not doubled back).
//
// Rounding follows MuJoCo's order of operations, so that the discrete choices (nearest feature,
// separating axis, clipped points) fall the same way on poses at a tie, such as a box resting
// flat on another.
//
// Included by kernels/narrowphase.h after GeomPose and ContactGeo; never on its own.
#pragma once

#include <cmath>

#include "kernels/hd.h"
#include "kernels/math_vec.h"

namespace zwang {
namespace box_pairs {

// MuJoCo's mjMINVAL
template <class T>
ZW_HD ZW_INLINE T min_val() {
  return T(1e-15);
}

template <class T>
ZW_HD ZW_INLINE T abs_of(T x) {
  return x < T(0) ? -x : x;
}

template <class T>
ZW_HD ZW_INLINE T sign_of(bool positive) {
  return positive ? T(1) : T(-1);
}

// component k of v as selects (an index into &v.x would put v in GPU local memory)
template <class T>
ZW_HD ZW_INLINE T at(const Vec3<T>& v, int k) {
  return k == 0 ? v.x : (k == 1 ? v.y : v.z);
}

template <class T>
ZW_HD ZW_INLINE void put(Vec3<T>& v, int k, T s) {
  v.x = k == 0 ? s : v.x;
  v.y = k == 1 ? s : v.y;
  v.z = k == 2 ? s : v.z;
}

// Rᵀ v: a world direction in the frame of R
template <class T>
ZW_HD ZW_INLINE Vec3<T> mul_t(const Mat3<T>& r, const Vec3<T>& v) {
  return {r.m[0] * v.x + r.m[3] * v.y + r.m[6] * v.z, r.m[1] * v.x + r.m[4] * v.y + r.m[7] * v.z,
          r.m[2] * v.x + r.m[5] * v.y + r.m[8] * v.z};
}

// v / |v|, or e_x when |v| < mjMINVAL (mju_normalize3); len ← |v|
template <class T>
ZW_HD ZW_INLINE Vec3<T> unit_or_x(Vec3<T> v, T& len) {
  len = primitive::normalize(v);
  return v;
}

// mju_makeFrame with no tangent given: rows n/|n|, t₁, n × t₁
template <class T>
ZW_HD ZW_INLINE Mat3<T> contact_frame(const Vec3<T>& normal) {
  return primitive::make_frame(normal, Vec3<T>{T(0), T(0), T(0)});
}

// a contact before its frame is completed
template <class T>
struct Hit {
  bool found;
  T dist;
  Vec3<T> pos, normal;
};

// A sphere (centre c, radius rad) and a box.  With c in the box frame and q its nearest point
// of the box,
//   outside:  n = R (q − c)/|q − c|, dist = |q − c| − rad, pos = R (q + c + rad (q − c)/|q − c|)/2
//   inside (|q − c| ≤ mjMINVAL): n = R (−sᵢ eᵢ) towards the nearest face (sᵢ its side),
//             dist = −rad, pos = R (c − sᵢ eᵢ (rad − d)/2) with d the depth under that face
// in the world with R, x the box's pose; nothing when dist > margin.
template <class T>
ZW_HD Hit<T> sphere_box(const Vec3<T>& c_world, T rad, const GeomPose<T>& box, T margin) {
  const Vec3<T> s = box.size;
  const Vec3<T> c = mul_t(box.mat, c_world - box.pos);
  // the box's nearest point; like MuJoCo's clamp, a size ≤ 0 leaves its axis free
  auto clamp = [](T v, T lim) { return lim > T(0) ? (v < -lim ? -lim : (v > lim ? lim : v)) : v; };
  const Vec3<T> q{clamp(c.x, s.x), clamp(c.y, s.y), clamp(c.z, s.z)};
  T len;
  const Vec3<T> dir = unit_or_x(q - c, len);
  Hit<T> hit{false, len - rad, {}, {}};
  if (len - rad > margin) return hit;
  hit.found = true;

  if (len <= min_val<T>()) {
    // the face with the least depth d = |±sᵢ − cᵢ|, the first on a tie, in the order −x, +x, −y…
    T closest = (s.x + s.y + s.z) * T(2);
    int face = 0;
    for (int f = 0; f < 6; ++f) {
      const T side = f % 2 ? at(s, f / 2) : -at(s, f / 2);
      const T depth = abs_of(side - at(c, f / 2));
      face = closest > depth ? f : face;
      closest = closest > depth ? depth : closest;
    }
    Vec3<T> toward{T(0), T(0), T(0)};
    put(toward, face / 2, sign_of<T>(face % 2 == 0));
    hit.pos = mul(box.mat, c + ((rad - closest) / T(2)) * toward) + box.pos;
    hit.normal = mul(box.mat, toward);
    return hit;
  }
  const Vec3<T> deepest = c + rad * dir;
  hit.pos = mul(box.mat, T(0.5) * q + T(0.5) * deepest) + box.pos;
  hit.normal = mul(box.mat, dir);
  return hit;
}

template <class T, class Emit>
ZW_HD ZW_INLINE int emit_hit(const Hit<T>& hit, Emit& emit) {
  if (!hit.found) return 0;
  emit(ContactGeo<T>{hit.dist, hit.pos, contact_frame(hit.normal)});
  return 1;
}

// The capsule's segment c + x A, x ∈ [−1, 1], A = h a, in the box frame; its point nearest the
// box is the nearer of
//   the ends x = ±1 whose clamp onto the box moves at most one coordinate (a face below them),
//   the nearest points of the segment and each of the 12 edges p + y sⱼ eⱼ, y ∈ [−1, 1]:
//     [ sⱼ²      −sⱼ Aⱼ ] [y]   [ −sⱼ (p − c)ⱼ ]
//     [ −sⱼ Aⱼ   h²     ] [x] = [  A·(p − c)   ],  clamped as for two capsules
// (squared distances; an edge must be nearer by mjMINVAL).  A sphere of radius r there is the
// first contact.  A second sphere goes where the segment, followed from there, still lies over
// the box: along the edge or across the face it lies flat on (nearest point at a corner), to the
// far side of the faces beside the edge (nearest point inside an edge), or to where it leaves
// the face's slab (nearest point an end over a face).  x (and y) measure along A (and sⱼ eⱼ).
template <class T, class Emit>
ZW_HD int capsule_box(const GeomPose<T>& cap, const GeomPose<T>& box, T margin, Emit& emit) {
  const Vec3<T> s = box.size;
  const T rad = cap.size.x, half = cap.size.y;
  const Vec3<T> c = mul_t(box.mat, cap.pos - box.pos);
  const Vec3<T> axis = mul_t(box.mat, column(cap.mat, 2));
  const Vec3<T> ha = half * axis;
  // bit i: A points to +i; the corner with these bits is where the segment points
  const int axisdir = (ha.x > T(0) ? 1 : 0) | (ha.y > T(0) ? 2 : 0) | (ha.z > T(0) ? 4 : 0);

  T best = margin + T(2) * (rad + half + s.x + s.y + s.z);
  T best_x = T(0), best_y = T(0);
  // −3 / −1: the end x = −1 / +1 over a face; 3 σ_y + σ_x for an edge (σ = 0, 1, 2: y or x
  // clamped to −1, inside, clamped to +1); −4: nothing found
  int kind = -4;
  int face = -1;   // the axis of that face; −1 when the end is inside the box
  int corner = 0;  // bit i set: the edge point's end at +sᵢ (the edge's axis bit: y = +1)
  int edge = 0;

  // the ends over a face
  for (int e = -1; e <= 1; e += 2) {
    const Vec3<T> end = c + T(e) * ha;
    Vec3<T> q = end;
    int outside = 0, out_axis = -1;
    for (int j = 0; j < 3; ++j) {
      const T v = at(end, j), lim = at(s, j);
      const bool lo = v < -lim;
      const bool hi = v > lim;
      outside += lo || hi ? 1 : 0;
      out_axis = lo || hi ? j : out_axis;
      put(q, j, lo ? -lim : (hi ? lim : v));
    }
    if (outside > 1) continue;
    const Vec3<T> d = q - end;
    const T dist2 = dot(d, d);
    if (dist2 < best) {
      best = dist2;
      best_x = T(e);
      kind = e - 2;
      face = out_axis;
    }
  }

  // the edges: along axis j from the corner k with bit j clear
  for (int j = 0; j < 3; ++j) {
    for (int k = 0; k < 8; ++k) {
      if (k & (1 << j)) continue;
      Vec3<T> p{(k & 1) ? s.x : -s.x, (k & 2) ? s.y : -s.y, (k & 4) ? s.z : -s.z};
      put(p, j, T(0));
      const T sj = at(s, j);
      const Vec3<T> dif = p - c;
      const T ma = sj * sj, mb = -sj * at(ha, j), mc = half * half;
      const T u = -sj * at(dif, j), v = dot(ha, dif);
      const T det = ma * mc - mb * mb;
      if (abs_of(det) < min_val<T>()) continue;
      const T idet = T(1) / det;
      T y = (mc * u - mb * v) * idet, x = (ma * v - mb * u) * idet;
      int sy = 1, sx = 1;
      if (y > T(1) || y < T(-1)) {
        const bool hi = y > T(1);
        y = sign_of<T>(hi);
        sy = hi ? 2 : 0;
        x = (hi ? v - mb : v + mb) * (T(1) / mc);
      }
      if (x > T(1) || x < T(-1)) {
        const bool hi = x > T(1);
        x = sign_of<T>(hi);
        sx = hi ? 2 : 0;
        y = (hi ? u - mb : u + mb) * (T(1) / ma);
        sy = y > T(1) ? 2 : (y < T(-1) ? 0 : sy);
        y = y > T(1) ? T(1) : (y < T(-1) ? T(-1) : y);
      }
      Vec3<T> d = dif + (-x) * ha;
      put(d, j, at(d, j) + sj * y);
      const T dist2 = dot(d, d);
      if (dist2 < best - min_val<T>()) {
        best = dist2;
        best_x = x;
        best_y = y;
        kind = sy * 3 + sx;
        corner = k + (sy == 2 ? 1 << j : 0);
        edge = j;
      }
    }
  }
  if (kind == -4) return 0;

  T second = T(-4);  // the second sphere's offset from best_x along the segment; none below −3
  if (kind >= 0 && kind / 3 != 1) {
    // at a corner: a pointing straight at or away from it (code 0, 7) gives nothing more
    int code = axisdir ^ corner;
    if (code != 0 && code != 7) {
      const bool flip = code == 3 || code == 5 || code == 6;
      const T dir = sign_of<T>(!flip);
      code = flip ? 7 - code : code;
      const T ahead = flip ? T(1) + best_x : T(1) - best_x;  // segment left in +dir
      const T behind = flip ? T(1) - best_x : T(1) + best_x;
      const int ax = code == 1 ? 0 : (code == 2 ? 1 : 2);
      const int ax1 = (ax + 1) % 3, ax2 = (ax + 2) % 3;
      if (at(axis, ax) * at(axis, ax) > T(0.5)) {
        // along the edge ax, no farther than its length
        const T room = T(2) * at(s, ax) / abs_of(at(ha, ax));
        second = dir * (room < ahead ? room : ahead);
      } else {
        // across the face, no farther than the box spans
        const T room1 = T(2) * at(s, ax1) / abs_of(at(ha, ax1));
        const T room2 = T(2) * at(s, ax2) / abs_of(at(ha, ax2));
        T run = room1 < behind ? room1 : behind;
        run = room2 < run ? room2 : run;
        second = -dir * run;
      }
    }
  } else if (kind >= 0) {
    // inside the edge: a crossing (not a T) continues over the face it is flattest to
    const int code = (axisdir ^ corner) & (7 - (1 << edge));
    if (code == 1 || code == 2 || code == 4) {
      const int ax = edge;
      int ax1 = (ax + 1) % 3, ax2 = (ax + 2) % 3;
      ax1 = abs_of(at(axis, ax1)) > abs_of(at(axis, ax2)) ? ax2 : ax1;
      ax2 = 3 - ax - ax1;
      const bool up = code & (1 << ax2);
      T run = up ? T(1) - best_x : T(1) + best_x;
      const T room = T(2) * at(s, ax2) / abs_of(at(ha, ax2));
      run = room < run ? room : run;
      const bool same = ((axisdir & (1 << ax)) != 0) == up;
      const T left = same ? T(1) - best_y : T(1) + best_y;  // edge left, in units of s_ax
      const T room_edge = at(s, ax) * left / abs_of(at(ha, ax));
      run = room_edge < run ? room_edge : run;
      second = sign_of<T>(up) * run;
    }
  } else if (face != -1) {
    // an end over a face: toward the other end until the segment leaves the face's slab
    const T dir = sign_of<T>(kind == -3);
    const Vec3<T> far = c + (-dir) * ha;
    T run = T(2);
    for (int i = 0; i < 3; ++i) {
      if (i == face) continue;
      const T hi = (at(s, i) - at(far, i)) / at(ha, i) * dir;
      run = hi > T(0) && hi < run ? hi : run;
      const T lo = (-at(s, i) - at(far, i)) / at(ha, i) * dir;
      run = lo > T(0) && lo < run ? lo : run;
    }
    second = run * dir;
  }

  const Vec3<T> first = mul(box.mat, c + best_x * ha) + box.pos;
  int count = emit_hit(sphere_box(first, rad, box, margin), emit);
  if (second > T(-3)) {
    const Vec3<T> next = mul(box.mat, c + (second + best_x) * ha) + box.pos;
    count += emit_hit(sphere_box(next, rad, box, margin), emit);
  }
  return count;
}

// The signed permutation P turning the outward normal of box face f (axis f % 3, on the
// negative side for f ≥ 3) into +z: (P v)_a = sgn_a v_{idx_a}, a proper rotation
template <class T>
struct FaceTurn {
  int i0, i1, i2;
  T f0, f1, f2;
};

// P v for f = 0..5: (−z, y, x), (x, −z, y), (x, y, z), (z, y, −x), (x, z, −y), (−x, y, −z)
template <class T>
ZW_HD ZW_INLINE FaceTurn<T> face_turn(int f) {
  const int a = f % 3;
  const bool neg = f >= 3;
  FaceTurn<T> p;
  p.i0 = a == 0 ? 2 : 0;
  p.i1 = a == 1 ? 2 : 1;
  p.i2 = a;
  p.f0 = sign_of<T>(!(neg ? a == 2 : a == 0));
  p.f1 = sign_of<T>(neg || a != 1);
  p.f2 = sign_of<T>(!neg);
  return p;
}

// P v
template <class T>
ZW_HD ZW_INLINE Vec3<T> turn(const FaceTurn<T>& p, const Vec3<T>& v) {
  return {at(v, p.i0) * p.f0, at(v, p.i1) * p.f1, at(v, p.i2) * p.f2};
}

// P M
template <class T>
ZW_HD ZW_INLINE Mat3<T> turn(const FaceTurn<T>& p, const Mat3<T>& m) {
  Mat3<T> r;
  for (int c = 0; c < 3; ++c) {
    r.m[c] = m.m[3 * p.i0 + c] * p.f0;
    r.m[3 + c] = m.m[3 * p.i1 + c] * p.f1;
    r.m[6 + c] = m.m[3 * p.i2 + c] * p.f2;
  }
  return r;
}

// M Pᵀ: from the turned frame back to the frame of M
template <class T>
ZW_HD ZW_INLINE Mat3<T> turn_back(const Mat3<T>& m, const FaceTurn<T>& p) {
  Mat3<T> r;
  for (int a = 0; a < 3; ++a) {
    r.m[3 * a] = m.m[3 * a + p.i0] * p.f0;
    r.m[3 * a + 1] = m.m[3 * a + p.i1] * p.f1;
    r.m[3 * a + 2] = m.m[3 * a + p.i2] * p.f2;
  }
  return r;
}

// Box–box candidates before MuJoCo's removal of repeated positions: world pos and dist.  A
// fixed array in GPU local memory: the removal compares each candidate with every later one.
template <class T>
struct BoxBoxCandidates {
  static constexpr int kMax = 24;  // 16 edge–boundary crossings + 4 + 4 corners
  Vec3<T> pos[kMax];
  T dist[kMax];
  int n = 0;
  ZW_HD void push(const Vec3<T>& p, T d) {
    if (n == kMax) return;
    pos[n] = p;
    dist[n] = d;
    ++n;
  }
};

// Where the segment o + t e, t ∈ [0, 1], crosses the lines x = ±hx, y = ±hy within the
// rectangle |x| ≤ hx, |y| ≤ hy (a line hit at a corner counts on both): calls at(t, q, l, w)
// with q the crossed coordinate, l = ±h_q its value, w the other coordinate, in MuJoCo's order
// (q = x first, the line at −h first).
template <class T, class OnCross>
ZW_HD ZW_INLINE void clip_segment(const Vec3<T>& o, const Vec3<T>& e, T hx, T hy, OnCross&& hit) {
  for (int q = 0; q < 2; ++q) {
    const T a = q ? o.y : o.x, b = q ? e.y : e.x, c = q ? o.x : o.y, d = q ? e.x : e.y;
    const T h = q ? hy : hx, h_other = q ? hx : hy;
    if (!(abs_of(b) > min_val<T>())) continue;
    for (int j = -1; j <= 1; j += 2) {
      const T l = h * T(j);
      const T t = (l - a) * (T(1) / b);
      if (t < T(0) || t > T(1)) continue;
      const T w = c + d * t;
      if (abs_of(w) > h_other) continue;
      hit(t, q, l, w);
    }
  }
}

// Face contact: the face f of box A (x_a, R_a, half sizes s_a) is the separating axis of least
// overlap, B (half sizes s_b) has centre pos_b and axes (columns of rot_ab) in A's frame.  In
// the frame turned by P_f, shifted to the face plane z = 0, the face is the rectangle
// |x| ≤ lx, |y| ≤ ly.  B's lowest corner o and its edges e₁, e₂ along the axes of B within 30°
// of the plane (|z| < ½) span B's face (or edge, or corner) towards A; its outline is clipped
// to the rectangle: the crossings of its edges with the rectangle's sides, the rectangle's
// corners strictly inside it, o, and its other corners strictly inside the rectangle.  Each
// point at height z ≤ margin gives pos = the point at height z/2 and dist = z/2, normal =
// sign R_a Pᵀ e_z.
template <class T>
ZW_HD void box_face(const Mat3<T>& mat_a, const Vec3<T>& pos_a, const Vec3<T>& size_a,
                    const Vec3<T>& size_b, const Mat3<T>& rot_ab, const Vec3<T>& pos_b, int f,
                    T margin, T sign, BoxBoxCandidates<T>& out, Vec3<T>& normal) {
  const FaceTurn<T> turn_f = face_turn<T>(f);
  const Mat3<T> r = turn(turn_f, rot_ab);
  const Vec3<T> sa = turn(turn_f, size_a);
  const T lx = abs_of(sa.x), ly = abs_of(sa.y), hz = abs_of(sa.z);
  Vec3<T> p = turn(turn_f, pos_b);
  p.z -= hz;

  const Mat3<T> world = turn_back(mat_a, turn_f);
  normal = sign * column(world, 2);
  auto push = [&](const Vec3<T>& pt) {
    if (pt.z > margin) return;
    const T z = pt.z * T(0.5);
    out.push(mul(world, Vec3<T>{pt.x, pt.y, z + hz}) + pos_a, z);
  };

  // B's lowest corner: +s_b along each axis of B pointing down
  Vec3<T> o = p;
  for (int i = 0; i < 3; ++i) {
    o += (at(size_b, i) * sign_of<T>(r.m[6 + i] < T(0))) * column(r, i);
  }
  Vec3<T> e1{T(0), T(0), T(0)}, e2 = e1;
  int m = 1;  // 1 + the number of edges
  for (int i = 0; i < 3; ++i) {
    if (!(abs_of(r.m[6 + i]) < T(0.5))) continue;
    const Vec3<T> e = (at(size_b, i) * T(r.m[6 + i] < T(0) ? -2 : 2)) * column(r, i);
    e2 = m == 2 ? e : e2;
    e1 = m == 1 ? e : e1;
    ++m;
  }
  const Vec3<T> o1 = o + e1, o2 = o + e2, o12 = o1 + e2;

  // crossings of B's outline with the rectangle's sides
  const int lines = m > 2 ? 4 : (m > 1 ? 1 : 0);
  for (int k = 0; k < 4; ++k) {
    if (k >= lines) continue;
    const Vec3<T>& start = k == 2 ? o1 : (k == 3 ? o2 : o);
    const Vec3<T>& dir = k == 1 || k == 2 ? e2 : e1;
    clip_segment(start, dir, lx, ly, [&](T t, int, T, T) { push(start + t * dir); });
  }

  // the rectangle's corners inside B's face: o + u e₁ + v e₂, 0 < u, v < 1
  if (m > 2) {
    const T det = e1.x * e2.y - e2.x * e1.y;
    for (int i = 0; i < 4; ++i) {
      const T x = i / 2 ? lx : -lx, y = i % 2 ? ly : -ly;
      const T dx = x - o.x, dy = y - o.y;
      const T u = (dx * e2.y - dy * e2.x) * (T(1) / det);
      const T v = (dy * e1.x - dx * e1.y) * (T(1) / det);
      if (u <= T(0) || v <= T(0) || u >= T(1) || v >= T(1)) continue;
      push(Vec3<T>{x, y, o.z + u * e1.z + v * e2.z});
    }
  }

  // B's corners: o always, the others strictly inside the rectangle
  push(o);
  const int corners = m > 2 ? 4 : m;
  for (int i = 1; i < 4; ++i) {
    if (i >= corners) continue;
    const Vec3<T>& pt = i == 1 ? o1 : (i == 2 ? o2 : o12);
    if (pt.x <= -lx || pt.x >= lx || pt.y <= -ly || pt.y >= ly) continue;
    push(pt);
  }
}

// Edge contact: the axis (box-1 axis i) × (box-2 axis j) separates least; its unit n points to
// box 2 when `in` is false.  The frame is box 1's turned so that its face f is z = 0, the face
// |x| ≤ lx, |y| ≤ ly: of the two faces along edge i, the one whose normal is nearest n, on box
// 2's side.  r, p: box 2's axes and centre there.  Box 2's closest edge (along j, corners c0
// at +s_j, c1 at −s_j) and the edge parallel to it across box 2's axis ax1 (of the two others,
// the one nearer box 1's edge i) span a parallelogram, projected along n onto z = 0 (k0..k3).
// The candidates:
//   crossings of the projected outline with the rectangle's sides, kept when the unprojected
//   point is within the margin along n: pos = midpoint of the two, dist = its height along n;
//   the rectangle's corners within the projected parallelogram (with no crossing: within the
//   strip of u or of v), clamped into it: pos = midpoint, dist = ±distance to the point of the
//   unprojected parallelogram;
//   the parallelogram's corners over the rectangle (with no crossing: all of them if no
//   rectangle corner was taken, else those within the strip of x or of y): pos = midpoint of the
//   corner and its projection clamped to the rectangle, dist = ±√(d_xy² + (z/n_z)²).
// MuJoCo reuses the determinant of the corner test for the squared distance of the corner
// (its variable is overwritten), and so does this: the corners after one that passed the
// inside test see u, v scaled by det/dist² of that corner.
template <class T>
ZW_HD bool box_edge(const GeomPose<T>& b1, const GeomPose<T>& b2, const Mat3<T>& rot,
                    const Vec3<T>& pos21, const Vec3<T>& clnorm, int f, int q2, int ax1, int ax2,
                    int cle2, bool in, T margin, BoxBoxCandidates<T>& out, Vec3<T>& normal) {
  const FaceTurn<T> turn_f = face_turn<T>(f);
  Vec3<T> p = turn(turn_f, pos21);
  const Vec3<T> rn = turn(turn_f, clnorm);
  const Mat3<T> r = turn(turn_f, rot);
  const Vec3<T> sa = turn(turn_f, b1.size);
  const Vec3<T> s{abs_of(sa.x), abs_of(sa.y), abs_of(sa.z)};
  const T hz = s.z;
  p.z -= hz;
  const Vec3<T> s2 = b2.size;

  // the closest edge of box 2 (corners c0 = +, c1 = − along j) and the parallel one across ax1
  const Vec3<T> a1 = column(r, ax1), a2 = column(r, ax2), aq = column(r, q2);
  const T s2a1 = at(s2, ax1) * sign_of<T>(cle2 & (1 << ax1));
  const T s2a2 = at(s2, ax2) * sign_of<T>(cle2 & (1 << ax2));
  const Vec3<T> base0 = p + s2a1 * a1 + s2a2 * a2;
  const Vec3<T> base1 = p + (-s2a1) * a1 + s2a2 * a2;
  const Vec3<T> c0 = base0 + at(s2, q2) * aq, c1 = base0 + (-at(s2, q2)) * aq;
  const Vec3<T> c2 = base1 + at(s2, q2) * aq, c3 = base1 + (-at(s2, q2)) * aq;
  const Vec3<T> u1 = c1 - c0, u2 = c2 - c0;  // unprojected edges from c0

  if (abs_of(rn.z) < min_val<T>()) return false;
  const T inv_nz = T(1) / rn.z;
  const T innorm = inv_nz * sign_of<T>(!in);
  const T margin2 = margin * margin;
  normal = sign_of<T>(!in) * mul(turn_back(b1.mat, turn_f), rn);
  const Mat3<T> world = turn_back(b1.mat, turn_f);
  auto push = [&](const Vec3<T>& pt, T dist) {
    out.push(mul(world, Vec3<T>{pt.x, pt.y, pt.z + hz}) + b1.pos, dist);
  };

  // the corners projected along n onto z = 0
  const Vec3<T> k0 = c0 + (-c0.z * inv_nz) * rn, k1 = c1 + (-c1.z * inv_nz) * rn;
  const Vec3<T> k2 = c2 + (-c2.z * inv_nz) * rn, k3 = c3 + (-c3.z * inv_nz) * rn;
  const Vec3<T> e1 = k1 - k0, e2 = k2 - k0;

  // crossings of the projected outline k0 + t e (and its unprojected twin) with the sides
  for (int k = 0; k < 4; ++k) {
    const Vec3<T> start = k == 2 ? k0 + e1 : (k == 3 ? k0 + e2 : k0);
    const Vec3<T> dir = k == 1 || k == 2 ? e2 : e1;
    const Vec3<T> ustart = k == 2 ? c0 + u1 : (k == 3 ? c0 + u2 : c0);
    const Vec3<T> udir = k == 1 || k == 2 ? u2 : u1;
    clip_segment(start, dir, s.x, s.y, [&](T t, int q, T l, T w) {
      if ((ustart.z + udir.z * t) * innorm > margin) return;
      Vec3<T> pt = T(0.5) * ustart + (T(0.5) * t) * udir;
      put(pt, q, at(pt, q) + T(0.5) * l);
      put(pt, 1 - q, at(pt, 1 - q) + T(0.5) * w);
      push(pt, pt.z * innorm * T(2));
    });
  }
  const int crossings = out.n;

  // the rectangle's corners against the projected parallelogram k0 + u e₁ + v e₂
  T det = e1.x * e2.y - e2.x * e1.y;
  for (int i = 0; i < 4; ++i) {
    const T x = i / 2 ? s.x : -s.x, y = i % 2 ? s.y : -s.y;
    const T dx = x - k0.x, dy = y - k0.y;
    T u = (dx * e2.y - dy * e2.x) * (T(1) / det);
    T v = (dy * e1.x - dx * e1.y) * (T(1) / det);
    const bool u_out = u < T(0) || u > T(1), v_out = v < T(0) || v > T(1);
    if (crossings == 0 ? u_out && v_out : u_out || v_out) continue;
    u = u < T(0) ? T(0) : (u > T(1) ? T(1) : u);
    v = v < T(0) ? T(0) : (v > T(1) ? T(1) : v);
    const Vec3<T> under = (T(1) - u - v) * c0 + u * c1 + v * c2;
    const Vec3<T> corner{x, y, T(0)};
    const Vec3<T> gap = corner - under;
    det = dot(gap, gap);  // MuJoCo's reuse, see above
    if (under.z > T(0) && det > margin2) continue;
    push(T(0.5) * (corner + under), T(std::sqrt(det)) * sign_of<T>(!(under.z < T(0))));
  }
  const int before_corners = out.n;

  // the parallelogram's corners against the rectangle
  for (int i = 0; i < 4; ++i) {
    const Vec3<T>& k = i == 0 ? k0 : (i == 1 ? k1 : (i == 2 ? k2 : k3));
    const Vec3<T>& c = i == 0 ? c0 : (i == 1 ? c1 : (i == 2 ? c2 : c3));
    const bool x_out = k.x < -s.x || k.x > s.x, y_out = k.y < -s.y || k.y > s.y;
    if (crossings == 0 ? before_corners != 0 && x_out && y_out : x_out || y_out) continue;
    // squared distance from the rectangle in the plane, plus the height along n
    T d2 = T(0);
    const T dx = k.x < -s.x ? k.x + s.x : k.x - s.x, dy = k.y < -s.y ? k.y + s.y : k.y - s.y;
    d2 = x_out ? d2 + dx * dx : d2;
    d2 = y_out ? d2 + dy * dy : d2;
    d2 += c.z * innorm * c.z * innorm;
    if (c.z > T(0) && d2 > margin2) continue;
    const T cx = k.x < -s.x ? -s.x * T(0.5) : (k.x > s.x ? s.x * T(0.5) : k.x * T(0.5));
    const T cy = k.y < -s.y ? -s.y * T(0.5) : (k.y > s.y ? s.y * T(0.5) : k.y * T(0.5));
    push(Vec3<T>{cx, cy, T(0)} + T(0.5) * c, T(std::sqrt(d2)) * sign_of<T>(!(c.z < T(0))));
  }
  return true;
}

// Box–box by separating axes: the 3 + 3 face normals (overlap sᵢ + Σ |R|ᵢⱼ s'ⱼ − |x'ᵢ|), each
// taken when it overlaps strictly less than the best so far, then the 9 edge cross products
// (normalised; one below mjMINVAL is skipped), taken only when they overlap less by a factor
// 1 − 10⁻¹² (faces win near ties).  Any overlap below −margin: no contact.
template <class T, class Emit>
ZW_HD int box_box(const GeomPose<T>& b1, const GeomPose<T>& b2, T margin, Emit& emit) {
  const Vec3<T> s1 = b1.size, s2 = b2.size;
  const Vec3<T> pos21 = mul_t(b1.mat, b2.pos - b1.pos);
  const Vec3<T> pos12 = mul_t(b2.mat, b1.pos - b2.pos);
  // rot = R₁ᵀ R₂: column j is box 2's axis j in box 1's frame
  Mat3<T> rot, rott, rotabs;
  for (int a = 0; a < 3; ++a) {
    for (int b = 0; b < 3; ++b) {
      rot.m[3 * a + b] = b1.mat.m[a] * b2.mat.m[b] + b1.mat.m[3 + a] * b2.mat.m[3 + b] +
                         b1.mat.m[6 + a] * b2.mat.m[6 + b];
    }
  }
  for (int a = 0; a < 3; ++a) {
    for (int b = 0; b < 3; ++b) rott.m[3 * a + b] = rot.m[3 * b + a];
  }
  for (int k = 0; k < 9; ++k) rotabs.m[k] = abs_of(rot.m[k]);
  const Vec3<T> plen2 = mul(rotabs, s2), plen1 = mul_t(rotabs, s1);

  T penetration = margin;
  for (int i = 0; i < 3; ++i) penetration += at(s1, i) * T(3) + at(s2, i) * T(3);
  int code = -1;  // 0..5: face of box 1 (3 + i: at −i), 6..11: of box 2, 12 + 3 i + j: edges
  for (int i = 0; i < 3; ++i) {
    const T o1 = -abs_of(at(pos21, i)) + at(s1, i) + at(plen2, i);
    const T o2 = -abs_of(at(pos12, i)) + at(s2, i) + at(plen1, i);
    if (o1 < -margin || o2 < -margin) return 0;
    if (o1 < penetration) {
      penetration = o1;
      code = i + (at(pos21, i) < T(0) ? 3 : 0);
    }
    if (o2 < penetration) {
      penetration = o2;
      code = i + (at(pos12, i) < T(0) ? 3 : 0) + 6;
    }
  }

  Vec3<T> clnorm{T(0), T(0), T(0)};
  int cle1 = 0, cle2 = 0;
  bool in = false;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      // eᵢ × b_j with b_j = box 2's axis j in box 1's frame
      const Vec3<T> bj{rott.m[3 * j], rott.m[3 * j + 1], rott.m[3 * j + 2]};
      const Vec3<T> ax = i == 0
                             ? Vec3<T>{T(0), -bj.z, bj.y}
                             : (i == 1 ? Vec3<T>{bj.z, T(0), -bj.x} : Vec3<T>{-bj.y, bj.x, T(0)});
      T len;
      const Vec3<T> n = unit_or_x(ax, len);
      if (len < min_val<T>()) continue;
      const T proj = dot(pos21, n);
      // radii of the two boxes along n, minus the centres' distance along it
      T overlap = T(0);
      for (int k = 0; k < 3; ++k)
        overlap = k != i ? overlap + at(s1, k) * abs_of(at(n, k)) : overlap;
      for (int k = 0; k < 3; ++k) {
        overlap = k != j ? overlap + at(s2, k) * rotabs.m[3 * i + 3 - k - j] / len : overlap;
      }
      overlap -= abs_of(proj);
      if (overlap < -margin) return 0;
      if (overlap < penetration * (T(1) - T(1e-12))) {
        penetration = overlap;
        // the closest edges: bit k set where the edge lies at +s_k
        cle1 = 0;
        for (int k = 0; k < 3; ++k) {
          cle1 |= k != i && ((at(n, k) > T(0)) != (proj < T(0))) ? 1 << k : 0;
        }
        cle2 = 0;
        for (int k = 0; k < 3; ++k) {
          if (k == j) continue;
          // the sign of b_k·(eᵢ × b_j) flips with the orientation of (j, k)
          const bool up = rot.m[3 * i + 3 - k - j] > T(0);
          cle2 |= (up != (proj < T(0))) != ((k - j + 3) % 3 == 1) ? 1 << k : 0;
        }
        code = 12 + 3 * i + j;
        clnorm = n;
        in = proj < T(0);
      }
    }
  }
  if (code == -1) return 0;

  BoxBoxCandidates<T> out;
  Vec3<T> normal;
  if (code < 12) {
    const bool on2 = code >= 6;
    const GeomPose<T>& a = on2 ? b2 : b1;
    box_face(a.mat, a.pos, a.size, on2 ? s1 : s2, on2 ? rott : rot, on2 ? pos12 : pos21, code % 6,
             margin, sign_of<T>(!on2), out, normal);
  } else {
    const int q1 = (code - 12) / 3, q2 = (code - 12) % 3;
    // box 2's edge neighbours ax1 (its face flattest to box 1's face) and ax2; box 1's face
    // beside edge q1 on n's side whose normal is nearest n
    int ax1 = q2 == 1 ? 0 : 1, ax2 = q2 == 2 ? 0 : 2;
    int pax1 = q1 == 1 ? 0 : 1, pax2 = q1 == 2 ? 0 : 2;
    if (rotabs.m[3 * q1 + ax1] < rotabs.m[3 * q1 + ax2]) {
      ax1 = ax2;
      ax2 = 3 - q2 - ax1;
    }
    if (abs_of(rott.m[3 * q2 + pax1]) < abs_of(rott.m[3 * q2 + pax2])) {
      pax1 = pax2;
      pax2 = 3 - q1 - pax1;
    }
    const int f = (cle1 & (1 << pax2)) ? pax2 : pax2 + 3;
    if (!box_edge(b1, b2, rot, pos21, clnorm, f, q2, ax1, ax2, cle2, in, margin, out, normal)) {
      return 0;
    }
  }

  // MuJoCo's driver keeps the last of candidates at the same position
  const Mat3<T> frame = contact_frame(normal);
  int count = 0;
  for (int i = 0; i < out.n; ++i) {
    bool repeated = false;
    for (int j = i + 1; j < out.n; ++j) {
      repeated = repeated || (out.pos[i].x == out.pos[j].x && out.pos[i].y == out.pos[j].y &&
                              out.pos[i].z == out.pos[j].z);
    }
    if (repeated) continue;
    emit(ContactGeo<T>{out.dist[i], out.pos[i], frame});
    ++count;
  }
  return count;
}

}  // namespace box_pairs

// most contacts the box narrow phase of types t1 ≤ t2 returns; 0 for a pair it does not handle
ZW_HD constexpr int max_contacts_box(int t1, int t2) {
  return t2 != kGeomBox       ? 0
         : t1 == kGeomSphere  ? 1
         : t1 == kGeomCapsule ? 2
         : t1 == kGeomBox     ? box_pairs::BoxBoxCandidates<double>::kMax
                              : 0;
}

// narrow phase of sphere–box, capsule–box, box–box (types t1 ≤ t2, as MuJoCo orders them):
// emit(const ContactGeo<T>&) per contact, in MuJoCo's order; returns how many
template <class T, class Emit>
ZW_HD int collide_box(int t1, int t2, const GeomPose<T>& g1, const GeomPose<T>& g2, T margin,
                      Emit&& emit) {
  if (t2 != kGeomBox) return 0;
  switch (t1) {
    case kGeomSphere:
      return box_pairs::emit_hit(box_pairs::sphere_box(g1.pos, g1.size.x, g2, margin), emit);
    case kGeomCapsule:
      return box_pairs::capsule_box(g1, g2, margin, emit);
    case kGeomBox:
      return box_pairs::box_box(g1, g2, margin, emit);
    default:
      return 0;
  }
}

}  // namespace zwang
