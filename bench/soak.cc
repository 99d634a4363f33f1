// A soak run, not a test: the built-in chain (with springs and damping) stepped for 10⁹
// instance-steps (by default), with the resident memory of the process at the start, at every tenth
// of the run and at the end. Memory must stay flat (the step allocates nothing), the failures must
// stay at zero and the rate must not drift.
//
//   build/bench/soak [--instance-steps 1e9] [--instances 4096] [--threads K] [--f32]
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdint>
#include <fstream>
#include <random>
#include <string>

#include "zwang/examples.hpp"
#include "zwang/simulator.hpp"

namespace {

// VmRSS of /proc/self/status (kB), -1 where it cannot be read
long resident_kb() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  }
  return -1;
}

template <class T>
int soak(double instance_steps, std::int64_t instances, int threads) {
  // springs and light damping keep every instance bounded (free slides under gravity would
  // fall without end), so all instances keep stepping for the whole run
  const zwang::Model model = zwang::examples::chain({.damping = 0.05, .stiffness = 2});
  zwang::Simulator<T> sim(model, instances, {.threads = threads});
  std::mt19937_64 rng(1);
  for (std::int64_t i = 0; i < instances; ++i) {
    const std::vector<double> q = zwang::examples::perturbed_qpos0(model, 0.5, rng);
    sim.batch().qpos().set(i, std::vector<T>(q.begin(), q.end()));
  }
  const auto steps = static_cast<std::int64_t>(instance_steps / static_cast<double>(instances));
  constexpr int kReports = 10;
  const std::int64_t chunk = std::max<std::int64_t>(1, (steps + kReports - 1) / kReports);
  fmt::print("soak: {} instances x {} steps of the chain ({}), {}\n", instances, steps,
             sizeof(T) == 4 ? "f32" : "f64", sim.backend());
  const long start_kb = resident_kb();
  fmt::print("{:>14} {:>12} {:>16} {:>9}\n", "instance-steps", "RSS (kB)", "instance-steps/s",
             "failures");
  fmt::print("{:>14} {:>12} {:>16} {:>9}\n", 0, start_kb, "-", 0);
  const auto begin = std::chrono::steady_clock::now();
  auto last = begin;
  for (std::int64_t done = 0; done < steps;) {
    const std::int64_t n = std::min(chunk, steps - done);
    for (std::int64_t s = 0; s < n; s += 1000)
      sim.step(static_cast<int>(std::min<std::int64_t>(1000, n - s)));
    done += n;
    const auto now = std::chrono::steady_clock::now();
    const double rate =
        static_cast<double>(n * instances) / std::chrono::duration<double>(now - last).count();
    last = now;
    fmt::print("{:>14.4g} {:>12} {:>16.4g} {:>9}\n", static_cast<double>(done * instances),
               resident_kb(), rate, sim.failures().size());
    std::fflush(stdout);
  }
  const long end_kb = resident_kb();
  const double seconds = std::chrono::duration<double>(last - begin).count();
  fmt::print("RSS start {} kB, end {} kB ({:+} kB); {:.4g} instance-steps/s over {:.0f} s\n",
             start_kb, end_kb, end_kb - start_kb, static_cast<double>(steps * instances) / seconds,
             seconds);
  return sim.failures().empty() ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"zwang soak run: memory and rate over a long rollout"};
  double instance_steps = 1e9;
  std::int64_t instances = 4096;
  int threads = 0;
  bool f32 = false;
  app.add_option("--instance-steps", instance_steps, "instance-steps in all")
      ->check(CLI::PositiveNumber);
  app.add_option("--instances", instances, "instances")->check(CLI::PositiveNumber);
  app.add_option("--threads", threads, "CPU threads (0: all)")->check(CLI::NonNegativeNumber);
  app.add_flag("--f32", f32, "single precision");
  CLI11_PARSE(app, argc, argv);
  return f32 ? soak<float>(instance_steps, instances, threads)
             : soak<double>(instance_steps, instances, threads);
}
