// InertiaRule::kMassMatrix: the articulated-body pivots of host/model/mass_matrix_check.cc say H is
// positive definite exactly when H assembled by the kernels is (its smallest eigenvalue, from
// Eigen), on random trees of hinges, slides, balls and a free root whose bodies are often
// massless or point masses, at random configurations; and what ModelBuilder::build() does with
// the rule.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "host/model/mass_matrix_check.hpp"
#include "test_util.h"
#include "zwang/builder.hpp"
#include "zwang/model.hpp"
#include "zwang/simulator.hpp"

namespace zwang::test {
namespace {

const Inertia6 kUnit{0.1, 0.1, 0.1, 0, 0, 0};

// A random tree of 7 bodies, each on a random earlier one, with a hinge, a slide, a ball, two
// hinges about one axis (singular unless something else moves), or nothing.  It is built with
// unit masses, then each body's mass and inertia are set to 0 a quarter of the time each (a
// Model may be edited so; the loaders' rule is what build() checks, tested below).
Model random_tree(std::mt19937& rng, bool free_root) {
  std::uniform_real_distribution<double> u(-1, 1), positive(0.5, 2);
  std::uniform_int_distribution<int> kind(0, 5), quarter(0, 3);
  constexpr int kBodies = 7;
  ModelBuilder b;
  for (int k = 0; k < kBodies; ++k) {
    const std::string name = fmt::format("b{}", k);
    const std::string parent =
        k == 0 ? "world" : fmt::format("b{}", std::uniform_int_distribution<int>(0, k - 1)(rng));
    b.add_body({.name = name,
                .parent = parent,
                .pos = {u(rng), u(rng), u(rng)},
                .quat = {u(rng), u(rng), u(rng), u(rng)},
                .mass = 1,
                .com = {u(rng), u(rng), u(rng)},
                .inertia = kUnit});
    const Vec3d axis{u(rng), u(rng), u(rng)}, anchor{u(rng), u(rng), u(rng)};
    if (k == 0 && free_root) {
      b.add_joint(name, {.name = name + "_free", .type = JointType::kFree});
      continue;
    }
    switch (kind(rng)) {
      case 0:
        b.add_joint(name, {.name = name + "_hinge", .pos = anchor, .axis = axis});
        break;
      case 1:
        b.add_joint(name, {.name = name + "_slide", .type = JointType::kSlide, .axis = axis});
        break;
      case 2:
        b.add_joint(name, {.name = name + "_ball", .type = JointType::kBall, .pos = anchor});
        break;
      case 3:
        b.add_joint(name, {.name = name + "_h1", .pos = anchor, .axis = axis});
        b.add_joint(name, {.name = name + "_h2", .pos = anchor, .axis = axis});
        break;
      default:
        break;
    }
  }
  Model m = b.build();
  for (int k = 1; k < m.nbody; ++k) {
    m.body_mass[k] = quarter(rng) == 0 ? 0 : positive(rng);
    const Inertia6 inertia =
        quarter(rng) == 0 ? Inertia6{}
                          : inertia_from_principal(
                                {0.1 * positive(rng), 0.1 * positive(rng), 0.1 * positive(rng)},
                                {u(rng), u(rng), u(rng), u(rng)});
    std::copy(inertia.begin(), inertia.end(), m.body_inertia.begin() + 6 * k);
  }
  return m;
}

TEST(MassMatrixCheck, PivotsAgreeWithTheAssembledH) {
  std::mt19937 rng(3);
  constexpr int kStates = 4;
  int regular = 0, singular = 0;
  for (int t = 0; t < 100; ++t) {
    const Model m = random_tree(rng, t % 4 == 0);
    if (m.nv == 0) continue;
    Simulator<double> sim(m, kStates);
    const std::vector<RandomState> states = set_random_states(sim, rng);
    sim.forward();
    for (int i = 0; i < kStates; ++i) {
      const Eigen::MatrixXd h = unpack(get(sim.batch().qM(), i), m.nv);
      const Eigen::VectorXd ev = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(h).eigenvalues();
      // exactly singular trees give eigenvalues of rounding size, 1e-16 of the largest; random
      // regular ones stay far above 1e-9 of it
      const bool positive_definite = ev[0] > 1e-9 * ev[m.nv - 1];
      const std::vector<double> q(states[i].qpos.begin(), states[i].qpos.end());
      const MassMatrixPivot p = mass_matrix_pivot(m, q);
      EXPECT_EQ(p.dof < 0, positive_definite)
          << "tree " << t << " state " << i << ": eigenvalues " << ev.transpose() << "; pivot "
          << p.pivot << " of " << p.composite << " at dof " << p.dof;
      (positive_definite ? regular : singular) += 1;
    }
  }
  // both kinds were met
  EXPECT_GT(regular, 40);
  EXPECT_GT(singular, 40);
  std::cout << "[ info     ] " << regular << " regular and " << singular << " singular H\n";
}

// what build() says under InertiaRule::kMassMatrix: any finite inertia, and H positive definite
// at qpos0 or at a second configuration
TEST(MassMatrixCheck, BuildUnderTheRule) {
  const auto builder = [] {
    ModelBuilder b;
    b.set_inertia_rule(InertiaRule::kMassMatrix);
    return b;
  };
  // inertias that are no rigid body's, and a massless body with an inertia: taken
  {
    ModelBuilder b = builder();
    b.add_body({.name = "a", .mass = 0, .inertia = {0.01, 0.02, 0.1, 0, 0, 0}});
    b.add_joint("a", {.name = "j", .axis = {0, 0, 1}});
    EXPECT_EQ(b.build().nv, 1);
  }
  // a point mass off the axis of its hinge: taken
  {
    ModelBuilder b = builder();
    b.add_body({.name = "a", .mass = 1, .com = {0.5, 0, 0}});
    b.add_joint("a", {.name = "j", .axis = {0, 0, 1}});
    EXPECT_EQ(b.build().nv, 1);
  }
  // not finite: refused as under kRigidBody
  EXPECT_EQ(
      error_of([&] {
        builder().add_body({.name = "a", .mass = 1, .inertia = {std::nan(""), 0, 0, 0, 0, 0}});
      }),
      "body 'a': inertia is not finite");
  // the second dof of a free joint on a massless body
  EXPECT_EQ(error_of([&] {
              ModelBuilder b = builder();
              b.add_body({.name = "a", .inertia = kUnit});
              b.add_joint("a", {.name = "f", .type = JointType::kFree});
              b.build();
            }),
            "joint 'f': H is singular: the joint (dof 0 of the free joint) has no inertia, as "
            "nothing it moves (body 'a' and the bodies below it) has mass, or inertia about its "
            "axis");
  // a ball whose body is a point mass at its centre: the rotation has no inertia
  EXPECT_EQ(error_of([&] {
              ModelBuilder b = builder();
              b.add_body({.name = "a", .mass = 1});
              b.add_joint("a", {.name = "ball", .type = JointType::kBall});
              b.build();
            }),
            "joint 'ball': H is singular: the joint (dof 0 of the ball joint) has no inertia, as "
            "nothing it moves (body 'a' and the bodies below it) has mass, or inertia about its "
            "axis");
  // MJCF's rule is unchanged: the same point mass off its axis is refused
  EXPECT_EQ(error_of([] {
              ModelBuilder b;
              b.add_body({.name = "a", .mass = 1, .com = {0.5, 0, 0}});
              b.add_joint("a", {.name = "j", .axis = {0, 0, 1}});
              b.build();
            }),
            "body 'a': a body on joints needs a positive definite inertia (principal moments 0 0 "
            "0)");
}

}  // namespace
}  // namespace zwang::test
