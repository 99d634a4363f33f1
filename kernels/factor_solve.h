// (qM, dof_damping, qfrc_smooth; implicit.h's inputs) => (qLD, efc_HL, qacc)  seed 000, seed 002
//   Lᵀ L = H + h_d diag(damping),   q̈ = (Lᵀ L)⁻¹ (τ + Σ J_kᵀ w_k − h)
// with L sparse as the dof tree (kernels/math_chol.h)
// h_d = 0 gives the acceleration of the continuous dynamics; h_d = timestep gives the Euler
// step with implicit joint damping (MuJoCo's Euler), implicitfast's matrix H − h ∂f/∂q̇ and its
// free bodies, or implicit's unsymmetric H − h ∂f/∂q̇, factored by an LU in qLD and efc_HL
// (kernels/implicit.h).  A failed pivot sets
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
  const bool implicit = any_lane<T>(damping_dt > T(0));
  const bool lu = implicit && m.integrator == Integrator::kImplicit;
  MaskOf<T> failed(false);
  if (lu) {
    implicit_matrix(m, d, qLD, d.efc_HL(), damping_dt);
  } else {
    for (int i = 0; i < m.s.nM; ++i) qLD[i] = qM[i];
    if (implicit) add_implicit_term(m, d, qLD, damping_dt);
  }
  const int done = lu ? lu_factor<T>(qLD, d.efc_HL(), dof_rows(m), nv, &failed)
                      : cholesky_factor<T>(qLD, dof_rows(m), nv, &failed);
  if (done < nv) {
    *d.status |= kStatusFactorization;
    return MaskOf<T>(false);
  }
  stop_lanes(d, failed, kStatusFactorization);
  for (int i = 0; i < nv; ++i) qacc[i] = rhs[i];
  if (lu) {
    lu_solve<T>(qLD, d.efc_HL(), dof_rows(m), qacc, nv);
    return !failed;
  }
  cholesky_solve<T>(qLD, dof_rows(m), qacc, nv);
  if (implicit) free_body_solve(m, d, qacc, rhs, rhs, false, damping_dt);
  return !failed;
}

}  // namespace zwang
