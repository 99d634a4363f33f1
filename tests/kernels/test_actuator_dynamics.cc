// Actuator dynamics and force laws against MuJoCo 2.2.2: act_dot, actuator_force, qfrc_actuator
// and q̈ of mj_forward at random states and activations; act, qpos and qvel after steps of
// mj_step with Euler and RK4 (actrange clamping included); cylinders, affine gains; keyframes'
// act, resets with act; MJCF errors that name the line.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <mujoco/mujoco.h>

#include <functional>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "actuator_models.h"
#include "kernels/status.h"
#include "mujoco_util.h"
#include "test_util.h"
#include "zwang/loaders.hpp"
#include "zwang/simulator.hpp"

namespace zwang::test {
namespace {

constexpr int kStates = 12;
constexpr double kExact = 1e-10;

struct Pair {
  Model z;
  MjModelPtr m;
};

Pair load_both(const std::string& xml) {
  Pair p{zwang::load_mjcf_string(xml, "act.xml", {}, kMujoco2).model, nullptr};
  std::string error;
  p.m = load_mujoco_string(xml, "act.xml", &error);
  EXPECT_TRUE(p.m) << error;
  return p;
}

// random states with activations ~ N(0, 1)
std::vector<State> states_with_act(const Model& model, std::uint64_t seed) {
  std::vector<State> states = random_states(model, kStates, seed);
  std::mt19937_64 rng(seed + 1);
  std::normal_distribution<double> normal(0, 1);
  for (State& s : states) {
    s.act.resize(model.na);
    for (double& a : s.act) a = normal(rng);
  }
  return states;
}

void set_mujoco(const mjModel* m, mjData* d, const State& s) {
  set_state(m, d, s);
  std::copy(s.act.begin(), s.act.end(), d->act);
}

std::unique_ptr<Simulator<double>> simulator_with_act(const Model& model,
                                                      const std::vector<State>& states) {
  auto sim = simulator(model, states);
  for (std::size_t i = 0; i < states.size(); ++i) sim->batch().act().set(i, states[i].act);
  return sim;
}

TEST(ActuatorDynamics, ModelMatchesMujoco) {
  const Pair p = load_both(kActuatorDynamicsModel);
  ASSERT_TRUE(p.m);
  const Model& z = p.z;
  const mjModel* m = p.m.get();
  ASSERT_EQ(z.na, m->na);
  ASSERT_EQ(z.na, 4);
  for (int a = 0; a < z.nu; ++a) {
    EXPECT_EQ(static_cast<int>(z.actuator_dyntype[a]), m->actuator_dyntype[a]) << a;
    EXPECT_EQ(z.actuator_actlimited[a], m->actuator_actlimited[a]) << a;
    if (m->actuator_dyntype[a] != mjDYN_NONE) {
      EXPECT_EQ(z.actuator_actadr[a], a - (m->nu - m->na)) << a;
      EXPECT_EQ(z.actuator_dynprm[3 * a], m->actuator_dynprm[mjNDYN * a]) << a;
    } else {
      EXPECT_EQ(z.actuator_actadr[a], -1) << a;
    }
    if (m->actuator_actlimited[a]) {
      EXPECT_EQ(z.actuator_actrange[2 * a], m->actuator_actrange[2 * a]) << a;
      EXPECT_EQ(z.actuator_actrange[2 * a + 1], m->actuator_actrange[2 * a + 1]) << a;
    }
    if (m->actuator_gaintype[a] == mjGAIN_AFFINE) {
      for (int k = 0; k < 3; ++k)
        EXPECT_EQ(z.actuator_gainprm[3 * a + k], m->actuator_gainprm[mjNGAIN * a + k]) << a;
    }
  }
  // the cylinder's gain is its area π d² / 4
  const int cylinder = z.id(ObjType::kActuator, "cylinder");
  EXPECT_NEAR(z.actuator_gainprm[3 * cylinder], m->actuator_gainprm[mjNGAIN * cylinder], 1e-15);
  EXPECT_NEAR(z.actuator_gainprm[3 * cylinder], std::numbers::pi / 4 * 0.09, 1e-15);
}

// act_dot, actuator_force, qfrc_actuator, q̈ of mj_forward at random states and activations
void expect_forward_matches(const std::string& xml, const std::string& label) {
  Pair p = load_both(xml);
  ASSERT_TRUE(p.m);
  p.z.disableflags |= kDisableConstraint;
  const Model& z = p.z;
  mjModel* m = p.m.get();
  ASSERT_EQ(z.na, m->na);
  const int nv = m->nv, nu = m->nu, na = m->na;
  const std::vector<State> states = states_with_act(z, 5);
  const auto sim = simulator_with_act(z, states);
  sim->forward();
  for (const auto& f : sim->failures()) ADD_FAILURE() << f.message();
  const MjDataPtr d(mj_makeData(m));
  Comparison cmp(label + " forward");
  auto& b = sim->batch();
  for (int s = 0; s < kStates; ++s) {
    set_mujoco(m, d.get(), states[s]);
    mj_forward(m, d.get());
    cmp.check("act_dot", s, b.act_dot().get(s), view(d->act_dot, na), kExact);
    cmp.check("actuator_force", s, b.actuator_force().get(s), view(d->actuator_force, nu), kExact);
    cmp.check("qfrc_actuator", s, b.qfrc_actuator().get(s), view(d->qfrc_actuator, nv), kExact);
    cmp.check("qacc", s, b.qacc().get(s), view(d->qacc, nv), kExact);
    // forward() leaves the state alone
    EXPECT_EQ(b.act().get(s), states[s].act);
  }
}

// act, qpos, qvel after 1 and 50 steps of each integrator from random states
void expect_steps_match(const std::string& xml, const std::string& label,
                        const std::function<void(Simulator<double>&, int)>& check) {
  const Pair p = load_both(xml);
  ASSERT_TRUE(p.m);
  mjModel* m = p.m.get();
  const int nv = m->nv, nq = m->nq, na = m->na;
  const std::vector<State> states = states_with_act(p.z, 9);
  const MjDataPtr d(mj_makeData(m));
  for (const Integrator integrator : {Integrator::kEuler, Integrator::kRK4}) {
    Model z = p.z;
    z.disableflags |= kDisableConstraint;
    z.integrator = integrator;
    m->opt.integrator = integrator == Integrator::kRK4 ? mjINT_RK4 : mjINT_EULER;
    const std::string name = label + (integrator == Integrator::kRK4 ? " rk4" : " euler");
    Comparison cmp(name);
    for (int steps : {1, 50}) {
      const auto sim = simulator_with_act(z, states);
      sim->step(steps);
      for (const auto& f : sim->failures()) ADD_FAILURE() << f.message();
      for (int s = 0; s < kStates; ++s) {
        set_mujoco(m, d.get(), states[s]);
        for (int k = 0; k < steps; ++k) mj_step(m, d.get());
        const std::string what = fmt::format("{}_", steps);
        cmp.check(what + "act", s, sim->batch().act().get(s), view(d->act, na), 1e-9);
        cmp.check(what + "qpos", s, sim->batch().qpos().get(s), view(d->qpos, nq), 1e-9);
        cmp.check(what + "qvel", s, sim->batch().qvel().get(s), view(d->qvel, nv), 1e-9);
      }
      check(*sim, steps);
    }
  }
  m->opt.integrator = mjINT_EULER;
}

TEST(ActuatorDynamics, ForwardMatchesMujoco) {
  expect_forward_matches(kActuatorDynamicsModel, "actuator dynamics");
}

// the integrator's activation leaves its actrange within the first steps (controls up to 1.5,
// activations N(0, 1)), so the clamp acts
TEST(ActuatorDynamics, StepsMatchMujoco) {
  const Model z = zwang::load_mjcf_string(kActuatorDynamicsModel, "act.xml", {}, kMujoco2).model;
  const int clamped = z.actuator_actadr[z.id(ObjType::kActuator, "integrator")];
  expect_steps_match(kActuatorDynamicsModel, "actuator dynamics",
                     [&](Simulator<double>& sim, int steps) {
                       int at_bound = 0;
                       for (int s = 0; s < kStates; ++s) {
                         const double a = sim.batch().act()(s, clamped);
                         EXPECT_GE(a, -0.5) << steps << " steps, state " << s;
                         EXPECT_LE(a, 0.8) << steps << " steps, state " << s;
                         at_bound += a == -0.5 || a == 0.8;
                       }
                       EXPECT_GT(at_bound, 0) << "the clamp never acted";
                     });
}

TEST(ActuatorDynamics, MuscleModelMatchesMujoco) {
  const Pair p = load_both(kMuscleModel);
  ASSERT_TRUE(p.m);
  const Model& z = p.z;
  const mjModel* m = p.m.get();
  ASSERT_EQ(z.na, 3);
  Comparison cmp("muscle model");
  for (int a = 0; a < z.nu; ++a) {
    EXPECT_EQ(static_cast<int>(z.actuator_dyntype[a]), m->actuator_dyntype[a]) << a;
    EXPECT_EQ(static_cast<int>(z.actuator_gaintype[a]), m->actuator_gaintype[a]) << a;
    EXPECT_EQ(static_cast<int>(z.actuator_biastype[a]), m->actuator_biastype[a]) << a;
    cmp.check("lengthrange", a, std::span(z.actuator_lengthrange).subspan(2 * a, 2),
              view(m->actuator_lengthrange + 2 * a, 2), 1e-15);
    cmp.check("dynprm", a, std::span(z.actuator_dynprm).subspan(3 * a, 2),
              view(m->actuator_dynprm + mjNDYN * a, 2), 1e-15);
    // F0 from force, or scale / acc0
    const double* g = m->actuator_gainprm + mjNGAIN * a;
    const std::array<double, 1> f0{g[2] < 0 ? g[3] / m->actuator_acc0[a] : g[2]};
    cmp.check("F0", a, std::span(z.actuator_gainprm).subspan(3 * a, 1), f0, 1e-12);
  }
}

TEST(ActuatorDynamics, MuscleForwardMatchesMujoco) {
  expect_forward_matches(kMuscleModel, "muscles");
}

TEST(ActuatorDynamics, MuscleStepsMatchMujoco) {
  expect_steps_match(kMuscleModel, "muscles", [](Simulator<double>&, int) {});
}

TEST(ActuatorDynamics, TendonMusclesMatchMujoco) {
  const Pair p = load_both(kTendonActuatorModel);
  ASSERT_TRUE(p.m);
  const Model& z = p.z;
  const mjModel* m = p.m.get();
  ASSERT_EQ(z.na, 3);
  Comparison cmp("tendon muscles");
  for (int a = 0; a < 2; ++a) {
    cmp.check("lengthrange", a, std::span(z.actuator_lengthrange).subspan(2 * a, 2),
              view(m->actuator_lengthrange + 2 * a, 2), 1e-15);
    const double* g = m->actuator_gainprm + mjNGAIN * a;
    const std::array<double, 1> f0{g[2] < 0 ? g[3] / m->actuator_acc0[a] : g[2]};
    cmp.check("F0", a, std::span(z.actuator_gainprm).subspan(3 * a, 1), f0, 1e-12);
  }
  expect_forward_matches(kTendonActuatorModel, "tendon actuators");
  expect_steps_match(kTendonActuatorModel, "tendon actuators", [](Simulator<double>&, int) {});
}

// the filter's exact response to a constant input: act → u with time constant τ; Euler's
// (1 − h/τ)ⁿ and the continuous e^{−t/τ} bracket it
TEST(ActuatorDynamics, FilterApproachesItsInput) {
  const char* xml = R"(<mujoco>
  <worldbody><body><joint name="j" type="slide" axis="1 0 0"/><geom size="0.1"/></body></worldbody>
  <actuator><general joint="j" dyntype="filter" dynprm="0.1"/></actuator>
</mujoco>)";
  Model z = zwang::load_mjcf_string(xml, "f.xml", {}, kMujoco2).model;
  ASSERT_EQ(z.na, 1);
  z.integrator = Integrator::kRK4;
  Simulator<double> sim(z, 1);
  sim.batch().ctrl().set(0, std::vector<double>{1});
  sim.step(100);  // t = 0.2 = 2 τ
  EXPECT_NEAR(sim.batch().act()(0, 0), 1 - std::exp(-2.0), 1e-9);
}

// filterexact (MuJoCo 3) integrates the filter exactly: with Euler and a constant input,
// act = u (1 − e^{−t/τ}) after any number of steps
TEST(ActuatorDynamics, FilterExactIsExact) {
  const char* xml = R"(<mujoco>
  <worldbody><body><joint name="j" type="slide" axis="1 0 0"/><geom size="0.1"/></body></worldbody>
  <actuator><general joint="j" dyntype="filterexact" dynprm="0.01"/></actuator>
</mujoco>)";
  const Model z = zwang::load_mjcf_string(xml, "f.xml", {}, kMujoco2).model;
  ASSERT_EQ(z.na, 1);
  EXPECT_EQ(z.actuator_dyntype[0], ActuatorDyn::kFilterExact);
  Simulator<double> sim(z, 1);
  sim.batch().ctrl().set(0, std::vector<double>{0.7});
  sim.step(7);  // t = 0.014 = 1.4 τ, h = 0.2 τ
  EXPECT_NEAR(sim.batch().act()(0, 0), 0.7 * (1 - std::exp(-1.4)), 1e-14);
}

// actearly (MuJoCo 3): the force of the activation after the step, a + h ȧ clamped to actrange
TEST(ActuatorDynamics, ActEarlyUsesTheNextActivation) {
  const char* xml = R"(<mujoco>
  <worldbody><body><joint name="j" type="slide" axis="1 0 0"/><geom size="0.1"/></body></worldbody>
  <actuator><general joint="j" dyntype="integrator" gainprm="2" actearly="true" actlimited="true"
    actrange="-1 1"/></actuator>
</mujoco>)";
  const Model z = zwang::load_mjcf_string(xml, "e.xml", {}, kMujoco2).model;
  ASSERT_EQ(z.actuator_actearly, std::vector<int>{1});
  Simulator<double> sim(z, 2);
  sim.batch().ctrl().fill(std::vector<double>{3});
  sim.batch().act().set(0, std::vector<double>{0.5});
  sim.batch().act().set(1, std::vector<double>{0.999});
  sim.forward();
  EXPECT_DOUBLE_EQ(sim.batch().actuator_force()(0, 0), 2 * (0.5 + 0.002 * 3));
  EXPECT_DOUBLE_EQ(sim.batch().actuator_force()(1, 0), 2.0);
  EXPECT_EQ(sim.batch().act_dot()(1, 0), 3.0);
}

TEST(ActuatorDynamics, KeyframeAndResetSetAct) {
  std::string xml = kActuatorDynamicsModel;
  xml.replace(xml.find("</mujoco>"), 9,
              "<keyframe><key name=\"k\" act=\"0.1 0.2 0.3 0.4\"/><key/></keyframe></mujoco>");
  const Pair p = load_both(xml);
  ASSERT_TRUE(p.m);
  const Model& z = p.z;
  ASSERT_EQ(z.nkey, 2);
  for (int k = 0; k < 2; ++k) {
    for (int i = 0; i < z.na; ++i) EXPECT_EQ(z.key_act[k * z.na + i], p.m->key_act[k * z.na + i]);
  }
  Simulator<double> sim(z, 3);
  const std::vector<std::int64_t> one{1}, all{0, 1, 2};
  sim.reset_keyframe(one, "k");
  EXPECT_EQ(sim.batch().act().get(1), (std::vector<double>{0.1, 0.2, 0.3, 0.4}));
  EXPECT_EQ(sim.batch().act().get(0), (std::vector<double>(4, 0.0)));
  State state{z.qpos0, std::vector<double>(z.nv, 0.0), {}, {1, 2, 3, 4}};
  sim.reset(all, state);
  for (std::int64_t i : all) EXPECT_EQ(sim.batch().act().get(i), state.act);
  sim.reset(all);
  EXPECT_EQ(sim.batch().act().get(2), (std::vector<double>(4, 0.0)));
  state.act = {1, 2};
  EXPECT_THROW(sim.reset(all, state), std::invalid_argument);
}

// a non-finite activation stops the instance as a non-finite qpos does
TEST(ActuatorDynamics, NonFiniteActStopsTheInstance) {
  const Model z = zwang::load_mjcf_string(kActuatorDynamicsModel, "act.xml", {}, kMujoco2).model;
  Simulator<double> sim(z, 2);
  sim.batch().act()(1, 2) = std::numeric_limits<double>::quiet_NaN();
  sim.step(3);
  EXPECT_EQ(sim.batch().status()[0], 0);
  EXPECT_NE(sim.batch().status()[1] & kStatusBadState, 0);
  EXPECT_EQ(sim.batch().time()[1], 0);
}

std::string load_error(const std::string& actuator) {
  const std::string xml = fmt::format(
      "<mujoco>\n<worldbody>\n<body>\n<joint name=\"j\"/>\n<geom size=\"0.1\"/>\n</body>\n"
      "</worldbody>\n<actuator>\n{}\n</actuator>\n</mujoco>\n",
      actuator);
  return error_of([&] { zwang::load_mjcf_string(xml, "bad.xml", {}, kMujoco2); });
}

TEST(ActuatorDynamics, BadInputNamesTheLine) {
  const std::string bogus = load_error("<general joint=\"j\" dyntype=\"bogus\"/>");
  EXPECT_EQ(bogus.find("bad.xml:9: "), 0u) << bogus;
  EXPECT_NE(bogus.find("dyntype"), std::string::npos) << bogus;
  EXPECT_EQ(load_error("<general joint=\"j\" dyntype=\"user\"/>"),
            "bad.xml:9: <general> dyntype \"user\" is not supported (none, integrator, filter, "
            "filterexact and muscle are)");
  EXPECT_EQ(load_error("<general joint=\"j\" dyntype=\"integrator\" actlimited=\"true\" "
                       "actrange=\"1 -1\"/>"),
            "bad.xml:9: <general> attribute 'actrange': [1, -1] is empty (the lower bound must be "
            "smaller)");
  // a muscle's length range: given, or the joint's limits with uselimit; never simulated
  const std::string muscle = load_error("<muscle joint=\"j\"/>");
  EXPECT_EQ(muscle.find("bad.xml:9: actuator 'actuator0': a muscle needs its length range"), 0u)
      << muscle;
  EXPECT_EQ(load_error("<general joint=\"j\" gaintype=\"user\"/>"),
            "bad.xml:9: <general> gaintype \"user\" is not supported (fixed, affine and muscle "
            "are)");
  // MuJoCo 2.2.2's compiler checks: muscle parameters, actrange without dynamics
  const auto has = [](const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
  };
  const std::string lmin = load_error("<muscle joint=\"j\" lmin=\"1.2\" lengthrange=\"0 1\"/>");
  EXPECT_TRUE(has(lmin, "bad.xml:9:") && has(lmin, "lmin < 1 < lmax")) << lmin;
  const std::string range = load_error(
      "<general joint=\"j\" gaintype=\"muscle\" biastype=\"muscle\" dyntype=\"muscle\" "
      "lengthrange=\"0 1\"/>");
  EXPECT_TRUE(has(range, "bad.xml:9:") && has(range, "the muscle gain's range [1, 0] is empty"))
      << range;
  const std::string fvmax = load_error("<muscle joint=\"j\" fvmax=\"0\" lengthrange=\"0 1\"/>");
  EXPECT_TRUE(has(fvmax, "positive scale, vmax, fpmax, fvmax")) << fvmax;
  const std::string none =
      load_error("<general joint=\"j\" actlimited=\"true\" actrange=\"0 1\"/>");
  EXPECT_TRUE(has(none, "bad.xml:9:") && has(none, "no dynamics (dyntype none)")) << none;
}

// validate() keeps hand-edited activation layouts from addressing other rows
TEST(ActuatorDynamics, ValidateChecksTheActivations) {
  const Model z = load_mjcf_string(kActuatorDynamicsModel, "act.xml", {}, kMujoco2).model;
  ASSERT_GT(z.na, 1);
  z.validate();
  Model bad = z;
  bad.na = 0;
  bad.key_act.clear();
  EXPECT_THROW(bad.validate(), ModelError);
  bad = z;
  bad.na = -1;
  EXPECT_THROW(bad.validate(), ModelError);
  bad = z;
  for (int& adr : bad.actuator_actadr) {
    if (adr >= 0) adr += 5;
  }
  EXPECT_THROW(bad.validate(), ModelError);
  bad = z;
  bad.actuator_dyntype[0] = static_cast<ActuatorDyn>(9);
  EXPECT_THROW(bad.validate(), ModelError);
}

}  // namespace
}  // namespace zwang::test
