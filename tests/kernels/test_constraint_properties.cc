// Properties of the constrained step that need no other engine: a soft joint limit is passed
// by no more than its documented softness and never pulls; instances with different active
// rows in one batch give the bits of separate runs; an instance that stops at the iteration
// cap is flagged, goes on, and changes no other instance.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "kernels/status.h"
#include "test_util.h"
#include "zwang/builder.hpp"
#include "zwang/loaders.hpp"
#include "zwang/model.hpp"
#include "zwang/simulator.hpp"

namespace zwang::test {
namespace {

constexpr double kG = 9.81;

// a uniform rod of length 1 m and 1 kg on a hinge about y, hanging along −z at q = 0, limited
// to [lo, hi]
Model limited_pendulum(double lo, double hi, const SolRef& solref = kDefaultSolRef,
                       double margin = 0) {
  ModelBuilder b;
  b.set_timestep(1e-4).set_integrator(Integrator::kRK4);
  b.add_body({.name = "rod",
              .mass = 1,
              .com = {0, 0, -0.5},
              .inertia = inertia_from_principal({1.0 / 12, 1.0 / 12, 1e-4})});
  b.add_joint("rod", {.name = "hinge",
                      .type = JointType::kHinge,
                      .axis = {0, 1, 0},
                      .limited = true,
                      .range = {lo, hi},
                      .margin = margin,
                      .solreflimit = solref});
  return b.build();
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

// Released horizontal (q = −π/2), the rod swings down through q = 0 into the upper limit
// hi = 0.5 rad.  The limit's reference is a critically damped spring of time
// constant τ (solref (τ, 1)): hit at angular speed w it penetrates at most about w dmax τ / e
// (x(t) = w t e^{−t / (dmax τ)}), plus the static deflection (1 − d) / (d k) of the gravity
// load.  The test allows w τ; the limit force is never negative, and the limit never adds
// energy.
TEST(JointLimit, PassedByNoMoreThanItsSoftnessAndNeverPulls) {
  const double hi = 0.5, tau = 0.02;
  const Model model = limited_pendulum(-2, hi, {tau, 1});
  Simulator<double> sim(model, 1, {.threads = 1});
  sim.batch().qpos().set(0, std::vector<double>{-std::numbers::pi / 2});
  // speed at q = hi from energy: ½ I w² = m g (l/2) (cos q_hi − cos q_0), I = m l² / 3
  const double inertia = 1.0 / 3;
  const double w_hit =
      std::sqrt(2 * kG * 0.5 * (std::cos(hi) - std::cos(-std::numbers::pi / 2)) / inertia);
  const int slot = 1;  // the upper limit's row: the lower one is slot 0
  auto energy = [&] {
    const double q = sim.batch().qpos()(0, 0), w = sim.batch().qvel()(0, 0);
    return 0.5 * inertia * w * w - kG * 0.5 * std::cos(q);
  };
  const double e0 = energy();
  double deepest = 0, min_force = 0, max_energy = e0;
  for (int s = 0; s < 20000; ++s) {
    sim.step();
    ASSERT_TRUE(sim.failures().empty()) << sim.failures()[0].message();
    deepest = std::max(deepest, sim.batch().qpos()(0, 0) - hi);
    min_force = std::min(min_force, sim.batch().efc_force()(0, slot));
    min_force = std::min(min_force, sim.batch().efc_force()(0, 0));
    max_energy = std::max(max_energy, energy());
  }
  EXPECT_GT(deepest, 0) << "the pendulum never reached the limit";
  EXPECT_LE(deepest, w_hit * tau) << "hit at " << w_hit << " rad/s";
  EXPECT_GE(min_force, 0);
  EXPECT_LE(max_energy, e0 + 1e-9);
  EXPECT_LT(energy(), e0 - 1e-3) << "a soft limit dissipates";
}

// one batch of 6 pendulums, some beyond a limit, some free, gives each instance the bits of a
// run alone
TEST(ConstrainedBatch, InstancesWithDifferentActiveRowsMatchSeparateRuns) {
  const Model model = limited_pendulum(-0.3, 0.4);
  const std::vector<double> q{-1.0, -0.2, 0.0, 0.35, 0.45, 1.2};
  const std::vector<double> v{0.5, -3.0, 2.0, 1.0, 0.0, -0.5};
  const int n = static_cast<int>(q.size());
  Simulator<double> batch(model, n);
  for (int i = 0; i < n; ++i) {
    batch.batch().qpos().set(i, std::vector<double>{q[i]});
    batch.batch().qvel().set(i, std::vector<double>{v[i]});
  }
  batch.step(200);
  ASSERT_TRUE(batch.failures().empty());
  std::vector<double> active;
  for (int i = 0; i < n; ++i) {
    Simulator<double> single(model, 1, {.threads = 1});
    single.batch().qpos().set(0, std::vector<double>{q[i]});
    single.batch().qvel().set(0, std::vector<double>{v[i]});
    single.step(200);
    EXPECT_TRUE(same_bits(batch.batch().qpos().get(i), single.batch().qpos().get(0))) << i;
    EXPECT_TRUE(same_bits(batch.batch().qvel().get(i), single.batch().qvel().get(0))) << i;
    EXPECT_TRUE(same_bits(batch.batch().efc_force().get(i), single.batch().efc_force().get(0)))
        << i;
  }
  // the start states differ in their active rows
  Simulator<double> start(model, n);
  for (int i = 0; i < n; ++i) start.batch().qpos().set(i, std::vector<double>{q[i]});
  start.forward();
  for (int i = 0; i < n; ++i) active.push_back(start.batch().efc_nactive()(i, 0));
  EXPECT_NE(*std::min_element(active.begin(), active.end()),
            *std::max_element(active.begin(), active.end()));
}

// two hinges about y, j1 and j2, one under the other (uniform rods of 1 kg and 1 m), both with
// the limits and friction loss of `joint`
ModelBuilder two_hinges(double timestep = 2e-3, JointSpec joint = {.name = "", .axis = {0, 1, 0}}) {
  ModelBuilder b;
  b.set_timestep(timestep);
  const Inertia6 rod = inertia_from_principal({1.0 / 12, 1.0 / 12, 1e-4});
  b.add_body({.name = "upper", .mass = 1, .com = {0, 0, -0.5}, .inertia = rod});
  b.add_body({.name = "lower",
              .parent = "upper",
              .pos = {0, 0, -1},
              .mass = 1,
              .com = {0, 0, -0.5},
              .inertia = rod});
  joint.name = "j1";
  b.add_joint("upper", joint);
  joint.name = "j2";
  b.add_joint("lower", joint);
  return b;
}

// a double pendulum, both hinges limited to [lo, hi] and with friction loss f
Model limited_double_pendulum(double lo, double hi, double f) {
  return two_hinges(
             1e-3,
             {.name = "", .axis = {0, 1, 0}, .limited = true, .range = {lo, hi}, .frictionloss = f})
      .build();
}

// with one Newton iteration allowed, an instance with both hinges beyond their limits and
// friction loss (a cost of several pieces, coupled through H) cannot converge: it is flagged,
// keeps stepping, and the instance beside it is what it is alone
TEST(ConstrainedBatch, NonConvergingInstanceIsFlaggedAndHarmsNoOther) {
  Model model = limited_double_pendulum(-0.3, 0.4, 5);
  model.iterations = 1;
  Simulator<double> batch(model, 2);
  batch.batch().qpos().set(0, std::vector<double>{0.6, -0.6});  // beyond the limits
  batch.batch().qvel().set(0, std::vector<double>{3, -3});
  batch.batch().qpos().set(1, std::vector<double>{0.0, 0.0});  // free
  batch.step(1);
  EXPECT_EQ(batch.batch().solver_niter()(0, 0), 1);
  EXPECT_GT(batch.batch().solver_residual()(0, 0), model.tolerance);
  batch.step(9);
  const auto failures = batch.failures();
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_EQ(failures[0].instance, 0);
  EXPECT_EQ(failures[0].status, kStatusNotConverged);
  EXPECT_NE(failures[0].message().find("not converged"), std::string::npos);
  EXPECT_DOUBLE_EQ(batch.batch().time()[0], batch.batch().time()[1]) << "the warning stops nothing";

  Simulator<double> single(model, 1, {.threads = 1});
  single.step(10);
  EXPECT_TRUE(same_bits(batch.batch().qpos().get(1), single.batch().qpos().get(0)));
  EXPECT_TRUE(same_bits(batch.batch().qvel().get(1), single.batch().qvel().get(0)));
  EXPECT_TRUE(single.failures().empty());
}

// switching limits off gives the smooth acceleration; on, the limit pushes back
TEST(ConstrainedBatch, DisableFlagsRemoveTheRows) {
  Model model = limited_pendulum(-0.3, 0.4);
  for (int flags : {0, static_cast<int>(kDisableLimit), static_cast<int>(kDisableConstraint)}) {
    model.disableflags = flags;
    Simulator<double> sim(model, 1);
    sim.batch().qpos().set(0, std::vector<double>{0.6});
    sim.forward();
    const double qacc = sim.batch().qacc()(0, 0), smooth = sim.batch().qacc_smooth()(0, 0);
    // smooth: −m g (l/2) sin q / (m l² / 3)
    EXPECT_NEAR(smooth, -kG * 0.5 * std::sin(0.6) * 3, 1e-9);
    if (flags == 0) {
      EXPECT_LT(qacc, smooth - 1) << "the limit at 0.4 must push back";
    } else {
      EXPECT_EQ(qacc, smooth) << "flags " << flags;
      EXPECT_EQ(sim.model().sizes().nefc, 0);
    }
  }
}

// a two-link arm: the shoulder driven q(t) = A sin(ω t + φ), the elbow limited to [-0.2, 0.2]
// with friction loss, damping on both: hard and soft rows in one solve
template <class T>
Model driven_arm(Integrator integrator, double damping) {
  ModelBuilder b;
  b.set_timestep(1e-3).set_integrator(integrator);
  b.add_body(
      {.name = "upper", .mass = 2, .com = {0, 0, -0.4}, .inertia = {0.1, 0.1, 0.01, 0, 0, 0}});
  b.add_joint("upper", {.name = "shoulder", .axis = {0, 1, 0}, .damping = damping});
  b.add_body({.name = "lower",
              .parent = "upper",
              .pos = {0, 0, -0.8},
              .mass = 1,
              .com = {0, 0, -0.3},
              .inertia = {0.05, 0.05, 0.005, 0, 0, 0}});
  b.add_joint("lower", {.name = "elbow",
                        .axis = {0, 1, 0},
                        .damping = damping,
                        .limited = true,
                        .range = {-0.2, 0.2},
                        .frictionloss = 0.5});
  b.add_drive({.joint = "shoulder", .amplitude = 0.7, .omega = 5, .phase = 0.3});
  return b.build();
}

// on its path, the driven dof's q̈ is exactly the path's −A ω² sin(ω t + φ), whatever the soft
// rows do; in float to its rounding
template <class T>
void expect_drive_exact_with_soft_rows(double tol) {
  const Model model = driven_arm<T>(Integrator::kRK4, 0.3);
  const int n = 16;
  Simulator<T> sim(model, n);
  const double a = 0.7, w = 5, phi = 0.3;
  for (int i = 0; i < n; ++i) {
    const double t = 0.37 * i;
    sim.batch().time()[i] = t;
    // the elbow past its limits, moving both ways
    sim.batch().qpos().set(i, std::vector<T>{T(a * std::sin(w * t + phi)), T(0.4 * (i % 3) - 0.4)});
    sim.batch().qvel().set(i, std::vector<T>{T(a * w * std::cos(w * t + phi)), T(i % 2 ? 3 : -3)});
  }
  sim.forward();
  EXPECT_TRUE(sim.failures().empty()) << sim.failures()[0].message();
  for (int i = 0; i < n; ++i) {
    const double t = 0.37 * i;
    const double expected = -a * w * w * std::sin(w * t + phi);
    EXPECT_NEAR(sim.batch().qacc()(i, 0), expected, tol * (1 + std::abs(expected))) << i;
    EXPECT_GE(sim.batch().efc_nactive()(i, 0), 2) << "the drive and the friction loss at least";
  }
}

TEST(HardAndSoftRows, DriveHoldsExactlyBesideLimitsAndFrictionDouble) {
  expect_drive_exact_with_soft_rows<double>(1e-9);
}

// float: the state itself is rounded (ε |q|, ε |q̇|), and the drift correction turns that into
// K ε |q| + B ε |q̇| ≈ 2500 · 6e-8 · 0.7 + 100 · 6e-8 · 3.5 ≈ 1.3e-4 of acceleration
TEST(HardAndSoftRows, DriveHoldsExactlyBesideLimitsAndFrictionFloat) {
  expect_drive_exact_with_soft_rows<float>(1e-3);
}

// Euler with implicit damping: the damped solve must not weaken the drive; over 2 s the
// driven joint stays on its path to the drift correction's accuracy
TEST(HardAndSoftRows, EulerWithDampingFollowsTheDrive) {
  for (double damping : {0.0, 50.0, 5000.0}) {
    const Model model = driven_arm<double>(Integrator::kEuler, damping);
    Simulator<double> sim(model, 1);
    const double a = 0.7, w = 5, phi = 0.3;
    sim.batch().qpos().set(0, std::vector<double>{a * std::sin(phi), 0});
    sim.batch().qvel().set(0, std::vector<double>{a * w * std::cos(phi), 0});
    double worst = 0;
    for (int s = 0; s < 2000; ++s) {
      sim.step();
      const double t = sim.batch().time()[0];
      worst = std::max(worst, std::abs(sim.batch().qpos()(0, 0) - a * std::sin(w * t + phi)));
    }
    EXPECT_TRUE(sim.failures().empty()) << damping;
    // semi-implicit Euler's own error on this path, h ω² A ≈ 2e-2 per unit time, corrected
    // by the drift term: the joint stays within 1e-3 of its path
    EXPECT_LT(worst, 1e-3) << "damping " << damping;
  }
}

// two independent drives on a light wheel and a heavy slide: neither is taken for dependent,
// whatever the units (float, where relative pivot tests matter most)
TEST(HardRows, IndependentDrivesOfVeryDifferentInertiaBothHold) {
  ModelBuilder b;
  b.add_body({.name = "wheel", .mass = 1e-3, .inertia = {1e-4, 1e-4, 1e-4, 0, 0, 0}});
  b.add_joint("wheel", {.name = "spin", .axis = {0, 0, 1}});
  b.add_body({.name = "sled", .mass = 1000, .inertia = {10, 10, 10, 0, 0, 0}});
  b.add_joint("sled", {.name = "push", .type = JointType::kSlide, .axis = {1, 0, 0}});
  b.add_drive({.joint = "spin", .amplitude = 1, .omega = 3});
  b.add_drive({.joint = "push", .amplitude = 0.5, .omega = 2, .phase = 1});
  const Model model = b.build();
  Simulator<float> sim(model, 1);
  sim.batch().qvel().set(0, std::vector<float>{3, 1 * std::cos(1.0f)});
  sim.batch().qpos().set(0, std::vector<float>{0, 0.5f * std::sin(1.0f)});
  sim.forward();
  EXPECT_TRUE(sim.failures().empty());
  EXPECT_NEAR(sim.batch().qacc()(0, 0), 0, 1e-4);
  EXPECT_NEAR(sim.batch().qacc()(0, 1), -0.5 * 4 * std::sin(1.0), 1e-4);
  // the slide's drive pushes 1000 kg: m q̈
  EXPECT_NEAR(sim.batch().drive_force()(0, 1), 1000 * -0.5 * 4 * std::sin(1.0), 0.5);
}

// a weld between two bodies that cannot move gives no row (as MuJoCo), and nv = 0 is no error
TEST(ConstrainedBatch, EqualityOfBodiesThatCannotMoveIsEmpty) {
  ModelBuilder b;
  b.add_body({.name = "post", .mass = 1, .inertia = {0.1, 0.1, 0.1, 0, 0, 0}});
  b.add_equality({.name = "fixed", .type = EqualityType::kWeld, .obj1 = "post", .obj2 = "world"});
  const Model model = b.build();
  Simulator<double> sim(model, 2);
  sim.forward();
  sim.step(3);
  EXPECT_TRUE(sim.failures().empty());
  EXPECT_EQ(sim.batch().efc_nactive()(0, 0), 0);
}

// ---------------------------------------------------------------------------------------------
// hard rows that contradict one another, and rows that are only redundant

// j1 = polycoef[0] + j2, exact
EqualitySpec tie(const std::string& name, double offset) {
  return {.name = name,
          .type = EqualityType::kJoint,
          .obj1 = "j1",
          .obj2 = "j2",
          .polycoef = {offset, 1, 0, 0, 0},
          .hard = true};
}

// j1 = j2 and j1 = 1 + j2 cannot both hold anywhere: the model is refused, naming both
TEST(HardRows, ContradictionAtTheDefaultStateIsALoadError) {
  ModelBuilder b = two_hinges();
  b.add_equality(tie("same", 0));
  b.add_equality(tie("apart", 1));
  const std::string error = error_of([&] { b.build(); });
  EXPECT_TRUE(error.starts_with("model: hard constraints contradict one another")) << error;
  EXPECT_NE(error.find("equality 'apart' contradicts equality 'same'"), std::string::npos) << error;

  // in MJCF at the element of the equality that cannot hold
  const std::string xml = R"(<mujoco>
  <custom>
    <numeric name="hard:same" data="1"/>
    <numeric name="hard:apart" data="1"/>
  </custom>
  <worldbody>
    <body name="upper">
      <joint name="j1" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0 0 -1" size="0.05" mass="1"/>
      <body name="lower" pos="0 0 -1">
        <joint name="j2" axis="0 1 0"/>
        <geom type="capsule" fromto="0 0 0 0 0 -1" size="0.05" mass="1"/>
      </body>
    </body>
  </worldbody>
  <equality>
    <joint name="same" joint1="j1" joint2="j2"/>
    <joint name="apart" joint1="j1" joint2="j2" polycoef="1 1 0 0 0"/>
  </equality>
</mujoco>)";
  const std::string mjcf = error_of([&] { load_mjcf_string(xml, "two.xml"); });
  EXPECT_TRUE(mjcf.starts_with("two.xml:18: model: hard constraints contradict")) << mjcf;
  // two drives on joints tied together: different motions of one coordinate
  ModelBuilder d = two_hinges();
  d.add_equality(tie("same", 0));
  d.add_drive({.joint = "j1", .amplitude = 1, .omega = 3});
  d.add_drive({.joint = "j2", .amplitude = 1, .omega = 7});
  const std::string drives = error_of([&] { d.build(); });
  EXPECT_TRUE(drives.starts_with("model: hard constraints contradict")) << drives;
  for (const char* who :
       {"the drive of joint 'j1'", "the drive of joint 'j2'", "equality 'same'"}) {
    EXPECT_NE(drives.find(who), std::string::npos) << drives;
  }
}

// Rows that repeat or imply others, and hold, are fine: the same equality twice moves exactly
// as once, and a planar four-bar closed by a hard connect (whose row along the hinge axes acts on
// no dof) runs with its loop closed
TEST(HardRows, RedundantRowsThatHoldAreFine) {
  ModelBuilder once = two_hinges(), twice = two_hinges();
  once.add_equality(tie("same", 0));
  twice.add_equality(tie("same", 0));
  twice.add_equality(tie("again", 0));
  Simulator<double> a(once.build(), 1), b(twice.build(), 1);
  for (Simulator<double>* s : {&a, &b}) {
    s->batch().qpos().set(0, std::vector<double>{0.3, 0.3});
    s->batch().qvel().set(0, std::vector<double>{-1, -1});
    s->step(1000);
    EXPECT_TRUE(s->failures().empty()) << s->failures()[0].message();
  }
  EXPECT_NEAR(b.batch().qpos()(0, 0), a.batch().qpos()(0, 0), 1e-12);
  EXPECT_NEAR(b.batch().qpos()(0, 0), b.batch().qpos()(0, 1), 1e-9);

  // crank (0.5 m down from the origin), coupler (1 m along x), rocker (0.5 m down from x = 1)
  ModelBuilder f;
  f.set_timestep(1e-3);
  const Inertia6 bar = inertia_from_principal({0.02, 0.02, 1e-4});
  f.add_body({.name = "crank", .mass = 1, .com = {0, 0, -0.25}, .inertia = bar});
  f.add_joint("crank", {.name = "c", .axis = {0, 1, 0}});
  f.add_body({.name = "coupler",
              .parent = "crank",
              .pos = {0, 0, -0.5},
              .mass = 1,
              .com = {0.5, 0, 0},
              .inertia = bar});
  f.add_joint("coupler", {.name = "k", .axis = {0, 1, 0}});
  f.add_body({.name = "rocker", .pos = {1, 0, 0}, .mass = 1, .com = {0, 0, -0.25}, .inertia = bar});
  f.add_joint("rocker", {.name = "r", .axis = {0, 1, 0}});
  f.add_equality({.name = "loop",
                  .type = EqualityType::kConnect,
                  .obj1 = "coupler",
                  .obj2 = "rocker",
                  .anchor = {1, 0, 0},
                  .hard = true});
  Simulator<double> fourbar(f.build(), 1);
  fourbar.batch().qvel().set(0, std::vector<double>{4, -4, 4});
  fourbar.step(2000);
  EXPECT_TRUE(fourbar.failures().empty()) << fourbar.failures()[0].message();
  // the loop closed: the coupler's end at the rocker's end
  const double c = fourbar.batch().qpos()(0, 0), r = fourbar.batch().qpos()(0, 2);
  const double k = fourbar.batch().qpos()(0, 1);
  // rotations about y take (x, z) to (x cos q + z sin q, −x sin q + z cos q)
  const double ex = -0.5 * std::sin(c) + std::cos(c + k) - (1 - 0.5 * std::sin(r));
  const double ez = -0.5 * std::cos(c) - std::sin(c + k) - (-0.5 * std::cos(r));
  EXPECT_LT(std::hypot(ex, ez), 1e-6);
  EXPECT_GT(std::abs(c), 0.1) << "the mechanism moved";
}

// A double parallelogram (crank, middle link and rocker of equal length under one coupler), closed
// twice by hard connects: on the closed linkage its rows are redundant.  Started off the closed
// linkage, where they are only nearly dependent, the drift correction closes it, and no instance
// stops for a conflict, in either precision, under Euler and RK4; the loops end closed.
template <class T>
void expect_open_redundant_loops_close(Integrator integrator) {
  ModelBuilder b;
  b.set_timestep(1e-3).set_integrator(integrator);
  const Inertia6 bar = inertia_from_principal({0.02, 0.02, 1e-4});
  b.add_body({.name = "crank", .mass = 1, .com = {0, 0, -0.25}, .inertia = bar});
  b.add_joint("crank", {.name = "c", .axis = {0, 1, 0}});
  b.add_body({.name = "coupler",
              .parent = "crank",
              .pos = {0, 0, -0.5},
              .mass = 1,
              .com = {0.5, 0, 0},
              .inertia = bar});
  b.add_joint("coupler", {.name = "k", .axis = {0, 1, 0}});
  for (const double x : {0.5, 1.0}) {
    const std::string name = x == 0.5 ? "middle" : "rocker";
    b.add_body({.name = name, .pos = {x, 0, 0}, .mass = 1, .com = {0, 0, -0.25}, .inertia = bar});
    b.add_joint(name, {.name = name + "_hinge", .axis = {0, 1, 0}});
    b.add_equality({.name = name + "_loop",
                    .type = EqualityType::kConnect,
                    .obj1 = "coupler",
                    .obj2 = name,
                    .anchor = {x, 0, 0},
                    .hard = true});
  }
  const Model model = b.build();
  const int n = 64;
  Simulator<T> sim(model, n);
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(-0.3, 0.3);
  for (int i = 0; i < n; ++i) {
    std::vector<T> q(4);
    for (T& x : q) x = T(u(rng));
    sim.batch().qpos().set(i, q);
  }
  sim.step(2000);
  EXPECT_TRUE(sim.failures().empty()) << sim.failures()[0].message();
  // closed: the coupler's end at the rocker's end, rotations about y as in the four-bar above
  for (int i = 0; i < n; ++i) {
    const std::vector<T> q = sim.batch().qpos().get(i);
    const double c = q[0], k = q[1], r = q[3];
    const double ex = -0.5 * std::sin(c) + std::cos(c + k) - (1 - 0.5 * std::sin(r));
    const double ez = -0.5 * std::cos(c) - std::sin(c + k) + 0.5 * std::cos(r);
    EXPECT_LT(std::hypot(ex, ez), sizeof(T) == 4 ? 1e-3 : 1e-6) << "instance " << i;
  }
}

TEST(HardRows, RedundantLoopsStartedOpenCloseWithoutConflict) {
  for (const Integrator integrator : {Integrator::kEuler, Integrator::kRK4}) {
    expect_open_redundant_loops_close<double>(integrator);
    expect_open_redundant_loops_close<float>(integrator);
  }
}

// Two drives that agree at t = 0 (same q, q̇, q̈) and then part: the instance runs one step, then
// stops with kStatusHardConflict, keeps its state, and failures() names the constraints; the
// other instances (whose drives agree) move exactly as without it.  Both CPU backends.
template <class T>
void expect_conflict_stops_only_its_instance(CpuSimd simd) {
  ModelBuilder b = two_hinges();
  b.add_equality(tie("same", 0));
  b.add_drive({.joint = "j1", .amplitude = 1, .omega = 3});
  b.add_drive({.joint = "j2", .amplitude = 1, .omega = 3});
  const Model model = b.build();
  const int n = 12, bad = 5;
  Simulator<T> sim(model, n, {.cpu_simd = simd}), clean(model, n, {.cpu_simd = simd});
  // the second drive of instance `bad`: amplitude 3/7 at ω = 7, the same q̇(0) = 3
  std::vector<T> prm = sim.batch().drive_prm().get(bad);
  prm[5 + 2] = T(3.0 / 7);
  prm[5 + 3] = T(7);
  sim.batch().drive_prm().set(bad, prm);
  sim.step(50);
  clean.step(50);
  const std::vector<InstanceFailure> failures = sim.failures();
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_EQ(failures[0].instance, bad);
  EXPECT_EQ(failures[0].status, kStatusHardConflict);
  EXPECT_NE(failures[0].detail.find("the drive of joint 'j2'"), std::string::npos)
      << failures[0].detail;
  EXPECT_NE(failures[0].detail.find("equality 'same'"), std::string::npos) << failures[0].detail;
  EXPECT_NE(failures[0].message().find("contradict"), std::string::npos);
  // it ran the steps near t = 0, where the drives agree, and then stopped
  EXPECT_GT(sim.batch().time()[bad], 0.0);
  EXPECT_LT(sim.batch().time()[bad], 10 * model.timestep);
  for (int i = 0; i < n; ++i) {
    if (i == bad) continue;
    EXPECT_EQ(sim.batch().qpos().get(i), clean.batch().qpos().get(i)) << i;
  }
  EXPECT_TRUE(clean.failures().empty());
}

TEST(HardRows, ConflictStopsOnlyItsInstanceAndNamesTheRowsDouble) {
  expect_conflict_stops_only_its_instance<double>(CpuSimd::kScalar);
  expect_conflict_stops_only_its_instance<double>(CpuSimd::kAuto);
}

TEST(HardRows, ConflictStopsOnlyItsInstanceAndNamesTheRowsFloat) {
  expect_conflict_stops_only_its_instance<float>(CpuSimd::kScalar);
  expect_conflict_stops_only_its_instance<float>(CpuSimd::kAuto);
}

// ---------------------------------------------------------------------------------------------
// iterations 0

// <option iterations="0">, MuJoCo's meaning: the solver does not run, the soft rows carry no
// force, and q̈ is that of the model without them, so the step moves as the model without its
// limit (Euler with and without implicit damping, RK4); a hard drive still holds
TEST(ZeroIterations, SoftRowsCarryNoForceAndTheStepMovesWithoutThem) {
  for (const Integrator integrator : {Integrator::kEuler, Integrator::kRK4}) {
    for (const double damping : {0.0, 0.5}) {
      const auto pendulum = [&](bool limited, bool driven) {
        ModelBuilder b;
        b.set_timestep(2e-3).set_integrator(integrator).set_solver(0, 1e-8);
        b.add_body({.name = "rod",
                    .mass = 1,
                    .com = {0, 0, -0.5},
                    .inertia = inertia_from_principal({1.0 / 12, 1.0 / 12, 1e-4})});
        b.add_joint("rod", {.name = "hinge",
                            .axis = {0, 1, 0},
                            .damping = damping,
                            .limited = limited,
                            .range = {-0.5, 0.5}});
        if (driven) {
          b.add_body({.name = "cart", .mass = 2, .inertia = {0.1, 0.1, 0.1, 0, 0, 0}});
          b.add_joint("cart", {.name = "slide", .type = JointType::kSlide, .axis = {1, 0, 0}});
          b.add_drive({.joint = "slide", .amplitude = 0.2, .omega = 4});
        }
        return b.build();
      };
      Simulator<double> limited(pendulum(true, true), 1), free(pendulum(false, true), 1);
      for (Simulator<double>* s : {&limited, &free}) {
        s->batch().qvel().set(0, std::vector<double>{3.1, 0.8});
      }
      double reached = 0;
      for (int k = 0; k < 1000; ++k) {
        limited.step();
        free.step();
        const std::vector<double> q = limited.batch().qpos().get(0);
        reached = std::max(reached, std::abs(q[0]));
        ASSERT_NEAR(q[0], free.batch().qpos()(0, 0), 1e-12) << k;
        // the drive holds: x(t) = 0.2 sin 4t to its drift correction
        const double t = limited.batch().time()[0];
        ASSERT_NEAR(q[1], 0.2 * std::sin(4 * t), 1e-3) << k;
      }
      EXPECT_GT(reached, 0.6) << "the rod passed its limit";
      EXPECT_TRUE(limited.failures().empty()) << limited.failures()[0].message();
      // forward() beyond the limit: the limit row is active and carries no force, and H q̈ is
      // τ − h plus the drive's force alone
      limited.batch().qpos().set(0, std::vector<double>{0.8, 0});
      limited.forward();
      const Batch<double>& d = limited.batch();
      EXPECT_EQ(d.efc_force()(0, 1), 0.0);
      EXPECT_EQ(d.efc_force()(0, 2), 0.0);
      EXPECT_EQ(d.qfrc_constraint()(0, 0), 0.0);
      EXPECT_NE(d.qfrc_constraint()(0, 1), 0.0) << "the drive's force";
      EXPECT_GE(d.efc_nactive()(0, 0), 2);
      EXPECT_EQ(d.solver_niter()(0, 0), 0);
    }
  }
}

// The same with the hard row and the soft row on one chain, where the drive's row is coupled to
// the limit's through H: the drive's force is that of the model without the limit, and
// H q̈ + h = τ + qfrc_constraint, in forward() and in the RK4 stages of a step
TEST(ZeroIterations, HardForcesIgnoreTheSoftRowsTheyAreCoupledTo) {
  const auto chain = [](bool limited) {
    ModelBuilder b =
        two_hinges(1e-3, {.name = "", .axis = {0, 1, 0}, .limited = limited, .range = {-0.2, 0.2}});
    b.set_integrator(Integrator::kRK4).set_solver(0, 1e-8);
    b.add_drive({.joint = "j1", .amplitude = 0.2, .omega = 4});
    return b.build();
  };
  Simulator<double> limited(chain(true), 3), free(chain(false), 3);
  for (Simulator<double>* s : {&limited, &free}) {
    for (int i = 0; i < 3; ++i) {
      s->batch().qpos().set(i, std::vector<double>{0.1 * i, 0.5 + 0.1 * i});  // j2 beyond its limit
      s->batch().qvel().set(i, std::vector<double>{0.8, -1.0 + i});
    }
  }
  for (int round = 0; round < 2; ++round) {
    for (Simulator<double>* s : {&limited, &free}) round == 0 ? s->forward() : s->step(7);
    for (int i = 0; i < 3; ++i) {
      EXPECT_NEAR(limited.batch().drive_force()(i, 0), free.batch().drive_force()(i, 0),
                  1e-9 * (1 + std::abs(free.batch().drive_force()(i, 0))))
          << "round " << round << ", instance " << i;
      const Eigen::MatrixXd h = unpack(get(limited.batch().qM(), i), 2);
      const Eigen::VectorXd lhs = h * get(limited.batch().qacc(), i) +
                                  get(limited.batch().qfrc_bias(), i) -
                                  get(limited.batch().qfrc_passive(), i);
      const Eigen::VectorXd rhs = get(limited.batch().qfrc_constraint(), i);
      EXPECT_LT((lhs - rhs).norm(), 1e-9 * (1 + rhs.norm())) << "round " << round << ", " << i;
    }
  }
  EXPECT_TRUE(limited.failures().empty());
}

}  // namespace
}  // namespace zwang::test
