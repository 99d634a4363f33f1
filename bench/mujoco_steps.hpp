// MuJoCo stepping many instances in an OpenMP loop, for the benchmarks that set it against zwang
// on the same states (bench_vs_mujoco, bench_constraints).
#pragma once

#include <fmt/format.h>
#include <mujoco/mujoco.h>

#include <chrono>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/bench_common.hpp"

namespace bench {

// MuJoCo's model of an MJCF file with `disable` added to its disable flags
inline mjModel* load_mujoco_disabled(const std::string& file, int disable) {
  char error[1024] = "";
  mjModel* m = mj_loadXML(file.c_str(), nullptr, error, sizeof(error));
  if (!m) throw std::runtime_error(fmt::format("MuJoCo cannot load {}: {}", file, error));
  m->opt.disableflags |= disable;
  return m;
}

// one mjData per start state q0[i], at rest, each stepped `steps` times by `threads` threads;
// the seconds the steps took
inline double step_mujoco(const mjModel* m, const std::vector<std::vector<double>>& q0, int steps,
                          int threads, std::vector<mjData*>& data) {
  const std::int64_t n = static_cast<std::int64_t>(q0.size());
  data.resize(n);
  for (std::int64_t i = 0; i < n; ++i) {
    data[i] = mj_makeData(m);
    std::memcpy(data[i]->qpos, q0[i].data(), sizeof(double) * m->nq);
  }
  const auto t0 = std::chrono::steady_clock::now();
#pragma omp parallel for num_threads(threads) schedule(static)
  for (std::int64_t i = 0; i < n; ++i) {
    for (int s = 0; s < steps; ++s) mj_step(m, data[i]);
  }
  return seconds_since(t0);
}

}  // namespace bench
