// (qpos, qvel, xpos, xquat, xmat, cdof, cvel, cacc, drive_prm, t)
//     => (efc_J, efc_pos, efc_aref, efc_R, efc_D)                          seed 002, DESIGN §1
//
// Every row slot the model can need is filled every time (fixed count, kernels/layout.h);
// a limit row whose distance is not below its margin is inactive: D = 0, no force.
//
// Soft rows follow MuJoCo (2.2): with r = (pos − margin) and the impedance d(r) of solimp,
//   aref = −B J q̇ − K d(r) r,   R = max(ε, (1 − d)/d · Â),   D = 1 / R
//   K = 1 / (dmax² τ² ζ²), B = 2 / (dmax τ) for solref (τ, ζ) > 0, τ ≥ 2 h
//   K = −solref₀ / dmax², B = −solref₁ / dmax for solref ≤ 0 (direct)
// where Â approximates the row's diagonal of J H⁻¹ Jᵀ from the invweight0 of the model;
// connect and weld rows share one impedance, from the norm of their violation.  Like MuJoCo,
// a soft row's reference ignores J̇ q̇.
//
// Hard rows are exact: J q̈ = aref with the true constraint acceleration,
//   aref = a_target − J̇ q̇ − B (J q̇ − v_target) − K pos      (dmax = 1: drift correction only)
//   drive:        J = e_dof, pos = q − q*(t), q*(t) = q0 + v0 t + A sin(ω t + φ)
//   knife edge:   J = eᵀ J_p (e = R e_body), J̇ q̇ = (ω × e)·v_p + e·a_p,bias
//   sphere:       v_c = v_o + ρ n × ω = 0 for the contact point c = o − ρ n, n = e_z
//   connect, joint equalities: the soft rows' J and pos, with J̇ q̇
#pragma once

#include <cmath>

#include "kernels/forward_kinematics.h"
#include "kernels/group.h"
#include "kernels/hd.h"
#include "kernels/instance.h"
#include "kernels/math_vec.h"
#include "kernels/model_view.h"
#include "kernels/row_dofs.h"

namespace zwang {

// MuJoCo's bounds on solimp and the smallest R
template <class T>
struct SolverLimits {
  static constexpr double kMinImp = 0.0001, kMaxImp = 0.9999, kMinVal = 1e-15;
};

template <class T>
ZW_HD ZW_INLINE T clamp_imp(T x) {
  const T lo = T(SolverLimits<T>::kMinImp), hi = T(SolverLimits<T>::kMaxImp);
  return x < lo ? lo : (x > hi ? hi : x);
}

// impedance d(pos − margin) of solimp (dmin, dmax, width, midpoint, power), clamped as MuJoCo
template <class T>
ZW_HD T impedance(const T* solimp, T pos, T margin) {
  const T d0 = clamp_imp(solimp[0]), d1 = clamp_imp(solimp[1]);
  const T width = solimp[2] > T(0) ? solimp[2] : T(0);
  const T mid = clamp_imp(solimp[3]);
  const T power = solimp[4] > T(1) ? solimp[4] : T(1);
  if (d0 == d1 || width <= T(SolverLimits<T>::kMinVal)) return T(0.5) * (d0 + d1);
  const T x = vfabs((pos - margin) / width);
  if (x >= T(1)) return d1;
  if (x <= T(0)) return d0;
  T y;
  if (power == T(1)) {
    y = x;
  } else if (x <= mid) {
    y = vpow(x, power) / vpow(mid, power - T(1));
  } else {
    y = T(1) - vpow(T(1) - x, power) / vpow(T(1) - mid, power - T(1));
  }
  return d0 + y * (d1 - d0);
}

// stiffness K and damping B of solref for impedance maximum dmax; τ ≥ 2 h (MuJoCo's refsafe,
// `timestep` 0 where the model disables it)
template <class T>
ZW_HD ZW_INLINE void reference_gains(const T* solref, T dmax, T timestep, T& k, T& b) {
  const T eps = T(SolverLimits<T>::kMinVal);
  // a solref mixing the two forms is replaced by the default (0.02, 1), as MuJoCo does
  const bool mixed = (solref[0] > T(0)) != (solref[1] > T(0));
  T tc = mixed ? T(0.02) : solref[0];
  const T zeta = mixed ? T(1) : solref[1];
  const bool standard = tc > T(0);
  if (standard && tc < T(2) * timestep) tc = T(2) * timestep;
  const T kk = T(1) / fmax(eps, dmax * dmax * tc * tc * zeta * zeta);
  const T kd = -tc / fmax(eps, dmax * dmax);
  k = standard ? kk : kd;
  b = zeta > T(0) ? T(2) / fmax(eps, dmax * tc) : -zeta / fmax(eps, dmax);
}

// the step that bounds solref time constants from below (2 h), 0 without MuJoCo's refsafe
template <class T>
ZW_HD ZW_INLINE T refsafe_step(const ModelView<T>& m) {
  return m.disableflags & kDisableRefsafe ? T(0) : T(m.timestep);
}

// velocity and bias acceleration (q̈ = 0) of the world point p moving with body b
template <class T>
struct PointMotion {
  Vec3<T> vel, bias, omega, alpha_bias;
};

template <class T>
ZW_HD ZW_INLINE PointMotion<T> point_motion(const Instance<T>& d, int b, const Vec3<T>& p) {
  const Row<T> cvel = d.cvel(), cacc = d.cacc();
  const Vec3<T> w = load3(cvel, 6 * b + 3), v0 = load3(cvel, 6 * b);
  const Vec3<T> al = load3(cacc, 6 * b + 3), a0 = load3(cacc, 6 * b);
  const Vec3<T> vp = v0 + cross(w, p);
  return {vp, a0 + cross(al, p) + cross(w, vp), w, al};
}

// row += s · (linear point Jacobian of body b at p)ᵀ c, over the ancestor dofs of b
template <class T>
ZW_HD ZW_INLINE void add_point_jacobian(const ModelView<T>& m, const Instance<T>& d, Row<T> row,
                                        int b, const Vec3<T>& p, const Vec3<T>& c) {
  const Row<T> cdof = d.cdof();
  const int adr = m.body_treeadr[b];
  for (int k = 0; k < m.body_treenum[b]; ++k) {
    const int dof = m.tree_dof[adr + k];
    const Vec3<T> lin = load3(cdof, 6 * dof) + cross(load3(cdof, 6 * dof + 3), p);
    row[dof] += dot(lin, c);
  }
}

// row += (angular Jacobian of body b)ᵀ c
template <class T>
ZW_HD ZW_INLINE void add_angular_jacobian(const ModelView<T>& m, const Instance<T>& d, Row<T> row,
                                          int b, const Vec3<T>& c) {
  const Row<T> cdof = d.cdof();
  const int adr = m.body_treeadr[b];
  for (int k = 0; k < m.body_treenum[b]; ++k) {
    const int dof = m.tree_dof[adr + k];
    row[dof] += dot(load3(cdof, 6 * dof + 3), c);
  }
}

template <class T>
ZW_HD ZW_INLINE Vec3<T> unit(int k) {
  return {T(k == 0), T(k == 1), T(k == 2)};
}

// component k of v, as selects: indexing through &v.x would put v in local memory on a GPU
template <class T>
ZW_HD ZW_INLINE T component(const Vec3<T>& v, int k) {
  return k == 0 ? v.x : (k == 1 ? v.y : v.z);
}

template <class T>
ZW_HD ZW_INLINE Quat<T> conj(const Quat<T>& q) {
  return {q.w, -q.x, -q.y, -q.z};
}

// the scalar parts of one row slot that the solver needs
template <class T>
struct RowSetup {
  const ModelView<T>& m;
  const Instance<T>& d;
  Row<T> qvel;  // q̇ (row_qvel())

  ZW_HD Row<T> jac(int r) const { return d.efc_J() + r * m.s.nv; }

  ZW_HD void clear(int r) const {
    const Row<T> j = jac(r);
    for (int i = 0; i < m.s.nv; ++i) j[i] = T(0);
  }

  // J q̇ of row r, over its dofs (kernels/row_dofs.h)
  ZW_HD T velocity(int r) const {
    const Row<T> j = jac(r);
    const RowDofs dofs = row_dofs(m, d, r);
    T v = T(0);
    for (int i = dofs.lo; i < dofs.hi; ++i) v += j[i] * qvel[i];
    return v;
  }

  // a soft row: imp from imp_pos (the norm of a connect or weld violation), R from Â;
  // aref = −B J q̇ − K imp (pos − margin) − jdot_qdot
  ZW_HD void soft(int r, T pos, T margin, T imp_pos, T diag, const T* solref, const T* solimp,
                  bool active, bool friction, T jdot_qdot = T(0)) const {
    d.efc_pos()[r] = pos;
    if (!active) {
      // an inactive limit (D = 0): the solver reads neither its R nor its aref, and its force is 0
      d.efc_R()[r] = d.efc_D()[r] = d.efc_aref()[r] = T(0);
      return;
    }
    const T imp = impedance(solimp, imp_pos, margin);
    const T dmax = clamp_imp(solimp[1]);
    T k, b;
    reference_gains(solref, dmax, refsafe_step(m), k, b);
    k = friction ? T(0) : k;
    const T eps = T(SolverLimits<T>::kMinVal);
    const T rr = fmax(eps, (T(1) - imp) * diag / imp);
    d.efc_R()[r] = rr;
    d.efc_D()[r] = T(1) / rr;
    d.efc_aref()[r] = -b * velocity(r) - k * imp * (pos - margin) - jdot_qdot;
  }

  // rows r .. r + n − 1 all zero (bodies that cannot move): inactive, as MuJoCo skips them
  ZW_HD void deactivate_if_empty(int r, int n) const {
    bool empty = true;
    for (int k = r; k < r + n; ++k) {
      const Row<T> j = jac(k);
      for (int i = 0; i < m.s.nv; ++i) empty = empty && j[i] == T(0);
    }
    for (int k = r; k < r + n && empty; ++k) d.efc_D()[k] = T(0);
  }

  // a hard row: J q̈ = a_target − J̇ q̇ − B (J q̇ − v_target) − K pos
  ZW_HD void hard(int r, T pos, T v_target, T a_target, T jdot_qdot, const T* solref) const {
    T k, b;
    reference_gains(solref, T(1), refsafe_step(m), k, b);
    d.efc_pos()[r] = pos;
    d.efc_R()[r] = T(0);
    d.efc_D()[r] = T(0);
    d.efc_aref()[r] = a_target - jdot_qdot - b * (velocity(r) - v_target) - k * pos;
  }
};

template <class T>
ZW_HD void equality_rows(const ModelView<T>& m, const Instance<T>& d, const RowSetup<T>& rs) {
  const Row<T> xquat = d.xquat(), qpos = d.qpos(), qvel = d.qvel();
  for (int e = 0; e < m.neq; ++e) {
    const int r = m.eq_efcadr[e];
    if (r < 0) continue;
    const T* data = m.eq_data + 11 * e;
    const T* solref = m.eq_solref + 2 * e;
    const T* solimp = m.eq_solimp + 5 * e;
    const bool hard = m.efc_kind[r] == kEfcHard;
    const int b1 = m.eq_obj1id[e], b2 = m.eq_obj2id[e];
    switch (m.eq_type[e]) {
      case EqualityType::kConnect:
      case EqualityType::kWeld: {
        const bool weld = m.eq_type[e] == EqualityType::kWeld;
        // connect: anchor1 = data[0:3] on body1, anchor2 = data[3:6] on body2
        // weld:    anchor1 = data[3:6] on body1, anchor2 = data[0:3] on body2
        const Vec3<T> l1{data[weld ? 3 : 0], data[weld ? 4 : 1], data[weld ? 5 : 2]};
        const Vec3<T> l2{data[weld ? 0 : 3], data[weld ? 1 : 4], data[weld ? 2 : 5]};
        const Vec3<T> p1 = body_point(d, b1, l1), p2 = body_point(d, b2, l2);
        const Vec3<T> cpos = p1 - p2;
        T norm2 = dot(cpos, cpos);
        // weld orientation error: vec(q2⁻¹ q1 relpose), rows ½ vec(q2⁻¹ (0, ω1 − ω2) q1 relpose)
        const Quat<T> rel{data[6], data[7], data[8], data[9]};
        const Quat<T> q1rel = mul(load_quat(xquat, 4 * b1), rel);
        const Quat<T> q2inv = conj(load_quat(xquat, 4 * b2));
        const Quat<T> err = mul(q2inv, q1rel);
        const T torquescale = data[10];
        if (weld) {
          const Vec3<T> ev{err.x, err.y, err.z};
          norm2 += torquescale * torquescale * dot(ev, ev);
        }
        const T imp_pos = vsqrt(norm2);
        const PointMotion<T> a1 = point_motion(d, b1, p1), a2 = point_motion(d, b2, p2);
        const Vec3<T> jdot = a1.bias - a2.bias;
        // MuJoCo 4.0 takes J̇ q̇ out of a soft connect or weld row's reference too; 2.2.2 does not
        const bool mujoco2 = m.rules == Rules::kMujoco2;
        const Vec3<T> soft_jdot = mujoco2 ? Vec3<T>{T(0), T(0), T(0)} : jdot;
        for (int k = 0; k < 3; ++k) {
          rs.clear(r + k);
          add_point_jacobian(m, d, rs.jac(r + k), b1, p1, unit<T>(k));
          add_point_jacobian(m, d, rs.jac(r + k), b2, p2, T(-1) * unit<T>(k));
          const T diag = m.body_invweight0[2 * b1] + m.body_invweight0[2 * b2];
          if (hard) {
            rs.hard(r + k, component(cpos, k), T(0), T(0), component(jdot, k), solref);
          } else {
            rs.soft(r + k, component(cpos, k), T(0), imp_pos, diag, solref, solimp, true, false,
                    component(soft_jdot, k));
          }
        }
        if (!weld) {
          if (!hard) rs.deactivate_if_empty(r, 3);
          break;
        }
        const Row<T> cdof = d.cdof();
        for (int k = 0; k < 3; ++k) rs.clear(r + 3 + k);
        // column of dof i: ½ τ vec(q2⁻¹ ⊗ (0, s_i) ⊗ q1 relpose), s_i = ω-column of body1 − body2
        for (int side = 0; side < 2; ++side) {
          const int b = side == 0 ? b1 : b2;
          const T sign = side == 0 ? T(1) : T(-1);
          const int adr = m.body_treeadr[b];
          for (int c = 0; c < m.body_treenum[b]; ++c) {
            const int dof = m.tree_dof[adr + c];
            const Vec3<T> s = sign * load3(cdof, 6 * dof + 3);
            const Quat<T> q = mul(mul(q2inv, Quat<T>{T(0), s.x, s.y, s.z}), q1rel);
            rs.jac(r + 3)[dof] += T(0.5) * torquescale * q.x;
            rs.jac(r + 4)[dof] += T(0.5) * torquescale * q.y;
            rs.jac(r + 5)[dof] += T(0.5) * torquescale * q.z;
          }
        }
        // MuJoCo 4.0: residual τ vec(err), Â the bodies' rotational invweight0, and J̇ q̇ of the
        // rows, ½ τ vec(q̇2⁻¹ Ω q1rel + q2⁻¹ (0, α1 − α2) q1rel + q2⁻¹ Ω q̇1rel) with Ω = (0, ω1 −
        // ω2), q̇ = ½ (0, ω) q, α the bodies' angular bias accelerations.  MuJoCo 2.2.2 (its
        // diagApprox resets its weld row counter on every row): residual vec(err), every weld
        // row scaled by the translational invweight0, no J̇ q̇
        const int rot = mujoco2 ? 0 : 1;
        const T diag = m.body_invweight0[2 * b1 + rot] + m.body_invweight0[2 * b2 + rot];
        const T scale = mujoco2 ? T(1) : torquescale;
        const Vec3<T> ev{err.x, err.y, err.z};
        Vec3<T> rot_jdot{T(0), T(0), T(0)};
        if (!mujoco2) {
          const Quat<T> q1 = load_quat(xquat, 4 * b1), q2 = load_quat(xquat, 4 * b2);
          const Vec3<T> dw = a1.omega - a2.omega, dal = a1.alpha_bias - a2.alpha_bias;
          const auto rate = [](const Vec3<T>& w, const Quat<T>& q) ZW_ITEM {
            const Quat<T> p = mul(Quat<T>{T(0), w.x, w.y, w.z}, q);
            return Quat<T>{T(0.5) * p.w, T(0.5) * p.x, T(0.5) * p.y, T(0.5) * p.z};
          };
          const Quat<T> om{T(0), dw.x, dw.y, dw.z}, al{T(0), dal.x, dal.y, dal.z};
          const Quat<T> t1 = mul(mul(conj(rate(a2.omega, q2)), om), q1rel);
          const Quat<T> t2 = mul(mul(q2inv, al), q1rel);
          const Quat<T> t3 = mul(mul(q2inv, om), mul(rate(a1.omega, q1), rel));
          const T half = T(0.5) * torquescale;
          rot_jdot = {half * (t1.x + t2.x + t3.x), half * (t1.y + t2.y + t3.y),
                      half * (t1.z + t2.z + t3.z)};
        }
        for (int k = 0; k < 3; ++k) {
          rs.soft(r + 3 + k, scale * component(ev, k), T(0), imp_pos, diag, solref, solimp, true,
                  false, component(rot_jdot, k));
        }
        rs.deactivate_if_empty(r, 6);
        break;
      }
      case EqualityType::kTendon: {
        // L1 − L1₀ − p(L2 − L2₀),  p(x) = Σ_k c_k x^k;  J = J1 − p′ J2 (MuJoCo's; soft only)
        const int t1 = m.eq_obj1id[e], t2 = m.eq_obj2id[e];
        const int nv = m.s.nv;
        const Row<T> len = d.ten_length(), tj = d.ten_J();
        const Row<T> row = rs.jac(r);
        for (int i = 0; i < nv; ++i) row[i] = tj[t1 * nv + i];
        T pos = len[t1] - m.tendon_length0[t1] - data[0];
        T diag = m.tendon_invweight0[t1];
        if (t2 >= 0) {
          const T x = len[t2] - m.tendon_length0[t2];
          pos -= x * (data[1] + x * (data[2] + x * (data[3] + x * data[4])));
          const T dp = data[1] + x * (T(2) * data[2] + x * (T(3) * data[3] + x * T(4) * data[4]));
          for (int i = 0; i < nv; ++i) row[i] -= dp * tj[t2 * nv + i];
          diag += m.tendon_invweight0[t2];
        }
        rs.soft(r, pos, T(0), pos, diag, solref, solimp, true, false);
        break;
      }
      default: {
        // q1 − q1₀ − p(q2 − q2₀),  p(x) = Σ_k c_k x^k;  J = e1 − p′ e2;  J̇ q̇ = −p″ q̇2²
        const int j1 = m.eq_obj1id[e], j2 = m.eq_obj2id[e];
        const int q1 = m.jnt_qposadr[j1], v1 = m.jnt_dofadr[j1];
        rs.clear(r);
        rs.jac(r)[v1] = T(1);
        T pos = qpos[q1] - m.qpos0[q1] - data[0];
        T diag = m.dof_invweight0[v1];
        T jdot = T(0);
        if (j2 >= 0) {
          const int q2 = m.jnt_qposadr[j2], v2 = m.jnt_dofadr[j2];
          const T x = qpos[q2] - m.qpos0[q2];
          pos -= x * (data[1] + x * (data[2] + x * (data[3] + x * data[4])));
          const T dp = data[1] + x * (T(2) * data[2] + x * (T(3) * data[3] + x * T(4) * data[4]));
          const T ddp = T(2) * data[2] + x * (T(6) * data[3] + x * T(12) * data[4]);
          rs.jac(r)[v2] -= dp;
          diag += m.dof_invweight0[v2];
          jdot = -ddp * qvel[v2] * qvel[v2];
        }
        if (hard) {
          rs.hard(r, pos, T(0), T(0), jdot, solref);
        } else {
          rs.soft(r, pos, T(0), pos, diag, solref, solimp, true, false);
        }
        break;
      }
    }
  }
}

template <class T>
ZW_HD void drive_rows(const ModelView<T>& m, const Instance<T>& d, const RowSetup<T>& rs,
                      double t) {
  const Row<T> qpos = d.qpos(), prm = d.drive_prm();
  for (int i = 0; i < m.s.ndrive; ++i) {
    const int r = m.drive_efcadr[i], j = m.drive_jnt[i];
    const T q0 = prm[5 * i], v0 = prm[5 * i + 1], amp = prm[5 * i + 2];
    const T omega = prm[5 * i + 3], phase = prm[5 * i + 4];
    // the phase ω t + φ in double, reduced to [0, 2π): float loses ω t's digits as t grows
    const double phase_d =
        std::fmod(static_cast<double>(omega) * t + static_cast<double>(phase), 2 * M_PI);
    T arg = T(phase_d), drift = T(static_cast<double>(v0) * t);
    if constexpr (kTangents<T>) {
      // the tangents the doubles drop: ω′ t + φ′ and v₀′ t
      const T time = T(t);
      arg +=
          (omega - T(static_cast<double>(omega))) * time + (phase - T(static_cast<double>(phase)));
      drift += (v0 - T(static_cast<double>(v0))) * time;
    }
    const T s = vsin(arg), c = vcos(arg);
    const T q_target = q0 + drift + amp * s;
    const T v_target = v0 + amp * omega * c;
    const T a_target = -amp * omega * omega * s;
    rs.clear(r);
    rs.jac(r)[m.jnt_dofadr[j]] = T(1);
    rs.hard(r, qpos[m.jnt_qposadr[j]] - q_target, v_target, a_target, T(0), m.drive_solref + 2 * i);
  }
}

template <class T>
ZW_HD void nonholonomic_rows(const ModelView<T>& m, const Instance<T>& d, const RowSetup<T>& rs) {
  for (int i = 0; i < m.nnhc; ++i) {
    const int r = m.nhc_efcadr[i], b = m.nhc_body[i];
    const T* data = m.nhc_data + 6 * i;
    const T* solref = m.nhc_solref + 2 * i;
    const Mat3<T> rot = load_mat(d.xmat(), 9 * b);
    if (m.nhc_type[i] == NonholonomicType::kKnifeEdge) {
      // eᵀ v_p = 0:  J = eᵀ J_p,  J̇ q̇ = (ω × e)·v_p + e·a_p,bias
      const Vec3<T> p = body_point(d, b, Vec3<T>{data[0], data[1], data[2]});
      const Vec3<T> e = mul(rot, Vec3<T>{data[3], data[4], data[5]});
      const PointMotion<T> pm = point_motion(d, b, p);
      rs.clear(r);
      add_point_jacobian(m, d, rs.jac(r), b, p, e);
      rs.hard(r, T(0), T(0), T(0), dot(cross(pm.omega, e), pm.vel) + dot(e, pm.bias), solref);
    } else {
      // v_o + ρ n × ω = 0, n = e_z:  J = J_o + ρ [n]ₓ J_ω,  J̇ q̇ = a_o,bias + ρ n × α_bias;
      // the normal row also holds the height: pos = z_o − ρ − height
      const T rho = data[0], height = data[1];
      const Vec3<T> o = load3(d.xpos(), 3 * b);
      const PointMotion<T> pm = point_motion(d, b, o);
      const Vec3<T> n{T(0), T(0), T(1)};
      const Vec3<T> jdot = pm.bias + rho * cross(n, pm.alpha_bias);
      for (int k = 0; k < 3; ++k) {
        rs.clear(r + k);
        add_point_jacobian(m, d, rs.jac(r + k), b, o, unit<T>(k));
        // (ρ n × ω)_k = ρ ω · (e_k × n)
        add_angular_jacobian(m, d, rs.jac(r + k), b, rho * cross(unit<T>(k), n));
        const T pos = k == 2 ? o.z - rho - height : T(0);
        rs.hard(r + k, pos, T(0), T(0), component(jdot, k), solref);
      }
    }
  }
}

// the friction-loss row of dof v, where it has one (dof_efcadr)
template <class T>
ZW_HD ZW_INLINE void dof_friction_row(const ModelView<T>& m, const RowSetup<T>& rs, int v) {
  const int r = m.dof_efcadr[v];
  if (r < 0) return;
  rs.clear(r);
  rs.jac(r)[v] = T(1);
  rs.soft(r, T(0), T(0), T(0), m.dof_invweight0[v], m.dof_solref + 2 * v, m.dof_solimp + 5 * v,
          true, true);
}

// the limit rows of joint j, where it has them (jnt_efcadr)
template <class T>
ZW_HD ZW_INLINE void joint_limit_rows(const ModelView<T>& m, const Instance<T>& d,
                                      const RowSetup<T>& rs, int j) {
  const Row<T> qpos = d.qpos();
  const int r = m.jnt_efcadr[j];
  if (r < 0) return;
  const T margin = m.jnt_margin[j];
  const T* solref = m.jnt_solref + 2 * j;
  const T* solimp = m.jnt_solimp + 5 * j;
  const int qa = m.jnt_qposadr[j], da = m.jnt_dofadr[j];
  const T diag = m.dof_invweight0[da];
  if (m.jnt_type[j] == JointType::kBall) {
    // distance max(range) − θ with θ the rotation angle of the joint in [0, π];
    // J = −axis on the joint's three dofs
    const Quat<T> q = load_quat(qpos, qa);
    Vec3<T> axis{q.x, q.y, q.z};
    const T s = norm(axis);
    T angle = T(2) * vatan2(s, q.w);
    angle = angle > T(M_PI) ? angle - T(2 * M_PI) : angle;
    const bool tiny = !(s * vfabs(angle) > T(SolverLimits<T>::kMinVal));
    axis = tiny ? Vec3<T>{T(1), T(0), T(0)} : (angle / (s * vfabs(angle))) * axis;
    const T value = tiny ? T(0) : T(vfabs(angle));
    const T hi = fmax(m.jnt_range[2 * j], m.jnt_range[2 * j + 1]);
    const T dist = hi - value;
    rs.clear(r);
    rs.jac(r)[da] = -axis.x;
    rs.jac(r)[da + 1] = -axis.y;
    rs.jac(r)[da + 2] = -axis.z;
    rs.soft(r, dist, margin, dist, diag, solref, solimp, dist < margin, false);
    return;
  }
  // lower: distance q − lo, J = +1; upper: hi − q, J = −1
  for (int side = 0; side < 2; ++side) {
    const T q = qpos[qa];
    const T dist = side == 0 ? q - m.jnt_range[2 * j] : m.jnt_range[2 * j + 1] - q;
    rs.clear(r + side);
    rs.jac(r + side)[da] = side == 0 ? T(1) : T(-1);
    rs.soft(r + side, dist, margin, dist, diag, solref, solimp, dist < margin, false);
  }
}

// tendon friction (J = J_t) and limits: lower distance L − lo with J = J_t, upper hi − L
// with J = −J_t, as a joint's
template <class T>
ZW_HD void tendon_rows(const ModelView<T>& m, const Instance<T>& d, const RowSetup<T>& rs) {
  const int nv = m.s.nv;
  const Row<T> len = d.ten_length(), tj = d.ten_J();
  for (int t = 0; t < m.s.ntendon; ++t) {
    const int r = m.tenfri_efcadr[t];
    if (r < 0) continue;
    const Row<T> row = rs.jac(r);
    for (int i = 0; i < nv; ++i) row[i] = tj[t * nv + i];
    rs.soft(r, T(0), T(0), T(0), m.tendon_invweight0[t], m.tendon_solref_fri + 2 * t,
            m.tendon_solimp_fri + 5 * t, true, true);
  }
  for (int t = 0; t < m.s.ntendon; ++t) {
    const int r = m.ten_efcadr[t];
    if (r < 0) continue;
    const T margin = m.tendon_margin[t];
    for (int side = 0; side < 2; ++side) {
      const T dist =
          side == 0 ? len[t] - m.tendon_range[2 * t] : m.tendon_range[2 * t + 1] - len[t];
      const T sign = side == 0 ? T(1) : T(-1);
      const Row<T> row = rs.jac(r + side);
      for (int i = 0; i < nv; ++i) row[i] = sign * tj[t * nv + i];
      rs.soft(r + side, dist, margin, dist, m.tendon_invweight0[t], m.tendon_solref_lim + 2 * t,
              m.tendon_solimp_lim + 5 * t, dist < margin, false);
    }
  }
}

// q̇ for the rows' J q̇, which every row reads whole: a copy in the scratch (efc_qvel) where the
// solve works in it (solve_in_scratch())
template <class T, class Grp>
ZW_HD Row<T> row_qvel(const ModelView<T>& m, const Instance<T>& d, Grp& g) {
  if constexpr (!solve_in_scratch<Grp>()) {
    return d.qvel();
  } else {
    const Row<T> qvel = d.qvel(), copy = d.efc_qvel();
    g.one([&]() ZW_ITEM {
      for (int i = 0; i < m.s.nv; ++i) copy[i] = qvel[i];
    });
    return copy;
  }
}

// Every row but the contacts', at time t. On a lane group the friction-loss rows are a dof per item
// and the limit rows a joint per item, each writing its own rows (dof_efcadr, jnt_efcadr); the
// others run on one lane. One lane runs them all in this order.
template <class T, class Grp>
ZW_HD void constraint_rows(const ModelView<T>& m, const Instance<T>& d, double t, Grp& g) {
  const RowSetup<T> rs{m, d, row_qvel(m, d, g)};
  g.one([&]() ZW_ITEM {
    equality_rows(m, d, rs);
    drive_rows(m, d, rs, t);
    nonholonomic_rows(m, d, rs);
  });
  g.each(m.s.nv, [&](int v) ZW_ITEM { dof_friction_row(m, rs, v); });
  g.each(m.s.njnt, [&](int j) ZW_ITEM { joint_limit_rows(m, d, rs, j); });
  g.one([&]() ZW_ITEM { tendon_rows(m, d, rs); });
}

}  // namespace zwang
