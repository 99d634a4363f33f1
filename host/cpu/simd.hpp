// The SIMD CPU backend's entry points, one set per instruction set.  Each lives in its own
// translation unit compiled for that instruction set (host/cpu/simd_avx2.cc,
// host/cpu/simd_avx512.cc, both from host/cpu/simd.inl); everything they share with the rest of
// zwang goes through this plain interface, so that no function compiled for AVX-512 can stand in
// for one the rest of the program calls on a CPU without it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>

#include "kernels/from_pack.h"
#include "kernels/instance.h"
#include "kernels/model_view.h"

namespace zwang {

// a call over the instances [0, n) of a batch
template <class T>
struct PackRun {
  const ModelView<T>* view;
  T* data;  // the batch's arenas: row r of instance i at arena[r * ld + i]
  T* param;
  std::int64_t ld;
  std::int64_t n;
  double* time;  // per instance
  int* status;   // per instance
  int threads;
  int steps;           // 0: forward()
  std::byte* scratch;  // threads × PackIsa::scratch_bytes, 64-byte aligned
  // constrain_lanes() of kernels/pipeline.h for the lanes of a pack that have not stopped: with
  // constraint rows each lane's collisions, rows and solver run one instance at a time, in the
  // same code as the scalar backend's, with what the pack does for them (FromPack, LaneFactor).
  // Compiled outside the instruction set's unit: its scalar instantiations would be shared with
  // the other units (tests/simd_units_isolated.cmake)
  void (*constrain)(const ModelView<T>& m, const Instance<T>* lanes, const FromPack<T>* pack,
                    int count, int stage, const LaneFactor<T>& factor);
  bool prefetch;  // the next pack's rows are prefetched: they come from beyond the L2
  // the data rows of the outputs the batch keeps (Batch::kept), as [begin, end) ranges: a call
  // copies these back, and reads sensordata (whose user slots keep their values) if it is kept
  const std::pair<int, int>* outputs;
  int noutputs;
  bool sensordata;
  // the outputs go back with non-temporal stores where a pack's row is a cache line: the rows
  // of the batch exceed the last-level cache
  bool stream;
};

template <class T>
struct PackIsa {
  const char* name;
  int width;  // instances per register
  std::size_t (*scratch_bytes)(const Layout& lay, const Sizes& s, int ncollision);
  void (*run)(const PackRun<T>& r);
};

template <class T>
PackIsa<T> pack_isa_avx2();
template <class T>
PackIsa<T> pack_isa_avx512();

}  // namespace zwang
