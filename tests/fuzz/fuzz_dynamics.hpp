// What every fuzz target does with a model a loader accepted: a model that loads must simulate.
#pragma once

#include "zwang/model.hpp"
#include "zwang/simulator.hpp"

namespace zwang::fuzz {

// H and its factor grow as nv², and large models add time per input, not new paths
inline constexpr int kMaxDynamicsNv = 64;

// One instance, one thread: a forward pass and an Euler or RK4 step from qpos0.  Any
// exception here escapes to libFuzzer, since Simulator must accept every model a loader builds.
inline void run_dynamics(const Model& model) {
  if (model.nv > kMaxDynamicsNv) return;
  Simulator<double> sim(model, 1, {.threads = 1});
  sim.forward();
  sim.step(1);
}

}  // namespace zwang::fuzz
