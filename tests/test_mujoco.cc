// Cross-checks zwang against MuJoCo's C library.  Every built-in example of host/model/examples.cc
// is written again here as MJCF, by hand from the same numbers and formulas, and both engines
// are evaluated at the same seeded random states: the smooth dynamics of mj_forward, one step
// of each integrator, and 200-step rollouts.  zwang's RK4 differs from MuJoCo's on ball and free
// joints by design (see check_rk4_on_rotations).
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <mujoco/mujoco.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "mujoco_util.h"
#include "zwang/examples.hpp"
#include "zwang/model.hpp"
#include "zwang/simulator.hpp"

namespace zwang::test {
namespace {

using examples::ChainOptions;
using Vec3 = std::array<double, 3>;
using Quat = std::array<double, 4>;

constexpr double kForwardTolerance = 1e-9;
constexpr double kStepTolerance = 1e-9;
constexpr double kRolloutTolerance = 1e-8;
constexpr int kStates = 20;

// ---------------------------------------------------------------------------------------------
// MJCF transcriptions of host/model/examples.cc

std::string str(const Vec3& v) {
  return fmt::format("{} {} {}", v[0], v[1], v[2]);
}
std::string str(const Quat& q) {
  return fmt::format("{} {} {} {}", q[0], q[1], q[2], q[3]);
}

// (cos(a/2), sin(a/2) axis/|axis|): the rotation by angle a about axis
Quat rotation(const Vec3& axis, double angle) {
  const double n = std::sqrt(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
  const double s = std::sin(angle / 2) / n;
  return {std::cos(angle / 2), s * axis[0], s * axis[1], s * axis[2]};
}

// principal moments of a uniform rod of mass m, length l and radius r along z, about its COM:
// m (3 r² + l²) / 12 across, m r² / 2 along
std::string rod(double m, double l, double r = 0.02) {
  const double side = m * (3 * r * r + l * l) / 12;
  return str(Vec3{side, side, m * r * r / 2});
}

std::string document(std::string_view name, Integrator integrator, const Vec3& gravity,
                     std::string_view bodies, std::string_view actuators = "") {
  return fmt::format(R"(<mujoco model="{}">
  <compiler angle="radian"/>
  <option timestep="0.002" gravity="{}" integrator="{}"/>
  <worldbody>
{}  </worldbody>
  <actuator>
{}  </actuator>
</mujoco>
)",
                     name, str(gravity), integrator == Integrator::kRK4 ? "RK4" : "Euler", bodies,
                     actuators);
}

constexpr Vec3 kGravity{0, 0, -9.81};

std::string pendulum_mjcf(Integrator integrator) {
  const double mass = 1.0, length = 1.0, r = 0.05;
  const double i = 0.4 * mass * r * r;  // a solid sphere of radius r
  return document("pendulum", integrator, kGravity,
                  fmt::format(R"(
    <body name="bob">
      <joint name="hinge" type="hinge" axis="0 1 0"/>
      <inertial pos="0 0 {}" mass="{}" diaginertia="{} {} {}"/>
    </body>
)",
                              -length, mass, i, i, i));
}

std::string double_pendulum_mjcf(Integrator integrator) {
  return document("double_pendulum", integrator, kGravity,
                  fmt::format(R"(
    <body name="upper">
      <joint name="shoulder" type="hinge" axis="0 1 0"/>
      <inertial pos="0 0 -0.5" mass="1" diaginertia="{}"/>
      <body name="lower" pos="0 0 -1">
        <joint name="elbow" type="hinge" axis="0 1 0"/>
        <inertial pos="0 0 -0.4" mass="0.7" diaginertia="{}"/>
      </body>
    </body>
)",
                              rod(1.0, 1.0), rod(0.7, 0.8)));
}

std::string chain_mjcf(const ChainOptions& o, Integrator integrator) {
  const Vec3 axes[4] = {{0, 1, 0}, {1, 0, 0}, {0, 0.6, 0.8}, {0, 0, 1}};
  std::string bodies, closing;
  for (int k = 0; k < o.links; ++k) {
    const Vec3 pos = k == 0 ? Vec3{0, 0, 0} : Vec3{0.05 * (k % 3), 0.02 * k, -0.4};
    const Vec3 principal{0.02 + 0.004 * k, 0.025 + 0.002 * k, 0.011 + 0.003 * k};
    bodies += fmt::format(
        R"(<body name="link{k}" pos="{pos}" quat="{quat}">
<joint name="joint{k}" type="{type}" pos="{jpos}" axis="{axis}" damping="{damping}" armature="{armature}" stiffness="{stiffness}" springref="0.1"/>
<inertial pos="{com}" quat="{frame}" mass="{mass}" diaginertia="{principal}"/>
)",
        fmt::arg("k", k), fmt::arg("pos", str(pos)),
        fmt::arg("quat", str(rotation({0.2, 1.0, 0.1 * k}, 0.15 * k))),
        fmt::arg("type", k % 5 == 4 ? "slide" : "hinge"),
        fmt::arg("jpos", str(Vec3{0.01 * k, 0.0, 0.02})), fmt::arg("axis", str(axes[k % 4])),
        fmt::arg("damping", o.damping), fmt::arg("armature", o.armature),
        fmt::arg("stiffness", o.stiffness), fmt::arg("com", str(Vec3{0.03, -0.01 * k, -0.2})),
        fmt::arg("frame", str(rotation({1.0, 0.3 * k, -0.5}, 0.2 + 0.3 * k))),
        fmt::arg("mass", 0.5 + 0.15 * k), fmt::arg("principal", str(principal)));
    closing += "</body>\n";
  }
  std::string actuators;
  if (o.actuators && o.links >= 3) {
    actuators = R"(
    <motor name="motor0" joint="joint0" gear="2" ctrllimited="true" ctrlrange="-1 1"/>
    <position name="servo1" joint="joint1" gear="1.5" kp="20"/>
    <velocity name="speed2" joint="joint2" kv="3" forcelimited="true" forcerange="-2 2"/>
)";
  }
  return document("chain", integrator, o.gravity ? kGravity : Vec3{0, 0, 0}, bodies + closing,
                  actuators);
}

std::string cart_pole_mjcf(Integrator integrator) {
  return document("cart_pole", integrator, kGravity,
                  fmt::format(R"(
    <body name="cart">
      <joint name="slider" type="slide" axis="1 0 0"/>
      <inertial pos="0 0 0" mass="1" diaginertia="0.01 0.02 0.02"/>
      <body name="pole">
        <joint name="hinge" type="hinge" axis="0 1 0"/>
        <inertial pos="0 0 0.5" mass="0.1" diaginertia="{}"/>
      </body>
    </body>
)",
                              rod(0.1, 1.0)),
                  R"(
    <motor name="push" joint="slider" gear="10" ctrllimited="true" ctrlrange="-1 1"/>
)");
}

std::string floating_base_mjcf(Integrator integrator) {
  return document("floating_base", integrator, kGravity,
                  fmt::format(R"(
    <body name="torso" pos="0 0 1">
      <freejoint name="root"/>
      <inertial pos="0.02 -0.01 0.05" quat="{torso_frame}" mass="5" diaginertia="0.3 0.25 0.12"/>
      <body name="left_thigh" pos="0.1 0.15 -0.2">
        <joint name="left_hip_x" type="hinge" axis="1 0 0"/>
        <joint name="left_hip_y" type="hinge" pos="0 0 0.03" axis="0 1 0"/>
        <inertial pos="0 0 -0.2" mass="1.2" diaginertia="{thigh_left}"/>
        <body name="left_shin" pos="0 0 -0.4" quat="{shin_quat}">
          <joint name="left_knee" type="hinge" axis="0 1 0.2"/>
          <inertial pos="0.01 0 -0.18" mass="0.8" diaginertia="{shin}"/>
        </body>
      </body>
      <body name="right_thigh" pos="0.1 -0.15 -0.2" quat="{right_quat}">
        <joint name="right_slide" type="slide" axis="0.2 0 1"/>
        <joint name="right_hip" type="hinge" pos="0 0.01 0" axis="0 1 0"/>
        <inertial pos="0 0 -0.2" mass="1.1" diaginertia="{thigh_right}"/>
      </body>
    </body>
)",
                              fmt::arg("torso_frame", str(rotation({0.3, 1, 0.2}, 0.4))),
                              fmt::arg("thigh_left", rod(1.2, 0.4)),
                              fmt::arg("shin_quat", str(rotation({0, 0, 1}, 0.3))),
                              fmt::arg("shin", rod(0.8, 0.36)),
                              fmt::arg("right_quat", str(rotation({1, 0, 0}, -0.2))),
                              fmt::arg("thigh_right", rod(1.1, 0.4))));
}

std::string ball_chain_mjcf(Integrator integrator) {
  const int links = 3;
  std::string bodies, closing;
  for (int k = 0; k < links; ++k) {
    bodies += fmt::format(
        R"(<body name="ball{k}" pos="{pos}" quat="{quat}">
<joint name="joint{k}" type="ball" pos="0 0 {anchor}"/>
<inertial pos="0 0.02 -0.25" quat="{frame}" mass="{mass}" diaginertia="0.03 0.02 0.01"/>
)",
        fmt::arg("k", k), fmt::arg("pos", str(k == 0 ? Vec3{0, 0, 0} : Vec3{0.1, 0.0, -0.5})),
        fmt::arg("quat", str(rotation({1, 0.5, 0}, 0.3 * k))), fmt::arg("anchor", 0.05 * k),
        fmt::arg("frame", str(rotation({0, 1, 1}, 0.5 + k))), fmt::arg("mass", 1.0 - 0.2 * k));
    closing += "</body>\n";
  }
  return document("ball_chain", integrator, kGravity, bodies + closing);
}

constexpr ChainOptions kActuatedChain{
    .damping = 0.3, .stiffness = 2, .armature = 0.05, .actuators = true};

struct Example {
  std::string name;
  std::function<Model()> model;
  std::function<std::string(Integrator)> mjcf;
};

// gtest prints a failing test's parameter with this
void PrintTo(const Example& e, std::ostream* os) {
  *os << e.name;
}

const std::vector<Example>& all_examples() {
  namespace ex = zwang::examples;
  static const std::vector<Example> examples = {
      {"pendulum", [] { return ex::pendulum(); }, pendulum_mjcf},
      {"double_pendulum", ex::double_pendulum, double_pendulum_mjcf},
      {"chain_actuated", [] { return ex::chain(kActuatedChain); },
       [](Integrator i) { return chain_mjcf(kActuatedChain, i); }},
      {"chain", [] { return ex::chain(); }, [](Integrator i) { return chain_mjcf({}, i); }},
      {"cart_pole", ex::cart_pole, cart_pole_mjcf},
      {"floating_base", [] { return ex::floating_base(); }, floating_base_mjcf},
      {"ball_chain", [] { return ex::ball_chain(); }, ball_chain_mjcf},
  };
  return examples;
}

const Example& example(std::string_view name) {
  for (const Example& e : all_examples()) {
    if (e.name == name) return e;
  }
  throw std::invalid_argument(fmt::format("no example named {}", name));
}

// ---------------------------------------------------------------------------------------------
// MuJoCo

// an example's MJCF as MuJoCo compiles it
MjModelPtr load(const Example& ex, Integrator integrator, std::string* error) {
  return load_mujoco_string(ex.mjcf(integrator), "model.xml", error);
}

// the same tree, timestep and gravity
void expect_same_structure(const Model& z, const mjModel* m) {
  ASSERT_NO_FATAL_FAILURE(expect_same_tree(z, m));
  EXPECT_EQ(z.timestep, m->opt.timestep);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(z.gravity[i], m->opt.gravity[i]);
}

// ---------------------------------------------------------------------------------------------
// tests

class MujocoCrossCheck : public ::testing::TestWithParam<Example> {};

// H, h, passive and actuator forces, q̈ and the body frames of mj_forward
TEST_P(MujocoCrossCheck, ForwardMatchesMujoco) {
  const Example& ex = GetParam();
  const Model model = ex.model();
  std::string error;
  const MjModelPtr m = load(ex, Integrator::kEuler, &error);
  ASSERT_TRUE(m) << ex.name << ": " << error;
  ASSERT_NO_FATAL_FAILURE(expect_same_structure(model, m.get())) << ex.name;
  const MjDataPtr d(mj_makeData(m.get()));

  const std::vector<State> states = random_states(model, kStates, 1);
  const auto sim = simulator(model, states);
  // outputs poisoned, so one forward() must write every value compared
  auto& batch = sim->batch();
  for (auto field :
       {batch.qacc(), batch.qM(), batch.qfrc_bias(), batch.qfrc_passive(), batch.qfrc_actuator(),
        batch.actuator_force(), batch.xpos(), batch.xquat(), batch.xipos()}) {
    field.fill(std::vector<double>(field.width(), std::numeric_limits<double>::quiet_NaN()));
  }
  sim->forward();
  for (const auto& f : sim->failures()) ADD_FAILURE() << ex.name << ": " << f.message();

  const int nv = m->nv, nu = m->nu, nbody = m->nbody;
  std::vector<double> dense(static_cast<std::size_t>(nv) * nv);
  const double tol = kForwardTolerance;
  Comparison cmp(ex.name);
  for (int s = 0; s < kStates; ++s) {
    set_state(m.get(), d.get(), states[s]);
    mj_forward(m.get(), d.get());
    mj_fullM(m.get(), dense.data(), d->qM);
    cmp.check("qM", s, unpack(batch.qM().get(s), nv), dense, tol);
    cmp.check("qfrc_bias", s, batch.qfrc_bias().get(s), view(d->qfrc_bias, nv), tol);
    cmp.check("qfrc_passive", s, batch.qfrc_passive().get(s), view(d->qfrc_passive, nv), tol);
    cmp.check("qfrc_actuator", s, batch.qfrc_actuator().get(s), view(d->qfrc_actuator, nv), tol);
    cmp.check("actuator_force", s, batch.actuator_force().get(s), view(d->actuator_force, nu), tol);
    cmp.check("qacc", s, batch.qacc().get(s), view(d->qacc, nv), tol);
    cmp.check("xpos", s, batch.xpos().get(s), view(d->xpos, 3 * nbody), tol);
    cmp.check("xquat", s, align_quats(batch.xquat().get(s), view(d->xquat, 4 * nbody)),
              view(d->xquat, 4 * nbody), tol);
    cmp.check("xipos", s, batch.xipos().get(s), view(d->xipos, 3 * nbody), tol);
  }
}

// `steps` steps of zwang's and MuJoCo's integrator from `count` random states
void check_steps(const Example& ex, Integrator integrator, int count, int steps, double tolerance,
                 std::uint64_t seed) {
  Model model = ex.model();
  model.integrator = integrator;
  std::string error;
  const MjModelPtr m = load(ex, integrator, &error);
  ASSERT_TRUE(m) << ex.name << ": " << error;
  ASSERT_NO_FATAL_FAILURE(expect_same_structure(model, m.get())) << ex.name;
  ASSERT_EQ(m->opt.integrator, integrator == Integrator::kRK4 ? mjINT_RK4 : mjINT_EULER);
  const MjDataPtr d(mj_makeData(m.get()));

  const std::vector<State> states = random_states(model, count, seed);
  const auto sim = simulator(model, states);
  sim->step(steps);
  for (const auto& f : sim->failures()) ADD_FAILURE() << ex.name << ": " << f.message();

  Comparison cmp(fmt::format("{} ({}, {} steps)", ex.name, zwang::to_string(integrator), steps));
  for (int s = 0; s < count; ++s) {
    set_state(m.get(), d.get(), states[s]);
    for (int k = 0; k < steps; ++k) mj_step(m.get(), d.get());
    cmp.check("qpos", s, sim->batch().qpos().get(s), view(d->qpos, m->nq), tolerance);
    cmp.check("qvel", s, sim->batch().qvel().get(s), view(d->qvel, m->nv), tolerance);
  }
}

TEST_P(MujocoCrossCheck, EulerStepMatchesMujoco) {
  check_steps(GetParam(), Integrator::kEuler, kStates, 1, kStepTolerance, 2);
}

// MuJoCo's RK4 sums the stage velocities of ball and free joints as if they were Euclidean,
// which is second order on rotations; zwang's RK4 maps them through the inverse right
// Jacobian of SO(3) and stays fourth order.  Both are measured against MuJoCo with 64
// substeps of h/64, whose error is (1/64)² of MuJoCo's: zwang must be at least ten times
// closer to it than MuJoCo's single step.
void check_rk4_on_rotations(const Example& ex) {
  constexpr int kSubsteps = 64;
  Model model = ex.model();
  model.integrator = Integrator::kRK4;
  std::string error;
  const MjModelPtr m = load(ex, Integrator::kRK4, &error);
  const MjModelPtr fine = load(ex, Integrator::kRK4, &error);
  ASSERT_TRUE(m && fine) << ex.name << ": " << error;
  fine->opt.timestep = m->opt.timestep / kSubsteps;
  const MjDataPtr d(mj_makeData(m.get())), df(mj_makeData(fine.get()));

  const std::vector<State> states = random_states(model, kStates, 3);
  const auto sim = simulator(model, states);
  sim->step(1);
  Comparison zwang_vs_fine(ex.name + " (zwang RK4 vs fine MuJoCo)");
  double worst_zwang = 0, worst_mujoco = 0;
  for (int s = 0; s < kStates; ++s) {
    set_state(m.get(), d.get(), states[s]);
    mj_step(m.get(), d.get());
    set_state(fine.get(), df.get(), states[s]);
    for (int k = 0; k < kSubsteps; ++k) mj_step(fine.get(), df.get());
    for (auto [zw, mj, truth, n] :
         {std::tuple{sim->batch().qpos().get(s), d->qpos, df->qpos, m->nq},
          std::tuple{sim->batch().qvel().get(s), d->qvel, df->qvel, m->nv}}) {
      zwang_vs_fine.check(n == m->nq ? "qpos" : "qvel", s, zw, view(truth, n), 1e-10);
      double scale = 1, ez = 0, em = 0;
      for (int i = 0; i < n; ++i) scale = std::max(scale, std::abs(truth[i]));
      for (int i = 0; i < n; ++i) {
        ez = std::max(ez, std::abs(zw[i] - truth[i]) / scale);
        em = std::max(em, std::abs(mj[i] - truth[i]) / scale);
      }
      worst_zwang = std::max(worst_zwang, ez);
      worst_mujoco = std::max(worst_mujoco, em);
    }
  }
  ::testing::Test::RecordProperty("max_rel_mujoco_rk4_vs_fine",
                                  fmt::format("{:.3g}", worst_mujoco));
  EXPECT_GT(worst_mujoco, 10 * worst_zwang)
      << ex.name << ": zwang " << worst_zwang << ", MuJoCo " << worst_mujoco;
}

// on hinges and slides both RK4s are the classical scheme and agree to rounding
TEST_P(MujocoCrossCheck, Rk4StepMatchesMujoco) {
  const Example& ex = GetParam();
  if (has_rotation_joint(ex.model())) {
    check_rk4_on_rotations(ex);
  } else {
    check_steps(ex, Integrator::kRK4, kStates, 1, kStepTolerance, 3);
  }
}

INSTANTIATE_TEST_SUITE_P(Examples, MujocoCrossCheck, ::testing::ValuesIn(all_examples()),
                         [](const ::testing::TestParamInfo<Example>& info) {
                           return info.param.name;
                         });

// a damped, sprung chain driven by a motor and two servos, some controls clamped
TEST(MujocoRollout, ActuatedChainEuler200Steps) {
  check_steps(example("chain_actuated"), Integrator::kEuler, 1, 200, kRolloutTolerance, 4);
}

TEST(MujocoRollout, ActuatedChainRk4200Steps) {
  check_steps(example("chain_actuated"), Integrator::kRK4, 1, 200, kRolloutTolerance, 5);
}

TEST(MujocoRollout, FloatingBaseEuler200Steps) {
  check_steps(example("floating_base"), Integrator::kEuler, 1, 200, kRolloutTolerance, 6);
}

}  // namespace
}  // namespace zwang::test
