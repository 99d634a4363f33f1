// The kernels' scalar T and its lanes.  T is float or double (the scalar CPU backend, one GPU
// thread per instance) or a pack of instances, one per lane of a SIMD register (the SIMD CPU
// backend, host/cpu/simd_pack.hpp, which specialises Lanes).  A comparison of two T gives a mask
// (bool for a scalar); code that must run on packs never branches on a mask but selects, and
// leaves a loop only when no lane needs it.
//
// Per-instance integers (status bits) and times stay arrays of int and double: an Instance's
// `status` and `time` point at its first lane, and Lanes reads and writes `width` of them.
#pragma once

#include <cmath>

#include "kernels/hd.h"

namespace zwang {

template <class T>
struct Lanes {
  using Mask = bool;
  using Scalar = T;
  // a model real as it enters the arithmetic: a pointer to it for a scalar
  using ConstPtr = const T*;
  static constexpr int width = 1;

  ZW_HD ZW_INLINE static T select(bool m, T a, T b) { return m ? a : b; }
  ZW_HD ZW_INLINE static bool any(bool m) { return m; }
  ZW_HD ZW_INLINE static bool all(bool m) { return m; }
  ZW_HD ZW_INLINE static T sqrt(T x) { return std::sqrt(x); }
  ZW_HD ZW_INLINE static T sin(T x) { return std::sin(x); }
  ZW_HD ZW_INLINE static T cos(T x) { return std::cos(x); }
  ZW_HD ZW_INLINE static void sincos(T x, T& s, T& c) {
    s = std::sin(x);
    c = std::cos(x);
  }
  ZW_HD ZW_INLINE static T atan2(T y, T x) { return std::atan2(y, x); }
  ZW_HD ZW_INLINE static T acos(T x) { return std::acos(x); }
  ZW_HD ZW_INLINE static T asin(T x) { return std::asin(x); }
  ZW_HD ZW_INLINE static T exp(T x) { return std::exp(x); }
  ZW_HD ZW_INLINE static T pow(T x, T y) { return std::pow(x, y); }
  ZW_HD ZW_INLINE static T fabs(T x) { return std::fabs(x); }
  ZW_HD ZW_INLINE static T floor(T x) { return std::floor(x); }
  ZW_HD ZW_INLINE static T ceil(T x) { return std::ceil(x); }
  ZW_HD ZW_INLINE static bool isfinite(T x) { return std::isfinite(x); }
  // the lanes whose status has one of `bits`
  ZW_HD ZW_INLINE static bool flagged(const int* status, int bits) { return (*status & bits) != 0; }
  // status |= bit on the lanes of `where`
  ZW_HD ZW_INLINE static void set_bits(int* status, bool where, int bit) {
    if (where) *status |= bit;
  }
  // the lanes' times as a T
  ZW_HD ZW_INLINE static T time(const double* time) { return T(*time); }
  // time += dt on the lanes of `where`
  ZW_HD ZW_INLINE static void advance(double* time, bool where, double dt) {
    if (where) *time += dt;
  }
};

template <class T>
using MaskOf = typename Lanes<T>::Mask;
template <class T>
using ScalarOf = typename Lanes<T>::Scalar;
// true for float and double, false for a pack
template <class T>
inline constexpr bool kOneLane = Lanes<T>::width == 1;
// true for a scalar that carries tangents (kernels/dual.h), where a stage must also be right to
// first order at points where its value needs no care
template <class T>
inline constexpr bool kTangents = false;
// the type of a scalar's value: a dual number's (kernels/dual.h), else the scalar itself
template <class T>
struct ValueTypeOf {
  using type = T;
};
template <class T>
using ValueOf = typename ValueTypeOf<T>::type;

template <class T>
ZW_HD ZW_INLINE T vselect(MaskOf<T> m, T a, T b) {
  return Lanes<T>::select(m, a, b);
}
template <class T>
ZW_HD ZW_INLINE bool any_lane(MaskOf<T> m) {
  return Lanes<T>::any(m);
}
template <class T>
ZW_HD ZW_INLINE bool all_lanes(MaskOf<T> m) {
  return Lanes<T>::all(m);
}
// Where x is 0 a stage may skip its term, which then is 0 whatever x's factors; with tangents
// (kernels/dual.h) a zero value whose tangents are not zero still has a term to first order, so
// these are true there too.  may_be_positive is for a coefficient whose term starts above 0 (a
// medium's density), the derivative then the one-sided one from above.
template <class T>
ZW_HD ZW_INLINE MaskOf<T> may_be_nonzero(const T& x) {
  return x != T(0);
}
template <class T>
ZW_HD ZW_INLINE MaskOf<T> may_be_positive(const T& x) {
  return x > T(0);
}
template <class T>
ZW_HD ZW_INLINE T vsqrt(T x) {
  return Lanes<T>::sqrt(x);
}
template <class T>
ZW_HD ZW_INLINE T vsin(T x) {
  return Lanes<T>::sin(x);
}
template <class T>
ZW_HD ZW_INLINE T vcos(T x) {
  return Lanes<T>::cos(x);
}
// sin x and cos x: one reduction of x per lane on a pack
template <class T>
ZW_HD ZW_INLINE void vsincos(T x, T& s, T& c) {
  Lanes<T>::sincos(x, s, c);
}
template <class T>
ZW_HD ZW_INLINE T vatan2(T y, T x) {
  return Lanes<T>::atan2(y, x);
}
// |x| of a scalar lane type (float, double, a dual number): std::fabs where it is one, +0 for
// -0; vabs below is the form packs have
template <class T>
ZW_HD ZW_INLINE T vfabs(T x) {
  return Lanes<T>::fabs(x);
}
// |x| as a select: packs, float and double alike
template <class T>
ZW_HD ZW_INLINE T vabs(T x) {
  return vselect(x < T(0), -x, x);
}
// x clamped to [lo, hi] (x itself where it is NaN)
template <class T>
ZW_HD ZW_INLINE T vclamp(T x, T lo, T hi) {
  return vselect(x < lo, lo, vselect(x > hi, hi, x));
}
template <class T>
ZW_HD ZW_INLINE T vacos(T x) {
  return Lanes<T>::acos(x);
}
template <class T>
ZW_HD ZW_INLINE T vasin(T x) {
  return Lanes<T>::asin(x);
}
template <class T>
ZW_HD ZW_INLINE T vexp(T x) {
  return Lanes<T>::exp(x);
}
template <class T>
ZW_HD ZW_INLINE T vpow(T x, T y) {
  return Lanes<T>::pow(x, y);
}
template <class T>
ZW_HD ZW_INLINE T vfloor(T x) {
  return Lanes<T>::floor(x);
}
template <class T>
ZW_HD ZW_INLINE T vceil(T x) {
  return Lanes<T>::ceil(x);
}
template <class T>
ZW_HD ZW_INLINE MaskOf<T> visfinite(T x) {
  return Lanes<T>::isfinite(x);
}

}  // namespace zwang
