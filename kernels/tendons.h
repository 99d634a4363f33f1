// (qpos, qvel, xpos, xmat, cdof) => (ten_length, ten_J, ten_velocity)
//
// Tendon lengths and their moments ∂L/∂q in dof space (MuJoCo's mj_tendon), dense rows:
//   fixed:    L = Σ_i c_i q_i,                 J = Σ_i c_i e_(dof i)
//   spatial:  L = Σ_s |p_(s+1) − p_s| / d_s,   J = Σ_s (J_(p_(s+1)) − J_(p_s))ᵀ u_s / d_s
// for consecutive sites s, s + 1 of the path, u_s the unit vector from p_s to p_(s+1) (e_x
// where the sites coincide, as MuJoCo) and d_s the divisor of the last pulley before the
// segment (1 before any); a pulley ends a segment.  The point Jacobian of a site p on body b
// is Σ_(dof of b's tree) (S.lin + S.ang × p) (cdof, Plücker at the world origin).
// A sphere or cylinder between sites s and s + 1 that the segment wraps around
// (kernels/tendon_wrap.h: tangent points a, b, arc ℓ) makes it p_s → a → b → p_(s+1):
//   L += (|a − p_s| + ℓ + |p_(s+1) − b|) / d_s
//   J += ((J_a − J_(p_s))ᵀ u_a + (J_(p_(s+1)) − J_b)ᵀ u_b) / d_s
// with a and b moving with the geom's body: the tangent points slide along the surface, which
// changes L only to second order (ℓ's own motion with the body adds nothing either).
//   L̇ = J q̇
// Actuators read their transmission here: length gear·q or gear·L, velocity gear·q̇ or gear·L̇.
#pragma once

#include "kernels/forward_kinematics.h"
#include "kernels/hd.h"
#include "kernels/instance.h"
#include "kernels/math_vec.h"
#include "kernels/model_view.h"
#include "kernels/tendon_wrap.h"

namespace zwang {

// row += s (linear Jacobian of the world point p moving with body b)ᵀ u
template <class T>
ZW_HD ZW_INLINE void add_site_moment(const ModelView<T>& m, const Instance<T>& d, Row<T> row, int b,
                                     const Vec3<T>& p, const Vec3<T>& u) {
  const Row<T> cdof = d.cdof();
  const int adr = m.body_treeadr[b];
  for (int k = 0; k < m.body_treenum[b]; ++k) {
    const int dof = m.tree_dof[adr + k];
    const Vec3<T> lin = load3(cdof, 6 * dof) + cross(load3(cdof, 6 * dof + 3), p);
    row[dof] += dot(lin, u);
  }
}

template <class T>
ZW_HD void tendons(const ModelView<T>& m, const Instance<T>& d) {
  const int nv = m.s.nv;
  const Row<T> qpos = d.qpos(), qvel = d.qvel();
  const Row<T> length = d.ten_length(), velocity = d.ten_velocity();
  for (int t = 0; t < m.s.ntendon; ++t) {
    const Row<T> jac = d.ten_J() + t * nv;
    for (int i = 0; i < nv; ++i) jac[i] = T(0);
    T len = T(0);
    T divisor = T(1);
    const int end = m.tendon_adr[t] + m.tendon_num[t];
    for (int w = m.tendon_adr[t]; w < end; ++w) {
      const int type = m.wrap_type[w], id = m.wrap_objid[w];
      if (type == WrapType::kJoint) {
        // L += c q, J[dof] += c
        const T c = m.wrap_prm[w];
        len += c * qpos[m.jnt_qposadr[id]];
        jac[m.jnt_dofadr[id]] += c;
      } else if (type == WrapType::kPulley) {
        divisor = m.wrap_prm[w];
      } else if (type == WrapType::kSite && w + 1 < end && m.wrap_type[w + 1] == WrapType::kSite) {
        // segment from site id to the next: L += |Δp| / d, J += (J₁ − J₀)ᵀ u / d
        const int next = m.wrap_objid[w + 1];
        const Vec3<T> p0 = site_xpos(m, d, id), p1 = site_xpos(m, d, next);
        T dist;
        const Vec3<T> u = unit_or_x(p1 - p0, dist);
        const T scale = T(1) / divisor;
        len += dist * scale;
        add_site_moment(m, d, jac, m.site_bodyid[next], p1, scale * u);
        add_site_moment(m, d, jac, m.site_bodyid[id], p0, (-scale) * u);
      } else if (type == WrapType::kSite && w + 2 < end &&
                 (m.wrap_type[w + 1] == WrapType::kSphere ||
                  m.wrap_type[w + 1] == WrapType::kCylinder)) {
        // site id, a sphere or cylinder, the next site: around it where it is in the way
        const int g = m.wrap_objid[w + 1], side = m.wrap_sideid[w + 1];
        const int next = m.wrap_objid[w + 2];
        const Vec3<T> p0 = site_xpos(m, d, id), p1 = site_xpos(m, d, next);
        Vec3<T> centre;
        Mat3<T> rot;
        geom_frame(m, d, g, centre, rot);
        const Vec3<T> side_pos = side >= 0 ? site_xpos(m, d, side) : p0;
        const wrap::Wrapped<T> wr = wrap::wrap_geom(
            p0, p1, centre, rot, T(m.geom_size[3 * g]), m.wrap_type[w + 1] == WrapType::kCylinder,
            side >= 0, side_pos, m.wrap_rules == WrapRules::kMujoco2);
        T dist, dist_a, dist_b;
        const Vec3<T> u = unit_or_x(p1 - p0, dist);
        const Vec3<T> ua = unit_or_x(wr.a - p0, dist_a), ub = unit_or_x(p1 - wr.b, dist_b);
        const T scale = T(1) / divisor;
        len += vselect(wr.wraps, dist_a + wr.length + dist_b, dist) * scale;
        const Vec3<T> zero{T(0), T(0), T(0)};
        add_site_moment(m, d, jac, m.site_bodyid[next], p1, scale * vselect(wr.wraps, ub, u));
        add_site_moment(m, d, jac, m.site_bodyid[id], p0, (-scale) * vselect(wr.wraps, ua, u));
        // (the points of a lane without a wrap replaced: nothing unselected reaches J)
        const int body = m.geom_bodyid[g];
        add_site_moment(m, d, jac, body, vselect(wr.wraps, wr.a, p0),
                        scale * vselect(wr.wraps, ua, zero));
        add_site_moment(m, d, jac, body, vselect(wr.wraps, wr.b, p1),
                        (-scale) * vselect(wr.wraps, ub, zero));
      }
    }
    length[t] = len;
    T v = T(0);
    for (int i = 0; i < nv; ++i) v += jac[i] * qvel[i];
    velocity[t] = v;
  }
}

// length of actuator a's transmission: gear q (joint) or gear L (tendon)
template <class T>
ZW_HD ZW_INLINE T actuator_length(const ModelView<T>& m, const Instance<T>& d, int a) {
  const int id = m.actuator_trnid[a];
  const T x = m.actuator_trntype[a] == TransmissionType::kTendon ? d.ten_length()[id]
                                                                 : d.qpos()[m.jnt_qposadr[id]];
  return d.actuator_gear()[a] * x;
}

// its rate: gear q̇ or gear L̇
template <class T>
ZW_HD ZW_INLINE T actuator_velocity(const ModelView<T>& m, const Instance<T>& d, int a) {
  const int id = m.actuator_trnid[a];
  const T x = m.actuator_trntype[a] == TransmissionType::kTendon ? d.ten_velocity()[id]
                                                                 : d.qvel()[m.jnt_dofadr[id]];
  return d.actuator_gear()[a] * x;
}

}  // namespace zwang
