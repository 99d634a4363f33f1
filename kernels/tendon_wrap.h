// (sites x₀, x₁, a sphere or cylinder of radius r, optionally a side site) => the tendon's path
// around it: tangent points a, b and the arc length between them, or no wrap
//
// MuJoCo 4.0's geom wrapping, in the geom's frame (p = Rᵀ(x − c)):
//   plane    sphere: the plane through the centre, p₀ and p₁ (axes u = p₀/|p₀|, v ⟂ u in it;
//            where p₀ ∥ p₁, the normal u × w with w = (1, 1, 1) zeroed at u's largest
//            component); cylinder: the x-y plane, the height z handled after
//   circle   in that plane, e = (p·u, p·v).  From a point e outside the circle, |e|² = s > r²,
//            the tangent points are (r² e ± r √(s − r²) e⊥) / s, e⊥ = (e_y, −e_x); the two
//            candidate paths take opposite signs at the two ends and turn opposite ways.  No
//            wrap when an end is inside the circle.  Without a side site: no wrap where the
//            straight segment e₀ e₁ passes clear of the circle; else the candidate with the
//            shorter chord whose tangent lines do not cross.  With one (direction σ): the path
//            is the one that winds about the centre as e₀ → σ → e₁ does, W = ∠(e₀, σ) + ∠(σ,
//            e₁) (signed angles in (−π, π]); a clear segment within π of that winding is that
//            path (no wrap), else the candidate turning counter-clockwise where W > 0.  If the
//            chosen candidate's tangent lines cross, no wrap.  Arc length r θ: θ the angle from
//            a to b the long way where the path goes round (without a side site), or |W −
//            ∠(e₀, a) − ∠(b, e₁)| (with one)
//   inside   a side site inside the sphere or cylinder (|Rᵀ(s − c)| < r): the path touches the
//            circle once from within, where the two segments make equal angles with the
//            radius: φ solves asin(A sin φ) + asin(B sin φ) − 2φ + G = 0, A = r/|e₀|, B =
//            r/|e₁|, G the angle e₀ 0 e₁, by Newton from φ = π/2 (|f| ≤ 10⁻⁶ within 19 steps);
//            where that fails, the point at radius r midway between the ends.  Zero arc.
//   height   cylinder: a and b get heights in proportion to the path's length along it,
//            z_a = z₀ + Δz L₀ / (L₀ + ℓ + L₁), z_b = z₀ + Δz (L₀ + ℓ) / (L₀ + ℓ + L₁), and the arc
//            becomes the helix √(ℓ² + (z_b − z_a)²)
// MuJoCo 2.2.2 differs with a side site: a clear segment on the side site's side is no wrap,
// any other wraps, on the side whose tangents' midpoint is nearer σ; a side site is inside where
// its projection on the plane is; its Newton runs in z from 1 − 10⁻⁷ (the same point to 10⁻⁸).
// Both rule sets take 4.0's arc angle (atan2, no long way at a wrap's onset) and its tangent-line
// crossing test (half-open): 2.2.2's acos and closed test differ only where rounding decides a
// wrap's onset, where 2.2.2 may add a full turn.
// Every lane computes both candidates and selects; the Newton steps stop when no lane of a pack
// needs another.
#pragma once

#include <cmath>

#include "kernels/hd.h"
#include "kernels/lanes.h"
#include "kernels/math_vec.h"

namespace zwang {
namespace wrap {

// MuJoCo's smallest denominator (mjMINVAL)
inline constexpr double kMinVal = 1e-15;
inline constexpr double kPi = 3.141592653589793;

template <class T>
struct Pt2 {
  T x, y;
};

template <class T>
ZW_HD ZW_INLINE T dot2(const Pt2<T>& a, const Pt2<T>& b) {
  return a.x * b.x + a.y * b.y;
}

template <class T>
ZW_HD ZW_INLINE Pt2<T> select2(MaskOf<T> m, const Pt2<T>& a, const Pt2<T>& b) {
  return {vselect(m, a.x, b.x), vselect(m, a.y, b.y)};
}

// a / |a|, or (1, 0) where |a| < kMinVal
template <class T>
ZW_HD ZW_INLINE Pt2<T> unit2(const Pt2<T>& a) {
  const T n = vsqrt(dot2(a, a));
  const MaskOf<T> tiny = n < T(kMinVal);
  const T inv = T(1) / vselect(tiny, T(1), n);
  return {vselect(tiny, T(1), a.x * inv), vselect(tiny, T(0), a.y * inv)};
}

// whether the segments a₀a₁ and b₀b₁ meet: a₀ + s (a₁ − a₀) = b₀ + t (b₁ − b₀) with s, t in
// [0, 1), the signs of the cross products in place of the divisions; parallel ones never
template <class T>
ZW_HD ZW_INLINE MaskOf<T> segments_meet(const Pt2<T>& a0, const Pt2<T>& a1, const Pt2<T>& b0,
                                        const Pt2<T>& b1) {
  const Pt2<T> u{a1.x - a0.x, a1.y - a0.y}, v{b1.x - b0.x, b1.y - b0.y};
  const Pt2<T> w{a0.x - b0.x, a0.y - b0.y}, e{a1.x - b1.x, a1.y - b1.y};
  const T det = v.y * u.x - v.x * u.y;
  const T sg = vselect(det > T(0), T(1), T(-1));
  const T s0 = (v.x * w.y - v.y * w.x) * sg, s1 = (v.x * e.y - v.y * e.x) * sg;
  const T t0 = (u.x * w.y - u.y * w.x) * sg, t1 = (u.x * e.y - u.y * e.x) * sg;
  return !(vabs(det) < T(kMinVal)) && s0 >= T(0) && s1 < T(0) && t0 >= T(0) && t1 < T(0);
}

// the signed angle from p to q about the origin, in (−π, π]
template <class T>
ZW_HD ZW_INLINE T winding(const Pt2<T>& p, const Pt2<T>& q) {
  return vatan2(p.x * q.y - p.y * q.x, dot2(p, q));
}

// the wrap in the plane: tangent points a, b, arc length, and where there is one
template <class T>
struct Arc {
  Pt2<T> a, b;
  T length;
  MaskOf<T> wraps;
};

// the candidate path whose end tangents take sign sg at e₀ (−sg at e₁)
template <class T>
ZW_HD ZW_INLINE void tangents(const Pt2<T>& e0, const Pt2<T>& e1, T s0, T s1, T q0, T q1, T r, T sg,
                              Pt2<T>& a, Pt2<T>& b) {
  const T rr = r * r;
  a = {(e0.x * rr + sg * r * e0.y * q0) / s0, (e0.y * rr - sg * r * e0.x * q0) / s0};
  b = {(e1.x * rr - sg * r * e1.y * q1) / s1, (e1.y * rr + sg * r * e1.x * q1) / s1};
}

// how the side site decides: none, MuJoCo 4.0's winding, MuJoCo 2.2.2's half-plane
enum SideRule : int { kNoSide = 0, kWinding = 1, kHalfPlane = 2 };

// from outside the circle of radius r about the origin; `side` the side site's direction
// scaled to r (unless kNoSide)
template <class T>
ZW_HD Arc<T> outside_wrap(const Pt2<T>& e0, const Pt2<T>& e1, SideRule rule, const Pt2<T>& side,
                          T r) {
  const T s0 = dot2(e0, e0), s1 = dot2(e1, e1), rr = r * r;
  const Pt2<T> dif{e1.x - e0.x, e1.y - e0.y};
  const T dd = dot2(dif, dif);
  MaskOf<T> wraps = !(s0 < rr) && !(s1 < rr) && !(r < T(kMinVal)) && !(dd < T(kMinVal));
  // the segment's point nearest the centre, outside the circle: clear
  const T at = vclamp(-dot2(dif, e0) / vselect(wraps, dd, T(1)), T(0), T(1));
  const Pt2<T> near{at * dif.x + e0.x, at * dif.y + e0.y};
  const MaskOf<T> clear = dot2(near, near) > rr;
  // with a side site the path winds about the centre as e₀ → side → e₁ does; a clear segment
  // that winds the same way (not a turn apart) is that path
  // (2.2.2: a clear segment on the side site's side of the centre)
  T wind_side = T(0);
  if (rule == kWinding) {
    wind_side = winding(e0, side) + winding(side, e1);
    wraps = wraps && !(clear && vabs(wind_side - winding(e0, e1)) < T(kPi));
  } else if (rule == kHalfPlane) {
    wraps = wraps && !(clear && dot2(side, near) >= T(0));
  } else {
    wraps = wraps && !clear;
  }

  const T d0 = vselect(wraps, s0, T(1)), d1 = vselect(wraps, s1, T(1));
  const T q0 = vsqrt(vselect(wraps, s0 - rr, T(0))), q1 = vsqrt(vselect(wraps, s1 - rr, T(0)));
  Pt2<T> a0, b0, a1, b1;
  tangents(e0, e1, d0, d1, q0, q1, r, T(1), a0, b0);
  tangents(e0, e1, d0, d1, q0, q1, r, T(-1), a1, b1);
  const MaskOf<T> meet0 = segments_meet(e0, a0, e1, b0), meet1 = segments_meet(e0, a1, e1, b1);
  // the turn's sense: the side site's winding, or else the shorter chord whose tangent lines do
  // not cross (2.2.2: the tangents' midpoint nearer the side site)
  MaskOf<T> second;
  if (rule == kWinding) {
    second = wind_side > T(0);
  } else {
    const auto good = [&](const Pt2<T>& a, const Pt2<T>& b, MaskOf<T> meet) {
      const Pt2<T> chord{a.x - b.x, a.y - b.y};
      const T g = rule == kHalfPlane ? dot2(unit2(Pt2<T>{a.x + b.x, a.y + b.y}), side)
                                     : -dot2(chord, chord);
      return vselect(meet, T(-10000), g);
    };
    second = !(good(a0, b0, meet0) > good(a1, b1, meet1));
  }
  Arc<T> arc;
  arc.a = select2(second, a1, a0);
  arc.b = select2(second, b1, b0);
  arc.wraps = wraps && !((second && meet1) || (!second && meet0));
  if (rule == kWinding) {
    // the path's winding less its tangent segments' (exact up to a full turn)
    arc.length = r * vabs(wind_side - winding(e0, arc.a) - winding(arc.b, e1));
  } else {
    // the angle between a and b, or its complement where the path goes the long way (not at
    // a wrap's onset, where a = b)
    const T turn = arc.a.y * arc.b.x - arc.a.x * arc.b.y;
    const T angle = vatan2(vabs(turn), dot2(arc.a, arc.b));
    const MaskOf<T> long_way =
        angle > T(1e-6) && ((turn > T(0) && second) || (turn < T(0) && !second));
    arc.length = r * vselect(long_way, T(2 * kPi) - angle, angle);
  }
  return arc;
}

// from a side site inside the circle: one touching point (a = b), zero arc; `z_newton`:
// MuJoCo 2.2.2's iteration in z = sin φ from 1 − 10⁻⁷
template <class T>
ZW_HD Arc<T> inside_wrap(const Pt2<T>& e0, const Pt2<T>& e1, T r, bool z_newton) {
  constexpr int kMaxIterations = 20;
  const T tolerance = T(1e-6);
  const T len0 = vsqrt(dot2(e0, e0)), len1 = vsqrt(dot2(e1, e1));
  const Pt2<T> dif{e1.x - e0.x, e1.y - e0.y};
  const T dd = dot2(dif, dif);
  MaskOf<T> wraps =
      len0 > r && len1 > r && !(r < T(kMinVal)) && !(len0 < T(kMinVal)) && !(len1 < T(kMinVal));
  // the segment crossing the circle: no wrap
  const MaskOf<T> long_segment = dd > T(kMinVal);
  const T at = -dot2(dif, e0) / vselect(long_segment, dd, T(1));
  const Pt2<T> near{e0.x + at * dif.x, e0.y + at * dif.y};
  wraps = wraps && !(long_segment && at > T(0) && at < T(1) && vsqrt(dot2(near, near)) <= r);

  const Pt2<T> middle = unit2(Pt2<T>{T(0.5) * (e0.x + e1.x), T(0.5) * (e0.y + e1.y)});
  // (0 where there is no wrap: r / 1 could exceed 1 and take asin out of its domain)
  const T a = vselect(wraps, r / len0, T(0)), b = vselect(wraps, r / len1, T(0));
  const T cos_g = (len0 * len0 + len1 * len1 - dd) / vselect(wraps, T(2) * len0 * len1, T(1));
  wraps = wraps && !(cos_g < T(-1 + kMinVal));
  const T g = vacos(vclamp(cos_g, T(-1), T(1)));
  // Newton in φ = asin z from φ = π/2 (z = 1): f(φ) = asin(A z) + asin(B z) − 2φ + G, f' =
  // cos φ (A / √(1 − z² A²) + B / √(1 − z² B²)) − 2; `fallback` where it cannot go on (the
  // midpoint then)
  T phi = T(kPi / 2), z = T(1);
  if (z_newton) {
    z = T(1 - 1e-7);
    phi = vasin(z);
  }
  T asin_a = vasin(a * z), asin_b = vasin(b * z);
  T f = asin_a + asin_b - T(2) * phi + g;
  MaskOf<T> fallback = cos_g > T(1 - kMinVal) || f > T(0);
  MaskOf<T> converged = !fallback && !(vabs(f) > tolerance);
  const T aa = a * a, bb = b * b;
  for (int k = 0; k < kMaxIterations; ++k) {
    const MaskOf<T> active = wraps && !fallback && !converged;
    if (!any_lane<T>(active)) break;
    // √(1 − z² c²), at least kMinVal (the products in each version's order)
    const T zz = z * z;
    const auto root = [&](T c, T cc) {
      const T x = z_newton ? T(1) - zz * c * c : T(1) - zz * cc;
      const T rt = vsqrt(vselect(x > T(0), x, T(0)));
      return vselect(rt > T(kMinVal), rt, T(kMinVal));
    };
    // 2.2.2: f'(z) = A / √(1 − z² A²) + B / √(1 − z² B²) − 2 / √(1 − z²), z ← z − f / f'
    const T df = z_newton ? a / root(a, aa) + b / root(b, bb) - T(2) / root(T(1), T(1))
                          : vcos(phi) * (a / root(a, aa) + b / root(b, bb)) - T(2);
    const T step = f / vselect(df < T(0), df, T(-1));
    const T next = (z_newton ? z : phi) - step;
    const MaskOf<T> stuck = active && (df > T(-kMinVal) || next > (z_newton ? z : phi));
    const MaskOf<T> moves = active && !stuck;
    if (z_newton) {
      z = vselect(moves, next, z);
      phi = vselect(moves, vasin(z), phi);
    } else {
      phi = vselect(moves, next, phi);
      z = vselect(moves, vsin(phi), z);
    }
    asin_a = vselect(moves, vasin(a * z), asin_a);
    asin_b = vselect(moves, vasin(b * z), asin_b);
    f = vselect(moves, asin_a + asin_b - T(2) * phi + g, f);
    fallback = fallback || stuck || (moves && f > tolerance);
    // convergence on the last allowed step counts as running out of steps, as MuJoCo's
    if (k + 1 < kMaxIterations)
      converged = converged || (moves && !(f > tolerance) && !(vabs(f) > tolerance));
  }
  // rotate the end on the counter-clockwise side by φ − asin(A z) (or B) towards the other
  const MaskOf<T> ccw = e0.x * e1.y - e0.y * e1.x > T(0);
  const Pt2<T> from = unit2(select2(ccw, e0, e1));
  const T ang = phi - vselect(ccw, asin_a, asin_b);
  T s, c;
  vsincos(ang, s, c);
  const Pt2<T> touch{r * (c * from.x - s * from.y), r * (s * from.x + c * from.y)};
  Arc<T> arc;
  arc.a = select2(converged, touch, Pt2<T>{r * middle.x, r * middle.y});
  arc.b = arc.a;
  arc.length = T(0);
  arc.wraps = wraps;
  return arc;
}

// the wrap in the world: tangent points a, b and the length between them (arc or helix)
template <class T>
struct Wrapped {
  Vec3<T> a, b;
  T length;
  MaskOf<T> wraps;
};

// x₀, x₁ around the geom at c (orientation rot, radius r); a side site at `side` if has_side,
// by MuJoCo 2.2.2's rules where mujoco2
template <class T>
ZW_HD Wrapped<T> wrap_geom(const Vec3<T>& x0, const Vec3<T>& x1, const Vec3<T>& c,
                           const Mat3<T>& rot, T r, bool cylinder, bool has_side,
                           const Vec3<T>& side, bool mujoco2) {
  const Vec3<T> p0 = mul_transposed(rot, x0 - c), p1 = mul_transposed(rot, x1 - c);
  MaskOf<T> wraps = !(norm(p0) < T(kMinVal)) && !(norm(p1) < T(kMinVal));
  Vec3<T> u{T(1), T(0), T(0)}, v{T(0), T(1), T(0)};
  if (!cylinder) {
    T len;
    u = unit_or_x(p0, len);
    T n_length;
    Vec3<T> normal = unit_or_x(cross(p0, p1), n_length);
    const MaskOf<T> parallel = n_length < T(kMinVal);
    if (any_lane<T>(parallel)) {
      const T ax = vabs(u.x), ay = vabs(u.y), az = vabs(u.z);
      const MaskOf<T> big_y = ay > ax && ay > az, big_z = az > ax && az > ay;
      const Vec3<T> w{vselect(big_y || big_z, T(1), T(0)), vselect(big_y, T(0), T(1)),
                      vselect(big_z, T(0), T(1))};
      normal = vselect(parallel, unit_or_x(cross(u, w), len), normal);
    }
    v = unit_or_x(cross(normal, u), len);
  }
  const Pt2<T> e0{dot(p0, u), dot(p0, v)}, e1{dot(p1, u), dot(p1, v)};
  Arc<T> arc;
  if (has_side) {
    const Vec3<T> s = mul_transposed(rot, side - c);
    const Pt2<T> in_plane{dot(s, u), dot(s, v)};
    const Pt2<T> sd = unit2(in_plane);
    arc = outside_wrap(e0, e1, mujoco2 ? kHalfPlane : kWinding, Pt2<T>{r * sd.x, r * sd.y}, r);
    // inside: |s| < r (2.2.2: its projection on the plane)
    const MaskOf<T> inside = (mujoco2 ? vsqrt(dot2(in_plane, in_plane)) : norm(s)) < r;
    if (any_lane<T>(inside)) {
      const Arc<T> in = inside_wrap(e0, e1, r, mujoco2);
      arc.a = select2(inside, in.a, arc.a);
      arc.b = select2(inside, in.b, arc.b);
      arc.length = vselect(inside, in.length, arc.length);
      arc.wraps = (inside && in.wraps) || (!inside && arc.wraps);
    }
  } else {
    arc = outside_wrap(e0, e1, kNoSide, Pt2<T>{T(0), T(0)}, r);
  }
  Vec3<T> a = arc.a.x * u + arc.a.y * v, b = arc.b.x * u + arc.b.y * v;
  T length = arc.length;
  if (cylinder) {
    const T l0 = vsqrt((p0.x - a.x) * (p0.x - a.x) + (p0.y - a.y) * (p0.y - a.y));
    const T l1 = vsqrt((p1.x - b.x) * (p1.x - b.x) + (p1.y - b.y) * (p1.y - b.y));
    const T total = l0 + length + l1;
    const T den = vselect(total > T(0), total, T(1));
    a.z = p0.z + (p1.z - p0.z) * (l0 / den);
    b.z = p0.z + (p1.z - p0.z) * ((l0 + length) / den);
    const T height = b.z - a.z;
    length = vsqrt(length * length + height * height);
  }
  Wrapped<T> out;
  out.a = mul(rot, a) + c;
  out.b = mul(rot, b) + c;
  out.length = length;
  out.wraps = wraps && arc.wraps;
  return out;
}

}  // namespace wrap
}  // namespace zwang
