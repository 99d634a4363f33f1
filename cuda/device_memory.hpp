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

// a non-blocking stream: it does not synchronise with the legacy default stream, so that the
// streams of several simulators overlap
class Stream {
 public:
  Stream() { ZW_CUDA_CHECK(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
  ~Stream() {
    if (s_) cudaStreamDestroy(s_);
  }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return s_; }
  void synchronize() const { ZW_CUDA_CHECK(cudaStreamSynchronize(s_)); }

 private:
  cudaStream_t s_ = nullptr;
};

// an event without timing, for waiting on one point of a stream from the host
class Event {
 public:
  Event() { ZW_CUDA_CHECK(cudaEventCreateWithFlags(&e_, cudaEventDisableTiming)); }
  ~Event() {
    if (e_) cudaEventDestroy(e_);
  }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  void record(cudaStream_t stream) const { ZW_CUDA_CHECK(cudaEventRecord(e_, stream)); }
  // waits for the work enqueued before the last record(); returns at once if never recorded
  void synchronize() const { ZW_CUDA_CHECK(cudaEventSynchronize(e_)); }

 private:
  cudaEvent_t e_ = nullptr;
};

// an instantiated graph, ready to launch
class GraphExec {
 public:
  GraphExec() = default;
  explicit GraphExec(cudaGraphExec_t exec) : exec_(exec) {}
  ~GraphExec() {
    if (exec_) cudaGraphExecDestroy(exec_);
  }
  GraphExec(GraphExec&& o) noexcept : exec_(std::exchange(o.exec_, nullptr)) {}
  GraphExec& operator=(GraphExec&& o) noexcept {
    std::swap(exec_, o.exec_);
    return *this;
  }
  GraphExec(const GraphExec&) = delete;
  GraphExec& operator=(const GraphExec&) = delete;
  explicit operator bool() const { return exec_ != nullptr; }
  void launch(cudaStream_t stream) const { ZW_CUDA_CHECK(cudaGraphLaunch(exec_, stream)); }

 private:
  cudaGraphExec_t exec_ = nullptr;
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
