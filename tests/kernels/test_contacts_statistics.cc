// Statistics of random-control rollouts with contacts, zwang against MuJoCo 2.2.2: Gymnasium's
// ant.xml and hopper.xml, kRollouts rollouts of kSteps steps from the model's initial state with
// reset noise, controls uniform in the actuators' ctrlrange.  Both engines get the same initial
// states and the same pre-generated controls, and run the model's own options (integrator,
// timestep, solver).  zwang steps one batch of all rollouts; MuJoCo loops over them with mj_step.
//
// At steps 50, 100 and 200 the torso height and forward velocity (qvel[0]) of the two engines
// must have the same distribution:
//   means:  |m_zw − m_mj| ≤ 4 sqrt(s_zw² / N + s_mj² / N)
//   stds:   |s_zw − s_mj| / s ≤ 4 sqrt((κ_zw − 1) / (4 (N − 1)) + (κ_mj − 1) / (4 (N − 1)))
// The second is the delta-method standard error of a sample standard deviation,
// sd(s) / σ ≈ sqrt((κ − 1) / (4 (N − 1))) with κ the kurtosis, for each engine as if the two
// were independent.  For normal samples (κ = 3) it is 4 sqrt(1 / (N − 1)), √2 tighter than
// 4 sqrt(2 / (N − 1)); the kurtosis widens it for these samples, which are not normal (κ up to
// ~6: a fallen hopper's height, an ant on its back).
// Both bounds treat the two samples as independent; they are paired (same inputs), so as long
// as trajectories agree the differences are far smaller than the bounds.
//
// Divergence: the test prints, per model, the first step where
// max_j |qpos_zw[j] − qpos_mj[j]| > 1e-6, as quartiles over rollouts.  Measured (Release):
// - hopper (RK4, no rotation joint): never within 200 steps; the largest difference over all
//   rollouts and steps is ~4e-15.  Same inputs, same algorithm: only rounding differs, and at
//   this length it has not been amplified.
// - ant (RK4, free joint): median step 6 (quartiles 5 / 9, earliest 2).  Not rounding: zwang's
//   RK4 integrates the free joint's rotation on SO(3), MuJoCo 2.2.2's treats its angular
//   velocity as Euclidean (test_mujoco.cc, check_rk4_on_rotations), so single steps differ by a
//   truncation error, which contact dynamics (contacts switching on a step earlier or later,
//   feet sticking or slipping) amplify until the trajectories are unrelated.  With both
//   engines on Euler the same ant rollouts stay within 1e-6 for 200 steps in 998 of 1000.
// After divergence only statistics can be compared: the same physics gives the same
// distributions.  Scaling zwang's sliding friction by 0.7 fails both tests (ant: velocity sd at
// step 100, 1.4 bounds; hopper: height mean at step 100, 1.7 bounds); the unpaired bounds are
// the brief's and are loose, so smaller errors may pass.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <mujoco/mujoco.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "mujoco_util.h"
#include "test_util.h"
#include "zwang/loaders.hpp"
#include "zwang/model.hpp"
#include "zwang/simulator.hpp"

namespace zwang::test {
namespace {

namespace fs = std::filesystem;

// Under the sanitizers the same code runs on a tenth of the rollouts; the bounds are in standard
// errors, so they widen with it
constexpr int kRollouts = kSanitized ? 100 : 1000;
constexpr int kSteps = 200;
constexpr double kDivergence = 1e-6;  // qpos difference that counts as diverged

fs::path gym_assets() {
  const std::string dir = gymnasium_dir();
  return dir.empty() ? fs::path() : fs::path(dir) / "envs" / "mujoco" / "assets";
}

// the sample mean, standard deviation and kurtosis (E(x − μ)⁴ / σ⁴) of a quantity
struct Moments {
  double mean = 0, sd = 0, kurtosis = 3;
};

Moments moments(const std::vector<double>& x) {
  const double n = static_cast<double>(x.size());
  Moments m;
  for (double v : x) m.mean += v / n;
  double m2 = 0, m4 = 0;
  for (double v : x) {
    const double d = (v - m.mean) * (v - m.mean);
    m2 += d / n;
    m4 += d * d / n;
  }
  m.sd = std::sqrt(m2 * n / (n - 1));
  if (m2 > 0) m.kurtosis = m4 / (m2 * m2);
  return m;
}

// the inputs of all rollouts: initial states with reset noise and kSteps controls each
struct Inputs {
  std::vector<State> initial;
  std::vector<std::vector<double>> ctrl;  // rollout -> step-major kSteps x nu
};

// Gymnasium's resets: qpos0 + U(−0.1, 0.1) per coordinate (quaternions renormalised), and
// q̇ + 0.1 N(0, 1) (Ant) or U(−0.1, 0.1) (Hopper; Gymnasium's own scale is 0.005, wider here to
// spread the outcomes); one seed per rollout
Inputs make_inputs(const mjModel* m, bool normal_qvel) {
  Inputs in;
  const MjDataPtr d(mj_makeData(m));
  for (int r = 0; r < kRollouts; ++r) {
    std::mt19937_64 rng(1000 + r);
    std::uniform_real_distribution<double> noise(-0.1, 0.1), unit(0, 1);
    std::normal_distribution<double> normal(0, 0.1);
    mj_resetData(m, d.get());
    for (int i = 0; i < m->nq; ++i) d->qpos[i] += noise(rng);
    for (int i = 0; i < m->nv; ++i) d->qvel[i] += normal_qvel ? normal(rng) : noise(rng);
    mj_normalizeQuat(m, d->qpos);
    in.initial.push_back({std::vector<double>(d->qpos, d->qpos + m->nq),
                          std::vector<double>(d->qvel, d->qvel + m->nv),
                          std::vector<double>(m->nu, 0)});
    std::vector<double>& u = in.ctrl.emplace_back(kSteps * m->nu);
    for (int t = 0; t < kSteps; ++t) {
      for (int a = 0; a < m->nu; ++a) {
        const double lo = m->actuator_ctrllimited[a] ? m->actuator_ctrlrange[2 * a] : -1;
        const double hi = m->actuator_ctrllimited[a] ? m->actuator_ctrlrange[2 * a + 1] : 1;
        u[t * m->nu + a] = lo + (hi - lo) * unit(rng);
      }
    }
  }
  return in;
}

// rollout r after step t + 1 in an array of all rollouts' steps
std::size_t row(int r, int t) {
  return static_cast<std::size_t>(r) * kSteps + t;
}

bool checkpoint(int step) {
  return step == 50 || step == 100 || step == 200;
}

void compare(const std::string& label, const fs::path& file, int height, bool normal_qvel) {
  std::string error;
  MjModelPtr m = load_mujoco(file, &error);
  ASSERT_TRUE(m) << error;
  m->opt.disableflags &= ~mjDSBL_CONSTRAINT;
  Model model = load_model(file, kMujoco2).model;
  ASSERT_NO_FATAL_FAILURE(expect_same_tree(model, m.get()));
  const int nq = m->nq, nu = m->nu;
  const Inputs in = make_inputs(m.get(), normal_qvel);

  // MuJoCo: every rollout's qpos after each step (rollout x step x nq) and qvel[0]
  std::vector<double> mj_qpos(std::size_t{kRollouts} * kSteps * nq);
  std::vector<double> mj_vel(std::size_t{kRollouts} * kSteps);
  // rollouts split over the cores, one mjData each
  const int workers = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  std::vector<std::thread> threads;
  for (int w = 0; w < workers; ++w) {
    threads.emplace_back([&, w] {
      const MjDataPtr d(mj_makeData(m.get()));
      for (int r = w; r < kRollouts; r += workers) {
        set_state(m.get(), d.get(), in.initial[r]);
        for (int t = 0; t < kSteps; ++t) {
          std::copy_n(in.ctrl[r].data() + t * nu, nu, d->ctrl);
          mj_step(m.get(), d.get());
          std::copy_n(d->qpos, nq, mj_qpos.data() + row(r, t) * nq);
          mj_vel[row(r, t)] = d->qvel[0];
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();

  // zwang: one batch; the first step at which each rollout leaves MuJoCo's (kSteps + 1: never)
  const auto sim = simulator(model, in.initial);
  auto& batch = sim->batch();
  std::vector<int> diverged(kRollouts, kSteps + 1);
  std::vector<double> max_diff(kRollouts, 0);
  for (int t = 0; t < kSteps; ++t) {
    for (int r = 0; r < kRollouts; ++r) {
      for (int a = 0; a < nu; ++a) batch.ctrl()(r, a) = in.ctrl[r][t * nu + a];
    }
    sim->step(1);
    const int step = t + 1;
    std::vector<double> h_zw(kRollouts), h_mj(kRollouts), v_zw(kRollouts), v_mj(kRollouts);
    for (int r = 0; r < kRollouts; ++r) {
      const double* q = mj_qpos.data() + row(r, t) * nq;
      for (int j = 0; j < nq; ++j) {
        const double e = std::abs(batch.qpos()(r, j) - q[j]);
        max_diff[r] = std::max(max_diff[r], std::isnan(e) ? HUGE_VAL : e);
      }
      if (diverged[r] > kSteps && max_diff[r] > kDivergence) diverged[r] = step;
      h_zw[r] = batch.qpos()(r, height);
      h_mj[r] = q[height];
      v_zw[r] = batch.qvel()(r, 0);
      v_mj[r] = mj_vel[row(r, t)];
    }
    if (!checkpoint(step)) continue;
    const double n = kRollouts;
    for (const auto& [name, zw, mj] :
         {std::tuple{"height", &h_zw, &h_mj}, std::tuple{"velocity", &v_zw, &v_mj}}) {
      const Moments a = moments(*zw), b = moments(*mj);
      const double mean_tol = 4 * std::sqrt(a.sd * a.sd / n + b.sd * b.sd / n);
      const double sd_tol =
          4 * std::sqrt((a.kurtosis - 1) / (4 * (n - 1)) + (b.kurtosis - 1) / (4 * (n - 1)));
      const double sd_rel = std::abs(a.sd - b.sd) / std::max(b.sd, 1e-300);
      std::cout << fmt::format(
          "{} step {:3} {:8}: mean zwang {:+.6f} MuJoCo {:+.6f} (|diff| {:.2e}, bound {:.2e}); "
          "sd zwang {:.6f} MuJoCo {:.6f} (rel diff {:.2e}, bound {:.2e}; kurtosis {:.2f} "
          "{:.2f})\n",
          label, step, name, a.mean, b.mean, std::abs(a.mean - b.mean), mean_tol, a.sd, b.sd,
          sd_rel, sd_tol, a.kurtosis, b.kurtosis);
      EXPECT_LE(std::abs(a.mean - b.mean), mean_tol) << label << " step " << step << " " << name;
      EXPECT_LE(sd_rel, sd_tol) << label << " step " << step << " " << name;
    }
  }
  for (const auto& f : sim->failures()) ADD_FAILURE() << label << ": " << f.message();

  // when trajectories separate
  std::vector<int> sorted = diverged;
  std::sort(sorted.begin(), sorted.end());
  const int never = static_cast<int>(std::count(sorted.begin(), sorted.end(), kSteps + 1));
  std::cout << fmt::format(
      "{}: first step with max |qpos_zwang − qpos_MuJoCo| > {:.0e}: quartiles {} / {} (median) / "
      "{}, min {}, {} of {} rollouts never (largest difference over all steps {:.1e}); "
      "MuJoCo on {} threads, zwang on {}\n",
      label, kDivergence, sorted[kRollouts / 4], sorted[kRollouts / 2], sorted[3 * kRollouts / 4],
      sorted[0], never, kRollouts, *std::max_element(max_diff.begin(), max_diff.end()), workers,
      sim->backend());
  ::testing::Test::RecordProperty("divergence_median_step", sorted[kRollouts / 2]);
}

// ant: free joint, torso height qpos[2]
TEST(ContactStatistics, Ant) {
  const fs::path assets = gym_assets();
  ASSERT_FALSE(assets.empty()) << "gymnasium is not installed for python3: pip install gymnasium";
  compare("ant", assets / "ant.xml", 2, true);
}

// hopper: slides rootx, rootz and hinge rooty first, torso height qpos[1] (rootz, ref 1.25)
TEST(ContactStatistics, Hopper) {
  const fs::path assets = gym_assets();
  ASSERT_FALSE(assets.empty()) << "gymnasium is not installed for python3: pip install gymnasium";
  compare("hopper", assets / "hopper.xml", 1, false);
}

}  // namespace
}  // namespace zwang::test
