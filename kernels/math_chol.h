// Cholesky factorisation and solve of a symmetric positive definite matrix whose sparsity is
// that of a tree: A_ij ≠ 0 only when i is j, or an ancestor or a descendant of j, in a tree
// whose parents come first (parent[i] < i, −1 at a root), given as TreeRows, each node's
// ancestors listed.  A joint-space mass matrix has this pattern when dofs are numbered parents
// first.  Eliminating from the leaves to the root gives A = Lᵀ L with L lower triangular and no
// fill-in (Featherstone's LTL factorisation), so the cost is Σ_k depth_k² instead of n³/6; a
// chain (parent[i] = i − 1) is the dense case.
// Storage: the packed lower triangle, row-major, element (i, j), j <= i, at i (i + 1) / 2 + j.
// Never sees a model or an instance; `A` and `X` are accessors with operator[](int) -> T&.
#pragma once

#include <cmath>
#include <type_traits>
#include <utility>

#include "kernels/hd.h"
#include "kernels/lanes.h"

namespace zwang {

ZW_HD ZW_INLINE int packed_index(int i, int j) {
  return i * (i + 1) / 2 + j;
}

// The pattern of a tree by rows (host/model/group_schedule.hpp): row i's entries are the
// columns col[adr[i]] … col[adr[i + 1] − 1], the ancestors of i increasing, then i.  The
// ancestors of a node are a chain to the root, so those of its t-th ancestor are the t before it
// in its list: each loop below reads one list where a walk up parent[] would wait on every load.
struct TreeRows {
  const int* adr;
  const int* col;
  // i's ancestors, increasing (the nearest last), and their count
  ZW_HD ZW_INLINE const int* ancestors(int i) const { return col + adr[i]; }
  ZW_HD ZW_INLINE int nancestors(int i) const { return adr[i + 1] - adr[i] - 1; }
  // the ancestors 0, 1, … at the head of i's list: their count
  ZW_HD ZW_INLINE int leading_run(int i) const {
    const int* a = ancestors(i);
    const int n = nancestors(i);
    int r = 0;
    while (r < n && a[r] == r) ++r;
    return r;
  }
};

// An accessor with a stride (kernels/instance.h's Row: p[j ld]) whose stride is 1, on the host:
// cholesky_factor then runs on the plain pointer p, with the same arithmetic in the same order,
// so that the compiler can vectorise its contiguous loop (a stride unknown to it prevents that).
template <class A, class = void>
inline constexpr bool kStrided = false;
template <class A>
inline constexpr bool kStrided<A, std::void_t<decltype(std::declval<A&>().ld)>> = true;

template <class A>
ZW_HD ZW_INLINE bool unit_stride(const A& a) {
#if defined(__CUDA_ARCH__)
  return false;
#else
  return a.ld == 1;
#endif
}

// A = Lᵀ L, L overwrites A.  Returns n on success; otherwise n − 1 − k for the first pivot k
// (in elimination order, k = n − 1 first) that was not positive and finite.  For a pack, the
// lanes with such a pivot go on with a pivot of 1 (their factor is meaningless) and are added to
// *failed; the return value is then n.
template <class T, class A>
ZW_HD int cholesky_factor(A a, TreeRows tree, int n, MaskOf<T>* failed = nullptr) {
  if constexpr (kStrided<A>) {
    if (unit_stride(a)) return cholesky_factor<T>(a.p, tree, n, failed);
  }
  for (int k = n - 1; k >= 0; --k) {
    const int row_k = packed_index(k, 0);
    T pivot = a[row_k + k];
    const MaskOf<T> bad = !(pivot > T(0)) || !visfinite(pivot);
    if constexpr (kOneLane<T>) {
      if (bad) return n - 1 - k;
    } else {
      *failed = *failed || bad;
      pivot = vselect(bad, T(1), pivot);
    }
    const T lkk = vsqrt(pivot);
    a[row_k + k] = lkk;
    const int* anc = tree.ancestors(k);
    const int nanc = tree.nancestors(k);
    const int run = tree.leading_run(k);
    // L_ki = A_ki / L_kk for the ancestors i of k
    for (int t = 0; t < nanc; ++t) a[row_k + anc[t]] /= lkk;
    // A_ij −= L_ki L_kj for ancestors j of i, i of k (j ≤ i): i = anc[t], j = anc[s], s ≤ t;
    // each entry once, so the leading run (anc[s] = s) goes first as a contiguous loop
    for (int t = 0; t < nanc; ++t) {
      const T lki = a[row_k + anc[t]];
      const int row_i = packed_index(anc[t], 0);
      const int first = t + 1 < run ? t + 1 : run;
      for (int s = 0; s < first; ++s) a[row_i + s] -= lki * a[row_k + s];
      for (int s = first; s <= t; ++s) a[row_i + anc[s]] -= lki * a[row_k + anc[s]];
    }
  }
  return n;
}

// x = (Lᵀ L)⁻¹ x, in place
template <class T, class A, class X>
ZW_HD void cholesky_solve(A l, TreeRows tree, X x, int n) {
  // Lᵀ y = x, from the leaves: y_k = x_k / L_kk, then x_i −= L_ki y_k for the ancestors i of k
  for (int k = n - 1; k >= 0; --k) {
    const int row_k = packed_index(k, 0);
    const T yk = x[k] / l[row_k + k];
    x[k] = yk;
    const int* anc = tree.ancestors(k);
    for (int t = tree.nancestors(k) - 1; t >= 0; --t) x[anc[t]] -= l[row_k + anc[t]] * yk;
  }
  // L z = y, from the root: z_k = (y_k − Σ_{ancestors i} L_ki z_i) / L_kk, the nearest first
  for (int k = 0; k < n; ++k) {
    const int row_k = packed_index(k, 0);
    const int* anc = tree.ancestors(k);
    T s = x[k];
    for (int t = tree.nancestors(k) - 1; t >= 0; --t) s -= l[row_k + anc[t]] * x[anc[t]];
    x[k] = s / l[row_k + k];
  }
}

// A = the product of Gaussian elimination without pivoting from the leaves to the root, for A
// unsymmetric with the same tree pattern (no fill-in): lo holds A's lower triangle, diagonal
// included, and up its strict upper triangle transposed (A_ij, i < j, at up[packed_index(j, i)]).
// Eliminating dof k subtracts l_ik = A_ik / A_kk times row k from each ancestor row i; l_ik
// overwrites A_ik, and the reduced rows stay in lo.  Returns as cholesky_factor, a pivot failing
// when it is zero or not finite.
template <class T, class A>
ZW_HD int lu_factor(A lo, A up, TreeRows tree, int n, MaskOf<T>* failed = nullptr) {
  for (int k = n - 1; k >= 0; --k) {
    const int row_k = packed_index(k, 0);
    T pivot = lo[row_k + k];
    const MaskOf<T> bad = pivot == T(0) || !visfinite(pivot);
    if constexpr (kOneLane<T>) {
      if (bad) return n - 1 - k;
    } else {
      *failed = *failed || bad;
      pivot = vselect(bad, T(1), pivot);
      lo[row_k + k] = pivot;
    }
    const int* anc = tree.ancestors(k);
    const int nanc = tree.nancestors(k);
    for (int t = 0; t < nanc; ++t) up[row_k + anc[t]] /= pivot;
    // A_ij −= l_ik A_kj for the ancestors i and j of k
    for (int t = 0; t < nanc; ++t) {
      const int i = anc[t];
      const T lik = up[row_k + i];
      const int row_i = packed_index(i, 0);
      for (int s = 0; s <= t; ++s) lo[row_i + anc[s]] -= lik * lo[row_k + anc[s]];
      for (int s = t + 1; s < nanc; ++s) up[packed_index(anc[s], i)] -= lik * lo[row_k + anc[s]];
    }
  }
  return n;
}

// x = A⁻¹ x, in place, A factored by lu_factor
template <class T, class A, class X>
ZW_HD void lu_solve(A lo, A up, TreeRows tree, X x, int n) {
  // the elimination's row operations on x, leaves first
  for (int k = n - 1; k >= 0; --k) {
    const int row_k = packed_index(k, 0);
    const int* anc = tree.ancestors(k);
    for (int t = tree.nancestors(k) - 1; t >= 0; --t) x[anc[t]] -= up[row_k + anc[t]] * x[k];
  }
  // the reduced rows from the root: x_k = (y_k − Σ_{ancestors i} A_ki x_i) / A_kk, nearest first
  for (int k = 0; k < n; ++k) {
    const int row_k = packed_index(k, 0);
    const int* anc = tree.ancestors(k);
    T s = x[k];
    for (int t = tree.nancestors(k) - 1; t >= 0; --t) s -= lo[row_k + anc[t]] * x[anc[t]];
    x[k] = s / lo[row_k + k];
  }
}

}  // namespace zwang
