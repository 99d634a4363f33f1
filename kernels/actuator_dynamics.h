// The force law and the activation dynamics of one actuator, given its length and velocity
// from the transmission (kernels/generalized_forces.h computes those and applies the force):
//   (len, vel, u, act) => force, act_dot        MuJoCo 2.2.2's mj_fwdActuation
//
//   gain:   fixed  gain0;  affine  gain0 + gain1 len + gain2 vel;  muscle  −F0 FL(L) FV(V)
//   bias:   none   0;      affine  bias0 + bias1 len + bias2 vel;  muscle  −F0 fpmax FP(L)
//   force:  gain u + bias without dynamics, gain act with them (act is MuJoCo's d->act; with
//           MuJoCo 3's actearly the activation after a step of act_dot, next_activation())
//   act_dot: integrator  u;  filter and filterexact  (u − act) / τ, τ = max(dynprm0, 1e-15);
//            muscle  (ũ − act) / τ(ũ, act), ũ = u clamped to [0, 1] (Millard et al. 2013)
// Muscles are MuJoCo 2.2.2's mju_muscleGain, mju_muscleBias and mju_muscleDynamics: the
// normalised length L = range0 + (len − lengthrange0) / L0 and velocity V = vel / (L0 vmax),
// L0 = (lengthrange1 − lengthrange0) / (range1 − range0), and their piecewise-quadratic curves
// FL (active force–length), FV (force–velocity), FP (passive force–length).  The peak force F0
// (force, or scale / acc0 when force < 0) is gain0 (and F0 fpmax is bias0), so that a gain scale
// scales a muscle; the curves' shapes are shared (actuator_musclegain, actuator_musclebias).
// and the integration of act over a step: act += h act_dot (Euler) or the RK4 sum, then clamped
// to actrange where actlimited (MuJoCo 2.2.2's mj_advance: only the step's result is clamped,
// never RK4's stage states).  filterexact (MuJoCo 3) integrates its filter exactly over the
// step instead: act += act_dot τ (1 − e^{−h/τ}), with RK4's weighted act_dot.
#pragma once

#include "kernels/hd.h"
#include "kernels/instance.h"
#include "kernels/lanes.h"
#include "kernels/model_view.h"

namespace zwang {

// MuJoCo's mjMINVAL: the smallest time constant of a filter
inline constexpr double kActMinTau = 1e-15;

template <class T>
ZW_HD ZW_INLINE T max_minval(T x) {
  return vselect(x < T(kActMinTau), T(kActMinTau), x);
}

// the muscle's active force per unit of F0, FL(L) FV(V) (2.2.2's branch order: below lmin the
// second branch applies)
template <class T>
ZW_HD T muscle_length_curve(const ModelView<T>& m, int a, T len) {
  const auto p = m.actuator_musclegain + 8 * a;
  const T lr0 = p[0], l0 = p[1], range0 = p[2], lmin = p[3], lmax = p[4];
  const T ha = T(0.5) * (lmin + T(1)), hb = T(0.5) * (T(1) + lmax);
  const T L = range0 + (len - lr0) / max_minval(l0);
  const T x1 = (L - lmin) / max_minval(ha - lmin), x2 = (T(1) - L) / max_minval(T(1) - ha);
  const T x3 = (L - T(1)) / max_minval(hb - T(1)), x4 = (lmax - L) / max_minval(lmax - hb);
  return vselect(L >= lmin && L <= ha, T(0.5) * x1 * x1,
                 vselect(L <= T(1), T(1) - T(0.5) * x2 * x2,
                         vselect(L <= hb, T(1) - T(0.5) * x3 * x3,
                                 vselect(L <= lmax, T(0.5) * x4 * x4, T(0)))));
}

template <class T>
ZW_HD T muscle_gain_curve(const ModelView<T>& m, int a, T len, T vel) {
  const auto p = m.actuator_musclegain + 8 * a;
  const T l0 = p[1], vmax = p[5], fvmax = p[6];
  const T V = vel / max_minval(l0 * vmax);
  const T fl = muscle_length_curve(m, a, len);
  const T y = fvmax - T(1);
  const T fv = vselect(V <= T(-1), T(0),
                       vselect(V <= T(0), (V + T(1)) * (V + T(1)),
                               vselect(V <= y, fvmax - (y - V) * (y - V) / max_minval(y), fvmax)));
  return fl * fv;
}

// ∂(FL FV)/∂vel, the velocity derivative of muscle_gain_curve (FV's pieces differentiated)
template <class T>
ZW_HD T muscle_gain_curve_vel(const ModelView<T>& m, int a, T len, T vel) {
  const auto p = m.actuator_musclegain + 8 * a;
  const T l0 = p[1], vmax = p[5], fvmax = p[6];
  const T scale = max_minval(l0 * vmax);
  const T V = vel / scale;
  const T y = fvmax - T(1);
  const T dfv = vselect(
      V <= T(-1), T(0),
      vselect(V <= T(0), T(2) * V + T(2), vselect(V <= y, T(2) * (y - V) / max_minval(y), T(0))));
  return muscle_length_curve(m, a, len) * dfv / scale;
}

// the muscle's passive force per unit of F0 fpmax: FP(L), 0 below L = 1, half-quadratic to
// (1 + lmax) / 2, linear beyond
template <class T>
ZW_HD T muscle_bias_curve(const ModelView<T>& m, int a, T len) {
  const auto p = m.actuator_musclebias + 4 * a;
  const T lr0 = p[0], l0 = p[1], range0 = p[2], lmax = p[3];
  const T hb = T(0.5) * (T(1) + lmax);
  const T L = range0 + (len - lr0) / max_minval(l0);
  const T x = (L - T(1)) / max_minval(hb - T(1)), xl = (L - hb) / max_minval(hb - T(1));
  return vselect(L <= T(1), T(0), vselect(L <= hb, T(0.5) * x * x, T(0.5) + xl));
}

// the scalar force of actuator a before forcerange: gain (u or act) + bias
template <class T>
ZW_HD ZW_INLINE T actuator_force_law(const ModelView<T>& m, const Instance<T>& d, int a, T len,
                                     T vel, T u, T act) {
  const Row<T> gainprm = d.actuator_gainprm() + 3 * a, biasprm = d.actuator_biasprm() + 3 * a;
  T gain = gainprm[0];
  if (m.actuator_gaintype[a] == ActuatorGain::kAffine)
    gain = gain + gainprm[1] * len + gainprm[2] * vel;
  if (m.actuator_gaintype[a] == ActuatorGain::kMuscle)
    gain = -gain * muscle_gain_curve(m, a, len, vel);
  T bias = T(0);
  if (m.actuator_biastype[a] == ActuatorBias::kAffine)
    bias = biasprm[0] + biasprm[1] * len + biasprm[2] * vel;
  if (m.actuator_biastype[a] == ActuatorBias::kMuscle)
    bias = -biasprm[0] * muscle_bias_curve(m, a, len);
  return gain * (m.actuator_dyntype[a] == ActuatorDyn::kNone ? u : act) + bias;
}

// d act / dt of actuator a, which has dynamics
template <class T>
ZW_HD ZW_INLINE T actuator_act_dot(const ModelView<T>& m, const Instance<T>& d, int a, T u, T act) {
  switch (m.actuator_dyntype[a]) {
    case ActuatorDyn::kIntegrator:
      return u;
    case ActuatorDyn::kFilter:
    case ActuatorDyn::kFilterExact:
      return (u - act) / max_minval(d.actuator_dynprm()[3 * a]);
    case ActuatorDyn::kMuscle: {
      // τ = τ_act (0.5 + 1.5 ã) while activating, τ_deact / (0.5 + 1.5 ã) otherwise
      const Row<T> prm = d.actuator_dynprm() + 3 * a;
      const T uc = vselect(u < T(0), T(0), vselect(u > T(1), T(1), u));
      const T ac = vselect(act < T(0), T(0), vselect(act > T(1), T(1), act));
      const T s = T(0.5) + T(1.5) * ac;
      const T tau = vselect(uc > act, prm[0] * s, prm[1] / s);
      return (uc - act) / max_minval(tau);
    }
    default:
      return T(0);
  }
}

// the activation of actuator a after a step h from act0 at the rate `rate`: act0 + h rate
// (filterexact: act0 + rate τ (1 − e^{−h/τ})), clamped to actrange where actlimited (MuJoCo's
// mj_advance, and MuJoCo 3's force of an actearly actuator)
template <class T>
ZW_HD ZW_INLINE T next_activation(const ModelView<T>& m, const Instance<T>& d, int a, T act0,
                                  T rate, T h) {
  T next = act0 + h * rate;
  if (m.actuator_dyntype[a] == ActuatorDyn::kFilterExact) {
    const T tau = max_minval(d.actuator_dynprm()[3 * a]);
    next = act0 + rate * tau * (T(1) - vexp(-h / tau));
  }
  if (m.actuator_actlimited[a]) {
    const T lo = m.actuator_actrange[2 * a], hi = m.actuator_actrange[2 * a + 1];
    next = vselect(next < lo, lo, vselect(next > hi, hi, next));
  }
  return next;
}

// act = next_activation(act0, rate) for every actuator with dynamics
template <class T>
ZW_HD void advance_activations(const ModelView<T>& m, const Instance<T>& d, Row<T> act, Row<T> act0,
                               Row<T> rate, T h) {
  for (int a = 0; m.s.na > 0 && a < m.s.nu; ++a) {
    const int adr = m.actuator_actadr[a];
    if (adr >= 0) act[adr] = next_activation(m, d, a, act0[adr], rate[adr], h);
  }
}

}  // namespace zwang
