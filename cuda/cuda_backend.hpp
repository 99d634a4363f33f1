// The CUDA backend: the kernels/ pipeline with one GPU thread per instance.
//
// The device arenas are the state of record (docs/backends.md, "Device-resident state").  The
// constructor copies the whole batch to the device and installs a BatchSync hook on it
// (host/batch/residency.hpp), so that the host Batch becomes a mirror kept field by field:
//   - forward(), step(), reset() and the utilities first upload the fields the host changed
//     (tracked by the batch's non-const accessors), then enqueue their work on the backend's
//     stream and return; they mark the fields they write as stale on the host, and move
//     nothing else;
//   - a host read of a stale field (batch.qpos(), batch.status(), ...) waits for the stream
//     and downloads that field alone.
// step(n) replays a CUDA Graph captured for n; fused kernels, one kernel per stage, or the
// cuSOLVER path.  The batch must outlive the backend; the destructor removes the hook and
// leaves the host copy as last synchronised.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "host/backend.hpp"
#include "kernels/energy.h"

namespace zwang::gpu {

// bytes moved since the start of the last device call (its uploads, and the downloads of the
// host reads after it), by arena and by field (indexed by FieldId)
struct Transfers {
  std::size_t data_up = 0;
  std::size_t param_up = 0;
  std::size_t time_status_up = 0;
  std::size_t down = 0;
  std::array<std::size_t, kFieldCount> field_up{};
  std::array<std::size_t, kFieldCount> field_down{};
};

template <class T>
class CudaBackend final : public BackendImpl<T> {
 public:
  // std::runtime_error with cuda_status()'s reason when no device can be used,
  // std::invalid_argument for bad options.  Copies `batch` to the device and installs its
  // sync hook; every call below takes that batch and refuses another (std::invalid_argument).
  CudaBackend(const Model& model, Batch<T>& batch, const SimulatorOptions& options);
  ~CudaBackend() override;

  void forward(Batch<T>& batch) override;
  void step(Batch<T>& batch, int steps) override;
  std::string describe() const override;
  // on the device: the default state (and the given one) written by a kernel for the listed
  // instances, without whole rows over the bus
  void reset(const Model& model, Batch<T>& batch, std::span<const std::int64_t> instances,
             const T* qpos, const T* qvel, const T* ctrl) override;

  // the device-resident API (zwang::Simulator's)
  std::vector<DeviceField> device_fields() override;
  void* stream() const override;
  void synchronize() override;
  void upload_host_edits() override;
  void mark_device_written(FieldId f) override;
  void invalidate_host() override;
  // whether the host copy of f is current, and whether it was changed since the last upload
  bool host_current(FieldId f) const;
  bool host_dirty(FieldId f) const;

  // the factorisation chosen for this model (kInKernel or kCusolver)
  CholeskyPath cholesky() const;
  // graphs captured so far (one per distinct step count replayed)
  int graphs() const;
  Transfers last_transfers() const;

  // the three parts of a step, for benchmarks: upload the fields the host changed, run steps
  // without touching the host, make every field of the host copy current.  upload() and
  // download() throw std::invalid_argument for another batch than the backend's
  void upload(Batch<T>& batch);
  void run_steps(int steps);
  void download(Batch<T>& batch);

  // instances back to the model's default state on the device
  void reset(Batch<T>& batch, std::span<const std::int64_t> instances);
  // kinetic and potential energy of every instance (kernels/energy.h), as of the last forward()
  std::vector<Energy<double>> energy(Batch<T>& batch);
  // instances with a non-finite qpos, qvel or qacc
  std::int64_t count_nonfinite(Batch<T>& batch);
  // instances whose status is not zero, in increasing order
  std::vector<std::int64_t> failed_instances(Batch<T>& batch);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

extern template class CudaBackend<float>;
extern template class CudaBackend<double>;

}  // namespace zwang::gpu
