// (body_J, body_biasacc, body_mass, body_Iw, body_n, dof_armature, gravity) => (qM, qfrc_bias)
//                                                                          seed 000
//   H = Σ_k J_kᵀ M_k J_k + diag(armature)                (packed lower triangle)
//   qfrc_bias = Σ_k J_kᵀ (M_k (J̇_k q̇ − [g; 0]) + n_k)  =  h − Σ_k J_kᵀ [m_k g; 0]
// J_k is non-zero only on the ancestor dofs of k (tree_dof, increasing), so body k adds a
// dense block on those rows and columns only.  Gravity enters as the wrench [m_k g; 0] through
// the same Jacobians, which is what MuJoCo's qfrc_bias holds.
#pragma once

#include "kernels/hd.h"
#include "kernels/instance.h"
#include "kernels/math_chol.h"
#include "kernels/math_vec.h"
#include "kernels/model_view.h"

namespace zwang {

template <class T>
ZW_HD void assemble(const ModelView<T>& m, const Instance<T>& d) {
  const Row<T> qM = d.qM(), bias = d.qfrc_bias(), body_J = d.body_J();
  const Row<T> biasacc = d.body_biasacc(), mass = d.body_mass(), iw = d.body_Iw(), n = d.body_n();
  const Row<T> armature = d.dof_armature();
  const Vec3<T> g = load3(d.gravity(), 0);

  for (int i = 0; i < m.s.nM; ++i) qM[i] = T(0);
  for (int i = 0; i < m.s.nv; ++i) bias[i] = T(0);

  for (int b = 1; b < m.s.nbody; ++b) {
    const T mk = mass[b];
    const Sym3<T> ik = load_sym(iw, 6 * b);
    // M_k (J̇_k q̇ − [g; 0]) + n_k
    const Vec3<T> f = mk * (load3(biasacc, 6 * b) - g);
    const Vec3<T> t = mul(ik, load3(biasacc, 6 * b + 3)) + load3(n, 3 * b);

    const int adr = m.body_treeadr[b], num = m.body_treenum[b];
    for (int c = 0; c < num; ++c) {
      const int dc = m.tree_dof[adr + c];
      const Vec3<T> jl = load3(body_J, 6 * (adr + c)), ja = load3(body_J, 6 * (adr + c) + 3);
      bias[dc] += dot(jl, f) + dot(ja, t);
      // M_k J_k e_c, then H_rc += (J_k e_r)ᵀ M_k J_k e_c for the dofs r ≤ c
      const Vec3<T> ml = mk * jl, ma = mul(ik, ja);
      const int row = packed_index(dc, 0);
      for (int r = 0; r <= c; ++r) {
        const int dr = m.tree_dof[adr + r];
        qM[row + dr] +=
            dot(load3(body_J, 6 * (adr + r)), ml) + dot(load3(body_J, 6 * (adr + r) + 3), ma);
      }
    }
  }
  for (int i = 0; i < m.s.nv; ++i) qM[packed_index(i, i)] += armature[i];
}

}  // namespace zwang
