// ModelBuilder: every validation error names the element and says what is wrong; the layout
// of coordinates and dofs follows MuJoCo's.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "test_util.h"
#include "zwang/batch.hpp"
#include "zwang/builder.hpp"
#include "zwang/examples.hpp"
#include "zwang/model.hpp"

// outside namespace zwang, as a user's code: to_string of a model enum is found by
// argument-dependent lookup, and beats std::to_string's number where both are visible
namespace {
std::string joint_type_name_outside_zwang(zwang::JointType type) {
  using std::to_string;
  return std::string(to_string(type));
}
}  // namespace

namespace zwang::test {
namespace {

TEST(Builder, EnumNamesAreFoundOutsideTheNamespace) {
  EXPECT_EQ(joint_type_name_outside_zwang(JointType::kHinge), "hinge");
  EXPECT_EQ(joint_type_name_outside_zwang(JointType::kFree), "free");
}

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
      "body 'b': inertia is not positive semidefinite (principal moments -0.1 0.1 0.1)");
  EXPECT_EQ(
      error_of([] {
        ModelBuilder().add_body({.name = "b", .mass = 1, .inertia = {0.1, 0.1, 0.1, 0.2, 0, 0}});
      }),
      "body 'b': inertia is not positive semidefinite (principal moments -0.1 0.1 0.3)");
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

TEST(Builder, JointOrderRulesNameTheJoint) {
  {
    ModelBuilder b = with_body();
    b.add_body({.name = "c", .parent = "a", .mass = 1, .inertia = kUnit});
    EXPECT_EQ(error_of([&] { b.add_joint("c", {.name = "free", .type = JointType::kFree}); }),
              "joint 'free': a free joint must be in a child of the world");
  }
  EXPECT_EQ(
      error_of([] { with_body().add_joint("a", {.name = "free", .type = JointType::kFree}); }),
      "joint 'free': a free joint must be its body's only joint (body 'a' has 'ja')");
  {
    ModelBuilder b;
    b.add_body({.name = "a", .mass = 1, .inertia = kUnit});
    b.add_joint("a", {.name = "free", .type = JointType::kFree});
    EXPECT_EQ(error_of([&] { b.add_joint("a", {.name = "j"}); }),
              "joint 'j': body 'a' has the free joint 'free', which must be its only joint");
  }
  {
    ModelBuilder b;
    b.add_body({.name = "a", .mass = 1, .inertia = kUnit});
    b.add_joint("a", {.name = "ball", .type = JointType::kBall});
    EXPECT_NO_THROW(b.add_joint("a", {.name = "slide", .type = JointType::kSlide}));
    EXPECT_EQ(
        error_of([&] { b.add_joint("a", {.name = "hinge"}); }),
        "joint 'hinge': a hinge or ball joint cannot follow the ball joint 'ball' in the same "
        "body (ball dofs use the body's final axes)");
  }
  EXPECT_EQ(
      error_of([] { with_body().add_joint("a", {.name = "weld", .type = JointType::kFixed}); }),
      "joint 'weld': a fixed joint must be its body's only joint (body 'a' has 'ja')");
}

// a point mass (zero inertia) may be welded, as MuJoCo allows, but not moved on its own joints
TEST(Builder, PointMassesAreWeldedOnly) {
  ModelBuilder b = with_body();
  EXPECT_NO_THROW(b.add_body({.name = "bob", .parent = "a", .pos = {0, 0, -1}, .mass = 2}));
  const Model m = b.build();
  EXPECT_EQ(m.body_mass[2], 2.0);
  ModelBuilder moving;
  moving.add_body({.name = "bob", .mass = 2, .com = {0, 0, -1}});
  moving.add_joint("bob", {.name = "j"});
  EXPECT_EQ(error_of([&] { moving.build(); }),
            "body 'bob': a body on joints needs a positive definite inertia (principal moments 0 0 "
            "0)");
}

// a Model edited by hand is checked before a batch uses it
TEST(Builder, EditedModelsAreValidatedBeforeUse) {
  Model m = examples::chain();
  EXPECT_NO_THROW(m.validate());
  Model short_mass = m;
  short_mass.body_mass.pop_back();
  EXPECT_EQ(error_of([&] { short_mass.validate(); }),
            "model: body_mass has 8 values, the sizes need 9");
  Model zero_step = m;
  zero_step.timestep = 0;
  EXPECT_EQ(error_of([&] { Batch<double>(zero_step, 4); }),
            "model: timestep must be positive (got 0)");
  Model bad_parent = m;
  bad_parent.body_parentid[3] = 5;
  EXPECT_EQ(error_of([&] { bad_parent.validate(); }),
            "model: body_parentid[3] = 5 is not in [0, 3)");
  Model bad_adr = m;
  bad_adr.jnt_dofadr[2] = 7;
  EXPECT_EQ(error_of([&] { bad_adr.validate(); }),
            "model: jnt_qposadr/jnt_dofadr of joint 2 do not follow the joint types");
  Model nan_mass = m;
  nan_mass.body_mass[1] = std::nan("");
  EXPECT_EQ(error_of([&] { nan_mass.validate(); }), "model: body_mass[1] is not finite");
  // body 3's ancestor dofs (0, 1, 2) with its parent's entries swapped: each still a dof
  Model swapped = m;
  std::swap(swapped.tree_dof[swapped.body_treeadr[3]],
            swapped.tree_dof[swapped.body_treeadr[3] + 1]);
  EXPECT_EQ(error_of([&] { swapped.validate(); }),
            "model: tree_dof of body 3 is not its parent's list followed by its own dofs");
}

// contact input edited by hand: each error names the field or the geom
TEST(Builder, EditedContactsAreValidatedBeforeUse) {
  ModelBuilder b;
  b.add_geom({.name = "floor", .type = GeomType::kPlane});
  b.add_body({.name = "box", .pos = {0, 0, 0.1}, .mass = 1, .inertia = kUnit});
  b.add_joint("box", {.name = "free", .type = JointType::kFree});
  b.add_geom({.name = "box", .body = "box", .type = GeomType::kBox, .size = {0.1, 0.1, 0.1}});
  ContactPairSpec pair;
  pair.geom1 = "floor";
  pair.geom2 = "box";
  b.add_contact_pair(pair);
  const Model m = b.build();
  EXPECT_NO_THROW(m.validate());
  auto edited = [&](auto edit) {
    Model e = m;
    edit(e);
    return error_of([&] { e.validate(); });
  };
  EXPECT_EQ(edited([](Model& e) { e.geom_friction[3] = std::nan(""); }),
            "model: geom_friction[3] is not finite");
  EXPECT_EQ(edited([](Model& e) { e.geom_margin[1] = -1; }),
            "model: geom_margin[1] = -1 is negative");
  EXPECT_EQ(edited([](Model& e) { e.geom_size[4] = 0; }),
            "model: geom 1 has size[1] = 0, not positive");
  EXPECT_EQ(edited([](Model& e) { e.geom_quat[4] = 2; }),
            "model: geom 1 has a quaternion of norm 2, not 1");
  EXPECT_EQ(edited([](Model& e) { e.geom_size[3] = 1; }),
            "model: geom_rbound[1] = 0.17320508075688776 does not hold the geom (radius "
            "1.0099504938362078)");
  EXPECT_EQ(edited([](Model& e) { e.geom_bodyid[0] = 1; }),
            "model: geom 0 is a plane on a moving body");
  EXPECT_EQ(edited([](Model& e) { e.pair_geom2[0] = 0; }), "model: pair 0 is a geom with itself");
  EXPECT_EQ(edited([](Model& e) { e.geom_condim[1] = 2; }), "model: geom 1 has condim 2");
}

// height fields: the builder scales the elevations as MuJoCo does (float, to [0, 1]) and gives a
// height-field geom MuJoCo's size and bounding radius; bad input names the field or the geom
TEST(Builder, HeightFields) {
  ModelBuilder b;
  const HFieldSpec field{.name = "bumps",
                         .nrow = 2,
                         .ncol = 3,
                         .elevation = {2, 4, 6, 3, 2, 10},
                         .size = {1, 2, 3, 4}};
  EXPECT_EQ(b.add_hfield(field), 0);
  b.add_geom({.name = "terrain", .type = GeomType::kHfield, .hfield = "bumps"});
  const Model m = b.build();
  ASSERT_EQ(m.nhfield, 1);
  EXPECT_EQ(m.id(ObjType::kHfield, "bumps"), 0);
  // (e − 2) / 8 in float
  const std::vector<double> scaled{0, 0.25, 0.5, 0.125, 0, 1};
  EXPECT_EQ(m.hfield_data, scaled);
  EXPECT_EQ(m.geom_dataid[0], 0);
  // MuJoCo's geom_size (x, y, elevation / 4 + base / 2) and radius √(x² + y² + max(z, base)²)
  EXPECT_DOUBLE_EQ(m.geom_size[2], 0.75 + 2);
  EXPECT_DOUBLE_EQ(m.geom_rbound[0], std::sqrt(1.0 + 4 + 16));
  // all equal: zeros, as MuJoCo's
  ModelBuilder flat;
  flat.add_hfield(
      {.name = "f", .nrow = 2, .ncol = 2, .elevation = {5, 5, 5, 5}, .size = {1, 1, 1, 1}});
  EXPECT_EQ(flat.build().hfield_data, std::vector<double>(4, 0.0));

  auto bad = [](HFieldSpec h) { return error_of([&] { ModelBuilder().add_hfield(h); }); };
  HFieldSpec h = field;
  h.nrow = 1;
  h.elevation = {1, 2, 3};
  EXPECT_EQ(bad(h), "height field 'bumps': 1 rows and 3 columns; a grid needs at least 2 of each");
  h = field;
  h.elevation.pop_back();
  EXPECT_EQ(bad(h), "height field 'bumps': 5 elevations for 2 rows of 3 columns");
  h = field;
  h.size[3] = 0;
  EXPECT_EQ(bad(h), "height field 'bumps': size[3] = 0 must be positive and finite");
  h = field;
  h.elevation[4] = std::numeric_limits<double>::infinity();
  EXPECT_EQ(bad(h), "height field 'bumps': elevation 4 (inf) is not finite");
  EXPECT_EQ(error_of([&] {
              ModelBuilder c;
              c.add_hfield(field);
              c.add_hfield(field);
            }),
            "height field 'bumps': the name is used by another height field");
  EXPECT_EQ(error_of([] {
              ModelBuilder().add_geom({.name = "g", .type = GeomType::kHfield, .hfield = "x"});
            }),
            "geom 'g': height field 'x' has not been added");
  EXPECT_EQ(error_of([&] {
              ModelBuilder c;
              c.add_hfield(field);
              c.add_geom({.name = "g", .size = {1, 0, 0}, .hfield = "bumps"});
            }),
            "geom 'g': only a height-field geom has a height field ('bumps')");

  // a Model edited by hand
  auto edited = [&](auto edit) {
    Model e = m;
    edit(e);
    return error_of([&] { e.validate(); });
  };
  EXPECT_EQ(edited([](Model& e) { e.hfield_data[2] = 1.5; }),
            "model: height field 0 has elevation 2 = 1.5, not in [0, 1]");
  EXPECT_EQ(edited([](Model& e) { e.hfield_ncol[0] = 4; }),
            "model: height field 0 has a grid of 2 × 4 from 0, out of 6 elevations");
  EXPECT_EQ(edited([](Model& e) { e.hfield_size[1] = -1; }),
            "model: height field 0 has size[1] = -1, not positive");
  EXPECT_EQ(edited([](Model& e) { e.geom_dataid[0] = 1; }),
            "model: geom 0 has geom_dataid 1 (1 height fields)");
  EXPECT_EQ(edited([](Model& e) { e.geom_rbound[0] = 3; }),
            "model: geom_rbound[0] = 3 does not hold the height field");
}

TEST(Builder, MeshErrorsNameTheMesh) {
  const MeshSpec tetra{.name = "tetra",
                       .vert = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1},
                       .face = {0, 2, 1, 0, 1, 3, 1, 2, 3, 2, 0, 3}};
  auto bad = [](MeshSpec s) { return error_of([&] { ModelBuilder().add_mesh(s); }); };
  MeshSpec s = tetra;
  s.vert.pop_back();
  EXPECT_EQ(bad(s), "mesh 'tetra': vertices and triangles come in threes");
  s = tetra;
  s.vert[4] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(bad(s), "mesh 'tetra': a vertex is not finite");
  s = tetra;
  s.face[5] = 4;
  EXPECT_EQ(bad(s), "mesh 'tetra': a triangle uses vertex 4 of 4");
  s = tetra;
  s.face.clear();
  EXPECT_EQ(bad(s), "mesh 'tetra': vertices without triangles (a hull needs both)");
  s.name.clear();
  EXPECT_EQ(bad(s), "a mesh needs a name");
  EXPECT_EQ(error_of([&] {
              ModelBuilder c;
              c.add_mesh(tetra);
              c.add_mesh(tetra);
            }),
            "mesh 'tetra': the name is used by another mesh");
  // no hull at all: neither
  ModelBuilder c;
  EXPECT_EQ(c.add_mesh({.name = "shell", .vert = {}, .face = {}}), 0);
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
      for (int a = b; a > 0; a = m.body_parentid[a]) {
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
