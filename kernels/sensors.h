// (qpos, qvel, qacc, time, xpos, xquat, xmat, xipos, cdof, cvel, cacc, body_Iw, body_n,
//  subtree_com, cfrc_ext, geom_xpos, geom_xmat, actuator_force, the joint limits' rows) =>
//  sensordata
//
// MuJoCo's sensors (mj_sensorPos, mj_sensorVel, mj_sensorAcc) at the state the evaluation's
// other outputs describe.  A point p fixed to body b moves with the body's Plücker vectors at
// the world origin (kernels/body_jacobians.h):
//   ω = V_b.ang,   v_p = V_b.lin + ω × p
//   A_b = cacc_b + Σ_{ancestor dofs j} S_j q̈_j + [−g; 0]      (MuJoCo's world moves at −g)
//   α = A_b.ang,   a_p = A_b.lin + α × p + ω × v_p
// so accelerometers and framelinacc measure a_p − g, as MuJoCo's do.  Site sensors give their
// vectors in the site frame R: accelerometer Rᵀ a_p, velocimeter Rᵀ v_p, gyro Rᵀ ω,
// magnetometer Rᵀ B.  Relative to a reference frame (position r, rotation R_r, ω_r, v_r):
//   framepos R_rᵀ (p − r),  framequat q_r⁻¹ q,  frame axes R_rᵀ e,
//   frameangvel R_rᵀ (ω − ω_r),  framelinvel R_rᵀ (v_p − v_r + (p − r) × ω_r).
// Sums over subtrees (mj_subtreeVel, mj_rnePostConstraint's cfrc_int), with x_k, v_k, a_k the
// centre of mass of body k, its velocity and acceleration (as above), c_k its subtree's COM:
//   subtreelinvel  v̄_b = Σ m_k v_k / Σ m_k over the subtree of b
//   subtreeangmom  L_b = Σ I_k ω_k + (x_k − c_k) × m_k (v_k − v̄_k), gathered leaves first, each
//                  child adding (c_k − c_b) × M_k (v̄_k − v̄_b)
//   cfrc_int_b     Σ_{k in subtree b} [I_k α_k + ω_k × I_k ω_k + (x_k − o) × f_k; f_k] −
//   cfrc_ext_k,
//                  f_k = m_k a_k, about the COM o of the body's tree (what the parent exerts)
//   force, torque  R ᵀ f and Rᵀ (τ − (p − o) × f) of cfrc_int at the site
// rangefinder  the distance along the site's z axis to the nearest visible geom of another body
// touch        Σ f_n over the contacts of the site's body with f_n > 0 whose normal ray from the
//              contact point (n, or −n where the body is the second geom's) meets the site's zone
// Limit sensors read the first active limit row of the joint (lower before upper): its distance
// minus margin, J q̇, its force; 0 without an active row.  cutoff > 0 clamps real values to
// [−cutoff, cutoff] and positive ones to cutoff above.  User sensors are left as they are.
#pragma once

#include "kernels/body_jacobians.h"
#include "kernels/constraint_rows.h"
#include "kernels/generalized_forces.h"
#include "kernels/hd.h"
#include "kernels/instance.h"
#include "kernels/math_vec.h"
#include "kernels/model_view.h"
#include "kernels/ray.h"

namespace zwang {

// a sensed frame in the world: its origin, its orientation (for ObjType::kBody the body frame's,
// never read: the builder refuses the orientation of a body's principal axes) and its body
template <class T>
struct SensedFrame {
  Vec3<T> pos;
  Mat3<T> rot;
  int body;
};

template <class T>
ZW_HD ZW_INLINE Quat<T> sensed_quat(const ModelView<T>& m, const Instance<T>& d, int type, int id) {
  switch (type) {
    case ObjType::kGeom:
      return mul(load_quat(d.xquat(), 4 * m.geom_bodyid[id]), load_quat(m.geom_quat, 4 * id));
    case ObjType::kSite:
      return site_xquat(m, d, id);
    default:
      return load_quat(d.xquat(), 4 * id);
  }
}

template <class T>
ZW_HD ZW_INLINE SensedFrame<T> sensed_frame(const ModelView<T>& m, const Instance<T>& d, int type,
                                            int id) {
  switch (type) {
    case ObjType::kBody:
      return {load3(d.xipos(), 3 * id), load_mat(d.xmat(), 9 * id), id};
    case ObjType::kGeom:
      return {load3(d.geom_xpos(), 3 * id), load_mat(d.geom_xmat(), 9 * id), m.geom_bodyid[id]};
    case ObjType::kSite: {
      const int b = m.site_bodyid[id];
      return {site_xpos(m, d, id), to_mat(site_xquat(m, d, id)), b};
    }
    default:
      return {load3(d.xpos(), 3 * id), load_mat(d.xmat(), 9 * id), id};
  }
}

// ω of body b and the velocity of its point p
template <class T>
ZW_HD ZW_INLINE Motion<T> sensed_velocity(const Instance<T>& d, int b, const Vec3<T>& p) {
  const Row<T> cvel = d.cvel();
  const Vec3<T> w = load3(cvel, 6 * b + 3);
  return {load3(cvel, 6 * b) + cross(w, p), w};
}

// A_b = cacc_b + Σ_j S_j q̈_j + [−g; 0], Plücker at the world origin
template <class T>
ZW_HD ZW_INLINE Motion<T> body_acceleration(const ModelView<T>& m, const Instance<T>& d, int b) {
  const Row<T> cdof = d.cdof(), qacc = d.qacc();
  Motion<T> a = load_motion<T>(d.cacc(), 6 * b);
  const int adr = m.body_treeadr[b];
  for (int k = 0; k < m.body_treenum[b]; ++k) {
    const int dof = m.tree_dof[adr + k];
    a.lin += qacc[dof] * load3(cdof, 6 * dof);
    a.ang += qacc[dof] * load3(cdof, 6 * dof + 3);
  }
  // the world's acceleration is −g, unless gravity is off (MuJoCo's mj_rnePostConstraint)
  if (!(m.disableflags & kDisableGravity)) a.lin += -load3(d.gravity(), 0);
  return a;
}

// a_p of body b's point p moving at v (classical: the spatial acceleration plus ω × v_p)
template <class T>
ZW_HD ZW_INLINE Vec3<T> point_acceleration(const Motion<T>& a, const Motion<T>& v,
                                           const Vec3<T>& p) {
  return a.lin + cross(a.ang, p) + cross(v.ang, v.lin);
}

// 1 / max(1e-15, x): MuJoCo's guard of a mass in a denominator
template <class T>
ZW_HD ZW_INLINE T guarded_inverse(T x) {
  const T floor = T(1e-15);
  return T(1) / vselect(x < floor, floor, x);
}

// subtree_mass, subtree_linvel, subtree_angmom of every body (mj_subtreeVel)
template <class T>
ZW_HD void subtree_velocities(const ModelView<T>& m, const Instance<T>& d) {
  const int nb = m.s.nbody;
  const Row<T> mass = d.body_mass(), xipos = d.xipos(), iw = d.body_Iw(), com = d.subtree_com();
  const Row<T> sm = d.subtree_mass(), lin = d.subtree_linvel(), ang = d.subtree_angmom();
  const Vec3<T> zero{T(0), T(0), T(0)};
  // each body's momentum and angular momentum about its COM (the world: none)
  for (int b = 0; b < nb; ++b) {
    const Motion<T> v = sensed_velocity(d, b, load3(xipos, 3 * b));
    sm[b] = mass[b];
    store3(lin, 3 * b, mass[b] * v.lin);
    store3(ang, 3 * b, b == 0 ? zero : mul(load_sym(iw, 6 * b), v.ang));
  }
  // v̄_b = Σ m_k v_k / M_b, children first
  for (int b = nb - 1; b >= 0; --b) {
    if (b > 0) {
      const int p = m.body_parentid[b];
      store3(lin, 3 * p, load3(lin, 3 * p) + load3(lin, 3 * b));
      sm[p] += sm[b];
    }
    store3(lin, 3 * b, guarded_inverse(sm[b]) * load3(lin, 3 * b));
  }
  // L_b += (x_b − c_b) × m_b (v_b − v̄_b); the parent gets L_b + (c_b − c_p) × M_b (v̄_b − v̄_p)
  for (int b = nb - 1; b > 0; --b) {
    const int p = m.body_parentid[b];
    const Vec3<T> x = load3(xipos, 3 * b), c = load3(com, 3 * b), vbar = load3(lin, 3 * b);
    const Motion<T> v = sensed_velocity(d, b, x);
    const Vec3<T> own = load3(ang, 3 * b) + cross(x - c, mass[b] * (v.lin - vbar));
    store3(ang, 3 * b, own);
    store3(
        ang, 3 * p,
        load3(ang, 3 * p) + own + cross(c - load3(com, 3 * p), sm[b] * (vbar - load3(lin, 3 * p))));
  }
}

// cfrc_int of every body: what its parent exerts on its subtree, (torque, force) about the
// centre of mass of its tree (mj_rnePostConstraint)
template <class T>
ZW_HD void interaction_forces(const ModelView<T>& m, const Instance<T>& d) {
  const int nb = m.s.nbody;
  const Row<T> mass = d.body_mass(), xipos = d.xipos(), iw = d.body_Iw(), com = d.subtree_com();
  const Row<T> ext = d.cfrc_ext(), cfrc = d.cfrc_int();
  const Vec3<T> zero{T(0), T(0), T(0)};
  store3(cfrc, 0, zero);
  store3(cfrc, 3, zero);
  for (int b = 1; b < nb; ++b) {
    int root = b;
    while (m.body_parentid[root] > 0) root = m.body_parentid[root];
    const Vec3<T> x = load3(xipos, 3 * b);
    const Motion<T> v = sensed_velocity(d, b, x);
    const Motion<T> a = body_acceleration(m, d, b);
    const Vec3<T> f = mass[b] * point_acceleration(a, v, x);
    const Sym3<T> inertia = load_sym(iw, 6 * b);
    const Vec3<T> tau =
        mul(inertia, a.ang) + load3(d.body_n(), 3 * b) + cross(x - load3(com, 3 * root), f);
    store3(cfrc, 6 * b, tau - load3(ext, 6 * b));
    store3(cfrc, 6 * b + 3, f - load3(ext, 6 * b + 3));
  }
  for (int b = nb - 1; b > 0; --b) {
    const int p = m.body_parentid[b];
    store3(cfrc, 6 * p, load3(cfrc, 6 * p) + load3(cfrc, 6 * b));
    store3(cfrc, 6 * p + 3, load3(cfrc, 6 * p + 3) + load3(cfrc, 6 * b + 3));
  }
}

// a joint or tendon limit sensor: `type` picks distance − margin, J q̇ or the force of the
// first active row of the `rows` from slot r (lower before upper), 0 without one
template <class T>
ZW_HD ZW_INLINE T limit_value(const ModelView<T>& m, const Instance<T>& d, int r, int rows,
                              T margin, int type) {
  if (r < 0) return T(0);
  const Row<T> pos = d.efc_pos(), force = d.efc_force(), qvel = d.qvel();
  T value = T(0);
  // the upper row first, so that an active lower one overrides it
  for (int k = rows - 1; k >= 0; --k) {
    T v = force[r + k];
    if (type == SensorType::kJointLimitPos || type == SensorType::kTendonLimitPos)
      v = pos[r + k] - margin;
    if (type == SensorType::kJointLimitVel || type == SensorType::kTendonLimitVel) {
      const Row<T> jac = d.efc_J() + (r + k) * m.s.nv;
      v = T(0);
      for (int i = 0; i < m.s.nv; ++i) v += jac[i] * qvel[i];
    }
    value = vselect(pos[r + k] < margin, v, value);
  }
  return value;
}

// a touch sensor at `site` (its zone a sphere, capsule, ellipsoid, cylinder or box)
template <class T>
ZW_HD T touch_value(const ModelView<T>& m, const Instance<T>& d, int site) {
  if constexpr (!kOneLane<T>) {
    // a pack evaluates its sensors only without constraint rows, so without contacts
    return T(0);
  } else {
    const int b = m.site_bodyid[site];
    const SensedFrame<T> zone = sensed_frame(m, d, ObjType::kSite, site);
    const Vec3<T> size = load3(m.site_size, 3 * site);
    const Row<T> geom = d.contact_geom(), frame = d.contact_frame(), pos = d.contact_pos();
    const Row<T> force = d.contact_force();
    const int ncon = static_cast<int>(d.ncon()[0]);
    T sum = T(0);
    for (int c = 0; c < ncon && c < m.s.nconmax; ++c) {
      const int b1 = m.geom_bodyid[static_cast<int>(geom[2 * c])];
      const int b2 = m.geom_bodyid[static_cast<int>(geom[2 * c + 1])];
      const T fn = force[6 * c];
      if ((b != b1 && b != b2) || !(fn > T(0))) continue;
      const Vec3<T> n = load3(frame, 9 * c);
      const Vec3<T> ray = (b == b2 ? T(-1) : T(1)) / norm(n) * n;
      if (ray_shape(m.site_type[site], zone.pos, zone.rot, size, load3(pos, 3 * c), ray) >= T(0))
        sum += fn;
    }
    return sum;
  }
}

// a rangefinder at `site`: the distance along the site's z axis to the nearest visible geom of
// another body, −1 when the ray meets none (MuJoCo's mj_ray with every geom group and the static
// geoms); a mesh geom as its convex hull
template <class T>
ZW_HD T rangefinder_value(const ModelView<T>& m, const Instance<T>& d, int site) {
  const SensedFrame<T> f = sensed_frame(m, d, ObjType::kSite, site);
  const Vec3<T> v = column(f.rot, 2);
  const Row<T> xpos = d.geom_xpos(), xmat = d.geom_xmat();
  T best = T(-1);
  for (int g = 0; g < m.s.ngeom; ++g) {
    if (m.geom_bodyid[g] == f.body || !m.geom_visible[g]) continue;
    const int type = m.geom_type[g], id = m.geom_dataid[g];
    const Vec3<T> c = load3(xpos, 3 * g);
    const Mat3<T> r = load_mat(xmat, 9 * g);
    T x = T(-1);
    if (type == GeomType::kHfield) {
      x = ray_hfield(m.hfield_data + m.hfield_adr[id], m.hfield_nrow[id], m.hfield_ncol[id],
                     m.hfield_size + 4 * id, mul_transposed(r, f.pos - c), mul_transposed(r, v));
    } else if (type == GeomType::kMesh) {
      x = ray_mesh(m.mesh_vert + 3 * m.mesh_vertadr[id], m.mesh_facenum[id],
                   m.mesh_face + 3 * m.mesh_faceadr[id], mul_transposed(r, f.pos - c),
                   mul_transposed(r, v));
    } else {
      x = ray_shape(type, c, r, load3(m.geom_size, 3 * g), f.pos, v);
    }
    best = ray_nearer(best, x, x >= T(0));
  }
  return best;
}

// the values of sensor i into out
template <class T>
ZW_HD void sensor_values(const ModelView<T>& m, const Instance<T>& d, int i, Row<T> out) {
  const int type = m.sensor_type[i], id = m.sensor_objid[i];
  const int objtype = m.sensor_objtype[i], reftype = m.sensor_reftype[i];
  const int refid = m.sensor_refid[i];
  const Row<T> qpos = d.qpos(), qvel = d.qvel();
  switch (type) {
    case SensorType::kTouch:
      out[0] = touch_value(m, d, id);
      break;
    case SensorType::kRangefinder:
      out[0] = rangefinder_value(m, d, id);
      break;
    case SensorType::kAccelerometer:
    case SensorType::kVelocimeter:
    case SensorType::kGyro:
    case SensorType::kMagnetometer: {
      const SensedFrame<T> f = sensed_frame(m, d, ObjType::kSite, id);
      const Motion<T> v = sensed_velocity(d, f.body, f.pos);
      Vec3<T> w = load3(m.magnetic, 0);
      if (type == SensorType::kGyro) w = v.ang;
      if (type == SensorType::kVelocimeter) w = v.lin;
      if (type == SensorType::kAccelerometer)
        w = point_acceleration(body_acceleration(m, d, f.body), v, f.pos);
      store3(out, 0, mul_transposed(f.rot, w));
      break;
    }
    case SensorType::kForce:
    case SensorType::kTorque: {
      const SensedFrame<T> f = sensed_frame(m, d, ObjType::kSite, id);
      int root = f.body;
      while (m.body_parentid[root] > 0) root = m.body_parentid[root];
      const Row<T> cfrc = d.cfrc_int();
      const Vec3<T> force = load3(cfrc, 6 * f.body + 3);
      const Vec3<T> w =
          type == SensorType::kForce
              ? force
              : load3(cfrc, 6 * f.body) - cross(f.pos - load3(d.subtree_com(), 3 * root), force);
      store3(out, 0, mul_transposed(f.rot, w));
      break;
    }
    case SensorType::kJointPos:
      out[0] = qpos[m.jnt_qposadr[id]];
      break;
    case SensorType::kJointVel:
      out[0] = qvel[m.jnt_dofadr[id]];
      break;
    case SensorType::kTendonPos:
      out[0] = d.ten_length()[id];
      break;
    case SensorType::kTendonVel:
      out[0] = d.ten_velocity()[id];
      break;
    case SensorType::kActuatorPos:
      out[0] = actuator_length(m, d, id);
      break;
    case SensorType::kActuatorVel:
      out[0] = actuator_velocity(m, d, id);
      break;
    case SensorType::kActuatorFrc:
      out[0] = d.actuator_force()[id];
      break;
    case SensorType::kBallQuat:
      for (int k = 0; k < 4; ++k) out[k] = qpos[m.jnt_qposadr[id] + k];
      break;
    case SensorType::kBallAngVel:
      for (int k = 0; k < 3; ++k) out[k] = qvel[m.jnt_dofadr[id] + k];
      break;
    case SensorType::kJointLimitPos:
    case SensorType::kJointLimitVel:
    case SensorType::kJointLimitFrc:
      out[0] = limit_value(m, d, m.jnt_efcadr[id], m.jnt_type[id] == JointType::kBall ? 1 : 2,
                           T(m.jnt_margin[id]), type);
      break;
    case SensorType::kTendonLimitPos:
    case SensorType::kTendonLimitVel:
    case SensorType::kTendonLimitFrc:
      out[0] = limit_value(m, d, m.ten_efcadr[id], 2, T(m.tendon_margin[id]), type);
      break;
    case SensorType::kFramePos:
    case SensorType::kFrameXAxis:
    case SensorType::kFrameYAxis:
    case SensorType::kFrameZAxis: {
      const SensedFrame<T> f = sensed_frame(m, d, objtype, id);
      Vec3<T> w =
          type == SensorType::kFramePos ? f.pos : column(f.rot, type - SensorType::kFrameXAxis);
      if (refid >= 0) {
        const SensedFrame<T> r = sensed_frame(m, d, reftype, refid);
        w = mul_transposed(r.rot, type == SensorType::kFramePos ? w - r.pos : w);
      }
      store3(out, 0, w);
      break;
    }
    case SensorType::kFrameQuat: {
      Quat<T> q = sensed_quat(m, d, objtype, id);
      if (refid >= 0) q = mul(conj(sensed_quat(m, d, reftype, refid)), q);
      store_quat(out, 0, q);
      break;
    }
    case SensorType::kFrameLinVel:
    case SensorType::kFrameAngVel: {
      const SensedFrame<T> f = sensed_frame(m, d, objtype, id);
      const Motion<T> v = sensed_velocity(d, f.body, f.pos);
      Vec3<T> w = type == SensorType::kFrameLinVel ? v.lin : v.ang;
      if (refid >= 0) {
        const SensedFrame<T> r = sensed_frame(m, d, reftype, refid);
        const Motion<T> vr = sensed_velocity(d, r.body, r.pos);
        w = type == SensorType::kFrameLinVel ? v.lin - vr.lin + cross(f.pos - r.pos, vr.ang)
                                             : v.ang - vr.ang;
        w = mul_transposed(r.rot, w);
      }
      store3(out, 0, w);
      break;
    }
    case SensorType::kFrameLinAcc:
    case SensorType::kFrameAngAcc: {
      const SensedFrame<T> f = sensed_frame(m, d, objtype, id);
      const Motion<T> a = body_acceleration(m, d, f.body);
      store3(out, 0,
             type == SensorType::kFrameAngAcc
                 ? a.ang
                 : point_acceleration(a, sensed_velocity(d, f.body, f.pos), f.pos));
      break;
    }
    case SensorType::kSubtreeCom:
      store3(out, 0, load3(d.subtree_com(), 3 * id));
      break;
    case SensorType::kSubtreeLinVel:
      store3(out, 0, load3(d.subtree_linvel(), 3 * id));
      break;
    case SensorType::kSubtreeAngMom:
      store3(out, 0, load3(d.subtree_angmom(), 3 * id));
      break;
    case SensorType::kClock:
      out[0] = Lanes<T>::time(d.time);
      break;
    default:  // user sensors: the user's values
      break;
  }
}

// every sensor of the model, after the outputs of an evaluation (q̈, subtree_com, cfrc_ext)
template <class T>
ZW_HD ZW_NOINLINE void sensors(const ModelView<T>& m, const Instance<T>& d) {
  // MuJoCo's flag leaves sensordata as it was
  if (m.disableflags & kDisableSensor) return;
  bool subtree = false, interaction = false;
  for (int i = 0; i < m.s.nsensor; ++i) {
    const int type = m.sensor_type[i];
    subtree = subtree || type == SensorType::kSubtreeLinVel || type == SensorType::kSubtreeAngMom;
    interaction = interaction || type == SensorType::kForce || type == SensorType::kTorque;
  }
  if (subtree) subtree_velocities(m, d);
  if (interaction) interaction_forces(m, d);
  for (int i = 0; i < m.s.nsensor; ++i) {
    const Row<T> out = d.sensordata() + m.sensor_adr[i];
    sensor_values(m, d, i, out);
    const int datatype = m.sensor_datatype[i];
    if (datatype != SensorDataType::kReal && datatype != SensorDataType::kPositive) continue;
    // cutoff: a per-sensor constant, 0 for none
    const T c = m.sensor_cutoff[i];
    const MaskOf<T> on = c > T(0);
    for (int k = 0; k < m.sensor_dim[i]; ++k) {
      const T x = out[k];
      out[k] = datatype == SensorDataType::kReal ? vselect(on, vclamp(x, -c, c), x)
                                                 : vselect(on && c < x, c, x);
    }
  }
}

}  // namespace zwang
