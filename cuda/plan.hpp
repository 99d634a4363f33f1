// Host-side decisions of the CUDA backend that need no device, so that the CPU tests run
// them (launch chunking is declared in cuda/launch.hpp): the Cholesky path, the cuSOLVER chunk
// size, and whether a device is covered by the compiled architectures.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "zwang/simulator.hpp"

namespace zwang::gpu {

// std::invalid_argument for options the CUDA backend cannot honour (a lane group with the
// cuSOLVER path or staged kernels among them)
void check_cuda_options(const SimulatorOptions& options);

// kInKernel or kCusolver: kAuto sends nv >= cusolver_min_nv to cuSOLVER, but for lane groups
// (group > 1) and the implicitfast and implicit integrators (`implicit_fast`), which factor in the
// kernel; std::invalid_argument for kCusolver with them, whose matrix H − h D
// (kernels/implicit.h) the dense cuSOLVER path does not form
CholeskyPath choose_cholesky(CholeskyPath requested, int nv, int cusolver_min_nv, int group = 1,
                             bool implicit_fast = false);

// lanes per instance, 1, 16 or 32: the requested CudaGroup with kAuto resolved
int choose_group(CudaGroup requested);

// values per instance in the cuSOLVER workspace of one chunk: the interleaved and the strided
// copies of H (2 nv²) and of the right-hand side (2 nv)
std::size_t cusolver_values_per_instance(int nv);

// instances per cuSOLVER chunk: the workspace (values per instance × scalar bytes + an int
// info) stays within budget_bytes; a multiple of 32 and at least 32, or padded_n where that is
// smaller
std::int64_t cusolver_chunk(int nv, std::size_t scalar_bytes, std::int64_t padded_n,
                            std::size_t budget_bytes);

// Whether code built for `architectures` (CMake's CUDA_ARCHITECTURES list: "90", "80-real",
// "90-virtual", "90a"; ";" or "," separated) runs on a device of compute capability
// major.minor.  Real code (SASS) for X.Y runs on X.Z with Z ≥ Y; virtual code (PTX) for X.Y
// is compiled by the driver for any later device; "a" and "f" suffixes run on X.Y only;
// "all", "all-major" and "native" cover every device.
bool architectures_cover(std::string_view architectures, int major, int minor);

// the reason printed when CUDA cannot be used, e.g. "no CUDA device: cudaErrorNoDevice: ..."
std::string no_device_reason(std::string_view detail);

}  // namespace zwang::gpu
