// Bodies merged at load (<compiler fusestatic>): their names, masses, frames and velocities
// (Model::fused_*, zwang::derive's kFused*) against MuJoCo 2.2.2's bodies of the same file
// compiled without merging; settotalmass; the builder's and Model::validate's errors; outputs a
// simulator does not keep.  The URDF importer's merged links: urdf/test_urdf_mujoco.cc.
#include <gtest/gtest.h>
#include <mujoco/mujoco.h>

#include <cmath>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "mujoco_util.h"
#include "test_util.h"
#include "urdf/urdf_files.h"
#include "zwang/derived.hpp"
#include "zwang/loaders.hpp"
#include "zwang/model.hpp"
#include "zwang/simulator.hpp"

namespace zwang::test {
namespace {

std::filesystem::path fused_static_xml() {
  return urdf_dir().parent_path() / "models" / "fused_static.xml";
}

// `text` for MuJoCo with every body kept
std::string unfused(std::string text) {
  const std::string on = R"(fusestatic="true")", off = R"(fusestatic="false")";
  int replaced = 0;
  for (std::size_t at = text.find(on); at != std::string::npos; at = text.find(on, at)) {
    text.replace(at, on.size(), off);
    ++replaced;
  }
  EXPECT_GT(replaced, 0);
  return text;
}

TEST(FusedBodies, FramesAndVelocitiesAreThoseOfMujocosUnmergedBodies) {
  const std::string text = read_text(fused_static_xml());
  const Model z = load_mjcf_string(text, "fused_static.xml").model;
  // document order: the pillar on the world, the plate, the mount and bracket (a chain), the hand
  const std::vector<std::string> merged = {"pillar", "plate", "mount", "bracket", "hand"};
  ASSERT_EQ(z.fused_name, merged);
  for (const std::string& name : merged) EXPECT_LT(z.body_id(name), 0) << name;
  EXPECT_EQ(z.fused_bodyid[0], 0);
  EXPECT_EQ(z.body_name[z.fused_bodyid[3]], "base");
  EXPECT_EQ(z.body_name[z.fused_bodyid[4]], "arm");
  std::string error;
  const MjModelPtr m = load_mujoco_string(unfused(text), "fused_static.xml", &error);
  ASSERT_TRUE(m) << error;
  expect_fused_as_mujoco_bodies(z, m.get(), 1e-12, "fused_static");
}

// settotalmass scales the masses after merging, as MuJoCo scales the compiled model: with no
// mass welded to the world, the merged bodies' masses are those MuJoCo gives the same bodies
// unmerged
TEST(FusedBodies, SetTotalMassScalesTheMergedMasses) {
  constexpr const char* kText = R"(<mujoco>
  <compiler fusestatic="true" settotalmass="7"/>
  <worldbody>
    <body name="torso" pos="0 0 1">
      <freejoint/>
      <geom type="box" size="0.2 0.1 0.1"/>
      <body name="pack" pos="0 0.15 0.05" euler="0.3 0 0.2">
        <geom type="box" size="0.05 0.05 0.1" pos="0.02 0 0"/>
      </body>
      <body name="limb" pos="0.2 0 0">
        <joint type="hinge" axis="0 1 0"/>
        <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03"/>
        <body name="tool" pos="0.3 0 0" euler="0 1 0">
          <inertial pos="0.01 0 0.02" mass="0.4" diaginertia="0.01 0.02 0.03"/>
        </body>
      </body>
    </body>
  </worldbody>
</mujoco>)";
  const Model z = load_mjcf_string(kText).model;
  ASSERT_EQ(z.nfused, 2);
  EXPECT_NEAR(z.total_mass(), 7, 1e-12);
  std::string error;
  const MjModelPtr m = load_mujoco_string(unfused(kText), "settotalmass.xml", &error);
  ASSERT_TRUE(m) << error;
  expect_fused_as_mujoco_bodies(z, m.get(), 1e-12, "settotalmass");
}

TEST(FusedBodies, FloatPrecisionAndOutputsNotKept) {
  const Model z = load_mjcf(fused_static_xml()).model;
  const std::vector<State> states = random_states(z, 5, 3);
  Simulator<double> f64(z, 5);
  Simulator<float> f32(z, 5);
  for (int i = 0; i < 5; ++i) {
    const std::int64_t idx[] = {i};
    f64.reset(idx, states[i]);
    f32.reset(idx, states[i]);
  }
  f64.forward();
  f32.forward();
  for (const Derived what : {Derived::kFusedXpos, Derived::kFusedXquat, Derived::kFusedXmat,
                             Derived::kFusedXipos, Derived::kFusedVel}) {
    std::vector<double> a(5 * derived_size(z, what));
    std::vector<float> b(a.size());
    derive<double>(z, f64.batch(), what, a);
    derive<float>(z, f32.batch(), what, b);
    for (std::size_t k = 0; k < a.size(); ++k) {
      EXPECT_NEAR(b[k], a[k], 1e-5 * std::max(1.0, std::abs(a[k]))) << derived_name(what) << k;
    }
  }
  SimulatorOptions options;
  options.outputs = std::vector<FieldId>{FieldId::xquat};
  Simulator<double> some(z, 2, options);
  some.forward();
  std::vector<double> quat(2 * derived_size(z, Derived::kFusedXquat));
  EXPECT_NO_THROW(derive<double>(z, some.batch(), Derived::kFusedXquat, quat));
  std::vector<double> pos(2 * derived_size(z, Derived::kFusedXpos));
  EXPECT_THROW(derive<double>(z, some.batch(), Derived::kFusedXpos, pos), OutputNotKept);
}

TEST(FusedBodies, TheBuilderAndValidateRefuseBadRecords) {
  const auto builder = [] {
    ModelBuilder b;
    b.add_body({.name = "a", .mass = 1, .inertia = {0.1, 0.1, 0.1, 0, 0, 0}});
    b.add_joint("a", {.name = "j"});
    return b;
  };
  const auto refused = [&](const FusedBodySpec& spec, const std::string& says) {
    ModelBuilder b = builder();
    try {
      b.add_fused_body(spec);
      ADD_FAILURE() << "accepted; expected: " << says;
    } catch (const ModelError& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  };
  refused({.name = "f", .body = "b"}, "body 'b' has not been added");
  refused({.name = "a", .body = "a"}, "a body of that name exists already");
  refused({.name = "f", .body = "a", .pos = {std::nan(""), 0, 0}}, "is not finite");
  refused({.name = "f", .body = "a", .quat = {0, 0, 0, 0}}, "body 'f': quaternion has zero length");
  refused({.name = "f", .body = "a", .mass = -1}, "mass must be positive");
  {
    ModelBuilder b = builder();
    b.add_fused_body({.name = "f", .body = "a", .quat = {2, 0, 0, 0}});
    EXPECT_THROW(b.add_fused_body({.name = "f", .body = "world"}), ModelError);
    EXPECT_THROW(b.add_body({.name = "f", .mass = 1, .inertia = {0.1, 0.1, 0.1, 0, 0, 0}}),
                 ModelError);
    // unnamed ones may be many
    b.add_fused_body({.name = "", .body = "world"});
    b.add_fused_body({.name = "", .body = "world"});
    const Model m = b.build();
    ASSERT_EQ(m.nfused, 3);
    EXPECT_EQ(m.fused_quat[0], 1);
    EXPECT_EQ(m.fused_id("f"), 0);
    Model bad = m;
    bad.fused_bodyid[1] = m.nbody;
    EXPECT_THROW(bad.validate(), ModelError);
    bad = m;
    bad.fused_ipos.pop_back();
    try {
      bad.validate();
      ADD_FAILURE() << "a short fused_ipos was accepted";
    } catch (const ModelError& e) {
      EXPECT_NE(std::string(e.what()).find("fused_ipos"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace zwang::test
