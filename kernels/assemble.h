// (body_J, body_biasacc, body_mass, body_Iw, body_n, xipos, dof_armature, gravity)
//     => (qM, qfrc_bias)                                                   seed 000
//   H = Σ_k J_kᵀ M_k J_k + diag(armature)                (packed lower triangle)
//   qfrc_bias = Σ_k J_kᵀ (M_k (J̇_k q̇ − [g; 0]) + n_k)  =  h − Σ_k J_kᵀ [m_k g; 0]
// Gravity enters as the wrench [m_k g; 0] through the same Jacobians, which is what MuJoCo's
// qfrc_bias holds; g = 0 when the model disables gravity.
//
// Both sums are gathered per subtree, leaves first: composite rigid bodies for H, the backward
// pass of recursive Newton–Euler for h.  A dof i moves each body k of its subtree by one twist,
// J_k e_i at c_k, which is J_b e_i moved from the COM c_b of any body b on the way, and a twist
// and a wrench pair to the same number at any common point.  With every term of the subtree of
// b moved to c_b (crb_inertia, crb_wrench),
//   Ĩ_b = Σ_{k in subtree(b)} M_k,   F_b = Σ_{k in subtree(b)} M_k (J̇_k q̇ − [g; 0]) + n_k,
//   H_ij = (J_b e_i)ᵀ Ĩ_b (J_b e_j),   qfrc_bias_j = (J_b e_j)ᵀ F_b
// for each dof j of b and each ancestor dof i ≤ j: O(Σ_j depth_j) work instead of
// O(Σ_k depth_k²).  The columns J_b e_i are stored already, and no lever arm is longer than a
// link: an inertia about the world origin would lose digits as (distance / link)².
#pragma once

#include "kernels/body_jacobians.h"
#include "kernels/group.h"
#include "kernels/hd.h"
#include "kernels/instance.h"
#include "kernels/math_chol.h"
#include "kernels/math_vec.h"
#include "kernels/model_view.h"
#include "kernels/tree_order.h"

namespace zwang {

// a spatial inertia about a point o: mass, first moment h = Σ m (p − o), rotational inertia
// about o
template <class T>
struct Inertia {
  T m;
  Vec3<T> h;
  Sym3<T> i;
};

// a wrench about a point: force, then torque
template <class T>
struct Wrench {
  Vec3<T> f, t;
};

// the momentum of the twist [v; ω] at o:  [m v + ω × h;  h × v + I ω]
template <class T>
ZW_HD ZW_INLINE Wrench<T> momentum(const Inertia<T>& a, const Motion<T>& s) {
  return {a.m * s.lin + cross(s.ang, a.h), cross(a.h, s.lin) + mul(a.i, s.ang)};
}

// sᵀ w = v·f + ω·t
template <class T>
ZW_HD ZW_INLINE T power(const Motion<T>& s, const Wrench<T>& w) {
  return dot(s.lin, w.f) + dot(s.ang, w.t);
}

// the inertia about o' = o − e:  h' = h + m e,  I' = I + 2 (e·u) 1 − (e uᵀ + u eᵀ),
// u = h + m e / 2  (the parallel-axis theorem when h = 0)
template <class T>
ZW_HD ZW_INLINE Inertia<T> moved(const Inertia<T>& a, const Vec3<T>& e) {
  const Vec3<T> u = a.h + (T(0.5) * a.m) * e;
  const T yy = e.y * u.y, zz = e.z * u.z, xx = e.x * u.x;
  return {a.m,
          a.h + a.m * e,
          {a.i.xx + T(2) * (yy + zz), a.i.yy + T(2) * (xx + zz), a.i.zz + T(2) * (xx + yy),
           a.i.xy - (e.x * u.y + u.x * e.y), a.i.xz - (e.x * u.z + u.x * e.z),
           a.i.yz - (e.y * u.z + u.y * e.z)}};
}

// the wrench about o' = o − e:  [f; t + e × f]
template <class T>
ZW_HD ZW_INLINE Wrench<T> moved(const Wrench<T>& w, const Vec3<T>& e) {
  return {w.f, w.t + cross(e, w.f)};
}

template <class T>
ZW_HD ZW_INLINE Inertia<T> operator+(const Inertia<T>& a, const Inertia<T>& b) {
  return {a.m + b.m,
          a.h + b.h,
          {a.i.xx + b.i.xx, a.i.yy + b.i.yy, a.i.zz + b.i.zz, a.i.xy + b.i.xy, a.i.xz + b.i.xz,
           a.i.yz + b.i.yz}};
}

template <class T>
ZW_HD ZW_INLINE Wrench<T> operator+(const Wrench<T>& a, const Wrench<T>& b) {
  return {a.f + b.f, a.t + b.t};
}

template <class T, class R>
ZW_HD ZW_INLINE Inertia<T> load_inertia(R r, int j) {
  return {r[j], load3(r, j + 1), load_sym(r, j + 4)};
}

template <class T, class R>
ZW_HD ZW_INLINE void store_inertia(R r, int j, const Inertia<T>& a) {
  r[j] = a.m;
  store3(r, j + 1, a.h);
  store_sym(r, j + 4, a.i);
}

template <class T, class R>
ZW_HD ZW_INLINE Wrench<T> load_wrench(R r, int j) {
  return {load3(r, j), load3(r, j + 3)};
}

template <class T, class R>
ZW_HD ZW_INLINE void store_wrench(R r, int j, const Wrench<T>& w) {
  store3(r, j, w.f);
  store3(r, j + 3, w.t);
}

// on a lane group: each body alone, then the subtrees gathered leaves first (kernels/
// tree_order.h), then the rows of H and elements of qfrc_bias of a body's own dofs per item
template <class T, class Grp>
ZW_HD void assemble(const ModelView<T>& m, const Instance<T>& d, Grp& g) {
  const Row<T> qM = d.qM(), bias = d.qfrc_bias(), body_J = d.body_J(), xipos = d.xipos();
  const Row<T> biasacc = d.body_biasacc(), mass = d.body_mass(), iw = d.body_Iw(), n = d.body_n();
  const Row<T> crb = d.crb_inertia(), cfrc = d.crb_wrench(), armature = d.dof_armature();
  const Vec3<T> zero{T(0), T(0), T(0)};
  const Vec3<T> gravity = m.disableflags & kDisableGravity ? zero : load3(d.gravity(), 0);
  // H and the composite inertias given with the positions (ModelView::positions_given)
  const bool given = positions_given(m);

  // each body alone, about its COM:  M_k,  M_k (J̇_k q̇ − [g; 0]) + n_k
  g.each(m.s.nbody - 1, [&](int i) ZW_ITEM {
    const int b = i + 1;
    const Sym3<T> ib = load_sym(iw, 6 * b);
    if (!given) store_inertia(crb, 10 * b, Inertia<T>{mass[b], zero, ib});
    store_wrench(cfrc, 6 * b,
                 Wrench<T>{mass[b] * (load3(biasacc, 6 * b) - gravity),
                           mul(ib, load3(biasacc, 6 * b + 3)) + load3(n, 3 * b)});
  });

  // H is zero between dofs of which neither is an ancestor of the other
  g.each(given ? 0 : m.s.nM, [&](int i) ZW_ITEM { qM[i] = T(0); });

  // Ĩ_b += Ĩ_c,  F_b += F_c, moved from c_c to c_b, for b's children c in decreasing index (the
  // order of a sum over the bodies from the leaves)
  up_tree(g, m, [&](int b) ZW_ITEM {
    Inertia<T> ib = load_inertia<T>(crb, 10 * b);
    Wrench<T> fb = load_wrench<T>(cfrc, 6 * b);
    for (int k = m.child_adr[b]; k < m.child_adr[b + 1]; ++k) {
      const int c = m.child[k];
      const Vec3<T> e = load3(xipos, 3 * c) - load3(xipos, 3 * b);
      if (!given) ib = ib + moved(load_inertia<T>(crb, 10 * c), e);
      fb = fb + moved(load_wrench<T>(cfrc, 6 * c), e);
    }
    if (!given) store_inertia(crb, 10 * b, ib);
    store_wrench(cfrc, 6 * b, fb);
  });

  // body b's own dofs j end its list of ancestor dofs i:
  //   H_ij = (J_b e_i)ᵀ Ĩ_b (J_b e_j),  qfrc_bias_j = (J_b e_j)ᵀ F_b
  g.each(m.s.nbody - 1, [&](int item) ZW_ITEM {
    const int b = item + 1;
    const Inertia<T> ib = load_inertia<T>(crb, 10 * b);
    const Wrench<T> fb = load_wrench<T>(cfrc, 6 * b);
    const int adr = m.body_treeadr[b], num = m.body_treenum[b];
    for (int c = m.body_treenum[m.body_parentid[b]]; c < num; ++c) {
      const int j = m.tree_dof[adr + c];
      const Motion<T> sj = load_motion<T>(body_J, 6 * (adr + c));
      bias[j] = power(sj, fb);
      if (given) continue;
      const Wrench<T> pj = momentum(ib, sj);
      const int row = packed_index(j, 0);
      for (int r = 0; r <= c; ++r) {
        qM[row + m.tree_dof[adr + r]] = power(load_motion<T>(body_J, 6 * (adr + r)), pj);
      }
      qM[row + j] += armature[j];
    }
  });
}

template <class T>
ZW_HD void assemble(const ModelView<T>& m, const Instance<T>& d) {
  Solo g;
  assemble(m, d, g);
}

}  // namespace zwang
