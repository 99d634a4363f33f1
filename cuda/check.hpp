// Every CUDA runtime, cuSOLVER and cuBLAS call on the host goes through ZW_CUDA_CHECK: a
// failure becomes a zwang::gpu::CudaError naming the call, where it was made and the
// library's message.  The only calls outside it release resources (destructors, the
// clean-up of a failed graph capture), where an error cannot be reported and is ignored.
// Device code never throws: kernels set status bits instead.
#pragma once

#include <cublas_api.h>
#include <cuda_runtime_api.h>
#include <cusolver_common.h>

#include <stdexcept>
#include <string>
#include <utility>

namespace zwang::gpu {

class CudaError : public std::runtime_error {
 public:
  CudaError(const std::string& what, std::string text)
      : std::runtime_error(what), text_(std::move(text)) {}
  // the library's words without the call and place, e.g.
  // "cudaErrorNoDevice: no CUDA-capable device is detected"
  const std::string& text() const { return text_; }

 private:
  std::string text_;
};

// "cudaErrorNoDevice: no CUDA-capable device is detected", and the same for the libraries
std::string error_text(cudaError_t status);
std::string error_text(cusolverStatus_t status);
std::string error_text(cublasStatus_t status);

[[noreturn]] void throw_error(const std::string& text, const char* call, const char* file,
                              int line);

inline bool failed(cudaError_t status) {
  return status != cudaSuccess;
}
inline bool failed(cusolverStatus_t status) {
  return status != CUSOLVER_STATUS_SUCCESS;
}
inline bool failed(cublasStatus_t status) {
  return status != CUBLAS_STATUS_SUCCESS;
}

template <class Status>
void check(Status status, const char* call, const char* file, int line) {
  if (failed(status)) throw_error(error_text(status), call, file, line);
}

}  // namespace zwang::gpu

#define ZW_CUDA_CHECK(call) ::zwang::gpu::check((call), #call, __FILE__, __LINE__)
