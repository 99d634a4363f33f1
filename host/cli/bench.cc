#include "host/cli/bench.hpp"

#include <dlfcn.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <omp.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <stdexcept>

#include "host/cli/bench_peer.h"
#include "host/cli/cli_common.hpp"
#include "zwang/examples.hpp"
#include "zwang/simulator.hpp"

namespace zwang::cli {
namespace {

namespace fs = std::filesystem;

// what a shell command prints, empty if it cannot run
std::string command_output(const std::string& command) {
  std::string out;
  FILE* pipe = popen((command + " 2>/dev/null").c_str(), "r");
  if (pipe == nullptr) return out;
  std::array<char, 4096> buffer{};
  while (const std::size_t got = std::fread(buffer.data(), 1, buffer.size(), pipe))
    out.append(buffer.data(), got);
  pclose(pipe);
  return out;
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    if (end > start) out.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

// plugins are looked for in $ZWANG_PEER_DIR, else beside this executable
fs::path peer_dir() {
  if (const char* dir = std::getenv("ZWANG_PEER_DIR"); dir != nullptr && *dir != '\0') return dir;
  std::error_code error;
  const fs::path exe = fs::read_symlink("/proc/self/exe", error);
  return error ? fs::current_path() : exe.parent_path();
}

// The plugin's table, or null with the reason in *why.  RTLD_LOCAL keeps each peer's C names
// (mj_step of both MuJoCo versions) out of the global scope; RTLD_DEEPBIND has a peer and the
// libraries it brings in resolve names among themselves first, so that Pinocchio's parser finds
// its own urdfdom, not the older one zwang links.  A loaded plugin stays until the end.
const ZwangPeerApi* load_peer(const fs::path& file, std::string* why) {
  if (!fs::exists(file)) {
    *why = fmt::format("no plugin {}", file.string());
    return nullptr;
  }
  int flags = RTLD_NOW | RTLD_LOCAL;
#ifndef ZWANG_NO_DEEPBIND
  flags |= RTLD_DEEPBIND;
#endif
  void* handle = dlopen(file.c_str(), flags);
  if (handle == nullptr) {
    *why = dlerror();
    return nullptr;
  }
  const auto entry = reinterpret_cast<ZwangPeerEntry>(dlsym(handle, ZWANG_PEER_ENTRY));
  const ZwangPeerApi* api = entry != nullptr ? entry() : nullptr;
  if (api == nullptr || api->abi_version != ZWANG_PEER_ABI_VERSION) {
    *why = fmt::format("{} was built for another version of zwang", file.string());
    dlclose(handle);
    return nullptr;
  }
  return api;
}

// one engine of a measurement: `calls` timed calls of `steps` steps (or forward evaluations)
// of every instance, after an untimed reset to the initial states
class Engine {
 public:
  virtual ~Engine() = default;
  virtual double time(int steps, int calls) = 0;
  // what went wrong in the instances, once; empty if nothing
  virtual std::string warning() = 0;
};

// the batch arenas of n instances (data and parameters; the scratch is per thread)
template <class T>
double batch_bytes(const Model& m, std::int64_t n) {
  const Batch<T> probe(m, 1);
  return static_cast<double>(probe.layout().data_rows + probe.layout().param_rows) * sizeof(T) *
         static_cast<double>(n);
}

// initial states: qpos0 with hinges and slides moved by U(−noise, noise), at rest
struct InitialStates {
  std::vector<double> qpos, qvel;  // instance-major (n x nq, n x nv)
};

InitialStates initial_states(const Model& m, std::int64_t n, double noise, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  InitialStates s;
  for (std::int64_t i = 0; i < n; ++i) {
    const std::vector<double> q = examples::perturbed_qpos0(m, noise, rng);
    s.qpos.insert(s.qpos.end(), q.begin(), q.end());
  }
  s.qvel.assign(static_cast<std::size_t>(n) * m.nv, 0.0);
  return s;
}

template <class T>
class ZwangEngine : public Engine {
 public:
  ZwangEngine(const Model& m, const InitialStates& s, std::int64_t n, bool forward,
              const SimulatorOptions& options)
      : sim_(m, n, options), forward_(forward), all_(n) {
    for (std::int64_t i = 0; i < n; ++i) all_[i] = i;
    qpos_.assign(s.qpos.begin(), s.qpos.begin() + n * m.nq);
    qvel_.assign(s.qvel.begin(), s.qvel.begin() + n * m.nv);
  }
  double time(int steps, int calls) override {
    sim_.reset(all_);
    const Model& m = sim_.model();
    const FieldRef<T> q = sim_.batch().qpos(), v = sim_.batch().qvel();
    for (std::int64_t i = 0; i < sim_.size(); ++i) {
      q.set(i, std::span<const T>(qpos_).subspan(i * m.nq, m.nq));
      v.set(i, std::span<const T>(qvel_).subspan(i * m.nv, m.nv));
    }
    sim_.upload_host_edits();
    sim_.synchronize();
    const auto t0 = std::chrono::steady_clock::now();
    for (int c = 0; c < calls; ++c) {
      if (forward_) {
        sim_.forward();
      } else {
        sim_.step(steps);
      }
      sim_.synchronize();
    }
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  std::string warning() override {
    if (warned_) return "";
    const std::vector<InstanceFailure> failures = sim_.failures();
    if (failures.empty()) return "";
    warned_ = true;
    return fmt::format("{} instance(s) with a status, first {}", failures.size(),
                       failures.front().message());
  }

 private:
  Simulator<T> sim_;
  bool forward_;
  std::vector<std::int64_t> all_;
  std::vector<T> qpos_, qvel_;
  bool warned_ = false;
};

class PeerEngine : public Engine {
 public:
  PeerEngine(const ZwangPeerApi* api, ZwangPeer* peer) : api_(api), peer_(peer) {}
  ~PeerEngine() override { api_->close(peer_); }
  PeerEngine(const PeerEngine&) = delete;
  PeerEngine& operator=(const PeerEngine&) = delete;
  double time(int steps, int calls) override {
    ZwangPeerText error{};
    const double seconds = api_->time(peer_, steps, calls, &error);
    if (seconds < 0) throw std::runtime_error(error.text);
    if (error.text[0] != '\0' && warning_.empty()) warning_ = error.text;
    return seconds;
  }
  std::string warning() override {
    if (warned_ || warning_.empty()) return "";
    warned_ = true;
    return warning_;
  }

 private:
  const ZwangPeerApi* api_;
  ZwangPeer* peer_;
  std::string warning_;
  bool warned_ = false;
};

// a zwang configuration: backend label, simulator options, precision
struct Config {
  std::string backend;
  SimulatorOptions options;
  bool f32;
};

// SimulatorOptions::outputs from --outputs: all (unset), none (empty), or field names
std::optional<std::vector<FieldId>> kept_outputs(const std::vector<std::string>& names) {
  if (names.size() == 1 && names[0] == "all") return std::nullopt;
  std::vector<FieldId> out;
  if (names.size() == 1 && names[0] == "none") return out;
  for (const std::string& name : names) {
    try {
      out.push_back(field_id(name));
      if (is_parameter(out.back()))
        throw std::invalid_argument(fmt::format("{} is a parameter, not an output", name));
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(fmt::format("--outputs: {}", e.what()));
    }
  }
  return out;
}

std::vector<Config> zwang_configs(const BenchOptions& o, std::vector<std::string>* notes) {
  auto wanted = [&](const char* name) {
    return std::find(o.backends.begin(), o.backends.end(), name) != o.backends.end();
  };
  std::vector<std::pair<std::string, SimulatorOptions>> backends;
  if (wanted("cpu-scalar")) backends.push_back({"cpu-scalar", {.cpu_simd = CpuSimd::kScalar}});
  if (wanted("cpu-simd")) {
    const CpuSimd simd = cpu_simd_supported();
    if (simd == CpuSimd::kScalar) {
      notes->push_back("cpu-simd skipped: this CPU (or this build) runs scalar only");
    } else {
      backends.push_back(
          {simd == CpuSimd::kAvx512 ? "cpu-avx512" : "cpu-avx2", {.cpu_simd = CpuSimd::kAuto}});
    }
  }
  if (wanted("cuda")) {
    const CudaStatus cuda = cuda_status();
    if (cuda.devices > 0) {
      backends.push_back({"cuda", {.backend = Backend::kCuda}});
    } else {
      notes->push_back(fmt::format("cuda skipped: {}", cuda.reason));
    }
  }
  std::vector<Config> configs;
  for (auto& [name, options] : backends) {
    options.outputs = kept_outputs(o.outputs);
    for (const std::string& p : o.precisions) configs.push_back({name, options, p == "f32"});
  }
  return configs;
}

// the label of a model in the table: its file name, after the package it comes from where that
// is Gymnasium or MuJoCo's samples (both have a humanoid.xml)
std::string model_label(const std::string& spec) {
  const std::string name = fs::path(spec).filename().string();
  if (spec.find("/gymnasium/") != std::string::npos) return "gymnasium/" + name;
  if (spec.find("/share/mujoco/") != std::string::npos) return "mujoco/" + name;
  return name;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t h = v.size() / 2;
  return v.size() % 2 == 1 ? v[h] : 0.5 * (v[h - 1] + v[h]);
}

struct LoadedPeer {
  const PeerInfo* info;
  const ZwangPeerApi* api;
};

struct ModelRun {
  std::string spec, label;
  Model model;
  bool urdf = false;
};

// every configuration of one model, at every (instances, threads, steps per call)
void bench_model(const ModelRun& mr, const BenchOptions& o, const LoadOptions& load,
                 const std::vector<Config>& configs, std::vector<LoadedPeer> peers,
                 const std::vector<int>& threads, std::vector<BenchRow>* rows,
                 std::vector<std::string>* notes) {
  const Model& m = mr.model;
  const bool forward = mr.urdf;
  // instance counts whose float32 batch alone would not fit are left out
  std::vector<std::int64_t> counts;
  std::vector<std::string> too_many;
  const double available = zwang_peer_available_bytes();
  for (const std::int64_t n : o.instances) {
    if (available > 0 && batch_bytes<float>(m, n) > 0.8 * available) {
      too_many.push_back(std::to_string(n));
    } else {
      counts.push_back(n);
    }
  }
  const std::int64_t most = counts.empty() ? 0 : *std::max_element(counts.begin(), counts.end());
  const InitialStates states = initial_states(m, most, o.init_noise, o.seed);
  const std::vector<int> spcs = forward ? std::vector<int>{1} : o.steps_per_call;
  std::vector<int> jnt_type;
  for (const JointType t : m.jnt_type) jnt_type.push_back(static_cast<int>(t));
  std::vector<const char*> jnt_name;
  for (const std::string& name : m.jnt_name) jnt_name.push_back(name.c_str());
  std::vector<bool> peer_ok(peers.size(), true);
  std::map<std::string, bool> noted;
  auto note = [&](const std::string& text) {
    if (!text.empty() && !noted[text]) {
      noted[text] = true;
      notes->push_back(fmt::format("{}: {}", mr.label, text));
      std::fprintf(stderr, "  %s: %s\n", mr.label.c_str(), text.c_str());
    }
  };

  if (!too_many.empty()) {
    note(
        fmt::format("{} instances skipped: their float32 batch alone needs more than 80% of the "
                    "{:.1f} GiB available",
                    fmt::join(too_many, ", "), available / (1 << 30)));
  }
  for (const std::int64_t n : counts) {
    for (const int k : threads) {
      // engines: zwang's configurations (CUDA beside the peers' largest thread count), then peers
      std::vector<std::unique_ptr<Engine>> engines;
      std::vector<const Config*> engine_config;
      std::vector<int> engine_peer;
      for (const Config& c : configs) {
        const bool cuda = c.options.backend == Backend::kCuda;
        if (cuda && k != threads.back()) continue;
        SimulatorOptions so = c.options;
        so.threads = k;
        try {
          // what would not fit is skipped, rather than swapped or killed by the kernel
          const double need = c.f32 ? batch_bytes<float>(m, n) : batch_bytes<double>(m, n);
          const double available = zwang_peer_available_bytes();
          if (available > 0 && need > 0.8 * available) {
            throw std::runtime_error(fmt::format(
                "{} instances need {:.1f} GiB, more than 80% of the {:.1f} GiB available", n,
                need / (1 << 30), available / (1 << 30)));
          }
          if (c.f32) {
            engines.push_back(std::make_unique<ZwangEngine<float>>(m, states, n, forward, so));
          } else {
            engines.push_back(std::make_unique<ZwangEngine<double>>(m, states, n, forward, so));
          }
          engine_config.push_back(&c);
          engine_peer.push_back(-1);
        } catch (const std::exception& e) {
          note(fmt::format("zwang {} skipped: {}", c.backend, e.what()));
        }
      }
      for (std::size_t p = 0; p < peers.size(); ++p) {
        if (!peer_ok[p] || peers[p].info->urdf != mr.urdf) continue;
        const ZwangPeerRequest request{
            .abi_version = ZWANG_PEER_ABI_VERSION,
            .model_file = mr.spec.c_str(),
            .floating_base = load.floating_base,
            .mode = forward ? ZWANG_PEER_FORWARD : ZWANG_PEER_STEP,
            .instances = n,
            .threads = k,
            .nq = m.nq,
            .nv = m.nv,
            .njnt = m.njnt,
            .jnt_name = jnt_name.data(),
            .jnt_type = jnt_type.data(),
            .jnt_qposadr = m.jnt_qposadr.data(),
            .qpos = states.qpos.data(),
            .qvel = states.qvel.data(),
            .timestep = m.timestep,
            .integrator = static_cast<int>(m.integrator),
            .disableflags = m.disableflags,
            .iterations = m.iterations,
            .tolerance = m.tolerance,
            .gravity = {m.gravity[0], m.gravity[1], m.gravity[2]},
        };
        ZwangPeerText peer_note{}, error{};
        ZwangPeer* handle = peers[p].api->open(&request, &peer_note, &error);
        if (handle == nullptr) {
          note(fmt::format("{} skipped: {}", peers[p].info->label, error.text));
          peer_ok[p] = false;
          continue;
        }
        if (peer_note.text[0] != '\0')
          note(fmt::format("{}: {}", peers[p].info->label, peer_note.text));
        engines.push_back(std::make_unique<PeerEngine>(peers[p].api, handle));
        engine_config.push_back(nullptr);
        engine_peer.push_back(static_cast<int>(p));
      }
      if (engines.empty()) continue;

      for (const int spc : spcs) {
        // an untimed call of each engine (CUDA captures its graph for spc steps then); the
        // fastest sets the calls per measurement
        int calls = 1;
        std::vector<std::vector<double>> seconds(engines.size());
        try {
          double fastest = 1e300;
          for (auto& e : engines) fastest = std::min(fastest, e->time(spc, 1));
          calls = static_cast<int>(std::clamp(std::ceil(o.min_time / fastest), 1.0, 1e6));
          // rounds: every engine once, each round starting one engine later
          for (int r = 0; r < o.rounds; ++r) {
            for (std::size_t j = 0; j < engines.size(); ++j) {
              const std::size_t e = (j + r) % engines.size();
              seconds[e].push_back(engines[e]->time(spc, calls));
            }
          }
        } catch (const std::exception& e) {
          note(fmt::format("{} instances, {} thread(s), {} per call skipped: {}", n, k, spc,
                           e.what()));
          continue;
        }
        const double work = static_cast<double>(n) * spc * calls;
        BenchRow base;
        base.model = mr.label;
        base.nv = m.nv;
        base.mode = forward ? "forward" : "step";
        base.instances = n;
        base.threads = k;
        base.steps_per_call = spc;
        for (std::size_t e = 0; e < engines.size(); ++e) {
          note(engines[e]->warning());
          if (engine_peer[e] >= 0) {
            base.peer[peers[engine_peer[e]].info - kPeers.data()] = work / median(seconds[e]);
          }
        }
        for (std::size_t e = 0; e < engines.size(); ++e) {
          if (engine_config[e] == nullptr) continue;
          BenchRow row = base;
          row.backend = engine_config[e]->backend;
          row.precision = engine_config[e]->f32 ? "f32" : "f64";
          row.zwang = work / median(seconds[e]);
          rows->push_back(row);
        }
        std::fprintf(stderr, "  %s: %lld instances, %d thread(s), %d %s per call x %d calls\n",
                     mr.label.c_str(), static_cast<long long>(n), k, spc,
                     forward ? "forward" : "steps", calls);
      }
    }
  }
}

}  // namespace

std::vector<std::string> default_bench_models(std::vector<std::string>* missing) {
  std::vector<std::string> models;
  std::string humanoid;
  for (const std::string& f : lines(command_output("dpkg -L libmujoco-samples"))) {
    if (f.ends_with("/humanoid/humanoid.xml")) humanoid = f;
  }
  if (!humanoid.empty()) {
    models.push_back(humanoid);
  } else {
    missing->push_back("MuJoCo's humanoid.xml (apt-get install libmujoco-samples)");
  }
  // the installed Python packages' directories, "name dir" per line
  std::map<std::string, std::string> dirs;
  const char* script =
      "import importlib, os\n"
      "for name in ('gymnasium', 'cmeel'):\n"
      "    try: print(name, os.path.dirname(importlib.import_module(name).__file__))\n"
      "    except Exception: pass\n";
  for (const std::string& line : lines(command_output(fmt::format("python3 -c \"{}\"", script)))) {
    const std::size_t space = line.find(' ');
    if (space != std::string::npos) dirs[line.substr(0, space)] = line.substr(space + 1);
  }
  for (const char* env : {"ant.xml", "humanoid.xml"}) {
    const fs::path file = fs::path(dirs["gymnasium"]) / "envs/mujoco/assets" / env;
    if (!dirs["gymnasium"].empty() && fs::exists(file)) {
      models.push_back(file.string());
    } else {
      missing->push_back(fmt::format("Gymnasium's {} (pip install gymnasium)", env));
    }
  }
  const fs::path panda = fs::path(dirs["cmeel"]).parent_path() /
                         "cmeel.prefix/share/example-robot-data/robots/panda_description/urdf/"
                         "panda.urdf";
  if (!dirs["cmeel"].empty() && fs::exists(panda)) {
    models.push_back(panda.string());
  } else {
    missing->push_back("the Panda arm's panda.urdf (pip install example-robot-data)");
  }
  return models;
}

int run_bench(const BenchOptions& o, const LoadOptions& load) {
  // the outputs before the rounds, which may take hours
  if (!o.csv.empty()) check_writable(o.csv, "--csv");
  if (!o.plot.empty()) check_writable(o.plot, "--plot");
  std::vector<std::string> notes;
  std::vector<std::string> specs = o.models;
  if (specs.empty()) {
    std::vector<std::string> missing;
    specs = default_bench_models(&missing);
    for (const std::string& m : missing) {
      notes.push_back(fmt::format("default model skipped, not found: {}", m));
      std::fprintf(stderr, "zwang bench: default model skipped, not found: %s\n", m.c_str());
    }
  }
  std::vector<int> threads;
  for (const int k : o.threads) {
    const int t = k > 0 ? k : omp_get_max_threads();
    if (std::find(threads.begin(), threads.end(), t) == threads.end()) threads.push_back(t);
  }
  std::sort(threads.begin(), threads.end());

  // the peers: plugins beside the executable or in $ZWANG_PEER_DIR
  std::vector<LoadedPeer> peers;
  std::vector<std::string> versions;
  const fs::path dir = peer_dir();
  for (const PeerInfo& info : kPeers) {
    if (std::find(o.peers.begin(), o.peers.end(), info.name) == o.peers.end()) continue;
    std::string why;
    const fs::path file = dir / fmt::format("zwang_peer_{}.so", info.name);
    if (const ZwangPeerApi* api = load_peer(file, &why)) {
      peers.push_back({&info, api});
      versions.push_back(api->version());
    } else {
      notes.push_back(fmt::format("{} skipped: {}", info.label, why));
      std::fprintf(stderr, "zwang bench: %s skipped: %s\n", info.label, why.c_str());
    }
  }
  const bool mujoco2 = std::any_of(peers.begin(), peers.end(), [](const LoadedPeer& p) {
    return std::string_view(p.info->name) == "mujoco2";
  });
  if (mujoco2 && contact_margin_of(load) == ContactMargin::kSum) {
    notes.push_back(
        "zwang reads the files as MuJoCo 4.0 does (summed contact margins, its box-box, "
        "ellipsoid, connect and weld rules); MuJoCo 2.2.2 reads them as --rules 2.2.2 does");
  }
  const std::vector<Config> configs = zwang_configs(o, &notes);
  if (configs.empty()) throw std::invalid_argument("no zwang configuration to run (--backends)");
  if (configs.front().options.outputs) {
    notes.push_back(fmt::format("zwang keeps only these outputs current: {} (--outputs)",
                                fmt::join(o.outputs, ",")));
  }

  std::vector<BenchRow> rows;
  std::vector<std::string> done;
  for (const std::string& spec : specs) {
    ModelRun mr;
    mr.spec = spec;
    mr.label = model_label(spec);
    try {
      OpenedModel opened = open_model(spec, load);
      mr.urdf = spec.ends_with(".urdf");
      // Pinocchio's forward dynamics has no constraints: zwang's are off beside it
      ModelEdits edits{.disable = o.disable};
      if (mr.urdf) edits.disable.push_back("constraint");
      apply_model_edits(opened.model, edits);
      mr.model = std::move(opened.model);
      if (!opened.warnings.empty()) {
        notes.push_back(fmt::format("{}: {} loader warning(s), listed by `zwang info {}`", mr.label,
                                    opened.warnings.size(), spec));
      }
      if (!mr.urdf && !fs::exists(spec))
        notes.push_back(mr.label + ": a built-in example, zwang only");
    } catch (const std::exception& e) {
      notes.push_back(fmt::format("{} skipped: {}", mr.label, e.what()));
      std::fprintf(stderr, "zwang bench: %s skipped: %s\n", mr.label.c_str(), e.what());
      continue;
    }
    const Model& m = mr.model;
    const std::string flags = fmt::format(
        "{}{}", m.disableflags & kDisableConstraint ? "constraints off" : "constraints on",
        !(m.disableflags & kDisableConstraint) && (m.disableflags & kDisableContact)
            ? ", contacts off"
            : "");
    const std::string about =
        fmt::format("{}: nq {}, nv {}, {}, timestep {:g} s, {}, {}", mr.label, m.nq, m.nv,
                    mr.urdf ? "forward dynamics" : std::string(to_string(m.integrator)), m.timestep,
                    flags, spec);
    std::fprintf(stderr, "zwang bench: %s\n", about.c_str());
    done.push_back(about);
    // built-in examples have no file for the peers to load
    std::vector<LoadedPeer> model_peers;
    if (fs::exists(spec)) model_peers = peers;
    bench_model(mr, o, load, configs, model_peers, threads, &rows, &notes);
  }
  if (done.empty()) {
    std::fprintf(stderr, "zwang bench: no model could be run\n");
    return 1;
  }

  std::printf(
      "zwang bench: instance-steps per second (forward: forward dynamics per second), "
      "median of %d alternating rounds; %d CPU threads available; peers: %s\n",
      o.rounds, omp_get_max_threads(),
      versions.empty() ? "none" : fmt::format("{}", fmt::join(versions, ", ")).c_str());
  for (const std::string& line : done) std::printf("  %s\n", line.c_str());
  for (const std::string& line : notes) std::printf("  note: %s\n", line.c_str());
  std::printf("\n%s", bench_table(rows).c_str());
  if (!o.csv.empty()) {
    write_file(o.csv, bench_csv(rows));
    std::fprintf(stderr, "zwang bench: table -> %s\n", o.csv.c_str());
  }
  if (!o.plot.empty()) {
    const PlotOutcome plot = bench_plot(rows, o.plot);
    if (plot.why.empty()) {
      std::fprintf(stderr, "zwang bench: plot -> %s\n", o.plot.c_str());
    } else {
      std::fprintf(stderr, "zwang bench: no plot: %s\n", plot.why.c_str());
      // the table and the CSV are out; a plot that failed to draw or write fails the run, a
      // machine without the optional plotter does not
      if (!plot.no_plotter) return 1;
    }
  }
  return 0;
}

}  // namespace zwang::cli
