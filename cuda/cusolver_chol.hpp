// The cuSOLVER path of the factorisation, for large nv: per chunk of instances,
//   pack:   H + h_d diag(damping) and the right-hand side, interleaved  (cuda/dense.h)
//   cuBLAS geam:  interleaved → strided batch (one transpose, coalesced both ways)
//   cuSOLVER potrfBatched, potrsBatched (lower, one right-hand side)
//   cuBLAS geam:  solution back to interleaved
//   unpack: info and pivots checked, q̈ written                          (cuda/dense.h)
// Chunks bound the workspace (a budget in bytes); everything is enqueued on one stream and
// nothing synchronises, so the sequence can be captured into a CUDA Graph.
#pragma once

#include <cublas_v2.h>
#include <cusolverDn.h>

#include <cstddef>
#include <cstdint>

#include "cuda/device_memory.hpp"
#include "cuda/launch.hpp"

namespace zwang::gpu {

// device memory the CUDA backend gives one chunk of the cuSOLVER path
constexpr std::size_t kCusolverBudget = std::size_t{256} << 20;

template <class T>
class CusolverCholesky {
 public:
  CusolverCholesky(int nv, std::int64_t padded_n, cudaStream_t stream, std::size_t budget_bytes);
  ~CusolverCholesky();
  CusolverCholesky(const CusolverCholesky&) = delete;
  CusolverCholesky& operator=(const CusolverCholesky&) = delete;

  // q̈ for every instance in kPhaseSolve; a failed factorisation gives kPhaseFailed
  void solve(const DeviceRun<T>& run, T damping_dt);

  std::int64_t chunk() const { return chunk_; }

 private:
  // to (cols x rows, ld cols) = fromᵀ, from being rows x cols with leading dimension rows
  void transpose(const T* from, T* to, int rows, int cols);

  int nv_;
  std::int64_t chunk_;
  cudaStream_t stream_;
  cusolverDnHandle_t solver_ = nullptr;
  cublasHandle_t blas_ = nullptr;
  DeviceBuffer<T> dense_;         // interleaved H (nv² x chunk)
  DeviceBuffer<T> strided_;       // strided H, then L (chunk x nv²)
  DeviceBuffer<T> rhs_;           // interleaved right-hand side and solution (nv x chunk)
  DeviceBuffer<T> rhs_strided_;   // strided right-hand side and solution (chunk x nv)
  DeviceBuffer<int> info_;        // potrf info per matrix (chunk)
  DeviceBuffer<int> solve_info_;  // potrs info (1)
  DeviceBuffer<T*> matrices_;     // strided_ + k nv²
  DeviceBuffer<T*> vectors_;      // rhs_strided_ + k nv
};

extern template class CusolverCholesky<float>;
extern template class CusolverCholesky<double>;

}  // namespace zwang::gpu
