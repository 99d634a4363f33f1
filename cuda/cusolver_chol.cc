#include "cuda/cusolver_chol.hpp"

#include <algorithm>
#include <vector>

#include "cuda/check.hpp"
#include "cuda/plan.hpp"

namespace zwang::gpu {
namespace {

// the library entry points by scalar type.  geam computes C = α op(A) + β op(B); here α = 1,
// β = 0 and B = C with transb = N and ldb = ldc, the in-place form cuBLAS allows, so C = Aᵀ.
// With β = 0 cuBLAS does not read B ("B does not have to be a valid input"): what the output
// buffer held before, NaN included, never reaches the result.
cublasStatus_t geam(cublasHandle_t h, int m, int n, const float* a, int lda, float* c, int ldc) {
  const float one = 1, zero = 0;
  return cublasSgeam(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, &one, a, lda, &zero, c, ldc, c, ldc);
}
cublasStatus_t geam(cublasHandle_t h, int m, int n, const double* a, int lda, double* c, int ldc) {
  const double one = 1, zero = 0;
  return cublasDgeam(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, &one, a, lda, &zero, c, ldc, c, ldc);
}
cusolverStatus_t potrf(cusolverDnHandle_t h, int n, float** a, int* info, int batch) {
  return cusolverDnSpotrfBatched(h, CUBLAS_FILL_MODE_LOWER, n, a, n, info, batch);
}
cusolverStatus_t potrf(cusolverDnHandle_t h, int n, double** a, int* info, int batch) {
  return cusolverDnDpotrfBatched(h, CUBLAS_FILL_MODE_LOWER, n, a, n, info, batch);
}
cusolverStatus_t potrs(cusolverDnHandle_t h, int n, float** a, float** b, int* info, int batch) {
  return cusolverDnSpotrsBatched(h, CUBLAS_FILL_MODE_LOWER, n, 1, a, n, b, n, info, batch);
}
cusolverStatus_t potrs(cusolverDnHandle_t h, int n, double** a, double** b, int* info, int batch) {
  return cusolverDnDpotrsBatched(h, CUBLAS_FILL_MODE_LOWER, n, 1, a, n, b, n, info, batch);
}

}  // namespace

template <class T>
CusolverCholesky<T>::CusolverCholesky(int nv, std::int64_t padded_n, cudaStream_t stream,
                                      std::size_t budget_bytes)
    : nv_(nv), chunk_(cusolver_chunk(nv, sizeof(T), padded_n, budget_bytes)), stream_(stream) {
  const std::size_t c = static_cast<std::size_t>(chunk_), v = static_cast<std::size_t>(nv);
  dense_ = DeviceBuffer<T>(v * v * c);
  strided_ = DeviceBuffer<T>(v * v * c);
  rhs_ = DeviceBuffer<T>(v * c);
  rhs_strided_ = DeviceBuffer<T>(v * c);
  info_ = DeviceBuffer<int>(c);
  solve_info_ = DeviceBuffer<int>(1);
  matrices_ = DeviceBuffer<T*>(c);
  vectors_ = DeviceBuffer<T*>(c);
  // the transposes read only what the pack kernel wrote, and geam with β = 0 does not read B
  // (here C itself); zeroed all the same, so that no implementation of geam that touches B can
  // read memory never written (compute-sanitizer's initcheck checks it)
  for (DeviceBuffer<T>* buffer : {&dense_, &strided_, &rhs_, &rhs_strided_}) {
    ZW_CUDA_CHECK(cudaMemsetAsync(buffer->get(), 0, buffer->size() * sizeof(T), stream_));
  }
  std::vector<T*> matrices(c), vectors(c);
  for (std::size_t k = 0; k < c; ++k) {
    matrices[k] = strided_.get() + k * v * v;
    vectors[k] = rhs_strided_.get() + k * v;
  }
  ZW_CUDA_CHECK(cudaMemcpyAsync(matrices_.get(), matrices.data(), c * sizeof(T*),
                                cudaMemcpyHostToDevice, stream_));
  ZW_CUDA_CHECK(cudaMemcpyAsync(vectors_.get(), vectors.data(), c * sizeof(T*),
                                cudaMemcpyHostToDevice, stream_));
  ZW_CUDA_CHECK(cudaStreamSynchronize(stream_));
  ZW_CUDA_CHECK(cusolverDnCreate(&solver_));
  ZW_CUDA_CHECK(cusolverDnSetStream(solver_, stream_));
  ZW_CUDA_CHECK(cublasCreate(&blas_));
  ZW_CUDA_CHECK(cublasSetStream(blas_, stream_));
}

template <class T>
CusolverCholesky<T>::~CusolverCholesky() {
  if (blas_) cublasDestroy(blas_);
  if (solver_) cusolverDnDestroy(solver_);
}

// C = Aᵀ: geam with β = 0 writes every element of C without reading it
template <class T>
void CusolverCholesky<T>::transpose(const T* from, T* to, int rows, int cols) {
  ZW_CUDA_CHECK(geam(blas_, cols, rows, from, rows, to, cols));
}

template <class T>
void CusolverCholesky<T>::solve(const DeviceRun<T>& run, T damping_dt) {
  // the real instances only: padding instances would be packed as I and factored for nothing
  const int nn = nv_ * nv_;
  for (std::int64_t begin = 0; begin < run.n; begin += chunk_) {
    const int count = static_cast<int>(std::min(chunk_, run.n - begin));
    const DenseChunk<T> c{begin, count, dense_.get(), rhs_.get(), strided_.get(), info_.get()};
    launch_pack(run, c, damping_dt);
    transpose(dense_.get(), strided_.get(), count, nn);
    transpose(rhs_.get(), rhs_strided_.get(), count, nv_);
    ZW_CUDA_CHECK(potrf(solver_, nv_, matrices_.get(), info_.get(), count));
    ZW_CUDA_CHECK(potrs(solver_, nv_, matrices_.get(), vectors_.get(), solve_info_.get(), count));
    transpose(rhs_strided_.get(), rhs_.get(), nv_, count);
    launch_unpack(run, c);
  }
}

template class CusolverCholesky<float>;
template class CusolverCholesky<double>;

}  // namespace zwang::gpu
