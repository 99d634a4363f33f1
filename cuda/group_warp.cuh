// Warp<G>: a lane group (kernels/group.h) of G lanes of one warp, G a power of two up to 32. Item
// i belongs to lane i mod G; each() and one() end in the tile's barrier; sums are each lane's
// partial over its items in item order, then a butterfly of shuffles (lane l adds lane l xor m,
// m = G/2, ..., 1), which kernels/group_emu.h reproduces on the CPU. No atomics: a run gives the
// same bits every time.
#pragma once

#include <cooperative_groups.h>

#include "kernels/group.h"

namespace zwang::gpu {

template <int G>
class Warp {
  static_assert(G >= 1 && G <= 32 && (G & (G - 1)) == 0, "G is a power of two up to 32");

 public:
  static constexpr int size = G;

  __device__ explicit Warp(cooperative_groups::thread_block_tile<G> tile) : tile_(tile) {}

  template <class F>
  __device__ void each(int n, F&& f) {
    for (int i = rank(); i < n; i += G) f(i);
    tile_.sync();
  }
  template <class F>
  __device__ void one(F&& f) {
    if (rank() == 0) f();
    tile_.sync();
  }
  template <class F>
  __device__ int uniform(F&& f) {
    int v = 0;
    if (rank() == 0) v = f();
    v = tile_.shfl(v, 0);
    tile_.sync();
    return v;
  }
  template <class T, class F>
  __device__ T sum(int n, F&& f) {
    T v(0);
    for (int i = rank(); i < n; i += G) v += f(i);
    for (int m = G / 2; m >= 1; m /= 2) v = v + tile_.shfl_xor(v, m);
    return v;
  }
  template <class T, class F>
  __device__ T sum(int n, F&& f, T init) {
    if constexpr (G == 1) {
      // one lane: Solo's running sum
      T v = init;
      for (int i = 0; i < n; ++i) v += f(i);
      return v;
    } else {
      return init + sum<T>(n, f);
    }
  }
  template <class T, class F>
  __device__ T max(int n, F&& f, T lowest) {
    T v = lowest;
    for (int i = rank(); i < n; i += G) {
      const T x = f(i);
      v = x > v ? x : v;
    }
    for (int m = G / 2; m >= 1; m /= 2) {
      const T o = tile_.shfl_xor(v, m);
      v = o > v ? o : v;
    }
    // lanes holding 0 and −0 each keep their own: lane 0's for all, as Emu returns
    return tile_.shfl(v, 0);
  }
  template <class F>
  __device__ int argmax(int n, F&& f) {
    using V = decltype(f(0));
    V v{};
    int best = -1;
    for (int i = rank(); i < n; i += G) {
      const V x = f(i);
      if (best < 0 || x > v) {
        v = x;
        best = i;
      }
    }
    // the larger value, on ties the lower item: the same choice on both lanes of a pair
    for (int m = G / 2; m >= 1; m /= 2) {
      const V ov = tile_.shfl_xor(v, m);
      const int ob = tile_.shfl_xor(best, m);
      const bool take = best < 0 || (ob >= 0 && (ov > v || (ov == v && ob < best)));
      if (take) {
        v = ov;
        best = ob;
      }
    }
    return best;
  }
  // per slot of G items: an exclusive prefix of the counts over the lanes (shuffles up), the
  // slot's total carried to the next
  template <class C, class A>
  __device__ int scan(int n, C&& count, A&& at) {
    int base = 0;
    for (int first = 0; first < n; first += G) {
      const int i = first + rank();
      const int c = i < n ? count(i) : 0;
      int inclusive = c;
      for (int d = 1; d < G; d *= 2) {
        const int o = tile_.shfl_up(inclusive, d);
        if (rank() >= d) inclusive += o;
      }
      if (i < n) at(i, base + inclusive - c);
      base += tile_.shfl(inclusive, G - 1);
    }
    tile_.sync();
    return base;
  }
  template <class F>
  __device__ int emit(int n, F&& f) {
    if constexpr (G == 1) {
      int offset = 0;
      for (int i = 0; i < n; ++i) offset += f(i, offset, true);
      return offset;
    } else {
      return emit_by_scan(*this, n, f);
    }
  }

 private:
  __device__ int rank() const { return static_cast<int>(tile_.thread_rank()); }
  cooperative_groups::thread_block_tile<G> tile_;
};

}  // namespace zwang::gpu
