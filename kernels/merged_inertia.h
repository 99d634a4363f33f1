// (body_mass, body_ipos, body_inertia) => (merged_inertia)                  seed 000, DESIGN §1
//
// A body without joints moves as its nearest ancestor with joints a does (kernels/model_view.h,
// ZW_MERGE_INTS), so its terms of Σ_k J_kᵀ M_k J_k and of h join a's as one rigid body: with w
// at (p_w, R_w) in a's frame and its COM c_w = p_w + R_w c'_w there, the composite about a's
// COM c_a, in a's frame,
//   Ĩ_a = M_a + Σ_w M_w (R_w I_w R_wᵀ) moved from c_w to c_a   (mass, first moment, inertia).
// The masses are per-instance parameters, so this runs where they are checked: once per call
// of the SIMD CPU backend, once per step elsewhere.
#pragma once

#include "kernels/assemble.h"
#include "kernels/hd.h"
#include "kernels/instance.h"
#include "kernels/math_vec.h"
#include "kernels/model_view.h"

namespace zwang {

template <class T>
ZW_HD void merged_inertias(const ModelView<T>& m, const Instance<T>& d) {
  const Row<T> mass = d.body_mass(), ipos = d.body_ipos(), inertia = d.body_inertia();
  const Row<T> merged = d.merged_inertia();
  const Vec3<T> zero{T(0), T(0), T(0)};
  for (int b = 1; b < m.s.nbody; ++b) {
    if (m.body_nmerged[b] > 0) {
      store_inertia(merged, 10 * b, Inertia<T>{mass[b], zero, load_sym(inertia, 6 * b)});
    }
  }
  // a merged body comes after the body it is merged into
  for (int b = 1; b < m.s.nbody; ++b) {
    const int a = m.body_mergeid[b];
    if (a == b || a == 0) continue;
    const Mat3<T> r = to_mat(load_quat(m.body_mergequat, 4 * b));
    const Vec3<T> e =
        load3(m.body_mergepos, 3 * b) + mul(r, load3(ipos, 3 * b)) - load3(ipos, 3 * a);
    const Inertia<T> w{mass[b], zero, rotate(r, load_sym(inertia, 6 * b))};
    store_inertia(merged, 10 * a, load_inertia<T>(merged, 10 * a) + moved(w, e));
  }
}

}  // namespace zwang
