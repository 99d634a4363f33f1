// Physical properties: energy of a conservative chain under RK4, momentum of a free system
// without gravity, and Gauss's principle itself (Z is least at the computed q̈).
#include <gtest/gtest.h>

#include "reference/rnea.h"
#include "test_util.h"
#include "zwang/simulator.hpp"

namespace zwang::test {
namespace {

// relative change of total energy of a model started at rest from random angles
std::vector<double> energy_drift(Model model, double dt, double duration, double amplitude,
                                 int instances) {
  model.integrator = Integrator::kRK4;
  model.timestep = dt;
  const reference::Rnea ref(model);
  Simulator<double> sim(model, instances);
  std::mt19937 rng(41);
  std::uniform_real_distribution<double> angle(-amplitude, amplitude);
  const double floor = ref.potential_energy(Eigen::VectorXd::Zero(model.nq));
  std::vector<double> e0(instances), drift(instances);
  for (int i = 0; i < instances; ++i) {
    Eigen::VectorXd q(model.nq);
    for (int k = 0; k < model.nq; ++k) q[k] = angle(rng);
    set(sim.batch().qpos(), i, q);
    e0[i] = ref.potential_energy(q) - floor;
  }
  sim.step(static_cast<int>(std::lround(duration / dt)));
  EXPECT_TRUE(sim.failures().empty());
  EXPECT_NEAR(sim.batch().time()[0], duration, 1e-9);
  for (int i = 0; i < instances; ++i) {
    const Eigen::VectorXd q = get(sim.batch().qpos(), i), qd = get(sim.batch().qvel(), i);
    const double kinetic = ref.kinetic_energy(q, qd);
    EXPECT_GT(kinetic, 0.01 * std::abs(e0[i]))
        << "instance " << i << ": the chain should be moving";
    drift[i] = std::abs(kinetic + ref.potential_energy(q) - floor - e0[i]) / std::abs(e0[i]);
  }
  return drift;
}

// total energy measured from the hanging rest configuration
TEST(Properties, EnergyOfConservativeChainUnderRK4) {
  const std::vector<double> drift =
      energy_drift(examples::rod_chain({.links = 8, .length = 1.0}), 1e-3, 10.0, 0.3, 4);
  for (std::size_t i = 0; i < drift.size(); ++i) EXPECT_LT(drift[i], 1e-8) << "instance " << i;
  std::printf("largest relative energy drift of the 8-rod chain after 10 s: %.2e\n",
              *std::max_element(drift.begin(), drift.end()));
}

// RK4 is fourth order: halving the step divides the energy error by about 16, also on the
// example chain with mixed axes and a slide
TEST(Properties, EnergyErrorOfRK4IsFourthOrder) {
  const std::vector<double> coarse = energy_drift(examples::chain(), 2e-3, 1.0, 0.5, 4);
  const std::vector<double> fine = energy_drift(examples::chain(), 1e-3, 1.0, 0.5, 4);
  for (std::size_t i = 0; i < coarse.size(); ++i) {
    const double ratio = coarse[i] / fine[i];
    EXPECT_GT(ratio, 10) << "instance " << i;
    EXPECT_LT(ratio, 25) << "instance " << i;
  }
}

// linear and angular momentum after 2 s of free flight at step dt
std::vector<double> momentum_drift(double dt) {
  Model model = examples::floating_base(false);
  model.integrator = Integrator::kRK4;
  model.timestep = dt;
  const reference::Rnea ref(model);
  constexpr int kInstances = 4;
  Simulator<double> sim(model, kInstances);
  std::mt19937 rng(42);
  std::vector<Eigen::Vector3d> p0, l0;
  for (int i = 0; i < kInstances; ++i) {
    const RandomState s = random_state(model, rng);
    set(sim.batch().qpos(), i, s.qpos);
    set(sim.batch().qvel(), i, s.qvel);
    p0.push_back(ref.linear_momentum(s.qpos, s.qvel));
    l0.push_back(ref.angular_momentum(s.qpos, s.qvel));
  }
  sim.step(static_cast<int>(std::lround(2.0 / dt)));
  EXPECT_TRUE(sim.failures().empty());
  std::vector<double> drift;
  for (int i = 0; i < kInstances; ++i) {
    const Eigen::VectorXd q = get(sim.batch().qpos(), i), qd = get(sim.batch().qvel(), i);
    drift.push_back(relative_error(ref.linear_momentum(q, qd), p0[i]));
    drift.push_back(relative_error(ref.angular_momentum(q, qd), l0[i]));
  }
  return drift;
}

// the free joint's rotation is integrated on SO(3) at fourth order too
TEST(Properties, MomentumOfFreeSystemWithoutGravity) {
  const std::vector<double> coarse = momentum_drift(2e-3), fine = momentum_drift(1e-3);
  for (std::size_t i = 0; i < fine.size(); ++i) {
    EXPECT_LT(fine[i], 1e-11) << (i % 2 ? "angular" : "linear") << " momentum, instance " << i / 2;
    EXPECT_GT(coarse[i] / fine[i], 8) << "instance " << i / 2;
  }
}

// Z(x) = Σ_k (Ā_k(x) − a_k)ᵀ M_k (Ā_k(x) − a_k), Ā_k(x) = J_k x + J̇_k q̇ from the reference's
// body accelerations, a_k = M_k⁻¹ (w_k − n_k) with w_k gravity plus a random wrench (seed 000).
// Z is quadratic with Hessian H, so at its minimum Z(q̈ + δ) − Z(q̈) = δᵀ H δ > 0.
TEST(Properties, GaussFunctionIsLeastAtComputedAcceleration) {
  std::mt19937 rng(43);
  std::normal_distribution<double> normal(0, 1);
  for (const char* name : {"chain", "floating_base", "ball_chain", "double_pendulum"}) {
    const Model model = examples::by_name(name);
    const reference::Rnea ref(model);
    Simulator<double> sim(model, 1);
    for (int trial = 0; trial < 5; ++trial) {
      const RandomState s = random_state(model, rng);
      Eigen::MatrixXd wrench = Eigen::MatrixXd::Zero(model.nbody, 6);
      for (int k = 1; k < model.nbody; ++k) {
        for (int c = 0; c < 6; ++c) wrench(k, c) = normal(rng);
      }
      set(sim.batch().qpos(), 0, s.qpos);
      set(sim.batch().qvel(), 0, s.qvel);
      Eigen::VectorXd flat(6 * model.nbody);
      for (int k = 0; k < model.nbody; ++k) flat.segment<6>(6 * k) = wrench.row(k).transpose();
      set(sim.batch().xfrc_applied(), 0, flat);
      sim.forward();
      const Eigen::VectorXd qacc = get(sim.batch().qacc(), 0);

      const std::vector<reference::BodyMotion> bodies = ref.motion(s.qpos, s.qvel);
      const Eigen::Vector3d g(model.gravity[0], model.gravity[1], model.gravity[2]);
      auto z = [&](const Eigen::VectorXd& x) {
        const Eigen::MatrixXd acc = ref.body_accelerations(s.qpos, s.qvel, x);
        double sum = 0;
        for (int k = 1; k < model.nbody; ++k) {
          const double m = model.body_mass[k];
          const Eigen::Matrix3d& r = bodies[k].rotation;
          const double* i6 = &model.body_inertia[6 * k];
          Eigen::Matrix3d ib;
          ib << i6[0], i6[3], i6[4], i6[3], i6[1], i6[5], i6[4], i6[5], i6[2];
          const Eigen::Matrix3d iw = r * ib * r.transpose();
          const Eigen::Vector3d w = bodies[k].angular_velocity;
          const Eigen::Vector3d lin =
              acc.row(k).head<3>().transpose() - (g + wrench.row(k).head<3>().transpose() / m);
          const Eigen::Vector3d ang =
              acc.row(k).tail<3>().transpose() -
              iw.inverse() * (wrench.row(k).tail<3>().transpose() - w.cross(iw * w));
          sum += m * lin.squaredNorm() + ang.dot(iw * ang);
        }
        return sum;
      };
      const double z0 = z(qacc);
      const Eigen::MatrixXd h = ref.mass_matrix(s.qpos);
      for (int k = 0; k < 10; ++k) {
        const Eigen::VectorXd delta =
            Eigen::VectorXd::NullaryExpr(model.nv, [&] { return 1e-2 * normal(rng); });
        const double dz = z(qacc + delta) - z0;
        EXPECT_GT(dz, 0) << name << " trial " << trial;
        EXPECT_NEAR(dz, delta.dot(h * delta), 1e-8 * std::max(1.0, z0))
            << name << " trial " << trial;
      }
    }
  }
}

}  // namespace
}  // namespace zwang::test
