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

// which of the rules on I_k below the model's own inertia i0 obeys, in the precision T: the
// instances are held to a rule where the model obeys it.  Evaluated once per model and precision
// (ModelArrays, ModelView::body_inertia_rule) rather than at each check.
enum InertiaRuleBit : int { kInertiaRigid = 1, kInertiaDefinite = 2 };

template <class T>
ZW_HD ZW_INLINE T inertia_rule_margin(T half_trace) {
  const T rel = T(1e-9) + T(64) * T(std::numeric_limits<ScalarOf<T>>::epsilon());
  return rel * T(2) * half_trace + T(std::numeric_limits<ScalarOf<T>>::min());
}

// C = ½ tr(I) 1 − I, the second moment of the mass distribution
template <class T>
ZW_HD ZW_INLINE Sym3<T> second_moment(const Sym3<T>& i, T half_trace) {
  return {half_trace - i.xx, half_trace - i.yy, half_trace - i.zz, -i.xy, -i.xz, -i.yz};
}

template <class T>
int inertia_rule(const Sym3<T>& i0) {
  const T half_trace = T(0.5) * (i0.xx + i0.yy + i0.zz);
  const bool rigid = psd_within(second_moment(i0, half_trace), inertia_rule_margin(half_trace));
  return (rigid ? kInertiaRigid : 0) | (psd_within(i0, T(0)) ? kInertiaDefinite : 0);
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
  const Row<T> mass = d.body_mass(), inertia = d.body_inertia();
  for (int b = 1; b < s.nbody; ++b) {
    const T mb = mass[b];
    const Sym3<T> ib = load_sym(inertia, 6 * b);
    ok = ok && mb >= T(0) && (mb > T(0) || !(m.body_mass[b] > T(0)));
    const int rule = m.body_inertia_rule[b];
    if ((rule & kInertiaRigid) != 0) {
      const T half_trace = T(0.5) * (ib.xx + ib.yy + ib.zz);
      ok = ok && psd_within(second_moment(ib, half_trace), inertia_rule_margin(half_trace));
    }
    // positive definite where the model's is: Cholesky pivots of I_k with no margin
    if ((rule & kInertiaDefinite) != 0) ok = ok && psd_within(ib, T(0));
  }
  return ok;
}

}  // namespace zwang
