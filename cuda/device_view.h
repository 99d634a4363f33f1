// The device copy of a batch as kernels see it: the three arenas of kernels/layout.h
// interleaved over the padded instance count (row r of instance i at base[r * ld + i], so a
// warp's 32 threads read 32 consecutive values), plus time, status and the phase of
// kernels/pipeline.h.  Plain pointers into buffers owned by the CUDA backend.
#pragma once

#include <cstdint>

#include "kernels/hd.h"
#include "kernels/instance.h"
#include "kernels/model_view.h"

namespace zwang::gpu {

template <class T>
struct DeviceArenas {
  T* data;          // state and outputs (data_rows x ld)
  T* param;         // parameters (param_rows x ld)
  T* work;          // scratch of the stages (work_rows x ld)
  double* time;     // simulated time (ld)
  int* status;      // StatusBit flags (ld)
  int* phase;       // PhaseId between the kernels of a cut pipeline (ld)
  std::int64_t ld;  // padded instance count

  ZW_HD ZW_INLINE Instance<T> instance(const ModelView<T>& m, std::int64_t i) const {
    return {{data + i, ld}, {param + i, ld}, {work + i, ld}, &m.lay, time + i, status + i};
  }
};

}  // namespace zwang::gpu
