// A backend runs the kernels/ pipeline over every instance of a batch.  The CPU backend works
// on the host Batch itself; the CUDA backend holds the state of record on the device and keeps
// the host Batch as a mirror through a BatchSync hook (host/batch/residency.hpp).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "zwang/batch.hpp"
#include "zwang/model.hpp"
#include "zwang/simulator.hpp"

namespace zwang {

// Simulator::reset() on the host batch: instances to the default state, then, where given
// (nq, nv and nu values), to qpos, qvel and ctrl
template <class T>
void reset_on_host(const Model& model, Batch<T>& batch, std::span<const std::int64_t> instances,
                   const T* qpos, const T* qvel, const T* ctrl);

template <class T>
class BackendImpl {
 public:
  virtual ~BackendImpl() = default;
  // H, h, generalized forces and q̈ of every instance
  virtual void forward(Batch<T>& batch) = 0;
  // `steps` steps of every instance whose status is clear
  virtual void step(Batch<T>& batch, int steps) = 0;
  // e.g. "cpu (2 threads)" or "cuda (NVIDIA H100, sm_90)"
  virtual std::string describe() const = 0;

  // what Simulator::reset() does; the instances are checked
  virtual void reset(const Model& model, Batch<T>& batch, std::span<const std::int64_t> instances,
                     const T* qpos, const T* qvel, const T* ctrl) {
    reset_on_host(model, batch, instances, qpos, qvel, ctrl);
  }

  // the device copy (Simulator's device-resident API); a backend without one has no fields,
  // no stream and nothing to synchronise
  virtual std::vector<DeviceField> device_fields() { return {}; }
  virtual void* stream() const { return nullptr; }
  virtual void synchronize() {}
  virtual void upload_host_edits() {}
  virtual void mark_device_written(FieldId) {}
  virtual void invalidate_host() {}
};

// the SIMD backend where `simd` asks for it (kAuto: the widest this CPU has) and zwang was
// built for x86, else the scalar one; throws std::invalid_argument when `simd` names an
// instruction set this CPU lacks
template <class T>
std::unique_ptr<BackendImpl<T>> make_cpu_backend(const Model& model, const Batch<T>& batch,
                                                 int threads, CpuSimd simd);

// throws std::runtime_error naming the reason when no CUDA device can be used; installs the
// batch's sync hook, which it removes when destroyed (the batch must outlive it)
template <class T>
std::unique_ptr<BackendImpl<T>> make_cuda_backend(const Model& model, Batch<T>& batch,
                                                  const SimulatorOptions& options);

}  // namespace zwang
