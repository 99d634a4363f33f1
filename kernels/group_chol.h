// The tree-pattern Cholesky factor of kernels/math_chol.h on a lane group (kernels/group.h):
// pivots in sequence, from the leaves to the root; the updates of pivot k run one ancestor row per
// item. Row k's ancestors come from the packed entry list (host/model/group_schedule.hpp): row i
// holds col[row_adr[i] … row_adr[i + 1]), its ancestors increasing, then i itself.
//
// Every item writes only its own row (L_ki in the division, row i in the update) and reads row k,
// which no item of that phase writes, so the items are independent and every element is computed
// by the same operations in the same order as cholesky_factor: the same bits under Solo, Emu<G>
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
  for (int k = n - 1; k >= 0; --k) {
    const int row_k = packed_index(k, 0);
    // read through a collective: every lane has it before one() overwrites it (0 + x is x,
    // but for −0, which fails the test below as 0 does)
    const T pivot = g.template sum<T>(1, [&](int) ZW_ITEM { return a[row_k + k]; });
    if (!(pivot > T(0)) || !visfinite(pivot)) return n - 1 - k;
    // the ancestors of k, nearest first as cholesky_factor walks them: col[last − 1], col[last −
    // 2]…
    const int last = row_adr[k + 1] - 1, nanc = last - row_adr[k];
    const T lkk = vsqrt(pivot);
    g.one([&]() ZW_ITEM { a[row_k + k] = lkk; });
    // L_ki = A_ki / L_kk
    g.each(nanc, [&](int t) ZW_ITEM { a[row_k + col[last - 1 - t]] /= lkk; });
    // A_ij −= L_ki L_kj for the ancestors j of i, i of k (j ≤ i)
    g.each(nanc, [&](int t) ZW_ITEM {
      const int i = col[last - 1 - t];
      const T lki = a[row_k + i];
      const int row_i = packed_index(i, 0);
      for (int j = i; j >= 0; j = parent[j]) a[row_i + j] -= lki * a[row_k + j];
    });
  }
  return n;
}

}  // namespace zwang
