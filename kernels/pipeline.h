// The stages in order, for one instance.  Both backends call only these.
//   smooth:  kinematics → Jacobians → M_k, n_k → H, h → generalized forces
//   forward: smooth → L Lᵀ = H → q̈
//   step:    forward (Euler: with h·damping in the factor) → integrate
#pragma once

#include <cmath>

#include "kernels/assemble.h"
#include "kernels/body_jacobians.h"
#include "kernels/body_terms.h"
#include "kernels/factor_solve.h"
#include "kernels/forward_kinematics.h"
#include "kernels/generalized_forces.h"
#include "kernels/hd.h"
#include "kernels/instance.h"
#include "kernels/integrate.h"
#include "kernels/model_view.h"
#include "kernels/status.h"

namespace zwang {

template <class T>
ZW_HD ZW_INLINE bool all_finite(Row<T> r, int n) {
  bool ok = true;
  for (int i = 0; i < n; ++i) ok = ok && std::isfinite(r[i]);
  return ok;
}

template <class T>
ZW_HD void smooth(const ModelView<T>& m, const Instance<T>& d) {
  forward_kinematics(m, d);
  body_jacobians(m, d);
  body_terms(m, d);
  assemble(m, d);
  generalized_forces(m, d);
}

// H, h, q̈ at the current state; false (and a status bit) when the instance cannot go on
template <class T>
ZW_HD bool forward(const ModelView<T>& m, const Instance<T>& d) {
  if (!all_finite(d.qpos(), m.s.nq) || !all_finite(d.qvel(), m.s.nv) ||
      !all_finite(d.ctrl(), m.s.nu)) {
    *d.status |= kStatusBadState;
    return false;
  }
  smooth(m, d);
  if (!factor_solve(m, d, T(0))) return false;
  if (!all_finite(d.qacc(), m.s.nv)) {
    *d.status |= kStatusDiverged;
    return false;
  }
  return true;
}

template <class T>
ZW_HD void euler_step(const ModelView<T>& m, const Instance<T>& d) {
  const T h = m.timestep;
  smooth(m, d);
  if (!factor_solve(m, d, h)) return;
  const Row<T> qvel = d.qvel(), qacc = d.qacc();
  for (int i = 0; i < m.s.nv; ++i) qvel[i] += h * qacc[i];
  integrate_pos(m, d.qpos(), qvel, h);
}

template <class T>
ZW_HD void rk4_step(const ModelView<T>& m, const Instance<T>& d) {
  const T h = m.timestep;
  const Row<T> qpos = d.qpos(), qvel = d.qvel(), qacc = d.qacc();
  const Row<T> qpos0 = d.step_qpos(), qvel0 = d.step_qvel();
  const Row<T> rate = d.rk_rate(), dpos = d.rk_dpos(), dvel = d.rk_dvel();
  const int nq = m.s.nq, nv = m.s.nv;
  for (int i = 0; i < nv; ++i) dpos[i] = dvel[i] = rate[i] = T(0);

  const T weight[4] = {T(1) / T(6), T(1) / T(3), T(1) / T(3), T(1) / T(6)};
  const T advance[4] = {T(0), T(0.5), T(0.5), T(1)};  // x_i = x ⊕ advance_i h k_{i−1}
  for (int stage = 0; stage < 4; ++stage) {
    if (!forward(m, d)) return;
    local_rate(m, qvel, advance[stage] * h, rate);
    for (int i = 0; i < nv; ++i) {
      dpos[i] += weight[stage] * rate[i];
      dvel[i] += weight[stage] * qacc[i];
    }
    if (stage == 3) break;
    const T c = advance[stage + 1] * h;
    copy_row(qpos, qpos0, nq);
    integrate_pos(m, qpos, rate, c);
    for (int i = 0; i < nv; ++i) qvel[i] = qvel0[i] + c * qacc[i];
  }
  copy_row(qpos, qpos0, nq);
  integrate_pos(m, qpos, dpos, h);
  for (int i = 0; i < nv; ++i) qvel[i] = qvel0[i] + h * dvel[i];
}

// One step of the model's integrator.  An instance with a status bit set does not move; one
// that fails during the step gets its bit and keeps the state it had before the step.
template <class T>
ZW_HD void step(const ModelView<T>& m, const Instance<T>& d) {
  if (*d.status) return;
  const Row<T> qpos = d.qpos(), qvel = d.qvel();
  if (!all_finite(qpos, m.s.nq) || !all_finite(qvel, m.s.nv) || !all_finite(d.ctrl(), m.s.nu)) {
    *d.status |= kStatusBadState;
    return;
  }
  copy_row(d.step_qpos(), qpos, m.s.nq);
  copy_row(d.step_qvel(), qvel, m.s.nv);
  if (m.integrator == kIntRK4) {
    rk4_step(m, d);
  } else {
    euler_step(m, d);
  }
  if (!*d.status && (!all_finite(qpos, m.s.nq) || !all_finite(qvel, m.s.nv))) {
    *d.status |= kStatusDiverged;
  }
  if (*d.status) {
    copy_row(qpos, d.step_qpos(), m.s.nq);
    copy_row(qvel, d.step_qvel(), m.s.nv);
    return;
  }
  *d.time += double(m.timestep);
}

}  // namespace zwang
