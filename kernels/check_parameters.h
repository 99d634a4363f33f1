// (per-instance parameters, the model's masses and inertias) => valid or not
// A randomised or hand-set parameter can leave the set where the dynamics mean anything: a
// negative mass makes H indefinite in some directions only, and the step may go on silently.
// The rule, checked at the start of forward() and of every step (of every call with packs),
// unless every instance holds the model's values (ModelView::check_parameters):
//   every parameter is finite;
//   m_k ≥ 0, and m_k > 0 where the model's mass is positive;
//   I_k is the inertia of a rigid body where the model's is: C = ½ tr(I_k) 1 − I_k (the second
//   moment of the mass distribution) is positive semidefinite, which is I_k ⪰ 0 together with
//   the triangle inequality A + B ≥ C of the principal moments, within (1e-9 + 64 ε) tr(I_k)
//   (a URDF file may give a body an inertia that is no rigid body's: InertiaRule::kMassMatrix);
//   I_k ≻ 0 where the model's inertia is positive definite;
//   damping, armature and stiffness ≥ 0;
//   an activation's time constants (filter τ, muscle τ_act and τ_deact) ≥ 0, and > 0 where the
//   model's are positive (a vanishing τ makes act_dot = (u − act) / τ explode).
// The same tolerances as ModelBuilder, which checks the model's own values.
#pragma once

#include <cmath>
#include <limits>

#include "kernels/hd.h"
#include "kernels/instance.h"
#include "kernels/math_vec.h"
#include "kernels/model_view.h"

namespace zwang {

// Σ 0·x over rows: ±0 while every x is finite, NaN once one is ±∞ or NaN (0·∞ = NaN), so that
// a whole set of rows costs one multiply and one add per number and a single test; four partial
// sums, so that an addition need not wait for the one before
template <class T>
struct FiniteSum {
  T a{0}, b{0}, c{0}, e{0};

  // the sums in locals: the row may alias *this, which would store them after every addition
  ZW_HD ZW_INLINE void add(Row<T> r, int n) {
    T sa = a, sb = b, sc = c, se = e;
    int i = 0;
    for (; i + 4 <= n; i += 4) {
      sa += T(0) * r[i];
      sb += T(0) * r[i + 1];
      sc += T(0) * r[i + 2];
      se += T(0) * r[i + 3];
    }
    for (; i < n; ++i) sa += T(0) * r[i];
    a = sa;
    b = sb;
    c = sc;
    e = se;
  }
  ZW_HD ZW_INLINE MaskOf<T> finite() const { return visfinite((a + b) + (c + e)); }
};

template <class T>
ZW_HD ZW_INLINE MaskOf<T> all_finite(Row<T> r, int n) {
  FiniteSum<T> sum;
  sum.add(r, n);
  return sum.finite();
}

template <class T>
ZW_HD ZW_INLINE MaskOf<T> nonnegative_row(Row<T> r, int n) {
  MaskOf<T> ok(true);
  for (int i = 0; i < n; ++i) ok = ok && r[i] >= T(0);
  return ok;
}

// C = ½ tr(I) 1 − I, the second moment of the mass distribution of inertia I
template <class T>
ZW_HD ZW_INLINE Sym3<T> second_moment(const Sym3<T>& i) {
  const T half_trace = T(0.5) * (i.xx + i.yy + i.zz);
  return {half_trace - i.xx, half_trace - i.yy, half_trace - i.zz, -i.xy, -i.xz, -i.yz};
}

// the margin of C ⪰ 0: (1e-9 + 64 ε) tr(I), and the smallest normal number
template <class T>
ZW_HD ZW_INLINE T margin(const Sym3<T>& i) {
  using S = ScalarOf<T>;
  const T rel = T(1e-9) + T(64) * T(std::numeric_limits<S>::epsilon());
  return rel * (i.xx + i.yy + i.zz) + T(std::numeric_limits<S>::min());
}

template <class T>
ZW_HD MaskOf<T> parameters_valid(const ModelView<T>& m, const Instance<T>& d) {
  const Sizes& s = m.s;
  FiniteSum<T> sum;
#define ZW_X(name, count) sum.add(d.name(), (count));
  ZW_PARAM_FIELDS(ZW_X)
#undef ZW_X
  MaskOf<T> ok = sum.finite();
  ok = ok && nonnegative_row(d.dof_damping(), s.nv) && nonnegative_row(d.dof_armature(), s.nv) &&
       nonnegative_row(d.jnt_stiffness(), s.njnt) &&
       nonnegative_row(d.tendon_stiffness(), s.ntendon) &&
       nonnegative_row(d.tendon_damping(), s.ntendon) && nonnegative_row(d.density(), 1) &&
       nonnegative_row(d.viscosity(), 1);
  const Row<T> mass = d.body_mass(), inertia = d.body_inertia();
  // the model's own rules are needed only where an instance fails the rigid-body or the
  // definite one; evaluated then by the same code, on the model's values, so that a model
  // inertia at the edge of a rule (a rod's) gets the same answer as an instance that keeps it
  for (int b = 1; b < s.nbody; ++b) {
    const T mb = mass[b];
    const Sym3<T> ib = load_sym(inertia, 6 * b);
    ok = ok && mb >= T(0) && (mb > T(0) || !(m.body_mass[b] > T(0)));
    MaskOf<T> rigid = psd_within(second_moment(ib), margin(ib));
    MaskOf<T> definite = psd_within(ib, T(0));
    if (!all_lanes<T>(rigid && definite)) {
      const auto i0p = m.body_inertia + 6 * b;
      const Sym3<T> i0{i0p[0], i0p[1], i0p[2], i0p[3], i0p[4], i0p[5]};
      rigid = rigid || !psd_within(second_moment(i0), margin(i0));
      definite = definite || !psd_within(i0, T(0));
    }
    ok = ok && rigid && definite;
  }
  const Row<T> dynprm = d.actuator_dynprm();
  for (int a = 0; a < s.nu; ++a) {
    const int type = m.actuator_dyntype[a];
    const int taus = type == ActuatorDyn::kMuscle
                         ? 2
                         : (type == ActuatorDyn::kFilter || type == ActuatorDyn::kFilterExact);
    for (int k = 0; k < taus; ++k) {
      const T tau = dynprm[3 * a + k];
      ok = ok && tau >= T(0) && (tau > T(0) || !(m.actuator_dynprm[3 * a + k] > T(0)));
    }
  }
  return ok;
}

}  // namespace zwang
