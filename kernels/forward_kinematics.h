// (qpos, mocap_pos, mocap_quat, body_ipos) => (xpos, xquat, xmat, xipos, cdof)
//                                                                           seed 004, DESIGN §1
//
// Body frames follow MuJoCo: a body starts at its parent's frame moved by (body_pos,
// body_quat), or at the instance's (mocap_pos, mocap_quat) for a mocap body, then its joints
// act in order.  A hinge rotates by q − q0 about its axis through its anchor, a slide
// translates by q − q0 along its axis, a ball rotates by its quaternion about its anchor, a
// free joint sets the frame origin and orientation.  Each dof's motion axis is kept as a
// Plücker vector at the world origin, S = [p × ω + v; ω]: a unit twist about (or along) the
// axis as it is now in the world.  Ball and free rotation axes are the body's own axes.
#pragma once

#include "kernels/group.h"
#include "kernels/hd.h"
#include "kernels/instance.h"
#include "kernels/math_vec.h"
#include "kernels/model_view.h"
#include "kernels/tree_order.h"

namespace zwang {

template <class T, class R>
ZW_HD ZW_INLINE void store_dof(R cdof, int dof, const Vec3<T>& lin, const Vec3<T>& ang) {
  store3(cdof, 6 * dof, lin);
  store3(cdof, 6 * dof + 3, ang);
}

// on a lane group: the world by one lane, then the bodies parents first (kernels/tree_order.h)
template <class T, class Grp>
ZW_HD void forward_kinematics(const ModelView<T>& m, const Instance<T>& d, Grp& g) {
  if (positions_given(m)) return;
  const Row<T> qpos = d.qpos(), xpos = d.xpos(), xquat = d.xquat(), xmat = d.xmat();
  const Row<T> xipos = d.xipos(), cdof = d.cdof(), ipos = d.body_ipos();
  const Row<T> mocap_pos = d.mocap_pos(), mocap_quat = d.mocap_quat();
  const Vec3<T> zero{T(0), T(0), T(0)};

  g.one([&]() ZW_ITEM {
    store3(xpos, 0, zero);
    store_quat(xquat, 0, Quat<T>{T(1), T(0), T(0), T(0)});
    store_mat(xmat, 0, Mat3<T>{{T(1), T(0), T(0), T(0), T(1), T(0), T(0), T(0), T(1)}});
    store3(xipos, 0, zero);
  });

  // body b from its parent: the frame, then its joints' motion and axes
  down_tree(g, m, [&](int b) ZW_ITEM {
    const int p = m.body_parentid[b], mocap = m.body_mocapid[b];
    // frame before the joints: parent frame ∘ (body_pos, body_quat); a mocap body, a child of
    // the world without joints, takes the instance's pose
    Vec3<T> pos = mocap >= 0
                      ? load3(mocap_pos, 3 * mocap)
                      : load3(xpos, 3 * p) + mul(load_mat(xmat, 9 * p), load3(m.body_pos, 3 * b));
    Quat<T> quat = mocap >= 0 ? load_quat(mocap_quat, 4 * mocap)
                              : mul(load_quat(xquat, 4 * p), load_quat(m.body_quat, 4 * b));

    const int jend = m.body_jntadr[b] + m.body_jntnum[b];
    for (int j = m.body_jntadr[b]; j < jend; ++j) {
      const int qa = m.jnt_qposadr[j], da = m.jnt_dofadr[j];
      const Vec3<T> jpos = load3(m.jnt_pos, 3 * j), jaxis = load3(m.jnt_axis, 3 * j);
      switch (m.jnt_type[j]) {
        case JointType::kFree: {
          pos = load3(qpos, qa);
          quat = normalized(load_quat(qpos, qa + 3));
          const Mat3<T> r = to_mat(quat);
          for (int i = 0; i < 3; ++i) {
            Vec3<T> e = zero;
            (i == 0 ? e.x : i == 1 ? e.y : e.z) = T(1);
            store_dof(cdof, da + i, e, zero);
            const Vec3<T> w = column(r, i);
            store_dof(cdof, da + 3 + i, cross(pos, w), w);
          }
          break;
        }
        case JointType::kBall: {
          const Vec3<T> anchor = pos + mul(to_mat(quat), jpos);
          quat = mul(quat, normalized(load_quat(qpos, qa)));
          const Mat3<T> r = to_mat(quat);
          pos = anchor - mul(r, jpos);
          for (int i = 0; i < 3; ++i) {
            const Vec3<T> w = column(r, i);
            store_dof(cdof, da + i, cross(anchor, w), w);
          }
          break;
        }
        case JointType::kHinge: {
          const Mat3<T> r = to_mat(quat);
          const Vec3<T> anchor = pos + mul(r, jpos);
          const Vec3<T> w = mul(r, jaxis);
          store_dof(cdof, da, cross(anchor, w), w);
          quat = mul(quat, axis_angle(jaxis, qpos[qa] - m.qpos0[qa]));
          pos = anchor - mul(to_mat(quat), jpos);
          break;
        }
        default: {  // slide
          const Vec3<T> w = mul(to_mat(quat), jaxis);
          store_dof(cdof, da, w, zero);
          pos += (qpos[qa] - m.qpos0[qa]) * w;
          break;
        }
      }
    }

    quat = normalized(quat);
    const Mat3<T> r = to_mat(quat);
    store3(xpos, 3 * b, pos);
    store_quat(xquat, 4 * b, quat);
    store_mat(xmat, 9 * b, r);
    store3(xipos, 3 * b, pos + mul(r, load3(ipos, 3 * b)));
  });
}

template <class T>
ZW_HD void forward_kinematics(const ModelView<T>& m, const Instance<T>& d) {
  Solo g;
  forward_kinematics(m, d, g);
}

// Points and frames fixed to bodies, from the poses above (sites, tendon path points, the
// frames of merged bodies: kernels/tendons.h, kernels/sensors.h, host/batch/derived.cc).
// x + R p: the world position of the point p, given in the frame (x, R)
template <class T>
ZW_HD ZW_INLINE Vec3<T> frame_point(const Vec3<T>& x, const Mat3<T>& r, const Vec3<T>& p) {
  return x + mul(r, p);
}

// q ⊗ q_local: the world orientation of a frame fixed at q_local in the frame q
template <class T>
ZW_HD ZW_INLINE Quat<T> frame_quat(const Quat<T>& q, const Quat<T>& local) {
  return mul(q, local);
}

// geom g's frame in the world: x_g = x_b + R_b p_g, R_g = R(q_b ⊗ q_g)
template <class T>
ZW_HD ZW_INLINE void geom_frame(const ModelView<T>& m, const Instance<T>& d, int g, Vec3<T>& x,
                                Mat3<T>& r) {
  const int b = m.geom_bodyid[g];
  const Vec3<T> local{m.geom_pos[3 * g], m.geom_pos[3 * g + 1], m.geom_pos[3 * g + 2]};
  x = frame_point(load3(d.xpos(), 3 * b), load_mat(d.xmat(), 9 * b), local);
  const Quat<T> ql{m.geom_quat[4 * g], m.geom_quat[4 * g + 1], m.geom_quat[4 * g + 2],
                   m.geom_quat[4 * g + 3]};
  r = to_mat(frame_quat(load_quat(d.xquat(), 4 * b), ql));
}

// the world position of the point p (body frame) of body b
template <class T>
ZW_HD ZW_INLINE Vec3<T> body_point(const Instance<T>& d, int b, const Vec3<T>& local) {
  return frame_point(load3(d.xpos(), 3 * b), load_mat(d.xmat(), 9 * b), local);
}

// the world position of site s
template <class T>
ZW_HD ZW_INLINE Vec3<T> site_xpos(const ModelView<T>& m, const Instance<T>& d, int s) {
  return body_point(d, m.site_bodyid[s], load3(m.site_pos, 3 * s));
}

// the world orientation of site s
template <class T>
ZW_HD ZW_INLINE Quat<T> site_xquat(const ModelView<T>& m, const Instance<T>& d, int s) {
  return frame_quat(load_quat(d.xquat(), 4 * m.site_bodyid[s]), load_quat(m.site_quat, 4 * s));
}

}  // namespace zwang
