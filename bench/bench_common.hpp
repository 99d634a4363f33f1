// What the side-by-side benchmarks (bench_vs_mujoco, bench_constraints, bench_contacts) share:
// the clock and the options each of them takes.
#pragma once

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace bench {

inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
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
