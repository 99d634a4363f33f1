// The tree-pattern Cholesky factor of kernels/math_chol.h on a lane group (kernels/group.h):
// pivots in sequence, from the leaves to the root; the updates of pivot k run one ancestor row per
// item, one phase per pivot. Row k's ancestors come from its TreeRows list (the packed entry list
// of host/model/group_schedule.hpp): row i holds col[adr[i] … adr[i + 1]), its ancestors
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
ZW_HD int cholesky_factor(Grp& g, A a, TreeRows tree, int n) {
  static_assert(kOneLane<T>, "a lane group serves one instance");
  if constexpr (Grp::size == 1) {
    return g.uniform([&]() ZW_ITEM { return cholesky_factor<T>(a, tree, n); });
  } else {
    // the row divided late: its first entry, its ancestors and their count, and its L_kk
    int held_row = 0, held_nanc = 0;
    const int* held_anc = tree.col;
    T held_lkk = T(1);
    // item t < held_nanc divides the held row's t-th ancestor entry, the nearest first
    const auto divide_held = [&](int t)
                                 ZW_ITEM { a[held_row + held_anc[held_nanc - 1 - t]] /= held_lkk; };
    for (int k = n - 1; k >= 0; --k) {
      const int row_k = packed_index(k, 0);
      const T pivot = a[row_k + k];
      if (!(pivot > T(0)) || !visfinite(pivot)) return n - 1 - k;
      const int* anc = tree.ancestors(k);
      const int nanc = tree.nancestors(k);
      if (nanc == 0) continue;
      const T lkk = vsqrt(pivot);
      // A_ij −= L_ki L_kj for the ancestors j of i, i of k (j ≤ i): item t takes i = anc[u],
      // u = nanc − 1 − t (the nearest ancestor first), whose ancestors are anc[0 … u); then the
      // held row's division
      g.each(nanc + held_nanc, [&](int t) ZW_ITEM {
        if (t >= nanc) {
          divide_held(t - nanc);
          return;
        }
        const int u = nanc - 1 - t, i = anc[u];
        const T lki = a[row_k + i] / lkk;
        const int row_i = packed_index(i, 0);
        for (int s = u; s >= 0; --s) {
          a[row_i + anc[s]] -= lki * (s == u ? lki : a[row_k + anc[s]] / lkk);
        }
      });
      held_row = row_k;
      held_anc = anc;
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
