// (qpos, qvel, qacc) => (qpos, qvel, time)
//
// Positions move on the manifold: hinge and slide q += h q̇; ball and free rotation
// q ← q ⊗ exp(h ω / 2) with ω in the body frame (the exponential map keeps unit length);
// free translation p += h v.
//   Euler (semi-implicit):  q̇⁺ = q̇ + h q̈,  q⁺ = q ⊕ h q̇⁺
//   RK4 (Munthe-Kaas): the stages live in local coordinates Ω of x ⊕ Ω, where they are
//         Euclidean: k_i = (Ω̇_i, q̈_i) at x_1 = x, x_2 = x ⊕ h/2 k_1, x_3 = x ⊕ h/2 k_2,
//         x_4 = x ⊕ h k_3, and x⁺ = x ⊕ h (k_1 + 2 k_2 + 2 k_3 + k_4) / 6.  Ω̇ = q̇ except for
//         rotations, where Ω̇ = J_r⁻¹(Ω) ω; without that map the scheme is second order on
//         ball and free joints.
#pragma once

#include "kernels/hd.h"
#include "kernels/instance.h"
#include "kernels/math_vec.h"
#include "kernels/model_view.h"

namespace zwang {

// qpos ⊕ h vel, in place
template <class T, class Q, class V>
ZW_HD void integrate_pos(const ModelView<T>& m, Q qpos, V vel, T h) {
  for (int j = 0; j < m.s.njnt; ++j) {
    int qa = m.jnt_qposadr[j], da = m.jnt_dofadr[j];
    switch (m.jnt_type[j]) {
      case JointType::kFree:
        for (int i = 0; i < 3; ++i) qpos[qa + i] += h * vel[da + i];
        qa += 3;
        da += 3;
        [[fallthrough]];
      case JointType::kBall:
        store_quat(qpos, qa, integrate_quat(load_quat(qpos, qa), load3(vel, da), h));
        break;
      default:
        qpos[qa] += h * vel[da];
        break;
    }
  }
}

// rate = Ω̇ at the stage x ⊕ Ω with Ω = scale · rate (the previous stage's rate), velocity q̇
template <class T>
ZW_HD void local_rate(const ModelView<T>& m, Row<T> qvel, T scale, Row<T> rate) {
  for (int j = 0; j < m.s.njnt; ++j) {
    int da = m.jnt_dofadr[j];
    switch (m.jnt_type[j]) {
      case JointType::kFree:
        for (int i = 0; i < 3; ++i) rate[da + i] = qvel[da + i];
        da += 3;
        [[fallthrough]];
      case JointType::kBall:
        store3(rate, da, exp_coordinate_rate(scale * load3(rate, da), load3(qvel, da)));
        break;
      default:
        rate[da] = qvel[da];
        break;
    }
  }
}

// dst = src over n values
template <class T>
ZW_HD ZW_INLINE void copy_row(Row<T> dst, Row<T> src, int n) {
  for (int i = 0; i < n; ++i) dst[i] = src[i];
}

}  // namespace zwang
