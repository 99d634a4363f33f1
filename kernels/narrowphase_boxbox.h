// Box–box as MuJoCo 4.0 (box_box_sat) and as MuJoCo 2.2.2 (box_box, its engine_collision_box.c
// mjc_BoxBox): the separating axis of least overlap, then the face or edge contact it implies.
// 4.0 clips the incident face against the reference face's sides (up to 8 contacts, each
// vertex within the margin) or takes one contact at the closest points of two edges; 2.2.2's
// candidates are deduplicated as its mj_collideGeoms does.  Included by
// kernels/narrowphase_box.h after its helpers; never on its own.
#pragma once

#include <cmath>

#include "kernels/hd.h"
#include "kernels/math_vec.h"

namespace zwang {
namespace box_pairs {

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
    if (!(abs_of(b) > primitive::min_length<T>())) continue;
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

  if (abs_of(rn.z) < primitive::min_length<T>()) return false;
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
    push(T(0.5) * (corner + under), T(vsqrt(det)) * sign_of<T>(!(under.z < T(0))));
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
    push(Vec3<T>{cx, cy, T(0)} + T(0.5) * c, T(vsqrt(d2)) * sign_of<T>(!(c.z < T(0))));
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
  const Vec3<T> pos21 = mul_transposed(b1.mat, b2.pos - b1.pos);
  const Vec3<T> pos12 = mul_transposed(b2.mat, b1.pos - b2.pos);
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
  const Vec3<T> plen2 = mul(rotabs, s2), plen1 = mul_transposed(rotabs, s1);

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
      if (len < primitive::min_length<T>()) continue;
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

// MuJoCo 4.0's rounding scales (float: its mjUSESINGLE values): the separation tests' slack per
// unit of the summed half-sizes, sin² below which an edge cross product is noise, an axis
// component below which a support corner is ambiguous, the squared relative radius within which
// clipped vertices are one
template <class T>
struct SatEps {
  static constexpr bool kSingle = sizeof(T) == 4;
  static ZW_HD ZW_INLINE T sep() { return T(kSingle ? 1e-6 : 1e-13); }
  static ZW_HD ZW_INLINE T parallel() { return T(kSingle ? 1e-7 : 1e-16); }
  static ZW_HD ZW_INLINE T sign() { return T(kSingle ? 1e-5 : 1e-9); }
  static ZW_HD ZW_INLINE T dupe() { return T(kSingle ? 1e-10 : 1e-14); }
};

// vertices of a face polygon clipped by four half-planes: 4 + 4, kept to 12 as MuJoCo
inline constexpr int kSatMaxVert = 12;

// the polygon in[0..n) clipped to sign·v[coord] ≤ limit into out (the vertices inside, and where
// an edge strictly crosses, the crossing with z interpolated); returns out's count, or −1 when
// every vertex is inside (in unchanged)
template <class T>
ZW_HD int sat_clip(int n, T (*in)[3], T (*out)[3], int coord, T sign, T limit) {
  T dv[kSatMaxVert];
  bool inside = true;
  for (int k = 0; k < n; ++k) {
    dv[k] = sign * in[k][coord] - limit;
    inside = inside && dv[k] <= T(0);
  }
  if (inside) return -1;
  int m = 0;
  for (int k = 0; k < n; ++k) {
    const int k1 = k + 1 == n ? 0 : k + 1;
    const T dp = dv[k], dq = dv[k1];
    if (dp <= T(0) && m < kSatMaxVert) {
      for (int c = 0; c < 3; ++c) out[m][c] = in[k][c];
      ++m;
    }
    if (((dp < T(0) && dq > T(0)) || (dp > T(0) && dq < T(0))) && m < kSatMaxVert) {
      const T t = dp / (dp - dq);
      for (int c = 0; c < 3; ++c) out[m][c] = in[k][c] + t * (in[k1][c] - in[k][c]);
      ++m;
    }
  }
  return m;
}

template <class T>
ZW_HD ZW_INLINE T clip_to(T x, T lo, T hi) {
  return x < lo ? lo : (x > hi ? hi : x);
}

// MuJoCo 4.0's box–box.  Stage 1, separating axes (rot = R₁ᵀ R₂, pos21 box 2's centre in box
// 1's frame, pos12 the converse): face i of box 1 separates by |pos21_i| − s1_i − Σ_k |rot_ik|
// s2_k, face j of box 2 likewise; the edge axes e_i × (R₂ e_j) (skipped when sin² < parallel)
// by |a·pos21| − r1 − r2.  Any separation above margin + slack: none.  An edge axis wins only
// past the best face by a relative 10⁻⁶, and yields to a face within 0.99 of parallel unless 5 %
// deeper.  Edge: the closest points of the two supporting edges (both sign choices of an
// ambiguous component tried), one contact midway, normal along the axis toward box 2.  Face: the
// incident face (most opposed to the reference face's normal) clipped by the reference face's
// four sides; each vertex within the margin (z its signed height above the reference face, the
// contact's distance), deduplicated, is a contact midway between the face and the vertex.
template <class T, class Emit>
ZW_HD int box_box_sat(const GeomPose<T>& b1, const GeomPose<T>& b2, T margin, Emit& emit) {
  using E = SatEps<T>;
  const T s1[3] = {b1.size.x, b1.size.y, b1.size.z}, s2[3] = {b2.size.x, b2.size.y, b2.size.z};
  const Vec3<T> p21 = mul_transposed(b1.mat, b2.pos - b1.pos);
  const Vec3<T> p12 = mul_transposed(b2.mat, b1.pos - b2.pos);
  const T pos21[3] = {p21.x, p21.y, p21.z}, pos12[3] = {p12.x, p12.y, p12.z};
  T rot[9], rotabs[9];
  for (int a = 0; a < 3; ++a) {
    for (int b = 0; b < 3; ++b) {
      rot[3 * a + b] = b1.mat.m[a] * b2.mat.m[b] + b1.mat.m[3 + a] * b2.mat.m[3 + b] +
                       b1.mat.m[6 + a] * b2.mat.m[6 + b];
    }
  }
  for (int k = 0; k < 9; ++k) rotabs[k] = abs_of(rot[k]);

  const T septol = margin + E::sep() * (s1[0] + s1[1] + s1[2] + s2[0] + s2[1] + s2[2]);
  T sep_best = T(-1e10);
  int code = -1;
  for (int i = 0; i < 3; ++i) {
    const T r2 = rotabs[3 * i] * s2[0] + rotabs[3 * i + 1] * s2[1] + rotabs[3 * i + 2] * s2[2];
    const T sep = abs_of(pos21[i]) - s1[i] - r2;
    if (sep > septol) return 0;
    if (sep > sep_best) {
      sep_best = sep;
      code = i;
    }
  }
  for (int j = 0; j < 3; ++j) {
    const T r1 = rotabs[j] * s1[0] + rotabs[3 + j] * s1[1] + rotabs[6 + j] * s1[2];
    const T sep = abs_of(pos12[j]) - s2[j] - r1;
    if (sep > septol) return 0;
    if (sep > sep_best) {
      sep_best = sep;
      code = 3 + j;
    }
  }
  const T sep_face = sep_best;
  const int code_face = code;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      const int i1 = (i + 1) % 3, i2 = (i + 2) % 3, j1 = (j + 1) % 3, j2 = (j + 2) % 3;
      T ax1 = -rot[3 * i2 + j], ax2 = rot[3 * i1 + j];
      const T norm2 = ax1 * ax1 + ax2 * ax2;
      if (norm2 < E::parallel()) continue;
      const T inv = T(1) / vsqrt(norm2);
      ax1 *= inv;
      ax2 *= inv;
      const T r1 = s1[i1] * abs_of(ax1) + s1[i2] * abs_of(ax2);
      const T a21 = ax1 * rot[3 * i1 + j1] + ax2 * rot[3 * i2 + j1];
      const T a22 = ax1 * rot[3 * i1 + j2] + ax2 * rot[3 * i2 + j2];
      const T r2 = s2[j1] * abs_of(a21) + s2[j2] * abs_of(a22);
      const T sep = abs_of(ax1 * pos21[i1] + ax2 * pos21[i2]) - r1 - r2;
      if (sep > septol) return 0;
      if (sep - T(1e-6) * abs_of(sep) > sep_best && sep > sep_face) {
        sep_best = sep;
        code = 6 + 3 * i + j;
      }
    }
  }
  if (code < 0) return 0;

  // the unit edge axis e_i × (R₂ e_j) in box 1's frame
  const auto edge_axis = [&](int c, T(&axis)[3]) ZW_ITEM {
    const int i = (c - 6) / 3, j = (c - 6) % 3;
    axis[i] = T(0);
    axis[(i + 1) % 3] = -rot[3 * ((i + 2) % 3) + j];
    axis[(i + 2) % 3] = rot[3 * ((i + 1) % 3) + j];
    T len;
    const Vec3<T> u = unit_or_x(Vec3<T>{axis[0], axis[1], axis[2]}, len);
    axis[0] = u.x;
    axis[1] = u.y;
    axis[2] = u.z;
  };
  if (code >= 6) {
    T axis[3];
    edge_axis(code, axis);
    const int f = code_face - 3;
    const T face_dot = code_face < 3
                           ? abs_of(axis[code_face])
                           : abs_of(axis[0] * rot[f] + axis[1] * rot[3 + f] + axis[2] * rot[6 + f]);
    if (face_dot > T(0.99) &&
        sep_best < sep_face + T(0.05) * abs_of(sep_face) + primitive::min_length<T>()) {
      code = code_face;
      sep_best = sep_face;
    }
  }

  if (code >= 6) {
    const int i = (code - 6) / 3, j = (code - 6) % 3;
    const int i1 = (i + 1) % 3, i2 = (i + 2) % 3, j1 = (j + 1) % 3, j2 = (j + 2) % 3;
    T axis[3];
    edge_axis(code, axis);
    if (axis[0] * pos21[0] + axis[1] * pos21[1] + axis[2] * pos21[2] < T(0)) {
      for (int c = 0; c < 3; ++c) axis[c] = -axis[c];
    }
    T a2[3];
    for (int c = 0; c < 3; ++c) {
      a2[c] = axis[0] * rot[c] + axis[1] * rot[3 + c] + axis[2] * rot[6 + c];
    }
    const int amb1 = abs_of(axis[i1]) < E::sign() ? i1 : (abs_of(axis[i2]) < E::sign() ? i2 : -1);
    const int amb2 = abs_of(a2[j1]) < E::sign() ? j1 : (abs_of(a2[j2]) < E::sign() ? j2 : -1);
    const T d2[3] = {rot[j], rot[3 + j], rot[6 + j]};
    const T b = d2[i], denom = T(1) - b * b;
    T w1[3] = {T(0), T(0), T(0)}, w2[3] = {T(0), T(0), T(0)};
    T best = T(0);
    bool any = false;
    for (int v1 = 0; v1 < (amb1 >= 0 ? 2 : 1); ++v1) {
      for (int v2 = 0; v2 < (amb2 >= 0 ? 2 : 1); ++v2) {
        // the edges' corners: box 1's supporting +axis, box 2's supporting −axis
        T c1[3], cc[3], c2[3], e[3];
        c1[i] = T(0);
        c1[i1] = axis[i1] >= T(0) ? s1[i1] : -s1[i1];
        c1[i2] = axis[i2] >= T(0) ? s1[i2] : -s1[i2];
        if (amb1 >= 0 && v1) c1[amb1] = -c1[amb1];
        cc[j] = T(0);
        cc[j1] = a2[j1] >= T(0) ? -s2[j1] : s2[j1];
        cc[j2] = a2[j2] >= T(0) ? -s2[j2] : s2[j2];
        if (amb2 >= 0 && v2) cc[amb2] = -cc[amb2];
        for (int r = 0; r < 3; ++r) {
          c2[r] = rot[3 * r] * cc[0] + rot[3 * r + 1] * cc[1] + rot[3 * r + 2] * cc[2] + pos21[r];
          e[r] = c2[r] - c1[r];
        }
        const T d1e = e[i], d2e = d2[0] * e[0] + d2[1] * e[1] + d2[2] * e[2];
        T s = denom < primitive::min_length<T>() ? T(0) : (d1e - b * d2e) / denom;
        s = clip_to(s, -s1[i], s1[i]);
        const T t = clip_to(b * s - d2e, -s2[j], s2[j]);
        s = clip_to(d1e + b * t, -s1[i], s1[i]);
        T p1[3] = {c1[0], c1[1], c1[2]}, p2[3], g2 = T(0);
        p1[i] += s;
        for (int r = 0; r < 3; ++r) {
          p2[r] = c2[r] + d2[r] * t;
          g2 += (p2[r] - p1[r]) * (p2[r] - p1[r]);
        }
        if (!any || g2 < best) {
          any = true;
          best = g2;
          for (int r = 0; r < 3; ++r) {
            w1[r] = p1[r];
            w2[r] = p2[r];
          }
        }
      }
    }
    const T dist =
        (w2[0] - w1[0]) * axis[0] + (w2[1] - w1[1]) * axis[1] + (w2[2] - w1[2]) * axis[2];
    if (dist > septol) return 0;
    const Vec3<T> mid{T(0.5) * (w1[0] + w2[0]), T(0.5) * (w1[1] + w2[1]), T(0.5) * (w1[2] + w2[2])};
    const Vec3<T> normal = mul(b1.mat, Vec3<T>{axis[0], axis[1], axis[2]});
    emit(ContactGeo<T>{dist, mul(b1.mat, mid) + b1.pos, contact_frame(normal)});
    return 1;
  }

  // face: box 1 the reference for codes 0..2, box 2 for 3..5
  const bool ref1 = code < 3;
  const int a = ref1 ? code : code - 3;
  const T* sref = ref1 ? s1 : s2;
  const T* sinc = ref1 ? s2 : s1;
  const GeomPose<T>& ref = ref1 ? b1 : b2;
  const T* posoi = ref1 ? pos21 : pos12;
  // rinc[3 r + c]: the incident box's axis c, component r, in the reference frame
  T rinc[9];
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 3; ++c) rinc[3 * r + c] = ref1 ? rot[3 * r + c] : rot[3 * c + r];
  }
  const T sgn = posoi[a] >= T(0) ? T(1) : T(-1);
  int binc = 0;
  for (int k = 1; k < 3; ++k) {
    if (abs_of(rinc[3 * a + k]) > abs_of(rinc[3 * a + binc])) binc = k;
  }
  const T tinc = sgn * rinc[3 * a + binc] > T(0) ? T(-1) : T(1);
  const int ax = (a + 1) % 3, ay = (a + 2) % 3, bu = (binc + 1) % 3, bv = (binc + 2) % 3;
  // the incident face's centre and half-edges in (x, y, height above the reference face)
  T cx[3], du[3], dv[3];
  for (int r = 0; r < 3; ++r) {
    const int c = r == 0 ? ax : (r == 1 ? ay : a);
    cx[r] = posoi[c] + tinc * sinc[binc] * rinc[3 * c + binc];
    du[r] = sinc[bu] * rinc[3 * c + bu];
    dv[r] = sinc[bv] * rinc[3 * c + bv];
  }
  cx[2] = sgn * cx[2] - sref[a];
  du[2] *= sgn;
  dv[2] *= sgn;
  T poly[2][kSatMaxVert][3];
  for (int k = 0; k < 4; ++k) {
    const T su = k == 0 || k == 3 ? T(1) : T(-1), sv = k < 2 ? T(1) : T(-1);
    for (int r = 0; r < 3; ++r) poly[0][k][r] = cx[r] + su * du[r] + sv * dv[r];
  }
  int n = 4, cur = 0;
  for (int side = 0; side < 4; ++side) {
    const int m = sat_clip<T>(n, poly[cur], poly[1 - cur], side / 2, side % 2 == 0 ? T(1) : T(-1),
                              sref[side < 2 ? ax : ay]);
    if (m >= 0) {
      n = m;
      cur = 1 - cur;
    }
  }
  // the vertices within the margin, near-duplicates dropped
  T kept[kSatMaxVert][3];
  int nkept = 0;
  const T dupe2 = E::dupe() * (sref[ax] * sref[ax] + sref[ay] * sref[ay]);
  for (int k = 0; k < n; ++k) {
    if (poly[cur][k][2] > margin) continue;
    bool dupe = false;
    for (int q = 0; q < nkept; ++q) {
      const T dx = kept[q][0] - poly[cur][k][0], dy = kept[q][1] - poly[cur][k][1];
      dupe = dupe || dx * dx + dy * dy < dupe2;
    }
    if (dupe) continue;
    for (int r = 0; r < 3; ++r) kept[nkept][r] = poly[cur][k][r];
    ++nkept;
  }
  const T nsign = ref1 ? sgn : -sgn;
  const Vec3<T> normal = nsign * column(ref.mat, a);
  const Mat3<T> frame = contact_frame(normal);
  for (int k = 0; k < nkept; ++k) {
    T pc[3];
    pc[ax] = kept[k][0];
    pc[ay] = kept[k][1];
    pc[a] = sgn * (sref[a] + T(0.5) * kept[k][2]);
    emit(ContactGeo<T>{kept[k][2], mul(ref.mat, Vec3<T>{pc[0], pc[1], pc[2]}) + ref.pos, frame});
  }
  return nkept;
}

}  // namespace box_pairs
}  // namespace zwang
