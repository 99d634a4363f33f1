// The cost of the constrained step: zwang's step with its constraint rows (equalities, joint
// limits, friction loss; contacts off) against its smooth step on the same model, states,
// instances and threads, in one run, and MuJoCo 2.2.2 doing the same for comparison.  Prints
// instance-steps per second, the ratios constrained / smooth, and the mean active rows.
//
//   build/bench/bench_constraints [--instances N] [--steps T] [--threads K] MODEL.xml ...
#include <fmt/format.h>
#include <mujoco/mujoco.h>
#include <omp.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "bench/bench_common.hpp"
#include "bench/mujoco_steps.hpp"
#include "zwang/examples.hpp"
#include "zwang/loaders.hpp"
#include "zwang/simulator.hpp"

namespace {

struct Options : bench::RunOptions {
  int threads = 0;
  double spread = 0.5;
};

struct Rate {
  double steps_per_second;
  double active_rows;  // mean over instances at the end
};

Rate mujoco_rate(const std::string& file, const std::vector<std::vector<double>>& q0,
                 const Options& o, bool constrained) {
  mjModel* m =
      bench::load_mujoco_disabled(file, mjDSBL_CONTACT | (constrained ? 0 : mjDSBL_CONSTRAINT));
  std::vector<mjData*> data;
  const double t = bench::step_mujoco(m, q0, o.steps, o.threads, data);
  double rows = 0;
  for (mjData* d : data) {
    rows += d->nefc;
    mj_deleteData(d);
  }
  mj_deleteModel(m);
  return {static_cast<double>(o.instances) * o.steps / t, rows / o.instances};
}

Rate zwang_rate(zwang::Model model, const std::vector<std::vector<double>>& q0, const Options& o,
                bool constrained) {
  model.disableflags |= zwang::kDisableContact | (constrained ? 0 : zwang::kDisableConstraint);
  zwang::Simulator<double> sim(model, o.instances, {.threads = o.threads});
  for (std::int64_t i = 0; i < o.instances; ++i) sim.batch().qpos().set(i, q0[i]);
  const double t = bench::time_steps(sim, o.steps);
  double rows = 0;
  for (std::int64_t i = 0; i < o.instances; ++i) rows += sim.batch().efc_nactive()(i, 0);
  return {static_cast<double>(o.instances) * o.steps / t, rows / o.instances};
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{"constrained against smooth steps, zwang and MuJoCo, same states and threads"};
  bench::add_run_options(app, o, "steps per instance");
  app.add_option("--threads", o.threads, "threads, 0 for every core")->capture_default_str();
  app.add_option("--spread", o.spread, "hinge and slide start offsets, ± (rad or m)")
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  if (o.threads <= 0) o.threads = omp_get_max_threads();
  std::printf("%lld instances x %d steps, %d threads, float64, contacts off\n",
              static_cast<long long>(o.instances), o.steps, o.threads);
  std::printf("%-22s %4s %11s %11s %7s %6s %11s %11s %7s %6s\n", "model", "nv", "zw smooth",
              "zw constr", "ratio", "rows", "MJ smooth", "MJ constr", "ratio", "rows");
  for (const std::string& file : o.models) {
    try {
      const zwang::Model model = zwang::load_mjcf(file).model;
      std::mt19937_64 rng(1);
      std::vector<std::vector<double>> q0;
      for (std::int64_t i = 0; i < o.instances; ++i)
        q0.push_back(zwang::examples::perturbed_qpos0(model, o.spread, rng));
      const Rate zs = zwang_rate(model, q0, o, false), zc = zwang_rate(model, q0, o, true);
      const Rate ms = mujoco_rate(file, q0, o, false), mc = mujoco_rate(file, q0, o, true);
      const std::string name = file.substr(file.find_last_of('/') + 1);
      std::printf("%-22s %4d %11.4g %11.4g %7.2f %6.1f %11.4g %11.4g %7.2f %6.1f\n", name.c_str(),
                  model.nv, zs.steps_per_second, zc.steps_per_second,
                  zc.steps_per_second / zs.steps_per_second, zc.active_rows, ms.steps_per_second,
                  mc.steps_per_second, mc.steps_per_second / ms.steps_per_second, mc.active_rows);
    } catch (const std::exception& e) {
      std::printf("%-22s %s\n", file.c_str(), e.what());
    }
  }
  return 0;
}
