// The cuSOLVER path's per-instance halves: H + h_d diag(damping) and the right-hand side
// written out as a dense matrix for a batched solver, and q̈ read back from its solution.
// Instance k of a chunk of `ld` instances keeps element e at [e * ld + k] ("interleaved",
// coalesced for one thread per instance); cuBLAS transposes that to the strided batch
// cuSOLVER wants, matrix k at [k * nv² + r + c nv] (column-major) and rhs k at [k * nv + r].
#pragma once

#include <cmath>

#include "kernels/hd.h"
#include "kernels/instance.h"
#include "kernels/math_chol.h"
#include "kernels/model_view.h"
#include "kernels/pipeline.h"
#include "kernels/status.h"

namespace zwang::gpu {

// dense(r, c) = H_rc + δ_rc h_d damping_r at dense[r + c nv], both triangles;
// rhs = τ + Σ J_kᵀ w_k − h.  An instance that is not in the solve gets I and 0, so that the
// batched factorisation of the whole chunk stays well defined.
template <class T>
ZW_HD void pack_dense(const ModelView<T>& m, const Instance<T>& d, int phase, T damping_dt,
                      Row<T> dense, Row<T> rhs) {
  const int nv = m.s.nv;
  if (phase != kPhaseSolve) {
    for (int c = 0; c < nv; ++c) {
      for (int r = 0; r < nv; ++r) dense[r + c * nv] = r == c ? T(1) : T(0);
      rhs[c] = T(0);
    }
    return;
  }
  const Row<T> qM = d.qM(), damping = d.dof_damping(), smooth = d.qfrc_smooth();
  for (int r = 0; r < nv; ++r) {
    for (int c = 0; c < r; ++c) dense[r + c * nv] = dense[c + r * nv] = qM[packed_index(r, c)];
    dense[r + r * nv] = qM[packed_index(r, r)] + damping_dt * damping[r];
    rhs[r] = smooth[r];
  }
}

// q̈ = x once the factorisation succeeded: info = 0 (cuSOLVER's leading minors all positive)
// and every pivot L_jj positive and finite, as kernels/math_chol.h demands.  Otherwise
// kStatusFactorization, qacc untouched and kPhaseFailed, as factor_solve() does.
// `factor` is this instance's column-major nv×nv factor, `x` its solution.
template <class T, class X>
ZW_HD int unpack_solution(const ModelView<T>& m, const Instance<T>& d, int phase, int info,
                          const T* factor, X x) {
  if (phase != kPhaseSolve) return phase;
  const int nv = m.s.nv;
  bool ok = info == 0;
  for (int j = 0; j < nv; ++j) {
    const T l = factor[j + j * nv];
    ok = ok && l > T(0) && std::isfinite(l);
  }
  if (!ok) {
    *d.status |= kStatusFactorization;
    return kPhaseFailed;
  }
  const Row<T> qacc = d.qacc();
  for (int j = 0; j < nv; ++j) qacc[j] = x[j];
  return kPhaseSolve;
}

}  // namespace zwang::gpu
