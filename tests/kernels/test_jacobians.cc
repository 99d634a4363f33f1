// The per-body Jacobians J_k and the bias accelerations J̇_k q̇ of kernels/body_jacobians.h:
// J_k q̇ against the reference's body velocities, J̇_k q̇ against finite differences of J_k
// along the flow q(t) = q ⊕ t q̇.
#include <gtest/gtest.h>

#include "kernels/body_jacobians.h"
#include "kernels/forward_kinematics.h"
#include "kernels/integrate.h"
#include "reference/rnea.h"
#include "test_util.h"

namespace zwang::test {
namespace {

// J_k of every body, dense (6 x nv each), at the instance's state (SingleInstance::body_jacobian)
std::vector<Eigen::MatrixXd> jacobians(SingleInstance& s, const Model& m) {
  const Instance<double> d = s.instance();
  forward_kinematics(s.view, d);
  body_jacobians(s.view, d);
  std::vector<Eigen::MatrixXd> out(m.nbody, Eigen::MatrixXd::Zero(6, m.nv));
  for (int b = 1; b < m.nbody; ++b) out[b] = s.body_jacobian(m, b);
  return out;
}

TEST(Jacobians, VelocitiesMatchReference) {
  std::mt19937 rng(21);
  for (const Example& ex : all_examples()) {
    const Model& m = ex.model;
    const reference::Rnea ref(m);
    SingleInstance s(m);
    for (int k = 0; k < 10; ++k) {
      const RandomState st = random_state(m, rng);
      set(s.batch.qpos(), 0, st.qpos);
      set(s.batch.qvel(), 0, st.qvel);
      const std::vector<Eigen::MatrixXd> j = jacobians(s, m);
      const std::vector<reference::BodyMotion> bodies = ref.motion(st.qpos, st.qvel);
      for (int b = 1; b < m.nbody; ++b) {
        const Eigen::VectorXd v = j[b] * st.qvel;
        EXPECT_LT(relative_error(v.head<3>(), bodies[b].com_velocity), 1e-12)
            << ex.name << " body " << b;
        EXPECT_LT(relative_error(v.tail<3>(), bodies[b].angular_velocity), 1e-12)
            << ex.name << " body " << b;
      }
    }
  }
}

TEST(Jacobians, BiasAccelerationMatchesFiniteDifferences) {
  std::mt19937 rng(22);
  const double eps = 1e-6;
  double worst = 0;
  for (const Example& ex : all_examples()) {
    const Model& m = ex.model;
    SingleInstance s(m);
    for (int k = 0; k < 10; ++k) {
      const RandomState st = random_state(m, rng);
      set(s.batch.qvel(), 0, st.qvel);
      set(s.batch.qpos(), 0, st.qpos);
      jacobians(s, m);
      const Eigen::VectorXd bias = s.scratch(s.batch.layout().body_biasacc, 6 * m.nbody);

      // J_k at q ⊕ ±ε q̇
      std::vector<Eigen::MatrixXd> jp, jm;
      for (double sign : {1.0, -1.0}) {
        std::vector<double> q(st.qpos.data(), st.qpos.data() + m.nq);
        integrate_pos(s.view, q.data(), st.qvel.data(), sign * eps);
        set(s.batch.qpos(), 0, Eigen::Map<Eigen::VectorXd>(q.data(), m.nq));
        (sign > 0 ? jp : jm) = jacobians(s, m);
      }
      for (int b = 1; b < m.nbody; ++b) {
        const Eigen::VectorXd fd = (jp[b] - jm[b]) / (2 * eps) * st.qvel;
        const double err = relative_error(bias.segment<6>(6 * b), fd);
        worst = std::max(worst, err);
        EXPECT_LT(err, 1e-7) << ex.name << " state " << k << " body " << b;
      }
    }
  }
  std::printf("largest relative error of J̇q̇ against central differences: %.2e\n", worst);
}

}  // namespace
}  // namespace zwang::test
