// Batch-wide utilities on the device, written with Thrust over instance indices: reset
// selected instances, per-instance energy, a count of non-finite instances, and the indices
// of the instances with a status bit.  Each call is ordered on run.stream; the reset returns
// once enqueued, the others after the stream has finished with them.
#pragma once

#include <cstdint>
#include <vector>

#include "cuda/launch.hpp"
#include "kernels/energy.h"
#include "kernels/model_view.h"

namespace zwang::gpu {

// data rows of each listed instance to the model's default state (qpos = qpos0, the mocap
// bodies at their body_pos and body_quat, the rest 0), time 0, status 0: what
// Batch::reset_state() does on the host; then, with `state` (device memory, nq + nv + nu
// values), qpos, qvel and ctrl to those values.  `instances` is device memory, `count` indices
// in [0, run.n); both are read by the enqueued work.
template <class T>
void device_reset(const DeviceRun<T>& run, const std::int64_t* instances, std::int64_t count,
                  const T* state);

// instance_energy() of instances [0, n)
template <class T>
std::vector<Energy<T>> device_energy(const DeviceRun<T>& run);

// instances whose qpos, qvel or qacc hold a NaN or an infinity
template <class T>
std::int64_t device_count_nonfinite(const DeviceRun<T>& run);

// instances with a non-zero status, in increasing order
template <class T>
std::vector<std::int64_t> device_failed_instances(const DeviceRun<T>& run);

// The collectives of one Warp<G> (cuda/group_warp.cuh) over `values`, for tests against Emu<G>:
// the sum, the maximum, the argmax of floor(2 v), the scan of `counts` (one per value), the value
// 3 n + 1 of uniform(), and the TwoSums (v, −2 v) from (1.5, −0.5) (sum(n, f, init)).
struct GroupCheck {
  double sum = 0, max = 0, pair_a = 0, pair_b = 0;
  int argmax = -1, total = 0, uniform = 0;
  std::vector<int> offsets;
};
template <int G>
GroupCheck device_group_check(const std::vector<double>& values, const std::vector<int>& counts);

// One instance in float64 on a Warp<32>: forward() (steps = 0) or `steps` step()s of
// kernels/pipeline.h with the lane group, its arenas contiguous (ld 1) in device memory, from the
// data and parameter arenas given; the data and work arenas, time and status after, for tests
// against Emu<32> on the CPU. `view` points at the model's arrays in device memory.
struct GroupSteps {
  std::vector<double> data, work;
  double time = 0;
  int status = 0;
};
GroupSteps device_group_steps(const ModelView<double>& view, const std::vector<double>& data,
                              const std::vector<double>& param, double time, int steps);

}  // namespace zwang::gpu
