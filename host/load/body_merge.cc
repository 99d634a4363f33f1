#include "host/load/body_merge.hpp"

#include <Eigen/Geometry>

namespace zwang {
namespace {

Eigen::Quaterniond eigen(const Quatd& q) {
  return Eigen::Quaterniond(q[0], q[1], q[2], q[3]);
}

Eigen::Vector3d eigen(const Vec3d& v) {
  return Eigen::Vector3d(v[0], v[1], v[2]);
}

}  // namespace

void accumulate(Vec3d& pos, Quatd& quat, const Vec3d& add_pos, const Quatd& add_quat) {
  const Eigen::Vector3d p = eigen(quat).toRotationMatrix() * eigen(add_pos);
  for (int i = 0; i < 3; ++i) pos[i] += p(i);
  const Eigen::Quaterniond q = eigen(quat) * eigen(add_quat);
  quat = {q.w(), q.x(), q.y(), q.z()};
}

void to_outer(const FramePose& f, Vec3d& pos, Quatd& quat) {
  FramePose outer = f;
  accumulate(outer.pos, outer.quat, pos, quat);
  pos = outer.pos;
  quat = outer.quat;
}

Eigen::Matrix3d inertia_matrix(const Inertia6& i) {
  Eigen::Matrix3d m;
  m << i[0], i[3], i[4], i[3], i[1], i[5], i[4], i[5], i[2];
  return m;
}

BodyMass joined(const BodyMass& parent, const BodyMass& child, const FramePose& f) {
  const Eigen::Matrix3d r = eigen(f.quat).toRotationMatrix();
  const Eigen::Vector3d c[2] = {eigen(parent.com), eigen(f.pos) + r * eigen(child.com)};
  const Eigen::Matrix3d inertia[2] = {inertia_matrix(parent.inertia),
                                      r * inertia_matrix(child.inertia) * r.transpose()};
  const double m[2] = {parent.mass, child.mass};
  BodyMass out;
  out.mass = m[0] + m[1];
  if (out.mass < 1e-15) return BodyMass{};
  const Eigen::Vector3d com = (m[0] * c[0] + m[1] * c[1]) / out.mass;
  Eigen::Matrix3d total = Eigen::Matrix3d::Zero();
  for (int k = 0; k < 2; ++k) {
    const Eigen::Vector3d d = c[k] - com;
    total +=
        inertia[k] + m[k] * (d.squaredNorm() * Eigen::Matrix3d::Identity() - d * d.transpose());
  }
  out.com = {com.x(), com.y(), com.z()};
  out.inertia = {total(0, 0), total(1, 1), total(2, 2), total(1, 0), total(2, 0), total(2, 1)};
  return out;
}

}  // namespace zwang
