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
// Included by kernels/narrowphase.h after GeomPose and ContactGeo; never on its own.  Box–box
// is in kernels/narrowphase_boxbox.h.
#pragma once

#include <cmath>

#include "kernels/hd.h"
#include "kernels/math_vec.h"

namespace zwang {
namespace box_pairs {

// |x| with the sign of a zero dropped, as MuJoCo's fabs: a reach s / |a| along an axis the
// capsule does not move along is +∞, never −∞ (a planar mechanism gives a = −0)
template <class T>
ZW_HD ZW_INLINE T abs_of(T x) {
  return vfabs(x);
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
//             dist = −d − rad, pos = R (c − sᵢ eᵢ (rad − d)/2) with d the depth under that face
// in the world with R, x the box's pose; nothing when dist > margin.  MuJoCo 2.2.2 (`mujoco2`)
// leaves the inside case's dist at |q − c| − rad, a depth it fixed later.
template <class T>
ZW_HD Hit<T> sphere_box(const Vec3<T>& c_world, T rad, const GeomPose<T>& box, T margin,
                        bool mujoco2) {
  const Vec3<T> s = box.size;
  const Vec3<T> c = mul_transposed(box.mat, c_world - box.pos);
  // the box's nearest point; like MuJoCo's clamp, a size ≤ 0 leaves its axis free
  auto clamp = [](T v, T lim) { return lim > T(0) ? (v < -lim ? -lim : (v > lim ? lim : v)) : v; };
  const Vec3<T> q{clamp(c.x, s.x), clamp(c.y, s.y), clamp(c.z, s.z)};
  T len;
  const Vec3<T> dir = unit_or_x(q - c, len);
  Hit<T> hit{false, len - rad, {}, {}};
  if (len - rad > margin) return hit;
  hit.found = true;

  if (len <= primitive::min_length<T>()) {
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
    if (!mujoco2) hit.dist = -closest - rad;
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
ZW_HD int capsule_box(const GeomPose<T>& cap, const GeomPose<T>& box, T margin, Emit& emit,
                      bool mujoco2) {
  const Vec3<T> s = box.size;
  const T rad = cap.size.x, half = cap.size.y;
  const Vec3<T> c = mul_transposed(box.mat, cap.pos - box.pos);
  const Vec3<T> axis = mul_transposed(box.mat, column(cap.mat, 2));
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
      if (abs_of(det) < primitive::min_length<T>()) continue;
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
      if (dist2 < best - primitive::min_length<T>()) {
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
  int count = emit_hit(sphere_box(first, rad, box, margin, mujoco2), emit);
  if (second > T(-3)) {
    const Vec3<T> next = mul(box.mat, c + (second + best_x) * ha) + box.pos;
    count += emit_hit(sphere_box(next, rad, box, margin, mujoco2), emit);
  }
  return count;
}

}  // namespace box_pairs
}  // namespace zwang

#include "kernels/narrowphase_boxbox.h"

namespace zwang {

// most contacts the box narrow phase of types t1 ≤ t2 returns; 0 for a pair it does not handle
ZW_HD constexpr int max_contacts_box(int t1, int t2) {
  return t2 != GeomType::kBox       ? 0
         : t1 == GeomType::kSphere  ? 1
         : t1 == GeomType::kCapsule ? 2
         : t1 == GeomType::kBox     ? box_pairs::BoxBoxCandidates<double>::kMax
                                    : 0;
}

// narrow phase of sphere–box, capsule–box, box–box (types t1 ≤ t2, as MuJoCo orders them):
// emit(const ContactGeo<T>&) per contact, in MuJoCo's order; returns how many.  As MuJoCo 4.0, or
// as 2.2.2 under its rules (Rules): box–box, and a sphere's depth with its centre in the box
template <class T, class Emit>
ZW_HD int collide_box(int t1, int t2, const GeomPose<T>& g1, const GeomPose<T>& g2, T margin,
                      Emit&& emit, int rules) {
  if (t2 != GeomType::kBox) return 0;
  switch (t1) {
    case GeomType::kSphere:
      return box_pairs::emit_hit(
          box_pairs::sphere_box(g1.pos, g1.size.x, g2, margin, rules == Rules::kMujoco2), emit);
    case GeomType::kCapsule:
      return box_pairs::capsule_box(g1, g2, margin, emit, rules == Rules::kMujoco2);
    case GeomType::kBox:
      return rules == Rules::kMujoco2 ? box_pairs::box_box(g1, g2, margin, emit)
                                      : box_pairs::box_box_sat(g1, g2, margin, emit);
    default:
      return 0;
  }
}

}  // namespace zwang
