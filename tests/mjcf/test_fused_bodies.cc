// Bodies merged at load (<compiler fusestatic>): their names, masses, frames and velocities
// (Model::fused_*, zwang::derive's kFused*) against MuJoCo 2.2.2's bodies of the same file
// compiled without merging; settotalmass; the builder's and Model::validate's errors; outputs a
// simulator does not keep.  The URDF importer's merged links: urdf/test_urdf_mujoco.cc.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <mujoco/mujoco.h>

#include <cmath>
#include <filesystem>
#include <functional>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "mujoco_util.h"
#include "test_util.h"
#include "urdf/urdf_files.h"
#include "zwang/builder.hpp"
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
std::string unfused(std::string_view text) {
  constexpr std::string_view on = R"(fusestatic="true")", off = R"(fusestatic="false")";
  std::string out;
  int replaced = 0;
  for (std::size_t at = text.find(on); at != std::string_view::npos; at = text.find(on)) {
    out.append(text.substr(0, at)).append(off);
    text.remove_prefix(at + on.size());
    ++replaced;
  }
  EXPECT_GT(replaced, 0);
  return out.append(text);
}

TEST(FusedBodies, FramesAndVelocitiesAreThoseOfMujocosUnmergedBodies) {
  const std::string text = read_text(fused_static_xml());
  const Model z = load_mjcf_string(text, "fused_static.xml", {}, kMujoco2).model;
  // document order: the pillar on the world, the plate, the mount and bracket (a chain), the hand
  const std::vector<std::string> merged = {"pillar", "plate", "mount", "bracket", "hand"};
  ASSERT_EQ(z.fused_name, merged);
  for (const std::string& name : merged) EXPECT_LT(z.id(ObjType::kBody, name), 0) << name;
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
// unmerged; a body merged into the world (whose mass no body takes) is scaled by the same factor
// the model, with `compiler` in its <compiler> and `on_world` a first child of the world
std::string total_mass_model(std::string_view compiler, std::string_view on_world) {
  return fmt::format(R"(<mujoco>
  <compiler {}/>
  <worldbody>
    {}
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
</mujoco>)",
                     compiler, on_world);
}

TEST(FusedBodies, SetTotalMassScalesTheMergedMasses) {
  constexpr const char* kMerged = R"(fusestatic="true" settotalmass="7")";
  const Model z = load_mjcf_string(total_mass_model(kMerged, "")).model;
  ASSERT_EQ(z.nfused, 2);
  EXPECT_NEAR(z.total_mass(), 7, 1e-12);
  std::string error;
  const MjModelPtr m =
      load_mujoco_string(total_mass_model(R"(settotalmass="7")", ""), "settotalmass.xml", &error);
  ASSERT_TRUE(m) << error;
  expect_fused_as_mujoco_bodies(z, m.get(), 1e-12, "settotalmass");

  // MuJoCo's masses before scaling: the factor is 7 over those of the bodies that stay
  const std::string post =
      R"(<body name="post" pos="1 0 0"><geom type="box" size="0.1 0.1 0.5"/></body>)";
  const Model w = load_mjcf_string(total_mass_model(kMerged, post)).model;
  const MjModelPtr raw = load_mujoco_string(total_mass_model("", post), "raw.xml", &error);
  ASSERT_TRUE(raw) << error;
  ASSERT_EQ(w.fused_name[0], "post");
  double kept = 0;
  for (int b = 1; b < raw->nbody; ++b) {
    if (w.fused_id(mj_id2name(raw.get(), mjOBJ_BODY, b)) != 0) kept += raw->body_mass[b];
  }
  const double post_mass = raw->body_mass[mj_name2id(raw.get(), mjOBJ_BODY, "post")];
  EXPECT_NEAR(post_mass, 1000 * 0.2 * 0.2 * 1.0, 1e-9);
  EXPECT_NEAR(w.fused_mass[0], post_mass * 7 / kept, 1e-12);
  EXPECT_NEAR(w.total_mass(), 7, 1e-12);
}

// an unnamed body's made-up name (body<index>) avoids the names of merged bodies
TEST(FusedBodies, MadeUpBodyNamesAvoidMergedOnes) {
  constexpr const char* kText = R"(<mujoco>
  <compiler fusestatic="true"/>
  <worldbody>
    <body pos="0 0 1">
      <freejoint/>
      <geom size="0.1"/>
      <body name="body1" pos="0.2 0 0"><geom size="0.05"/></body>
    </body>
  </worldbody>
</mujoco>)";
  const Model z = load_mjcf_string(kText).model;
  ASSERT_EQ(z.nbody, 2);
  EXPECT_EQ(z.body_name[1], "body1_");
  EXPECT_EQ(z.fused_name, std::vector<std::string>{"body1"});
  EXPECT_EQ(z.fused_bodyid[0], 1);
}

TEST(FusedBodies, FloatPrecisionAndOutputsNotKept) {
  const Model z = load_mjcf(fused_static_xml(), kMujoco2).model;
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
  refused({.name = "f", .body = "a", .mass = -1}, "mass must not be negative");
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
    EXPECT_EQ(m.fused_id(""), -1);
    EXPECT_NO_THROW(m.validate());
    const auto invalid = [&](const std::function<void(Model&)>& edit, const std::string& says) {
      Model bad = m;
      edit(bad);
      try {
        bad.validate();
        ADD_FAILURE() << "accepted; expected: " << says;
      } catch (const ModelError& e) {
        EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
      }
    };
    invalid([&](Model& x) { x.fused_bodyid[1] = m.nbody; }, "fused_bodyid[1]");
    invalid([](Model& x) { x.fused_ipos.pop_back(); }, "fused_ipos");
    invalid([](Model& x) { x.nfused = 2; }, "fused_name");
    invalid([](Model& x) { x.fused_quat[4] = 0.5; }, "merged body 1 has a quaternion of norm");
    invalid([](Model& x) { x.fused_mass[2] = -1; }, "merged body 2 has mass -1");
    invalid([](Model& x) { x.fused_name[1] = x.body_name[1]; },
            "merged body 1 is named 'a', as a body is");
  }
}

}  // namespace
}  // namespace zwang::test
