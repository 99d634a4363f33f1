// (cdof, xipos, qvel) => (cvel, cacc, body_J, body_biasacc)                seed 000, DESIGN §1
//
// Velocities are propagated as Plücker vectors at the world origin, so a child starts from
// its parent's vector unchanged:
//   V_b = V_parent + Σ_j S_j q̇_j
// A joint's axes are fixed in the frame before it (ball and free rotation axes in the frame
// after it, which gives the same product), so Ṡ_j = V_before ×ₘ S_j and the bias
// acceleration (q̈ = 0) is
//   A_b = A_parent + Σ_joints V_before ×ₘ (Σ_{j in joint} S_j q̇_j).
// At the COM c_k, in classical (point) form (stored for the bodies that have joints):
//   J_k e_j = [S_j.lin + S_j.ang × c_k; S_j.ang]
//   J̇_k q̇  = [A.lin + α × c_k + ω × v_c; α],  v_c = V.lin + ω × c_k.
#pragma once

#include "kernels/group.h"
#include "kernels/hd.h"
#include "kernels/instance.h"
#include "kernels/math_vec.h"
#include "kernels/model_view.h"
#include "kernels/tree_order.h"

namespace zwang {

// a spatial motion vector, linear part first
template <class T>
struct Motion {
  Vec3<T> lin, ang;
};

// [v; ω] ×ₘ [v'; ω'] = [ω × v' + v × ω'; ω × ω']
template <class T>
ZW_HD ZW_INLINE Motion<T> cross_motion(const Motion<T>& a, const Motion<T>& b) {
  return {cross(a.ang, b.lin) + cross(a.lin, b.ang), cross(a.ang, b.ang)};
}

template <class T, class R>
ZW_HD ZW_INLINE Motion<T> load_motion(R r, int j) {
  return {load3(r, j), load3(r, j + 3)};
}

template <class T, class R>
ZW_HD ZW_INLINE void store_motion(R r, int j, const Motion<T>& v) {
  store3(r, j, v.lin);
  store3(r, j + 3, v.ang);
}

// Σ_{i < n} S_{dof + i} q̇_{dof + i}
template <class T>
ZW_HD ZW_INLINE Motion<T> dof_velocity(Row<T> cdof, Row<T> qvel, int dof, int n) {
  Motion<T> v{{T(0), T(0), T(0)}, {T(0), T(0), T(0)}};
  for (int i = dof; i < dof + n; ++i) {
    v.lin += qvel[i] * load3(cdof, 6 * i);
    v.ang += qvel[i] * load3(cdof, 6 * i + 3);
  }
  return v;
}

// on a lane group: the velocities parents first (kernels/tree_order.h), then a body per item
template <class T, class Grp>
ZW_HD void body_jacobians(const ModelView<T>& m, const Instance<T>& d, Grp& g) {
  const Row<T> cdof = d.cdof(), qvel = d.qvel(), cvel = d.cvel(), cacc = d.cacc();
  const Row<T> xipos = d.xipos(), body_J = d.body_J(), biasacc = d.body_biasacc();

  g.one([&]() ZW_ITEM {
    const Motion<T> zero{{T(0), T(0), T(0)}, {T(0), T(0), T(0)}};
    store_motion<T>(cvel, 0, zero);
    store_motion<T>(cacc, 0, zero);
    store_motion<T>(biasacc, 0, zero);
  });

  // the velocity and bias acceleration of body b from its parent's
  down_tree(g, m, [&](int b) ZW_ITEM {
    const int p = m.body_parentid[b];
    Motion<T> v = load_motion<T>(cvel, 6 * p);
    Motion<T> a = load_motion<T>(cacc, 6 * p);

    const int jend = m.body_jntadr[b] + m.body_jntnum[b];
    for (int j = m.body_jntadr[b]; j < jend; ++j) {
      int dof = m.jnt_dofadr[j];
      int n = joint_nv(m.jnt_type[j]);
      if (m.jnt_type[j] == JointType::kFree) {
        // translation along fixed world axes first, then rotation about the moving origin
        const Motion<T> vt = dof_velocity(cdof, qvel, dof, 3);
        const Motion<T> at = cross_motion(v, vt);
        a = {a.lin + at.lin, a.ang + at.ang};
        v = {v.lin + vt.lin, v.ang + vt.ang};
        dof += 3;
        n = 3;
      }
      const Motion<T> vj = dof_velocity(cdof, qvel, dof, n);
      const Motion<T> aj = cross_motion(v, vj);
      a = {a.lin + aj.lin, a.ang + aj.ang};
      v = {v.lin + vj.lin, v.ang + vj.ang};
    }
    store_motion(cvel, 6 * b, v);
    store_motion(cacc, 6 * b, a);
  });

  // the classical bias acceleration of each body's COM, and its Jacobian columns there
  g.each(m.s.nbody - 1, [&](int item) ZW_ITEM {
    const int b = item + 1;
    const Motion<T> v = load_motion<T>(cvel, 6 * b), a = load_motion<T>(cacc, 6 * b);
    const Vec3<T> c = load3(xipos, 3 * b);
    const Vec3<T> vc = v.lin + cross(v.ang, c);
    store3(biasacc, 6 * b, a.lin + cross(a.ang, c) + cross(v.ang, vc));
    store3(biasacc, 6 * b + 3, a.ang);

    // Jacobian columns of the ancestor dofs at the COM, for the bodies that have joints: only
    // their own dofs' rows of H read them (assemble.h); a welded body's wrenches go through
    // cdof (generalized_forces.h)
    if (m.body_jntnum[b] == 0 || positions_given(m)) return;
    const int adr = m.body_treeadr[b];
    for (int t = 0; t < m.body_treenum[b]; ++t) {
      const Motion<T> s = load_motion<T>(cdof, 6 * m.tree_dof[adr + t]);
      store3(body_J, 6 * (adr + t), s.lin + cross(s.ang, c));
      store3(body_J, 6 * (adr + t) + 3, s.ang);
    }
  });
}

template <class T>
ZW_HD void body_jacobians(const ModelView<T>& m, const Instance<T>& d) {
  Solo g;
  body_jacobians(m, d, g);
}

}  // namespace zwang
