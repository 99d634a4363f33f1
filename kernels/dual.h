// A dual number: a value and K tangents, the kernels' scalar for forward-mode derivatives.
//
// With T = Dual<double, K>, every stage of kernels/ computes its values exactly as with T =
// double (the same operations on the value, in the same order; but where a term whose
// coefficient is 0 is kept for its tangents, may_be_nonzero in kernels/lanes.h, it adds a zero,
// which can turn a −0 into +0) and, beside each, the
// directional derivatives along K directions seeded in the inputs: f(x + Σ_k ε_k t_k) with
// ε_j ε_k = 0 gives f(x) + Σ_k ε_k f′(x) t_k.  So the Jacobians of a step are those of the code
// as written, with no second copy of the physics.
//
// Where a function is not differentiable (|x|, min and max at a tie, floor, a select), the
// derivative is that of the branch the value takes; at a zero argument of sqrt and of atan2's
// (0, 0), where the derivative is unbounded, it is 0 (the subgradient of ‖x‖ at 0, where a zero
// vector's norm meets a zero tangent); comparisons and selects look at values only.
#pragma once

#include <cmath>
#include <limits>
#include <type_traits>

#include "kernels/hd.h"
#include "kernels/lanes.h"

namespace zwang {

template <class T, int K>
struct Dual {
  static_assert(std::is_floating_point_v<T> && K >= 1);
  static constexpr int kWidth = K;
  T v = T(0);   // value
  T d[K] = {};  // tangents

  Dual() = default;
  template <class U, class = std::enable_if_t<std::is_arithmetic_v<U>>>
  ZW_HD ZW_INLINE Dual(U x) : v(static_cast<T>(x)) {}
  // a value with its tangents
  ZW_HD ZW_INLINE static Dual of(T value, const T* tangents) {
    Dual r(value);
    for (int k = 0; k < K; ++k) r.d[k] = tangents[k];
    return r;
  }
  template <class U, class = std::enable_if_t<std::is_arithmetic_v<U>>>
  ZW_HD ZW_INLINE explicit operator U() const {
    return static_cast<U>(v);
  }

  ZW_HD ZW_INLINE Dual& operator+=(const Dual& b) {
    v += b.v;
    for (int k = 0; k < K; ++k) d[k] += b.d[k];
    return *this;
  }
  ZW_HD ZW_INLINE Dual& operator-=(const Dual& b) {
    v -= b.v;
    for (int k = 0; k < K; ++k) d[k] -= b.d[k];
    return *this;
  }
  // (a b)′ = a′ b + a b′
  ZW_HD ZW_INLINE Dual& operator*=(const Dual& b) {
    for (int k = 0; k < K; ++k) d[k] = d[k] * b.v + v * b.d[k];
    v *= b.v;
    return *this;
  }
  // (a / b)′ = (a′ − (a / b) b′) / b
  ZW_HD ZW_INLINE Dual& operator/=(const Dual& b) {
    v /= b.v;
    for (int k = 0; k < K; ++k) d[k] = (d[k] - v * b.d[k]) / b.v;
    return *this;
  }
  ZW_HD ZW_INLINE Dual operator-() const {
    Dual r;
    r.v = -v;
    for (int k = 0; k < K; ++k) r.d[k] = -d[k];
    return r;
  }
  ZW_HD ZW_INLINE Dual operator+() const { return *this; }
};

template <class X>
inline constexpr bool kArithmetic = std::is_arithmetic_v<X>;

#define ZW_DUAL_ARITHMETIC(op)                                                 \
  template <class T, int K>                                                    \
  ZW_HD ZW_INLINE Dual<T, K> operator op(Dual<T, K> a, const Dual<T, K>& b) {  \
    return a op## = b;                                                         \
  }                                                                            \
  template <class T, int K, class U, class = std::enable_if_t<kArithmetic<U>>> \
  ZW_HD ZW_INLINE Dual<T, K> operator op(Dual<T, K> a, U b) {                  \
    return a op## = Dual<T, K>(b);                                             \
  }                                                                            \
  template <class T, int K, class U, class = std::enable_if_t<kArithmetic<U>>> \
  ZW_HD ZW_INLINE Dual<T, K> operator op(U a, const Dual<T, K>& b) {           \
    return Dual<T, K>(a) op## = b;                                             \
  }
ZW_DUAL_ARITHMETIC(+)
ZW_DUAL_ARITHMETIC(-)
ZW_DUAL_ARITHMETIC(*)
ZW_DUAL_ARITHMETIC(/)
#undef ZW_DUAL_ARITHMETIC

#define ZW_DUAL_COMPARE(op)                                                    \
  template <class T, int K>                                                    \
  ZW_HD ZW_INLINE bool operator op(const Dual<T, K>& a, const Dual<T, K>& b) { \
    return a.v op b.v;                                                         \
  }                                                                            \
  template <class T, int K, class U, class = std::enable_if_t<kArithmetic<U>>> \
  ZW_HD ZW_INLINE bool operator op(const Dual<T, K>& a, U b) {                 \
    return a.v op static_cast<T>(b);                                           \
  }                                                                            \
  template <class T, int K, class U, class = std::enable_if_t<kArithmetic<U>>> \
  ZW_HD ZW_INLINE bool operator op(U a, const Dual<T, K>& b) {                 \
    return static_cast<T>(a) op b.v;                                           \
  }
ZW_DUAL_COMPARE(<)
ZW_DUAL_COMPARE(>)
ZW_DUAL_COMPARE(<=)
ZW_DUAL_COMPARE(>=)
ZW_DUAL_COMPARE(==)
ZW_DUAL_COMPARE(!=)
#undef ZW_DUAL_COMPARE

// f(a) with f′(a) = slope
template <class T, int K>
ZW_HD ZW_INLINE Dual<T, K> chain(const Dual<T, K>& a, T value, T slope) {
  Dual<T, K> r(value);
  for (int k = 0; k < K; ++k) r.d[k] = slope * a.d[k];
  return r;
}

// the math the kernels call unqualified (fmax, fmin) or through Lanes (the rest), found by
// argument-dependent lookup
template <class T, int K>
ZW_HD ZW_INLINE Dual<T, K> sqrt(const Dual<T, K>& a) {
  const T s = std::sqrt(a.v);
  // a NaN argument keeps NaN tangents
  return chain(a, s, s > T(0) || s != s ? T(0.5) / s : T(0));
}
template <class T, int K>
ZW_HD ZW_INLINE Dual<T, K> sin(const Dual<T, K>& a) {
  return chain(a, std::sin(a.v), std::cos(a.v));
}
template <class T, int K>
ZW_HD ZW_INLINE Dual<T, K> cos(const Dual<T, K>& a) {
  return chain(a, std::cos(a.v), -std::sin(a.v));
}
template <class T, int K>
ZW_HD ZW_INLINE Dual<T, K> fabs(const Dual<T, K>& a) {
  return chain(a, std::fabs(a.v), std::signbit(a.v) ? T(-1) : T(1));
}
// std::fmax's value, to the sign of a zero (the number where the other is NaN), and the
// tangents of the operand it equals
template <class T, int K>
ZW_HD ZW_INLINE Dual<T, K> fmax(const Dual<T, K>& a, const Dual<T, K>& b) {
  Dual<T, K> r = std::fmax(a.v, b.v) == a.v && !std::isnan(a.v) ? a : b;
  r.v = std::fmax(a.v, b.v);
  return r;
}
template <class T, int K>
ZW_HD ZW_INLINE Dual<T, K> fmin(const Dual<T, K>& a, const Dual<T, K>& b) {
  Dual<T, K> r = std::fmin(a.v, b.v) == a.v && !std::isnan(a.v) ? a : b;
  r.v = std::fmin(a.v, b.v);
  return r;
}
template <class T, int K>
ZW_HD ZW_INLINE bool isfinite(const Dual<T, K>& a) {
  return std::isfinite(a.v);
}
// the value type's own, which the names above would hide from a kernel that calls them
// unqualified on float or double (the constraint solver's iterations on the values alone)
using std::cos;
using std::fabs;
using std::fmax;
using std::fmin;
using std::isfinite;
using std::sin;
using std::sqrt;

template <class T, int K>
inline constexpr bool kTangents<Dual<T, K>> = true;
template <class T, int K>
struct ValueTypeOf<Dual<T, K>> {
  using type = T;
};

template <class T, int K>
ZW_HD ZW_INLINE bool has_tangent(const Dual<T, K>& a) {
  bool any = false;
  for (int k = 0; k < K; ++k) any = any || a.d[k] != T(0);
  return any;
}
template <class T, int K>
ZW_HD ZW_INLINE bool may_be_nonzero(const Dual<T, K>& a) {
  return a.v != T(0) || has_tangent(a);
}
template <class T, int K>
ZW_HD ZW_INLINE bool may_be_positive(const Dual<T, K>& a) {
  return a.v > T(0) || (a.v == T(0) && has_tangent(a));
}

template <class T, int K>
struct Lanes<Dual<T, K>> {
  using D = Dual<T, K>;
  using Mask = bool;
  using Scalar = D;
  using ConstPtr = const D*;
  static constexpr int width = 1;

  ZW_HD ZW_INLINE static D select(bool m, const D& a, const D& b) { return m ? a : b; }
  ZW_HD ZW_INLINE static bool any(bool m) { return m; }
  ZW_HD ZW_INLINE static bool all(bool m) { return m; }
  ZW_HD ZW_INLINE static D sqrt(const D& x) { return zwang::sqrt(x); }
  ZW_HD ZW_INLINE static D sin(const D& x) { return zwang::sin(x); }
  ZW_HD ZW_INLINE static D cos(const D& x) { return zwang::cos(x); }
  ZW_HD ZW_INLINE static void sincos(const D& x, D& s, D& c) {
    s = zwang::sin(x);
    c = zwang::cos(x);
  }
  // d atan2(y, x) = (x dy − y dx) / (x² + y²)
  ZW_HD ZW_INLINE static D atan2(const D& y, const D& x) {
    const T r2 = x.v * x.v + y.v * y.v;
    D out(std::atan2(y.v, x.v));
    for (int k = 0; k < K; ++k) out.d[k] = r2 > T(0) ? (x.v * y.d[k] - y.v * x.d[k]) / r2 : T(0);
    return out;
  }
  // at |x| = 1 (a clamped argument) the slope is unbounded: 0, as √ at 0
  ZW_HD ZW_INLINE static D acos(const D& x) {
    const T r = std::sqrt(T(1) - x.v * x.v);
    return chain(x, std::acos(x.v), r > T(0) ? -T(1) / r : T(0));
  }
  ZW_HD ZW_INLINE static D asin(const D& x) {
    const T r = std::sqrt(T(1) - x.v * x.v);
    return chain(x, std::asin(x.v), r > T(0) ? T(1) / r : T(0));
  }
  ZW_HD ZW_INLINE static D exp(const D& x) {
    const T e = std::exp(x.v);
    return chain(x, e, e);
  }
  // d x^y = y x^(y−1) dx + x^y ln x dy (the second term only where y has a tangent)
  ZW_HD ZW_INLINE static D pow(const D& x, const D& y) {
    const T p = std::pow(x.v, y.v);
    D out(p);
    const T dx = y.v * std::pow(x.v, y.v - T(1));
    for (int k = 0; k < K; ++k)
      out.d[k] = dx * x.d[k] + (y.d[k] != T(0) ? p * std::log(x.v) * y.d[k] : T(0));
    return out;
  }
  ZW_HD ZW_INLINE static D fabs(const D& x) { return zwang::fabs(x); }
  ZW_HD ZW_INLINE static D floor(const D& x) { return D(std::floor(x.v)); }
  ZW_HD ZW_INLINE static D ceil(const D& x) { return D(std::ceil(x.v)); }
  ZW_HD ZW_INLINE static bool isfinite(const D& x) { return std::isfinite(x.v); }
  ZW_HD ZW_INLINE static bool flagged(const int* status, int bits) { return (*status & bits) != 0; }
  ZW_HD ZW_INLINE static void set_bits(int* status, bool where, int bit) {
    if (where) *status |= bit;
  }
  ZW_HD ZW_INLINE static D time(const double* time) { return D(*time); }
  ZW_HD ZW_INLINE static void advance(double* time, bool where, double dt) {
    if (where) *time += dt;
  }
};

}  // namespace zwang

// a dual number's limits are its value type's: the kernels' tolerances (the convex narrow
// phase's ε, the parameter checks') take the same values as with T
namespace std {
template <class T, int K>
struct numeric_limits<zwang::Dual<T, K>> : numeric_limits<T> {};
}  // namespace std
