// H, h, generalized forces and q̈ of the batched kernels against the plain Eigen reference
// (recursive Newton–Euler in body coordinates), instance by instance at random states.
#include <gtest/gtest.h>

#include "kernels/pipeline.h"
#include "reference/rnea.h"
#include "test_util.h"
#include "zwang/builder.hpp"
#include "zwang/simulator.hpp"

namespace zwang::test {
namespace {

template <class T>
double tolerance();
template <>
double tolerance<double>() {
  return 1e-10;
}
template <>
double tolerance<float>() {
  return 2e-4;
}

// a floating base, a welded block, a hinged arm below the block (a body without joints between
// jointed ones, as Gymnasium's ant has) and a welded tip: wrenches on bodies without joints
Model welded_example() {
  ModelBuilder b;
  b.add_body({.name = "base",
              .pos = {0.1, -0.2, 0.8},
              .mass = 2,
              .com = {0.02, 0, 0.01},
              .inertia = {0.05, 0.04, 0.03, 0, 0, 0}});
  b.add_joint("base", {.name = "free", .type = JointType::kFree});
  b.add_body({.name = "block",
              .parent = "base",
              .pos = {0.3, 0, 0},
              .quat = {0.9, 0.1, 0.3, 0},
              .mass = 0.5,
              .com = {0.05, 0.01, 0},
              .inertia = {0.002, 0.003, 0.004, 0, 0, 0}});
  b.add_body({.name = "arm",
              .parent = "block",
              .pos = {0.1, 0.05, 0},
              .mass = 0.4,
              .com = {0.1, 0, 0},
              .inertia = {0.001, 0.004, 0.004, 0, 0, 0}});
  b.add_joint("arm", {.name = "hinge", .axis = {0, 1, 0.2}});
  b.add_body({.name = "tip",
              .parent = "arm",
              .pos = {0.2, 0, 0},
              .mass = 0.1,
              .com = {0.01, 0, 0},
              .inertia = {1e-4, 1e-4, 1e-4, 0, 0, 0}});
  return b.build();
}

template <class T>
class Dynamics : public ::testing::Test {};
using Scalars = ::testing::Types<double, float>;
TYPED_TEST_SUITE(Dynamics, Scalars);

TYPED_TEST(Dynamics, MatchesReferenceAtRandomStates) {
  using T = TypeParam;
  const double tol = tolerance<T>();
  constexpr int kStates = 20;
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> wrench(-2, 2);
  std::vector<Example> examples = all_examples();
  examples.push_back({"welded", welded_example()});
  for (const Example& ex : examples) {
    const Model& m = ex.model;
    const reference::Rnea ref(m);
    Simulator<T> sim(m, kStates);
    Batch<T>& b = sim.batch();
    std::vector<RandomState> states;
    std::vector<Eigen::MatrixXd> xfrc;
    for (int i = 0; i < kStates; ++i) {
      states.push_back(random_state(m, rng));
      set(b.qpos(), i, states[i].qpos);
      set(b.qvel(), i, states[i].qvel);
      set(b.ctrl(), i, states[i].ctrl);
      Eigen::MatrixXd w = Eigen::MatrixXd::Zero(m.nbody, 6);
      for (int k = 1; k < m.nbody; ++k) {
        for (int c = 0; c < 6; ++c) w(k, c) = wrench(rng);
      }
      Eigen::VectorXd flat(6 * m.nbody);
      for (int k = 0; k < m.nbody; ++k) flat.segment<6>(6 * k) = w.row(k).transpose();
      set(b.xfrc_applied(), i, flat);
      xfrc.push_back(w);
    }
    sim.forward();
    ASSERT_TRUE(sim.failures().empty()) << ex.name << ": " << sim.failures().front().message();

    double worst_h = 0, worst_bias = 0, worst_acc = 0;
    for (int i = 0; i < kStates; ++i) {
      const Eigen::VectorXd& q = states[i].qpos;
      const Eigen::VectorXd& qd = states[i].qvel;
      const Eigen::MatrixXd h = ref.mass_matrix(q);
      const Eigen::VectorXd bias = ref.bias(q, qd);
      const Eigen::VectorXd passive = ref.passive(q, qd);
      const Eigen::VectorXd act = ref.actuator(q, qd, states[i].ctrl);
      const Eigen::VectorXd applied = ref.applied(q, qd, xfrc[i]);
      const Eigen::VectorXd qacc = h.llt().solve(passive + act + applied - bias);
      const std::string where = ex.name + " instance " + std::to_string(i);

      const double err_h = relative_error(unpack(get(b.qM(), i), m.nv), h);
      const double err_bias = relative_error(get(b.qfrc_bias(), i), bias);
      const double err_acc = relative_error(get(b.qacc(), i), qacc);
      EXPECT_LT(err_h, tol) << where << ": H";
      EXPECT_LT(err_bias, tol) << where << ": qfrc_bias";
      EXPECT_LT(relative_error(get(b.qfrc_passive(), i), passive), tol) << where << ": passive";
      EXPECT_LT(relative_error(get(b.qfrc_actuator(), i), act), tol) << where << ": actuator";
      EXPECT_LT(relative_error(get(b.qfrc_applied(), i), applied), tol) << where << ": applied";
      EXPECT_LT(err_acc, 10 * tol) << where << ": qacc";
      worst_h = std::max(worst_h, err_h);
      worst_bias = std::max(worst_bias, err_bias);
      worst_acc = std::max(worst_acc, err_acc);

      // body frames and centres of mass
      const std::vector<reference::BodyMotion> bodies = ref.motion(q, qd);
      const Eigen::VectorXd xpos = get(b.xpos(), i), xquat = get(b.xquat(), i),
                            xipos = get(b.xipos(), i);
      for (int k = 1; k < m.nbody; ++k) {
        EXPECT_LT(relative_error(xpos.segment<3>(3 * k), bodies[k].origin), tol)
            << where << " body " << k;
        EXPECT_LT(relative_error(xipos.segment<3>(3 * k), bodies[k].com), tol)
            << where << " body " << k;
        const Eigen::Quaterniond xq(xquat[4 * k], xquat[4 * k + 1], xquat[4 * k + 2],
                                    xquat[4 * k + 3]);
        EXPECT_LT(relative_error(xq.toRotationMatrix(), bodies[k].rotation), tol)
            << where << " body " << k;
      }
    }
    this->RecordProperty(ex.name + "_H", std::to_string(worst_h));
    this->RecordProperty(ex.name + "_bias", std::to_string(worst_bias));
    this->RecordProperty(ex.name + "_qacc", std::to_string(worst_acc));
    std::printf("%-24s %-6s largest relative error  H %.2e  bias %.2e  qacc %.2e\n",
                ex.name.c_str(), sizeof(T) == 8 ? "f64" : "f32", worst_h, worst_bias, worst_acc);
  }
}

// each instance's own mass, COM and inertia of welded bodies and of the bodies they hang from,
// changed between calls (the SIMD backend checks the parameters once per call), against the
// reference on a model with that instance's values
TYPED_TEST(Dynamics, WeldedBodiesTakeEachInstancesParameters) {
  using T = TypeParam;
  const double tol = tolerance<T>();
  constexpr int kInstances = 19;
  const Model m = welded_example();
  std::mt19937 rng(17);
  std::uniform_real_distribution<double> unit(-1, 1), scale(0.5, 2);
  Simulator<T> sim(m, kInstances);
  Batch<T>& b = sim.batch();
  for (int call = 0; call < 2; ++call) {
    std::vector<Model> models(kInstances, m);
    std::vector<RandomState> states;
    for (int i = 0; i < kInstances; ++i) {
      Model& mi = models[i];
      for (const char* name : {"base", "block", "arm", "tip"}) {
        const int k = m.id(ObjType::kBody, name);
        mi.body_mass[k] *= scale(rng);
        for (int c = 0; c < 3; ++c) mi.body_ipos[3 * k + c] += 0.05 * unit(rng);
        // R diag(d) Rᵀ with d a triangle (any two moments at least the third)
        const double base = m.body_inertia[6 * k] * scale(rng);
        Eigen::Vector3d d;
        for (int c = 0; c < 3; ++c) d[c] = base * (1 + 0.4 * scale(rng));
        Eigen::Vector4d turn;
        for (int c = 0; c < 4; ++c) turn[c] = unit(rng);
        const Eigen::Matrix3d r = Eigen::Quaterniond(turn.normalized()).toRotationMatrix();
        const Eigen::Matrix3d i3 = r * d.asDiagonal() * r.transpose();
        const double six[6] = {i3(0, 0), i3(1, 1), i3(2, 2), i3(0, 1), i3(0, 2), i3(1, 2)};
        for (int c = 0; c < 6; ++c) mi.body_inertia[6 * k + c] = six[c];
      }
      set(b.body_mass(), i, Eigen::Map<const Eigen::VectorXd>(mi.body_mass.data(), m.nbody));
      set(b.body_ipos(), i, Eigen::Map<const Eigen::VectorXd>(mi.body_ipos.data(), 3 * m.nbody));
      set(b.body_inertia(), i,
          Eigen::Map<const Eigen::VectorXd>(mi.body_inertia.data(), 6 * m.nbody));
      states.push_back(random_state(m, rng));
      set(b.qpos(), i, states[i].qpos);
      set(b.qvel(), i, states[i].qvel);
    }
    sim.forward();
    ASSERT_TRUE(sim.failures().empty()) << sim.failures().front().message();
    for (int i = 0; i < kInstances; ++i) {
      const reference::Rnea ref(models[i]);
      const Eigen::VectorXd& q = states[i].qpos;
      const Eigen::VectorXd& qd = states[i].qvel;
      const Eigen::MatrixXd h = ref.mass_matrix(q);
      const Eigen::VectorXd bias = ref.bias(q, qd);
      const Eigen::VectorXd qacc = h.llt().solve(ref.passive(q, qd) - bias);
      const std::string where = "call " + std::to_string(call) + " instance " + std::to_string(i);
      EXPECT_LT(relative_error(unpack(get(b.qM(), i), m.nv), h), tol) << where << ": H";
      EXPECT_LT(relative_error(get(b.qfrc_bias(), i), bias), tol) << where << ": qfrc_bias";
      EXPECT_LT(relative_error(get(b.qacc(), i), qacc), 10 * tol) << where << ": qacc";
    }
  }
}

// H is symmetric positive definite, and the factor forward() leaves in qLD reproduces it:
// Lᵀ L = H, with L zero outside the ancestor pattern of the dof tree
TEST(Dynamics, MassMatrixIsPositiveDefiniteAndFactored) {
  std::mt19937 rng(11);
  for (const Example& ex : all_examples()) {
    const Model& m = ex.model;
    SingleInstance s(m);
    for (int k = 0; k < 5; ++k) {
      set(s.batch.qpos(), 0, random_state(m, rng).qpos);
      ASSERT_TRUE(forward(s.view, s.instance())) << ex.name;
      const Eigen::MatrixXd h = unpack(get(s.batch.qM(), 0), m.nv);
      EXPECT_GT(Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(h).eigenvalues().minCoeff(), 0)
          << ex.name;
      const Eigen::VectorXd packed = s.scratch(s.batch.layout().qLD, m.nv * (m.nv + 1) / 2);
      Eigen::MatrixXd l = Eigen::MatrixXd::Zero(m.nv, m.nv);
      for (int i = 0; i < m.nv; ++i) {
        std::vector<bool> ancestor(m.nv, false);
        for (int j = i; j >= 0; j = m.dof_parentid[j]) ancestor[j] = true;
        for (int j = 0; j <= i; ++j) {
          l(i, j) = packed[i * (i + 1) / 2 + j];
          if (!ancestor[j]) {
            EXPECT_EQ(h(i, j), 0.0) << ex.name << " H(" << i << ", " << j << ")";
          }
        }
      }
      EXPECT_LT(relative_error(l.transpose() * l, h), 1e-13) << ex.name;
    }
  }
}

}  // namespace
}  // namespace zwang::test
