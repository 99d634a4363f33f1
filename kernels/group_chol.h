// The tree-pattern Cholesky factor of kernels/math_chol.h on a lane group (kernels/group.h):
// pivots in sequence, from the leaves to the root; the updates of pivot k run one ancestor row per
// item, one phase per pivot. Row k's ancestors come from the packed entry list
// (host/model/group_schedule.hpp): row i holds col[row_adr[i] … row_adr[i + 1]), its ancestors
// increasing, then i itself.
//
// The update of row i by pivot k, A_ij −= L_ki L_kj for the ancestors j of i (and i), takes L_kj
// = A_kj / L_kk as it goes, the quotient cholesky_factor stores, so that no item reads what
// another writes; row k is divided in place later, in the phase of the next pivot that has
// ancestors (which reads and writes only rows above k) or in the last phase. A pivot's diagonal is
// read by no later pivot (their updates reach only the rows above them), so it keeps A_kk until
// the last phase takes every square root, and each lane reads the pivot itself between the
// barrier of the update that last wrote it and the barrier before that phase. Every element is
// computed by the operations, in the order, of cholesky_factor: the same bits under Solo, Emu<G>
// and Warp<G>.
#pragma once

#include "kernels/hd.h"
#include "kernels/lanes.h"
#include "kernels/math_chol.h"

namespace zwang {

// A = Lᵀ L, L overwrites A; the return value as cholesky_factor's (one lane: n on success, else
// n − 1 − k for the first pivot k that was not positive and finite)
template <class T, class Grp, class A>
ZW_HD int cholesky_factor(Grp& g, A a, const int* parent, const int* row_adr, const int* col,
                          int n) {
  static_assert(kOneLane<T>, "a lane group serves one instance");
  if constexpr (Grp::size == 1) {
    (void)row_adr;
    (void)col;
    return g.uniform([&]() ZW_ITEM { return cholesky_factor<T>(a, parent, n); });
  } else {
    // the row divided late: its first entry, its ancestors' count and its L_kk
    int held_row = 0, held_last = 0, held_nanc = 0;
    T held_lkk = T(1);
    // item t < held_nanc divides the held row's t-th ancestor entry
    const auto divide_held = [&](int t)
                                 ZW_ITEM { a[held_row + col[held_last - 1 - t]] /= held_lkk; };
    for (int k = n - 1; k >= 0; --k) {
      const int row_k = packed_index(k, 0);
      const T pivot = a[row_k + k];
      if (!(pivot > T(0)) || !visfinite(pivot)) return n - 1 - k;
      // the ancestors of k, nearest first as cholesky_factor walks them: col[last − 1], col[last −
      // 2]…
      const int last = row_adr[k + 1] - 1, nanc = last - row_adr[k];
      if (nanc == 0) continue;
      const T lkk = vsqrt(pivot);
      // A_ij −= L_ki L_kj for the ancestors j of i, i of k (j ≤ i); then the held row's division
      g.each(nanc + held_nanc, [&](int t) ZW_ITEM {
        if (t >= nanc) {
          divide_held(t - nanc);
          return;
        }
        const int i = col[last - 1 - t];
        const T lki = a[row_k + i] / lkk;
        const int row_i = packed_index(i, 0);
        for (int j = i; j >= 0; j = parent[j]) {
          a[row_i + j] -= lki * (j == i ? lki : a[row_k + j] / lkk);
        }
      });
      held_row = row_k;
      held_last = last;
      held_nanc = nanc;
      held_lkk = lkk;
    }
    // a barrier: the last pivots (0 among them) have no ancestors and no phase of their own, and
    // every lane reads them before the square roots overwrite them
    g.one([]() ZW_ITEM {});
    // L_kk = √pivot on the diagonal, and the last row held
    g.each(n + held_nanc, [&](int t) ZW_ITEM {
      if (t >= n) {
        divide_held(t - n);
        return;
      }
      const int at = packed_index(t, t);
      a[at] = vsqrt(a[at]);
    });
    return n;
  }
}

}  // namespace zwang
