// (xmat, body_inertia, merged_inertia, cvel) => (body_Iw, body_n)           seed 000, seed 004
//   M_k = diag(m_k I₃, R_k I_k R_kᵀ),   n_k = [0; ω_k × (R_k I_k R_kᵀ) ω_k]
// The mass needs no work; body_Iw and body_n keep the rotational block and the torque.  A body
// with bodies merged into it takes the rotational inertia of their composite about its COM
// (kernels/merged_inertia.h); a merged body has no terms of its own.
#pragma once

#include "kernels/hd.h"
#include "kernels/instance.h"
#include "kernels/math_vec.h"
#include "kernels/model_view.h"

namespace zwang {

template <class T>
ZW_HD void body_terms(const ModelView<T>& m, const Instance<T>& d) {
  const Row<T> xmat = d.xmat(), inertia = d.body_inertia(), cvel = d.cvel();
  const Row<T> merged = d.merged_inertia(), iw = d.body_Iw(), n = d.body_n();
  for (int b = 1; b < m.s.nbody; ++b) {
    if (m.body_mergeid[b] != b) continue;
    const Sym3<T> own =
        m.body_nmerged[b] > 0 ? load_sym(merged, 10 * b + 4) : load_sym(inertia, 6 * b);
    const Sym3<T> ib = rotate(load_mat(xmat, 9 * b), own);
    const Vec3<T> w = load3(cvel, 6 * b + 3);
    store_sym(iw, 6 * b, ib);
    store3(n, 3 * b, cross(w, mul(ib, w)));
  }
}

}  // namespace zwang
