// (per-instance parameters, the model's masses and inertias) => valid or not
// A randomised or hand-set parameter can leave the set where the dynamics mean anything: a
// negative mass makes H indefinite in some directions only, and the step may go on silently.
// The rule, checked at the start of forward() and of every step:
//   every parameter is finite;
//   m_k ≥ 0, and m_k > 0 where the model's mass is positive;
//   I_k is the inertia of a rigid body where the model's is: C = ½ tr(I_k) 1 − I_k (the second
//   moment of the mass distribution) is positive semidefinite, which is I_k ⪰ 0 together with
//   the triangle inequality A + B ≥ C of the principal moments, within (1e-9 + 64 ε) tr(I_k)
//   (a URDF file may give a body an inertia that is no rigid body's: InertiaRule::kMassMatrix);
//   I_k ≻ 0 where the model's inertia is positive definite;
//   damping, armature and stiffness ≥ 0.
// The same tolerances as ModelBuilder, which checks the model's own values.
#pragma once

#include <cmath>
#include <limits>

#include "kernels/hd.h"
#include "kernels/instance.h"
#include "kernels/math_vec.h"
#include "kernels/model_view.h"

namespace zwang {

template <class T>
ZW_HD ZW_INLINE MaskOf<T> all_finite(Row<T> r, int n) {
  MaskOf<T> ok(true);
  for (int i = 0; i < n; ++i) ok = ok && visfinite(r[i]);
  return ok;
}

template <class T>
ZW_HD ZW_INLINE MaskOf<T> nonnegative_row(Row<T> r, int n) {
  MaskOf<T> ok(true);
  for (int i = 0; i < n; ++i) ok = ok && r[i] >= T(0);
  return ok;
}

template <class T>
ZW_HD MaskOf<T> parameters_valid(const ModelView<T>& m, const Instance<T>& d) {
  const Sizes& s = m.s;
  MaskOf<T> ok(true);
#define ZW_X(name, count) ok = ok && all_finite(d.name(), (count));
  ZW_PARAM_FIELDS(ZW_X)
#undef ZW_X
  ok = ok && nonnegative_row(d.dof_damping(), s.nv) && nonnegative_row(d.dof_armature(), s.nv) &&
       nonnegative_row(d.jnt_stiffness(), s.njnt) &&
       nonnegative_row(d.tendon_stiffness(), s.ntendon) &&
       nonnegative_row(d.tendon_damping(), s.ntendon);
  const T rel = T(1e-9) + T(64) * T(std::numeric_limits<ScalarOf<T>>::epsilon());
  const Row<T> mass = d.body_mass(), inertia = d.body_inertia();
  for (int b = 1; b < s.nbody; ++b) {
    const T mb = mass[b];
    const Sym3<T> ib = load_sym(inertia, 6 * b);
    const auto i0p = m.body_inertia + 6 * b;
    const Sym3<T> i0{i0p[0], i0p[1], i0p[2], i0p[3], i0p[4], i0p[5]};
    const T tiny = T(std::numeric_limits<ScalarOf<T>>::min());
    const T half_trace = T(0.5) * (ib.xx + ib.yy + ib.zz);
    const Sym3<T> second{
        half_trace - ib.xx, half_trace - ib.yy, half_trace - ib.zz, -ib.xy, -ib.xz, -ib.yz};
    const T half_trace0 = T(0.5) * (i0.xx + i0.yy + i0.zz);
    const Sym3<T> second0{
        half_trace0 - i0.xx, half_trace0 - i0.yy, half_trace0 - i0.zz, -i0.xy, -i0.xz, -i0.yz};
    ok = ok && mb >= T(0) && (mb > T(0) || !(m.body_mass[b] > T(0)));
    ok = ok && (psd_within(second, rel * T(2) * half_trace + tiny) ||
                !psd_within(second0, rel * T(2) * half_trace0 + tiny));
    // positive definite where the model's is: Cholesky pivots of I_k with no margin
    ok = ok && (psd_within(ib, T(0)) || !psd_within(i0, T(0)));
  }
  return ok;
}

}  // namespace zwang
