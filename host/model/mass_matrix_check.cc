// H positive definite or not, by the articulated-body recursion (Featherstone): eliminating the
// dofs from the leaves to the root is an LDLᵀ factorisation of H, and its pivots
//   D_b = S_bᵀ I^A_b S_b,   I^A_b = I_b + Σ_children (I^A_c − U_c D_c⁻¹ U_cᵀ),   U_c = I^A_c S_c
// are all positive exactly when H is positive definite.  O(nbody) 6×6 work at one
// configuration, so a deep chain costs what a short one does; H itself is never formed.
// Everything is in the world frame about the world origin, so no body-to-body transforms.
#include "host/model/mass_matrix_check.hpp"

#include <fmt/format.h>

#include <Eigen/Dense>
#include <Eigen/Geometry>
#include <cmath>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "kernels/model_view.h"

namespace zwang {
namespace {

using Matrix6 = Eigen::Matrix<double, 6, 6>;
using Vector6 = Eigen::Matrix<double, 6, 1>;

// a pivot this small against the inertia about the dof of everything the dof moves means the
// dof moves nothing that the dofs below it do not carry along: H is singular to rounding
constexpr double kPivotTolerance = 1e-12;

Eigen::Matrix3d cross(const Eigen::Vector3d& c) {
  Eigen::Matrix3d m;
  m << 0, -c.z(), c.y(), c.z(), 0, -c.x(), -c.y(), c.x(), 0;
  return m;
}

// a rigid motion about the origin, angular part first: ω about an axis through `point`
Vector6 rotation_about(const Eigen::Vector3d& axis, const Eigen::Vector3d& point) {
  Vector6 s;
  s << axis, point.cross(axis);
  return s;
}

// the body's spatial inertia about the world origin, [ω; v] order:
//   [[I_c + m [c]× [c]×ᵀ, m [c]×], [m [c]×ᵀ, m 1]]
Matrix6 spatial_inertia(double mass, const Eigen::Vector3d& com, const Eigen::Matrix3d& inertia) {
  const Eigen::Matrix3d c = cross(com);
  Matrix6 i;
  i.topLeftCorner<3, 3>() = inertia + mass * c * c.transpose();
  i.topRightCorner<3, 3>() = mass * c;
  i.bottomLeftCorner<3, 3>() = mass * c.transpose();
  i.bottomRightCorner<3, 3>() = mass * Eigen::Matrix3d::Identity();
  return i;
}

// a second configuration: hinges and slides spread over their range (a hinge without one over
// a turn, a slide without one over ±0.5 m), balls turned; free joints stay at qpos0
std::vector<double> second_configuration(const Model& m) {
  std::vector<double> q(m.qpos0);
  std::mt19937 rng(20240601);
  std::uniform_real_distribution<double> unit(0.1, 0.9);
  std::normal_distribution<double> normal(0, 1);
  for (int j = 0; j < m.njnt; ++j) {
    const int a = m.jnt_qposadr[j];
    const double u = unit(rng);
    switch (m.jnt_type[j]) {
      case JointType::kHinge:
      case JointType::kSlide: {
        const double span = m.jnt_type[j] == JointType::kHinge ? std::numbers::pi : 0.5;
        q[a] = m.jnt_limited[j]
                   ? m.jnt_range[2 * j] + u * (m.jnt_range[2 * j + 1] - m.jnt_range[2 * j])
                   : m.qpos0[a] + (2 * u - 1) * span;
        break;
      }
      case JointType::kBall: {
        const Eigen::Quaterniond r =
            Eigen::Quaterniond(normal(rng), normal(rng), normal(rng), normal(rng)).normalized();
        q[a] = r.w();
        q[a + 1] = r.x();
        q[a + 2] = r.y();
        q[a + 3] = r.z();
        break;
      }
      default:
        break;
    }
  }
  return q;
}

// " (dof k of the free joint)" for a joint of several dofs, nothing for a hinge or a slide
std::string dof_suffix(const Model& m, int dof) {
  const int j = m.dof_jntid[dof];
  if (joint_nv(static_cast<int>(m.jnt_type[j])) == 1) return "";
  return fmt::format(" (dof {} of the {} joint)", dof - m.jnt_dofadr[j], to_string(m.jnt_type[j]));
}

}  // namespace

MassMatrixPivot mass_matrix_pivot(const Model& m, std::span<const double> qpos) {
  const int nbody = m.nbody;
  std::vector<Eigen::Matrix3d> rot(nbody, Eigen::Matrix3d::Identity());
  std::vector<Eigen::Vector3d> pos(nbody, Eigen::Vector3d::Zero());
  std::vector<Matrix6> articulated(nbody, Matrix6::Zero()), composite(nbody, Matrix6::Zero());
  Eigen::Matrix<double, 6, Eigen::Dynamic> motion(6, m.nv);

  // forward kinematics as MuJoCo's: the body frame from the parent's, then each joint in turn
  // (a hinge turns about its anchor, a slide shifts, a ball turns about its anchor, a free joint
  // sets the frame); each dof's motion is taken with the frame before its own joint moves it
  for (int b = 1; b < nbody; ++b) {
    const int p = m.body_parentid[b];
    const double* bq = &m.body_quat[4 * b];
    Eigen::Matrix3d r =
        rot[p] * Eigen::Quaterniond(bq[0], bq[1], bq[2], bq[3]).normalized().toRotationMatrix();
    Eigen::Vector3d x = pos[p] + rot[p] * Eigen::Vector3d(m.body_pos[3 * b], m.body_pos[3 * b + 1],
                                                          m.body_pos[3 * b + 2]);
    for (int j = m.body_jntadr[b]; j < m.body_jntadr[b] + m.body_jntnum[b]; ++j) {
      const int qa = m.jnt_qposadr[j], da = m.jnt_dofadr[j];
      const Eigen::Vector3d local_anchor(m.jnt_pos[3 * j], m.jnt_pos[3 * j + 1],
                                         m.jnt_pos[3 * j + 2]);
      const Eigen::Vector3d axis(m.jnt_axis[3 * j], m.jnt_axis[3 * j + 1], m.jnt_axis[3 * j + 2]);
      const Eigen::Vector3d anchor = x + r * local_anchor;
      switch (m.jnt_type[j]) {
        case JointType::kFree: {
          x = Eigen::Vector3d(qpos[qa], qpos[qa + 1], qpos[qa + 2]);
          r = Eigen::Quaterniond(qpos[qa + 3], qpos[qa + 4], qpos[qa + 5], qpos[qa + 6])
                  .normalized()
                  .toRotationMatrix();
          for (int k = 0; k < 3; ++k) {
            motion.col(da + k) << Eigen::Vector3d::Zero(), Eigen::Vector3d::Unit(k);
            motion.col(da + 3 + k) = rotation_about(r.col(k), x);
          }
          break;
        }
        case JointType::kBall: {
          r = r * Eigen::Quaterniond(qpos[qa], qpos[qa + 1], qpos[qa + 2], qpos[qa + 3])
                      .normalized()
                      .toRotationMatrix();
          x = anchor - r * local_anchor;
          for (int k = 0; k < 3; ++k) motion.col(da + k) = rotation_about(r.col(k), anchor);
          break;
        }
        case JointType::kHinge: {
          motion.col(da) = rotation_about(r * axis, anchor);
          r = r * Eigen::AngleAxisd(qpos[qa] - m.qpos0[qa], axis).toRotationMatrix();
          x = anchor - r * local_anchor;
          break;
        }
        case JointType::kSlide: {
          const Eigen::Vector3d world_axis = r * axis;
          motion.col(da) << Eigen::Vector3d::Zero(), world_axis;
          x += world_axis * (qpos[qa] - m.qpos0[qa]);
          break;
        }
        default:
          break;
      }
    }
    rot[b] = r;
    pos[b] = x;
    const double* i = &m.body_inertia[6 * b];
    Eigen::Matrix3d tensor;
    tensor << i[0], i[3], i[4], i[3], i[1], i[5], i[4], i[5], i[2];
    const Eigen::Vector3d com =
        x + r * Eigen::Vector3d(m.body_ipos[3 * b], m.body_ipos[3 * b + 1], m.body_ipos[3 * b + 2]);
    articulated[b] = composite[b] =
        spatial_inertia(m.body_mass[b], com, r * tensor * r.transpose());
  }

  // leaves to root: D_b = S_bᵀ I^A_b S_b factored dof by dof (LDLᵀ), then the body's
  // articulated inertia, less what its own dofs take up, passes to its parent
  for (int b = nbody - 1; b > 0; --b) {
    const int n = m.body_dofnum[b], first = m.body_dofadr[b];
    Matrix6 passed = articulated[b];
    if (n > 0) {
      const Eigen::MatrixXd s = motion.middleCols(first, n);
      const Eigen::MatrixXd u = articulated[b] * s;
      const Eigen::MatrixXd d = s.transpose() * u;
      const Eigen::MatrixXd c = s.transpose() * composite[b] * s;
      Eigen::MatrixXd l = Eigen::MatrixXd::Identity(n, n);
      Eigen::VectorXd pivots(n);
      for (int k = 0; k < n; ++k) {
        double dk = d(k, k);
        for (int t = 0; t < k; ++t) dk -= l(k, t) * l(k, t) * pivots[t];
        if (!(dk > kPivotTolerance * c(k, k))) return {first + k, dk, c(k, k)};
        pivots[k] = dk;
        for (int r = k + 1; r < n; ++r) {
          double v = d(r, k);
          for (int t = 0; t < k; ++t) v -= l(r, t) * l(k, t) * pivots[t];
          l(r, k) = v / dk;
        }
      }
      passed -= u * d.ldlt().solve(u.transpose());
    }
    const int p = m.body_parentid[b];
    if (p > 0) {
      articulated[p] += passed;
      composite[p] += composite[b];
    }
  }
  return {};
}

void check_mass_matrix(const Model& m) {
  const MassMatrixPivot at_qpos0 = mass_matrix_pivot(m, m.qpos0);
  if (at_qpos0.dof < 0) return;
  // a configuration singularity (a point mass on an axis at qpos0) passes here
  if (mass_matrix_pivot(m, second_configuration(m)).dof < 0) return;
  const int dof = at_qpos0.dof;
  const int b = m.dof_bodyid[dof];
  const std::string who = fmt::format("joint '{}'", m.jnt_name[m.dof_jntid[dof]]);
  const std::string which = dof_suffix(m, dof);
  if (at_qpos0.pivot < 0) {
    throw ModelError(fmt::format(
        "{}: H is not positive definite at qpos0 nor at a second configuration (pivot {:.6g} of "
        "{:.6g}{}): an inertia on body '{}' or below it is not positive semidefinite",
        who, at_qpos0.pivot, at_qpos0.composite, which, m.body_name[b]));
  }
  if (!(at_qpos0.composite > 0)) {
    throw ModelError(fmt::format(
        "{}: H is singular: the joint{} has no inertia, as nothing it moves (body '{}' and the "
        "bodies below it) has mass, or inertia about its axis",
        who, which, m.body_name[b]));
  }
  throw ModelError(fmt::format(
      "{}: H is singular at qpos0 and at a second configuration (pivot {:.6g} of {:.6g}{}): with "
      "the joints below it free, nothing on body '{}' or below it resists this joint's motion",
      who, at_qpos0.pivot, at_qpos0.composite, which, m.body_name[b]));
}

}  // namespace zwang
