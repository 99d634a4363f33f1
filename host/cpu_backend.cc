// The CPU backend: the kernels/ stages in an OpenMP loop over instances, each thread with its
// own contiguous scratch.
#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <vector>

#include "backend.hpp"
#include "instance_view.hpp"
#include "kernels/pipeline.h"
#include "model_arrays.hpp"

namespace zwang {
namespace {

template <class T>
class CpuBackend final : public BackendImpl<T> {
 public:
  CpuBackend(const Model& model, const Batch<T>& batch, int threads)
      : arrays_(model),
        view_(arrays_.view()),
        threads_(threads),
        work_(threads, std::vector<T>(std::max(batch.layout().work_rows, 1))) {}

  void forward(Batch<T>& batch) override {
    const std::int64_t n = batch.size();
#pragma omp parallel for num_threads(threads_) schedule(static)
    for (std::int64_t i = 0; i < n; ++i) {
      zwang::forward(view_, instance_view(batch, view_, i, work_[omp_get_thread_num()].data()));
    }
  }

  void step(Batch<T>& batch, int steps) override {
    const std::int64_t n = batch.size();
    // instance outer, steps inner: one instance's rows stay in cache for all its steps
#pragma omp parallel for num_threads(threads_) schedule(static)
    for (std::int64_t i = 0; i < n; ++i) {
      const Instance<T> d = instance_view(batch, view_, i, work_[omp_get_thread_num()].data());
      for (int s = 0; s < steps && *d.status == 0; ++s) zwang::step(view_, d);
    }
  }

  std::string describe() const override {
    return fmt::format("cpu ({} thread{})", threads_, threads_ == 1 ? "" : "s");
  }

 private:
  ModelArrays<T> arrays_;
  ModelView<T> view_;
  int threads_;
  std::vector<std::vector<T>> work_;  // one scratch buffer per thread
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
