// Simulator: owns the model and the host batch, and hands the work to a backend.
#include "zwang/simulator.hpp"

#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <stdexcept>

#include "backend.hpp"
#include "kernels/status.h"

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
  if (status & kStatusDiverged) add("diverged: the computation produced a non-finite value");
  if (status & kStatusBadParameters) {
    add("bad parameters: a non-finite parameter, a negative mass, damping, armature or "
        "stiffness, a mass or inertia that is not positive where the model's is, or an inertia "
        "that is not a rigid body's (principal moments A + B >= C)");
  }
  if (status & kStatusNotConverged) {
    add("not converged (a warning; the instance goes on): the constraint solver reached its "
        "iteration cap before its tolerance (raise <option iterations>, or check for "
        "conflicting constraints)");
  }
  if (status & kStatusContactOverflow) {
    add("contact overflow: more contacts than the model's maximum per instance (raise <size "
        "nconmax> or ModelBuilder::set_max_contacts); the step was undone");
  }
  if (out.empty()) out = "ok";
  return out;
}

std::string InstanceFailure::message() const {
  return fmt::format("instance {}: {}", instance, describe_status(status));
}

template <class T>
Simulator<T>::Simulator(const Model& model, std::int64_t n, SimulatorOptions options)
    : model_(model), batch_(model_, n) {
  if (options.threads < 0) {
    throw std::invalid_argument(
        fmt::format("threads must be non-negative (got {})", options.threads));
  }
  // more threads than a few per core only cost memory (a scratch buffer each) and time
  const int max_threads = std::max(64, 4 * omp_get_num_procs());
  if (options.threads > max_threads) {
    throw std::invalid_argument(fmt::format("threads must be at most {} on this machine (got {})",
                                            max_threads, options.threads));
  }
  Backend backend = options.backend;
  if (backend == Backend::kAuto)
    backend = cuda_status().devices > 0 ? Backend::kCuda : Backend::kCpu;
  if (backend == Backend::kCuda) {
    impl_ = make_cuda_backend<T>(model_, batch_, options);
  } else {
    impl_ = make_cpu_backend<T>(model_, batch_,
                                options.threads > 0 ? options.threads : omp_get_max_threads());
  }
}

template <class T>
Simulator<T>::~Simulator() = default;

template <class T>
std::string Simulator<T>::backend() const {
  return impl_->describe();
}

template <class T>
void Simulator<T>::forward() {
  impl_->forward(batch_);
}

template <class T>
void Simulator<T>::step(int steps) {
  if (steps < 0)
    throw std::invalid_argument(fmt::format("step count must be non-negative (got {})", steps));
  impl_->step(batch_, steps);
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
  const std::span<const int> status = batch_.status();
  for (std::int64_t i = 0; i < batch_.size(); ++i) {
    if (status[i]) out.push_back({i, status[i]});
  }
  return out;
}

template class Simulator<float>;
template class Simulator<double>;

}  // namespace zwang
