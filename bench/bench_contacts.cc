// The step with contacts: zwang's CPU backends (float64; scalar, and SIMD where the CPU has it)
// against MuJoCo 4.0's mj_step on the same MJCF file, states, controls, instances and threads, in
// one run.  The states are the model's initial pose with hinges and slides moved by ± 0.1, run
// through a warm-up of random controls in MuJoCo so that the bodies have fallen and touch the
// ground; both engines then start from those states and step with the same random controls (redrawn
// every --hold steps). Prints instance-steps per second, the ratio zwang / MuJoCo, and the mean
// contacts per instance and Newton iterations of the last solve at the end of each block of
// --hold steps (the contacts show that both carry the same load).
//
// Both use the model's own options, except the solver: zwang has only Newton, so a model that
// asks MuJoCo for PGS or CG (Gymnasium's humanoid asks for PGS) runs MuJoCo with Newton.
//
//   build/bench/bench_contacts [--instances N] [--steps T] [--warmup W] [--threads K ...]
//                              MODEL.xml ...
#include <fmt/format.h>
#include <mujoco/mujoco.h>
#include <omp.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "bench/bench_common.hpp"
#include "zwang/examples.hpp"
#include "zwang/loaders.hpp"
#include "zwang/simulator.hpp"

namespace {

struct Options : bench::RunOptions {
  int warmup = 300;
  int hold = 10;
  std::vector<int> threads{1, 0};
};

// U(0, 1) from (seed, instance, block, actuator) by SplitMix64: the same controls for both
// engines without storing them
double unit(std::uint64_t seed, std::int64_t i, int block, int a) {
  std::uint64_t z = seed + 0x9e3779b97f4a7c15ULL * (1 + static_cast<std::uint64_t>(i) * 1000003ULL +
                                                    static_cast<std::uint64_t>(block) * 7919ULL +
                                                    static_cast<std::uint64_t>(a));
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) * 0x1.0p-53;
}

struct MjModelDeleter {
  void operator()(mjModel* m) const { mj_deleteModel(m); }
};
using MjModelPtr = std::unique_ptr<mjModel, MjModelDeleter>;

// MuJoCo's model with the solver set to Newton where it asks for another one
MjModelPtr load_mujoco(const std::string& file, std::string* note) {
  char error[1024] = "";
  MjModelPtr m(mj_loadXML(file.c_str(), nullptr, error, sizeof(error)));
  if (!m) throw std::runtime_error(fmt::format("MuJoCo cannot load {}: {}", file, error));
  if (m->opt.solver != mjSOL_NEWTON) {
    *note = fmt::format("MuJoCo solver {} -> Newton", m->opt.solver == mjSOL_PGS ? "PGS" : "CG");
    m->opt.solver = mjSOL_NEWTON;
  }
  return m;
}

// control a of instance i in block b: uniform in ctrlrange, or in [-1, 1] if unlimited
double control(const mjModel* m, std::int64_t i, int block, int a) {
  const bool limited = m->actuator_ctrllimited[a];
  const double lo = limited ? m->actuator_ctrlrange[2 * a] : -1;
  const double hi = limited ? m->actuator_ctrlrange[2 * a + 1] : 1;
  return lo + (hi - lo) * unit(17, i, block, a);
}

struct States {
  std::vector<std::vector<double>> qpos, qvel;
};

// the warm-up, in MuJoCo with every thread: from perturbed qpos0 at rest, `warmup` steps of
// random controls
States warm_states(const mjModel* m, const zwang::Model& model, const Options& o) {
  std::mt19937_64 rng(1);
  States s;
  for (std::int64_t i = 0; i < o.instances; ++i) {
    s.qpos.push_back(zwang::examples::perturbed_qpos0(model, 0.1, rng));
    s.qvel.emplace_back(m->nv, 0.0);
  }
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < o.instances; ++i) {
    mjData* d = mj_makeData(m);
    std::memcpy(d->qpos, s.qpos[i].data(), sizeof(double) * m->nq);
    for (int t = 0; t < o.warmup; ++t) {
      // blocks numbered below zero so that the timed controls are others
      if (t % o.hold == 0) {
        for (int a = 0; a < m->nu; ++a) d->ctrl[a] = control(m, i, -1 - t / o.hold, a);
      }
      mj_step(m, d);
    }
    std::memcpy(s.qpos[i].data(), d->qpos, sizeof(double) * m->nq);
    std::memcpy(s.qvel[i].data(), d->qvel, sizeof(double) * m->nv);
    mj_deleteData(d);
  }
  return s;
}

struct Rate {
  double steps_per_second;
  double ncon;   // mean contacts per instance, over the ends of the control blocks
  double niter;  // mean Newton iterations of the last solve there (MuJoCo: most over its islands)
};

Rate mujoco_rate(const mjModel* m, const States& s, const Options& o, int threads) {
  std::vector<mjData*> data(o.instances);
  for (std::int64_t i = 0; i < o.instances; ++i) {
    data[i] = mj_makeData(m);
    std::memcpy(data[i]->qpos, s.qpos[i].data(), sizeof(double) * m->nq);
    std::memcpy(data[i]->qvel, s.qvel[i].data(), sizeof(double) * m->nv);
  }
  const int blocks = o.steps / o.hold;
  double ncon = 0, niter = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (int b = 0; b < blocks; ++b) {
    std::int64_t sum = 0, iterations = 0;
#pragma omp parallel for num_threads(threads) schedule(static) reduction(+ : sum, iterations)
    for (std::int64_t i = 0; i < o.instances; ++i) {
      mjData* d = data[i];
      for (int a = 0; a < m->nu; ++a) d->ctrl[a] = control(m, i, b, a);
      for (int t = 0; t < o.hold; ++t) mj_step(m, d);
      sum += d->ncon;
      int most = 0;
      for (int k = 0; k < std::min(std::max(d->nisland, 1), mjNISLAND); ++k)
        most = std::max(most, d->solver_niter[k]);
      iterations += most;
    }
    ncon += static_cast<double>(sum);
    niter += static_cast<double>(iterations);
  }
  const double t = bench::seconds_since(t0);
  for (mjData* d : data) mj_deleteData(d);
  const double steps = static_cast<double>(o.instances) * blocks * o.hold;
  const double ends = static_cast<double>(o.instances) * blocks;
  return {steps / t, ncon / ends, niter / ends};
}

Rate zwang_rate(const zwang::Model& model, const mjModel* m, const States& s, const Options& o,
                int threads, zwang::CpuSimd simd) {
  zwang::Simulator<double> sim(model, o.instances, {.threads = threads, .cpu_simd = simd});
  auto& batch = sim.batch();
  for (std::int64_t i = 0; i < o.instances; ++i) {
    batch.qpos().set(i, s.qpos[i]);
    batch.qvel().set(i, s.qvel[i]);
  }
  const int blocks = o.steps / o.hold;
  double ncon = 0, niter = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (int b = 0; b < blocks; ++b) {
    const auto ctrl = batch.ctrl();
    for (int a = 0; a < m->nu; ++a) {
      for (std::int64_t i = 0; i < o.instances; ++i) ctrl(i, a) = control(m, i, b, a);
    }
    sim.step(o.hold);
    for (std::int64_t i = 0; i < o.instances; ++i) {
      ncon += batch.ncon()(i, 0);
      niter += batch.solver_niter()(i, 0);
    }
  }
  const double t = bench::seconds_since(t0);
  bench::report_failure(sim);
  const double steps = static_cast<double>(o.instances) * blocks * o.hold;
  const double ends = static_cast<double>(o.instances) * blocks;
  return {steps / t, ncon / ends, niter / ends};
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{"the step with contacts, zwang against MuJoCo 4.0, same states and threads"};
  bench::add_run_options(app, o, "timed steps per instance");
  app.add_option("--warmup", o.warmup, "untimed steps before (MuJoCo)")->capture_default_str();
  app.add_option("--hold", o.hold, "steps per random control")->capture_default_str();
  app.add_option("--threads", o.threads, "thread counts, 0 for every core")->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  if (o.hold < 1 || o.steps < o.hold) {
    std::fprintf(stderr, "need 1 <= --hold <= --steps\n");
    return 1;
  }
  o.steps -= o.steps % o.hold;
  for (int& k : o.threads) k = k > 0 ? k : omp_get_max_threads();
  if (mj_version() != mjVERSION_HEADER) {
    std::fprintf(stderr, "MuJoCo library %d does not match its header %d\n", mj_version(),
                 mjVERSION_HEADER);
    return 1;
  }
  std::printf("%lld instances x %d steps after %d warm-up steps, float64, MuJoCo %s\n",
              static_cast<long long>(o.instances), o.steps, o.warmup, mj_versionString());
  std::printf("%-16s %7s %12s %12s %12s %7s %7s %9s %9s %9s %9s  %s\n", "model", "threads",
              "zw scalar", "zw SIMD", "MuJoCo", "sc/MJ", "SIMD/MJ", "ncon zw", "ncon MJ",
              "niter zw", "niter MJ", "note");
  for (const std::string& file : o.models) {
    try {
      const zwang::Model model = zwang::load_mjcf(file).model;
      std::string note;
      const MjModelPtr m = load_mujoco(file, &note);
      if (m->nq != model.nq || m->nv != model.nv || m->nu != model.nu)
        throw std::runtime_error("zwang and MuJoCo disagree on nq, nv or nu");
      const States s = warm_states(m.get(), model, o);
      const std::string name = file.substr(file.find_last_of('/') + 1);
      for (int k : o.threads) {
        const Rate z = zwang_rate(model, m.get(), s, o, k, zwang::CpuSimd::kScalar);
        const Rate v = zwang_rate(model, m.get(), s, o, k, zwang::CpuSimd::kAuto);
        const Rate j = mujoco_rate(m.get(), s, o, k);
        std::printf("%-16s %7d %12.4g %12.4g %12.4g %7.2f %7.2f %9.2f %9.2f %9.2f %9.2f  %s\n",
                    name.c_str(), k, z.steps_per_second, v.steps_per_second, j.steps_per_second,
                    z.steps_per_second / j.steps_per_second,
                    v.steps_per_second / j.steps_per_second, z.ncon, j.ncon, z.niter, j.niter,
                    note.c_str());
        std::fflush(stdout);
      }
    } catch (const std::exception& e) {
      std::printf("%-16s %s\n", file.c_str(), e.what());
    }
  }
  return 0;
}
