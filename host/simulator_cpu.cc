// The CPU backend: the kernels/ stages in an OpenMP loop over instances, each thread with
// its own contiguous scratch.
#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <stdexcept>

#include "instance_view.hpp"
#include "kernels/pipeline.h"
#include "kernels/status.h"
#include "model_arrays.hpp"
#include "zwang/simulator.hpp"

namespace zwang {

std::string describe_status(int status) {
  std::string out;
  auto add = [&](const char* what) {
    if (!out.empty()) out += "; ";
    out += what;
  };
  if (status & kStatusBadState) add("bad state: qpos, qvel or ctrl is not finite");
  if (status & kStatusFactorization) {
    add("factorisation: H is not positive definite (check masses and inertias)");
  }
  if (status & kStatusDiverged) add("diverged: the step produced a non-finite value");
  if (out.empty()) out = "ok";
  return out;
}

std::string InstanceFailure::message() const {
  return fmt::format("instance {}: {}", instance, describe_status(status));
}

template <class T>
struct Simulator<T>::Cpu {
  explicit Cpu(const Model& model, int threads, int work_rows)
      : arrays(model), view(arrays.view()), work(threads, std::vector<T>(std::max(work_rows, 1))) {}
  ModelArrays<T> arrays;
  ModelView<T> view;
  std::vector<std::vector<T>> work;  // one scratch buffer per thread
};

template <class T>
Simulator<T>::Simulator(const Model& model, std::int64_t n, SimulatorOptions options)
    : model_(model),
      batch_(model_, n),
      threads_(options.threads > 0 ? options.threads : omp_get_max_threads()) {
  if (options.threads < 0)
    throw std::invalid_argument(fmt::format("threads must be positive (got {})", options.threads));
  cpu_ = std::make_unique<Cpu>(model_, threads_, batch_.layout().work_rows);
}

template <class T>
Simulator<T>::~Simulator() = default;

template <class T>
void Simulator<T>::forward() {
  const ModelView<T>& m = cpu_->view;
  const std::int64_t n = batch_.size();
#pragma omp parallel for num_threads(threads_) schedule(static)
  for (std::int64_t i = 0; i < n; ++i) {
    T* work = cpu_->work[omp_get_thread_num()].data();
    zwang::forward(m, instance_view(batch_, m, i, work));
  }
}

template <class T>
void Simulator<T>::step(int steps) {
  if (steps < 0)
    throw std::invalid_argument(fmt::format("step count must be non-negative (got {})", steps));
  const ModelView<T>& m = cpu_->view;
  const std::int64_t n = batch_.size();
  // instance outer, steps inner: one instance's rows stay in cache for all its steps
#pragma omp parallel for num_threads(threads_) schedule(static)
  for (std::int64_t i = 0; i < n; ++i) {
    const Instance<T> d = instance_view(batch_, m, i, cpu_->work[omp_get_thread_num()].data());
    for (int s = 0; s < steps && *d.status == 0; ++s) zwang::step(m, d);
  }
}

template <class T>
void Simulator<T>::reset(std::span<const std::int64_t> instances) {
  for (std::int64_t i : instances) batch_.reset_state(i, model_);
}

template <class T>
void Simulator<T>::reset(std::span<const std::int64_t> instances, const State& state) {
  auto check = [](const char* name, std::size_t got, int want, bool optional) {
    if (got != static_cast<std::size_t>(want) && !(optional && got == 0)) {
      throw std::invalid_argument(
          fmt::format("State.{} has {} values, the model needs {}", name, got, want));
    }
  };
  check("qpos", state.qpos.size(), model_.nq, false);
  check("qvel", state.qvel.size(), model_.nv, false);
  check("ctrl", state.ctrl.size(), model_.nu, true);
  std::vector<T> qpos(state.qpos.begin(), state.qpos.end()),
      qvel(state.qvel.begin(), state.qvel.end());
  std::vector<T> ctrl(model_.nu, T(0));
  std::copy(state.ctrl.begin(), state.ctrl.end(), ctrl.begin());
  for (std::int64_t i : instances) {
    batch_.reset_state(i, model_);
    batch_.qpos().set(i, qpos);
    batch_.qvel().set(i, qvel);
    batch_.ctrl().set(i, ctrl);
  }
}

template <class T>
std::vector<InstanceFailure> Simulator<T>::failures() const {
  std::vector<InstanceFailure> out;
  const int* status = const_cast<Batch<T>&>(batch_).status_data();
  for (std::int64_t i = 0; i < batch_.size(); ++i) {
    if (status[i]) out.push_back({i, status[i]});
  }
  return out;
}

template class Simulator<float>;
template class Simulator<double>;

}  // namespace zwang
