// (qM, dof_damping, qfrc_smooth) => (qLD, qacc)                            seed 000, seed 002
//   Lᵀ L = H + h_d diag(damping),   q̈ = (Lᵀ L)⁻¹ (τ + Σ J_kᵀ w_k − h)
// with L sparse as the dof tree (kernels/math_chol.h)
// h_d = 0 gives the acceleration of the continuous dynamics; h_d = timestep gives the Euler
// step with implicit joint damping (MuJoCo's Euler), or implicitfast's matrix H − h ∂f/∂q̇ and
// its free bodies (kernels/implicit.h).  A failed pivot sets
// kStatusFactorization and leaves qacc untouched.
#pragma once

#include "kernels/hd.h"
#include "kernels/implicit.h"
#include "kernels/instance.h"
#include "kernels/math_chol.h"
#include "kernels/model_view.h"
#include "kernels/status.h"

namespace zwang {

// true on the lanes whose factorisation succeeded; a pack's failed lanes go on with a
// meaningless q̈ (kernels/lanes.h)
template <class T>
ZW_HD MaskOf<T> factor_solve(const ModelView<T>& m, const Instance<T>& d, T damping_dt) {
  const Row<T> qM = d.qM(), qLD = d.qLD(), qacc = d.qacc(), rhs = d.qfrc_smooth();
  const int nv = m.s.nv;
  for (int i = 0; i < m.s.nM; ++i) qLD[i] = qM[i];
  const bool implicit = any_lane<T>(damping_dt > T(0));
  if (implicit) add_implicit_term(m, d, qLD, damping_dt);
  MaskOf<T> failed(false);
  if (cholesky_factor<T>(qLD, m.dof_parentid, nv, &failed) < nv) {
    *d.status |= kStatusFactorization;
    return MaskOf<T>(false);
  }
  stop_lanes(d, failed, kStatusFactorization);
  for (int i = 0; i < nv; ++i) qacc[i] = rhs[i];
  cholesky_solve<T>(qLD, m.dof_parentid, qacc, nv);
  if (implicit) free_body_solve(m, d, qacc, rhs, rhs, false, damping_dt);
  return !failed;
}

}  // namespace zwang
