// Contacts against MuJoCo 2.2.2 on the models reinforcement-learning users train on: the
// Gymnasium v5 locomotion models and MuJoCo's humanoid.xml, at states of MuJoCo rollouts with
// random controls (bodies on the ground), and a model with every narrow-phase pair, condim 4 and
// 6, <pair>, <exclude>, priority, solmix, gap and impratio.  For the same contact set MuJoCo's
// problem is strictly convex, so both converged solvers reach the same qacc; MuJoCo's Newton runs
// to 1e-15, zwang's to 1e-13.  Checked: the contacts (count; per geom pair distance, position and
// frame), qacc, qacc_smooth, the contact forces in their frames and cfrc_ext (MuJoCo's
// mj_rnePostConstraint), with both cones.
//
// Tolerance (max |zwang − MuJoCo| / max(1, max |MuJoCo|)): 1e-12 on the contacts' geometry,
// 1e-10 on qacc, forces and cfrc_ext (measured: below 1e-15 and 2e-12).
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <mujoco/mujoco.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "mujoco_util.h"
#include "zwang/loaders.hpp"
#include "zwang/model.hpp"
#include "zwang/simulator.hpp"

namespace zwang::test {
namespace {

namespace fs = std::filesystem;

constexpr double kGeometryTol = 1e-12;
constexpr double kTol = 1e-10;

fs::path gym_assets() {
  const std::string dir = gymnasium_dir();
  return dir.empty() ? fs::path() : fs::path(dir) / "envs" / "mujoco" / "assets";
}

// states of a MuJoCo rollout with uniform random controls from the model's initial state
// perturbed as Gymnasium's reset does: one every `every` steps after `skip`
std::vector<State> rollout_states(const mjModel* m, int count, int skip, int every,
                                  std::uint64_t seed) {
  const MjDataPtr d(mj_makeData(m));
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> noise(-0.1, 0.1), unit(0, 1);
  for (int i = 0; i < m->nq; ++i) d->qpos[i] += noise(rng);
  for (int i = 0; i < m->nv; ++i) d->qvel[i] += noise(rng);
  mj_normalizeQuat(m, d->qpos);
  std::vector<State> states;
  for (int step = 0; static_cast<int>(states.size()) < count; ++step) {
    for (int a = 0; a < m->nu; ++a) {
      const double lo = m->actuator_ctrllimited[a] ? m->actuator_ctrlrange[2 * a] : -1;
      const double hi = m->actuator_ctrllimited[a] ? m->actuator_ctrlrange[2 * a + 1] : 1;
      d->ctrl[a] = lo + (hi - lo) * unit(rng);
    }
    mj_step(m, d.get());
    if (step >= skip && (step - skip) % every == 0) {
      states.push_back({std::vector<double>(d->qpos, d->qpos + m->nq),
                        std::vector<double>(d->qvel, d->qvel + m->nv),
                        std::vector<double>(d->ctrl, d->ctrl + m->nu)});
    }
  }
  return states;
}

void tighten(mjModel* m, int cone) {
  m->opt.disableflags &= ~(mjDSBL_CONSTRAINT | mjDSBL_CONTACT);
  m->opt.solver = mjSOL_NEWTON;
  m->opt.cone = cone;
  m->opt.iterations = 1000;
  m->opt.tolerance = 1e-15;
}

void tighten(Model& model, Cone cone) {
  model.disableflags &= ~(kDisableConstraint | kDisableContact);
  model.cone = cone;
  model.iterations = 200;
  model.tolerance = 1e-13;
}

// `load` gives zwang's model of the same file or text that `m` was loaded from
template <class Load>
void compare(const std::string& label, MjModelPtr m, Load load, int skip) {
  m->opt.disableflags &= ~mjDSBL_CONSTRAINT;
  const std::vector<State> states = rollout_states(m.get(), 12, skip, 20, 7);
  for (Cone cone : {Cone::kPyramidal, Cone::kElliptic}) {
    const std::string name = label + (cone == Cone::kElliptic ? " elliptic" : " pyramidal");
    Model model = load();
    tighten(model, cone);
    tighten(m.get(), cone == Cone::kElliptic ? mjCONE_ELLIPTIC : mjCONE_PYRAMIDAL);
    const auto sim = simulator(model, states);
    sim->forward();
    for (const auto& f : sim->failures()) ADD_FAILURE() << name << ": " << f.message();
    auto& batch = sim->batch();
    const MjDataPtr d(mj_makeData(m.get()));
    Comparison cmp(name);
    int touching = 0;
    for (std::size_t s = 0; s < states.size(); ++s) {
      const int i = static_cast<int>(s);
      set_state(m.get(), d.get(), states[s]);
      mj_forward(m.get(), d.get());
      mj_rnePostConstraint(m.get(), d.get());
      ASSERT_EQ(batch.ncon()(i, 0), d->ncon) << name << " state " << s;
      touching += d->ncon > 0 ? 1 : 0;
      // contacts matched by geom pair and nearest position (a pair may have several)
      std::vector<bool> used(d->ncon, false);
      for (int c = 0; c < d->ncon; ++c) {
        const int g1 = static_cast<int>(batch.contact_geom()(i, 2 * c));
        const int g2 = static_cast<int>(batch.contact_geom()(i, 2 * c + 1));
        const std::vector<double> pos{batch.contact_pos()(i, 3 * c),
                                      batch.contact_pos()(i, 3 * c + 1),
                                      batch.contact_pos()(i, 3 * c + 2)};
        int best = -1;
        double nearest = 0;
        for (int k = 0; k < d->ncon; ++k) {
          const mjContact& con = d->contact[k];
          if (used[k] || con.geom1 != g1 || con.geom2 != g2) continue;
          const double dist =
              std::hypot(con.pos[0] - pos[0], con.pos[1] - pos[1], con.pos[2] - pos[2]);
          if (best < 0 || dist < nearest) {
            best = k;
            nearest = dist;
          }
        }
        ASSERT_GE(best, 0) << name << " state " << s << ": no MuJoCo contact between geoms " << g1
                           << " and " << g2;
        used[best] = true;
        const mjContact& con = d->contact[best];
        std::vector<double> frame(9), force(6);
        for (int k = 0; k < 9; ++k) frame[k] = batch.contact_frame()(i, 9 * c + k);
        for (int k = 0; k < 6; ++k) force[k] = batch.contact_force()(i, 6 * c + k);
        cmp.check("contact dist", i, std::vector<double>{batch.contact_dist()(i, c)},
                  view(&con.dist, 1), kGeometryTol);
        cmp.check("contact pos", i, pos, view(con.pos, 3), kGeometryTol);
        cmp.check("contact frame", i, frame, view(con.frame, 9), kGeometryTol);
        double mj_force[6];
        mj_contactForce(m.get(), d.get(), best, mj_force);
        cmp.check("contact force", i, force, view(mj_force, 6), kTol);
      }
      cmp.check("qacc_smooth", i, batch.qacc_smooth().get(s), view(d->qacc_smooth, m->nv), kTol);
      cmp.check("qacc", i, batch.qacc().get(s), view(d->qacc, m->nv), kTol);
      cmp.check("cfrc_ext", i, batch.cfrc_ext().get(s), view(d->cfrc_ext, 6 * m->nbody), kTol);
    }
    EXPECT_GE(2 * touching, static_cast<int>(states.size()))
        << name << ": most states must touch the ground";
  }
}

void compare_file(const std::string& label, const fs::path& file, int skip) {
  std::string error;
  MjModelPtr m = load_mujoco(file, &error);
  ASSERT_TRUE(m) << error;
  compare(
      label, std::move(m), [&] { return load_model(file, kMujoco2).model; }, skip);
}

class GymnasiumContacts : public ::testing::TestWithParam<const char*> {};

TEST_P(GymnasiumContacts, MatchMuJoCo) {
  const fs::path assets = gym_assets();
  ASSERT_FALSE(assets.empty()) << "gymnasium is not installed for python3: pip install gymnasium";
  compare_file(GetParam(), assets / (std::string(GetParam()) + ".xml"), 100);
}

INSTANTIATE_TEST_SUITE_P(Models, GymnasiumContacts,
                         ::testing::Values("ant", "half_cheetah", "hopper", "walker2d_v5",
                                           "pusher_v5", "humanoid"));

TEST(MuJoCoHumanoidContacts, MatchMuJoCo) {
  compare_file("humanoid.xml", "/usr/share/mujoco/model/humanoid/humanoid.xml", 100);
}

// Torsional and rolling friction (condim 4 and 6), every pair type of the narrow phase, a
// <pair> with its own parameters, priority, solmix, gap and an excluded body pair: free bodies
// tumbling onto a plane and onto each other (cylinder and ellipsoid pairs through MuJoCo's
// general convex collision, kernels/narrowphase_convex.h)
TEST(ContactFeatures, MatchMuJoCo) {
  const std::string xml = R"(<mujoco>
  <option timestep="0.002" impratio="2"/>
  <default><geom solmix="2" margin="0.002"/></default>
  <worldbody>
    <geom name="floor" type="plane" size="2 2 .1" friction="0.8 0.02 0.001"/>
    <geom name="post" type="box" pos="0.4 0 0.1" size="0.05 0.05 0.1"/>
    <body name="ball" pos="0 0 0.3"><freejoint/>
      <geom name="ball" type="sphere" size="0.08" condim="6" friction="1 0.05 0.01" solmix="0.5"/></body>
    <body name="pill" pos="0.1 0.05 0.5" euler="30 60 0"><freejoint/>
      <geom name="pill" type="capsule" size="0.04 0.1" condim="4" priority="1"
            solref="0.03 0.8"/></body>
    <body name="brick" pos="-0.1 0 0.7" euler="10 20 30"><freejoint/>
      <geom name="brick" type="box" size="0.08 0.05 0.03" condim="3" gap="0.001"/></body>
    <body name="can" pos="0.2 -0.2 0.4" euler="80 10 0"><freejoint/>
      <geom name="can" type="cylinder" size="0.05 0.06" condim="6"/></body>
    <body name="egg" pos="-0.2 0.2 0.4" euler="0 40 10"><freejoint/>
      <geom name="egg" type="ellipsoid" size="0.05 0.07 0.04" condim="3"/></body>
    <body name="cube" pos="0.4 0 0.5" euler="5 5 45"><freejoint/>
      <geom name="cube" type="box" size="0.06 0.06 0.06" condim="4"/></body>
  </worldbody>
  <contact>
    <pair geom1="ball" geom2="pill" condim="6" friction="0.5 0.5 0.01 0.001 0.001"
          solref="0.01 1" margin="0.01" gap="0.002"/>
    <exclude body1="brick" body2="cube"/>
  </contact>
</mujoco>)";
  std::string error;
  MjModelPtr m = load_mujoco_string(xml, "features.xml", &error);
  ASSERT_TRUE(m) << error;
  compare(
      "features", std::move(m),
      [&] { return load_mjcf_string(xml, "features.xml", {}, kMujoco2).model; }, 150);
}

}  // namespace
}  // namespace zwang::test
