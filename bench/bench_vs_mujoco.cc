// zwang against MuJoCo on the CPU, side by side in one process: the same MJCF file, the same
// number of instances, steps and threads, the same integrator and timestep.  MuJoCo runs one
// mjData per instance in an OpenMP loop with its constraint solver and collision detection
// off, since zwang has neither yet (and fluid forces off); zwang runs its batch.  Prints
// instance-steps per second and the ratio zwang / MuJoCo.
//
//   build/bench/bench_vs_mujoco [--instances N] [--steps T] [--threads K] MODEL.xml ...
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
  Options() { steps = 200; }
  int threads = 0;
};

// the same initial state for both engines: qpos0 with hinge and slide coordinates moved by
// up to ±0.1, at rest
std::vector<std::vector<double>> initial_states(const zwang::Model& m, std::int64_t n) {
  std::mt19937_64 rng(1);
  std::vector<std::vector<double>> q;
  for (std::int64_t i = 0; i < n; ++i) q.push_back(zwang::examples::perturbed_qpos0(m, 0.1, rng));
  return q;
}

double mujoco_rate(const std::string& file, const std::vector<std::vector<double>>& q0,
                   const Options& o) {
  mjModel* m = bench::load_mujoco_disabled(file, mjDSBL_CONSTRAINT | mjDSBL_CONTACT);
  std::vector<mjData*> data;
  const double t = bench::step_mujoco(m, q0, o.steps, o.threads, data);
  for (mjData* d : data) mj_deleteData(d);
  mj_deleteModel(m);
  return static_cast<double>(o.instances) * o.steps / t;
}

template <class T>
double zwang_rate(const zwang::Model& model, const std::vector<std::vector<double>>& q0,
                  const Options& o) {
  zwang::Simulator<T> sim(model, o.instances, {.threads = o.threads});
  for (std::int64_t i = 0; i < o.instances; ++i)
    sim.batch().qpos().set(i, std::vector<T>(q0[i].begin(), q0[i].end()));
  const double t = bench::time_steps(sim, o.steps);
  return static_cast<double>(o.instances) * o.steps / t;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{"zwang against MuJoCo on the CPU, same models, instances, steps and threads"};
  bench::add_run_options(app, o, "steps per instance");
  app.add_option("--threads", o.threads, "threads, 0 for every core")->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  if (o.threads <= 0) o.threads = omp_get_max_threads();
  std::printf("%lld instances x %d steps, %d threads, constraints and contacts off in MuJoCo\n",
              static_cast<long long>(o.instances), o.steps, o.threads);
  std::printf("%-28s %4s %4s %8s %14s %14s %14s %9s %9s\n", "model", "nv", "int", "dt", "MuJoCo",
              "zwang f64", "zwang f32", "f64/MJ", "f32/MJ");
  for (const std::string& file : o.models) {
    try {
      const zwang::Model model = zwang::load_mjcf(file).model;
      const auto q0 = initial_states(model, o.instances);
      const double mj = mujoco_rate(file, q0, o);
      const double z64 = zwang_rate<double>(model, q0, o);
      const double z32 = zwang_rate<float>(model, q0, o);
      std::string name = file.substr(file.find_last_of('/') + 1);
      std::printf("%-28s %4d %4s %8g %14.4g %14.4g %14.4g %9.2f %9.2f\n", name.c_str(), model.nv,
                  model.integrator == zwang::Integrator::kRK4            ? "RK4"
                  : model.integrator == zwang::Integrator::kImplicitFast ? "ImpF"
                  : model.integrator == zwang::Integrator::kImplicit     ? "Imp"
                                                                         : "Eul",
                  model.timestep, mj, z64, z32, z64 / mj, z32 / mj);
    } catch (const std::exception& e) {
      std::printf("%-28s %s\n", file.c_str(), e.what());
    }
  }
  return 0;
}
