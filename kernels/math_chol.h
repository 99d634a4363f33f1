// Cholesky factorisation and solve of a symmetric positive definite matrix whose sparsity is
// that of a tree: A_ij ≠ 0 only when i is j, or an ancestor or a descendant of j, in the
// tree given by parent[] (parent[i] < i, −1 at a root).  A joint-space mass matrix has this
// pattern when dofs are numbered parents first.  Eliminating from the leaves to the root gives
// A = Lᵀ L with L lower triangular and no fill-in (Featherstone's LTL factorisation), so the
// cost is Σ_k depth_k² instead of n³/6; a chain (parent[i] = i − 1) is the dense case.
// Storage: the packed lower triangle, row-major, element (i, j), j <= i, at i (i + 1) / 2 + j.
// Never sees a model or an instance; `A` and `X` are accessors with operator[](int) -> T&.
#pragma once

#include <cmath>

#include "kernels/hd.h"
#include "kernels/lanes.h"

namespace zwang {

ZW_HD ZW_INLINE int packed_index(int i, int j) {
  return i * (i + 1) / 2 + j;
}

// A = Lᵀ L, L overwrites A.  Returns n on success; otherwise n − 1 − k for the first pivot k
// (in elimination order, k = n − 1 first) that was not positive and finite.  For a pack, the
// lanes with such a pivot go on with a pivot of 1 (their factor is meaningless) and are added to
// *failed; the return value is then n.
template <class T, class A>
ZW_HD int cholesky_factor(A a, const int* parent, int n, MaskOf<T>* failed = nullptr) {
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
    // L_ki = A_ki / L_kk for the ancestors i of k
    for (int i = parent[k]; i >= 0; i = parent[i]) a[row_k + i] /= lkk;
    // A_ij −= L_ki L_kj for ancestors j of i, i of k (j ≤ i)
    for (int i = parent[k]; i >= 0; i = parent[i]) {
      const T lki = a[row_k + i];
      const int row_i = packed_index(i, 0);
      for (int j = i; j >= 0; j = parent[j]) a[row_i + j] -= lki * a[row_k + j];
    }
  }
  return n;
}

// x = (Lᵀ L)⁻¹ x, in place
template <class T, class A, class X>
ZW_HD void cholesky_solve(A l, const int* parent, X x, int n) {
  // Lᵀ y = x, from the leaves: y_k = x_k / L_kk, then x_i −= L_ki y_k for the ancestors i of k
  for (int k = n - 1; k >= 0; --k) {
    const int row_k = packed_index(k, 0);
    const T yk = x[k] / l[row_k + k];
    x[k] = yk;
    for (int i = parent[k]; i >= 0; i = parent[i]) x[i] -= l[row_k + i] * yk;
  }
  // L z = y, from the root: z_k = (y_k − Σ_{ancestors i} L_ki z_i) / L_kk
  for (int k = 0; k < n; ++k) {
    const int row_k = packed_index(k, 0);
    T s = x[k];
    for (int i = parent[k]; i >= 0; i = parent[i]) s -= l[row_k + i] * x[i];
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
ZW_HD int lu_factor(A lo, A up, const int* parent, int n, MaskOf<T>* failed = nullptr) {
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
    for (int i = parent[k]; i >= 0; i = parent[i]) up[row_k + i] /= pivot;
    // A_ij −= l_ik A_kj for the ancestors i and j of k
    for (int i = parent[k]; i >= 0; i = parent[i]) {
      const T lik = up[row_k + i];
      const int row_i = packed_index(i, 0);
      for (int j = parent[k]; j >= 0; j = parent[j]) {
        if (j <= i) {
          lo[row_i + j] -= lik * lo[row_k + j];
        } else {
          up[packed_index(j, i)] -= lik * lo[row_k + j];
        }
      }
    }
  }
  return n;
}

// x = A⁻¹ x, in place, A factored by lu_factor
template <class T, class A, class X>
ZW_HD void lu_solve(A lo, A up, const int* parent, X x, int n) {
  // the elimination's row operations on x, leaves first
  for (int k = n - 1; k >= 0; --k) {
    const int row_k = packed_index(k, 0);
    for (int i = parent[k]; i >= 0; i = parent[i]) x[i] -= up[row_k + i] * x[k];
  }
  // the reduced rows from the root: x_k = (y_k − Σ_{ancestors i} A_ki x_i) / A_kk
  for (int k = 0; k < n; ++k) {
    const int row_k = packed_index(k, 0);
    T s = x[k];
    for (int i = parent[k]; i >= 0; i = parent[i]) s -= lo[row_k + i] * x[i];
    x[k] = s / lo[row_k + k];
  }
}

}  // namespace zwang
