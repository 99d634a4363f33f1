// Batch-wide utilities on the device, written with Thrust over instance indices: reset
// selected instances, per-instance energy, a count of non-finite instances, and the indices
// of the instances with a status bit.  Each call is ordered on run.stream and returns after
// the stream has finished with it.
#pragma once

#include <cstdint>
#include <vector>

#include "cuda/energy.h"
#include "cuda/launch.hpp"

namespace zwang::gpu {

// data rows of each listed instance to the model's default state (qpos = qpos0, the rest 0),
// time 0, status 0: what Batch::reset_state() does on the host
template <class T>
void device_reset(const DeviceRun<T>& run, const std::vector<std::int64_t>& instances);

// instance_energy() of instances [0, n)
template <class T>
std::vector<Energy<T>> device_energy(const DeviceRun<T>& run);

// instances whose qpos, qvel or qacc hold a NaN or an infinity
template <class T>
std::int64_t device_count_nonfinite(const DeviceRun<T>& run);

// instances with a non-zero status, in increasing order
template <class T>
std::vector<std::int64_t> device_failed_instances(const DeviceRun<T>& run);

}  // namespace zwang::gpu
