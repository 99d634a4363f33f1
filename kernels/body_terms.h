// (xmat, body_inertia, cvel) => (body_Iw, body_n)                          seed 000, seed 004
//   M_k = diag(m_k I₃, R_k I_k R_kᵀ),   n_k = [0; ω_k × (R_k I_k R_kᵀ) ω_k]
// The mass needs no work; body_Iw and body_n keep the rotational block and the torque.
#pragma once

#include "kernels/group.h"
#include "kernels/hd.h"
#include "kernels/instance.h"
#include "kernels/math_vec.h"
#include "kernels/model_view.h"

namespace zwang {

template <class T, class Grp>
ZW_HD void body_terms(const ModelView<T>& m, const Instance<T>& d, Grp& g) {
  const Row<T> xmat = d.xmat(), inertia = d.body_inertia(), cvel = d.cvel();
  const Row<T> iw = d.body_Iw(), n = d.body_n();
  g.each(m.s.nbody - 1, [&](int i) ZW_ITEM {
    const int b = i + 1;
    const bool given = positions_given(m);
    const Sym3<T> ib =
        given ? load_sym(iw, 6 * b) : rotate(load_mat(xmat, 9 * b), load_sym(inertia, 6 * b));
    const Vec3<T> w = load3(cvel, 6 * b + 3);
    if (!given) store_sym(iw, 6 * b, ib);
    store3(n, 3 * b, cross(w, mul(ib, w)));
  });
}

template <class T>
ZW_HD void body_terms(const ModelView<T>& m, const Instance<T>& d) {
  Solo g;
  body_terms(m, d, g);
}

}  // namespace zwang
