// `zwang run`: a batched rollout, its throughput, and its trajectory in HDF5.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <charconv>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iterator>
#include <random>
#include <string_view>
#include <type_traits>
#include <utility>

#include "host/cli/cli_common.hpp"
#include "host/cli/commands.hpp"
#include "host/cli/h5_writer.hpp"
#include "kernels/status.h"
#include "zwang/randomize.hpp"

namespace zwang::cli {
namespace {

// one element of a batch field for every instance, as [instance][element]
template <class T>
std::vector<std::remove_const_t<T>> gather(FieldRef<T> f) {
  std::vector<std::remove_const_t<T>> out(static_cast<std::size_t>(f.instances()) * f.width());
  for (int j = 0; j < f.width(); ++j) {
    const std::span<T> column = f.column(j);
    for (std::int64_t i = 0; i < f.instances(); ++i) out[i * f.width() + j] = column[i];
  }
  return out;
}

// a count held in a one-element field, for every instance
template <class T>
std::vector<int> counts(FieldRef<T> f) {
  std::vector<int> out;
  for (const T x : f.column(0)) out.push_back(static_cast<int>(std::lround(x)));
  return out;
}

// FNV-1a over the model's arrays and options: shards of one run carry the same hash
std::string model_hash(const Model& m) {
  std::uint64_t h = 14695981039346656037ull;
  const auto bytes = [&h](const void* p, std::size_t n) {
    for (std::size_t k = 0; k < n; ++k) {
      h ^= static_cast<const unsigned char*>(p)[k];
      h *= 1099511628211ull;
    }
  };
  m.for_each_array([&](const char* name, const auto& v, const ArrayShape&, const char*) {
    using E = typename std::decay_t<decltype(v)>::value_type;
    bytes(name, std::strlen(name));
    const std::size_t n = v.size();
    bytes(&n, sizeof n);
    if constexpr (std::is_same_v<E, std::string>) {
      for (const std::string& x : v) bytes(x.c_str(), x.size() + 1);
    } else {
      static_assert(std::is_trivially_copyable_v<E>);
      bytes(v.data(), n * sizeof(E));
    }
  });
  const auto value = [&](const auto& x) { bytes(&x, sizeof x); };
  value(m.timestep), value(m.integrator), value(m.gravity), value(m.magnetic);
  value(m.density), value(m.viscosity), value(m.wind), value(m.iterations);
  value(m.tolerance), value(m.disableflags), value(m.cone), value(m.impratio);
  value(m.contact_margin), value(m.wrap_rules), value(m.rules), value(m.nconmax);
  return fmt::format("{:016x}", h);
}

// [first, first + count) of `instances` for --shard K/N (0 ≤ K < N): the K-th of N slices as
// even as integers allow
std::pair<std::int64_t, std::int64_t> shard_range(const std::string& shard,
                                                  std::int64_t instances) {
  if (shard.empty()) return {0, instances};
  const auto number = [](std::string_view text, std::int64_t* out) {
    const char* end = text.data() + text.size();
    const auto [stop, error] = std::from_chars(text.data(), end, *out);
    return error == std::errc() && stop == end && !text.empty();
  };
  const auto slash = shard.find('/');
  std::int64_t k = -1, n = 0;
  const bool parsed = slash != std::string::npos &&
                      number(std::string_view(shard).substr(0, slash), &k) &&
                      number(std::string_view(shard).substr(slash + 1), &n);
  if (!parsed || n < 1 || k < 0 || k >= n || n > INT32_MAX) {
    throw std::invalid_argument(
        fmt::format("--shard must be K/N with 0 <= K < N < 2^31 (got '{}')", shard));
  }
  if (n > instances) {
    throw std::invalid_argument(fmt::format(
        "--shard {}: {} slices of {} instances would leave some empty", shard, n, instances));
  }
  // floor(instances j / n) without overflow: (instances % n) j < n² < 2⁶²
  const auto at = [&](std::int64_t j) { return instances / n * j + instances % n * j / n; };
  return {at(k), at(k + 1) - at(k)};
}

class Progress {
 public:
  Progress(bool enabled, std::int64_t total)
      : enabled_(enabled && isatty(fileno(stderr))), total_(total) {}
  void update(std::int64_t done, double rate) {
    if (!enabled_) return;
    const auto now = std::chrono::steady_clock::now();
    if (done < total_ && now - last_ < std::chrono::milliseconds(100)) return;
    last_ = now;
    const int width = 40,
              filled = static_cast<int>(width * done / std::max<std::int64_t>(total_, 1));
    std::fprintf(stderr, "\r  [%s%s] %3d%%  %.3g instance-steps/s",
                 std::string(filled, '#').c_str(), std::string(width - filled, ' ').c_str(),
                 static_cast<int>(100 * done / std::max<std::int64_t>(total_, 1)), rate);
    if (done >= total_) std::fprintf(stderr, "\n");
  }
  // a run that stops early leaves the line of the bar
  void end() {
    if (enabled_) std::fprintf(stderr, "\n");
  }

 private:
  bool enabled_;
  std::int64_t total_;
  std::chrono::steady_clock::time_point last_{};
};

// the signal that asked the rollout to stop, 0 while none has; the handler does nothing else
volatile std::sig_atomic_t g_stop_signal = 0;

void request_stop(int signo) {
  g_stop_signal = signo;
}

// SIGINT, SIGTERM and SIGHUP (a closed terminal) stop the rollout after the call of the engine
// under way, which the rollout keeps short, with a last record there, instead of ending the
// program with the file half written; a second one ends it at once (SA_RESETHAND). A signal the
// parent ignores stays ignored (nohup), and the previous handlers come back with the rollout.
class StopOnSignals {
 public:
  StopOnSignals() {
    g_stop_signal = 0;
    struct sigaction action {};
    action.sa_handler = request_stop;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESETHAND | SA_RESTART;
    for (int k = 0; k < kCount; ++k) {
      sigaction(kSignals[k], nullptr, &previous_[k]);
      if (previous_[k].sa_handler != SIG_IGN) sigaction(kSignals[k], &action, nullptr);
    }
  }
  ~StopOnSignals() {
    for (int k = 0; k < kCount; ++k) sigaction(kSignals[k], &previous_[k], nullptr);
  }
  StopOnSignals(const StopOnSignals&) = delete;
  StopOnSignals& operator=(const StopOnSignals&) = delete;
  int signal() const { return g_stop_signal; }

 private:
  static constexpr int kCount = 3;
  static constexpr int kSignals[kCount] = {SIGINT, SIGTERM, SIGHUP};
  struct sigaction previous_[kCount];
};

// a call of the engine lasts about this long, so that a signal stops the run soon
constexpr double kCallSeconds = 0.25;

// f(), with the option its std::invalid_argument comes from in front of the message
template <class F>
auto with_option(const char* option, F&& f) {
  try {
    return f();
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(fmt::format("{}: {}", option, e.what()));
  }
}

CpuSimd parse_cpu_simd(const std::string& name) {
  if (name == "scalar") return CpuSimd::kScalar;
  if (name == "avx2") return CpuSimd::kAvx2;
  if (name == "avx512") return CpuSimd::kAvx512;
  return CpuSimd::kAuto;
}

Backend parse_backend(const std::string& name) {
  if (name == "cuda") return Backend::kCuda;
  if (name == "auto") return Backend::kAuto;
  return Backend::kCpu;
}

template <class T>
int rollout(const OpenedModel& opened, const RunOptions& o) {
  const Model& m = opened.model;
  if (!(o.init_noise >= 0 && o.init_noise <= kMaxInitNoise)) {
    throw std::invalid_argument(
        fmt::format("--init-noise must be from 0 to {:g} (got {:g})", kMaxInitNoise, o.init_noise));
  }
  const std::vector<RandomTerm> terms =
      with_option("--randomize", [&] { return parse_randomization(o.randomize); });
  // this run's instances: all, or a shard's [first, first + count) of them (plain variables,
  // not a structured binding: the lambdas below capture them, which clang 14 refuses for one)
  const std::pair<std::int64_t, std::int64_t> range = shard_range(o.shard, o.instances);
  const std::int64_t first = range.first, count = range.second;
  Simulator<T> sim(m, count,
                   {.backend = parse_backend(o.backend),
                    .threads = o.threads,
                    .cpu_simd = parse_cpu_simd(o.cpu_simd),
                    .device = o.device});
  std::string picked = sim.backend();
  if (o.backend == "auto") {
    const CudaStatus cuda = cuda_status();
    picked += cuda.devices > 0 ? " (auto: a CUDA device is present)"
                               : fmt::format(" (auto: {})", cuda.reason);
  }
  std::fprintf(
      stderr, "model %s: nq %d, nv %d, nu %d; %lld instances x %d steps of %g s, %s, %s on %s\n",
      opened.source.c_str(), m.nq, m.nv, m.nu, static_cast<long long>(count), o.steps, m.timestep,
      std::string(to_string(m.integrator)).c_str(), o.precision.c_str(), picked.c_str());

  with_option("--keyframe", [&] { scatter_states(sim, o.keyframe, o.init_noise, o.seed, first); });
  with_option("--randomize", [&] { randomize(sim.batch(), terms, o.seed, first); });
  std::mt19937_64 rng(o.seed);  // the random controls
  Batch<T>& b = sim.batch();

  std::unique_ptr<H5File> h5;
  if (!o.out.empty()) {
    h5 = std::make_unique<H5File>(o.out);
    // the instances' status as of the last record, rewritten with each, so that a run that
    // fails keeps it
    h5->write("status", {static_cast<hsize_t>(count)}, std::vector<int>(count, 0));
    const hsize_t n = static_cast<hsize_t>(count);
    const int bytes = sizeof(T);
    h5->create_series("qpos", {n, static_cast<hsize_t>(m.nq)}, bytes);
    h5->create_series("qvel", {n, static_cast<hsize_t>(m.nv)}, bytes);
    h5->create_series("ctrl", {n, static_cast<hsize_t>(m.nu)}, bytes);
    if (m.na > 0) h5->create_series("act", {n, static_cast<hsize_t>(m.na)}, bytes);
    h5->create_series("time", {n}, 8);
    h5->create_int_series("efc_nactive", {n});
    h5->create_int_series("solver_niter", {n});
    h5->create_int_series("ncon", {n});
    h5->create_series("sensordata", {n, static_cast<hsize_t>(m.nsensordata)}, bytes);
    // a file by its absolute path, so that the trajectory names it from anywhere
    std::error_code ec;
    const bool file = std::filesystem::is_regular_file(opened.source, ec);
    h5->attribute("model",
                  file ? std::filesystem::absolute(opened.source, ec).string() : opened.source);
    h5->attribute("nq", std::int64_t{m.nq});
    h5->attribute("nv", std::int64_t{m.nv});
    h5->attribute("nu", std::int64_t{m.nu});
    h5->attribute("na", std::int64_t{m.na});
    h5->attribute("nbody", std::int64_t{m.nbody});
    h5->attribute("ngeom", std::int64_t{m.ngeom});
    h5->attribute("nconmax", std::int64_t{b.sizes().nconmax});
    h5->attribute("timestep", m.timestep);
    h5->attribute("integrator", std::string(to_string(m.integrator)));
    h5->attribute("precision", o.precision);
    h5->attribute("backend", sim.backend());
    h5->attribute("instances", o.instances);
    // which of the run's instances this file holds (zwang merge joins the shards)
    h5->attribute("shard", o.shard.empty() ? std::string("0/1") : o.shard);
    h5->attribute("first", first);
    h5->attribute("count", count);
    h5->attribute("model_hash", model_hash(m));
    h5->attribute("init_noise", o.init_noise);
    h5->attribute("steps", std::int64_t{o.steps});
    h5->attribute("record_every", std::int64_t{o.record_every});
    h5->attribute("seed", o.seed);
    h5->attribute("randomize", o.randomize);
    h5->attribute("ctrl", o.ctrl);
    h5->attribute("keyframe", o.keyframe);
    h5->attribute("disableflags", std::int64_t{m.disableflags});
    std::vector<std::string> driven;
    for (const int j : m.drive_jnt) driven.push_back(m.jnt_name[j]);
    h5->attribute("drive_joints", driven);
    h5->attribute("body_names", m.body_name);
    h5->attribute("joint_names", m.jnt_name);
    h5->attribute("actuator_names", m.actuator_name);
    h5->attribute("geom_names", m.geom_name);
    h5->attribute("sensor_names", m.sensor_name);
    std::vector<std::string> sensor_types;
    for (const SensorType t : m.sensor_type) sensor_types.emplace_back(to_string(t));
    h5->attribute("sensor_types", sensor_types);
    h5->write("sensor_adr", {static_cast<hsize_t>(m.nsensor)}, m.sensor_adr);
    h5->write("sensor_dim", {static_cast<hsize_t>(m.nsensor)}, m.sensor_dim);
    h5->attribute(
        "layout",
        std::string("qpos, qvel, ctrl, act (when na > 0): [record][instance][coordinate]; time, "
                    "efc_nactive, "
                    "solver_niter, ncon: [record][instance]; sensordata: [record][instance][value] "
                    "(sensor i at sensor_adr[i], sensor_dim[i] values); parameters/drive_prm: "
                    "[instance][q0 v0 amplitude omega phase of each of drive_joints]"));
    // the parameters each instance ran with, [instance][element]
    h5->create_group("parameters");
#define ZW_X(name, count)                                                    \
  {                                                                          \
    const FieldRef<const T> field = std::as_const(b).name();                 \
    const std::vector<T> v = gather(field);                                  \
    h5->write("parameters/" #name, {n, static_cast<hsize_t>(field.width())}, \
              std::vector<double>(v.begin(), v.end()));                      \
  }
    ZW_PARAM_FIELDS(ZW_X)
#undef ZW_X
  }
  auto record = [&] {
    if (!h5) return;
    h5->append("qpos", gather(b.qpos()).data());
    h5->append("qvel", gather(b.qvel()).data());
    h5->append("ctrl", gather(b.ctrl()).data());
    if (m.na > 0) h5->append("act", gather(b.act()).data());
    const std::span<const double> t = std::as_const(b).time();
    h5->append("time", t.data());
    h5->append("efc_nactive", counts(b.efc_nactive()).data());
    h5->append("solver_niter", counts(b.solver_niter()).data());
    h5->append("ncon", counts(b.ncon()).data());
    h5->append("sensordata", gather(b.sensordata()).data());
    const std::span<const int> status = std::as_const(b).status();
    h5->overwrite("status", std::vector<int>(status.begin(), status.end()));
    h5->end_record();
  };

  // random controls: uniform in the ctrlrange, or [-1, 1] where there is none
  std::vector<T> u(m.nu);
  // every instance of the run draws in turn, a shard's setting its own, so that its draws are
  // those of the whole run
  auto draw_ctrl = [&] {
    for (std::int64_t i = 0; i < o.instances; ++i) {
      for (int a = 0; a < m.nu; ++a) {
        const bool lim = m.actuator_ctrllimited[a];
        std::uniform_real_distribution<double> d(lim ? m.actuator_ctrlrange[2 * a] : -1.0,
                                                 lim ? m.actuator_ctrlrange[2 * a + 1] : 1.0);
        u[a] = static_cast<T>(d(rng));
      }
      if (i >= first && i < first + count) b.ctrl().set(i - first, u);
    }
  };

  const StopOnSignals stop;
  Progress progress(!o.no_progress, o.steps);
  double stepping = 0;
  int done = 0;
  if (o.ctrl == "random") draw_ctrl();
  // the first record's counts (active rows, contacts) are those of the initial state
  if (h5) sim.forward();
  record();
  // the steps between records in calls of about kCallSeconds (the same bits as one call: each
  // instance steps on alone), so that a signal ends the run within one
  int call = 1;
  while (done < o.steps && stop.signal() == 0) {
    const int k = std::min(o.record_every, o.steps - done);
    int stepped = 0;
    while (stepped < k && stop.signal() == 0) {
      const int c = std::min(call, k - stepped);
      const auto t0 = std::chrono::steady_clock::now();
      sim.step(c);
      sim.synchronize();  // the CUDA backend returns once the steps are enqueued
      const double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      stepping += seconds;
      stepped += c;
      // a power of two: few distinct step counts, which the CUDA backend captures once each
      call = static_cast<int>(std::bit_floor(static_cast<unsigned>(std::clamp(
          c * kCallSeconds / std::max(seconds, 1e-9), 1.0, static_cast<double>(o.record_every)))));
    }
    done += stepped;
    if (o.ctrl == "random" && stepped == k) draw_ctrl();
    // a signal in the middle of the steps of a record: the last record where the run stopped
    record();
    progress.update(done, static_cast<double>(count) * done / std::max(stepping, 1e-12));
  }
  // a signal during the last steps stops nothing
  const int signo = done < o.steps ? stop.signal() : 0;
  if (signo != 0) progress.end();
  if (h5) h5->close(signo != 0 ? "interrupted" : "complete");

  // instances that stopped, and those whose constraint solve reached the iteration cap
  std::vector<InstanceFailure> stopped, capped;
  for (const InstanceFailure& f : sim.failures())
    (f.status & kStatusStopping ? stopped : capped).push_back(f);
  const double total = static_cast<double>(count) * done;
  std::printf("%.4g instance-steps/s  (%lld instances x %d steps in %.3f s, %s, %s)\n",
              total / std::max(stepping, 1e-12), static_cast<long long>(count), done, stepping,
              o.precision.c_str(), sim.backend().c_str());
  if (!stopped.empty()) {
    std::printf("%zu instance(s) stopped:\n", stopped.size());
    for (std::size_t k = 0; k < std::min<std::size_t>(stopped.size(), 5); ++k) {
      std::printf("  %s\n", stopped[k].message().c_str());
    }
  }
  if (!capped.empty()) {
    std::printf(
        "%zu instance(s) went on after a constraint solve reached its iteration cap (%d), "
        "instance %lld first\n",
        capped.size(), m.iterations, static_cast<long long>(capped.front().instance));
  }
  if (signo != 0) {
    const std::string kept = h5 ? fmt::format("; {} keeps {} record{}", o.out, h5->records(),
                                              h5->records() == 1 ? "" : "s")
                                : "";
    std::fprintf(stderr, "interrupted by %s after %d of %d steps%s\n",
                 signo == SIGINT    ? "SIGINT"
                 : signo == SIGTERM ? "SIGTERM"
                                    : "SIGHUP",
                 done, o.steps, kept.c_str());
    return 128 + signo;
  }
  if (h5) std::fprintf(stderr, "trajectory: %s\n", o.out.c_str());
  return 0;
}

}  // namespace

int run_rollout(const std::string& spec, const LoadOptions& load, const RunOptions& options) {
  // a trajectory of an earlier run is replaced only when asked, before this run can fail
  std::error_code ignored;
  if (!options.out.empty() && !options.overwrite && std::filesystem::exists(options.out, ignored) &&
      !std::filesystem::is_directory(options.out, ignored)) {
    throw std::invalid_argument(fmt::format(
        "-o {}: the file exists; give --overwrite to replace it, or another file", options.out));
  }
  OpenedModel opened = open_model(spec, load);
  apply_model_edits(opened.model, {options.disable, options.drive});
  for (const std::string& w : opened.warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
  return options.precision == "f32" ? rollout<float>(opened, options)
                                    : rollout<double>(opened, options);
}

}  // namespace zwang::cli
