// The CPU backends: the kernels/ stages in an OpenMP loop over instances, each thread with its
// own contiguous scratch; one instance at a time (the reference), or packs of instances in the
// lanes of SIMD registers (host/cpu/simd.inl) where the CPU and the model allow.
#include "host/backend.hpp"

#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "host/batch/kept_rows.hpp"
#include "host/cpu/cache_size.hpp"
#include "host/cpu/simd.hpp"
#include "host/model/arrays.hpp"
#include "kernels/pipeline.h"

namespace zwang {
namespace {

// The instances of a batch that has not handed out its parameters (Batch::parameters_exposed())
// hold the model's values in T, all the same: whether they pass kernels/check_parameters.h,
// from instance 0 (the model's own checks ran in double; a value beyond float's range would not
// pass).  Where they do, a call checks the state only.
template <class T>
bool defaults_valid(const ModelView<T>& view, const Batch<T>& batch) {
  // read only: the kernels never write a parameter
  T* param = const_cast<T*>(batch.param_arena());
  return parameters_valid(
      view,
      Instance<T>{
          {nullptr, 0}, {param, batch.padded_size()}, {nullptr, 0}, &view.lay, nullptr, nullptr});
}

// Each thread copies the data and parameter rows of a tile of instances out of the interleaved
// batch into contiguous buffers, one per instance, runs the stages there (ld = 1) and copies the
// data rows back: a core then works on a few consecutive cache lines instead of one line per row,
// and two threads never write the same line of the batch while they compute (in the interleaved
// layout neighbouring instances share lines); of the outputs, only those the batch keeps go back.
// A tile is one cache line of a row (8 instances in float64, 16 in float32), so the copies read and
// write whole lines and touch each page of the arenas once per tile rather than once per instance:
// with a few thousand rows per instance, one call of step(1) otherwise spends as long on the copies
// as on the step.  The arithmetic is the same, so are the bits.
template <class T>
class CpuBackend final : public BackendImpl<T> {
 public:
  static constexpr int kTile = 64 / sizeof(T);

  CpuBackend(const Model& model, const Batch<T>& batch, int threads)
      : arrays_(model),
        view_(arrays_.view()),
        defaults_valid_(defaults_valid(view_, batch)),
        threads_(threads),
        lay_(batch.layout()),
        outputs_(kept_output_rows(batch)),
        buffers_(threads, std::vector<T>(std::max(lay_.work_rows, 1) +
                                         kTile * (lay_.data_rows + lay_.param_rows))) {}

  void forward(Batch<T>& batch) override {
    run(batch, [&](const Instance<T>& d) { zwang::forward(view_, d); });
  }

  void step(Batch<T>& batch, int steps) override {
    // instance outer, steps inner: one instance stays in cache for all its steps
    run(batch, [&](const Instance<T>& d) {
      for (int s = 0; s < steps && (*d.status & kStatusStopping) == 0; ++s) zwang::step(view_, d);
    });
  }

  std::string describe() const override {
    return fmt::format("cpu ({} thread{})", threads_, threads_ == 1 ? "" : "s");
  }

 private:
  // rows [0, rows) of `count` instances from a batch arena (stride ld) into `out`, where
  // element r of instance k lands at out[k * rows + r]; and back
  static void gather(const T* arena, std::int64_t ld, int rows, int count, T* out) {
    for (int r = 0; r < rows; ++r) {
      const T* line = arena + r * ld;
      for (int k = 0; k < count; ++k) out[k * rows + r] = line[k];
    }
  }
  static void scatter(const T* in, int begin, int end, int rows, int count, T* arena,
                      std::int64_t ld) {
    for (int r = begin; r < end; ++r) {
      T* line = arena + r * ld;
      for (int k = 0; k < count; ++k) line[k] = in[k * rows + r];
    }
  }

  template <class F>
  void run(Batch<T>& batch, const F& f) {
    view_.check_parameters = batch.parameters_exposed() || !defaults_valid_;
    const T* params = std::as_const(batch).param_arena();
    const std::int64_t n = batch.size(), ld = batch.padded_size();
    const std::int64_t tiles = (n + kTile - 1) / kTile;
    const int data_rows = lay_.data_rows, param_rows = lay_.param_rows;
#pragma omp parallel for num_threads(threads_) schedule(static)
    for (std::int64_t t = 0; t < tiles; ++t) {
      const std::int64_t first = t * kTile;
      const int count = static_cast<int>(std::min<std::int64_t>(kTile, n - first));
      T* work = buffers_[omp_get_thread_num()].data();
      T* data = work + std::max(lay_.work_rows, 1);
      T* param = data + kTile * data_rows;
      gather(batch.data_arena() + first, ld, data_rows, count, data);
      gather(params + first, ld, param_rows, count, param);
      for (int k = 0; k < count; ++k) {
        f(Instance<T>{{data + k * data_rows, 1},
                      {param + k * param_rows, 1},
                      {work, 1},
                      &view_.lay,
                      batch.time_data() + first + k,
                      batch.status_data() + first + k});
      }
      T* out = batch.data_arena() + first;
      scatter(data, 0, input_rows(lay_), data_rows, count, out, ld);
      for (const auto& [begin, end] : outputs_)
        scatter(data, begin, end, data_rows, count, out, ld);
    }
  }

  ModelArrays<T> arrays_;
  ModelView<T> view_;
  bool defaults_valid_;
  int threads_;
  Layout lay_;
  std::vector<std::pair<int, int>> outputs_;
  // per thread: scratch, then the data and the parameters of a tile's instances
  std::vector<std::vector<T>> buffers_;
};

// The same stages on packs of `isa.width` instances: the work is in the instruction set's own
// translation unit; this object keeps the model's arrays and the threads' scratch.
template <class T>
class SimdBackend final : public BackendImpl<T> {
 public:
  SimdBackend(const Model& model, const Batch<T>& batch, int threads, PackIsa<T> isa)
      : arrays_(model),
        view_(arrays_.view()),
        defaults_valid_(defaults_valid(view_, batch)),
        threads_(threads),
        isa_(isa),
        stride_(isa.scratch_bytes(batch.layout(), view_.s, view_.ncollision)),
        scratch_(stride_ * threads + 64),
        outputs_(kept_output_rows(batch)),
        sensordata_(batch.kept(FieldId::sensordata)) {}

  void forward(Batch<T>& batch) override { run(batch, 0); }

  void step(Batch<T>& batch, int steps) override {
    if (steps > 0) run(batch, steps);
  }

  std::string describe() const override {
    return fmt::format("cpu {} {}x{} ({} thread{})", isa_.name, isa_.width,
                       sizeof(T) == 4 ? "f32" : "f64", threads_, threads_ == 1 ? "" : "s");
  }

 private:
  void run(Batch<T>& batch, int steps) {
    const auto address = reinterpret_cast<std::uintptr_t>(scratch_.data());
    std::byte* aligned = scratch_.data() + (64 - address % 64) % 64;
    // A thread's share of the rows that fits in half its L2 stays there from one call to the
    // next: prefetching it again costs two instructions and more per row and pack (1.1k per
    // instance-step of a humanoid's step(1), 3.5 %) and brings nothing.  All the rows beyond the
    // L3: the outputs go back past the caches (host/cpu/simd.inl).
    std::size_t rows = static_cast<std::size_t>(input_rows(view_.lay) + view_.lay.param_rows);
    for (const auto& [begin, end] : outputs_) rows += static_cast<std::size_t>(end - begin);
    const std::size_t l2 = l2_bytes(), l3 = l3_bytes();
    const std::size_t bytes = rows * static_cast<std::size_t>(batch.padded_size()) * sizeof(T);
    const std::size_t share = bytes / static_cast<std::size_t>(std::max(threads_, 1));
    view_.check_parameters = batch.parameters_exposed() || !defaults_valid_;
    // read only: the kernels never write a parameter
    T* params = const_cast<T*>(std::as_const(batch).param_arena());
    isa_.run({&view_, batch.data_arena(), params, batch.padded_size(), batch.size(),
              batch.time_data(), batch.status_data(), threads_, steps, aligned, &constrain_lanes<T>,
              share > l2 / 2, outputs_.data(), static_cast<int>(outputs_.size()), sensordata_,
              bytes > l3});
  }

  ModelArrays<T> arrays_;
  ModelView<T> view_;
  bool defaults_valid_;
  int threads_;
  PackIsa<T> isa_;
  std::size_t stride_;
  std::vector<std::byte> scratch_;
  std::vector<std::pair<int, int>> outputs_;
  bool sensordata_ = true;
};

#if defined(ZWANG_SIMD_X86)
bool cpu_has_avx2() {
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}
bool cpu_has_avx512() {
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
         __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("fma");
}
#else
bool cpu_has_avx2() {
  return false;
}
bool cpu_has_avx512() {
  return false;
}
#endif

}  // namespace

CpuSimd cpu_simd_supported() {
  return cpu_has_avx512() ? CpuSimd::kAvx512 : cpu_has_avx2() ? CpuSimd::kAvx2 : CpuSimd::kScalar;
}

template <class T>
std::unique_ptr<BackendImpl<T>> make_cpu_backend(const Model& model, const Batch<T>& batch,
                                                 int threads, CpuSimd simd) {
  if (simd == CpuSimd::kAvx512 && !cpu_has_avx512()) {
    throw std::invalid_argument(
        "the AVX-512 CPU backend needs AVX-512 F, DQ, VL and BW, which this CPU lacks");
  }
  if (simd == CpuSimd::kAvx2 && !cpu_has_avx2()) {
    throw std::invalid_argument("the AVX2 CPU backend needs AVX2 and FMA, which this CPU lacks");
  }
  if (simd == CpuSimd::kAuto) simd = cpu_simd_supported();
  if (simd == CpuSimd::kScalar) return std::make_unique<CpuBackend<T>>(model, batch, threads);
#if defined(ZWANG_SIMD_X86)
  const PackIsa<T> isa = simd == CpuSimd::kAvx512 ? pack_isa_avx512<T>() : pack_isa_avx2<T>();
  return std::make_unique<SimdBackend<T>>(model, batch, threads, isa);
#else
  return std::make_unique<CpuBackend<T>>(model, batch, threads);
#endif
}

template std::unique_ptr<BackendImpl<float>> make_cpu_backend(const Model&, const Batch<float>&,
                                                              int, CpuSimd);
template std::unique_ptr<BackendImpl<double>> make_cpu_backend(const Model&, const Batch<double>&,
                                                               int, CpuSimd);

}  // namespace zwang
