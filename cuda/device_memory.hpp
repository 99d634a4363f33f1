// RAII owners for device memory, streams, events, CUDA Graphs and the current device.  Destructors
// cannot throw: a failed release there is ignored (the process is usually tearing down a context
// that is already in error).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <utility>

#include "cuda/check.hpp"

namespace zwang::gpu {

// `count` values of E in device memory, uninitialised
template <class E>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t count) : n_(count) {
    if (count > 0) ZW_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&p_), bytes()));
  }
  ~DeviceBuffer() {
    if (p_) cudaFree(p_);
  }
  DeviceBuffer(DeviceBuffer&& o) noexcept
      : p_(std::exchange(o.p_, nullptr)), n_(std::exchange(o.n_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    std::swap(p_, o.p_);
    std::swap(n_, o.n_);
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  E* get() const { return p_; }
  std::size_t size() const { return n_; }
  std::size_t bytes() const { return n_ * sizeof(E); }

 private:
  E* p_ = nullptr;
  std::size_t n_ = 0;
};

// owns a CUDA handle (a pointer), released by Destroy; move-only
template <class H, cudaError_t (*Destroy)(H)>
class Owned {
 public:
  Owned() = default;
  explicit Owned(H h) : h_(h) {}
  ~Owned() {
    if (h_) Destroy(h_);
  }
  Owned(Owned&& o) noexcept : h_(std::exchange(o.h_, nullptr)) {}
  Owned& operator=(Owned&& o) noexcept {
    std::swap(h_, o.h_);
    return *this;
  }
  Owned(const Owned&) = delete;
  Owned& operator=(const Owned&) = delete;
  H get() const { return h_; }
  explicit operator bool() const { return h_ != nullptr; }

 protected:
  H h_ = nullptr;
};

// a non-blocking stream: it does not synchronise with the legacy default stream, so that the
// streams of several simulators overlap
class Stream : public Owned<cudaStream_t, cudaStreamDestroy> {
 public:
  Stream() { ZW_CUDA_CHECK(cudaStreamCreateWithFlags(&h_, cudaStreamNonBlocking)); }
  // a moved-from stream would synchronise with the legacy default stream
  Stream(Stream&&) = delete;
  Stream& operator=(Stream&&) = delete;
  void synchronize() const { ZW_CUDA_CHECK(cudaStreamSynchronize(h_)); }
};

// an event without timing, for waiting on one point of a stream from the host
class Event : public Owned<cudaEvent_t, cudaEventDestroy> {
 public:
  Event() { ZW_CUDA_CHECK(cudaEventCreateWithFlags(&h_, cudaEventDisableTiming)); }
  Event(Event&&) = delete;
  Event& operator=(Event&&) = delete;
  void record(cudaStream_t stream) const { ZW_CUDA_CHECK(cudaEventRecord(h_, stream)); }
  // waits for the work enqueued before the last record(); returns at once if never recorded
  void synchronize() const { ZW_CUDA_CHECK(cudaEventSynchronize(h_)); }
};

// an instantiated graph, ready to launch
class GraphExec : public Owned<cudaGraphExec_t, cudaGraphExecDestroy> {
 public:
  using Owned::Owned;
  void launch(cudaStream_t stream) const { ZW_CUDA_CHECK(cudaGraphLaunch(h_, stream)); }
};

// makes `device` current for the lifetime of the guard, then restores the previous one
class DeviceGuard {
 public:
  explicit DeviceGuard(int device) {
    ZW_CUDA_CHECK(cudaGetDevice(&previous_));
    if (previous_ != device) ZW_CUDA_CHECK(cudaSetDevice(device));
  }
  ~DeviceGuard() { cudaSetDevice(previous_); }
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int previous_ = 0;
};

}  // namespace zwang::gpu
