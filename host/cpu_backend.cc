// The CPU backend: the kernels/ stages in an OpenMP loop over instances, each thread with its
// own contiguous scratch.
#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <vector>

#include "backend.hpp"
#include "kernels/pipeline.h"
#include "model_arrays.hpp"

namespace zwang {
namespace {

// Each thread copies one instance's data and parameter rows out of the interleaved batch into
// a contiguous buffer, runs the stages there (ld = 1) and copies the data rows back: a core
// then works on a few consecutive cache lines instead of one line per row, and two threads
// never write the same line of the batch while they compute (in the interleaved layout
// neighbouring instances share lines).  The arithmetic is the same, so are the bits.
template <class T>
class CpuBackend final : public BackendImpl<T> {
 public:
  CpuBackend(const Model& model, const Batch<T>& batch, int threads)
      : arrays_(model),
        view_(arrays_.view()),
        threads_(threads),
        lay_(batch.layout()),
        buffers_(threads,
                 std::vector<T>(std::max(lay_.work_rows + lay_.data_rows + lay_.param_rows, 1))) {}

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
  template <class F>
  void run(Batch<T>& batch, const F& f) {
    const std::int64_t n = batch.size(), ld = batch.padded_size();
#pragma omp parallel for num_threads(threads_) schedule(static)
    for (std::int64_t i = 0; i < n; ++i) {
      T* work = buffers_[omp_get_thread_num()].data();
      T* data = work + lay_.work_rows;
      T* param = data + lay_.data_rows;
      const T* batch_data = batch.data_arena() + i;
      const T* batch_param = batch.param_arena() + i;
      for (int r = 0; r < lay_.data_rows; ++r) data[r] = batch_data[r * ld];
      for (int r = 0; r < lay_.param_rows; ++r) param[r] = batch_param[r * ld];
      f(Instance<T>{{data, 1},
                    {param, 1},
                    {work, 1},
                    &view_.lay,
                    batch.time_data() + i,
                    batch.status_data() + i});
      T* out = batch.data_arena() + i;
      for (int r = 0; r < lay_.data_rows; ++r) out[r * ld] = data[r];
    }
  }

  ModelArrays<T> arrays_;
  ModelView<T> view_;
  int threads_;
  Layout lay_;
  std::vector<std::vector<T>>
      buffers_;  // per thread: scratch, then the instance's data and parameters
};

}  // namespace

template <class T>
std::unique_ptr<BackendImpl<T>> make_cpu_backend(const Model& model, const Batch<T>& batch,
                                                 int threads) {
  return std::make_unique<CpuBackend<T>>(model, batch, threads);
}

template std::unique_ptr<BackendImpl<float>> make_cpu_backend(const Model&, const Batch<float>&,
                                                              int);
template std::unique_ptr<BackendImpl<double>> make_cpu_backend(const Model&, const Batch<double>&,
                                                               int);

}  // namespace zwang
