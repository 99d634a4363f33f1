// Simulator: owns the model and the host batch, and hands the work to a backend.
#include "zwang/simulator.hpp"

#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "host/backend.hpp"
#include "host/batch/hard_conflict.hpp"
#include "kernels/status.h"

namespace zwang {
namespace {

// instances of one failures() call whose contradicting hard constraints are named
constexpr int kNamedConflicts = 64;

}  // namespace

std::string describe_status(int status) {
  std::string out;
  auto add = [&](const char* what) {
    if (!out.empty()) out += "; ";
    out += what;
  };
  if (status & kStatusBadState) add("bad state: qpos, qvel, ctrl, act or time is not finite");
  if (status & kStatusFactorization) {
    add("factorisation: H is not positive definite (check masses and inertias)");
  }
  if (status & kStatusDiverged) add("diverged: the computation produced a non-finite value");
  if (status & kStatusBadParameters) {
    add("bad parameters: a non-finite parameter, a negative mass, damping, armature or "
        "stiffness, a mass or inertia that is not positive where the model's is, an inertia "
        "that is not a rigid body's (principal moments A + B >= C), or an actuator's activation "
        "time constant (dynprm) that is negative, or zero where the model's is positive");
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
  if (status & kStatusHardConflict) {
    add("hard constraints contradict one another: a dependent row that the others leave "
        "violated (two equalities or drives that ask for different motions of the same "
        "coordinates); the step was undone");
  }
  if (out.empty()) out = "ok";
  return out;
}

std::string InstanceFailure::message() const {
  return detail.empty()
             ? fmt::format("instance {}: {}", instance, describe_status(status))
             : fmt::format("instance {}: {} ({})", instance, describe_status(status), detail);
}

template <class T>
Simulator<T>::Simulator(const Model& model, std::int64_t n, SimulatorOptions options)
    : model_(model), batch_(model_, n, options.outputs) {
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
                                options.threads > 0 ? options.threads : omp_get_max_threads(),
                                options.cpu_simd);
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
void reset_on_host(const Model& model, Batch<T>& batch, std::span<const std::int64_t> instances,
                   const T* qpos, const T* qvel, const T* ctrl) {
  for (std::int64_t i : instances) {
    batch.reset_state(i, model);
    if (qpos) batch.qpos().set(i, {qpos, static_cast<std::size_t>(model.nq)});
    if (qvel) batch.qvel().set(i, {qvel, static_cast<std::size_t>(model.nv)});
    if (ctrl) batch.ctrl().set(i, {ctrl, static_cast<std::size_t>(model.nu)});
  }
}

template <class T>
void Simulator<T>::reset(std::span<const std::int64_t> instances) {
  for (std::int64_t i : instances) {
    if (i < 0 || i >= batch_.size()) {
      throw std::out_of_range(fmt::format("instance {} is not in [0, {})", i, batch_.size()));
    }
  }
  impl_->reset(model_, batch_, instances, nullptr, nullptr, nullptr);
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
  check("act", state.act.size(), model_.na, true);
  for (std::int64_t i : instances) {
    if (i < 0 || i >= batch_.size()) {
      throw std::out_of_range(fmt::format("instance {} is not in [0, {})", i, batch_.size()));
    }
  }
  std::vector<T> qpos(state.qpos.begin(), state.qpos.end()),
      qvel(state.qvel.begin(), state.qvel.end());
  std::vector<T> ctrl(model_.nu, T(0));
  std::copy(state.ctrl.begin(), state.ctrl.end(), ctrl.begin());
  impl_->reset(model_, batch_, instances, qpos.data(), qvel.data(), ctrl.data());
  // activations through the batch (a device copy gets them before its next call)
  if (state.act.empty() || instances.empty()) return;
  const FieldRef<T> act = batch_.act();
  for (std::int64_t i : instances) {
    for (int j = 0; j < model_.na; ++j) act(i, j) = static_cast<T>(state.act[j]);
  }
}

template <class T>
void Simulator<T>::reset_keyframe(std::span<const std::int64_t> instances, int key) {
  if (key < 0 || key >= model_.nkey) {
    throw std::out_of_range(fmt::format("keyframe {} is not in [0, {})", key, model_.nkey));
  }
  const auto slice = [&](const std::vector<double>& v, int width) {
    const auto first = v.begin() + static_cast<std::ptrdiff_t>(key) * width;
    return std::vector<double>(first, first + width);
  };
  reset(instances, State{slice(model_.key_qpos, model_.nq), slice(model_.key_qvel, model_.nv),
                         slice(model_.key_ctrl, model_.nu), slice(model_.key_act, model_.na)});
  if (instances.empty()) return;
  // time and the mocap poses through the batch (a device copy gets them before its next call)
  const std::span<double> time = batch_.time();
  for (std::int64_t i : instances) time[i] = model_.key_time[key];
  if (model_.nmocap == 0) return;
  const std::vector<double> mpos = slice(model_.key_mpos, 3 * model_.nmocap),
                            mquat = slice(model_.key_mquat, 4 * model_.nmocap);
  const FieldRef<T> pos = batch_.mocap_pos(), quat = batch_.mocap_quat();
  for (std::int64_t i : instances) {
    for (int j = 0; j < 3 * model_.nmocap; ++j) pos(i, j) = static_cast<T>(mpos[j]);
    for (int j = 0; j < 4 * model_.nmocap; ++j) quat(i, j) = static_cast<T>(mquat[j]);
  }
}

template <class T>
void Simulator<T>::reset_keyframe(std::span<const std::int64_t> instances, std::string_view name) {
  const int key = model_.id(ObjType::kKey, name);
  if (key < 0) {
    throw std::invalid_argument(
        fmt::format("no keyframe is named '{}' ({} keyframe{} in the model)", name, model_.nkey,
                    model_.nkey == 1 ? "" : "s"));
  }
  reset_keyframe(instances, key);
}

template <class T>
std::vector<DeviceField> Simulator<T>::device_fields() {
  return impl_->device_fields();
}

template <class T>
DeviceField Simulator<T>::device_field(FieldId f) {
  const std::vector<DeviceField> all = impl_->device_fields();
  if (all.empty()) {
    throw std::logic_error(fmt::format("the {} backend has no device copy", backend()));
  }
  batch_.require_kept(f);
  return all[static_cast<std::size_t>(f)];
}

template <class T>
void* Simulator<T>::cuda_stream() const {
  return impl_->stream();
}

template <class T>
void Simulator<T>::synchronize() {
  impl_->synchronize();
}

template <class T>
void Simulator<T>::upload_host_edits() {
  impl_->upload_host_edits();
}

template <class T>
void Simulator<T>::mark_device_written(FieldId f) {
  impl_->mark_device_written(f);
}

template <class T>
void Simulator<T>::invalidate_host() {
  impl_->invalidate_host();
}

template <class T>
std::vector<InstanceFailure> Simulator<T>::failures() const {
  std::vector<InstanceFailure> out;
  const std::span<const int> status = batch_.status();
  int named = 0;
  for (std::int64_t i = 0; i < batch_.size(); ++i) {
    if (!status[i]) continue;
    out.push_back({i, status[i]});
    // the contradicting constraints, from a solve of the instance again (a forward() each, so
    // for the first kNamedConflicts instances only)
    if ((status[i] & kStatusHardConflict) && named < kNamedConflicts) {
      ++named;
      out.back().detail = hard_conflict(model_, batch_, i);
      if (out.back().detail.empty()) {
        out.back().detail =
            "not reproduced by a float64 solve at the instance's state and time: a float32 "
            "rounding, an RK4 stage or Euler's damped solve";
      }
    }
  }
  return out;
}

template void reset_on_host(const Model&, Batch<float>&, std::span<const std::int64_t>,
                            const float*, const float*, const float*);
template void reset_on_host(const Model&, Batch<double>&, std::span<const std::int64_t>,
                            const double*, const double*, const double*);
template class Simulator<float>;
template class Simulator<double>;

}  // namespace zwang
