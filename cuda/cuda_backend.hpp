// The CUDA backend: the kernels/ pipeline with one GPU thread per instance.
//
// The host Batch stays the state of record.  Each forward() or step() call
//   1. uploads what the user may have changed: every row of the data arena (state, ctrl,
//      xfrc_applied, outputs), of the parameter arena, time and status whose bytes differ
//      from what the device holds (a pinned mirror of the device copy, compared row by
//      row: unchanged parameters cost a host memcmp and no transfer);
//   2. runs on the backend's own stream (fused kernels, one kernel per stage, or the
//      cuSOLVER path; step(n) replays a CUDA Graph captured for n);
//   3. downloads the rows the call may have written (state for step(), outputs, time,
//      status) into the mirror and copies them into the Batch.
// The utilities below (Thrust) follow the same rule: they first upload what changed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "backend.hpp"
#include "cuda/energy.h"

namespace zwang::gpu {

// bytes moved by the last call, by arena
struct Transfers {
  std::size_t data_up = 0;
  std::size_t param_up = 0;
  std::size_t time_status_up = 0;
  std::size_t down = 0;
};

template <class T>
class CudaBackend final : public BackendImpl<T> {
 public:
  // std::runtime_error with cuda_status()'s reason when no device can be used,
  // std::invalid_argument for bad options
  CudaBackend(const Model& model, const Batch<T>& batch, const SimulatorOptions& options);
  ~CudaBackend() override;

  void forward(Batch<T>& batch) override;
  void step(Batch<T>& batch, int steps) override;
  std::string describe() const override;

  // the factorisation chosen for this model (kInKernel or kCusolver)
  CholeskyPath cholesky() const;
  // graphs captured so far (one per distinct step count replayed)
  int graphs() const;
  Transfers last_transfers() const;

  // the three parts of a call, for benchmarks and device-resident loops: upload what changed,
  // run steps without touching the host, download and copy into the batch.  upload() and
  // download() throw std::invalid_argument for a batch of another size or layout than the one
  // the backend was made for; upload() may follow upload() without a synchronisation (each
  // waits for the previous one's copies out of the pinned mirror, cuda/mirror.hpp)
  void upload(Batch<T>& batch);
  void run_steps(int steps);
  void download(Batch<T>& batch);
  // waits for everything enqueued on the backend's stream
  void synchronize();

  // instances back to the model's default state on the device and in the batch alike,
  // without moving whole rows over the bus
  void reset(Batch<T>& batch, std::span<const std::int64_t> instances);
  // kinetic and potential energy of every instance (cuda/energy.h), as of the last forward()
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
