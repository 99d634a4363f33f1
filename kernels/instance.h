// One instance as the kernels see it: rows of the three arenas of kernels/layout.h, reached
// through accessors so that the layout (interleaved, per thread, blocked) is the backend's
// choice.
#pragma once

#include <cstdint>
#include <type_traits>
#include <utility>

#include "kernels/hd.h"
#include "kernels/lanes.h"
#include "kernels/layout.h"
#include "kernels/math_vec.h"
#include "kernels/status.h"

namespace zwang {

// consecutive values of one field of one instance: element j at p[j * ld]
template <class T>
struct Row {
  T* p;
  std::int64_t ld;
  ZW_HD ZW_INLINE T& operator[](int j) const { return p[j * ld]; }
  ZW_HD ZW_INLINE Row operator+(int j) const { return {p + j * ld, ld}; }
};

// an arena seen from one instance: row r at base[r * ld]
template <class T>
struct Arena {
  T* base;
  std::int64_t ld;
  ZW_HD ZW_INLINE Row<T> row(int r) const { return {base + r * ld, ld}; }
};

template <class T>
struct Instance {
  Arena<T> data;      // state and outputs
  Arena<T> param;     // numeric parameters
  Arena<T> work;      // scratch
  const Layout* lay;  // field offsets
  double* time;       // simulated time (s), one per lane
  int* status;        // StatusBit flags, one per lane

#define ZW_X(name, count)               \
  ZW_HD ZW_INLINE Row<T> name() const { \
    return data.row(lay->name);         \
  }
  ZW_DATA_FIELDS(ZW_X)
#undef ZW_X
#define ZW_X(name, count)               \
  ZW_HD ZW_INLINE Row<T> name() const { \
    return param.row(lay->name);        \
  }
  ZW_PARAM_FIELDS(ZW_X)
#undef ZW_X
#define ZW_X(name, count)               \
  ZW_HD ZW_INLINE Row<T> name() const { \
    return work.row(lay->name);         \
  }
  ZW_WORK_FIELDS(ZW_X)
#undef ZW_X
};

// The values of an instance of dual numbers (kernels/dual.h), in place: a dual number is standard
// layout with its value first, so entry e's value lies sizeof(T) / sizeof(V) values after entry
// e − 1's.  What is written through it changes the values alone; time and status are shared.
template <class T, class V = ValueOf<T>>
ZW_HD ZW_INLINE Instance<V> values_of(const Instance<T>& d) {
  static_assert(kTangents<T> && std::is_standard_layout_v<T> && sizeof(T) % sizeof(V) == 0);
  constexpr std::int64_t stride = sizeof(T) / sizeof(V);
  return {{&d.data.base->v, d.data.ld * stride},
          {&d.param.base->v, d.param.ld * stride},
          {&d.work.base->v, d.work.ld * stride},
          d.lay,
          d.time,
          d.status};
}

// the lanes that a stopping status bit holds
template <class T>
ZW_HD ZW_INLINE MaskOf<T> stopped(const Instance<T>& d) {
  return Lanes<T>::flagged(d.status, kStatusStopping);
}
// status |= bit on the lanes of `where` that nothing has stopped yet: a lane keeps the first
// reason it stopped for
template <class T>
ZW_HD ZW_INLINE void stop_lanes(const Instance<T>& d, MaskOf<T> where, int bit) {
  Lanes<T>::set_bits(d.status, where && !stopped(d), bit);
}

// element type of an accessor (Row<T> or a plain pointer)
template <class R>
using ElemOf = std::remove_cv_t<std::remove_reference_t<decltype(std::declval<R>()[0])>>;

template <class R>
ZW_HD ZW_INLINE Vec3<ElemOf<R>> load3(R r, int j) {
  return {r[j], r[j + 1], r[j + 2]};
}
template <class R, class T>
ZW_HD ZW_INLINE void store3(R r, int j, const Vec3<T>& v) {
  r[j] = v.x;
  r[j + 1] = v.y;
  r[j + 2] = v.z;
}
template <class R>
ZW_HD ZW_INLINE Quat<ElemOf<R>> load_quat(R r, int j) {
  return {r[j], r[j + 1], r[j + 2], r[j + 3]};
}
template <class R, class T>
ZW_HD ZW_INLINE void store_quat(R r, int j, const Quat<T>& q) {
  r[j] = q.w;
  r[j + 1] = q.x;
  r[j + 2] = q.y;
  r[j + 3] = q.z;
}
template <class R>
ZW_HD ZW_INLINE Mat3<ElemOf<R>> load_mat(R r, int j) {
  Mat3<ElemOf<R>> a;
  for (int k = 0; k < 9; ++k) a.m[k] = r[j + k];
  return a;
}
template <class R, class T>
ZW_HD ZW_INLINE void store_mat(R r, int j, const Mat3<T>& a) {
  for (int k = 0; k < 9; ++k) r[j + k] = a.m[k];
}
template <class R>
ZW_HD ZW_INLINE Sym3<ElemOf<R>> load_sym(R r, int j) {
  return {r[j], r[j + 1], r[j + 2], r[j + 3], r[j + 4], r[j + 5]};
}
template <class R, class T>
ZW_HD ZW_INLINE void store_sym(R r, int j, const Sym3<T>& a) {
  r[j] = a.xx;
  r[j + 1] = a.yy;
  r[j + 2] = a.zz;
  r[j + 3] = a.xy;
  r[j + 4] = a.xz;
  r[j + 5] = a.yz;
}

}  // namespace zwang
