// (qpos, qvel, ctrl, act, xfrc_applied, cdof, xipos, ten_length, ten_velocity, ten_J, parameters)
//     => (qfrc_passive, qfrc_actuator, actuator_force, act_dot, qfrc_applied, qfrc_smooth)
//
//   passive:   −b q̇ per dof;  −k (q − q_spring) per hinge and slide; a ball (and the rotation
//              of a free joint) pulls back by −k log(q_springᵀ⁻¹ q), a free joint's
//              translation by −k (p − p_spring);  per tendon J_tᵀ (−k_t x − b_t L̇), x the
//              stretch beyond the spring's dead band [L_lower, L_upper];
//              gravity compensation Σ_k J_kᵀ [−c_k m_k g; 0] (on a joint with actgravcomp, MuJoCo
//              3's actuatorgravcomp, an actuator force instead);  the fluid forces of
//              kernels/fluid.h
//   actuator:  transmission l = gear q, l̇ = gear q̇ (joint) or l = gear L, l̇ = gear L̇ (tendon);
//              u clamped to ctrlrange, f from the force law of kernels/actuator_dynamics.h (and
//              act_dot), the forces on a tendon with actfrcrange scaled together into it, each
//              clamped to forcerange;  τ = gear f e_dof or gear f J_tᵀ, a hinge's or slide's sum
//              clamped to its actfrcrange
//   applied:   Σ_k J_kᵀ w_k for the user's wrenches w_k at the COMs
//   smooth:    τ_passive + τ_actuator + τ_applied − qfrc_bias
// A wrench (f at c_k, torque t) on body k gives each ancestor dof, of axis S = [v; ω] at the
// world origin,  J_k e_jᵀ [f; t] = v·f + ω·(c_k × f + t):  the columns of the bodies without
// joints, which body_jacobians() leaves out, are never needed.
// The model's disable flags remove terms as MuJoCo's do: passive (2.2) all passive forces,
// spring and damper (3.x) theirs and, both together, gravity compensation; gravity the
// compensation; actuation every actuator force and act_dot (as MuJoCo 3; 2.2.2 leaves act_dot
// as it was); clampctrl the clamping of u.
#pragma once

#include "kernels/actuator_dynamics.h"
#include "kernels/fluid.h"
#include "kernels/hd.h"
#include "kernels/instance.h"
#include "kernels/math_vec.h"
#include "kernels/model_view.h"
#include "kernels/tendons.h"

namespace zwang {

// MuJoCo 3's actuatorfrcrange on a tendon: the forces f_a of the actuators on it (before their
// forcerange), where their total F = Σ f_a is outside [lo, hi], each times lo / F or hi / F
template <class T>
ZW_HD void tendon_force_ranges(const ModelView<T>& m, Row<T> force) {
  for (int t = 0; t < m.s.ntendon; ++t) {
    if (!m.tendon_actfrclimited[t]) continue;
    const auto on_tendon = [&](int a) {
      return m.actuator_trntype[a] == TransmissionType::kTendon && m.actuator_trnid[a] == t;
    };
    T total = T(0);
    for (int a = 0; a < m.s.nu; ++a) {
      if (on_tendon(a)) total += force[a];
    }
    const T lo = m.tendon_actfrcrange[2 * t], hi = m.tendon_actfrcrange[2 * t + 1];
    const MaskOf<T> some = total != T(0);
    const T safe = vselect(some, total, T(1));
    const T scale =
        vselect(some && total < lo, lo / safe, vselect(some && total > hi, hi / safe, T(1)));
    for (int a = 0; a < m.s.nu; ++a) {
      if (on_tendon(a)) force[a] = force[a] * scale;
    }
  }
}

template <class T>
ZW_HD void generalized_forces(const ModelView<T>& m, const Instance<T>& d) {
  const Row<T> qpos = d.qpos(), qvel = d.qvel(), ctrl = d.ctrl();
  const Row<T> passive = d.qfrc_passive(), act = d.qfrc_actuator(), applied = d.qfrc_applied();
  const Row<T> damping = d.dof_damping(), stiffness = d.jnt_stiffness(), spring = d.qpos_spring();
  const int off = m.disableflags;
  const bool springs = !(off & (kDisablePassive | kDisableSpring));
  const bool dampers = !(off & (kDisablePassive | kDisableDamper));
  const bool gravcomp = (springs || dampers) && !(off & kDisableGravity);

  // damping and springs
  for (int i = 0; i < m.s.nv; ++i) {
    passive[i] = dampers ? -damping[i] * qvel[i] : T(0);
    act[i] = T(0);
    applied[i] = T(0);
  }
  for (int j = 0; springs && j < m.s.njnt; ++j) {
    const T k = stiffness[j];
    int qa = m.jnt_qposadr[j], da = m.jnt_dofadr[j];
    switch (m.jnt_type[j]) {
      case JointType::kFree:
        for (int i = 0; i < 3; ++i) passive[da + i] -= k * (qpos[qa + i] - spring[qa + i]);
        qa += 3;
        da += 3;
        [[fallthrough]];
      case JointType::kBall: {
        const Vec3<T> dif = quat_difference(normalized(load_quat(qpos, qa)), load_quat(spring, qa));
        passive[da] -= k * dif.x;
        passive[da + 1] -= k * dif.y;
        passive[da + 2] -= k * dif.z;
        break;
      }
      default:
        passive[da] -= k * (qpos[qa] - spring[qa]);
        break;
    }
  }

  // tendon springs and dampers: τ += J_tᵀ (−k (L − L_spring) − b L̇)
  const Row<T> ten_k = d.tendon_stiffness(), ten_b = d.tendon_damping();
  const Row<T> ten_len = d.ten_length(), ten_vel = d.ten_velocity();
  for (int t = 0; (springs || dampers) && t < m.s.ntendon; ++t) {
    // the spring acts beyond its dead band [lower, upper] (a rest length where they are equal)
    const T len = ten_len[t], lower = m.tendon_lengthspring[2 * t];
    const T upper = m.tendon_lengthspring[2 * t + 1];
    const T stretch = len - vselect(len < lower, lower, vselect(len > upper, upper, len));
    const T fs = springs ? -ten_k[t] * stretch : T(0);
    const T f = fs - (dampers ? ten_b[t] * ten_vel[t] : T(0));
    if (!any_lane<T>(may_be_nonzero(f))) continue;
    const Row<T> jac = d.ten_J() + t * m.s.nv;
    for (int i = 0; i < m.s.nv; ++i) passive[i] += jac[i] * f;
  }

  // gravity compensation at each COM, for the bodies that have it (in a pack: some lane); on the
  // dofs of a joint with actgravcomp an actuator force, none without actuation
  const Row<T> cdof = d.cdof(), xipos = d.xipos();
  // MuJoCo computes no actuation at all in a model without actuators
  const bool actuation = m.s.nu > 0 && !(off & kDisableActuation);
  const bool clamp = !(off & kDisableClampctrl);
  if (gravcomp) {
    const Row<T> gc = d.body_gravcomp(), mass = d.body_mass();
    const Vec3<T> g = load3(d.gravity(), 0);
    for (int b = 1; b < m.s.nbody; ++b) {
      if (!any_lane<T>(may_be_nonzero(gc[b]))) continue;
      const Vec3<T> f = (-gc[b] * mass[b]) * g;
      const Vec3<T> t = cross(load3(xipos, 3 * b), f);
      const int adr = m.body_treeadr[b];
      for (int c = 0; c < m.body_treenum[b]; ++c) {
        const int j = m.tree_dof[adr + c];
        const T comp = dot(load3(cdof, 6 * j), f) + dot(load3(cdof, 6 * j + 3), t);
        if (!m.jnt_actgravcomp[m.dof_jntid[j]]) {
          passive[j] += comp;
        } else if (actuation) {
          act[j] += comp;
        }
      }
    }
  }

  if (fluid_enabled(off)) fluid_forces(m, d, passive);

  // actuators, through a joint or a tendon; with actuation off no force and no act_dot
  const Row<T> gear = d.actuator_gear(), activation = d.act(), act_dot = d.act_dot();
  const Row<T> force = d.actuator_force();
  for (int i = 0; i < m.s.na; ++i) act_dot[i] = T(0);
  for (int a = 0; a < m.s.nu; ++a) {
    if (!actuation) {
      force[a] = T(0);
      continue;
    }
    // transmission: the actuator's length and velocity
    const T len = actuator_length(m, d, a), vel = actuator_velocity(m, d, a);
    T u = ctrl[a];
    if (clamp && m.actuator_ctrllimited[a])
      u = vclamp(u, m.actuator_ctrlrange[2 * a], m.actuator_ctrlrange[2 * a + 1]);
    // force law and activation dynamics
    const int adr = m.actuator_actadr[a];
    T state = adr >= 0 ? activation[adr] : u;
    if (adr >= 0) {
      act_dot[adr] = actuator_act_dot(m, d, a, u, state);
      if (m.actuator_actearly[a])
        state = next_activation(m, d, a, state, act_dot[adr], T(m.timestep));
    }
    force[a] = actuator_force_law(m, d, a, len, vel, u, state);
  }
  if (actuation) tendon_force_ranges(m, force);
  for (int a = 0; actuation && a < m.s.nu; ++a) {
    const T g = gear[a];
    T f = force[a];
    if (m.actuator_forcelimited[a])
      f = vclamp(f, m.actuator_forcerange[2 * a], m.actuator_forcerange[2 * a + 1]);
    force[a] = f;

    // the force through the moment: τ += gear f ∂(q or L)/∂q
    const int id = m.actuator_trnid[a];
    if (m.actuator_trntype[a] == TransmissionType::kTendon) {
      const Row<T> jac = d.ten_J() + id * m.s.nv;
      for (int i = 0; i < m.s.nv; ++i) act[i] += jac[i] * (g * f);
    } else {
      act[m.jnt_dofadr[id]] += g * f;
    }
  }
  // MuJoCo 3's actuatorfrcrange: a hinge's or slide's total actuator force clamped
  for (int j = 0; actuation && j < m.s.njnt; ++j) {
    if (!m.jnt_actfrclimited[j]) continue;
    const int i = m.jnt_dofadr[j];
    act[i] = vclamp(act[i], m.jnt_actfrcrange[2 * j], m.jnt_actfrcrange[2 * j + 1]);
  }

  // user wrenches through the COM Jacobians
  const Row<T> xfrc = d.xfrc_applied();
  for (int b = 1; b < m.s.nbody; ++b) {
    const Vec3<T> f = load3(xfrc, 6 * b), t = load3(xfrc, 6 * b + 3);
    // most bodies of most instances carry no wrench: skip those (a pack, when no lane has one)
    const MaskOf<T> loaded = may_be_nonzero(f.x) || may_be_nonzero(f.y) || may_be_nonzero(f.z) ||
                             may_be_nonzero(t.x) || may_be_nonzero(t.y) || may_be_nonzero(t.z);
    if (!any_lane<T>(loaded)) continue;
    const Vec3<T> tc = cross(load3(xipos, 3 * b), f) + t;
    const int adr = m.body_treeadr[b];
    for (int c = 0; c < m.body_treenum[b]; ++c) {
      const int j = m.tree_dof[adr + c];
      applied[j] += dot(load3(cdof, 6 * j), f) + dot(load3(cdof, 6 * j + 3), tc);
    }
  }

  const Row<T> smooth = d.qfrc_smooth(), bias = d.qfrc_bias();
  for (int i = 0; i < m.s.nv; ++i) smooth[i] = passive[i] + act[i] + applied[i] - bias[i];
}

}  // namespace zwang
