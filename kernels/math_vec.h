// Small fixed-size math for the kernels: 3-vectors, quaternions (w, x, y, z),
// row-major 3x3 matrices and symmetric 3x3 tensors.  Never sees a model or an instance.
#pragma once

#include <cmath>

#include "kernels/hd.h"
#include "kernels/lanes.h"

namespace zwang {

template <class T>
struct Vec3 {
  T x, y, z;
};

template <class T>
struct Quat {
  T w, x, y, z;
};

// row-major: m[3 * r + c]
template <class T>
struct Mat3 {
  T m[9];
};

// symmetric tensor stored as (xx, yy, zz, xy, xz, yz)
template <class T>
struct Sym3 {
  T xx, yy, zz, xy, xz, yz;
};

// S + margin·1 is positive semidefinite, i.e. λ_min(S) ≥ −margin, for margin > 0: its
// Cholesky pivots are positive.  Backward stable, so rounding (~eps ‖S‖) only matters when
// margin is that small; no branch, so that every lane of a pack takes the same path.
template <class T>
ZW_HD ZW_INLINE MaskOf<T> psd_within(const Sym3<T>& s, T margin) {
  const T d0 = s.xx + margin;
  const T l10 = s.xy / d0, l20 = s.xz / d0;
  const T d1 = s.yy + margin - l10 * s.xy;
  const T l21 = (s.yz - l20 * s.xy) / d1;
  const T d2 = s.zz + margin - l20 * s.xz - l21 * (s.yz - l20 * s.xy);
  return d0 > T(0) && d1 > T(0) && d2 > T(0);
}

template <class T>
ZW_HD ZW_INLINE Vec3<T> operator+(const Vec3<T>& a, const Vec3<T>& b) {
  return {a.x + b.x, a.y + b.y, a.z + b.z};
}
template <class T>
ZW_HD ZW_INLINE Vec3<T> operator-(const Vec3<T>& a, const Vec3<T>& b) {
  return {a.x - b.x, a.y - b.y, a.z - b.z};
}
template <class T>
ZW_HD ZW_INLINE Vec3<T> operator-(const Vec3<T>& a) {
  return {-a.x, -a.y, -a.z};
}
template <class T>
ZW_HD ZW_INLINE Vec3<T> operator*(T s, const Vec3<T>& a) {
  return {s * a.x, s * a.y, s * a.z};
}
template <class T>
ZW_HD ZW_INLINE Vec3<T>& operator+=(Vec3<T>& a, const Vec3<T>& b) {
  a.x += b.x;
  a.y += b.y;
  a.z += b.z;
  return a;
}
template <class T>
ZW_HD ZW_INLINE T dot(const Vec3<T>& a, const Vec3<T>& b) {
  return a.x * b.x + a.y * b.y + a.z * b.z;
}
template <class T>
ZW_HD ZW_INLINE Vec3<T> cross(const Vec3<T>& a, const Vec3<T>& b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
template <class T>
ZW_HD ZW_INLINE T norm(const Vec3<T>& a) {
  return vsqrt(dot(a, a));
}

// R v
template <class T>
ZW_HD ZW_INLINE Vec3<T> mul(const Mat3<T>& r, const Vec3<T>& v) {
  return {r.m[0] * v.x + r.m[1] * v.y + r.m[2] * v.z, r.m[3] * v.x + r.m[4] * v.y + r.m[5] * v.z,
          r.m[6] * v.x + r.m[7] * v.y + r.m[8] * v.z};
}
// Rᵀ v
template <class T>
ZW_HD ZW_INLINE Vec3<T> mul_transposed(const Mat3<T>& r, const Vec3<T>& v) {
  return {r.m[0] * v.x + r.m[3] * v.y + r.m[6] * v.z, r.m[1] * v.x + r.m[4] * v.y + r.m[7] * v.z,
          r.m[2] * v.x + r.m[5] * v.y + r.m[8] * v.z};
}
// column c of R: the body axis c in world coordinates
template <class T>
ZW_HD ZW_INLINE Vec3<T> column(const Mat3<T>& r, int c) {
  return {r.m[c], r.m[3 + c], r.m[6 + c]};
}

// S v
template <class T>
ZW_HD ZW_INLINE Vec3<T> mul(const Sym3<T>& s, const Vec3<T>& v) {
  return {s.xx * v.x + s.xy * v.y + s.xz * v.z, s.xy * v.x + s.yy * v.y + s.yz * v.z,
          s.xz * v.x + s.yz * v.y + s.zz * v.z};
}

// R S Rᵀ: a body-frame inertia expressed in the world frame
template <class T>
ZW_HD ZW_INLINE Sym3<T> rotate(const Mat3<T>& r, const Sym3<T>& s) {
  // rs = R S (row-major), then (R S) Rᵀ, lower triangle
  T rs[9];
  for (int i = 0; i < 3; ++i) {
    const Vec3<T> row{r.m[3 * i], r.m[3 * i + 1], r.m[3 * i + 2]};
    const Vec3<T> c = mul(s, row);  // (R S)_i· = S R_i· because S is symmetric
    rs[3 * i] = c.x;
    rs[3 * i + 1] = c.y;
    rs[3 * i + 2] = c.z;
  }
  auto e = [&](int i, int j) {
    return rs[3 * i] * r.m[3 * j] + rs[3 * i + 1] * r.m[3 * j + 1] + rs[3 * i + 2] * r.m[3 * j + 2];
  };
  return {e(0, 0), e(1, 1), e(2, 2), e(1, 0), e(2, 0), e(2, 1)};
}

template <class T>
ZW_HD ZW_INLINE Quat<T> mul(const Quat<T>& a, const Quat<T>& b) {
  return {
      a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z, a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
      a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x, a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w};
}

// a per-lane choice between two vectors or quaternions
template <class T>
ZW_HD ZW_INLINE Vec3<T> vselect(MaskOf<T> m, const Vec3<T>& a, const Vec3<T>& b) {
  return {vselect(m, a.x, b.x), vselect(m, a.y, b.y), vselect(m, a.z, b.z)};
}
template <class T>
ZW_HD ZW_INLINE Quat<T> vselect(MaskOf<T> m, const Quat<T>& a, const Quat<T>& b) {
  return {vselect(m, a.w, b.w), vselect(m, a.x, b.x), vselect(m, a.y, b.y), vselect(m, a.z, b.z)};
}

// v / |v|, or e_x where |v| < 1e-15 (MuJoCo's mju_normalize3); len ← |v|
template <class T>
ZW_HD ZW_INLINE Vec3<T> unit_or_x(const Vec3<T>& v, T& len) {
  len = norm(v);
  const MaskOf<T> tiny = len < T(1e-15);
  const T inv = T(1) / vselect(tiny, T(1), len);
  return {vselect(tiny, T(1), v.x * inv), vselect(tiny, T(0), v.y * inv),
          vselect(tiny, T(0), v.z * inv)};
}

// q / |q|, the identity for q = 0
template <class T>
ZW_HD ZW_INLINE Quat<T> normalized(const Quat<T>& q) {
  const T n = vsqrt(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z);
  const MaskOf<T> nonzero = n > T(0);
  const T s = T(1) / vselect(nonzero, n, T(1));
  return vselect(nonzero, Quat<T>{s * q.w, s * q.x, s * q.y, s * q.z},
                 Quat<T>{T(1), T(0), T(0), T(0)});
}

template <class T>
ZW_HD ZW_INLINE Mat3<T> to_mat(const Quat<T>& q) {
  const T ww = q.w * q.w, xx = q.x * q.x, yy = q.y * q.y, zz = q.z * q.z;
  const T wx = q.w * q.x, wy = q.w * q.y, wz = q.w * q.z;
  const T xy = q.x * q.y, xz = q.x * q.z, yz = q.y * q.z;
  return {{ww + xx - yy - zz, T(2) * (xy - wz), T(2) * (xz + wy),  //
           T(2) * (xy + wz), ww - xx + yy - zz, T(2) * (yz - wx),  //
           T(2) * (xz - wy), T(2) * (yz + wx), ww - xx - yy + zz}};
}

// rotation by angle about a unit axis
template <class T>
ZW_HD ZW_INLINE Quat<T> axis_angle(const Vec3<T>& axis, T angle) {
  T s, c;
  vsincos(T(0.5) * angle, s, c);
  return {c, s * axis.x, s * axis.y, s * axis.z};
}

// q ⊗ exp(ω dt / 2): rotate q by the body-frame angular velocity ω over dt, unit length kept
template <class T>
ZW_HD ZW_INLINE Quat<T> integrate_quat(const Quat<T>& q, const Vec3<T>& omega, T dt) {
  const T speed = norm(omega);
  const MaskOf<T> moving = speed > T(0);
  const Quat<T> dq = axis_angle((T(1) / vselect(moving, speed, T(1))) * omega, speed * dt);
  if constexpr (kTangents<T>) {
    // at rest, q ⊗ (1, ω dt / 2): the value q and the first-order change that ω's tangents make
    const Vec3<T> half = (T(0.5) * dt) * omega;
    return vselect(moving, normalized(mul(q, dq)), mul(q, Quat<T>{T(1), half.x, half.y, half.z}));
  }
  return vselect(moving, normalized(mul(q, dq)), q);
}

// Ω̇ for R = R₀ exp(Ω) moving with body-frame angular velocity ω: the inverse right
// Jacobian of SO(3),
//   Ω̇ = ω + ½ Ω × ω + (1/θ² − (1 + cos θ) / (2 θ sin θ)) Ω × (Ω × ω),   θ = |Ω|
template <class T>
ZW_HD ZW_INLINE Vec3<T> exp_coordinate_rate(const Vec3<T>& big_omega, const Vec3<T>& omega) {
  const T t2 = dot(big_omega, big_omega);
  const T t = vsqrt(t2);
  // the series 1/12 + θ²/720 + θ⁴/30240 where the closed form cancels
  const MaskOf<T> small = t < T(0.05);
  const T tc = vselect(small, T(1), t), tc2 = vselect(small, T(1), t2);
  T sin_t, cos_t;
  vsincos(tc, sin_t, cos_t);
  const T c = vselect(small, T(1) / T(12) + t2 * (T(1) / T(720) + t2 / T(30240)),
                      T(1) / tc2 - (T(1) + cos_t) / (T(2) * tc * sin_t));
  const Vec3<T> w1 = cross(big_omega, omega);
  return omega + T(0.5) * w1 + c * cross(big_omega, w1);
}

// body-frame rotation vector from b to a: 2 log(b⁻¹ ⊗ a), angle in (-π, π]
template <class T>
ZW_HD ZW_INLINE Vec3<T> quat_difference(const Quat<T>& a, const Quat<T>& b) {
  Quat<T> d = mul(Quat<T>{b.w, -b.x, -b.y, -b.z}, a);
  d = vselect(d.w < T(0), Quat<T>{-d.w, -d.x, -d.y, -d.z}, d);
  const Vec3<T> v{d.x, d.y, d.z};
  const T s = norm(v);
  const MaskOf<T> turned = s > T(0);
  const T angle = T(2) * vatan2(s, d.w);
  if constexpr (kTangents<T>) {
    // at a = b the difference is 0 but its derivative is not: 2 atan2(s, w) / s → 2 / w
    const T scale = vselect(turned, angle / vselect(turned, s, T(1)),
                            vselect(d.w > T(0), T(2) / vselect(d.w > T(0), d.w, T(1)), T(0)));
    return scale * v;
  }
  return vselect(turned, (angle / vselect(turned, s, T(1))) * v, Vec3<T>{T(0), T(0), T(0)});
}

}  // namespace zwang
