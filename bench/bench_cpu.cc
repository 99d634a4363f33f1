// CPU throughput of zwang in instance-steps per second (items_per_second), against instance
// count (1 … 65536) and thread count, for the 8-link chain and the floating base, in float32
// and float64.
//
//   build/bench/bench_cpu --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "zwang/examples.hpp"
#include "zwang/simulator.hpp"

namespace {

constexpr int kStepsPerIteration = 10;

// every instance starts at rest at the model's default configuration moved by up to ±0.2 per
// hinge or slide coordinate
template <class T>
void scatter(zwang::Simulator<T>& sim, unsigned seed) {
  std::mt19937_64 rng(seed);
  const std::vector<T> rest(sim.model().nv, T(0));
  for (std::int64_t i = 0; i < sim.size(); ++i) {
    const std::vector<double> q = zwang::examples::perturbed_qpos0(sim.model(), 0.2, rng);
    sim.batch().qpos().set(i, std::vector<T>(q.begin(), q.end()));
    sim.batch().qvel().set(i, rest);
  }
}

template <class T>
void step_throughput(benchmark::State& state, const char* model_name) {
  const std::int64_t n = state.range(0);
  const int threads = static_cast<int>(state.range(1));
  const zwang::Model model = zwang::examples::by_name(model_name);
  zwang::Simulator<T> sim(model, n, {.threads = threads});
  scatter(sim, 1);
  for (auto _ : state) {
    sim.step(kStepsPerIteration);
    state.PauseTiming();
    scatter(sim, 1);
    state.ResumeTiming();
  }
  if (!sim.failures().empty()) state.SkipWithError(sim.failures().front().message().c_str());
  state.SetItemsProcessed(state.iterations() * n * kStepsPerIteration);
  state.counters["nv"] = model.nv;
}

void sizes(benchmark::internal::Benchmark* b) {
  for (std::int64_t n : {1, 16, 256, 4096, 65536}) {
    for (int threads : {1, 2}) b->Args({n, threads});
  }
  b->ArgNames({"instances", "threads"})->UseRealTime()->Unit(benchmark::kMillisecond);
}

void chain_f64(benchmark::State& s) {
  step_throughput<double>(s, "chain");
}
void chain_f32(benchmark::State& s) {
  step_throughput<float>(s, "chain");
}
void floating_base_f64(benchmark::State& s) {
  step_throughput<double>(s, "floating_base");
}
void floating_base_f32(benchmark::State& s) {
  step_throughput<float>(s, "floating_base");
}

BENCHMARK(chain_f64)->Apply(sizes);
BENCHMARK(chain_f32)->Apply(sizes);
BENCHMARK(floating_base_f64)->Apply(sizes);
BENCHMARK(floating_base_f32)->Apply(sizes);

}  // namespace

BENCHMARK_MAIN();
