// Batch properties: a batch gives each instance exactly what a run of that instance alone
// gives, one failing instance harms no other, and the accessors check what users pass.
#include <gtest/gtest.h>

#include <cstring>
#include <limits>

#include "kernels/status.h"
#include "test_util.h"
#include "zwang/simulator.hpp"

namespace zwang::test {
namespace {

// random states and per-instance masses (±20 %), the same for any instance count
struct Scenario {
  std::vector<RandomState> states;
  std::vector<Eigen::VectorXd> masses;
};

Scenario make_scenario(const Model& m, int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> scale(0.8, 1.2);
  Scenario s;
  for (int i = 0; i < n; ++i) {
    s.states.push_back(random_state(m, rng));
    Eigen::VectorXd mass = Eigen::Map<const Eigen::VectorXd>(m.body_mass.data(), m.nbody);
    for (int b = 1; b < m.nbody; ++b) mass[b] *= scale(rng);
    s.masses.push_back(mass);
  }
  return s;
}

template <class T>
void apply(Simulator<T>& sim, const Scenario& s, int first, int count) {
  for (int i = 0; i < count; ++i) {
    set(sim.batch().qpos(), i, s.states[first + i].qpos);
    set(sim.batch().qvel(), i, s.states[first + i].qvel);
    set(sim.batch().ctrl(), i, s.states[first + i].ctrl);
    set(sim.batch().body_mass(), i, s.masses[first + i]);
  }
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

void expect_batch_equals_single_runs(Model model, int n, int steps) {
  const Scenario setup = make_scenario(model, n, 51);
  Simulator<double> batch(model, n);
  apply(batch, setup, 0, n);
  batch.step(steps);
  ASSERT_TRUE(batch.failures().empty());
  for (int i = 0; i < n; ++i) {
    Simulator<double> single(model, 1, {.threads = 1});
    apply(single, setup, i, 1);
    single.step(steps);
    ASSERT_TRUE(same_bits(batch.batch().qpos().get(i), single.batch().qpos().get(0)))
        << "instance " << i;
    ASSERT_TRUE(same_bits(batch.batch().qvel().get(i), single.batch().qvel().get(0)))
        << "instance " << i;
    ASSERT_TRUE(same_bits(batch.batch().qacc().get(i), single.batch().qacc().get(0)))
        << "instance " << i;
  }
}

TEST(Batch, ThousandInstancesMatchSeparateRunsBitForBit) {
  expect_batch_equals_single_runs(
      examples::chain({.damping = 0.3, .stiffness = 2, .actuators = true}), 1000, 20);
}

TEST(Batch, FloatingBaseUnderRK4MatchesSeparateRunsBitForBit) {
  Model model = examples::floating_base();
  model.integrator = Integrator::kRK4;
  expect_batch_equals_single_runs(model, 100, 20);
}

TEST(Batch, ThreadCountAndRerunsDoNotChangeResults) {
  const Model model = examples::ball_chain();
  const Scenario setup = make_scenario(model, 300, 52);
  std::vector<std::vector<double>> runs;
  for (int threads : {1, 2, 2}) {
    Simulator<double> sim(model, 300, {.threads = threads});
    apply(sim, setup, 0, 300);
    sim.step(30);
    std::vector<double> all;
    for (int i = 0; i < 300; ++i) {
      const std::vector<double> q = sim.batch().qpos().get(i);
      all.insert(all.end(), q.begin(), q.end());
    }
    runs.push_back(all);
  }
  EXPECT_TRUE(same_bits(runs[0], runs[1]));
  EXPECT_TRUE(same_bits(runs[1], runs[2]));
}

// a NaN state, a non-positive-definite H and a blow-up each stop their own instance only
TEST(Batch, FailingInstancesAreReportedAndIsolated) {
  const Model model = examples::chain();
  constexpr int kN = 64;
  const Scenario setup = make_scenario(model, kN, 53);
  Simulator<double> clean(model, kN), faulty(model, kN);
  apply(clean, setup, 0, kN);
  apply(faulty, setup, 0, kN);

  std::vector<double> qvel = faulty.batch().qvel().get(3);
  qvel[2] = std::numeric_limits<double>::quiet_NaN();
  faulty.batch().qvel().set(3, qvel);
  std::vector<double> mass = faulty.batch().body_mass().get(5);
  for (int b = 1; b < model.nbody; ++b) mass[b] = -mass[b];
  faulty.batch().body_mass().set(5, mass);
  // masses this large are valid parameters, but H overflows
  std::vector<double> huge = faulty.batch().body_mass().get(7);
  for (int b = 1; b < model.nbody; ++b) huge[b] = std::numeric_limits<double>::max();
  faulty.batch().body_mass().set(7, huge);
  std::vector<double> gravity{0, 0, 1e300};
  faulty.batch().gravity().set(9, gravity);
  const std::vector<double> qpos5 = faulty.batch().qpos().get(5);

  clean.step(10);
  faulty.step(10);
  const std::vector<InstanceFailure> failures = faulty.failures();
  ASSERT_EQ(failures.size(), 4u);
  EXPECT_EQ(failures[0].instance, 3);
  EXPECT_EQ(failures[0].status, kStatusBadState);
  EXPECT_NE(failures[0].message().find("instance 3: bad state"), std::string::npos)
      << failures[0].message();
  EXPECT_EQ(failures[1].instance, 5);
  EXPECT_EQ(failures[1].status, kStatusBadParameters);
  EXPECT_NE(failures[1].message().find("instance 5: bad parameters"), std::string::npos)
      << failures[1].message();
  EXPECT_EQ(failures[2].instance, 7);
  EXPECT_EQ(failures[2].status, kStatusFactorization);
  EXPECT_NE(failures[2].message().find("not positive definite"), std::string::npos)
      << failures[2].message();
  EXPECT_EQ(failures[3].instance, 9);
  EXPECT_EQ(failures[3].status & (kStatusDiverged | kStatusFactorization), failures[3].status);
  EXPECT_NE(failures[3].status, 0);

  // the failed instances kept their last good state (5 failed at once, 9 later) and stopped
  EXPECT_TRUE(same_bits(faulty.batch().qpos().get(5), qpos5));
  EXPECT_EQ(faulty.batch().time()[5], 0.0);
  EXPECT_NEAR(clean.batch().time()[5], 10 * model.timestep, 1e-15);
  for (double v : faulty.batch().qpos().get(9)) EXPECT_TRUE(std::isfinite(v));

  // every other instance is bit-identical to the clean run
  for (int i = 0; i < kN; ++i) {
    if (i == 3 || i == 5 || i == 7 || i == 9) continue;
    EXPECT_TRUE(same_bits(faulty.batch().qpos().get(i), clean.batch().qpos().get(i)))
        << "instance " << i;
    EXPECT_TRUE(same_bits(faulty.batch().qvel().get(i), clean.batch().qvel().get(i)))
        << "instance " << i;
  }

  // a reset brings an instance back
  const std::int64_t three[] = {3};
  faulty.reset(three);
  EXPECT_EQ(faulty.batch().status()[3], 0);
  faulty.step(1);
  EXPECT_EQ(faulty.batch().status()[3], 0);
  EXPECT_EQ(faulty.failures().size(), 3u);
}

// a state that blows up inside an RK4 step is a divergence, not a bad starting state
TEST(Batch, BlowUpDuringRk4IsReportedAsDivergence) {
  Model model = examples::ball_chain();
  model.integrator = Integrator::kRK4;
  Simulator<double> sim(model, 4);
  sim.batch().gravity().set(2, std::vector<double>{0, 1e300, 1e300});
  sim.step(5);
  const std::vector<InstanceFailure> failures = sim.failures();
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_EQ(failures[0].instance, 2);
  EXPECT_EQ(failures[0].status & kStatusBadState, 0) << failures[0].message();
  EXPECT_NE(failures[0].status & (kStatusDiverged | kStatusFactorization), 0)
      << failures[0].message();
}

TEST(Batch, ThreadCountIsChecked) {
  const Model model = examples::pendulum();
  EXPECT_THROW(Simulator<double>(model, 4, {.threads = -1}), std::invalid_argument);
  EXPECT_THROW(Simulator<double>(model, 4, {.threads = 1 << 20}), std::invalid_argument);
  EXPECT_NO_THROW(Simulator<double>(model, 4, {.threads = 3}));
}

TEST(Batch, ResetSetsTheGivenStateAndChecksSizes) {
  const Model model = examples::cart_pole();
  Simulator<double> sim(model, 8);
  sim.step(5);
  const std::int64_t some[] = {1, 6};
  const State state{{0.1, 0.2}, {0.3, 0.4}, {0.5}};
  sim.reset(some, state);
  EXPECT_EQ(sim.batch().qpos().get(6), state.qpos);
  EXPECT_EQ(sim.batch().qvel().get(1), state.qvel);
  EXPECT_EQ(sim.batch().ctrl().get(1), state.ctrl);
  EXPECT_EQ(sim.batch().time()[1], 0.0);
  EXPECT_GT(sim.batch().time()[0], 0.0);
  try {
    sim.reset(some, State{{0.1}, {0.3, 0.4}, {}});
    FAIL() << "a short qpos was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "State.qpos has 1 values, the model needs 2");
  }
  const std::int64_t outside[] = {8};
  EXPECT_THROW(sim.reset(outside), std::out_of_range);
}

TEST(Batch, FieldAccessorsCheckTheirArguments) {
  const Model model = examples::double_pendulum();
  Batch<double> b(model, 40);
  // 40 float64 values are 5 cache lines, an odd number: no more
  EXPECT_EQ(b.padded_size(), 40);
  EXPECT_EQ(Batch<double>(model, 41).padded_size(), 56);  // 6 lines would be even: 7
  EXPECT_EQ(Batch<float>(model, 40).padded_size(), 48);   // 3 lines of 16
  EXPECT_EQ(Batch<float>(model, 31).padded_size(), 31);   // below kPadding: not padded
  // 128 lines would be even, 129 one line past 8 KiB: 131
  EXPECT_EQ(Batch<double>(model, 1024).padded_size(), 1048);
  const std::vector<double> q{0.3, -0.2};
  b.qpos().set(17, q);
  EXPECT_EQ(b.qpos().column(1)[17], -0.2);
  EXPECT_EQ(b.qpos().at(17, 0), 0.3);
  try {
    b.qpos().set(2, std::vector<double>{1, 2, 3});
    FAIL() << "a wrong size was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "expected 2 values per instance, got 3");
  }
  try {
    b.qvel().get(40);
    FAIL() << "instance 40 of 40 was accepted";
  } catch (const std::out_of_range& e) {
    EXPECT_STREQ(e.what(), "instance 40 is not in [0, 40)");
  }
  EXPECT_THROW(b.qpos().at(0, 2), std::out_of_range);
  EXPECT_THROW(Batch<double>(model, 0), std::invalid_argument);
  // parameters start at the model's values
  EXPECT_EQ(b.body_mass().get(39), model.body_mass);
  EXPECT_EQ(b.gravity().get(0), (std::vector<double>{0, 0, -9.81}));
}

// a parameter written for one instance acts on that instance only
TEST(Batch, PerInstanceGravityActsOnItsInstanceOnly) {
  const Model model = examples::pendulum();
  Simulator<double> sim(model, 2);
  for (int i = 0; i < 2; ++i) sim.batch().qpos().set(i, std::vector<double>{0.5});
  sim.batch().gravity().set(1, std::vector<double>{0, 0, -2 * 9.81});
  sim.forward();
  EXPECT_NEAR(sim.batch().qacc()(1, 0), 2 * sim.batch().qacc()(0, 0), 1e-12);
}

TEST(Batch, FloatInstancesFollowDoubleInstances) {
  const Model model = examples::floating_base();
  const Scenario setup = make_scenario(model, 16, 54);
  Simulator<double> d(model, 16);
  Simulator<float> f(model, 16);
  apply(d, setup, 0, 16);
  apply(f, setup, 0, 16);
  d.step(10);
  f.step(10);
  ASSERT_TRUE(f.failures().empty());
  for (int i = 0; i < 16; ++i) {
    EXPECT_LT(relative_error(get(f.batch().qpos(), i), get(d.batch().qpos(), i)), 1e-4)
        << "instance " << i;
    EXPECT_LT(relative_error(get(f.batch().qvel(), i), get(d.batch().qvel(), i)), 1e-3)
        << "instance " << i;
  }
}

}  // namespace
}  // namespace zwang::test
