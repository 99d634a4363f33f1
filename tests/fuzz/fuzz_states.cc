// libFuzzer target: the states JSON of `zwang dynamics` through zwang::cli::parse_states, then
// dynamics_json in both precisions for what parses.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "host/cli/cli_common.hpp"
#include "zwang/builder.hpp"
#include "zwang/model.hpp"

namespace {

// nq 12, nv 10, nu 1: a free joint and a ball (quaternions, nq ≠ nv), a hinge with a motor
zwang::Model make_model() {
  zwang::ModelBuilder b;
  b.add_body({.name = "base", .pos = {0, 0, 1}, .mass = 2, .inertia = {0.1, 0.2, 0.3, 0, 0, 0}});
  b.add_joint("base", {.name = "root", .type = zwang::JointType::kFree});
  b.add_body({.name = "arm",
              .parent = "base",
              .pos = {0.1, 0, -0.2},
              .mass = 0.5,
              .com = {0, 0, -0.1},
              .inertia = {0.01, 0.01, 0.002, 0.001, 0, 0}});
  b.add_joint("arm", {.name = "shoulder", .type = zwang::JointType::kBall, .damping = 0.1});
  b.add_body({.name = "hand",
              .parent = "arm",
              .pos = {0, 0, -0.3},
              .mass = 0.2,
              .inertia = {0.001, 0.001, 0.001, 0, 0, 0}});
  b.add_joint("hand", {.name = "wrist", .axis = {0, 1, 0}, .stiffness = 1});
  b.add_actuator({.name = "motor", .joint = "wrist", .ctrllimited = true, .ctrlrange = {-1, 1}});
  return b.build();
}

// the dynamics run is per state; a few states already reach every path
constexpr std::size_t kMaxDynamicsStates = 8;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const zwang::Model model = make_model();
  zwang::cli::States states;
  try {
    states =
        zwang::cli::parse_states(std::string(reinterpret_cast<const char*>(data), size), model);
  } catch (const std::invalid_argument&) {
    // the documented error: not JSON, or a field with a wrong shape or a non-finite value
    return 0;
  }
  if (states.qpos.size() > kMaxDynamicsStates) return 0;
  try {
    zwang::cli::dynamics_json<double>(model, states);
  } catch (const std::runtime_error&) {
    // an instance that stopped (a non-finite result from finite but huge values) is reported
  }
  try {
    zwang::cli::dynamics_json<float>(model, states);
  } catch (const std::runtime_error&) {
    // the same, and more often: values past the float range become infinities
  }
  return 0;
}
