// Host entry points of the __global__ wrappers in cuda/kernels.cu, one thread per instance.
// Each function enqueues on run.stream and returns; launches are cut by split_launches() so
// that any 64-bit instance count fits the grid.  Plain C++: the backend is compiled by the
// host compiler, and C++17, as nvcc compiles it.
#pragma once

#include <cuda_runtime_api.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "cuda/device_view.h"
#include "kernels/model_view.h"

namespace zwang::gpu {

// instances [begin, begin + count) of one kernel launch
struct LaunchRange {
  std::int64_t begin;
  std::int64_t count;
};

// blocks of `block` threads for `count` instances: ⌈count / block⌉
std::int64_t blocks_for(std::int64_t count, int block);

// The block size for `count` instances of a kernel whose occupancy block is `block`, on a device
// of `sms` multiprocessors: `block` when the grid fills every SM with it, else fewer threads per
// block (whole warps, one at least) so that the grid spreads over the SMs.  One thread per
// instance in blocks of 512 would run 4096 instances, a typical RL batch, on 8 of an H100's 132
// SMs; in blocks of 32 on 128, each with one warp instead of sixteen.
int spread_block(std::int64_t count, int block, int sms);

// [0, n) cut into launches of at most block × max_blocks instances (max_blocks: the device's
// grid limit in x, 2³¹ − 1), so that 64-bit instance counts never overflow a grid
std::vector<LaunchRange> split_launches(std::int64_t n, int block, std::int64_t max_blocks);

enum KernelId : int {
  kKernelStepFused,     // zwang::step() `steps` times
  kKernelForwardFused,  // zwang::forward()
  kKernelForwardBegin,  // pipeline.h: forward_begin
  kKernelStepBegin,     // pipeline.h: step_begin
  kKernelSmooth,        // smooth() in one kernel
  kKernelKinematics,    // forward_kinematics()
  kKernelJacobians,     // body_jacobians(), tendons()
  kKernelBodyTerms,     // body_terms()
  kKernelAssemble,      // assemble()
  kKernelForces,        // generalized_forces()
  kKernelSolve,         // factor_solve() in the thread
  kKernelForwardEnd,    // pipeline.h: forward_end
  kKernelStepEnd,       // pipeline.h: step_end
  kKernelPack,          // dense.h: pack_dense
  kKernelUnpack,        // dense.h: unpack_solution
  kKernelCount
};

// block size of each kernel (from cudaOccupancyMaxPotentialBlockSize), the grid limit and the
// device's multiprocessors
struct LaunchConfig {
  int block[kKernelCount];
  std::int64_t max_blocks;
  int sms;
};

// the configuration on the current device
template <class T>
LaunchConfig launch_config();

// what every launch needs; the ModelView points at device memory
template <class T>
struct DeviceRun {
  ModelView<T> m;
  DeviceArenas<T> b;
  std::int64_t n;  // instances [0, n) run
  cudaStream_t stream;
  const LaunchConfig* config;
};

// one chunk of the cuSOLVER path: instances [begin, begin + count) in interleaved buffers
// (ld = count), the strided factor and cuSOLVER's info per matrix
template <class T>
struct DenseChunk {
  std::int64_t begin;
  std::int64_t count;
  T* dense;         // interleaved H (nv² x count)
  T* rhs;           // interleaved right-hand side, then solution (nv x count)
  const T* factor;  // strided factor: matrix k at factor + k nv²
  const int* info;  // potrf info per matrix (count)
};

// The lane-group path (cuda/group_kernels.cu): `group` lanes per instance, `per_block` instances
// per block of at most kGroupBlockThreads threads; each instance's data and parameter rows in a
// shared-memory tile of `tile` values (0: the kernel reads the interleaved arenas), and the data
// rows written back at the end of a call: the state and inputs, then the `nout` [begin, end)
// pairs at out_rows (device memory), the kept outputs.
constexpr int kGroupBlockThreads = 256;
constexpr int kGroupBlockChoices = 4;  // 1, 2, 4 or 8 instances per block
using GroupBlockChoices = std::array<int, kGroupBlockChoices>;
struct GroupLaunch {
  int group = 1;
  int per_block = 1;
  int tile = 0;
  std::size_t shared_bytes = 0;
  const int* out_rows = nullptr;
  int nout = 0;
};

// values in one instance's tile: its data and parameter rows, an odd count, so that the threads
// copying one row of consecutive instances reach distinct shared-memory banks
int group_tile_values(const Layout& lay);

// Instances per block (1, 2, 4 or 8) for n instances on `sms` multiprocessors, from
// resident[j], the instances a multiprocessor holds with 2^j per block (0: a block cannot hold
// them): the most resident instances, the larger block on ties (its tile copies read longer runs
// of each row); then halved while the grid would leave multiprocessors idle.
int group_instances_per_block(std::int64_t n, int sms, const GroupBlockChoices& resident);

// the launch shape of the group kernel with `group` lanes on the current device (its occupancy
// and shared-memory limit; raises the kernel's dynamic shared-memory attribute to that limit)
template <class T>
GroupLaunch group_launch(int group, const Layout& lay, std::int64_t n, int sms, const int* out_rows,
                         int nout);
// forward() (steps = 0) or `steps` step()s of every instance on lane groups
template <class T>
void launch_step_group(const DeviceRun<T>& run, const GroupLaunch& g, int steps);

template <class T>
void launch_step_fused(const DeviceRun<T>& run, int steps);
template <class T>
void launch_forward_fused(const DeviceRun<T>& run);
template <class T>
void launch_forward_begin(const DeviceRun<T>& run);
template <class T>
void launch_step_begin(const DeviceRun<T>& run);
// smooth() on the instances in kPhaseSolve: one kernel, or five (staged)
template <class T>
void launch_smooth(const DeviceRun<T>& run, bool staged);
template <class T>
void launch_solve(const DeviceRun<T>& run, T damping_dt);
template <class T>
void launch_forward_end(const DeviceRun<T>& run);
template <class T>
void launch_step_end(const DeviceRun<T>& run, int stage);
template <class T>
void launch_pack(const DeviceRun<T>& run, const DenseChunk<T>& chunk, T damping_dt);
template <class T>
void launch_unpack(const DeviceRun<T>& run, const DenseChunk<T>& chunk);

}  // namespace zwang::gpu
