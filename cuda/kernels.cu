// The __global__ wrappers: one thread per instance, each a few lines around a kernels/ stage
// or a phase of kernels/pipeline.h.  This translation unit is also the device compile check of
// kernels/ (every stage in float and double, warnings as errors) and the one whose
// `-Xptxas -v` output cuda_build_report.txt summarises.
#include <cuda_runtime.h>

#include "cuda/check.hpp"
#include "cuda/dense.h"
#include "cuda/launch.hpp"
#include "kernels/pipeline.h"

namespace zwang::gpu {
namespace {

// instance of this thread: 64-bit before the product, so that grids past 2³² threads work
__device__ __forceinline__ std::int64_t thread_instance(std::int64_t begin) {
  return begin + static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}

template <class T>
__global__ void step_fused_kernel(const __grid_constant__ ModelView<T> m, const DeviceArenas<T> b,
                                  std::int64_t begin, std::int64_t end, int steps) {
  const std::int64_t i = thread_instance(begin);
  if (i >= end) return;
  const Instance<T> d = b.instance(m, i);
  for (int s = 0; s < steps && (*d.status & kStatusStopping) == 0; ++s) step(m, d);
}

template <class T>
__global__ void forward_fused_kernel(const __grid_constant__ ModelView<T> m,
                                     const DeviceArenas<T> b, std::int64_t begin,
                                     std::int64_t end) {
  const std::int64_t i = thread_instance(begin);
  if (i >= end) return;
  forward(m, b.instance(m, i));
}

template <class T>
__global__ void forward_begin_kernel(const __grid_constant__ ModelView<T> m,
                                     const DeviceArenas<T> b, std::int64_t begin,
                                     std::int64_t end) {
  const std::int64_t i = thread_instance(begin);
  if (i >= end) return;
  b.phase[i] = forward_begin(m, b.instance(m, i));
}

template <class T>
__global__ void step_begin_kernel(const __grid_constant__ ModelView<T> m, const DeviceArenas<T> b,
                                  std::int64_t begin, std::int64_t end) {
  const std::int64_t i = thread_instance(begin);
  if (i >= end) return;
  b.phase[i] = step_begin(m, b.instance(m, i));
}

// the stages of smooth(), as types so that one wrapper serves them all
struct Smooth {
  template <class T>
  __device__ static void run(const ModelView<T>& m, const Instance<T>& d) {
    smooth(m, d);
  }
};
struct Kinematics {
  template <class T>
  __device__ static void run(const ModelView<T>& m, const Instance<T>& d) {
    forward_kinematics(m, d);
  }
};
struct Jacobians {
  template <class T>
  __device__ static void run(const ModelView<T>& m, const Instance<T>& d) {
    body_jacobians(m, d);
    tendons(m, d);
  }
};
struct BodyTerms {
  template <class T>
  __device__ static void run(const ModelView<T>& m, const Instance<T>& d) {
    body_terms(m, d);
  }
};
struct Assemble {
  template <class T>
  __device__ static void run(const ModelView<T>& m, const Instance<T>& d) {
    assemble(m, d);
  }
};
struct Forces {
  template <class T>
  __device__ static void run(const ModelView<T>& m, const Instance<T>& d) {
    generalized_forces(m, d);
  }
};

template <class T, class Stage>
__global__ void stage_kernel(const __grid_constant__ ModelView<T> m, const DeviceArenas<T> b,
                             std::int64_t begin, std::int64_t end) {
  const std::int64_t i = thread_instance(begin);
  if (i >= end || b.phase[i] != kPhaseSolve) return;
  Stage::run(m, b.instance(m, i));
}

template <class T>
__global__ void solve_kernel(const __grid_constant__ ModelView<T> m, const DeviceArenas<T> b,
                             std::int64_t begin, std::int64_t end, T damping_dt) {
  const std::int64_t i = thread_instance(begin);
  if (i >= end) return;
  b.phase[i] = solve_in_place(m, b.instance(m, i), damping_dt, b.phase[i]);
}

template <class T>
__global__ void forward_end_kernel(const __grid_constant__ ModelView<T> m, const DeviceArenas<T> b,
                                   std::int64_t begin, std::int64_t end) {
  const std::int64_t i = thread_instance(begin);
  if (i >= end) return;
  forward_end(m, b.instance(m, i), b.phase[i]);
  b.phase[i] = kPhaseIdle;
}

template <class T>
__global__ void step_end_kernel(const __grid_constant__ ModelView<T> m, const DeviceArenas<T> b,
                                std::int64_t begin, std::int64_t end, int stage) {
  const std::int64_t i = thread_instance(begin);
  if (i >= end) return;
  b.phase[i] = step_end(m, b.instance(m, i), stage, b.phase[i]);
}

template <class T>
__global__ void pack_kernel(const __grid_constant__ ModelView<T> m, const DeviceArenas<T> b,
                            std::int64_t begin, std::int64_t end, const DenseChunk<T> c,
                            T damping_dt) {
  const std::int64_t i = thread_instance(begin);
  if (i >= end) return;
  const std::int64_t k = i - c.begin;
  pack_dense(m, b.instance(m, i), b.phase[i], damping_dt, Row<T>{c.dense + k, c.count},
             Row<T>{c.rhs + k, c.count});
}

template <class T>
__global__ void unpack_kernel(const __grid_constant__ ModelView<T> m, const DeviceArenas<T> b,
                              std::int64_t begin, std::int64_t end, const DenseChunk<T> c) {
  const std::int64_t i = thread_instance(begin);
  if (i >= end) return;
  const std::int64_t k = i - c.begin;
  const std::int64_t nv = m.s.nv;
  b.phase[i] = unpack_solution(m, b.instance(m, i), b.phase[i], c.info[k], c.factor + k * nv * nv,
                               Row<T>{c.rhs + k, c.count});
}

// the block size with the highest occupancy for this kernel's registers
template <class Kernel>
int occupancy_block(Kernel kernel) {
  int min_grid = 0, block = 0;
  ZW_CUDA_CHECK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, kernel, 0, 0));
  return block;
}

// instances [begin, end) in as many launches as the grid limit needs
template <class T, class Kernel, class... Args>
void launch(Kernel kernel, KernelId id, const DeviceRun<T>& run, std::int64_t begin,
            std::int64_t end, Args... args) {
  const int block = spread_block(end - begin, run.config->block[id], run.config->sms);
  for (const LaunchRange& r : split_launches(end - begin, block, run.config->max_blocks)) {
    const auto grid = static_cast<unsigned>(blocks_for(r.count, block));
    kernel<<<grid, block, 0, run.stream>>>(run.m, run.b, begin + r.begin, begin + r.begin + r.count,
                                           args...);
    ZW_CUDA_CHECK(cudaGetLastError());
  }
}

}  // namespace

template <class T>
LaunchConfig launch_config() {
  LaunchConfig c{};
  c.block[kKernelStepFused] = occupancy_block(step_fused_kernel<T>);
  c.block[kKernelForwardFused] = occupancy_block(forward_fused_kernel<T>);
  c.block[kKernelForwardBegin] = occupancy_block(forward_begin_kernel<T>);
  c.block[kKernelStepBegin] = occupancy_block(step_begin_kernel<T>);
  c.block[kKernelSmooth] = occupancy_block(stage_kernel<T, Smooth>);
  c.block[kKernelKinematics] = occupancy_block(stage_kernel<T, Kinematics>);
  c.block[kKernelJacobians] = occupancy_block(stage_kernel<T, Jacobians>);
  c.block[kKernelBodyTerms] = occupancy_block(stage_kernel<T, BodyTerms>);
  c.block[kKernelAssemble] = occupancy_block(stage_kernel<T, Assemble>);
  c.block[kKernelForces] = occupancy_block(stage_kernel<T, Forces>);
  c.block[kKernelSolve] = occupancy_block(solve_kernel<T>);
  c.block[kKernelForwardEnd] = occupancy_block(forward_end_kernel<T>);
  c.block[kKernelStepEnd] = occupancy_block(step_end_kernel<T>);
  c.block[kKernelPack] = occupancy_block(pack_kernel<T>);
  c.block[kKernelUnpack] = occupancy_block(unpack_kernel<T>);
  int device = 0, max_grid = 0, sms = 0;
  ZW_CUDA_CHECK(cudaGetDevice(&device));
  ZW_CUDA_CHECK(cudaDeviceGetAttribute(&max_grid, cudaDevAttrMaxGridDimX, device));
  ZW_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  c.max_blocks = max_grid;
  c.sms = sms;
  return c;
}

template <class T>
void launch_step_fused(const DeviceRun<T>& run, int steps) {
  launch(step_fused_kernel<T>, kKernelStepFused, run, 0, run.n, steps);
}

template <class T>
void launch_forward_fused(const DeviceRun<T>& run) {
  launch(forward_fused_kernel<T>, kKernelForwardFused, run, 0, run.n);
}

template <class T>
void launch_forward_begin(const DeviceRun<T>& run) {
  launch(forward_begin_kernel<T>, kKernelForwardBegin, run, 0, run.n);
}

template <class T>
void launch_step_begin(const DeviceRun<T>& run) {
  launch(step_begin_kernel<T>, kKernelStepBegin, run, 0, run.n);
}

template <class T>
void launch_smooth(const DeviceRun<T>& run, bool staged) {
  if (!staged) {
    launch(stage_kernel<T, Smooth>, kKernelSmooth, run, 0, run.n);
    return;
  }
  launch(stage_kernel<T, Kinematics>, kKernelKinematics, run, 0, run.n);
  launch(stage_kernel<T, Jacobians>, kKernelJacobians, run, 0, run.n);
  launch(stage_kernel<T, BodyTerms>, kKernelBodyTerms, run, 0, run.n);
  launch(stage_kernel<T, Assemble>, kKernelAssemble, run, 0, run.n);
  launch(stage_kernel<T, Forces>, kKernelForces, run, 0, run.n);
}

template <class T>
void launch_solve(const DeviceRun<T>& run, T damping_dt) {
  launch(solve_kernel<T>, kKernelSolve, run, 0, run.n, damping_dt);
}

template <class T>
void launch_forward_end(const DeviceRun<T>& run) {
  launch(forward_end_kernel<T>, kKernelForwardEnd, run, 0, run.n);
}

template <class T>
void launch_step_end(const DeviceRun<T>& run, int stage) {
  launch(step_end_kernel<T>, kKernelStepEnd, run, 0, run.n, stage);
}

template <class T>
void launch_pack(const DeviceRun<T>& run, const DenseChunk<T>& chunk, T damping_dt) {
  launch(pack_kernel<T>, kKernelPack, run, chunk.begin, chunk.begin + chunk.count, chunk,
         damping_dt);
}

template <class T>
void launch_unpack(const DeviceRun<T>& run, const DenseChunk<T>& chunk) {
  launch(unpack_kernel<T>, kKernelUnpack, run, chunk.begin, chunk.begin + chunk.count, chunk);
}

#define ZW_INSTANTIATE(T)                                                  \
  template LaunchConfig launch_config<T>();                                \
  template void launch_step_fused(const DeviceRun<T>&, int);               \
  template void launch_forward_fused(const DeviceRun<T>&);                 \
  template void launch_forward_begin(const DeviceRun<T>&);                 \
  template void launch_step_begin(const DeviceRun<T>&);                    \
  template void launch_smooth(const DeviceRun<T>&, bool);                  \
  template void launch_solve(const DeviceRun<T>&, T);                      \
  template void launch_forward_end(const DeviceRun<T>&);                   \
  template void launch_step_end(const DeviceRun<T>&, int);                 \
  template void launch_pack(const DeviceRun<T>&, const DenseChunk<T>&, T); \
  template void launch_unpack(const DeviceRun<T>&, const DenseChunk<T>&);
ZW_INSTANTIATE(float)
ZW_INSTANTIATE(double)
#undef ZW_INSTANTIATE

}  // namespace zwang::gpu
