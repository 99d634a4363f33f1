// `zwang bench`: instance-steps per second of every zwang configuration beside MuJoCo 4.0,
// MuJoCo 2.2.2 and Pinocchio, each loaded as a plugin (bench_peer.h), on the same models,
// states, options and threads, the engines alternating round by round in one process.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "zwang/loaders.hpp"

namespace zwang::cli {

struct BenchOptions {
  std::vector<std::string> models;  // empty: default_bench_models()
  std::vector<std::int64_t> instances{64, 512, 4096};
  std::vector<int> steps_per_call{1, 5, 50};
  std::vector<int> threads{1, 0};  // 0: every core
  std::vector<std::string> precisions{"f64", "f32"};
  std::vector<std::string> backends{"cpu-scalar", "cpu-simd", "cuda"};  // those available run
  std::vector<std::string> peers{"mujoco4", "mujoco2", "pinocchio"};
  int rounds = 3;         // alternating rounds; the median is reported
  double min_time = 0.2;  // seconds of the fastest engine per measurement
  double init_noise = 0.1;
  std::uint64_t seed = 1;
  std::vector<std::string> disable;         // --disable lists of MuJoCo flag names, on both sides
  std::vector<std::string> outputs{"all"};  // zwang's kept outputs: all, none, or field names
  std::string csv;                          // file, or empty
  std::string plot;                         // PNG file, or empty
};

// A peer: its plugin's name (zwang_peer_NAME.so), the column it heads, and the mode
// and model files it runs.
struct PeerInfo {
  const char* name;
  const char* label;
  bool urdf;  // true: forward dynamics of URDF files; false: steps of MJCF files
};
inline constexpr std::array<PeerInfo, 3> kPeers{{{"mujoco4", "MuJoCo 4.0", false},
                                                 {"mujoco2", "MuJoCo 2.2.2", false},
                                                 {"pinocchio", "Pinocchio", true}}};

// One zwang configuration at one (model, instances, threads, steps per call), with the
// peers measured in the same rounds; rates in instance-steps (or forward evaluations) per
// second, NaN where a peer did not run.
struct BenchRow {
  std::string model;
  int nv = 0;
  std::string mode;  // "step", or "forward" for URDF models
  std::int64_t instances = 0;
  int threads = 0;
  int steps_per_call = 0;
  std::string backend;    // cpu-scalar, cpu-avx2, cpu-avx512, cuda
  std::string precision;  // f64, f32
  double zwang = 0;
  std::array<double, kPeers.size()> peer{std::numeric_limits<double>::quiet_NaN(),
                                         std::numeric_limits<double>::quiet_NaN(),
                                         std::numeric_limits<double>::quiet_NaN()};
};

// The models benchmarked when none is given, those found on this machine: MuJoCo's
// humanoid.xml (libmujoco-samples), Gymnasium's ant and humanoid, the Panda arm's URDF
// (example-robot-data); each one missing is named in `missing` with how to install it.
std::vector<std::string> default_bench_models(std::vector<std::string>* missing);

// Runs the bench and prints the table; 0, or 1 if no model could be run.
int run_bench(const BenchOptions& options, const LoadOptions& load);

// The table printed on stdout.
std::string bench_table(const std::vector<BenchRow>& rows);
// model, nv, mode, instances, threads, steps_per_call, backend, precision, zwang, one
// column per peer and zwang_over_PEER for each: empty where a peer did not run; numbers written
// to round-trip, so that each ratio is the quotient of its row's two columns.
std::string bench_csv(const std::vector<BenchRow>& rows);
// Plots steps/s against instances (log-log), one panel per model and thread count, one
// line per engine and configuration, through python3's matplotlib; `why` is empty on success,
// else why not, and `no_plotter` says whether the reason is a missing python3 or matplotlib
// (an optional tool) rather than a failure to draw or write the file.
struct PlotOutcome {
  std::string why;
  bool no_plotter = false;
};
PlotOutcome bench_plot(const std::vector<BenchRow>& rows, const std::string& file);

}  // namespace zwang::cli
