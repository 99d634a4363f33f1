// ModelBuilder: every validation error names the element and says what is wrong; the layout
// of coordinates and dofs follows MuJoCo's.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "test_util.h"
#include "zwang/examples.hpp"
#include "zwang/model.hpp"

namespace zwang::test {
namespace {

const Inertia6 kUnit{0.1, 0.1, 0.1, 0, 0, 0};

// a builder with one body "a" on a hinge
ModelBuilder with_body() {
  ModelBuilder b;
  b.add_body({.name = "a", .mass = 1, .inertia = kUnit});
  b.add_joint("a", {.name = "ja"});
  return b;
}

TEST(Builder, BodyErrorsNameTheBody) {
  EXPECT_EQ(
      error_of([] {
        ModelBuilder().add_body({.name = "b", .parent = "nowhere", .mass = 1, .inertia = kUnit});
      }),
      "body 'b': unknown parent body 'nowhere'");
  EXPECT_EQ(error_of([] { with_body().add_body({.name = "a", .mass = 1, .inertia = kUnit}); }),
            "body 'a': a body of that name exists already");
  EXPECT_EQ(error_of([] { ModelBuilder().add_body({.name = "b", .mass = -2, .inertia = kUnit}); }),
            "body 'b': mass must be positive (got -2)");
  EXPECT_EQ(error_of([] {
              ModelBuilder().add_body({.name = "b", .mass = std::nan(""), .inertia = kUnit});
            }),
            "body 'b': mass must be positive (got nan)");
  EXPECT_EQ(
      error_of([] {
        ModelBuilder().add_body({.name = "b", .mass = 1, .inertia = {0.1, 0.1, -0.1, 0, 0, 0}});
      }),
      "body 'b': inertia is not symmetric positive definite (principal moments -0.1 0.1 0.1)");
  EXPECT_EQ(
      error_of([] {
        ModelBuilder().add_body({.name = "b", .mass = 1, .inertia = {0.1, 0.1, 0.1, 0.2, 0, 0}});
      }),
      "body 'b': inertia is not symmetric positive definite (principal moments -0.1 0.1 0.3)");
  EXPECT_EQ(
      error_of([] {
        ModelBuilder().add_body({.name = "b", .mass = 1, .inertia = {0.1, 0.1, 0.3, 0, 0, 0}});
      }),
      "body 'b': inertia violates the triangle inequality of a rigid body (principal moments 0.1 "
      "0.1 0.3: 0.1 + 0.1 < 0.3)");
  EXPECT_EQ(error_of([] { ModelBuilder().add_body({.name = "b", .mass = 0, .inertia = kUnit}); }),
            "body 'b': a body with zero mass must have zero inertia");
  EXPECT_EQ(
      error_of([] {
        ModelBuilder().add_body({.name = "b", .quat = {0, 0, 0, 0}, .mass = 1, .inertia = kUnit});
      }),
      "body 'b': quaternion has zero length");
  EXPECT_EQ(error_of([] {
              ModelBuilder().add_body({.name = "b",
                                       .pos = {0, std::numeric_limits<double>::infinity(), 0},
                                       .mass = 1,
                                       .inertia = kUnit});
            }),
            "body 'b': position or centre of mass is not finite");
}

TEST(Builder, MasslessMovingBodyIsRejectedAtBuild) {
  ModelBuilder b;
  b.add_body({.name = "ghost"});
  b.add_joint("ghost", {.name = "j"});
  EXPECT_EQ(error_of([&] { b.build(); }),
            "body 'ghost': mass must be positive (got 0): the body has joints and nothing below it "
            "carries mass");
  // a massless body that moves a massive child, and a massless welded body, are fine
  ModelBuilder ok;
  ok.add_body({.name = "frame"});
  ok.add_joint("frame", {.name = "j"});
  ok.add_body({.name = "bob", .parent = "frame", .mass = 1, .com = {0, 0, -1}, .inertia = kUnit});
  ok.add_body({.name = "marker", .parent = "bob"});
  EXPECT_NO_THROW(ok.build());
}

TEST(Builder, JointErrorsNameTheJoint) {
  EXPECT_EQ(error_of([] { with_body().add_joint("nobody", {.name = "j"}); }),
            "joint 'j': unknown body 'nobody'");
  EXPECT_EQ(error_of([] { with_body().add_joint("a", {.name = "ja"}); }),
            "joint 'ja': a joint of that name exists already");
  EXPECT_EQ(error_of([] {
              with_body().add_joint("a", {.name = "j", .axis = {0, 0, 0}});
            }),
            "joint 'j': axis has zero length");
  EXPECT_EQ(
      error_of([] {
        with_body().add_joint("a", {.name = "j", .type = JointType::kSlide, .axis = {0, 0, 0}});
      }),
      "joint 'j': axis has zero length");
  EXPECT_EQ(error_of([] { with_body().add_joint("a", {.name = "j", .damping = -1}); }),
            "joint 'j': damping, armature and stiffness must be non-negative");
  EXPECT_EQ(error_of([] { with_body().add_joint("a", {.name = "j", .armature = std::nan("")}); }),
            "joint 'j': a value is not finite");
  EXPECT_EQ(error_of([] {
              with_body().add_joint("a", {.name = "j", .limited = true, .range = {1, -1}});
            }),
            "joint 'j': range [1, -1] is empty");
}

TEST(Builder, JointOrderRulesAreCheckedAtBuild) {
  {
    ModelBuilder b = with_body();
    b.add_body({.name = "c", .parent = "a", .mass = 1, .inertia = kUnit});
    b.add_joint("c", {.name = "free", .type = JointType::kFree});
    EXPECT_EQ(error_of([&] { b.build(); }),
              "joint 'free': a free joint must be the only joint of a child of the world");
  }
  {
    ModelBuilder b = with_body();
    b.add_joint("a", {.name = "free", .type = JointType::kFree});
    EXPECT_EQ(error_of([&] { b.build(); }),
              "joint 'free': a free joint must be the only joint of a child of the world");
  }
  {
    ModelBuilder b;
    b.add_body({.name = "a", .mass = 1, .inertia = kUnit});
    b.add_joint("a", {.name = "ball", .type = JointType::kBall});
    b.add_joint("a", {.name = "hinge"});
    EXPECT_EQ(error_of([&] { b.build(); }),
              "joint 'hinge': a hinge or ball joint cannot follow a ball joint in the same body "
              "(ball dofs "
              "use the body's final axes)");
  }
  {
    ModelBuilder b = with_body();
    b.add_joint("a", {.name = "weld", .type = JointType::kFixed});
    EXPECT_EQ(error_of([&] { b.build(); }),
              "body 'a': a fixed joint must be the body's only joint");
  }
}

TEST(Builder, ActuatorErrorsNameTheActuator) {
  EXPECT_EQ(error_of([] { with_body().add_actuator({.name = "m", .joint = "nope"}); }),
            "actuator 'm': unknown joint 'nope'");
  EXPECT_EQ(error_of([] {
              ModelBuilder b;
              b.add_body({.name = "a", .mass = 1, .inertia = kUnit});
              b.add_joint("a", {.name = "ball", .type = JointType::kBall});
              b.add_actuator({.name = "m", .joint = "ball"});
            }),
            "actuator 'm': joint 'ball' is a ball joint; actuators drive hinge and slide joints");
  EXPECT_EQ(error_of([] {
              with_body().add_actuator(
                  {.name = "m", .joint = "ja", .ctrllimited = true, .ctrlrange = {2, 1}});
            }),
            "actuator 'm': ctrlrange [2, 1] is empty");
  EXPECT_EQ(error_of([] {
              with_body().add_actuator(
                  {.name = "m", .joint = "ja", .forcelimited = true, .forcerange = {2, 1}});
            }),
            "actuator 'm': forcerange [2, 1] is empty");
  EXPECT_EQ(error_of([] {
              with_body().add_actuator(
                  {.name = "m", .joint = "ja", .type = ActuatorType::kPosition, .kp = -1});
            }),
            "actuator 'm': kp must be non-negative");
  EXPECT_EQ(error_of([] {
              ModelBuilder b = with_body();
              b.add_actuator({.name = "m", .joint = "ja"});
              b.add_actuator({.name = "m", .joint = "ja"});
            }),
            "actuator 'm': an actuator of that name exists already");
}

TEST(Builder, OptionErrors) {
  EXPECT_EQ(error_of([] { ModelBuilder().set_timestep(0); }), "timestep must be positive (got 0)");
  EXPECT_EQ(error_of([] {
              ModelBuilder().set_gravity({0, std::nan(""), 0});
            }),
            "gravity is not finite");
  EXPECT_EQ(error_of([] { examples::by_name("robot"); }), "no built-in example named 'robot'");
}

// free: 7 coordinates and 6 dofs, ball 4 and 3, hinge and slide 1 and 1, in joint order
TEST(Builder, CoordinatesAndDofsFollowMujocoLayout) {
  const Model fb = examples::floating_base();
  EXPECT_EQ(fb.nq, 7 + 5);
  EXPECT_EQ(fb.nv, 6 + 5);
  EXPECT_EQ(fb.jnt_qposadr, (std::vector<int>{0, 7, 8, 9, 10, 11}));
  EXPECT_EQ(fb.jnt_dofadr, (std::vector<int>{0, 6, 7, 8, 9, 10}));
  // the free joint's default configuration is the body's placement
  EXPECT_EQ(std::vector<double>(fb.qpos0.begin(), fb.qpos0.begin() + 7),
            (std::vector<double>{0, 0, 1, 1, 0, 0, 0}));
  const Model bc = examples::ball_chain(3);
  EXPECT_EQ(bc.nq, 12);
  EXPECT_EQ(bc.nv, 9);
  EXPECT_EQ(bc.jnt_qposadr, (std::vector<int>{0, 4, 8}));
  EXPECT_EQ(bc.jnt_dofadr, (std::vector<int>{0, 3, 6}));
}

// tree_dof lists, for each body, the dofs of every joint on the path from the world
TEST(Builder, AncestorDofsFollowTheParents) {
  for (const std::string& name : examples::names()) {
    const Model m = examples::by_name(name);
    for (int b = 1; b < m.nbody; ++b) {
      std::vector<int> want;
      for (int a = b; a > 0; a = m.body_parent[a]) {
        for (int i = m.body_dofnum[a] - 1; i >= 0; --i)
          want.insert(want.begin(), m.body_dofadr[a] + i);
      }
      const std::vector<int> got(m.tree_dof.begin() + m.body_treeadr[b],
                                 m.tree_dof.begin() + m.body_treeadr[b] + m.body_treenum[b]);
      EXPECT_EQ(got, want) << name << " body " << b;
    }
  }
}

}  // namespace
}  // namespace zwang::test
