// Tendons against MuJoCo 2.2.2 on the same MJCF text (tests/tendon_models.h):
//   - smooth dynamics, constraint rows off on both sides: ten_length, ten_velocity, the passive
//     forces of tendon springs and dampers, actuators through tendons (qfrc_actuator,
//     actuator_force), sensordata and q̈ of mj_forward, for fixed and spatial tendons (sites,
//     pulleys, spheres and cylinders with and without side sites); the constants MuJoCo derives at
//     qpos0 and qpos_spring (tendon_length0, tendon_lengthspring, tendon_invweight0);
//   - constraint rows, contacts off: tendon limits, tendon friction loss and tendon equalities,
//     q̈, qfrc_constraint and sensordata (tendon limit sensors) of mj_forward and one Euler step,
//     MuJoCo's Newton run to 1e-15 and zwang's to 1e-13 as in test_constraints.cc;
//   - the loader's messages for what it refuses.
// Tolerances (max |zwang − MuJoCo| / max(1, max |MuJoCo|)): 1e-10 for the smooth quantities and
// the constrained q̈ (rounding in the kinematics and the solves).
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <mujoco/mujoco.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "mujoco_util.h"
#include "tendon_models.h"
#include "zwang/loaders.hpp"
#include "zwang/model.hpp"
#include "zwang/simulator.hpp"

namespace zwang::test {
namespace {

constexpr double kTol = 1e-10;
constexpr int kStates = 16;

struct Case {
  std::string name;
  std::string xml;
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.name;
}

// the compiled tendon arrays, and the constants derived from the kinematics
void compare_model(const Model& z, const mjModel* m, Comparison& cmp) {
  ASSERT_EQ(z.ntendon, m->ntendon);
  for (int t = 0; t < z.ntendon; ++t) {
    ASSERT_EQ(z.tendon_num[t], m->tendon_num[t]) << "tendon " << t;
    for (int w = 0; w < z.tendon_num[t]; ++w) {
      const int zw = z.tendon_adr[t] + w, mw = m->tendon_adr[t] + w;
      EXPECT_EQ(z.wrap_type[zw], m->wrap_type[mw]) << "tendon " << t << " entry " << w;
      EXPECT_EQ(z.wrap_objid[zw], m->wrap_objid[mw]) << "tendon " << t << " entry " << w;
      if (m->wrap_type[mw] != mjWRAP_SITE) {
        EXPECT_EQ(z.wrap_prm[zw], m->wrap_prm[mw]) << "tendon " << t << " entry " << w;
      }
    }
    EXPECT_EQ(z.tendon_limited[t], m->tendon_limited[t]) << "tendon " << t;
  }
  const int n = m->ntendon;
  cmp.check("tendon_stiffness", 0, z.tendon_stiffness, view(m->tendon_stiffness, n), 1e-15);
  cmp.check("tendon_damping", 0, z.tendon_damping, view(m->tendon_damping, n), 1e-15);
  cmp.check("tendon_frictionloss", 0, z.tendon_frictionloss, view(m->tendon_frictionloss, n),
            1e-15);
  cmp.check("tendon_range", 0, z.tendon_range, view(m->tendon_range, 2 * n), 1e-15);
  cmp.check("tendon_margin", 0, z.tendon_margin, view(m->tendon_margin, n), 1e-15);
  cmp.check("tendon_solref_lim", 0, z.tendon_solref_lim, view(m->tendon_solref_lim, 2 * n), 1e-15);
  cmp.check("tendon_solimp_lim", 0, z.tendon_solimp_lim, view(m->tendon_solimp_lim, 5 * n), 1e-15);
  cmp.check("tendon_solref_fri", 0, z.tendon_solref_fri, view(m->tendon_solref_fri, 2 * n), 1e-15);
  cmp.check("tendon_solimp_fri", 0, z.tendon_solimp_fri, view(m->tendon_solimp_fri, 5 * n), 1e-15);
  // MuJoCo 2.2.2 has one rest length; zwang's dead band is [it, it]
  std::vector<double> lower(n), upper(n);
  for (int t = 0; t < n; ++t) {
    lower[t] = z.tendon_lengthspring[2 * t];
    upper[t] = z.tendon_lengthspring[2 * t + 1];
  }
  cmp.check("tendon_lengthspring", 0, lower, view(m->tendon_lengthspring, n), 1e-12);
  cmp.check("tendon_lengthspring upper", 0, upper, view(m->tendon_lengthspring, n), 1e-12);
  cmp.check("tendon_length0", 0, z.tendon_length0, view(m->tendon_length0, n), 1e-12);
  cmp.check("tendon_invweight0", 0, z.tendon_invweight0, view(m->tendon_invweight0, n), 1e-9);
  for (int a = 0; a < z.nu; ++a) {
    EXPECT_EQ(z.actuator_trntype[a], m->actuator_trntype[a]) << "actuator " << a;
    EXPECT_EQ(z.actuator_trnid[a], m->actuator_trnid[2 * a]) << "actuator " << a;
  }
}

// one step of `model` from each state against MuJoCo's mj_step
void expect_step_matches(Comparison& cmp, const std::string& name, const Model& model, mjModel* m,
                         mjData* d, const std::vector<State>& states) {
  const auto stepped = simulator(model, states);
  stepped->step();
  for (const auto& f : stepped->failures()) ADD_FAILURE() << name << ": " << f.message();
  for (std::size_t s = 0; s < states.size(); ++s) {
    set_state(m, d, states[s]);
    mj_step(m, d);
    const int i = static_cast<int>(s);
    cmp.check("step qpos", i, stepped->batch().qpos().get(s), view(d->qpos, m->nq), kTol);
    cmp.check("step qvel", i, stepped->batch().qvel().get(s), view(d->qvel, m->nv), kTol);
  }
}

class Smooth : public ::testing::TestWithParam<Case> {};

// constraint rows off on both sides
TEST_P(Smooth, MatchesMujoco) {
  const Case& c = GetParam();
  std::string error;
  const MjModelPtr m = load_mujoco_string(c.xml, c.name + ".xml", &error);
  ASSERT_TRUE(m) << error;
  Model model = load_mjcf_string(c.xml, c.name + ".xml", {}, kMujoco2).model;
  model.disableflags |= kDisableConstraint;
  ASSERT_NO_FATAL_FAILURE(expect_same_tree(model, m.get()));
  Comparison cmp(c.name);
  ASSERT_NO_FATAL_FAILURE(compare_model(model, m.get(), cmp));

  const std::vector<State> states = random_states(model, kStates, 21);
  const auto sim = simulator(model, states);
  auto& b = sim->batch();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (auto field : {b.qacc(), b.qfrc_passive(), b.qfrc_actuator(), b.actuator_force(),
                     b.ten_length(), b.ten_velocity(), b.sensordata()}) {
    field.fill(std::vector<double>(field.width(), nan));
  }
  sim->forward();
  for (const auto& f : sim->failures()) ADD_FAILURE() << c.name << ": " << f.message();
  const MjDataPtr d(mj_makeData(m.get()));
  const int nv = m->nv;
  // segments beside a wrap geom in MuJoCo's path: bent around it, or left straight
  int bent = 0, straight = 0;
  for (std::size_t s = 0; s < states.size(); ++s) {
    set_state(m.get(), d.get(), states[s]);
    mj_forward(m.get(), d.get());
    for (int t = 0; t < m->ntendon; ++t) {
      int geoms = 0, wraps = 0;
      for (int w = 0; w < m->tendon_num[t]; ++w)
        geoms += m->wrap_type[m->tendon_adr[t] + w] >= mjWRAP_SPHERE;
      for (int w = 0; w < d->ten_wrapnum[t]; ++w) wraps += d->wrap_obj[d->ten_wrapadr[t] + w] >= 0;
      bent += wraps / 2;
      straight += geoms - wraps / 2;
    }
    const int i = static_cast<int>(s);
    cmp.check("ten_length", i, b.ten_length().get(s), view(d->ten_length, m->ntendon), kTol);
    cmp.check("ten_velocity", i, b.ten_velocity().get(s), view(d->ten_velocity, m->ntendon), kTol);
    cmp.check("qfrc_passive", i, b.qfrc_passive().get(s), view(d->qfrc_passive, nv), kTol);
    cmp.check("qfrc_actuator", i, b.qfrc_actuator().get(s), view(d->qfrc_actuator, nv), kTol);
    cmp.check("actuator_force", i, b.actuator_force().get(s), view(d->actuator_force, m->nu), kTol);
    cmp.check("sensordata", i, b.sensordata().get(s), view(d->sensordata, m->nsensordata), kTol);
    cmp.check("qacc", i, b.qacc().get(s), view(d->qacc, nv), kTol);
  }
  if (c.name == "wrap") {
    EXPECT_GT(bent, 0);
    EXPECT_GT(straight, 0);
  }

  // one Euler step and one RK4 step
  for (Integrator integrator : {Integrator::kEuler, Integrator::kRK4}) {
    Model stepped_model = model;
    stepped_model.integrator = integrator;
    m->opt.integrator = integrator == Integrator::kEuler ? mjINT_EULER : mjINT_RK4;
    if (integrator == Integrator::kRK4 && has_rotation_joint(model)) continue;
    expect_step_matches(cmp, c.name, stepped_model, m.get(), d.get(), states);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Mjcf, Smooth,
    ::testing::Values(Case{"fixed", kFixedTendons}, Case{"spatial", kSpatialTendons},
                      Case{"wrap", kWrapTendons}, Case{"limits", kTendonLimits},
                      Case{"equality", kTendonEquality}, Case{"ball_in_cup", kBallInCup}),
    [](const auto& info) { return info.param.name; });

class Constrained : public ::testing::TestWithParam<Case> {};

// limits, friction loss and equalities; contacts off, both solvers run to their tolerances
TEST_P(Constrained, MatchesMujoco) {
  const Case& c = GetParam();
  std::string error;
  const MjModelPtr m = load_mujoco_string(c.xml, c.name + ".xml", &error);
  ASSERT_TRUE(m) << error;
  m->opt.disableflags &= ~mjDSBL_CONSTRAINT;
  m->opt.disableflags |= mjDSBL_CONTACT;
  m->opt.solver = mjSOL_NEWTON;
  m->opt.iterations = 1000;
  m->opt.tolerance = 1e-15;
  Model model = load_mjcf_string(c.xml, c.name + ".xml", {}, kMujoco2).model;
  model.disableflags |= kDisableContact;
  model.iterations = 100;
  model.tolerance = 1e-13;
  ASSERT_NO_FATAL_FAILURE(expect_same_tree(model, m.get()));

  const std::vector<State> states = random_states(model, kStates, 5);
  const auto sim = simulator(model, states);
  auto& b = sim->batch();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (auto field : {b.qacc(), b.qfrc_constraint(), b.sensordata()}) {
    field.fill(std::vector<double>(field.width(), nan));
  }
  sim->forward();
  for (const auto& f : sim->failures()) ADD_FAILURE() << c.name << ": " << f.message();
  const MjDataPtr d(mj_makeData(m.get()));
  const int nv = m->nv;
  Comparison cmp(c.name);
  int rows = 0;
  for (std::size_t s = 0; s < states.size(); ++s) {
    set_state(m.get(), d.get(), states[s]);
    mj_forward(m.get(), d.get());
    const int i = static_cast<int>(s);
    cmp.check("qacc", i, b.qacc().get(s), view(d->qacc, nv), kTol);
    cmp.check("qfrc_constraint", i, b.qfrc_constraint().get(s), view(d->qfrc_constraint, nv), kTol);
    cmp.check("sensordata", i, b.sensordata().get(s), view(d->sensordata, m->nsensordata), kTol);
    EXPECT_EQ(b.efc_nactive()(s, 0), d->nefc) << c.name << " state " << s;
    rows += d->nefc;
  }
  // the states must exercise the rows
  EXPECT_GT(rows, static_cast<int>(states.size())) << c.name;

  expect_step_matches(cmp, c.name, model, m.get(), d.get(), states);
}

INSTANTIATE_TEST_SUITE_P(Mjcf, Constrained,
                         ::testing::Values(Case{"limits", kTendonLimits},
                                           Case{"equality", kTendonEquality},
                                           Case{"ball_in_cup", kBallInCup}),
                         [](const auto& info) { return info.param.name; });

// MuJoCo's arm26 (six muscles on tendons wrapped around the shoulder and elbow cylinders, side
// sites, joint limits), as MuJoCo 2.2.2 ships it.  zwang does not compute muscle length ranges
// by simulation: they are copied from MuJoCo's compiled model into the file's text, model input
// for both.  q̈ of mj_forward and ten_length at random states (some beyond the limits), then
// 20 Euler steps with random controls.
TEST(Arm26, MatchesMujoco) {
  const std::filesystem::path file = "/usr/share/mujoco/model/tendon_arm/arm26.xml";
  std::string error;
  const MjModelPtr m = load_mujoco(file, &error);
  ASSERT_TRUE(m) << error;
  m->opt.disableflags &= ~mjDSBL_CONSTRAINT;
  m->opt.iterations = 1000;
  m->opt.tolerance = 1e-15;
  std::ifstream in(file);
  std::string xml((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (int a = 0; a < m->nu; ++a) {
    const std::string name = mj_id2name(m.get(), mjOBJ_ACTUATOR, a);
    const std::string element = "<muscle name=\"" + name + "\"";
    const std::size_t at = xml.find(element);
    ASSERT_NE(at, std::string::npos) << name;
    xml.insert(at + element.size(),
               fmt::format(" lengthrange=\"{:.17g} {:.17g}\"", m->actuator_lengthrange[2 * a],
                           m->actuator_lengthrange[2 * a + 1]));
  }
  Model model = load_mjcf_string(xml, "arm26.xml", {}, kMujoco2).model;
  model.iterations = 100;
  model.tolerance = 1e-13;
  ASSERT_NO_FATAL_FAILURE(expect_same_tree(model, m.get()));
  Comparison cmp("arm26");
  cmp.check("actuator_lengthrange", 0, model.actuator_lengthrange,
            view(m->actuator_lengthrange, 2 * m->nu), 1e-15);
  // the joints up to 0.3 rad beyond their range [0, 2.09]: further out, sites s0 and x0 put
  // the BE muscle's shoulder wrap on an exact tie that rounding decides (its side site's
  // direction perpendicular to the nearest point, s0 itself)
  std::vector<State> states = random_states(model, kStates, 8);
  std::mt19937_64 rng(8);
  std::uniform_real_distribution<double> angle(-0.3, 2.4);
  for (State& s : states) {
    for (double& q : s.qpos) q = angle(rng);
    for (double& u : s.ctrl) u = 0.5 + u / 3;  // in ctrlrange [0, 1]
  }
  const auto sim = simulator(model, states);
  sim->forward();
  for (const auto& f : sim->failures()) ADD_FAILURE() << f.message();
  const MjDataPtr d(mj_makeData(m.get()));
  auto& b = sim->batch();
  for (std::size_t s = 0; s < states.size(); ++s) {
    set_state(m.get(), d.get(), states[s]);
    mj_forward(m.get(), d.get());
    const int i = static_cast<int>(s);
    cmp.check("ten_length", i, b.ten_length().get(s), view(d->ten_length, m->ntendon), kTol);
    cmp.check("actuator_force", i, b.actuator_force().get(s), view(d->actuator_force, m->nu), kTol);
    cmp.check("qacc", i, b.qacc().get(s), view(d->qacc, m->nv), kTol);
  }
  // 20 steps: activations follow the controls, the limits catch the arm
  for (int step = 0; step < 20; ++step) sim->step();
  for (const auto& f : sim->failures()) ADD_FAILURE() << f.message();
  for (std::size_t s = 0; s < states.size(); ++s) {
    set_state(m.get(), d.get(), states[s]);
    for (int step = 0; step < 20; ++step) mj_step(m.get(), d.get());
    const int i = static_cast<int>(s);
    cmp.check("20 steps qpos", i, b.qpos().get(s), view(d->qpos, m->nq), 1e-9);
    cmp.check("20 steps act", i, b.act().get(s), view(d->act, m->na), 1e-9);
  }
}

// the host's tendon_lengths: the kernels' lengths at a configuration
TEST(TendonLengths, AgreeWithMujoco) {
  std::string error;
  const MjModelPtr m = load_mujoco_string(kSpatialTendons, "spatial.xml", &error);
  ASSERT_TRUE(m) << error;
  const Model model = load_mjcf_string(kSpatialTendons, "spatial.xml", {}, kMujoco2).model;
  const MjDataPtr d(mj_makeData(m.get()));
  Comparison cmp("tendon_lengths");
  const std::vector<State> states = random_states(model, 4, 3);
  for (std::size_t s = 0; s < states.size(); ++s) {
    set_state(m.get(), d.get(), states[s]);
    mj_forward(m.get(), d.get());
    cmp.check("length", static_cast<int>(s), tendon_lengths(model, states[s].qpos),
              view(d->ten_length, m->ntendon), 1e-12);
  }
  EXPECT_THROW(tendon_lengths(model, std::vector<double>(2)), std::invalid_argument);
}

// what the loader refuses, with the element and its line
struct Refusal {
  std::string name, xml, message;
};

void PrintTo(const Refusal& r, std::ostream* os) {
  *os << r.name;
}

class Refused : public ::testing::TestWithParam<Refusal> {};

TEST_P(Refused, NamesTheElement) {
  const Refusal& r = GetParam();
  try {
    load_mjcf_string(r.xml, "bad.xml");
    ADD_FAILURE() << r.name << ": loaded";
  } catch (const ModelError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(r.message), std::string::npos) << what;
    EXPECT_NE(what.find("bad.xml:"), std::string::npos) << what;
  }
}

std::string chain(const std::string& tail) {
  return R"(<mujoco><worldbody><site name="s0"/><body name="a"><joint name="h"/>)"
         R"(<joint name="ball" type="ball"/><geom size="0.1"/><site name="s1" pos="1 0 0"/>)"
         R"(</body></worldbody>)" +
         tail + "</mujoco>";
}

INSTANTIATE_TEST_SUITE_P(
    Mjcf, Refused,
    ::testing::Values(
        Refusal{"unknown_joint",
                chain(R"(<tendon><fixed><joint joint="nope" coef="1"/></fixed></tendon>)"),
                "unknown joint 'nope'"},
        Refusal{"ball_joint",
                chain(R"(<tendon><fixed><joint joint="ball" coef="1"/></fixed></tendon>)"),
                "fixed tendons combine hinge and slide joints"},
        Refusal{"unknown_site",
                chain(R"(<tendon><spatial><site site="s0"/><site site="x"/></spatial></tendon>)"),
                "unknown site 'x'"},
        Refusal{"unknown_wrap_geom",
                chain(R"(<tendon><spatial><site site="s0"/><geom geom="g"/><site site="s1"/>)"
                      R"(</spatial></tendon>)"),
                "unknown geom 'g'"},
        Refusal{"box_wrap",
                R"(<mujoco><worldbody><site name="s0"/><body name="a"><joint/>)"
                R"(<geom name="g" type="box" size="0.1 0.1 0.1"/><site name="s1" pos="1 0 0"/>)"
                R"(</body></worldbody><tendon><spatial><site site="s0"/><geom geom="g"/>)"
                R"(<site site="s1"/></spatial></tendon></mujoco>)",
                "geom 'g' is a box; tendons wrap around spheres and cylinders"},
        Refusal{"wrap_at_end",
                R"(<mujoco><worldbody><site name="s0"/><body name="a"><joint/>)"
                R"(<geom name="g" size="0.1"/><site name="s1" pos="1 0 0"/>)"
                R"(</body></worldbody><tendon><spatial><site site="s0"/><site site="s1"/>)"
                R"(<geom geom="g"/></spatial></tendon></mujoco>)",
                "ends at a site and starts at a site or a pulley"},
        Refusal{"wrap_beside_pulley",
                R"(<mujoco><worldbody><site name="s0"/><body name="a"><joint/>)"
                R"(<geom name="g" size="0.1"/><site name="s1" pos="1 0 0"/>)"
                R"(</body></worldbody><tendon><spatial><site site="s0"/><geom geom="g"/>)"
                R"(<pulley divisor="2"/><site site="s1"/></spatial></tendon></mujoco>)",
                "needs a site before and after it"},
        Refusal{"lone_site",
                chain(R"(<tendon><spatial><site site="s0"/><site site="s1"/><pulley divisor="2"/>)"
                      R"(<site site="s0"/><pulley divisor="2"/><site site="s1"/><site site="s0"/>)"
                      R"(</spatial></tendon>)"),
                "site 's0' is alone between pulleys"},
        Refusal{"unknown_side_site",
                R"(<mujoco><worldbody><site name="s0"/><body name="a"><joint/>)"
                R"(<geom name="g" size="0.1"/><site name="s1" pos="1 0 0"/>)"
                R"(</body></worldbody><tendon><spatial><site site="s0"/>)"
                R"(<geom geom="g" sidesite="nope"/><site site="s1"/></spatial></tendon></mujoco>)",
                "unknown side site 'nope'"},
        Refusal{"one_site", chain(R"(<tendon><spatial><site site="s0"/></spatial></tendon>)"),
                "ends at a site and starts at a site or a pulley"},
        Refusal{"unknown_tendon",
                chain(R"(<tendon><fixed name="t"><joint joint="h" coef="1"/></fixed></tendon>)"
                      R"(<actuator><motor tendon="u"/></actuator>)"),
                "unknown tendon 'u'"},
        Refusal{"joint_and_tendon",
                chain(R"(<tendon><fixed name="t"><joint joint="h" coef="1"/></fixed></tendon>)"
                      R"(<actuator><motor tendon="t" joint="h"/></actuator>)"),
                "has both 'joint' and 'tendon'"},
        Refusal{"unknown_equality_tendon",
                chain(R"(<tendon><fixed name="t"><joint joint="h" coef="1"/></fixed></tendon>)"
                      R"(<equality><tendon tendon1="t" tendon2="v"/></equality>)"),
                "unknown tendon 'v'"}),
    [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace zwang::test
