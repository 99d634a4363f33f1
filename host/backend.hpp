// A backend runs the kernels/ pipeline over every instance of a batch.  The host Batch is the
// state of record: a backend reads it at the start of each call and leaves it up to date.
#pragma once

#include <memory>
#include <string>

#include "zwang/batch.hpp"
#include "zwang/model.hpp"
#include "zwang/simulator.hpp"

namespace zwang {

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
};

template <class T>
std::unique_ptr<BackendImpl<T>> make_cpu_backend(const Model& model, const Batch<T>& batch,
                                                 int threads);

// throws std::runtime_error naming the reason when no CUDA device can be used
template <class T>
std::unique_ptr<BackendImpl<T>> make_cuda_backend(const Model& model, const Batch<T>& batch,
                                                  const SimulatorOptions& options);

}  // namespace zwang
