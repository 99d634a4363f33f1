// The constrained step against MuJoCo 2.2.2: equality, limit and friction-loss rows, contacts
// off on both sides; cfrc_ext (applied, connect and weld forces) as mj_rnePostConstraint.  MuJoCo's
// problem is strictly convex (R > 0), so both converged solvers must reach the same minimiser;
// MuJoCo's Newton runs to tolerance 1e-15 here, zwang's to 1e-13, so the remaining differences are
// rounding in the rows (R, aref) and in the solves.
//
// Tolerance (max |zwang − MuJoCo| / max(1, max |MuJoCo|)): 1e-10 on qacc, qfrc_constraint,
// the active rows' efc_force and one Euler step (measured: below 1e-13).  A limit row at the edge
// of its piecewise-quadratic cost (its jar ≈ 0) may be quadratic in one solver and slack in the
// other at rounding level; both forces are then ≈ 0, within the tolerance.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <mujoco/mujoco.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <numbers>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "data_dir.h"
#include "mujoco_util.h"
#include "zwang/loaders.hpp"
#include "zwang/model.hpp"
#include "zwang/simulator.hpp"

namespace zwang::test {
namespace {

namespace fs = std::filesystem;

constexpr double kTol = 1e-10;
constexpr int kStates = 20;

// the installed gymnasium package's MuJoCo assets, empty if python3 cannot import it
fs::path gym_assets() {
  const std::string dir = gymnasium_dir();
  return dir.empty() ? fs::path() : fs::path(dir) / "envs" / "mujoco" / "assets";
}

// MuJoCo with every constraint but contacts, its Newton solver run to the end
void tighten(mjModel* m) {
  m->opt.disableflags &= ~mjDSBL_CONSTRAINT;
  m->opt.disableflags |= mjDSBL_CONTACT;
  m->opt.solver = mjSOL_NEWTON;
  m->opt.iterations = 1000;
  m->opt.tolerance = 1e-15;
}

void tighten(Model& model) {
  model.disableflags |= kDisableContact;
  model.iterations = 100;
  model.tolerance = 1e-13;
}

// zwang's row slots that MuJoCo instantiates, in MuJoCo's order: every equality and friction
// slot, limit slots whose distance is below the margin (computed here from qpos and the ranges)
std::vector<int> active_slots(const Model& z, const std::vector<double>& qpos) {
  std::vector<int> slots;
  int slot = 0;
  for (int e = 0; e < z.neq; ++e) {
    if (!z.eq_active[e]) continue;
    const int rows = z.eq_type[e] == EqualityType::kConnect ? 3
                     : z.eq_type[e] == EqualityType::kWeld  ? 6
                                                            : 1;
    for (int k = 0; k < rows; ++k) slots.push_back(slot++);
  }
  for (int v = 0; v < z.nv; ++v) {
    if (z.dof_frictionloss[v] > 0) slots.push_back(slot++);
  }
  for (int j = 0; j < z.njnt; ++j) {
    if (!z.jnt_limited[j] || z.jnt_type[j] == JointType::kFree) continue;
    const double lo = z.jnt_range[2 * j], hi = z.jnt_range[2 * j + 1], margin = z.jnt_margin[j];
    if (z.jnt_type[j] == JointType::kBall) {
      const double* q = qpos.data() + z.jnt_qposadr[j];
      double angle = 2 * std::atan2(std::sqrt(q[1] * q[1] + q[2] * q[2] + q[3] * q[3]), q[0]);
      if (angle > std::numbers::pi) angle -= 2 * std::numbers::pi;
      if (std::max(lo, hi) - std::abs(angle) < margin) slots.push_back(slot);
      ++slot;
      continue;
    }
    const double q = qpos[z.jnt_qposadr[j]];
    if (q - lo < margin) slots.push_back(slot);
    if (hi - q < margin) slots.push_back(slot + 1);
    slot += 2;
  }
  return slots;
}

// qacc, qfrc_constraint and the active rows' forces of zwang and MuJoCo at `states`
void compare(const std::string& label, Model model, mjModel* m, const std::vector<State>& states) {
  tighten(model);
  tighten(m);
  ASSERT_NO_FATAL_FAILURE(expect_same_tree(model, m));
  const MjDataPtr d(mj_makeData(m));
  const auto sim = simulator(model, states);
  auto& batch = sim->batch();
  for (auto field : {batch.qacc(), batch.qfrc_constraint(), batch.efc_force()}) {
    field.fill(std::vector<double>(field.width(), std::numeric_limits<double>::quiet_NaN()));
  }
  sim->forward();
  for (const auto& f : sim->failures()) ADD_FAILURE() << label << ": " << f.message();
  const int nv = m->nv;
  Comparison cmp(label);
  int rows = 0;
  for (std::size_t s = 0; s < states.size(); ++s) {
    set_state(m, d.get(), states[s]);
    mj_forward(m, d.get());
    mj_rnePostConstraint(m, d.get());
    const int i = static_cast<int>(s);
    cmp.check("qacc", i, batch.qacc().get(s), view(d->qacc, nv), kTol);
    cmp.check("cfrc_ext", i, batch.cfrc_ext().get(s), view(d->cfrc_ext, 6 * m->nbody), kTol);
    cmp.check("qfrc_constraint", i, batch.qfrc_constraint().get(s), view(d->qfrc_constraint, nv),
              kTol);
    const std::vector<int> slots = active_slots(model, states[s].qpos);
    ASSERT_EQ(static_cast<int>(slots.size()), d->nefc) << label << " state " << s;
    EXPECT_EQ(batch.efc_nactive()(s, 0), d->nefc) << label << " state " << s;
    const std::vector<double> all = batch.efc_force().get(s);
    std::vector<double> force;
    for (int slot : slots) force.push_back(all[slot]);
    cmp.check("efc_force", i, force, view(d->efc_force, d->nefc), kTol);
    rows += d->nefc;
  }
  // the states must exercise the rows
  EXPECT_GT(rows, static_cast<int>(states.size())) << label;

  // one Euler step: the constraint force from H, then (H + h diag(b)) q̈ = τ − h + Jᵀ f
  if (model.integrator != Integrator::kEuler) return;
  const auto stepped = simulator(model, states);
  stepped->step();
  for (const auto& f : stepped->failures()) ADD_FAILURE() << label << ": " << f.message();
  for (std::size_t s = 0; s < states.size(); ++s) {
    set_state(m, d.get(), states[s]);
    mj_step(m, d.get());
    const int i = static_cast<int>(s);
    cmp.check("step qpos", i, stepped->batch().qpos().get(s), view(d->qpos, m->nq), kTol);
    cmp.check("step qvel", i, stepped->batch().qvel().get(s), view(d->qvel, nv), kTol);
  }
}

class GymLimits : public ::testing::TestWithParam<std::string> {};

// Gymnasium's models with joint limits, at random states mostly beyond them
TEST_P(GymLimits, MatchMujoco) {
  const fs::path assets = gym_assets();
  ASSERT_FALSE(assets.empty()) << "gymnasium is not installed for python3: pip install gymnasium";
  const fs::path file = assets / (GetParam() + ".xml");
  Model model = load_mjcf(file, kMujoco2).model;
  std::string error;
  const MjModelPtr m = load_mujoco(file, &error);
  ASSERT_TRUE(m) << error;
  compare(GetParam(), model, m.get(), random_states(model, kStates, 5));
}

INSTANTIATE_TEST_SUITE_P(Models, GymLimits,
                         ::testing::Values("hopper", "walker2d_v5", "ant", "humanoid",
                                           "half_cheetah"));

// each row type on its own and together, written as MJCF for both engines
struct Case {
  std::string name, xml;
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.name;
}

const char* kWeldAndCoupling = R"(
<mujoco model="weld_and_coupling">
  <option timestep="0.002"/>
  <default>
    <joint damping="0.1"/>
    <geom type="capsule" size="0.04"/>
    <equality solref="0.03 0.8"/>
  </default>
  <worldbody>
    <body name="base" pos="0 0 1">
      <freejoint/>
      <geom type="box" size="0.2 0.1 0.05"/>
      <body name="arm" pos="0.2 0 0">
        <joint name="shoulder" type="hinge" axis="0 1 0"/>
        <geom fromto="0 0 0 0.5 0 0"/>
        <body name="hand" pos="0.5 0 0">
          <joint name="wrist" type="ball"/>
          <geom fromto="0 0 0 0.2 0.1 0"/>
        </body>
      </body>
      <body name="other" pos="-0.2 0 0">
        <joint name="elbow" type="hinge" axis="0 0 1"/>
        <joint name="slider" type="slide" axis="1 0 0"/>
        <geom fromto="0 0 0 -0.4 0 0.1"/>
      </body>
    </body>
    <body name="loose" pos="1 0 1">
      <freejoint/>
      <geom type="sphere" size="0.1"/>
    </body>
  </worldbody>
  <equality>
    <weld body1="hand" body2="loose" relpose="0.3 0 0 1 0.2 0 0" torquescale="2"/>
    <weld body1="other" solimp="0.8 0.99 0.01 0.3 3"/>
    <joint joint1="elbow" joint2="shoulder" polycoef="0.1 -0.5 0.2 0.05 0"/>
    <joint joint1="slider" polycoef="0.05 0 0 0 0" solref="-500 -20"/>
  </equality>
</mujoco>)";

const char* kLimitsAndFriction = R"(
<mujoco model="limits_and_friction">
  <compiler angle="radian"/>
  <option timestep="0.002"/>
  <default>
    <geom type="capsule" size="0.04"/>
    <joint limited="true" frictionloss="0.3" solreffriction="0.05 1.2"/>
  </default>
  <worldbody>
    <body name="a">
      <joint name="hinge_a" type="hinge" axis="0 1 0" range="-0.5 0.8" margin="0.1"
             solreflimit="0.01 0.7" solimplimit="0.5 0.9 0.05 0.4 4"/>
      <geom fromto="0 0 0 0 0 -0.6"/>
      <body name="b" pos="0 0 -0.6">
        <joint name="ball_b" type="ball" range="0 0.6" margin="0.05" frictionloss="0.1"/>
        <geom fromto="0 0 0 0.1 0.2 -0.5"/>
        <body name="c" pos="0.1 0.2 -0.5">
          <joint name="slide_c" type="slide" axis="0 0 1" range="-0.1 0.1" armature="0.02"
                 solimpfriction="0.7 0.9 0.01"/>
          <geom fromto="0 0 0 0 0 -0.3"/>
        </body>
      </body>
    </body>
  </worldbody>
</mujoco>)";

std::string four_bar() {
  const fs::path tests = data_dir();
  std::ifstream in(tests / "models" / "four_bar.xml");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class ConstraintModels : public ::testing::TestWithParam<Case> {};

TEST_P(ConstraintModels, MatchMujoco) {
  const Case& c = GetParam();
  std::string error;
  const MjModelPtr m = load_mujoco_string(c.xml, c.name + ".xml", &error);
  ASSERT_TRUE(m) << error;
  Model model = load_mjcf_string(c.xml, c.name + ".xml", {}, kMujoco2).model;
  compare(c.name, model, m.get(), random_states(model, kStates, 9));
}

INSTANTIATE_TEST_SUITE_P(Mjcf, ConstraintModels,
                         ::testing::Values(Case{"four_bar", four_bar()},
                                           Case{"weld_and_coupling", kWeldAndCoupling},
                                           Case{"limits_and_friction", kLimitsAndFriction}),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace zwang::test
