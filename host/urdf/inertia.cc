#include "host/urdf/inertia.hpp"

#include <fmt/format.h>

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <string>
#include <vector>

namespace zwang {
namespace {

Inertia6 to_inertia6(const Eigen::Matrix3d& t) {
  return {t(0, 0), t(1, 1), t(2, 2), t(0, 1), t(0, 2), t(1, 2)};
}

std::string join(const std::vector<std::string>& parts) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += i + 1 == parts.size() ? " and " : ", ";
    out += parts[i];
  }
  return out;
}

}  // namespace

double largest_principal_moment(const Eigen::Matrix3d& tensor) {
  return Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d>(tensor, Eigen::EigenvaluesOnly)
      .eigenvalues()[2];
}

UrdfLinkInertia moving_link_inertia(const Eigen::Matrix3d& tensor, double mass, double scale,
                                    bool balance) {
  const Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> eigen(tensor);
  Eigen::Vector3d moments = eigen.eigenvalues();
  const Eigen::Matrix3d& axes = eigen.eigenvectors();
  const double tolerance = kInertiaRoundingTolerance * std::max(scale, moments[2]);

  // rounding: I += |λ| v vᵀ takes a negative moment λ to 0 and leaves the others as they are
  Eigen::Matrix3d out = tensor;
  for (int k = 0; k < 3; ++k) {
    if (moments[k] < 0 && moments[k] >= -tolerance) {
      out -= moments[k] * axes.col(k) * axes.col(k).transpose();
      moments[k] = 0;
    }
  }

  // moments up to the tolerance are rounding, as good as 0: a tensor that is all noise is a
  // point mass's, which is a rigid body's
  std::vector<std::string> problems;
  const bool negative = moments[0] < 0;
  const bool triangle = moments[0] + moments[1] < moments[2] * (1 - 1e-9) - tolerance;
  if (negative) problems.emplace_back("a principal moment is negative");
  if (triangle && !negative) problems.emplace_back("A + B < C");
  if (mass == 0 && moments[2] > tolerance) problems.emplace_back("it has no mass");
  if (problems.empty()) return {to_inertia6(out), {}};

  const std::string what =
      fmt::format("inertia is not a rigid body's (principal moments {:.6g} {:.6g} {:.6g}: {})",
                  moments[0], moments[1], moments[2], join(problems));
  if (balance && (negative || triangle)) {
    // MuJoCo's balanceinertia: negative moments to 0 (its lower bound), then, where A + B ≥ C
    // still fails, each moment the mean of the three; the tensor is then isotropic
    const Eigen::Vector3d bounded = moments.cwiseMax(0.0);
    if (bounded[0] + bounded[1] < bounded[2] * (1 - 1e-9)) {
      const double mean = bounded.sum() / 3;
      return {
          to_inertia6(mean * Eigen::Matrix3d::Identity()),
          fmt::format("{}; balanced (balance_inertia): each principal moment {:.6g}", what, mean)};
    }
    const Eigen::Matrix3d bounded_tensor = axes * bounded.asDiagonal() * axes.transpose();
    return {to_inertia6(0.5 * (bounded_tensor + bounded_tensor.transpose())),
            fmt::format("{}; balanced (balance_inertia): the negative moment set to 0", what)};
  }
  return {to_inertia6(out), what + "; used as given"};
}

}  // namespace zwang
