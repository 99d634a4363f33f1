// The commands of the command-line tool: info and export (info.cc), dynamics (dynamics.cc), run
// (run.cc); bench is bench.hpp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "zwang/loaders.hpp"

namespace zwang::cli {

int run_info(const std::string& spec, const LoadOptions& load);
// the model as MJCF (Model::to_mjcf) into `out`, or standard output when it is empty or "-"
int run_export(const std::string& spec, const LoadOptions& load, const std::string& out,
               bool overwrite);

struct ModelEdits;
int run_dynamics(const std::string& spec, const LoadOptions& load, const std::string& input,
                 const std::string& output, const std::string& precision, const ModelEdits& edits);

// the largest --init-noise: half a turn covers every hinge angle, and slides share the bound (m)
inline constexpr double kMaxInitNoise = 3.14159265358979323846;

struct RunOptions {
  std::int64_t instances = 4096;
  int steps = 1000;
  std::string backend = "cpu";
  std::string precision = "f64";
  int threads = 0;
  std::string cpu_simd = "auto";  // auto, scalar, avx2, avx512
  int device = 0;                 // CUDA device ordinal
  std::uint64_t seed = 0;
  std::string randomize;
  std::string ctrl = "zero";
  double init_noise = 0.01;  // in [0, kMaxInitNoise]
  std::string out;
  bool overwrite = false;  // replace an existing `out`
  int record_every = 10;
  bool no_progress = false;
  std::vector<std::string> disable;  // --disable lists of MuJoCo flag names
  std::vector<std::string> drive;    // --drive JOINT=q0,v0,amplitude,omega,phase
  std::string keyframe;              // --keyframe: every instance starts from it
  std::string shard;                 // --shard K/N: the K-th of N slices of the instances
};

// `zwang merge OUT SHARD...`: the shards of one run (`zwang run --shard`) joined into one file
int run_merge(const std::string& out, const std::vector<std::string>& shards, bool overwrite);

int run_rollout(const std::string& spec, const LoadOptions& load, const RunOptions& options);

}  // namespace zwang::cli
