// What the side-by-side benchmarks (bench_vs_mujoco, bench_constraints, bench_contacts) share:
// the clock, the failure report and the options each of them takes.
#pragma once

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace bench {

inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// the first instance the run stopped, on stderr: a rate of failed instances measures nothing
template <class Sim>
void report_failure(Sim& sim) {
  if (!sim.failures().empty())
    std::fprintf(stderr, "  %s\n", sim.failures().front().message().c_str());
}

// the seconds that sim.step(steps) takes
template <class Sim>
double time_steps(Sim& sim, int steps) {
  const auto t0 = std::chrono::steady_clock::now();
  sim.step(steps);
  const double t = seconds_since(t0);
  report_failure(sim);
  return t;
}

// what each of them runs: the MJCF files, instances and steps per instance
struct RunOptions {
  std::vector<std::string> models;
  std::int64_t instances = 4096;
  int steps = 100;
};

inline void add_run_options(CLI::App& app, RunOptions& o, const char* steps_meaning) {
  app.add_option("models", o.models, "MJCF files")->required()->check(CLI::ExistingFile);
  app.add_option("-n,--instances", o.instances, "instances")->capture_default_str();
  app.add_option("-t,--steps", o.steps, steps_meaning)->capture_default_str();
}

}  // namespace bench
