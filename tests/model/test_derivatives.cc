// Derivatives of a step (zwang/derivatives.hpp): dual numbers against closed forms, and the
// Jacobians of every model case against central finite differences of the simulator's own
// step, in MuJoCo's tangent space (rotations perturbed and compared with Eigen's quaternions).
#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <cmath>
#include <functional>
#include <memory>
#include <random>

#include "kernels/dual.h"
#include "kernels/math_vec.h"
#include "model_cases.h"
#include "zwang/derivatives.hpp"
#include "zwang/loaders.hpp"
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

// 2 log(b⁻¹ a) at a = b, where its value takes the zero branch: its derivative along
// a = b ⊗ (1, δ / 2) is still δ (b̄ ⊗ b's vector part is exactly 0 for this b)
TEST(Dual, RotationDifferenceAtZeroHasItsDerivative) {
  using D3 = Dual<double, 3>;
  const Quat<D3> b{D3(0.6), D3(0.0), D3(0.8), D3(0.0)};
  Quat<D3> a = b;
  for (int k = 0; k < 3; ++k) {
    Quat<D3> e{D3(0.0), D3(0.0), D3(0.0), D3(0.0)};
    (k == 0 ? e.x : k == 1 ? e.y : e.z) = D3(0.5);
    const Quat<D3> t = mul(b, e);  // b ⊗ (0, e_k / 2)
    a.w.d[k] = t.w.v;
    a.x.d[k] = t.x.v;
    a.y.d[k] = t.y.v;
    a.z.d[k] = t.z.v;
  }
  const Vec3<D3> v = quat_difference(a, b);
  const D3 rows[3] = {v.x, v.y, v.z};
  for (int r = 0; r < 3; ++r) {
    EXPECT_EQ(rows[r].v, 0);
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(rows[r].d[k], r == k ? 1 : 0, 1e-15) << r << k;
  }
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
// over every entry, relative to 1 + |the difference|, and where it is (a column past x's and
// ctrl's is a direction in the parameters, E's and F's).  `checked`: the directions compared.
// `rest`: from qpos0 at rest; else from a short rollout with random controls and velocities.
struct Worst {
  double error = 0;
  int row = -1, column = -1;
  int checked = 0;
  std::string where;                         // a parameter column's field and element
  double exact = 0, central = 0, finer = 0;  // the Jacobian's entry, the differences with h, h / 2
};
Worst compare_with_differences(Model model, bool rest, bool params = false, int steps = 1);
// `step`: the differences' h (a parameter's, below); `params`: with E and F, every element of
// every parameter field a column; `steps`: the Jacobians of that many steps
Worst compare_at(Model model, const std::function<void(Simulator<double>&)>& prepare,
                 double step = 1e-6, bool params = false, int steps = 1);

// the parameter fields of a batch
std::vector<FieldId> param_fields(const Batch<double>& b) {
  std::vector<FieldId> out;
  for (int f = 0; f < kFieldCount; ++f) {
    const FieldId id = static_cast<FieldId>(f);
    if (field_rows(id, b.layout(), b.sizes()).arena == ArenaId::kParam) out.push_back(id);
  }
  return out;
}

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

// four steps at once, the controls held: the dual numbers carried through every step, E and F too
TEST_P(Derivatives, SeveralStepsMatchCentralDifferences) {
  Model model;
  for (auto& c : test::model_cases()) {
    if (c.name == GetParam()) model = std::move(c.model);
  }
  const Worst worst = compare_with_differences(model, false, true, 4);
  EXPECT_LT(worst.error, 1e-6) << GetParam() << ": row " << worst.row << ", column " << worst.column
                               << " " << worst.where << ": " << worst.exact << " against "
                               << worst.central << " (h), " << worst.finer << " (h / 2)";
}

// E and F: every element of every parameter field at the model's own values, those at 0 too
// (gravity compensation, a medium's density: terms the step skips where they are 0 have their
// derivative there), a rest quaternion along its three rotations
TEST_P(Derivatives, ParametersMatchCentralDifferences) {
  Model model;
  for (auto& c : test::model_cases()) {
    if (c.name == GetParam()) model = std::move(c.model);
  }
  const Worst worst = compare_with_differences(model, false, true);
  EXPECT_LT(worst.error, 1e-6) << GetParam() << ": row " << worst.row << ", " << worst.where << ": "
                               << worst.exact << " against " << worst.central << " (h), "
                               << worst.finer << " (h / 2)";
  // the body masses but the world's at least
  EXPECT_GE(worst.checked, model.nbody - 1) << GetParam();
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

// a ball joint's spring at exactly its rest orientation, where the rotation difference is 0:
// its derivative there is −k all the same, and its rest quaternion's (E) too
TEST(Derivatives, BallSpringsAtTheirRestOrientation) {
  Model chain = examples::ball_chain();
  for (double& k : chain.jnt_stiffness) k = 3;
  chain.validate();
  for (const bool params : {false, true}) {
    const Worst worst = compare_with_differences(chain, true, params);
    EXPECT_LT(worst.error, 1e-6) << "row " << worst.row << ", column " << worst.column << " "
                                 << worst.where;
  }
}

Worst compare_with_differences(Model model, bool rest, bool params, int steps) {
  const auto prepare = [&](Simulator<double>& sim) {
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
  };
  return compare_at(std::move(model), prepare, 1e-6, params, steps);
}

Worst compare_at(Model model, const std::function<void(Simulator<double>&)>& prepare, double step,
                 bool params, int steps) {
  // a solve converged to rounding, so that the differences see the solution, not the tolerance
  model.tolerance = 1e-15;
  model.iterations = std::max(model.iterations, 200);
  const int nx = 2 * model.nv + model.na, ncol = nx + model.nu, ns = model.nsensordata;
  const Worst failed{std::numeric_limits<double>::infinity(), -1, -1, 0, "", 0, 0, 0};
  Simulator<double> sim(model, 1, {.threads = 1});
  prepare(sim);
  EXPECT_EQ(sim.batch().status()[0] & ~kStatusNotConverged, 0);
  if (sim.batch().status()[0] & ~kStatusNotConverged) return failed;

  // the outputs the batch holds from before are not the step's: NaN in each (the sensors' rows
  // keep the user's values), so that a stage skipped in a pass (docs/derivatives.md) whose output
  // the pass did not take from another shows in its values
  {
    Batch<double>& b = sim.batch();
    const Layout& lay = b.layout();
    const std::span<double> arena = b.data_span();
    for (int r = input_rows(lay); r < lay.sensordata; ++r) {
      arena[static_cast<std::size_t>(r * b.padded_size())] = std::nan("");
    }
  }
  const std::int64_t instance = 0;
  const Batch<double>& from = sim.batch();
  const std::int64_t ld_from = from.padded_size();
  const std::vector<FieldId> fields = params ? param_fields(from) : std::vector<FieldId>{};
  const StepJacobians jac = step_jacobians(model, from, {&instance, 1}, 1, fields, steps);
  EXPECT_EQ(jac.status[0] & ~kStatusNotConverged, 0);
  // the parameter columns compared, each a direction in the parameter arena: one element, or
  // for a ball or free joint's rest quaternion in qpos_spring a rotation q ⊗ exp(δ / 2) (the
  // validated parameters hold unit quaternions), whose derivative is E · ∂q/∂δ
  struct Direction {
    int row;         // the arena row of the element, or of the quaternion's w
    int axis = -1;   // the rotation's axis (0, 1, 2); -1 for one element
    int column = 0;  // E's first column of the row(s)
    int side;  // 0: central differences; 1, -1: one-sided, from above or below; 2: not compared
    std::string name;  // field[element], and the rotation's axis
  };
  std::vector<Direction> dirs;
  int np = 0;
  for (FieldId f : fields) {
    const FieldRows rows = field_rows(f, from.layout(), from.sizes());
    std::vector<int> quat(rows.rows, -1);  // a quaternion's first element: its offset in it
    if (f == FieldId::qpos_spring) {
      for (int j = 0; j < model.njnt; ++j) {
        const JointType type = model.jnt_type[j];
        if (type != JointType::kBall && type != JointType::kFree) continue;
        const int qr = model.jnt_qposadr[j] + (type == JointType::kFree ? 3 : 0);
        for (int k = 0; k < 4; ++k) quat[qr + k] = k;
      }
    }
    for (int r = 0; r < rows.rows; ++r) {
      const int row = rows.row + r, column = np + r;
      if (quat[r] > 0) continue;
      const std::string name = std::string(field_name(f)) + "[" + std::to_string(r) + "]";
      if (quat[r] == 0) {
        for (int a = 0; a < 3; ++a) {
          dirs.push_back({row, a, column, 0, name + " about axis " + std::to_string(a)});
        }
        continue;
      }
      // at 0, from above: some may not be negative (a mass, a damping, the density)
      dirs.push_back({row, -1, column, from.param_arena()[row * ld_from] == 0 ? 1 : 0, name});
    }
    np += rows.rows;
  }
  EXPECT_EQ(jac.np, np);
  const int ndir = static_cast<int>(dirs.size());

  // the differences: instance 0 stepped as it is, 2k + 1 and 2k + 2 moved by ±h along column k
  // (by side · h and side · 2h where one-sided), h times `scale` in differences() below.  A
  // parameter's h is 10 h |p|, relative as the step is often a function of p / |p| (an inertia)
  // and larger than the state's as a small inertia's rounding is large beside it, but at least
  // 10⁻¹ h (a rest position near 0); at 0, h / 10, as the one-sided differences' error has an
  // h³ term that the extrapolation below leaves (an armature at 0 beside a small inertia)
  std::vector<double> h(ncol + ndir);
  for (int c = 0; c < ncol; ++c) h[c] = step;
  for (int k = 0; k < ndir; ++k) {
    const double p = std::fabs(from.param_arena()[dirs[k].row * ld_from]);
    h[ncol + k] = p == 0 ? step / 10 : 10 * step * std::max(1e-2, p);
  }
  // E's (or F's) entry of row r along a rotation: E · ∂q/∂δ
  std::vector<Eigen::Vector4d> tangent(ndir);
  const auto differences = [&](double scale) {
    auto fd = std::make_unique<Simulator<double>>(model, 1 + 2 * (ncol + ndir),
                                                  SimulatorOptions{.threads = 1});
    Batch<double>& to = fd->batch();
    const std::int64_t ld_to = to.padded_size();
    for (std::int64_t i = 0; i < to.size(); ++i) {
      for (int r = 0; r < to.layout().data_rows; ++r) {
        to.data_arena()[r * ld_to + i] = from.data_arena()[r * ld_from];
      }
      for (int r = 0; r < to.layout().param_rows; ++r) {
        to.param_arena()[r * ld_to + i] = from.param_arena()[r * ld_from];
      }
      to.time()[i] = from.time()[0];
    }
    for (int c = 0; c < ncol; ++c) {
      perturb(model, to, 1 + 2 * c, c, scale * h[c]);
      perturb(model, to, 2 + 2 * c, c, -scale * h[c]);
    }
    for (int k = 0; k < ndir; ++k) {
      const Direction& dir = dirs[k];
      const int c = ncol + k;
      const double hc = scale * h[c];
      double* p = to.param_arena() + dir.row * ld_to;
      if (dir.axis < 0) {
        p[1 + 2 * c] += dir.side == 0 ? hc : dir.side * hc;
        p[2 + 2 * c] += dir.side == 0 ? -hc : dir.side * 2 * hc;
        continue;
      }
      const Eigen::Quaterniond q(p[0], p[ld_to], p[2 * ld_to], p[3 * ld_to]);
      Eigen::Vector3d delta = Eigen::Vector3d::Zero();
      delta[dir.axis] = 1;
      // ∂/∂t of q ⊗ exp(t δ / 2) at 0: q ⊗ (0, δ / 2)
      const Eigen::Quaterniond dq =
          q * Eigen::Quaterniond(0, delta.x() / 2, delta.y() / 2, delta.z() / 2);
      tangent[k] = {dq.w(), dq.x(), dq.y(), dq.z()};
      for (const double sign : {1.0, -1.0}) {
        const Eigen::Quaterniond moved = rotated(q, sign * hc * delta);
        const std::int64_t i = sign > 0 ? 1 + 2 * c : 2 + 2 * c;
        p[i] = moved.w();
        p[ld_to + i] = moved.x();
        p[2 * ld_to + i] = moved.y();
        p[3 * ld_to + i] = moved.z();
      }
    }
    fd->step(steps);
    return fd;
  };
  std::unique_ptr<Simulator<double>> fd = differences(1);
  // an element at the edge of its range on one side (an inertia on the triangle inequality's
  // edge): differences from the other side; where no side is left (a rod's or a point mass's
  // inertia, whose element may not move alone): not compared
  bool again = false;
  for (int k = 0; k < ndir; ++k) {
    const int c = ncol + k;
    const auto refused = [&](std::int64_t i) {
      return (fd->batch().status()[i] & kStatusBadParameters) != 0;
    };
    const bool above = refused(1 + 2 * c), below = refused(2 + 2 * c);
    if (dirs[k].axis >= 0 || !(above || below)) continue;
    dirs[k].side = dirs[k].side != 0 || (above && below) ? 2 : above ? -1 : 1;
    again = true;
  }
  if (again) fd = differences(1);
  // the same with h / 2, for the extrapolation below
  const std::unique_ptr<Simulator<double>> half = differences(0.5);

  // the dual step's values are the simulator's step, to the bit
  sim.step(steps);
  for (int r = 0; r < model.nq; ++r) EXPECT_EQ(jac.qpos[r], sim.batch().qpos()(0, r)) << r;
  for (int r = 0; r < model.nv; ++r) EXPECT_EQ(jac.qvel[r], sim.batch().qvel()(0, r)) << r;
  for (int r = 0; r < ns; ++r) EXPECT_EQ(jac.sensordata[r], sim.batch().sensordata()(0, r)) << r;

  // column c's differences (rows of x⁺ and sensordata), divided by the h they were taken with
  const auto estimate = [&](const Simulator<double>& at, int c, double hc) {
    const Direction* dir = c >= ncol ? &dirs[c - ncol] : nullptr;
    std::vector<double> out;
    if (dir && dir->side != 0) {
      // s (4 (x(s h) − x(0)) − (x(2 s h) − x(0))) / 2h, second order as the central difference
      const std::vector<double> d1 = state_difference(model, at.batch(), 1 + 2 * c, 0);
      const std::vector<double> d2 = state_difference(model, at.batch(), 2 + 2 * c, 0);
      for (std::size_t r = 0; r < d1.size(); ++r) {
        out.push_back(dir->side * (4 * d1[r] - d2[r]) / (2 * hc));
      }
    } else {
      out = state_difference(model, at.batch(), 1 + 2 * c, 2 + 2 * c);
      for (double& v : out) v /= 2 * hc;
    }
    return out;
  };

  // each row's size after the steps: |x⁺| (a rotation's 1); for sensordata the largest
  // reading, as a sensor's rounding is that of the terms it sums (an interaction force near 0
  // from m a and m g)
  std::vector<double> size;
  for (int j = 0; j < model.njnt; ++j) {
    const int qa = model.jnt_qposadr[j];
    const JointType type = model.jnt_type[j];
    const int linear = type == JointType::kFree ? 3 : type == JointType::kBall ? 0 : 1;
    for (int r = 0; r < linear; ++r) size.push_back(std::fabs(jac.qpos[qa + r]));
    if (linear != 1) size.insert(size.end(), 3, 1.0);
  }
  for (int r = 0; r < model.nv; ++r) size.push_back(std::fabs(jac.qvel[r]));
  for (int r = 0; r < model.na; ++r) size.push_back(std::fabs(jac.act[r]));
  double largest = 0;
  for (int r = 0; r < ns; ++r) largest = std::max(largest, std::fabs(jac.sensordata[r]));
  size.insert(size.end(), ns, largest);

  Worst worst;
  for (int c = 0; c < ncol + ndir; ++c) {
    const Direction* dir = c >= ncol ? &dirs[c - ncol] : nullptr;
    if (dir && dir->side == 2) continue;
    for (const Simulator<double>* at : {fd.get(), half.get()}) {
      for (std::int64_t i : {1 + 2 * c, 2 + 2 * c}) {
        EXPECT_EQ(at->batch().status()[i] & ~kStatusNotConverged, 0)
            << c << (dir ? " " + dir->name : std::string());
        if (at->batch().status()[i] & ~kStatusNotConverged) return failed;
      }
    }
    const std::vector<double> central = estimate(*fd, c, h[c]);
    const std::vector<double> finer = estimate(*half, c, 0.5 * h[c]);
    // at the edge of a parameter's range the step need not be differentiable from the side it
    // is defined on, and there the differences do not converge as h shrinks: a zero mass on a
    // body without inertia, whose medium box grows as √(10⁻¹⁵ / m) (MuJoCo's inertia box)
    if (dir && dir->side != 0) {
      bool converges = true;
      for (int r = 0; r < nx + ns; ++r) {
        converges =
            converges && std::fabs(central[r] - finer[r]) <= 1e-3 * (1 + std::fabs(finer[r]));
      }
      if (!converges) continue;
    }
    if (dir) ++worst.checked;
    for (int r = 0; r < nx + ns; ++r) {
      double exact = 0;
      if (dir) {
        const auto entry = [&](int col) {
          return r < nx ? jac.E[r * np + col] : jac.F[(r - nx) * np + col];
        };
        if (dir->axis < 0) {
          exact = entry(dir->column);
        } else {
          for (int k = 0; k < 4; ++k) exact += entry(dir->column + k) * tangent[c - ncol][k];
        }
      } else if (r < nx) {
        exact = c < nx ? jac.A[r * nx + c] : jac.B[r * model.nu + (c - nx)];
      } else {
        exact = c < nx ? jac.C[(r - nx) * nx + c] : jac.D[(r - nx) * model.nu + (c - nx)];
      }
      // a parameter's against the differences extrapolated to h = 0 (Richardson: the error of
      // both schemes is c h² and more), as one whose scale is far from the h chosen (an
      // armature beside a small inertia) moves the step far in h; less their own error, twice
      // their change from h to h / 2, but by at most 10⁻⁵ of 1 + |entry|; and relative to the
      // row's size too, as their rounding is
      const double fd = dir ? (4 * finer[r] - central[r]) / 3 : central[r];
      const double own =
          dir ? std::min(2 * std::fabs(central[r] - finer[r]), 1e-5 * (1 + std::fabs(fd))) : 0.0;
      const double err =
          std::max(0.0, std::fabs(exact - fd) - own) / (1 + std::fabs(fd) + (dir ? size[r] : 0.0));
      if (err > worst.error) {
        worst = {err,   r,          c,       worst.checked, dir ? dir->name : std::string(),
                 exact, central[r], finer[r]};
      }
    }
  }
  return worst;
}

INSTANTIATE_TEST_SUITE_P(ModelCases, Derivatives, ::testing::ValuesIn(case_names()),
                         [](const auto& info) { return info.param; });

// a model without dofs: no state rows, so A, B and E are empty; its sensors' rows remain
TEST(Derivatives, WithoutDofsOnlySensorRows) {
  const Model model = load_mjcf_string(R"(<mujoco>
  <worldbody>
    <body pos="0 0 1"><geom type="sphere" size="0.1"/><site name="s"/></body>
  </worldbody>
  <sensor><framepos objtype="site" objname="s"/></sensor>
</mujoco>)")
                          .model;
  Simulator<double> sim(model, 2, {.threads = 1});
  const std::vector<std::int64_t> both{0, 1};
  const FieldId gravity = FieldId::gravity;
  const StepJacobians jac = step_jacobians(model, sim.batch(), both, 1, {&gravity, 1}, 2);
  EXPECT_EQ(jac.nx, 0);
  EXPECT_TRUE(jac.A.empty() && jac.B.empty() && jac.E.empty());
  ASSERT_EQ(jac.F.size(), 2u * 3 * 3);
  for (double f : jac.F) EXPECT_EQ(f, 0);  // a fixed site does not move with gravity
  EXPECT_EQ(jac.sensordata[2], 1);
  EXPECT_EQ(jac.status[0] | jac.status[1], 0);
  EXPECT_THROW(step_jacobians(model, sim.batch(), both, 1, {}, 0), std::invalid_argument);
}

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
