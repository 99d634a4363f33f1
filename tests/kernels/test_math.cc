// The small math of kernels/ against Eigen.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <Eigen/Geometry>
#include <random>

#include "host/model/group_schedule.hpp"
#include "kernels/math_chol.h"
#include "kernels/math_vec.h"

namespace zwang {
namespace {

Eigen::Quaterniond to_eigen(const Quat<double>& q) {
  return {q.w, q.x, q.y, q.z};
}
Eigen::Vector3d to_eigen(const Vec3<double>& v) {
  return {v.x, v.y, v.z};
}

Quat<double> random_quat(std::mt19937& rng) {
  std::normal_distribution<double> n(0, 1);
  return normalized(Quat<double>{n(rng), n(rng), n(rng), n(rng)});
}

TEST(Math, QuaternionProductAndMatrixMatchEigen) {
  std::mt19937 rng(1);
  for (int k = 0; k < 50; ++k) {
    const Quat<double> a = random_quat(rng), b = random_quat(rng);
    EXPECT_TRUE(to_eigen(mul(a, b)).coeffs().isApprox((to_eigen(a) * to_eigen(b)).coeffs(), 1e-14));
    const Mat3<double> r = to_mat(a);
    const Eigen::Matrix3d e = to_eigen(a).toRotationMatrix();
    for (int i = 0; i < 9; ++i) EXPECT_NEAR(r.m[i], e(i / 3, i % 3), 1e-15);
  }
}

TEST(Math, RotatedInertiaMatchesEigen) {
  std::mt19937 rng(2);
  const Sym3<double> s{0.3, 0.2, 0.4, 0.05, -0.02, 0.01};
  Eigen::Matrix3d se;
  se << s.xx, s.xy, s.xz, s.xy, s.yy, s.yz, s.xz, s.yz, s.zz;
  const Quat<double> q = random_quat(rng);
  const Eigen::Matrix3d r = to_eigen(q).toRotationMatrix();
  const Eigen::Matrix3d want = r * se * r.transpose();
  const Sym3<double> got = rotate(to_mat(q), s);
  EXPECT_NEAR(got.xx, want(0, 0), 1e-15);
  EXPECT_NEAR(got.yy, want(1, 1), 1e-15);
  EXPECT_NEAR(got.zz, want(2, 2), 1e-15);
  EXPECT_NEAR(got.xy, want(0, 1), 1e-15);
  EXPECT_NEAR(got.xz, want(0, 2), 1e-15);
  EXPECT_NEAR(got.yz, want(1, 2), 1e-15);
}

// q ⊗ exp(ω h / 2) is the rotation by |ω| h about ω/|ω| in the body frame
TEST(Math, QuaternionIntegrationIsTheExponentialMap) {
  std::mt19937 rng(3);
  std::normal_distribution<double> n(0, 2);
  for (int k = 0; k < 50; ++k) {
    const Quat<double> q = random_quat(rng);
    const Vec3<double> w{n(rng), n(rng), n(rng)};
    const double h = 0.01 * (k - 25);  // backwards in time as well
    const Eigen::Vector3d we = to_eigen(w);
    const Eigen::Quaterniond want =
        to_eigen(q) * Eigen::Quaterniond(Eigen::AngleAxisd(we.norm() * h, we.normalized()));
    const Quat<double> got = integrate_quat(q, w, h);
    EXPECT_TRUE(to_eigen(got).toRotationMatrix().isApprox(want.toRotationMatrix(), 1e-13));
    EXPECT_NEAR(to_eigen(got).norm(), 1.0, 1e-15);
  }
}

// integrating the difference of a and b for unit time from b lands on a
TEST(Math, QuaternionDifferenceInvertsIntegration) {
  std::mt19937 rng(4);
  for (int k = 0; k < 50; ++k) {
    const Quat<double> a = random_quat(rng), b = random_quat(rng);
    const Vec3<double> d = quat_difference(a, b);
    EXPECT_LE(to_eigen(d).norm(), 3.14159265358979 + 1e-12);
    const Quat<double> back = integrate_quat(b, d, 1.0);
    EXPECT_TRUE(to_eigen(back).toRotationMatrix().isApprox(to_eigen(a).toRotationMatrix(), 1e-12));
    const Eigen::AngleAxisd aa(to_eigen(b).conjugate() * to_eigen(a));
    EXPECT_TRUE(to_eigen(d).isApprox(aa.angle() * aa.axis(), 1e-12));
  }
}

// a random symmetric positive definite matrix with the sparsity of the tree `parent`:
// A = Bᵀ B + I with B_kj ≠ 0 only for j an ancestor of k or k itself
Eigen::MatrixXd tree_spd(const std::vector<int>& parent, std::mt19937& rng) {
  std::normal_distribution<double> n(0, 1);
  const int size = static_cast<int>(parent.size());
  Eigen::MatrixXd b = Eigen::MatrixXd::Zero(size, size);
  for (int k = 0; k < size; ++k) {
    for (int j = k; j >= 0; j = parent[j]) b(k, j) = n(rng);
  }
  return b.transpose() * b + Eigen::MatrixXd::Identity(size, size);
}

std::vector<double> pack(const Eigen::MatrixXd& a) {
  std::vector<double> packed;
  for (int i = 0; i < a.rows(); ++i) {
    for (int j = 0; j <= i; ++j) packed.push_back(a(i, j));
  }
  return packed;
}

// chains (dense), a star, the floating base's tree and random trees
std::vector<std::vector<int>> trees(std::mt19937& rng) {
  std::vector<std::vector<int>> out;
  for (int size : {1, 2, 5, 12, 27}) {
    std::vector<int> chain(size);
    for (int i = 0; i < size; ++i) chain[i] = i - 1;
    out.push_back(chain);
  }
  out.push_back({-1, 0, 0, 0, 0, 0});
  out.push_back({-1, 0, 1, 2, 3, 4, 5, 6, 7, 5, 9});  // free joint, then two limbs
  for (int k = 0; k < 10; ++k) {
    std::vector<int> t(20);
    for (int i = 0; i < 20; ++i)
      t[i] = i == 0 ? -1 : std::uniform_int_distribution<int>(-1, i - 1)(rng);
    out.push_back(t);
  }
  return out;
}

// a tree's rows as the kernels take them
struct Tree {
  std::vector<int> row, col, adr;
  explicit Tree(const std::vector<int>& parent) { tree_entries(parent, row, col, adr); }
  TreeRows rows() const { return {adr.data(), col.data()}; }
};

TEST(Math, TreeCholeskySolvesLikeEigen) {
  std::mt19937 rng(5);
  std::normal_distribution<double> n(0, 1);
  for (const std::vector<int>& parent : trees(rng)) {
    const int size = static_cast<int>(parent.size());
    const Eigen::MatrixXd a = tree_spd(parent, rng);
    const Eigen::VectorXd b = Eigen::VectorXd::NullaryExpr(size, [&] { return n(rng); });
    std::vector<double> l = pack(a), x(b.data(), b.data() + size);
    const Tree tree(parent);
    ASSERT_EQ(cholesky_factor<double>(l.data(), tree.rows(), size), size);
    // Lᵀ L reproduces A, and L has no entry outside the tree's pattern
    Eigen::MatrixXd lower = Eigen::MatrixXd::Zero(size, size);
    for (int i = 0; i < size; ++i) {
      for (int j = 0; j <= i; ++j) lower(i, j) = l[packed_index(i, j)];
    }
    EXPECT_LT((lower.transpose() * lower - a).cwiseAbs().maxCoeff(),
              1e-12 * a.cwiseAbs().maxCoeff());
    cholesky_solve<double>(l.data(), tree.rows(), x.data(), size);
    const Eigen::VectorXd want = a.llt().solve(b);
    for (int i = 0; i < size; ++i)
      EXPECT_NEAR(x[i], want[i], 1e-11 * std::max(1.0, want.cwiseAbs().maxCoeff()));
  }
}

TEST(Math, TreeCholeskyReportsTheFirstBadPivot) {
  // a chain of three: elimination starts at the last row, whose pivot is negative
  const Tree chain({-1, 0, 1});
  Eigen::Matrix3d a;
  a << 4, 1, 2, 1, 3, 0, 2, 0, -1;
  std::vector<double> packed = pack(a);
  EXPECT_EQ(cholesky_factor<double>(packed.data(), chain.rows(), 3), 0);
  // the last pivot is fine, the one after it is not: 3 − 1²/1 − 0 = 2 > 0, then 4 − ... < 0
  Eigen::Matrix3d b;
  b << 0.5, 1, 1, 1, 3, 0, 1, 0, 1;
  packed = pack(b);
  EXPECT_EQ(cholesky_factor<double>(packed.data(), chain.rows(), 3), 2);
  std::vector<double> nan{1, 0, std::nan("")};
  EXPECT_EQ(cholesky_factor<double>(nan.data(), chain.rows(), 2), 0);
}

// an unsymmetric matrix in the tree's pattern: the SPD one plus independent entries in both
// triangles, factored by lu_factor and solved like Eigen's pivoting LU; the entries outside the
// pattern hold NaN, which neither the factor nor the solve may read or change (no fill-in)
TEST(Math, TreeLuSolvesLikeEigen) {
  std::mt19937 rng(7);
  std::normal_distribution<double> n(0, 1);
  for (const std::vector<int>& parent : trees(rng)) {
    const int size = static_cast<int>(parent.size());
    Eigen::MatrixXd a = tree_spd(parent, rng);
    for (int k = 0; k < size; ++k) {
      for (int j = parent[k]; j >= 0; j = parent[j]) {
        a(k, j) += 0.5 * n(rng);
        a(j, k) += 0.5 * n(rng);
      }
    }
    const Eigen::VectorXd b = Eigen::VectorXd::NullaryExpr(size, [&] { return n(rng); });
    std::vector<double> lo = pack(a), up = pack(a.transpose()), x(b.data(), b.data() + size);
    const auto related = [&](int i, int j) {
      bool r = false;
      for (int k = i; k >= 0; k = parent[k]) r = r || k == j;
      return r;
    };
    for (int i = 0; i < size; ++i) {
      for (int j = 0; j <= i; ++j) {
        if (!related(i, j)) lo[packed_index(i, j)] = up[packed_index(i, j)] = std::nan("");
      }
    }
    const Tree tree(parent);
    ASSERT_EQ(lu_factor<double>(lo.data(), up.data(), tree.rows(), size), size);
    for (int i = 0; i < size; ++i) {
      for (int j = 0; j <= i; ++j) {
        if (!related(i, j)) {
          EXPECT_TRUE(std::isnan(lo[packed_index(i, j)]) && std::isnan(up[packed_index(i, j)]));
        }
      }
    }
    lu_solve<double>(lo.data(), up.data(), tree.rows(), x.data(), size);
    const Eigen::VectorXd want = a.partialPivLu().solve(b);
    for (int i = 0; i < size; ++i)
      EXPECT_NEAR(x[i], want[i], 1e-10 * std::max(1.0, want.cwiseAbs().maxCoeff()));
  }
}

TEST(Math, TreeLuReportsAZeroPivot) {
  // a chain of three: the last pivot, −1, is fine for an LU; eliminating it leaves
  // A_11 − (A_12 / A_22) A_21 = 2 − 2·1 = 0 at the next
  const Tree chain({-1, 0, 1});
  Eigen::Matrix3d a;
  a << 4, 1, 1, 1, 2, -2, 2, 1, -1;
  std::vector<double> lo = pack(a), up = pack(a.transpose());
  EXPECT_EQ(lu_factor<double>(lo.data(), up.data(), chain.rows(), 3), 1);
  std::vector<double> nan{1, 0, std::nan("")}, nan_up{1, 0, 0};
  EXPECT_EQ(lu_factor<double>(nan.data(), nan_up.data(), chain.rows(), 2), 0);
}

}  // namespace
}  // namespace zwang
