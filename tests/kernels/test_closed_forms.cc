// Closed forms: the double pendulum's equations of motion written out by hand, and the period
// of a physical pendulum (small amplitude, and exact through the complete elliptic integral).
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "test_util.h"
#include "zwang/simulator.hpp"

namespace zwang::test {
namespace {

// uniform rod about a transverse axis through its centre, as examples::double_pendulum builds it
double rod_inertia(double m, double l, double r = 0.02) {
  return m * (3 * r * r + l * l) / 12;
}

// Two rods on parallel hinges about y, angles θ1 (absolute) and θ2 (relative).  A point at
// distance c below a hinge sits at (−c sin θ, −c cos θ) in (x, z), so with g along −z:
//   H11 = I1 + I2 + m1 c1² + m2 (l1² + c2² + 2 l1 c2 cos θ2)
//   H12 = I2 + m2 (c2² + l1 c2 cos θ2),   H22 = I2 + m2 c2²
//   C1 = −m2 l1 c2 sin θ2 (2 θ̇1 θ̇2 + θ̇2²),   C2 = m2 l1 c2 sin θ2 θ̇1²
//   G1 = g (m1 c1 sin θ1 + m2 (l1 sin θ1 + c2 sin(θ1 + θ2))),   G2 = g m2 c2 sin(θ1 + θ2)
TEST(ClosedForm, DoublePendulumEquationsOfMotion) {
  const double m1 = 1.0, l1 = 1.0, c1 = 0.5, i1 = rod_inertia(1.0, 1.0);
  const double m2 = 0.7, c2 = 0.4, i2 = rod_inertia(0.7, 0.8), g = 9.81;
  const Model model = examples::double_pendulum();
  constexpr int kStates = 50;
  Simulator<double> sim(model, kStates);
  std::mt19937 rng(31);
  const std::vector<RandomState> states = set_random_states(sim, rng, 3.0);
  sim.forward();
  for (int i = 0; i < kStates; ++i) {
    const double t1 = states[i].qpos[0], t2 = states[i].qpos[1];
    const double w1 = states[i].qvel[0], w2 = states[i].qvel[1];
    Eigen::Matrix2d h;
    h(0, 0) = i1 + i2 + m1 * c1 * c1 + m2 * (l1 * l1 + c2 * c2 + 2 * l1 * c2 * std::cos(t2));
    h(0, 1) = h(1, 0) = i2 + m2 * (c2 * c2 + l1 * c2 * std::cos(t2));
    h(1, 1) = i2 + m2 * c2 * c2;
    const Eigen::Vector2d c(-m2 * l1 * c2 * std::sin(t2) * (2 * w1 * w2 + w2 * w2),
                            m2 * l1 * c2 * std::sin(t2) * w1 * w1);
    const Eigen::Vector2d grav(
        g * (m1 * c1 * std::sin(t1) + m2 * (l1 * std::sin(t1) + c2 * std::sin(t1 + t2))),
        g * m2 * c2 * std::sin(t1 + t2));
    const Eigen::Vector2d qacc = h.inverse() * -(c + grav);
    EXPECT_LT(relative_error(unpack(get(sim.batch().qM(), i), 2), h), 1e-12) << "state " << i;
    EXPECT_LT(relative_error(get(sim.batch().qfrc_bias(), i), c + grav), 1e-12) << "state " << i;
    EXPECT_LT(relative_error(get(sim.batch().qacc(), i), qacc), 1e-12) << "state " << i;
  }
}

// time between successive upward zero crossings of θ, interpolated linearly, averaged
double measured_period(const Model& model, double amplitude, double duration) {
  Simulator<double> sim(model, 1);
  const std::vector<double> q0{amplitude};
  sim.batch().qpos().set(0, q0);
  const double dt = model.timestep;
  std::vector<double> crossings;
  double prev = amplitude;
  for (int k = 1; k * dt <= duration; ++k) {
    sim.step(1);
    const double q = sim.batch().qpos()(0, 0);
    if (prev < 0 && q >= 0) crossings.push_back((k - 1) * dt + dt * (-prev) / (q - prev));
    prev = q;
  }
  EXPECT_GE(crossings.size(), 3u);
  return (crossings.back() - crossings.front()) / static_cast<double>(crossings.size() - 1);
}

// physical pendulum: T = 4 √(I_p / (m g L)) K(sin(θ0 / 2)), I_p = I_c + m L², small-angle limit
// T0 = 2π √(I_p / (m g L))
TEST(ClosedForm, PendulumPeriod) {
  const double length = 1.0, mass = 1.0, g = 9.81, r = 0.05;
  const double ip = 0.4 * mass * r * r + mass * length * length;
  Model model = examples::pendulum(length, mass);
  model.integrator = Integrator::kRK4;
  model.timestep = 1e-3;

  const double t0 = 2 * std::numbers::pi * std::sqrt(ip / (mass * g * length));
  const double small = measured_period(model, 0.01, 12.0);
  EXPECT_NEAR(small / t0, 1.0, 3e-5);  // the amplitude correction θ0²/16 is 6e-6

  const double amplitude = 1.0;
  const double exact =
      4 * std::sqrt(ip / (mass * g * length)) * std::comp_ellint_1(std::sin(amplitude / 2));
  const double large = measured_period(model, amplitude, 12.0);
  EXPECT_NEAR(large / exact, 1.0, 1e-6);
  EXPECT_GT(large / t0, 1.05);  // and far from the small-angle value
  std::printf("pendulum period: small %.9f (2π√ %.9f), θ0 = 1: %.9f (elliptic %.9f)\n", small, t0,
              large, exact);
}

}  // namespace
}  // namespace zwang::test
