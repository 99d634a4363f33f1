// The SIMD CPU backend's scalar: a pack of instances, one per lane of a native register of
// std::experimental::simd (the Parallelism TS v2 in libstdc++, std::simd in C++26).  It is the
// standard library's, needs no dependency, has masks with && || !, where-expressions and the
// math functions the kernels call, and its native ABI tags differ between AVX2 and AVX-512 builds,
// so the kernels instantiated for one never stand in for the other's at link time.
//
// Pack wraps a simd for one reason: the kernels write constants as T(0.5) and T(timestep), with
// double arguments, and simd<float> only broadcasts values it holds exactly.  Every operation is
// the library's.  The rest of this file is what kernels/lanes.h asks of a pack.
#pragma once

#include <cmath>
#include <experimental/simd>
#include <type_traits>

#include "kernels/lanes.h"

namespace zwang {

namespace stdx = std::experimental;

// Abi defaults to the native register of the instruction set the translation unit is compiled
// for, and is part of the type's name: Pack<double> differs between the AVX2 and AVX-512 units
template <class S, class Abi = stdx::simd_abi::native<S>>
struct Pack {
  using Simd = stdx::simd<S, Abi>;
  using Mask = typename Simd::mask_type;
  static constexpr int width = static_cast<int>(Simd::size());

  Simd v;

  Pack() = default;
  Pack(Simd s) : v(s) {}
  template <class U, class = std::enable_if_t<std::is_arithmetic_v<U>>>
  explicit Pack(U x) : v(static_cast<S>(x)) {}

  friend Pack operator+(const Pack& a, const Pack& b) { return a.v + b.v; }
  friend Pack operator-(const Pack& a, const Pack& b) { return a.v - b.v; }
  friend Pack operator*(const Pack& a, const Pack& b) { return a.v * b.v; }
  friend Pack operator/(const Pack& a, const Pack& b) { return a.v / b.v; }
  friend Pack operator-(const Pack& a) { return -a.v; }
  Pack& operator+=(const Pack& b) {
    v += b.v;
    return *this;
  }
  Pack& operator-=(const Pack& b) {
    v -= b.v;
    return *this;
  }
  Pack& operator*=(const Pack& b) {
    v *= b.v;
    return *this;
  }
  Pack& operator/=(const Pack& b) {
    v /= b.v;
    return *this;
  }
  friend Mask operator==(const Pack& a, const Pack& b) { return a.v == b.v; }
  friend Mask operator!=(const Pack& a, const Pack& b) { return a.v != b.v; }
  friend Mask operator<(const Pack& a, const Pack& b) { return a.v < b.v; }
  friend Mask operator>(const Pack& a, const Pack& b) { return a.v > b.v; }
  friend Mask operator<=(const Pack& a, const Pack& b) { return a.v <= b.v; }
  friend Mask operator>=(const Pack& a, const Pack& b) { return a.v >= b.v; }
};

// a model real broadcast to every lane where the arithmetic reads it
template <class S, class Abi>
struct BroadcastPtr {
  const S* p;
  Pack<S, Abi> operator[](int i) const { return Pack<S, Abi>(p[i]); }
  BroadcastPtr operator+(int i) const { return {p + i}; }
};

template <class S, class Abi>
struct Lanes<Pack<S, Abi>> {
  using P = Pack<S, Abi>;
  using Mask = typename P::Mask;
  using Scalar = S;
  using ConstPtr = BroadcastPtr<S, Abi>;
  static constexpr int width = P::width;

  static P select(const Mask& m, const P& a, const P& b) {
#if defined(__clang__)
    // clang 14 with libstdc++ 12 compiles where(m, r) = a on AVX-512's bitmask ABI into a no-op
    // (every lane keeps r); the generator form is right on every ABI, if slower
    return typename P::Simd([&](auto i) { return m[i] ? a.v[i] : b.v[i]; });
#else
    typename P::Simd r = b.v;
    stdx::where(m, r) = a.v;
    return r;
#endif
  }
  static bool any(const Mask& m) {
    return stdx::any_of(m);
  }
  static bool all(const Mask& m) {
    return stdx::all_of(m);
  }
  static P sqrt(const P& x) {
    return stdx::sqrt(x.v);
  }
  static P sin(const P& x) {
    return per_lane(x, x, [](S a, S) { return std::sin(a); });
  }
  static P cos(const P& x) {
    return per_lane(x, x, [](S a, S) { return std::cos(a); });
  }
  // the C library's sincos: the same bits as its sin and cos, one argument reduction
  static void sincos(const P& x, P& s, P& c) {
    alignas(64) S xa[width], sa[width], ca[width];
    x.v.copy_to(xa, stdx::element_aligned);
    for (int i = 0; i < width; ++i) {
      if constexpr (std::is_same_v<S, float>) {
        ::sincosf(xa[i], &sa[i], &ca[i]);
      } else {
        ::sincos(xa[i], &sa[i], &ca[i]);
      }
    }
    s = typename P::Simd(sa, stdx::element_aligned);
    c = typename P::Simd(ca, stdx::element_aligned);
  }
  static P atan2(const P& y, const P& x) {
    return per_lane(y, x, [](S a, S b) { return std::atan2(a, b); });
  }
  static P acos(const P& x) {
    return per_lane(x, x, [](S a, S) { return std::acos(a); });
  }
  static P asin(const P& x) {
    return per_lane(x, x, [](S a, S) { return std::asin(a); });
  }
  static P exp(const P& x) {
    return per_lane(x, x, [](S a, S) { return std::exp(a); });
  }
  static P floor(const P& x) {
    return per_lane(x, x, [](S a, S) { return std::floor(a); });
  }
  static P ceil(const P& x) {
    return per_lane(x, x, [](S a, S) { return std::ceil(a); });
  }
  static Mask isfinite(const P& x) {
    return stdx::isfinite(x.v);
  }

  // f(a, b) lane by lane with the C library's functions, the scalar backend's: the same bits.
  // A few per hinge and step; the library's vector sin and cos would differ by an ulp, which
  // an ill-conditioned H turns into 1e-4 relative in float32.
  template <class F>
  static P per_lane(const P& a, const P& b, F f) {
    alignas(64) S xa[width], xb[width];
    a.v.copy_to(xa, stdx::element_aligned);
    b.v.copy_to(xb, stdx::element_aligned);
    for (int i = 0; i < width; ++i) xa[i] = f(xa[i], xb[i]);
    return typename P::Simd(xa, stdx::element_aligned);
  }

  static Mask flagged(const int* status, int bits) {
    bool on[width];
    for (int i = 0; i < width; ++i) on[i] = (status[i] & bits) != 0;
    return Mask(on, stdx::element_aligned);
  }
  static void set_bits(int* status, const Mask& where, int bit) {
    for (int i = 0; i < width; ++i) {
      if (where[i]) status[i] |= bit;
    }
  }
  static P time(const double* time) {
    alignas(64) S t[width];
    for (int i = 0; i < width; ++i) t[i] = static_cast<S>(time[i]);
    return typename P::Simd(t, stdx::element_aligned);
  }
  static void advance(double* time, const Mask& where, double dt) {
    for (int i = 0; i < width; ++i) {
      if (where[i]) time[i] += dt;
    }
  }
};

}  // namespace zwang
