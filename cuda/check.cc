#include "cuda/check.hpp"

#include <fmt/format.h>

namespace zwang::gpu {

std::string error_text(cudaError_t status) {
  return fmt::format("{}: {}", cudaGetErrorName(status), cudaGetErrorString(status));
}

std::string error_text(cusolverStatus_t status) {
  switch (status) {
    case CUSOLVER_STATUS_NOT_INITIALIZED:
      return "CUSOLVER_STATUS_NOT_INITIALIZED: the library was not initialised";
    case CUSOLVER_STATUS_ALLOC_FAILED:
      return "CUSOLVER_STATUS_ALLOC_FAILED: device memory allocation failed";
    case CUSOLVER_STATUS_INVALID_VALUE:
      return "CUSOLVER_STATUS_INVALID_VALUE: an argument is out of range";
    case CUSOLVER_STATUS_ARCH_MISMATCH:
      return "CUSOLVER_STATUS_ARCH_MISMATCH: the device lacks a required feature";
    case CUSOLVER_STATUS_EXECUTION_FAILED:
      return "CUSOLVER_STATUS_EXECUTION_FAILED: a kernel failed to launch or run";
    case CUSOLVER_STATUS_INTERNAL_ERROR:
      return "CUSOLVER_STATUS_INTERNAL_ERROR: an internal operation failed";
    case CUSOLVER_STATUS_NOT_SUPPORTED:
      return "CUSOLVER_STATUS_NOT_SUPPORTED: the operation is not supported";
    default:
      return fmt::format("cusolverStatus_t {}", static_cast<int>(status));
  }
}

std::string error_text(cublasStatus_t status) {
  return fmt::format("{}: {}", cublasGetStatusName(status), cublasGetStatusString(status));
}

void throw_error(const std::string& text, const char* call, const char* file, int line) {
  throw CudaError(fmt::format("{} failed at {}:{}: {}", call, file, line, text), text);
}

}  // namespace zwang::gpu
