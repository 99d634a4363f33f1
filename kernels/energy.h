// (qM, qvel, body_mass, xipos, gravity) => energy of one instance
//   kinetic    T = ½ q̇ᵀ H q̇         (H = qM, armature included: the rotors' kinetic energy)
//   potential  V = −Σ_k m_k g · x_k  (x_k = xipos, the COM in the world; V = 0 at the origin)
// H and x_k are outputs of forward(): the energy is that of the state of the last forward()
// (after step(), H and x_k belong to the start of the last step).  Springs are not included.
#pragma once

#include "kernels/hd.h"
#include "kernels/instance.h"
#include "kernels/math_chol.h"
#include "kernels/math_vec.h"
#include "kernels/model_view.h"

namespace zwang {

template <class T>
struct Energy {
  T kinetic;
  T potential;
};

template <class T>
ZW_HD Energy<T> instance_energy(const ModelView<T>& m, const Instance<T>& d) {
  const Row<T> qM = d.qM(), qvel = d.qvel(), mass = d.body_mass(), xipos = d.xipos();
  // ½ q̇ᵀ H q̇ = ½ Σ_r H_rr q̇_r² + Σ_{c<r} H_rc q̇_r q̇_c
  T kinetic = T(0);
  for (int r = 0; r < m.s.nv; ++r) {
    T off = T(0);
    for (int c = 0; c < r; ++c) off += qM[packed_index(r, c)] * qvel[c];
    kinetic += qvel[r] * (T(0.5) * qM[packed_index(r, r)] * qvel[r] + off);
  }
  const Vec3<T> g =
      m.disableflags & kDisableGravity ? Vec3<T>{T(0), T(0), T(0)} : load3(d.gravity(), 0);
  T potential = T(0);
  for (int b = 1; b < m.s.nbody; ++b) potential -= mass[b] * dot(g, load3(xipos, 3 * b));
  return {kinetic, potential};
}

}  // namespace zwang
