// (qM, qvel, ctrl, act, act_dot, actuator_force, ten_J, ten_length, ten_velocity, xmat, xpos,
//  xipos, cdof, cvel, body_Iw, crb_inertia, parameters) => the matrix of an implicit step; the
//  free bodies' q̈ in it
//
// MuJoCo's implicitfast step: with f(q̇) = τ_passive + τ_actuator linearised in q̇, the step's
// q̈ solves
//   (H − h D) q̈ = τ_smooth + Σ J_rᵀ f_r,     D = ∂f/∂q̇,     then q̇⁺ = q̇ + h q̈ as in Euler
// with
//   dof damping       −b_i on the diagonal
//   tendon damping    −b_t J_tᵀ J_t
//   fluid forces      Σ J_bᵀ B J_b at each inertia box and ellipsoid-model geom, B the local
//                     derivative of its forces (kernels/fluid.h; made symmetric off free bodies)
//   actuators         ∂f_a/∂l̇ m_aᵀ m_a, m_a the moment (gear e_dof or gear J_t), where
//                     ∂f_a/∂l̇ = bias2 (affine bias) + ∂gain/∂l̇ · (u, or act: actearly's next
//                     act), ∂gain/∂l̇ = gain2 (affine) or −F0 FL ∂FV/∂l̇ (muscle), and 0 where
//                     forcerange holds the force at or past a bound (MuJoCo's rule; MuJoCo's u
//                     is the unclamped control)
// (the damping terms without MuJoCo's damper flag, the actuators' without actuation).  Only D's
// entries in H's tree pattern reach the factor, as MuJoCo's qH has M's sparsity (but MuJoCo's
// sparse M also drops the off-diagonal entries of the rows of its "simple" dofs, those of a root
// body whose COM and inertia axes are its frame's: a tendon damper, a tendon actuator with a
// velocity term or the fluid forces across two such dofs act there in zwang and not in MuJoCo);
// Euler's matrix is H + h diag(b), the first term alone.  The velocity derivative of the Coriolis
// and centrifugal forces c is left out ("fast"), except on a free joint that moves its tree alone
// (jnt_freebody: no other joint below it): no other dof shares its 6 in H, and MuJoCo 4.0 solves
// them apart,
//   (H_b − h D_b + h ∂c_b/∂q̇) q̈_b = rhs_b,
// by an LU with partial pivoting (a singular matrix keeps the symmetric solve's q̈_b), c_b the
// bias of the tree as one rigid body.  For its mass m, COM offset s from the body frame's origin
// xpos, ω = R ω_local (R the body frame), I its world inertia about its COM (the composite inertia
// of assemble()):
//   c_lin = m ω × (ω × s),          c_rot = Rᵀ (m s × (ω × (ω × s)) + ω × I ω),
//   ∂c_lin/∂ω_local = m K R,        ∂c_rot/∂ω_local = Rᵀ (m [s]ₓ K + [ω]ₓ I − [I ω]ₓ) R,
//   K = ∂(ω × (ω × s))/∂ω = (ω·s) 1 + ω sᵀ − 2 s ωᵀ,   ∂c/∂v_lin = 0.
//
// MuJoCo's implicit step solves the same system with the whole velocity derivative,
//   (H − h D + h ∂c/∂q̇) q̈ = τ_smooth + Σ J_rᵀ f_r,
// D unsymmetric (the fluid forces' B as computed) and ∂c/∂q̇ the derivative of recursive
// Newton–Euler along each q̇_i (coriolis_velocity_terms), all in H's tree pattern; an LU without
// pivoting factors it with no fill-in (kernels/math_chol.h), free bodies included.
#pragma once

#include "kernels/actuator_dynamics.h"
#include "kernels/body_jacobians.h"
#include "kernels/fluid.h"
#include "kernels/hd.h"
#include "kernels/instance.h"
#include "kernels/lanes.h"
#include "kernels/math_chol.h"
#include "kernels/math_vec.h"
#include "kernels/model_view.h"
#include "kernels/tendons.h"

namespace zwang {

// ∂f_a/∂l̇ of actuator a, 0 where its force is held at a bound of forcerange
template <class T>
ZW_HD T actuator_force_vel(const ModelView<T>& m, const Instance<T>& d, int a) {
  const Row<T> gainprm = d.actuator_gainprm() + 3 * a, biasprm = d.actuator_biasprm() + 3 * a;
  T dv = m.actuator_biastype[a] == ActuatorBias::kAffine ? biasprm[2] : T(0);
  const int gain = m.actuator_gaintype[a];
  if (gain == ActuatorGain::kAffine || gain == ActuatorGain::kMuscle) {
    const T gv = gain == ActuatorGain::kAffine
                     ? gainprm[2]
                     : -gainprm[0] * muscle_gain_curve_vel(m, a, actuator_length(m, d, a),
                                                           actuator_velocity(m, d, a));
    T input = d.ctrl()[a];
    const int adr = m.actuator_actadr[a];
    if (adr >= 0) {
      input = d.act()[adr];
      if (m.actuator_actearly[a])
        input = next_activation(m, d, a, input, d.act_dot()[adr], T(m.timestep));
    }
    dv = vselect(may_be_nonzero(gv), dv + gv * input, dv);
  }
  if (m.actuator_forcelimited[a]) {
    const T f = d.actuator_force()[a];
    dv = vselect(f <= T(m.actuator_forcerange[2 * a]) || f >= T(m.actuator_forcerange[2 * a + 1]),
                 T(0), dv);
  }
  return dv;
}

// the terms of −h D: diag(i, c) for c on D's diagonal at dof i, outer(J, c) for c J Jᵀ (a
// tendon's Jacobian row J), block(b, p, R, B, c) for c Jᵀ B J of the fluid forces on the bodies
// [first, last) (kernels/fluid.h; B made symmetric where `symmetric`)
template <class T, class Diag, class Outer, class Block>
ZW_HD void implicit_terms(const ModelView<T>& m, const Instance<T>& d, T h, const Diag& diag,
                          const Outer& outer, int first, int last, bool symmetric,
                          const Block& block) {
  const int nv = m.s.nv, off = m.disableflags;
  if (fluid_enabled(off)) fluid_implicit_terms(m, d, h, first, last, symmetric, block);
  if (!(off & kDisableActuation)) {
    const Row<T> gear = d.actuator_gear();
    for (int u = 0; u < m.s.nu; ++u) {
      const T c = -h * gear[u] * gear[u] * actuator_force_vel(m, d, u);
      const int id = m.actuator_trnid[u];
      if (m.actuator_trntype[u] == TransmissionType::kTendon) {
        if (any_lane<T>(may_be_nonzero(c))) outer(d.ten_J() + id * nv, c);
      } else {
        diag(m.jnt_dofadr[id], c);
      }
    }
  }
  if (off & (kDisablePassive | kDisableDamper)) return;
  const Row<T> damping = d.dof_damping();
  for (int i = 0; i < nv; ++i) diag(i, h * damping[i]);
  const Row<T> ten_b = d.tendon_damping();
  for (int t = 0; t < m.s.ntendon; ++t) {
    if (any_lane<T>(may_be_nonzero(ten_b[t]))) outer(d.ten_J() + t * nv, h * ten_b[t]);
  }
}

// a −= h D (implicitfast) or a += h diag(b) (Euler), a packed lower triangle holding H
template <class T>
ZW_HD void add_implicit_term(const ModelView<T>& m, const Instance<T>& d, Row<T> a, T h) {
  const int nv = m.s.nv;
  if (m.integrator != Integrator::kImplicitFast) {
    const Row<T> damping = d.dof_damping();
    for (int i = 0; i < nv; ++i) a[packed_index(i, i)] += h * damping[i];
    return;
  }
  implicit_terms(
      m, d, h, [&](int i, T c) ZW_ITEM { a[packed_index(i, i)] += c; },
      [&](const Row<T> jac, T c) ZW_ITEM {
        for (int i = 0; i < nv; ++i) {
          const T ci = c * jac[i];
          for (int j = 0; j <= i; ++j) a[packed_index(i, j)] += ci * jac[j];
        }
      },
      1, m.s.nbody, true,
      [&](int b, const Vec3<T>& p, const Mat3<T>& r, const T(&bm)[6][6], T c) ZW_ITEM {
        // a(i, j) += c x_iᵀ B x_j for the dofs i ≥ j of body b's chain, x_i dof i's local axis
        const int adr = m.body_treeadr[b];
        for (int k = 0; k < m.body_treenum[b]; ++k) {
          const int i = m.tree_dof[adr + k];
          T x[6], u[6];
          fluid_local_axis(d, i, p, r, x);
          // u = c Bᵀ x_i, once per row
          for (int q = 0; q < 6; ++q) {
            T sum = T(0);
            for (int o = 0; o < 6; ++o) sum += x[o] * bm[o][q];
            u[q] = c * sum;
          }
          for (int l = 0; l < m.body_treenum[b]; ++l) {
            const int j = m.tree_dof[adr + l];
            if (j > i) continue;
            fluid_local_axis(d, j, p, r, x);
            T sum = T(0);
            for (int q = 0; q < 6; ++q) sum += u[q] * x[q];
            a[packed_index(i, j)] += sum;
          }
        }
      });
}

// implicitfast's q̈ of each standalone free body from its own 6×6 system, the right-hand side
// rhs (+ rhs2 when `two`); x keeps the symmetric solve's values where that system is singular
template <class T>
ZW_HD void free_body_solve(const ModelView<T>& m, const Instance<T>& d, Row<T> x, const Row<T> rhs,
                           const Row<T> rhs2, bool two, T h) {
  if (m.integrator != Integrator::kImplicitFast) return;
  const Row<T> qM = d.qM(), qvel = d.qvel();
  for (int j = 0; j < m.s.njnt; ++j) {
    const int b = m.jnt_freebody[j];
    if (b < 0) continue;
    const int adr = m.jnt_dofadr[j];
    // the tree's bodies, b and the bodies after it whose chain is the free joint's 6 dofs (no
    // other joint below; a subtree's bodies are numbered in a row)
    int tree_end = b + 1;
    while (tree_end < m.s.nbody && m.body_treenum[tree_end] == 6 &&
           m.tree_dof[m.body_treeadr[tree_end]] == adr)
      ++tree_end;
    // the tree as one rigid body: assemble()'s composite inertia about c_b, moved to its COM
    const Row<T> crb = d.crb_inertia() + 10 * b;
    const T mass = crb[0];
    const Vec3<T> first = load3(crb, 1);
    const Vec3<T> e = vselect(mass > T(0), (T(1) / mass) * first, Vec3<T>{T(0), T(0), T(0)});
    const Sym3<T> ic = load_sym(crb, 4);
    const Sym3<T> iw{ic.xx - mass * (e.y * e.y + e.z * e.z),
                     ic.yy - mass * (e.x * e.x + e.z * e.z),
                     ic.zz - mass * (e.x * e.x + e.y * e.y),
                     ic.xy + mass * e.x * e.y,
                     ic.xz + mass * e.x * e.z,
                     ic.yz + mass * e.y * e.z};
    const Mat3<T> r = load_mat(d.xmat(), 9 * b);
    const Vec3<T> s = load3(d.xipos(), 3 * b) + e - load3(d.xpos(), 3 * b);
    const Vec3<T> w = mul(r, load3(qvel, adr + 3)), iww = mul(iw, w);
    const T ws = dot(w, s);
    const T wv[3] = {w.x, w.y, w.z}, sc[3] = {s.x, s.y, s.z};
    // columns c of K, of C = m [s]ₓ K + [ω]ₓ I − [I ω]ₓ
    Vec3<T> kc[3], cc[3];
    for (int c = 0; c < 3; ++c) {
      const Vec3<T> e{T(c == 0 ? 1 : 0), T(c == 1 ? 1 : 0), T(c == 2 ? 1 : 0)};
      kc[c] = ws * e + sc[c] * w - (T(2) * wv[c]) * s;
      cc[c] = mass * cross(s, kc[c]) + cross(w, mul(iw, e)) - cross(iww, e);
    }
    // the 6×6 matrix, row-major; its rotation columns gain h m K R and h Rᵀ C R
    T a[6][6], y[6];
    for (int i = 0; i < 6; ++i) {
      for (int k = 0; k < 6; ++k) {
        const int hi = i > k ? i : k, lo = i > k ? k : i;
        a[i][k] = qM[packed_index(adr + hi, adr + lo)];
      }
      y[i] = two ? rhs[adr + i] + rhs2[adr + i] : rhs[adr + i];
    }
    // −h D's block: the damping, and the spatial tendons through the body's sites
    implicit_terms(
        m, d, h,
        [&](int i, T c) ZW_ITEM {
          for (int k = 0; k < 6; ++k) {
            if (i == adr + k) a[k][k] += c;
          }
        },
        [&](const Row<T> jac, T c) ZW_ITEM {
          for (int i = 0; i < 6; ++i) {
            const T ci = c * jac[adr + i];
            for (int k = 0; k < 6; ++k) a[i][k] += ci * jac[adr + k];
          }
        },
        b, tree_end, false,
        [&](int, const Vec3<T>& p, const Mat3<T>& r, const T(&bm)[6][6], T c) ZW_ITEM {
          // the body's chain is the free joint's 6 dofs: a[i][k] += c x_iᵀ B x_k, through
          // xb = c Bᵀ x_i per row
          T x[6][6];
          for (int i = 0; i < 6; ++i) fluid_local_axis(d, adr + i, p, r, x[i]);
          for (int i = 0; i < 6; ++i) {
            T xb[6];
            for (int q = 0; q < 6; ++q) {
              T sum = T(0);
              for (int o = 0; o < 6; ++o) sum += x[i][o] * bm[o][q];
              xb[q] = c * sum;
            }
            for (int k = 0; k < 6; ++k) {
              T sum = T(0);
              for (int q = 0; q < 6; ++q) sum += xb[q] * x[k][q];
              a[i][k] += sum;
            }
          }
        });
    for (int c = 0; c < 3; ++c) {
      const Vec3<T> rc = column(r, c);
      // (K R)_c = K r_c, (C R)_c = C r_c; row i of Rᵀ (C R)_c is r_i·(C r_c)
      const Vec3<T> krc = rc.x * kc[0] + rc.y * kc[1] + rc.z * kc[2];
      const Vec3<T> crc = rc.x * cc[0] + rc.y * cc[1] + rc.z * cc[2];
      a[0][3 + c] += h * mass * krc.x;
      a[1][3 + c] += h * mass * krc.y;
      a[2][3 + c] += h * mass * krc.z;
      for (int i = 0; i < 3; ++i) a[3 + i][3 + c] += h * dot(column(r, i), crc);
    }
    // Gaussian elimination with partial pivoting, the row swaps as selects
    MaskOf<T> ok(true);
    for (int k = 0; k < 6; ++k) {
      for (int i = k + 1; i < 6; ++i) {
        const T big = vselect(a[k][k] < T(0), -a[k][k], a[k][k]);
        const MaskOf<T> swap = vselect(a[i][k] < T(0), -a[i][k], a[i][k]) > big;
        for (int c = k; c < 6; ++c) {
          const T t = a[k][c];
          a[k][c] = vselect(swap, a[i][c], t);
          a[i][c] = vselect(swap, t, a[i][c]);
        }
        const T t = y[k];
        y[k] = vselect(swap, y[i], t);
        y[i] = vselect(swap, t, y[i]);
      }
      ok = ok && a[k][k] != T(0);
      const T pivot = vselect(a[k][k] != T(0), a[k][k], T(1));
      for (int i = k + 1; i < 6; ++i) {
        const T f = a[i][k] / pivot;
        for (int c = k + 1; c < 6; ++c) a[i][c] -= f * a[k][c];
        y[i] -= f * y[k];
      }
    }
    for (int k = 5; k >= 0; --k) {
      T v = y[k];
      for (int c = k + 1; c < 6; ++c) v -= a[k][c] * y[c];
      y[k] = v / vselect(a[k][k] != T(0), a[k][k], T(1));
    }
    for (int i = 0; i < 6; ++i) x[adr + i] = vselect(ok, y[i], x[adr + i]);
  }
}

// ∂A_b/∂q̇_col of body b's bias acceleration (kernels/body_jacobians.h), col a dof of its chain:
// along the chain from col's joint down to b, each joint adds
//   ∂(V_before ×ₘ W)/∂q̇_col = δV ×ₘ W + V_before ×ₘ δW,
// δV = S_col below col (0 above), δW = S_col on col's joint (0 elsewhere)
template <class T>
ZW_HD Motion<T> bias_acc_derivative(const ModelView<T>& m, const Instance<T>& d, int b, int col,
                                    const Motion<T>& s) {
  const Row<T> cdof = d.cdof(), qvel = d.qvel(), cvel = d.cvel();
  const Motion<T> zero{{T(0), T(0), T(0)}, {T(0), T(0), T(0)}};
  Motion<T> da = zero;
  for (int a = b; a > 0; a = m.body_parentid[a]) {
    Motion<T> v = load_motion<T>(cvel, 6 * m.body_parentid[a]);
    const int jfirst = m.body_jntadr[a], jend = jfirst + m.body_jntnum[a];
    const auto add = [&](int dof, int n) ZW_ITEM {
      const Motion<T> w = dof_velocity(cdof, qvel, dof, n);
      if (col < dof) {
        const Motion<T> t = cross_motion(s, w);
        da = {da.lin + t.lin, da.ang + t.ang};
      } else if (col < dof + n) {
        const Motion<T> t = cross_motion(v, s);
        da = {da.lin + t.lin, da.ang + t.ang};
      }
      v = {v.lin + w.lin, v.ang + w.ang};
    };
    for (int j = jfirst; j < jend; ++j) {
      const int dof = m.jnt_dofadr[j];
      if (m.jnt_type[j] == JointType::kFree) {
        // translation first, then rotation about the moving origin (body_jacobians)
        add(dof, 3);
        add(dof + 3, 3);
      } else {
        add(dof, joint_nv(m.jnt_type[j]));
      }
    }
    // col is a dof of this body (it is in b's chain): no joint further up depends on it
    if (jend > jfirst && col >= m.jnt_dofadr[jfirst]) break;
  }
  return da;
}

// h ∂c/∂q̇ of the Coriolis and centrifugal forces c = Σ_k J_kᵀ (M_k J̇_k q̇ + n_k): add(i, j, x)
// receives its entries, both dofs of one chain.  Along q̇_col, with δω = S_col.ang and
// δv_c = S_col.lin + δω × c_k at body k's COM c_k (col in k's chain),
//   δ(J̇_k q̇) = [δA.lin + δα × c_k + δω × v_c + ω × δv_c;  δα],  δα = δA.ang,
//   δF_k = [m_k δa_c;  I_k δα + δω × I_k ω + ω × I_k δω],
// and δc_i = S_iᵀ [δF.f; δF.t + c_k × δF.f] for the dofs i of the chain (the wrench moved to the
// origin of the Plücker frame).
template <class T, class Add>
ZW_HD void coriolis_velocity_terms(const ModelView<T>& m, const Instance<T>& d, T h,
                                   const Add& add) {
  const Row<T> cdof = d.cdof(), cvel = d.cvel(), xipos = d.xipos();
  const Row<T> iw = d.body_Iw(), mass = d.body_mass();
  for (int b = 1; b < m.s.nbody; ++b) {
    const int adr = m.body_treeadr[b], n = m.body_treenum[b];
    const Motion<T> v = load_motion<T>(cvel, 6 * b);
    const Vec3<T> c = load3(xipos, 3 * b);
    const Vec3<T> vc = v.lin + cross(v.ang, c);
    const Sym3<T> ib = load_sym(iw, 6 * b);
    const Vec3<T> iww = mul(ib, v.ang);
    const T mb = mass[b];
    for (int t = 0; t < n; ++t) {
      const int col = m.tree_dof[adr + t];
      const Motion<T> s = load_motion<T>(cdof, 6 * col);
      const Motion<T> da = bias_acc_derivative(m, d, b, col, s);
      const Vec3<T> dvc = s.lin + cross(s.ang, c);
      const Vec3<T> f = mb * (da.lin + cross(da.ang, c) + cross(s.ang, vc) + cross(v.ang, dvc));
      const Vec3<T> tq =
          mul(ib, da.ang) + cross(s.ang, iww) + cross(v.ang, mul(ib, s.ang)) + cross(c, f);
      for (int r = 0; r < n; ++r) {
        const int row = m.tree_dof[adr + r];
        const Motion<T> sr = load_motion<T>(cdof, 6 * row);
        add(row, col, h * (dot(sr.lin, f) + dot(sr.ang, tq)));
      }
    }
  }
}

// the implicit integrator's matrix H − h D, D = ∂(τ_passive + τ_actuator − c)/∂q̇, in the tree's
// pattern (its other entries are dropped, as MuJoCo's qDeriv has M's sparsity): the lower
// triangle in lo and the strict upper triangle transposed in up, as lu_factor takes them
template <class T>
ZW_HD void implicit_matrix(const ModelView<T>& m, const Instance<T>& d, Row<T> lo, Row<T> up, T h) {
  const int nv = m.s.nv;
  const Row<T> qM = d.qM();
  for (int e = 0; e < m.s.nM; ++e) lo[e] = up[e] = qM[e];
  const auto add = [&](int i, int j, T x) ZW_ITEM {
    if (j <= i) {
      lo[packed_index(i, j)] += x;
    } else {
      up[packed_index(j, i)] += x;
    }
  };
  implicit_terms(
      m, d, h, [&](int i, T c) ZW_ITEM { lo[packed_index(i, i)] += c; },
      [&](const Row<T> jac, T c) ZW_ITEM {
        for (int i = 0; i < nv; ++i) {
          const T ci = c * jac[i];
          for (int j = 0; j < i; ++j) {
            const T x = ci * jac[j];
            lo[packed_index(i, j)] += x;
            up[packed_index(i, j)] += x;
          }
          lo[packed_index(i, i)] += ci * jac[i];
        }
      },
      1, m.s.nbody, false,
      [&](int b, const Vec3<T>& p, const Mat3<T>& r, const T(&bm)[6][6], T c) ZW_ITEM {
        // (i, j) += c x_iᵀ B x_j for the dofs i, j of body b's chain
        const int adr = m.body_treeadr[b];
        for (int k = 0; k < m.body_treenum[b]; ++k) {
          const int i = m.tree_dof[adr + k];
          T x[6], u[6];
          fluid_local_axis(d, i, p, r, x);
          for (int q = 0; q < 6; ++q) {
            T sum = T(0);
            for (int o = 0; o < 6; ++o) sum += x[o] * bm[o][q];
            u[q] = c * sum;
          }
          for (int l = 0; l < m.body_treenum[b]; ++l) {
            const int j = m.tree_dof[adr + l];
            fluid_local_axis(d, j, p, r, x);
            T sum = T(0);
            for (int q = 0; q < 6; ++q) sum += u[q] * x[q];
            add(i, j, sum);
          }
        }
      });
  coriolis_velocity_terms(m, d, h, add);
}

}  // namespace zwang
