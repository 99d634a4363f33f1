// One arena (rows × ld values of E) in three places: the host batch's copy, which is the state
// of record; a pinned host mirror that always holds what the device holds; and the device
// copy.  Uploads send only the rows whose bytes differ from the mirror (the user changed
// them since the last call), downloads land in the mirror and are then copied to the host.
//
// The uploads are asynchronous copies out of the mirror: until the stream has run them, the
// mirror must not change.  Every host write to the mirror (the row diff of the next upload,
// mirror_instance) therefore first waits for the last upload's copies (an event recorded after
// them), so that back-to-back upload() calls without a synchronisation stay correct and the
// kernels enqueued between them see the values of the upload before theirs.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "cuda/device_memory.hpp"
#include "cuda/plan.hpp"

namespace zwang::gpu {

template <class E>
class MirroredArena {
 public:
  MirroredArena(int rows, std::int64_t ld);

  E* device() const { return device_.get(); }
  int rows() const { return rows_; }

  // Rows of `host` that differ from the mirror, copied to the mirror and enqueued on
  // `stream` to the device; every row the first time.  Waits for the previous upload's copies
  // to have left the mirror first.  Returns the bytes enqueued.
  std::size_t upload_changed(const E* host, cudaStream_t stream);
  // Rows [begin, end) enqueued device → mirror; finish_download() copies them to the host
  // once the stream has synchronised.  Returns the bytes enqueued.
  std::size_t download(RowRange rows, cudaStream_t stream);
  void finish_download(E* host);
  // Instance i of every row copied host → mirror, for an instance changed on the host and on
  // the device alike (a reset done on both sides); waits as upload_changed() does.
  void mirror_instance(const E* host, std::int64_t i);

 private:
  int rows_;
  std::int64_t ld_;
  bool synced_ = false;  // the mirror and the device hold the same values
  PinnedBuffer<E> mirror_;
  DeviceBuffer<E> device_;
  std::vector<RowRange> pending_;  // downloads not yet copied to the host
  Event uploaded_;                 // recorded after the last upload's copies out of the mirror
};

extern template class MirroredArena<float>;
extern template class MirroredArena<double>;
extern template class MirroredArena<int>;

}  // namespace zwang::gpu
