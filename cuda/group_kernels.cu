// step_group_kernel<T, G>: forward() or `steps` step()s of kernels/pipeline.h with a lane group of
// G lanes per instance (kernels/group.h on cuda/group_warp.cuh), `per_block` instances per block.
//
// A block stages its instances' data and parameter rows into shared memory, one tile per
// instance (ld = 1), with the block's threads over (row, instance), instances fastest, so that
// consecutive threads read consecutive values of one interleaved row; the groups then run on their
// tiles, their scratch (the work arena) contiguous per instance in global memory, and the block
// writes back the state and input rows and the kept outputs (SimulatorOptions::outputs). Where one
// tile does not fit in a block's shared memory the groups read the interleaved arenas directly.
//
// The sizes built are ZWANG_CUDA_GROUPS (CMake): ZWANG_CUDA_GROUP_16, ZWANG_CUDA_GROUP_32.
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "cuda/check.hpp"
#include "cuda/group_warp.cuh"
#include "cuda/launch.hpp"
#include "kernels/pipeline.h"

namespace zwang::gpu {
namespace {

// rows [0, rows) of `count` instances from an interleaved arena (instance `first` at column 0)
// into tiles `stride` values apart, row r of tile k at tiles[k * stride + r]
template <class T>
__device__ void tile_in(const T* arena, std::int64_t ld, std::int64_t first, int rows, int count,
                        T* tiles, int stride) {
  const int total = rows * count;
  for (int e = static_cast<int>(threadIdx.x); e < total; e += static_cast<int>(blockDim.x)) {
    const int r = e / count, k = e - r * count;
    tiles[k * stride + r] = arena[r * ld + first + k];
  }
}

// rows [begin, end) of the tiles back to the interleaved arena
template <class T>
__device__ void tile_out(const T* tiles, int stride, int begin, int end, int count, T* arena,
                         std::int64_t ld, std::int64_t first) {
  const int total = (end - begin) * count;
  for (int e = static_cast<int>(threadIdx.x); e < total; e += static_cast<int>(blockDim.x)) {
    const int r = begin + e / count, k = e % count;
    arena[r * ld + first + k] = tiles[k * stride + r];
  }
}

// forward() (steps = 0) or the steps of one instance on its group: a call of its own, so that the
// kernel's tile copies and the pipeline do not share one register allocation
template <class T, int G>
__device__ __noinline__ void run_instance(const ModelView<T>& m, const Instance<T>& d, int steps) {
  Warp<G> g(cooperative_groups::tiled_partition<G>(cooperative_groups::this_thread_block()));
  if (steps == 0) forward(m, d, g);
  for (int s = 0; s < steps && g.uniform([&] { return *d.status & kStatusStopping; }) == 0; ++s) {
    step(m, d, g);
  }
}

template <class T, int G>
__global__ void __launch_bounds__(kGroupBlockThreads)
    step_group_kernel(const __grid_constant__ ModelView<T> m, const DeviceArenas<T> b,
                      const GroupLaunch launch, std::int64_t begin, std::int64_t end, int steps) {
  extern __shared__ __align__(16) unsigned char shared[];
  T* const tiles = reinterpret_cast<T*>(shared);
  const int per_block = launch.per_block, stride = launch.tile;
  const std::int64_t first = begin + static_cast<std::int64_t>(blockIdx.x) * per_block;
  const int count = static_cast<int>(min(static_cast<std::int64_t>(per_block), end - first));
  const int data_rows = m.lay.data_rows, param_rows = m.lay.param_rows;
  const bool tiled = stride > 0;
  if (tiled) {
    tile_in(b.data, b.ld, first, data_rows, count, tiles, stride);
    tile_in(b.param, b.ld, first, param_rows, count, tiles + data_rows, stride);
    __syncthreads();
  }
  const int slot = static_cast<int>(threadIdx.x) / G;
  if (slot < count) {
    const std::int64_t i = first + slot;
    T* const tile = tiles + slot * stride;
    const Arena<T> work{b.work + i * m.lay.work_rows, 1};
    const Instance<T> d = tiled ? Instance<T>{{tile, 1},  {tile + data_rows, 1}, work, &m.lay,
                                              b.time + i, b.status + i}
                                : Instance<T>{{b.data + i, b.ld}, {b.param + i, b.ld}, work, &m.lay,
                                              b.time + i,         b.status + i};
    run_instance<T, G>(m, d, steps);
  }
  if (tiled) {
    __syncthreads();
    tile_out(tiles, stride, 0, input_rows(m.lay), count, b.data, b.ld, first);
    for (int k = 0; k < launch.nout; ++k) {
      tile_out(tiles, stride, launch.out_rows[2 * k], launch.out_rows[2 * k + 1], count, b.data,
               b.ld, first);
    }
  }
}

template <class T, int G>
constexpr auto group_kernel() {
  return step_group_kernel<T, G>;
}

// the instances each multiprocessor holds with `per_block` instances per block of `bytes` of
// shared memory each; 0 where a block cannot hold them
template <class T, int G>
int resident_instances(int per_block, std::size_t bytes, std::size_t optin) {
  if (bytes > optin) return 0;
  int blocks = 0;
  ZW_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, group_kernel<T, G>(),
                                                              per_block * G, bytes));
  return blocks * per_block;
}

template <class T, int G>
GroupLaunch plan_group(const Layout& lay, std::int64_t n, int sms, const int* out_rows, int nout) {
  int device = 0, optin = 0;
  ZW_CUDA_CHECK(cudaGetDevice(&device));
  ZW_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  // the most a block may ask for: one value for the process, whatever each backend's blocks
  // need, so that a backend made later never lowers what an earlier one launches with
  ZW_CUDA_CHECK(cudaFuncSetAttribute(group_kernel<T, G>(),
                                     cudaFuncAttributeMaxDynamicSharedMemorySize, optin));
  const int tile = group_tile_values(lay);
  const bool tiled = static_cast<std::size_t>(tile) * sizeof(T) <= static_cast<std::size_t>(optin);
  GroupBlockChoices resident{};
  for (int j = 0; j < kGroupBlockChoices; ++j) {
    const int per_block = 1 << j;
    if (per_block * G > kGroupBlockThreads) break;
    const std::size_t bytes = tiled ? static_cast<std::size_t>(per_block) * tile * sizeof(T) : 0;
    resident[j] = resident_instances<T, G>(per_block, bytes, static_cast<std::size_t>(optin));
  }
  GroupLaunch g;
  g.group = G;
  g.per_block = group_instances_per_block(n, sms, resident);
  g.tile = tiled ? tile : 0;
  g.shared_bytes = tiled ? static_cast<std::size_t>(g.per_block) * tile * sizeof(T) : 0;
  g.out_rows = out_rows;
  g.nout = nout;
  return g;
}

template <class T, int G>
void launch_group(const DeviceRun<T>& run, const GroupLaunch& g, int steps) {
  const int block = g.per_block * G;
  for (const LaunchRange& r : split_launches(run.n, g.per_block, run.config->max_blocks)) {
    const auto grid = static_cast<unsigned>(blocks_for(r.count, g.per_block));
    group_kernel<T, G>()<<<grid, block, g.shared_bytes, run.stream>>>(run.m, run.b, g, r.begin,
                                                                      r.begin + r.count, steps);
    ZW_CUDA_CHECK(cudaGetLastError());
  }
}

}  // namespace

template <class T>
GroupLaunch group_launch(int group, const Layout& lay, std::int64_t n, int sms, const int* out_rows,
                         int nout) {
#ifdef ZWANG_CUDA_GROUP_16
  if (group == 16) return plan_group<T, 16>(lay, n, sms, out_rows, nout);
#endif
#ifdef ZWANG_CUDA_GROUP_32
  if (group == 32) return plan_group<T, 32>(lay, n, sms, out_rows, nout);
#endif
  throw std::invalid_argument("cuda_group " + std::to_string(group) +
                              ": this build has no lane-group kernel of that size (configure with "
                              "-DZWANG_CUDA_GROUPS=\"16;32\")");
}

template <class T>
void launch_step_group(const DeviceRun<T>& run, const GroupLaunch& g, int steps) {
#ifdef ZWANG_CUDA_GROUP_16
  if (g.group == 16) launch_group<T, 16>(run, g, steps);
#endif
#ifdef ZWANG_CUDA_GROUP_32
  if (g.group == 32) launch_group<T, 32>(run, g, steps);
#endif
}

#define ZW_INSTANTIATE(T)                                                                       \
  template GroupLaunch group_launch<T>(int, const Layout&, std::int64_t, int, const int*, int); \
  template void launch_step_group(const DeviceRun<T>&, const GroupLaunch&, int);
ZW_INSTANTIATE(float)
ZW_INSTANTIATE(double)
#undef ZW_INSTANTIATE

}  // namespace zwang::gpu
