// GPU throughput of zwang in instance-steps per second (items_per_second), against instance
// count (2¹⁰ … 2²⁰ ≈ 10⁶), in float32 and float64, for three ways of running the pipeline:
//   inkernel/fused    one kernel runs all steps, each thread factors its own H
//   inkernel/staged   one kernel per stage (kinematics, Jacobians, ..., solve, integrate)
//   cusolver/fused    smooth() in one kernel, H factored by cuSOLVER's batched Cholesky
// `device/...` times CudaBackend::run_steps() alone (the state stays on the device);
// `simulator/...` times Simulator::step(), uploads and downloads included.
// `device/.../g16`, `device/.../g32` run the in-kernel fused path on lane groups of 16 or 32 lanes
// per instance (SimulatorOptions::cuda_group), `anchor/.../g1|g16|g32` likewise.
// `anchor/...` is MuJoCo Warp's humanoid benchmark (its testspeed): every instance at a keyframe
// (--keyframe=NAME), controls drawn once per instance about the keyframe's from N(0, s²)
// (--ctrl-noise=s), one step and a synchronize per iteration; counters: the mean contacts, active
// rows and Newton iterations per instance at the end. For the --model files only.
// `threshold/...` sweeps nv (examples::rod_chain with 0.3 m rods, axes cycling y, x, z) at 2¹⁶
// instances for both Cholesky paths: the crossover is SimulatorOptions::cusolver_min_nv
// (bench/README.md).
//
//   build/bench/bench_gpu [--model=FILE ...] [--keyframe=NAME] [--ctrl-noise=S]
//       --benchmark_counters_tabular=true --benchmark_out=bench_gpu.json
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cuda/cuda_backend.hpp"
#include "zwang/examples.hpp"
#include "zwang/loaders.hpp"
#include "zwang/randomize.hpp"
#include "zwang/simulator.hpp"

namespace {

using namespace zwang;

constexpr int kStepsPerIteration = 10;

// hinge and slide coordinates moved by up to ±0.2 from the default configuration, at rest
template <class T>
void scatter(Batch<T>& batch, const Model& m, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> offset(-0.2, 0.2);
  std::vector<T> q(m.nq);
  for (std::int64_t i = 0; i < batch.size(); ++i) {
    for (int k = 0; k < m.nq; ++k) q[k] = static_cast<T>(m.qpos0[k]);
    for (int j = 0; j < m.njnt; ++j) {
      if (m.jnt_type[j] == JointType::kHinge || m.jnt_type[j] == JointType::kSlide)
        q[m.jnt_qposadr[j]] += static_cast<T>(offset(rng));
    }
    batch.qpos().set(i, q);
  }
}

struct Variant {
  const char* name;
  CholeskyPath cholesky;
  CudaKernels kernels;
};

constexpr Variant kVariants[] = {
    {"inkernel/fused", CholeskyPath::kInKernel, CudaKernels::kFused},
    {"inkernel/staged", CholeskyPath::kInKernel, CudaKernels::kStaged},
    {"cusolver/fused", CholeskyPath::kCusolver, CudaKernels::kFused},
};

// lanes per instance: one thread, a lane group of 16 or 32 (SimulatorOptions::cuda_group)
constexpr std::pair<const char*, CudaGroup> kGroups[] = {
    {"g1", CudaGroup::kOne}, {"g16", CudaGroup::k16}, {"g32", CudaGroup::k32}};

// f(state), a row skipped with the reason where the options are not in this build (a lane-group
// size outside ZWANG_CUDA_GROUPS)
template <class F>
void guarded(benchmark::State& state, const F& f) {
  try {
    f(state);
  } catch (const std::invalid_argument& e) {
    if (std::string_view(e.what()).find("ZWANG_CUDA_GROUPS") == std::string_view::npos) throw;
    state.SkipWithError(e.what());
  }
}

// whether a CUDA device is there; the benchmark is skipped with the reason otherwise
bool device_present(benchmark::State& state) {
  const CudaStatus cuda = cuda_status();
  if (cuda.devices == 0) state.SkipWithError(cuda.reason.c_str());
  return cuda.devices > 0;
}

// run_steps() on data that stays on the device; the first two calls capture the graph
template <class T>
void device_steps(benchmark::State& state, const Model& model, SimulatorOptions options) {
  if (!device_present(state)) return;
  const std::int64_t n = state.range(0);
  Batch<T> batch(model, n);
  scatter(batch, model, 1);
  gpu::CudaBackend<T> backend(model, batch, options);
  backend.upload(batch);
  for (int warm = 0; warm < 2; ++warm) backend.run_steps(kStepsPerIteration);
  backend.synchronize();
  for (auto _ : state) {
    backend.run_steps(kStepsPerIteration);
    backend.synchronize();
  }
  backend.download(batch);
  std::int64_t failed = 0;
  for (int s : batch.status()) failed += s != 0;
  state.SetItemsProcessed(state.iterations() * n * kStepsPerIteration);
  state.counters["nv"] = model.nv;
  state.counters["failed"] = static_cast<double>(failed);
  state.SetLabel(backend.describe());
}

// Simulator::step(): what a user's loop pays, transfers included
template <class T>
void simulator_steps(benchmark::State& state, const Model& model, SimulatorOptions options) {
  if (!device_present(state)) return;
  const std::int64_t n = state.range(0);
  options.backend = Backend::kCuda;
  Simulator<T> sim(model, n, options);
  scatter(sim.batch(), model, 1);
  sim.step(kStepsPerIteration);
  sim.synchronize();
  // step() returns once the work is enqueued: each iteration waits for its steps
  for (auto _ : state) {
    sim.step(kStepsPerIteration);
    sim.synchronize();
  }
  state.SetItemsProcessed(state.iterations() * n * kStepsPerIteration);
  state.counters["nv"] = model.nv;
  state.counters["failed"] = static_cast<double>(sim.failures().size());
  state.SetLabel(sim.backend());
}

// the start of the anchor rows
struct Anchor {
  std::string keyframe;   // "" for the model's default state
  double ctrl_noise = 0;  // standard deviation of each control about the keyframe's
};

// step(1) and a synchronize per iteration, as MuJoCo Warp's testspeed times its unroll
template <class T>
void anchor_steps(benchmark::State& state, const Model& model, const Anchor& anchor,
                  CudaGroup group) {
  if (!device_present(state)) return;
  const std::int64_t n = state.range(0);
  Simulator<T> sim(model, n, {.backend = Backend::kCuda, .cuda_group = group});
  scatter_states(sim, anchor.keyframe, 0.0, 1);
  if (anchor.ctrl_noise > 0) {
    std::mt19937_64 rng(2);
    std::normal_distribution<double> noise(0, anchor.ctrl_noise);
    std::vector<T> ctrl(model.nu);
    for (std::int64_t i = 0; i < n; ++i) {
      const std::vector<T> key = sim.batch().ctrl().get(i);
      for (int k = 0; k < model.nu; ++k) ctrl[k] = key[k] + static_cast<T>(noise(rng));
      sim.batch().ctrl().set(i, ctrl);
    }
  }
  for (int warm = 0; warm < 3; ++warm) sim.step(1);
  sim.synchronize();
  for (auto _ : state) {
    sim.step(1);
    sim.synchronize();
  }
  const auto mean = [&](auto field) {
    double total = 0;
    for (std::int64_t i = 0; i < n; ++i) total += static_cast<double>(field.get(i)[0]);
    return total / static_cast<double>(n);
  };
  state.SetItemsProcessed(state.iterations() * n);
  state.counters["nv"] = model.nv;
  const Batch<T>& batch = std::as_const(sim.batch());
  state.counters["ncon"] = mean(batch.ncon());
  state.counters["rows"] = mean(batch.efc_nactive());
  state.counters["niter"] = mean(batch.solver_niter());
  state.counters["failed"] = static_cast<double>(sim.failures().size());
  state.SetLabel(sim.backend());
}

// a model to time: a built-in example or a file given with --model
struct Timed {
  std::string name;
  Model model;
  bool file = false;  // given with --model
};

template <class T>
void register_precision(const char* precision, const std::vector<Timed>& models,
                        const Anchor& anchor) {
  const std::vector<std::int64_t> sizes = {1 << 10, 1 << 12, 1 << 14, 1 << 16, 1 << 18, 1 << 20};
  for (const Timed& timed : models) {
    if (!timed.file) continue;
    // as many instances as an H100 has SMs (the step's latency), then MuJoCo Warp's sizes; one
    // thread per instance (g1), a lane group of 16 or 32 per instance
    for (const auto& [group_name, group] : kGroups) {
      auto* b = benchmark::RegisterBenchmark(
          fmt::format("anchor/{}/{}/{}", timed.name, precision, group_name).c_str(),
          [model = timed.model, anchor, group](benchmark::State& s) {
            guarded(s, [&](benchmark::State& t) { anchor_steps<T>(t, model, anchor, group); });
          });
      for (std::int64_t n : {132, 4096, 8192, 65536}) b->Arg(n);
      b->ArgName("instances")->UseRealTime()->Unit(benchmark::kMillisecond);
    }
  }
  for (const Timed& timed : models) {
    const std::string& name = timed.name;
    const Model& model = timed.model;
    for (const Variant& v : kVariants) {
      const SimulatorOptions options{.cholesky = v.cholesky, .kernels = v.kernels};
      auto* b = benchmark::RegisterBenchmark(
          fmt::format("device/{}/{}/{}", name, precision, v.name).c_str(),
          [model, options](benchmark::State& s) { device_steps<T>(s, model, options); });
      for (std::int64_t n : sizes) b->Arg(n);
      b->ArgName("instances")->UseRealTime()->Unit(benchmark::kMillisecond);
    }
    for (const auto& [group_name, group] : kGroups) {
      if (group == CudaGroup::kOne) continue;  // device/.../inkernel/fused
      const SimulatorOptions options{.cuda_group = group};
      auto* b = benchmark::RegisterBenchmark(
          fmt::format("device/{}/{}/{}", name, precision, group_name).c_str(),
          [model, options](benchmark::State& s) {
            guarded(s, [&](benchmark::State& t) { device_steps<T>(t, model, options); });
          });
      for (std::int64_t n : sizes) b->Arg(n);
      b->ArgName("instances")->UseRealTime()->Unit(benchmark::kMillisecond);
    }
    auto* b = benchmark::RegisterBenchmark(
        fmt::format("simulator/{}/{}/inkernel/fused", name, precision).c_str(),
        [model](benchmark::State& s) { simulator_steps<T>(s, model, {}); });
    for (std::int64_t n : sizes) b->Arg(n);
    b->ArgName("instances")->UseRealTime()->Unit(benchmark::kMillisecond);
  }
  for (int nv : {8, 16, 24, 32, 48, 64}) {
    const Model model = examples::rod_chain(
        {.links = nv, .length = 0.3, .planar = false, .damping = 0.05, .armature = 0.01});
    for (CholeskyPath path : {CholeskyPath::kInKernel, CholeskyPath::kCusolver}) {
      const SimulatorOptions options{.cholesky = path};
      benchmark::RegisterBenchmark(
          fmt::format("threshold/nv{}/{}/{}", nv, precision,
                      path == CholeskyPath::kInKernel ? "inkernel" : "cusolver")
              .c_str(),
          [model, options](benchmark::State& s) { device_steps<T>(s, model, options); })
          ->Arg(1 << 16)
          ->ArgName("instances")
          ->UseRealTime()
          ->Unit(benchmark::kMillisecond);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  const CudaStatus cuda = cuda_status();
  benchmark::AddCustomContext("cuda", cuda.devices > 0 ? "available" : cuda.reason);
  // --model=FILE (MJCF or URDF, repeatable) adds a model file to the built-in examples, named
  // by its file name without extension; --keyframe and --ctrl-noise set the anchor rows' start;
  // these arguments are taken out before Google Benchmark's
  std::vector<Timed> models;
  Anchor anchor;
  for (const char* name : {"chain", "floating_base", "ball_chain"})
    models.push_back({name, examples::by_name(name), false});
  int kept = 1;
  try {
    for (int a = 1; a < argc; ++a) {
      const std::string_view arg = argv[a];
      if (arg.starts_with("--model=")) {
        const std::filesystem::path file(arg.substr(8));
        models.push_back({file.stem().string(), load_model(file).model, true});
      } else if (arg.starts_with("--keyframe=")) {
        anchor.keyframe = std::string(arg.substr(11));
      } else if (arg.starts_with("--ctrl-noise=")) {
        anchor.ctrl_noise = std::stod(std::string(arg.substr(13)));
      } else {
        argv[kept++] = argv[a];
      }
    }
    argc = kept;
    for (const Timed& timed : models) {
      if (timed.file && !anchor.keyframe.empty()) keyframe_index(timed.model, anchor.keyframe);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_gpu: %s\n", e.what());
    return 1;
  }
  register_precision<float>("f32", models, anchor);
  register_precision<double>("f64", models, anchor);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
