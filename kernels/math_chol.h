// Dense Cholesky factorisation and solve of a symmetric positive definite matrix kept as
// its packed lower triangle, row-major: element (i, j), j <= i, at i (i + 1) / 2 + j.
// Never sees a model or an instance; `A` is any accessor with operator[](int) -> T&.
#pragma once

#include <cmath>

#include "kernels/hd.h"

namespace zwang {

ZW_HD ZW_INLINE int packed_index(int i, int j) {
  return i * (i + 1) / 2 + j;
}

// A = L Lᵀ, L overwrites A.  Returns the number of leading pivots that were positive and
// finite: n on success, the index of the first failed pivot otherwise.
template <class T, class A>
ZW_HD int cholesky_factor(A a, int n) {
  for (int i = 0; i < n; ++i) {
    const int row_i = packed_index(i, 0);
    for (int j = 0; j <= i; ++j) {
      const int row_j = packed_index(j, 0);
      // s = A_ij − Σ_{k<j} L_ik L_jk
      T s = a[row_i + j];
      for (int k = 0; k < j; ++k) s -= a[row_i + k] * a[row_j + k];
      if (j < i) {
        a[row_i + j] = s / a[row_j + j];
      } else {
        if (!(s > T(0)) || !std::isfinite(s)) return i;
        a[row_i + i] = std::sqrt(s);
      }
    }
  }
  return n;
}

// x = (L Lᵀ)⁻¹ x, in place
template <class T, class A, class X>
ZW_HD void cholesky_solve(A l, X x, int n) {
  // L y = x
  for (int i = 0; i < n; ++i) {
    const int row = packed_index(i, 0);
    T s = x[i];
    for (int k = 0; k < i; ++k) s -= l[row + k] * x[k];
    x[i] = s / l[row + i];
  }
  // Lᵀ x = y
  for (int i = n - 1; i >= 0; --i) {
    T s = x[i];
    for (int k = i + 1; k < n; ++k) s -= l[packed_index(k, i)] * x[k];
    x[i] = s / l[packed_index(i, i)];
  }
}

}  // namespace zwang
