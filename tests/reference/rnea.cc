#include "reference/rnea.h"

#include <Eigen/Geometry>
#include <algorithm>

namespace zwang::reference {
namespace {

Eigen::Matrix3d skew(const Eigen::Vector3d& v) {
  Eigen::Matrix3d s;
  s << 0, -v.z(), v.y(), v.z(), 0, -v.x(), -v.y(), v.x(), 0;
  return s;
}

// Plücker transform of motion vectors into a frame at r (old coordinates) with axes E (new = E old)
Mat6 plucker(const Eigen::Matrix3d& e, const Eigen::Vector3d& r) {
  Mat6 x = Mat6::Zero();
  x.topLeftCorner<3, 3>() = e;
  x.bottomRightCorner<3, 3>() = e;
  x.bottomLeftCorner<3, 3>() = -e * skew(r);
  return x;
}

// v ×ₘ
Mat6 crm(const Vec6& v) {
  Mat6 c = Mat6::Zero();
  c.topLeftCorner<3, 3>() = skew(v.head<3>());
  c.bottomRightCorner<3, 3>() = skew(v.head<3>());
  c.bottomLeftCorner<3, 3>() = skew(v.tail<3>());
  return c;
}

// v ×*
Mat6 crf(const Vec6& v) {
  return -crm(v).transpose();
}

Eigen::Vector3d vec3(const std::vector<double>& v, int i) {
  return {v[3 * i], v[3 * i + 1], v[3 * i + 2]};
}

Eigen::Quaterniond quat(const double* q) {
  return Eigen::Quaterniond(q[0], q[1], q[2], q[3]).normalized();
}

// the joint's motion: frame after it seen from the frame before (axes E, origin r), its motion
// subspace S and bias c_J = Ṡ q̇ in the frame after it
struct JointMotion {
  Eigen::Matrix3d e;
  Eigen::Vector3d r;
  Eigen::MatrixXd s;
  Vec6 c = Vec6::Zero();
};

JointMotion joint_motion(const Model& m, int j, const Eigen::VectorXd& q,
                         const Eigen::VectorXd& qd) {
  const int qa = m.jnt_qposadr[j], da = m.jnt_dofadr[j];
  const Eigen::Vector3d p = vec3(m.jnt_pos, j), axis = vec3(m.jnt_axis, j);
  JointMotion out;
  switch (m.jnt_type[j]) {
    case JointType::kHinge: {
      const Eigen::Matrix3d rot = Eigen::AngleAxisd(q[qa] - m.qpos0[qa], axis).toRotationMatrix();
      out.e = rot.transpose();
      out.r = p - rot * p;
      out.s = Eigen::MatrixXd(6, 1);
      out.s << axis, p.cross(axis);
      break;
    }
    case JointType::kSlide:
      out.e.setIdentity();
      out.r = axis * (q[qa] - m.qpos0[qa]);
      out.s = Eigen::MatrixXd(6, 1);
      out.s << Eigen::Vector3d::Zero(), axis;
      break;
    case JointType::kBall: {
      const Eigen::Matrix3d rot = quat(q.data() + qa).toRotationMatrix();
      out.e = rot.transpose();
      out.r = p - rot * p;
      out.s = Eigen::MatrixXd::Zero(6, 3);
      out.s.topRows<3>().setIdentity();
      out.s.bottomRows<3>() = skew(p);
      break;
    }
    case JointType::kFree: {
      // q̇ = (ṗ in the world, ω in the body): v_origin (body) = Rᵀ ṗ
      const Eigen::Matrix3d rot = quat(q.data() + qa + 3).toRotationMatrix();
      out.e = rot.transpose();
      out.r = q.segment<3>(qa);
      out.s = Eigen::MatrixXd::Zero(6, 6);
      out.s.block<3, 3>(0, 3).setIdentity();
      out.s.block<3, 3>(3, 0) = rot.transpose();
      // d/dt (Rᵀ) ṗ = −ω × (Rᵀ ṗ)
      out.c.tail<3>() = -qd.segment<3>(da + 3).cross(rot.transpose() * qd.segment<3>(da));
      break;
    }
    case JointType::kFixed:
      break;
  }
  return out;
}

}  // namespace

struct Rnea::Pass {
  std::vector<Eigen::Matrix3d> rotation;  // link axes in the world
  std::vector<Eigen::Vector3d> origin;    // link origin in the world
  std::vector<Vec6> v;                    // link velocity, link coordinates
  std::vector<Vec6> a;                    // link spatial acceleration, link coordinates
  Eigen::VectorXd tau;
};

Rnea::Rnea(const Model& model) : model_(model), body_link_(model.nbody, -1), inertia_(model.nbody) {
  const Model& m = model_;
  for (int b = 1; b < m.nbody; ++b) {
    const Eigen::Vector3d c = vec3(m.body_ipos, b);
    const double* i6 = &m.body_inertia[6 * b];
    Eigen::Matrix3d ic;
    ic << i6[0], i6[3], i6[4], i6[3], i6[1], i6[5], i6[4], i6[5], i6[2];
    const double mass = m.body_mass[b];
    Mat6 inertia;
    inertia << ic + mass * skew(c) * skew(c).transpose(), mass * skew(c),
        mass * skew(c).transpose(), mass * Eigen::Matrix3d::Identity();
    inertia_[b] = inertia;

    // a free joint places the body in the world directly
    const bool free = m.body_jntnum[b] == 1 && m.jnt_type[m.body_jntadr[b]] == JointType::kFree;
    Eigen::Matrix3d e = Eigen::Matrix3d::Identity();
    Eigen::Vector3d r = Eigen::Vector3d::Zero();
    if (!free) {
      e = quat(&m.body_quat[4 * b]).toRotationMatrix().transpose();
      r = vec3(m.body_pos, b);
    }
    int parent = body_link_[m.body_parentid[b]];
    if (m.body_jntnum[b] == 0) {
      links_.push_back({parent, -1, b, e, r});
    }
    for (int k = 0; k < m.body_jntnum[b]; ++k) {
      const bool first = k == 0, last = k == m.body_jntnum[b] - 1;
      links_.push_back({parent, m.body_jntadr[b] + k, last ? b : -1,
                        first ? e : Eigen::Matrix3d::Identity().eval(),
                        first ? r : Eigen::Vector3d::Zero().eval()});
      parent = static_cast<int>(links_.size()) - 1;
    }
    body_link_[b] = static_cast<int>(links_.size()) - 1;
  }
}

Rnea::Pass Rnea::run(const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                     const Eigen::VectorXd& qdd, bool gravity, const Eigen::MatrixXd* xfrc) const {
  const Model& m = model_;
  const int n = static_cast<int>(links_.size());
  Pass out;
  out.rotation.resize(n);
  out.origin.resize(n);
  out.v.resize(n);
  std::vector<Mat6> x(n);
  std::vector<Vec6>& a = out.a;
  a.resize(n);
  std::vector<Vec6> f(n);
  std::vector<Eigen::MatrixXd> s(n);

  // the world accelerates upwards by −g instead of gravity pulling every body
  Vec6 a_world = Vec6::Zero();
  if (gravity) a_world.tail<3>() = -Eigen::Vector3d(m.gravity[0], m.gravity[1], m.gravity[2]);

  for (int i = 0; i < n; ++i) {
    const Link& link = links_[i];
    const Eigen::Matrix3d rp =
        link.parent < 0 ? Eigen::Matrix3d::Identity() : out.rotation[link.parent];
    const Eigen::Vector3d op = link.parent < 0 ? Eigen::Vector3d::Zero() : out.origin[link.parent];
    const Vec6 vp = link.parent < 0 ? Vec6::Zero() : out.v[link.parent];
    const Vec6 ap = link.parent < 0 ? a_world : a[link.parent];

    // the frame before the joint
    Eigen::Matrix3d rot = rp * link.tree_e.transpose();
    Eigen::Vector3d origin = op + rp * link.tree_r;

    Vec6 vj = Vec6::Zero(), cj = Vec6::Zero(), sqdd = Vec6::Zero();
    Mat6 xj = Mat6::Identity();
    if (link.joint >= 0) {
      const JointMotion jm = joint_motion(m, link.joint, q, qd);
      const int da = m.jnt_dofadr[link.joint], nd = static_cast<int>(jm.s.cols());
      xj = plucker(jm.e, jm.r);
      origin += rot * jm.r;
      rot = rot * jm.e.transpose();
      s[i] = jm.s;
      vj = jm.s * qd.segment(da, nd);
      sqdd = jm.s * qdd.segment(da, nd);
      cj = jm.c;
    }
    x[i] = xj * plucker(link.tree_e, link.tree_r);
    out.rotation[i] = rot;
    out.origin[i] = origin;
    out.v[i] = x[i] * vp + vj;
    a[i] = x[i] * ap + sqdd + cj + crm(out.v[i]) * vj;
    f[i].setZero();
    if (link.body >= 0) {
      const Mat6& inertia = inertia_[link.body];
      f[i] = inertia * a[i] + crf(out.v[i]) * inertia * out.v[i];
      if (xfrc) {
        const Eigen::Vector3d force = xfrc->row(link.body).head<3>().transpose();
        const Eigen::Vector3d torque = xfrc->row(link.body).tail<3>().transpose();
        const Eigen::Vector3d com = origin + rot * vec3(m.body_ipos, link.body);
        Vec6 fe;
        fe << rot.transpose() * (torque + (com - origin).cross(force)), rot.transpose() * force;
        f[i] -= fe;
      }
    }
  }

  out.tau = Eigen::VectorXd::Zero(m.nv);
  for (int i = n - 1; i >= 0; --i) {
    const Link& link = links_[i];
    if (link.joint >= 0) {
      const int da = m.jnt_dofadr[link.joint];
      out.tau.segment(da, s[i].cols()) = s[i].transpose() * f[i];
    }
    if (link.parent >= 0) f[link.parent] += x[i].transpose() * f[i];
  }
  return out;
}

Eigen::VectorXd Rnea::inverse_dynamics(const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                                       const Eigen::VectorXd& qdd, bool gravity,
                                       const Eigen::MatrixXd* xfrc) const {
  return run(q, qd, qdd, gravity, xfrc).tau;
}

Eigen::MatrixXd Rnea::mass_matrix(const Eigen::VectorXd& q) const {
  const int nv = model_.nv;
  Eigen::MatrixXd h(nv, nv);
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(nv);
  for (int i = 0; i < nv; ++i) {
    h.col(i) = inverse_dynamics(q, zero, Eigen::VectorXd::Unit(nv, i), false);
    h(i, i) += model_.dof_armature[i];
  }
  return h;
}

Eigen::VectorXd Rnea::bias(const Eigen::VectorXd& q, const Eigen::VectorXd& qd) const {
  return inverse_dynamics(q, qd, Eigen::VectorXd::Zero(model_.nv), true);
}

Eigen::VectorXd Rnea::passive(const Eigen::VectorXd& q, const Eigen::VectorXd& qd) const {
  const Model& m = model_;
  Eigen::VectorXd tau(m.nv);
  for (int i = 0; i < m.nv; ++i) tau[i] = -m.dof_damping[i] * qd[i];
  for (int j = 0; j < m.njnt; ++j) {
    const double k = m.jnt_stiffness[j];
    int qa = m.jnt_qposadr[j], da = m.jnt_dofadr[j];
    const JointType type = m.jnt_type[j];
    if (type == JointType::kHinge || type == JointType::kSlide) {
      tau[da] -= k * (q[qa] - m.qpos_spring[qa]);
      continue;
    }
    if (type == JointType::kFree) {
      for (int i = 0; i < 3; ++i) tau[da + i] -= k * (q[qa + i] - m.qpos_spring[qa + i]);
      qa += 3;
      da += 3;
    }
    const Eigen::AngleAxisd dif(quat(&m.qpos_spring[qa]).conjugate() * quat(q.data() + qa));
    tau.segment<3>(da) -= k * dif.angle() * dif.axis();
  }
  return tau;
}

Eigen::VectorXd Rnea::actuator(const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                               const Eigen::VectorXd& ctrl) const {
  const Model& m = model_;
  Eigen::VectorXd tau = Eigen::VectorXd::Zero(m.nv);
  for (int a = 0; a < m.nu; ++a) {
    const int j = m.actuator_trnid[a];
    const double gear = m.actuator_gear[a];
    double u = ctrl[a];
    if (m.actuator_ctrllimited[a])
      u = std::clamp(u, m.actuator_ctrlrange[2 * a], m.actuator_ctrlrange[2 * a + 1]);
    const double length = gear * q[m.jnt_qposadr[j]], velocity = gear * qd[m.jnt_dofadr[j]];
    double force = m.actuator_gainprm[3 * a] * u + m.actuator_biasprm[3 * a] +
                   m.actuator_biasprm[3 * a + 1] * length +
                   m.actuator_biasprm[3 * a + 2] * velocity;
    if (m.actuator_forcelimited[a]) {
      force = std::clamp(force, m.actuator_forcerange[2 * a], m.actuator_forcerange[2 * a + 1]);
    }
    tau[m.jnt_dofadr[j]] += gear * force;
  }
  return tau;
}

Eigen::VectorXd Rnea::applied(const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                              const Eigen::MatrixXd& xfrc) const {
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(model_.nv);
  return inverse_dynamics(q, qd, zero, false) - inverse_dynamics(q, qd, zero, false, &xfrc);
}

Eigen::VectorXd Rnea::forward_dynamics(const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                                       const Eigen::VectorXd& ctrl) const {
  const Eigen::VectorXd rhs = passive(q, qd) + actuator(q, qd, ctrl) - bias(q, qd);
  return mass_matrix(q).llt().solve(rhs);
}

std::vector<BodyMotion> Rnea::motion(const Eigen::VectorXd& q, const Eigen::VectorXd& qd) const {
  const Model& m = model_;
  const Pass pass = run(q, qd, Eigen::VectorXd::Zero(m.nv), false, nullptr);
  std::vector<BodyMotion> out(m.nbody);
  out[0] = {Eigen::Matrix3d::Identity(), Eigen::Vector3d::Zero(), Eigen::Vector3d::Zero(),
            Eigen::Vector3d::Zero(), Eigen::Vector3d::Zero()};
  for (int b = 1; b < m.nbody; ++b) {
    const int i = body_link_[b];
    BodyMotion& bm = out[b];
    bm.rotation = pass.rotation[i];
    bm.origin = pass.origin[i];
    bm.com = bm.origin + bm.rotation * vec3(m.body_ipos, b);
    bm.angular_velocity = bm.rotation * pass.v[i].head<3>();
    bm.com_velocity =
        bm.rotation * pass.v[i].tail<3>() + bm.angular_velocity.cross(bm.com - bm.origin);
  }
  return out;
}

Eigen::MatrixXd Rnea::body_accelerations(const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                                         const Eigen::VectorXd& qdd) const {
  const Model& m = model_;
  const Pass pass = run(q, qd, qdd, false, nullptr);
  Eigen::MatrixXd out = Eigen::MatrixXd::Zero(m.nbody, 6);
  for (int b = 1; b < m.nbody; ++b) {
    const int i = body_link_[b];
    const Eigen::Vector3d w = pass.v[i].head<3>(), vo = pass.v[i].tail<3>();
    const Eigen::Vector3d alpha = pass.a[i].head<3>(), c = vec3(m.body_ipos, b);
    // spatial to classical: a_origin = a_spatial + ω × v_origin, then rigid transfer to c
    const Eigen::Vector3d ao = pass.a[i].tail<3>() + w.cross(vo);
    const Eigen::Vector3d ac = ao + alpha.cross(c) + w.cross(w.cross(c));
    out.row(b).head<3>() = (pass.rotation[i] * ac).transpose();
    out.row(b).tail<3>() = (pass.rotation[i] * alpha).transpose();
  }
  return out;
}

double Rnea::kinetic_energy(const Eigen::VectorXd& q, const Eigen::VectorXd& qd) const {
  const Model& m = model_;
  const std::vector<BodyMotion> bodies = motion(q, qd);
  double t = 0;
  for (int b = 1; b < m.nbody; ++b) {
    const Eigen::Vector3d w = bodies[b].rotation.transpose() * bodies[b].angular_velocity;
    const Eigen::Matrix3d ic =
        inertia_[b].topLeftCorner<3, 3>() -
        m.body_mass[b] * skew(vec3(m.body_ipos, b)) * skew(vec3(m.body_ipos, b)).transpose();
    t += 0.5 * m.body_mass[b] * bodies[b].com_velocity.squaredNorm() + 0.5 * w.dot(ic * w);
  }
  for (int i = 0; i < m.nv; ++i) t += 0.5 * m.dof_armature[i] * qd[i] * qd[i];
  return t;
}

double Rnea::potential_energy(const Eigen::VectorXd& q) const {
  const Model& m = model_;
  const std::vector<BodyMotion> bodies = motion(q, Eigen::VectorXd::Zero(m.nv));
  const Eigen::Vector3d g(m.gravity[0], m.gravity[1], m.gravity[2]);
  double u = 0;
  for (int b = 1; b < m.nbody; ++b) u -= m.body_mass[b] * g.dot(bodies[b].com);
  for (int j = 0; j < m.njnt; ++j) {
    const JointType type = m.jnt_type[j];
    if (type == JointType::kHinge || type == JointType::kSlide) {
      const int qa = m.jnt_qposadr[j];
      u += 0.5 * m.jnt_stiffness[j] * (q[qa] - m.qpos_spring[qa]) * (q[qa] - m.qpos_spring[qa]);
    }
  }
  return u;
}

Eigen::Vector3d Rnea::linear_momentum(const Eigen::VectorXd& q, const Eigen::VectorXd& qd) const {
  const std::vector<BodyMotion> bodies = motion(q, qd);
  Eigen::Vector3d p = Eigen::Vector3d::Zero();
  for (int b = 1; b < model_.nbody; ++b) p += model_.body_mass[b] * bodies[b].com_velocity;
  return p;
}

Eigen::Vector3d Rnea::angular_momentum(const Eigen::VectorXd& q, const Eigen::VectorXd& qd) const {
  const Model& m = model_;
  const std::vector<BodyMotion> bodies = motion(q, qd);
  Eigen::Vector3d l = Eigen::Vector3d::Zero();
  for (int b = 1; b < m.nbody; ++b) {
    const Eigen::Matrix3d& r = bodies[b].rotation;
    const Eigen::Matrix3d ic =
        inertia_[b].topLeftCorner<3, 3>() -
        m.body_mass[b] * skew(vec3(m.body_ipos, b)) * skew(vec3(m.body_ipos, b)).transpose();
    l += bodies[b].com.cross(m.body_mass[b] * bodies[b].com_velocity) +
         r * ic * r.transpose() * bodies[b].angular_velocity;
  }
  return l;
}

}  // namespace zwang::reference
