// Sites against MuJoCo 2.2.2: names, bodies and frames compiled from the same MJCF (pos and
// every orientation form, fromto, default classes and childclass, sites of the world and of
// Gymnasium's inverted double pendulum), then site_xpos and site_xmat (zwang::derive) at
// random states against mj_kinematics; the builder's and the loader's errors.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <mujoco/mujoco.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "mujoco_util.h"
#include "zwang/builder.hpp"
#include "zwang/derived.hpp"
#include "zwang/loaders.hpp"
#include "zwang/model.hpp"
#include "zwang/simulator.hpp"

namespace zwang::test {
namespace {

constexpr double kFrame = 1e-12;

constexpr const char* kSites = R"(<mujoco>
  <compiler angle="degree"/>
  <default>
    <site pos="0.1 0 0"/>
    <default class="turned">
      <site euler="10 20 30"/>
    </default>
    <default class="limb">
      <site type="capsule" size="0.02" pos="0 0 0"/>
    </default>
  </default>
  <worldbody>
    <site name="origin" pos="0 0 0.5"/>
    <body name="a" pos="0 0 1" euler="0 30 0">
      <joint type="ball"/>
      <geom type="capsule" fromto="0 0 0 0 0 -0.5" size="0.05"/>
      <site name="a_default"/>
      <site name="a_quat" pos="0.1 0.2 0.3" quat="0.5 0.5 -0.5 0.5"/>
      <site name="a_axisangle" axisangle="1 1 0 45"/>
      <site name="a_xyaxes" xyaxes="0 1 0 -1 0 1"/>
      <site name="a_zaxis" zaxis="1 1 1" pos="0 0 -0.2"/>
      <site name="a_class" class="turned"/>
      <body name="b" pos="0 0 -0.5" childclass="limb">
        <joint type="hinge" axis="1 0 0"/>
        <geom type="sphere" size="0.1"/>
        <site name="b_fromto" fromto="0 0 0 0.2 0.1 -0.3"/>
        <site pos="0 0.05 0"/>
        <site name="b_box" type="box" fromto="-0.1 0 0 0.1 0 0" size="0.01"/>
      </body>
    </body>
    <body name="c" pos="1 0 1">
      <freejoint/>
      <geom type="box" size="0.1 0.2 0.3"/>
      <site name="c_euler" euler="90 0 45" pos="0.1 -0.2 0.3"/>
    </body>
  </worldbody>
</mujoco>
)";

void expect_same_sites(const Model& z, const mjModel* m) {
  ASSERT_EQ(z.nsite, m->nsite);
  for (int s = 0; s < z.nsite; ++s) {
    const char* name = mj_id2name(m, mjOBJ_SITE, s);
    const std::string where = fmt::format("site {} '{}'", s, z.site_name[s]);
    EXPECT_EQ(z.site_name[s], name != nullptr ? name : "") << where;
    EXPECT_EQ(z.site_bodyid[s], m->site_bodyid[s]) << where;
    for (int k = 0; k < 3; ++k)
      EXPECT_NEAR(z.site_pos[3 * s + k], m->site_pos[3 * s + k], kFrame) << where;
    // q and −q are the same rotation
    double same = 0, opposite = 0;
    for (int k = 0; k < 4; ++k) {
      same = std::max(same, std::abs(z.site_quat[4 * s + k] - m->site_quat[4 * s + k]));
      opposite = std::max(opposite, std::abs(z.site_quat[4 * s + k] + m->site_quat[4 * s + k]));
    }
    EXPECT_LT(std::min(same, opposite), kFrame) << where;
  }
}

// site_xpos and site_xmat of zwang's kinematics (forward()) and of mj_kinematics at the same
// random states, every instance
void expect_same_site_frames(const Model& z, const mjModel* m) {
  constexpr int kStates = 16;
  const std::vector<State> states = random_states(z, kStates, 7);
  Simulator<double> sim(z, kStates);
  for (int i = 0; i < kStates; ++i) {
    const std::int64_t idx[] = {i};
    sim.reset(idx, states[i]);
  }
  sim.forward();
  std::vector<double> xpos(static_cast<std::size_t>(kStates) * 3 * z.nsite);
  std::vector<double> xmat(static_cast<std::size_t>(kStates) * 9 * z.nsite);
  derive<double>(z, sim.batch(), Derived::kSiteXpos, xpos);
  derive<double>(z, sim.batch(), Derived::kSiteXmat, xmat);
  MjDataPtr d(mj_makeData(m));
  for (int i = 0; i < kStates; ++i) {
    std::copy(states[i].qpos.begin(), states[i].qpos.end(), d->qpos);
    mj_kinematics(m, d.get());
    for (int s = 0; s < z.nsite; ++s) {
      for (int k = 0; k < 3; ++k) {
        EXPECT_NEAR(xpos[(i * z.nsite + s) * 3 + k], d->site_xpos[3 * s + k], kFrame)
            << "instance " << i << " site " << s;
      }
      for (int k = 0; k < 9; ++k) {
        EXPECT_NEAR(xmat[(i * z.nsite + s) * 9 + k], d->site_xmat[9 * s + k], kFrame)
            << "instance " << i << " site " << s;
      }
    }
  }
}

TEST(Sites, EveryFormAgainstMuJoCo) {
  const Model z = load_mjcf_string(kSites, "sites.xml", {}, kMujoco2).model;
  std::string error;
  const MjModelPtr m = load_mujoco_string(kSites, "sites.xml", &error);
  ASSERT_TRUE(m) << error;
  ASSERT_EQ(z.nsite, 11);
  ASSERT_NO_FATAL_FAILURE(expect_same_sites(z, m.get()));
  expect_same_site_frames(z, m.get());
}

TEST(Sites, GymnasiumDoublePendulum) {
  const std::string dir = gymnasium_dir();
  if (dir.empty()) GTEST_SKIP() << "gymnasium is not installed";
  const std::filesystem::path file = dir + "/envs/mujoco/assets/inverted_double_pendulum.xml";
  const Model z = load_mjcf(file, kMujoco2).model;
  std::string error;
  const MjModelPtr m = load_mujoco(file, &error);
  ASSERT_TRUE(m) << error;
  ASSERT_EQ(z.nsite, 1);
  EXPECT_EQ(z.id(ObjType::kSite, "tip"), 0);
  ASSERT_NO_FATAL_FAILURE(expect_same_sites(z, m.get()));
  expect_same_site_frames(z, m.get());
}

TEST(Sites, Errors) {
  const auto message = [](const std::string& xml) {
    try {
      load_mjcf_string(xml, "bad.xml", {}, kMujoco2);
    } catch (const ModelError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("<mujoco><worldbody><site name=\"s\"/><site name=\"s\"/></worldbody></mujoco>")
                .find("site name 's' is already used"),
            std::string::npos);
  EXPECT_NE(message("<mujoco><worldbody><site fromto=\"0 0 0 0 0 1\"/></worldbody></mujoco>")
                .find("fromto needs a capsule"),
            std::string::npos);
  EXPECT_NE(message("<mujoco><worldbody><site type=\"capsule\" fromto=\"0 0 0 0 0 0\"/>"
                    "</worldbody></mujoco>")
                .find("the two points coincide"),
            std::string::npos);
  EXPECT_NE(
      message("<mujoco><worldbody><site quat=\"0 0 0 0\"/></worldbody></mujoco>").find("site"),
      std::string::npos);

  ModelBuilder b;
  EXPECT_THROW(b.add_site({.name = "s", .body = "nobody"}), ModelError);
  EXPECT_THROW(b.add_site({.name = "s", .pos = {NAN, 0, 0}}), ModelError);
  b.add_site({.name = "s"});
  EXPECT_THROW(b.add_site({.name = "s"}), ModelError);
  Model m = b.build();
  EXPECT_EQ(m.nsite, 1);
  m.site_bodyid[0] = 5;
  EXPECT_THROW(m.validate(), ModelError);
  m.site_bodyid[0] = 0;
  m.site_quat[0] = 2;
  EXPECT_THROW(m.validate(), ModelError);
  m.site_quat[0] = 1;
  m.site_pos.pop_back();
  EXPECT_THROW(m.validate(), ModelError);
}

}  // namespace
}  // namespace zwang::test
