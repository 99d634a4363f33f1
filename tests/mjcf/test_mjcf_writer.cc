// Model::to_mjcf: every model case, the MJCF files of tests/data and models built in code read
// back by load_mjcf as the same Model, array by array (integers and names exactly, reals to
// round-off); what cannot be written and the hull: numerics' errors.  MuJoCo 4.0 on exported
// files: python_shim/tests/test_export.py.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "model_cases.h"
#include "test_util.h"
#include "zwang/builder.hpp"
#include "zwang/loaders.hpp"
#include "zwang/model.hpp"

namespace zwang::test {
namespace {

// the options a model was loaded with, which are not part of its file
LoadOptions options_of(const Model& m) {
  return {.rules = m.rules, .contact_margin = m.contact_margin, .wrap_rules = m.wrap_rules};
}

Model round_trip(const Model& m, const std::string& name) {
  const std::string xml = m.to_mjcf();
  try {
    return load_mjcf_string(xml, name + ".xml", {}, options_of(m)).model;
  } catch (const ModelError& e) {
    ADD_FAILURE() << name << ": the exported MJCF does not load: " << e.what() << "\n" << xml;
    throw;
  }
}

// each array of b equal to a's: integers, enums and names exactly; reals within 1e-10 of the
// largest magnitude in the array (at least 1), the round-off of reading printed numbers and of
// the products that frames and inertias are rebuilt from
class SameModel {
 public:
  SameModel(const Model& a, const Model& b, std::string name) : name_(std::move(name)) {
#define ZW_X(use, type, field, shape, meaning) compare(#field, a.field, b.field);
    ZW_MODEL_ARRAYS(ZW_X)
#undef ZW_X
#define ZW_SCALAR(field) EXPECT_EQ(a.field, b.field) << name_ << ": " #field
    ZW_SCALAR(nq);
    ZW_SCALAR(nv);
    ZW_SCALAR(nu);
    ZW_SCALAR(na);
    ZW_SCALAR(nbody);
    ZW_SCALAR(njnt);
    ZW_SCALAR(nmocap);
    ZW_SCALAR(ntendon);
    ZW_SCALAR(neq);
    ZW_SCALAR(ndrive);
    ZW_SCALAR(nnhc);
    ZW_SCALAR(ngeom);
    ZW_SCALAR(nmesh);
    ZW_SCALAR(nhfield);
    ZW_SCALAR(npair);
    ZW_SCALAR(nexclude);
    ZW_SCALAR(nsite);
    ZW_SCALAR(nsensor);
    ZW_SCALAR(nsensordata);
    ZW_SCALAR(nkey);
    ZW_SCALAR(timestep);
    ZW_SCALAR(integrator);
    ZW_SCALAR(gravity);
    ZW_SCALAR(magnetic);
    ZW_SCALAR(density);
    ZW_SCALAR(viscosity);
    ZW_SCALAR(wind);
    ZW_SCALAR(iterations);
    ZW_SCALAR(tolerance);
    ZW_SCALAR(disableflags);
    ZW_SCALAR(cone);
    ZW_SCALAR(impratio);
    ZW_SCALAR(contact_margin);
    ZW_SCALAR(wrap_rules);
    ZW_SCALAR(rules);
    ZW_SCALAR(nconmax);
#undef ZW_SCALAR
  }

 private:
  void compare(const char* field, const std::vector<double>& a, const std::vector<double>& b) {
    ASSERT_EQ(a.size(), b.size()) << name_ << ": " << field;
    double scale = 1;
    for (const double x : a) scale = std::max(scale, std::abs(x));
    for (std::size_t i = 0; i < a.size(); ++i) {
      EXPECT_NEAR(a[i], b[i], 1e-10 * scale) << name_ << ": " << field << "[" << i << "]";
    }
  }
  template <class T>
  void compare(const char* field, const std::vector<T>& a, const std::vector<T>& b) {
    EXPECT_EQ(a, b) << name_ << ": " << field;
  }

  std::string name_;
};

// the error's message holds every part
void expect_error(const std::function<void()>& f, std::initializer_list<std::string_view> parts) {
  const std::string what = error_of(f);
  for (const std::string_view part : parts) {
    EXPECT_NE(what.find(part), std::string::npos) << "'" << part << "' not in: " << what;
  }
}

TEST(MjcfWriter, EveryModelCaseReadsBackAsTheSameModel) {
  const std::vector<ModelCase> cases = model_cases();
  ASSERT_GT(cases.size(), 60u);
  for (const ModelCase& c : cases) {
    SCOPED_TRACE(c.name);
    const Model back = round_trip(c.model, c.name);
    SameModel(c.model, back, c.name);
    // and a second time: the file of the model read back is read back as it
    SameModel(back, round_trip(back, c.name + "_again"), c.name + " again");
  }
}

TEST(MjcfWriter, TheTestModelFilesReadBackAsTheSameModel) {
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(model_cases_dir() / "models")) {
    if (entry.path().extension() != ".xml") continue;
    const std::string name = entry.path().filename().string();
    SCOPED_TRACE(name);
    Model m;
    try {
      m = load_mjcf(entry.path()).model;
    } catch (const ModelError&) {
      continue;  // the files that test the loader's errors
    }
    ++files;
    Model back = round_trip(m, name);
    if (m.nfused > 0) {
      // bodies merged at load are not written: the rest is the same
      EXPECT_EQ(back.nfused, 0);
      back.nfused = m.nfused;
      back.fused_name = m.fused_name;
      back.fused_bodyid = m.fused_bodyid;
      back.fused_pos = m.fused_pos;
      back.fused_quat = m.fused_quat;
      back.fused_mass = m.fused_mass;
      back.fused_ipos = m.fused_ipos;
    }
    SameModel(m, back, name);
  }
  EXPECT_GE(files, 10);
}

// a model built in code with what MJCF files rarely have: mesh vertices that are no floats, a
// mesh without a hull (its geom does not collide), a knife edge and a drive with their own
// solref, MuJoCo 2.2.2's passive flag, a soft weld, a mocap body, keyframes, a tendon actuator with
// an affine gain, unnamed sites and geoms
Model built_model() {
  ModelBuilder b;
  b.set_timestep(0.001).set_integrator(Integrator::kImplicitFast);
  b.set_cone(Cone::kElliptic, 3).set_solver(37, 1e-9).set_max_contacts(40);
  b.set_disableflags(kDisablePassive | kDisableWarmstart);
  b.add_body({.name = "sled",
              .pos = {0.1, 0.2, 0.3},
              .mass = 2,
              .com = {0.01, 0.02, 0.03},
              .inertia = {0.3, 0.2, 0.25, 0.01, -0.02, 0.015}});
  b.add_joint("sled", {.name = "x", .type = JointType::kSlide, .axis = {1, 0, 0}});
  b.add_joint("sled", {.name = "y", .type = JointType::kSlide, .axis = {0, 1, 0}});
  b.add_joint("sled", {.name = "yaw",
                       .type = JointType::kHinge,
                       .axis = {0, 0, 1},
                       .damping = 0.1,
                       .stiffness = 2,
                       .springref = 0.3,
                       .ref = 0.1,
                       .limited = true,
                       .range = {-1, 1.5}});
  b.add_body({.name = "ball",
              .parent = "sled",
              .pos = {0.4, 0, 0},
              .quat = {0.9, 0.1, -0.2, 0.3},
              .mass = 0.5,
              .inertia = inertia_from_principal({0.01, 0.02, 0.025}, {0.8, 0.2, 0.1, -0.3})});
  b.add_joint("ball", {.name = "pivot",
                       .type = JointType::kBall,
                       .pos = {0.01, 0, 0},
                       .armature = 0.01,
                       .frictionloss = 0.02});
  b.add_body({.name = "target", .pos = {1, 1, 1}, .mocap = true});
  b.add_mesh({.name = "wedge",
              .vert = {0.1 / 3, 0, 0, -0.2 / 3, 0.1 / 7, 0, -0.2 / 3, -0.1 / 7, 0, 0, 0, 0.1 / 9},
              .face = {0, 2, 1, 0, 1, 3, 1, 2, 3, 2, 0, 3}});
  b.add_mesh({.name = "shell", .vert = {}, .face = {}});
  b.add_geom({.name = "",
              .body = "ball",
              .type = GeomType::kMesh,
              .size = {0.1 / 3, 0.1 / 7, 0.1 / 9},
              .mesh = "wedge"});
  b.add_geom({.name = "ghost",
              .body = "ball",
              .type = GeomType::kMesh,
              .size = {0.2, 0.1, 0.3},
              .contype = 0,
              .conaffinity = 0,
              .mesh = "shell",
              .visible = false});
  // added last, numbered first: the world's
  b.add_geom({.name = "floor",
              .type = GeomType::kPlane,
              .size = {3, 3, 0.1},
              .friction = {0.7, 0.01, 0.001}});
  b.add_site({.name = "", .body = "ball", .pos = {0, 0.1, 0}});
  b.add_site({.name = "tip",
              .body = "sled",
              .pos = {0.2, 0, 0},
              .type = GeomType::kBox,
              .size = {0.01, 0.02, 0.03}});
  b.add_tendon({.name = "sum",
                .joints = {{"x", 1}, {"y", -0.5}},
                .stiffness = 3,
                .springlength = {-0.1, 0.2}});
  b.add_actuator({.name = "push",
                  .joint = "",
                  .type = ActuatorType::kGeneral,
                  .gain = 2,
                  .bias = {0.1, -0.2, -0.3},
                  .tendon = "sum",
                  .gaintype = ActuatorGain::kAffine,
                  .gain_slope = {0.5, -0.25},
                  .dyntype = ActuatorDyn::kFilterExact,
                  .dynprm = {0.05, 0, 0},
                  .actlimited = true,
                  .actrange = {-1, 1}});
  b.add_actuator({.name = "turn",
                  .joint = "yaw",
                  .type = ActuatorType::kPosition,
                  .ctrllimited = true,
                  .ctrlrange = {-1, 1},
                  .kp = 5,
                  .kd = 0.5});
  b.add_drive({.joint = "y",
               .q0 = 0.1,
               .v0 = 0.2,
               .amplitude = 0.3,
               .omega = 4,
               .phase = 0.5,
               .solref = {0.03, 1.2}});
  b.add_nonholonomic({.name = "knife_edge:sled",
                      .type = NonholonomicType::kKnifeEdge,
                      .body = "sled",
                      .point = {0.1, 0, 0},
                      .direction = {0, 1, 0},
                      .solref = {0.04, 0.9}});
  b.add_equality({.name = "hold",
                  .type = EqualityType::kWeld,
                  .obj1 = "ball",
                  .obj2 = "target",
                  .torquescale = 0.5,
                  .solref = {0.05, 0.8}});
  b.add_sensor({.name = "where",
                .type = SensorType::kFramePos,
                .objtype = ObjType::kSite,
                .objname = "tip",
                .reftype = ObjType::kXBody,
                .refname = "ball"});
  b.add_sensor({.name = "spin", .type = SensorType::kJointVel, .objname = "yaw", .cutoff = 2});
  b.add_keyframe({.name = "start",
                  .time = 0.5,
                  .qpos = {0.1, 0.2, 0.3, 0.6, 0, 0.8, 0},
                  .qvel = {},
                  .ctrl = {0.1, 0.2},
                  .mpos = {1, 2, 3},
                  .mquat = {0, 1, 0, 0},
                  .act = {0.5}});
  return b.build();
}

TEST(MjcfWriter, AModelBuiltInCodeReadsBackAsTheSameModel) {
  const Model m = built_model();
  ASSERT_EQ(m.nnhc, 1);
  ASSERT_EQ(m.mesh_vertnum[1], 0);
  EXPECT_EQ(m.geom_name, (std::vector<std::string>{"floor", "", "ghost"}));
  SameModel(m, round_trip(m, "built"), "built");
}

TEST(MjcfWriter, RefusesBodiesThatAreNotNumberedDepthFirst) {
  ModelBuilder b;
  b.add_body({.name = "a", .mass = 1, .inertia = {1, 1, 1, 0, 0, 0}});
  b.add_body({.name = "b", .mass = 1, .inertia = {1, 1, 1, 0, 0, 0}});
  b.add_body({.name = "a_child", .parent = "a", .mass = 1, .inertia = {1, 1, 1, 0, 0, 0}});
  const Model m = b.build();
  expect_error([&] { (void)m.to_mjcf(); }, {"not numbered depth first", "'b'", "'a_child'"});
}

TEST(MjcfWriter, RefusesTwoKnifeEdgesOnOneBody) {
  ModelBuilder b;
  b.add_body({.name = "sled", .mass = 1, .inertia = {1, 1, 1, 0, 0, 0}});
  b.add_joint("sled", {.name = "x", .type = JointType::kSlide, .axis = {1, 0, 0}});
  b.add_joint("sled", {.name = "y", .type = JointType::kSlide, .axis = {0, 1, 0}});
  b.add_joint("sled", {.name = "yaw", .type = JointType::kHinge});
  for (const double x : {0.1, -0.1}) {
    b.add_nonholonomic({.name = "",
                        .type = NonholonomicType::kKnifeEdge,
                        .body = "sled",
                        .point = {x, 0, 0},
                        .direction = {0, 1, 0}});
  }
  const Model m = b.build();
  expect_error([&] { (void)m.to_mjcf(); },
               {"body 'sled' has two knife-edge constraints", "numeric 'knife_edge:sled'"});
}

TEST(MjcfWriter, StoredHullNumericsAreChecked) {
  const std::string mesh =
      R"(<asset><mesh name="m" vertex="0 0 0 1 0 0 0 1 0 0 0 1" face="0 2 1 0 1 3 1 2 3 2 0 3"/>
      </asset><worldbody><body><freejoint/><inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/>
      <geom type="mesh" mesh="m"/></body></worldbody>)";
  const auto model = [&](const std::string& custom) {
    return load_mjcf_string("<mujoco>" + mesh + "<custom>" + custom + "</custom></mujoco>",
                            "hull.xml");
  };
  // taken as written: no re-centring on the centre of mass
  const Model m = model(R"(<numeric name="hull:m" data="1"/>)").model;
  EXPECT_EQ(m.mesh_vert, (std::vector<double>{0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1}));
  EXPECT_EQ(m.geom_pos, (std::vector<double>{0, 0, 0}));
  EXPECT_EQ(m.geom_size, (std::vector<double>{1, 1, 1}));
  // without the numeric, MuJoCo's frame: the centroid of the tetrahedron at the geom's origin
  EXPECT_NEAR(load_mjcf_string("<mujoco>" + mesh + "</mujoco>", "plain.xml").model.geom_pos[0],
              0.25, 1e-6);
  expect_error([&] { model(R"(<numeric name="hull:n" data="1"/>)"); },
               {"hull.xml:", "numeric 'hull:n'", "no mesh is named 'n'"});
  expect_error([&] { model(R"(<numeric name="hull:m" data="2"/>)"); },
               {"hull.xml:", "data must be 1 or 0"});
  expect_error(
      [&] { model(R"(<numeric name="hull:m" data="1"/><numeric name="hull:m" data="1"/>)"); },
      {"hull.xml:", "numeric 'hull:m' is defined twice"});
  expect_error(
      [&] {
        load_mjcf_string(
            R"(<mujoco><asset><mesh name="m" scale="2 2 2" vertex="0 0 0 1 0 0 0 1 0 0 0 1"
            face="0 2 1 0 1 3 1 2 3 2 0 3"/></asset>
            <custom><numeric name="hull:m" data="1"/></custom></mujoco>)",
            "scaled.xml");
      },
      {"scaled.xml:", "stored hull", "refpos, refquat or a scale"});
  expect_error([&] { model(R"(<numeric name="flag:spring" data="1"/>)"); },
               {"hull.xml:", "the only flag numeric is 'flag:passive'"});
  expect_error([&] { model(R"(<numeric name="hull:m" data="0"/>)"); },
               {"hull.xml:", "has no hull", "a geom that can collide uses it"});
  expect_error(
      [&] {
        load_mjcf_string(
            R"(<mujoco><asset><mesh name="m" vertex="0 0 0 1 0 0 0 1 0 0 0 1"/></asset>
            <worldbody><geom type="mesh" mesh="m"/></worldbody>
            <custom><numeric name="hull:m" data="1"/></custom></mujoco>)",
            "noface.xml");
      },
      {"noface.xml:", "stored hull", "'face'"});
}

}  // namespace
}  // namespace zwang::test
