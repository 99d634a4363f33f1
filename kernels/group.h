// Lane groups: the G lanes that serve one instance together. A stage written against a group
// takes it as an argument (template <class T, class Grp> void stage(..., Grp& g)) and keeps one
// source for three implementations:
//   Solo        G = 1: plain loops in item order (the scalar CPU backend, the SIMD packs, one GPU
//               thread per instance), so that a stage's loops and sums keep their order;
//   Warp<G>     cuda/group_warp.cuh: G lanes of a warp, item i on lane i mod G;
//   Emu<G>      kernels/group_emu.h: the G lanes of Warp<G> on the CPU, in tests, with its item
//               assignment and reduction order, so that a CPU run gives Warp<G>'s bits.
//
// The contract every stage keeps:
//   - code outside each() and one() is uniform: every lane runs it on the same values; it reads
//     what the last each()/one() wrote and writes nothing shared;
//   - the items of one each() are independent: no item reads what another item of the same
//     each() writes, and no two write the same place (Emu<G> runs the items of each() in
//     reversed and shuffled orders, so that a test sees a dependence in the bits);
//   - collectives (sum, max, argmax, scan, emit, each, one, uniform) are called from uniform code
//     only, never inside each() or one();
//   - uniform code does not read what the next phase writes (on a warp a lane may run ahead into
//     it): such a value is read through a collective (uniform, sum, ...), which every lane passes;
//   - no floating-point atomics: a sum over items is a per-lane partial in item order, then a
//     butterfly over the lanes, so that a run gives the same bits every time.
//
//   each(n, f)           f(i) for every item i in [0, n)
//   one(f)               f() once, by one lane
//   uniform(f)           f() once, by one lane; its value (an int) returned to every lane
//   sum(n, f)            Σ f(i), of type T
//   sum(n, f, init)      init + Σ f(i): on one lane (G = 1) a running sum continued from init, in
//                        item order; on more, init plus the group's Σ f(i).  T may be TwoSums<R>
//                        (below): two sums from one pass over the items
//   max(n, f, lowest)    the largest f(i), `lowest` for n = 0 (of 0 and −0, either)
//   argmax(n, f)         the item of the largest f(i), the lowest such item on ties, -1 for n = 0
// f(i) of max and argmax is never NaN (its order is not defined).
//   scan(n, count, at)   at(i, Σ_{k<i} count(k)) for every item; the total (an exclusive prefix
//                        sum in item order: contacts to consecutive slots in item order)
//   emit(n, f)           the same with one function, f(i, first, write) returning item i's count:
//                        one lane runs each item once, writing (write true) from `first` on; a
//                        group counts every item first (write false, first 0), then writes, so
//                        an item's count must not depend on `write` (Emu<G> checks it)
#pragma once

#include "kernels/hd.h"

namespace zwang {

// a pair of sums that a collective carries together (sum<TwoSums<T>>): one pass over the items,
// each sum in the order a plain sum<T> would take
template <class T>
struct TwoSums {
  T a, b;
  ZW_HD ZW_INLINE explicit TwoSums(int zero = 0) : a(T(zero)), b(T(zero)) {}
  ZW_HD ZW_INLINE TwoSums(T a_, T b_) : a(a_), b(b_) {}
  ZW_HD ZW_INLINE TwoSums& operator+=(const TwoSums& o) {
    a += o.a;
    b += o.b;
    return *this;
  }
  ZW_HD ZW_INLINE friend TwoSums operator+(TwoSums x, const TwoSums& y) { return x += y; }
};

struct Solo {
  static constexpr int size = 1;

  template <class F>
  ZW_HD ZW_INLINE void each(int n, F&& f) {
    for (int i = 0; i < n; ++i) f(i);
  }
  template <class F>
  ZW_HD ZW_INLINE void one(F&& f) {
    f();
  }
  template <class F>
  ZW_HD ZW_INLINE int uniform(F&& f) {
    return f();
  }
  template <class T, class F>
  ZW_HD ZW_INLINE T sum(int n, F&& f) {
    T s(0);
    for (int i = 0; i < n; ++i) s += f(i);
    return s;
  }
  template <class T, class F>
  ZW_HD ZW_INLINE T sum(int n, F&& f, T init) {
    T s = init;
    for (int i = 0; i < n; ++i) s += f(i);
    return s;
  }
  template <class T, class F>
  ZW_HD ZW_INLINE T max(int n, F&& f, T lowest) {
    T m = lowest;
    for (int i = 0; i < n; ++i) {
      const T v = f(i);
      m = v > m ? v : m;
    }
    return m;
  }
  template <class F>
  ZW_HD ZW_INLINE int argmax(int n, F&& f) {
    if (n <= 0) return -1;
    int best = 0;
    auto top = f(0);
    for (int i = 1; i < n; ++i) {
      const auto v = f(i);
      if (v > top) {
        top = v;
        best = i;
      }
    }
    return best;
  }
  template <class C, class A>
  ZW_HD ZW_INLINE int scan(int n, C&& count, A&& at) {
    int offset = 0;
    for (int i = 0; i < n; ++i) {
      const int c = count(i);
      at(i, offset);
      offset += c;
    }
    return offset;
  }
  template <class F>
  ZW_HD ZW_INLINE int emit(int n, F&& f) {
    int offset = 0;
    for (int i = 0; i < n; ++i) offset += f(i, offset, true);
    return offset;
  }
};

// Whether one lane's solve works on copies of its vectors in its scratch rows (H, q̈_s, q̈, Jᵀ f,
// q̇: kernels/constraint_solver.h, constraint_rows.h): on the CPU, where a SIMD pack's lane sees
// its data rows a pack apart and the scalar backend's a padded row apart, but not on a GPU, whose
// one-thread path reads the interleaved arenas coalesced, nor on a lane group (its tile or the
// arenas, read by many lanes at once).
template <class Grp>
ZW_HD ZW_INLINE constexpr bool solve_in_scratch() {
#if defined(__CUDA_ARCH__)
  return false;
#else
  return Grp::size == 1;
#endif
}

// emit() of a group of G > 1 lanes: a count pass, then scan()'s writes
template <class Grp, class F>
ZW_HD ZW_INLINE int emit_by_scan(Grp& g, int n, F&& f) {
  return g.scan(
      n, [&](int i) ZW_ITEM { return f(i, 0, false); },
      [&](int i, int first) ZW_ITEM { f(i, first, true); });
}

}  // namespace zwang
