// Derivatives of a step (zwang/derivatives.hpp): dual numbers against closed forms, and the
// Jacobians of every model case against central finite differences of the simulator's own
// step, in MuJoCo's tangent space (rotations perturbed and compared with Eigen's quaternions).
#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <cmath>
#include <functional>
#include <random>

#include "kernels/dual.h"
#include "model_cases.h"
#include "zwang/derivatives.hpp"
#include "zwang/zwang.hpp"

namespace zwang {
namespace {

using D2 = Dual<double, 2>;

D2 variable(double x, int k) {
  D2 r(x);
  r.d[k] = 1;
  return r;
}

TEST(Dual, ArithmeticAndFunctionsMatchClosedForms) {
  const double x = 0.7, y = -1.3;
  const D2 a = variable(x, 0), b = variable(y, 1);
  const D2 f = a * b / (a + 2.0) - sqrt(a * a + b * b);
  // f = x y / (x + 2) − √(x² + y²)
  const double r = std::hypot(x, y);
  EXPECT_DOUBLE_EQ(f.v, x * y / (x + 2) - r);
  EXPECT_NEAR(f.d[0], 2 * y / ((x + 2) * (x + 2)) - x / r, 1e-15);
  EXPECT_NEAR(f.d[1], x / (x + 2) - y / r, 1e-15);
  const D2 g = Lanes<D2>::atan2(b, a) + sin(a) * cos(b) + Lanes<D2>::pow(a, b);
  EXPECT_NEAR(g.d[0], -y / (x * x + y * y) + std::cos(x) * std::cos(y) + y * std::pow(x, y - 1),
              1e-14);
  EXPECT_NEAR(g.d[1],
              x / (x * x + y * y) - std::sin(x) * std::sin(y) + std::pow(x, y) * std::log(x),
              1e-14);
  // the value is the one double arithmetic gives, to the bit
  EXPECT_EQ((a / b).v, x / y);
  EXPECT_EQ(fmax(a, b).d[0], 1);
  EXPECT_EQ(vfabs(b).d[1], -1);
  // at 0, √ has a zero tangent rather than NaN (the norm of a zero vector)
  const D2 zero = sqrt(D2(0.0) * variable(0.0, 0));
  EXPECT_EQ(zero.d[0], 0);
}

// q ⊗ exp(δ / 2) and 2 log(a⁻¹ b), MuJoCo's convention for ball and free joints
Eigen::Quaterniond rotated(const Eigen::Quaterniond& q, const Eigen::Vector3d& delta) {
  const double angle = delta.norm();
  if (angle == 0) return q;
  return q * Eigen::Quaterniond(Eigen::AngleAxisd(angle, delta / angle));
}

Eigen::Vector3d difference(const Eigen::Quaterniond& a, const Eigen::Quaterniond& b) {
  const Eigen::AngleAxisd d(a.conjugate() * b);
  double angle = d.angle();
  if (angle > M_PI) angle -= 2 * M_PI;
  return angle * d.axis();
}

// the instance's state moved by h along tangent column c (qpos tangent, qvel, act, ctrl)
void perturb(const Model& m, Batch<double>& b, std::int64_t i, int c, double h) {
  const int nv = m.nv, nx = 2 * m.nv + m.na;
  if (c >= nx) {
    b.ctrl()(i, c - nx) += h;
  } else if (c >= 2 * nv) {
    b.act()(i, c - 2 * nv) += h;
  } else if (c >= nv) {
    b.qvel()(i, c - nv) += h;
  } else {
    const int j = m.dof_jntid[c], qa = m.jnt_qposadr[j], r = c - m.jnt_dofadr[j];
    const JointType type = m.jnt_type[j];
    if (type == JointType::kHinge || type == JointType::kSlide ||
        (type == JointType::kFree && r < 3)) {
      b.qpos()(i, qa + r) += h;
      return;
    }
    const int qr = qa + (type == JointType::kFree ? 3 : 0);
    auto qpos = b.qpos();
    Eigen::Quaterniond q(qpos(i, qr), qpos(i, qr + 1), qpos(i, qr + 2), qpos(i, qr + 3));
    Eigen::Vector3d delta = Eigen::Vector3d::Zero();
    delta[type == JointType::kFree ? r - 3 : r] = h;
    q = rotated(q, delta);
    qpos(i, qr) = q.w();
    qpos(i, qr + 1) = q.x();
    qpos(i, qr + 2) = q.y();
    qpos(i, qr + 3) = q.z();
  }
}

// (x⁺ of instance p) ⊖ (x⁺ of instance q) in the tangent space, and the sensors' difference
std::vector<double> state_difference(const Model& m, const Batch<double>& b, std::int64_t p,
                                     std::int64_t q) {
  std::vector<double> out;
  const auto qpos = b.qpos();
  for (int j = 0; j < m.njnt; ++j) {
    const int qa = m.jnt_qposadr[j];
    const JointType type = m.jnt_type[j];
    const int linear = type == JointType::kFree ? 3 : type == JointType::kBall ? 0 : 1;
    for (int r = 0; r < linear; ++r) out.push_back(qpos(p, qa + r) - qpos(q, qa + r));
    if (linear == 1) continue;
    const int qr = qa + linear;
    const Eigen::Quaterniond a(qpos(q, qr), qpos(q, qr + 1), qpos(q, qr + 2), qpos(q, qr + 3));
    const Eigen::Quaterniond c(qpos(p, qr), qpos(p, qr + 1), qpos(p, qr + 2), qpos(p, qr + 3));
    const Eigen::Vector3d d = difference(a, c);
    out.insert(out.end(), d.data(), d.data() + 3);
  }
  for (int r = 0; r < m.nv; ++r) out.push_back(b.qvel()(p, r) - b.qvel()(q, r));
  for (int r = 0; r < m.na; ++r) out.push_back(b.act()(p, r) - b.act()(q, r));
  for (int r = 0; r < m.nsensordata; ++r) {
    out.push_back(b.sensordata()(p, r) - b.sensordata()(q, r));
  }
  return out;
}

class Derivatives : public ::testing::TestWithParam<std::string> {};

std::vector<std::string> case_names() {
  std::vector<std::string> names;
  for (const auto& c : test::model_cases()) names.push_back(c.name);
  return names;
}

// The worst difference between the Jacobians and central differences of the simulator's step
// over every entry, relative to 1 + |the difference|, and where it is.
// `rest`: from qpos0 at rest; else from a short rollout with random controls and velocities.
struct Worst {
  double error = 0;
  int row = -1, column = -1;
};
Worst compare_with_differences(Model model, bool rest);
// `step`: the differences' h
Worst compare_at(Model model, const std::function<void(Simulator<double>&)>& prepare,
                 double step = 1e-6);

TEST_P(Derivatives, MatchCentralDifferencesOfTheStep) {
  Model model;
  for (auto& c : test::model_cases()) {
    if (c.name == GetParam()) model = std::move(c.model);
  }
  // central differences with h = 1e-6: truncation h² and rounding ε / h, about 1e-9 relative
  const Worst worst = compare_with_differences(model, false);
  EXPECT_LT(worst.error, 1e-6) << GetParam() << ": row " << worst.row << ", column "
                               << worst.column;
}

// at rest a rotation's step is q ⊗ exp(h ω / 2) at ω = 0 exactly (no gravity, so q̈ = 0), where
// the value needs no exponential but the derivative still does
TEST(Derivatives, AtRestRotationsToo) {
  Model chain = examples::ball_chain();
  chain.gravity = {0, 0, 0};
  for (const Model& model : {examples::floating_base(false), chain}) {
    const Worst worst = compare_with_differences(model, true);
    EXPECT_LT(worst.error, 1e-6) << "row " << worst.row << ", column " << worst.column;
  }
}

Worst compare_with_differences(Model model, bool rest) {
  return compare_at(std::move(model), [&](Simulator<double>& sim) {
    if (rest) return;
    // the controls well inside their ranges and a muscle's inside [0, 1], so that no
    // activation sits at its clamp (a kink)
    const Model& model = sim.model();
    std::mt19937 rng(11);
    std::uniform_real_distribution<double> u(-0.3, 0.3), inside(0.3, 0.7);
    for (int r = 0; r < model.nv; ++r) sim.batch().qvel()(0, r) = u(rng);
    for (int r = 0; r < model.nu; ++r) {
      const double lo = model.actuator_ctrlrange[2 * r], hi = model.actuator_ctrlrange[2 * r + 1];
      const bool muscle = model.actuator_dyntype[r] == ActuatorDyn::kMuscle;
      sim.batch().ctrl()(0, r) = muscle                          ? inside(rng)
                                 : model.actuator_ctrllimited[r] ? lo + inside(rng) * (hi - lo)
                                                                 : u(rng);
    }
    sim.step(10);
  });
}

Worst compare_at(Model model, const std::function<void(Simulator<double>&)>& prepare, double step) {
  // a solve converged to rounding, so that the differences see the solution, not the tolerance
  model.tolerance = 1e-15;
  model.iterations = std::max(model.iterations, 200);
  const int nx = 2 * model.nv + model.na, ncol = nx + model.nu, ns = model.nsensordata;
  const Worst failed{std::numeric_limits<double>::infinity()};
  Simulator<double> sim(model, 1, {.threads = 1});
  prepare(sim);
  EXPECT_EQ(sim.batch().status()[0] & ~kStatusNotConverged, 0);
  if (sim.batch().status()[0] & ~kStatusNotConverged) return failed;

  const std::int64_t instance = 0;
  const StepJacobians jac = step_jacobians(model, sim.batch(), {&instance, 1}, 1);
  EXPECT_EQ(jac.status[0] & ~kStatusNotConverged, 0);

  // the differences: instance 0 stepped as it is, 2k + 1 and 2k + 2 moved by ±h along column k
  Simulator<double> fd(model, 1 + 2 * ncol, {.threads = 1});
  const Batch<double>& from = sim.batch();
  Batch<double>& to = fd.batch();
  const std::int64_t ld_from = from.padded_size(), ld_to = to.padded_size();
  for (std::int64_t i = 0; i < to.size(); ++i) {
    for (int r = 0; r < to.layout().data_rows; ++r) {
      to.data_arena()[r * ld_to + i] = from.data_arena()[r * ld_from];
    }
    to.time()[i] = from.time()[0];
  }
  std::vector<double> h(ncol);
  for (int c = 0; c < ncol; ++c) {
    h[c] = step;
    perturb(model, to, 1 + 2 * c, c, h[c]);
    perturb(model, to, 2 + 2 * c, c, -h[c]);
  }
  fd.step(1);

  // the dual step's values are the simulator's step, to the bit
  sim.step(1);
  for (int r = 0; r < model.nq; ++r) EXPECT_EQ(jac.qpos[r], sim.batch().qpos()(0, r)) << r;
  for (int r = 0; r < model.nv; ++r) EXPECT_EQ(jac.qvel[r], sim.batch().qvel()(0, r)) << r;
  for (int r = 0; r < ns; ++r) EXPECT_EQ(jac.sensordata[r], sim.batch().sensordata()(0, r)) << r;

  Worst worst;
  for (int c = 0; c < ncol; ++c) {
    for (std::int64_t i : {1 + 2 * c, 2 + 2 * c}) {
      EXPECT_EQ(fd.batch().status()[i] & ~kStatusNotConverged, 0) << c;
      if (fd.batch().status()[i] & ~kStatusNotConverged) return failed;
    }
    const std::vector<double> diff = state_difference(model, fd.batch(), 1 + 2 * c, 2 + 2 * c);
    for (int r = 0; r < nx + ns; ++r) {
      const double central = diff[r] / (2 * h[c]);
      double exact;
      if (r < nx) {
        exact = c < nx ? jac.A[r * nx + c] : jac.B[r * model.nu + (c - nx)];
      } else {
        exact = c < nx ? jac.C[(r - nx) * nx + c] : jac.D[(r - nx) * model.nu + (c - nx)];
      }
      const double err = std::fabs(exact - central) / (1 + std::fabs(central));
      if (err > worst.error) worst = {err, r, c};
    }
  }
  return worst;
}

INSTANTIATE_TEST_SUITE_P(ModelCases, Derivatives, ::testing::ValuesIn(case_names()),
                         [](const auto& info) { return info.param; });

TEST(Derivatives, StoppedInstanceGivesNaNAndLeavesOthersAlone) {
  const Model model = examples::chain();
  Simulator<double> sim(model, 4, {.threads = 1});
  // instance 1's step stops (a NaN velocity); instance 3 has stopped already
  sim.batch().qvel()(1, 0) = std::numeric_limits<double>::quiet_NaN();
  sim.batch().qpos()(3, 0) = 0.25;
  sim.batch().status()[3] = kStatusDiverged;
  const std::vector<std::int64_t> all{0, 1, 2, 3};
  const StepJacobians jac = step_jacobians(model, sim.batch(), all, 2);
  const int nx = jac.nx;
  EXPECT_NE(jac.status[1] & kStatusBadState, 0);
  EXPECT_EQ(jac.status[0], 0);
  EXPECT_EQ(jac.status[3], kStatusDiverged);
  EXPECT_TRUE(std::isnan(jac.A[1 * nx * nx]));
  EXPECT_TRUE(std::isnan(jac.A[3 * nx * nx]));
  // the stopped instance's values are its state, which step() would not change
  EXPECT_EQ(jac.qpos[3 * model.nq], 0.25);
  for (int k = 0; k < nx * nx; ++k) {
    ASSERT_EQ(jac.A[k], jac.A[2 * nx * nx + k]) << k;  // instances 0 and 2 are alike
  }
  const std::int64_t bad = 4;
  EXPECT_THROW(step_jacobians(model, sim.batch(), {&bad, 1}), std::out_of_range);
}

}  // namespace
}  // namespace zwang

namespace zwang {
namespace {

// A ball touching the floor (distance exactly 0) and moving down: the contact pushes on one side
// of this state and not on the other, so the step is not differentiable in the ball's height.
// The Jacobian is that of the piece the state's own solve is on: at distance 0 the contact is
// found but has no row (a contact's rows exist only below margin − gap, here 0, as MuJoCo's), so
// the ball is in free fall and the derivative is the one-sided difference out of the floor,
// which differs from the one into it.
TEST(Derivatives, AtAContactSwitchTheStatesOwnPiece) {
  const Model model = load_mjcf_string(R"(<mujoco>
    <option timestep="0.002" tolerance="1e-15" iterations="200"/>
    <worldbody>
      <geom type="plane" size="1 1 0.1"/>
      <body name="ball" pos="0 0 0.1"><freejoint/><geom type="sphere" size="0.1" mass="1"/></body>
    </worldbody>
  </mujoco>)",
                                       "ball.xml")
                          .model;
  Simulator<double> sim(model, 3, {.threads = 1});
  auto& b = sim.batch();
  for (std::int64_t i = 0; i < 3; ++i) b.qvel()(i, 2) = -0.5;
  const double h = 1e-7;
  b.qpos()(1, 2) += h;  // out of the floor: no contact
  b.qpos()(2, 2) -= h;  // into it
  const std::int64_t first = 0;
  const StepJacobians jac = step_jacobians(model, b, {&first, 1}, 1);
  sim.forward();
  EXPECT_EQ(b.ncon()(0, 0), 1);  // the state itself has its contact
  EXPECT_EQ(b.ncon()(1, 0), 0);
  sim.step(1);
  const int nx = jac.nx, vz = model.nv + 2;  // row: the ball's vertical velocity
  const double exact = jac.A[vz * nx + 2];   // column: its height
  const double out = (b.qvel()(1, 2) - b.qvel()(0, 2)) / h;
  const double in = (b.qvel()(0, 2) - b.qvel()(2, 2)) / h;
  EXPECT_GT(std::fabs(in - out), 1);  // a kink
  EXPECT_EQ(exact, 0);
  EXPECT_NEAR(exact, out, 1e-6);
}

}  // namespace
}  // namespace zwang

namespace zwang {
namespace {

// Contacts whose rows push, and rub: a ball pressed into the floor and sliding (pyramidal and
// elliptic cones, condim 3 and 6), a tilted box on two of its corners; each away from a switch
// (every row strictly inside its piece, the impedance away from its width).
TEST(Derivatives, ContactsThatPushMatchDifferences) {
  const std::string ball = R"(<mujoco>
    <option timestep="0.002" cone="CONE"/>
    <worldbody>
      <geom type="plane" size="1 1 0.1" friction="0.8 0.02 0.01"/>
      <body pos="0 0 0.1"><freejoint/><geom type="sphere" size="0.1" mass="1" condim="DIM"/></body>
      <body pos="0.5 0 0.1" euler="0 0 20"><freejoint/>
        <geom type="box" size="0.1 0.08 0.05" mass="2"/></body>
    </worldbody>
  </mujoco>)";
  for (const std::string cone : {"pyramidal", "elliptic"}) {
    for (const std::string dim : {"3", "6"}) {
      std::string text = ball;
      text.replace(text.find("CONE"), 4, cone);
      text.replace(text.find("DIM"), 3, dim);
      const Model model = load_mjcf_string(text, "contacts.xml").model;
      const Worst worst = compare_at(
          model,
          [](Simulator<double>& sim) {
            auto& b = sim.batch();
            // the ball 0.4 mm into the floor, sliding and spinning; the box tilted about x onto
            // an edge, 0.3 mm in, moving sideways
            const double ball_state[] = {0, 0, 0.0996, 1, 0, 0, 0};
            for (int k = 0; k < 7; ++k) b.qpos()(0, k) = ball_state[k];
            const double ball_vel[] = {0.3, 0.1, -0.2, 0.5, -0.4, 1.0};
            for (int k = 0; k < 6; ++k) b.qvel()(0, k) = ball_vel[k];
            const double tilt = 0.2;
            const double box_z = 0.05 * std::cos(tilt) + 0.08 * std::sin(tilt) - 0.0003;
            const double box[] = {0.5, 0, box_z, std::cos(tilt / 2), std::sin(tilt / 2), 0, 0};
            for (int k = 0; k < 7; ++k) b.qpos()(0, 7 + k) = box[k];
            const double box_vel[] = {0.1, -0.2, -0.1, 0.3, 0.2, -0.1};
            for (int k = 0; k < 6; ++k) b.qvel()(0, 6 + k) = box_vel[k];
            sim.forward();
            EXPECT_GE(b.ncon()(0, 0), 3);
          },
          // the impedance's curvature jumps within micrometres of these states, where
          // centred differences converge only as h
          1e-7);
      EXPECT_LT(worst.error, 1e-5)
          << cone << " condim " << dim << ": row " << worst.row << ", column " << worst.column;
    }
  }
}

// humanoid.xml fallen onto the floor: many contacts, some pushing, some sliding
TEST(Derivatives, HumanoidOnTheFloorMatchesDifferences) {
  if (!std::filesystem::exists(test::humanoid_xml())) GTEST_SKIP() << "no humanoid.xml";
  const Model model = load_mjcf(test::humanoid_xml()).model;
  const Worst worst = compare_at(model, [](Simulator<double>& sim) {
    sim.step(400);
    sim.forward();
    EXPECT_GE(sim.batch().ncon()(0, 0), 2);
    EXPECT_GE(sim.batch().efc_nactive()(0, 0), 4);
  });
  EXPECT_LT(worst.error, 1e-5) << "row " << worst.row << ", column " << worst.column;
}

}  // namespace
}  // namespace zwang
