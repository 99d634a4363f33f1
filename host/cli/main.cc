// zwang: the command-line tool.
//   zwang info [MODEL]                       what a model holds
//   zwang dynamics [MODEL] -i IN -o OUT      H, qfrc_bias and q̈ at a batch of states
//   zwang run [MODEL] [-n N] [-t T] ...      a batched rollout, throughput, trajectory in HDF5
// MODEL is an MJCF (.xml) or URDF (.urdf) file or a built-in example; default the 8-link chain.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <exception>
#include <fstream>
#include <sstream>

#include "cli_common.hpp"
#include "commands.hpp"
#include "zwang/examples.hpp"

namespace zwang::cli {
namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(fmt::format("{}: cannot open", path));
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void print_warnings(const OpenedModel& opened) {
  for (const std::string& w : opened.warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
}

int dynamics(const std::string& spec, bool floating_base, const std::string& input,
             const std::string& output, const std::string& precision) {
  const OpenedModel opened = open_model(spec, floating_base);
  print_warnings(opened);
  const States states = parse_states(read_file(input), opened.model);
  const std::string json = precision == "f32" ? dynamics_json<float>(opened.model, states)
                                              : dynamics_json<double>(opened.model, states);
  std::ofstream out(output, std::ios::binary);
  if (!out) throw std::runtime_error(fmt::format("{}: cannot write", output));
  out << json << '\n';
  std::fprintf(stderr, "%zu states of %s -> %s\n", states.qpos.size(), opened.source.c_str(),
               output.c_str());
  return 0;
}

}  // namespace
}  // namespace zwang::cli

// a finite number ≥ 0 (CLI11's NonNegativeNumber lets NaN through)
const CLI::Validator kFiniteNonNegative(
    [](std::string& text) -> std::string {
      std::size_t used = 0;
      double v = 0;
      try {
        v = std::stod(text, &used);
      } catch (const std::logic_error&) {
        return "not a number: " + text;
      }
      if (used != text.size() || !std::isfinite(v) || v < 0)
        return "must be a finite number >= 0: " + text;
      return "";
    },
    "NUMBER >= 0");

int main(int argc, char** argv) {
  using namespace zwang::cli;
  CLI::App app{"zwang: batched rigid multibody dynamics by Gauss's principle of least constraint"};
  app.require_subcommand(1);
  const std::string models =
      fmt::format("MJCF (.xml) or URDF (.urdf) file, or a built-in example: {}",
                  fmt::join(zwang::examples::names(), ", "));

  std::string spec = kDefaultModel;
  bool floating_base = false;
  auto add_model = [&](CLI::App* cmd) {
    cmd->add_option("model", spec, models)->capture_default_str();
    cmd->add_flag("--floating-base", floating_base,
                  "URDF: a free joint between the world and the root link");
  };

  CLI::App* info = app.add_subcommand(
      "info", "Bodies, joints, sizes, actuators, total mass and warnings of a model");
  add_model(info);

  CLI::App* dyn = app.add_subcommand(
      "dynamics", "Mass matrix, bias forces and accelerations at a batch of states");
  add_model(dyn);
  std::string input, output, precision = "f64";
  dyn->add_option("-i,--input", input,
                  "JSON {\"qpos\": [[...]], \"qvel\": [[...]], \"ctrl\": [[...]]}")
      ->required();
  dyn->add_option("-o,--output", output, "JSON {\"nq\", \"nv\", \"M\", \"bias\", \"qacc\"}")
      ->required();
  dyn->add_option("--precision", precision, "f64 or f32")
      ->check(CLI::IsMember({"f64", "f32"}))
      ->capture_default_str();

  CLI::App* run =
      app.add_subcommand("run", "A batched rollout: throughput, and the trajectory in HDF5");
  add_model(run);
  RunOptions ro;
  run->add_option("-n,--instances", ro.instances, "instances stepped together")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  run->add_option("-t,--steps", ro.steps, "steps of each instance")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  run->add_option("--backend", ro.backend, "cpu, cuda or auto (cuda when a device exists)")
      ->check(CLI::IsMember({"cpu", "cuda", "auto"}))
      ->capture_default_str();
  run->add_option("--precision", ro.precision, "f64 or f32")
      ->check(CLI::IsMember({"f64", "f32"}))
      ->capture_default_str();
  run->add_option("--threads", ro.threads, "CPU threads, 0 for every core")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  run->add_option("--seed", ro.seed, "seed of initial states, parameters and random controls")
      ->capture_default_str();
  run->add_option("--randomize", ro.randomize,
                  "per-instance parameter factors, uniform: e.g. mass=0.8:1.2,damping=0.5:2 (mass, "
                  "inertia, damping, "
                  "armature, stiffness, gain, gear, gravity)");
  run->add_option(
         "--ctrl", ro.ctrl,
         "zero, or random: uniform in each ctrlrange ([-1, 1] if none), redrawn every record")
      ->check(CLI::IsMember({"zero", "random"}))
      ->capture_default_str();
  run->add_option("--init-noise", ro.init_noise, "initial hinge/slide offsets, uniform in ±noise")
      ->check(kFiniteNonNegative)
      ->capture_default_str();
  run->add_option("-o,--out", ro.out,
                  "trajectory file (HDF5): qpos, qvel, ctrl per record and instance");
  run->add_option("--record-every", ro.record_every, "steps between records")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  run->add_flag("--no-progress", ro.no_progress, "no progress bar even on a terminal");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  try {
    if (*info) return run_info(spec, floating_base);
    if (*dyn) return dynamics(spec, floating_base, input, output, precision);
    return run_rollout(spec, floating_base, ro);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "zwang: %s\n", e.what());
    return 1;
  }
}
