#include "cuda/mirror.hpp"

#include <cstring>

namespace zwang::gpu {

template <class E>
MirroredArena<E>::MirroredArena(int rows, std::int64_t ld)
    : rows_(rows),
      ld_(ld),
      mirror_(static_cast<std::size_t>(rows) * ld),
      device_(static_cast<std::size_t>(rows) * ld) {}

template <class E>
std::size_t MirroredArena<E>::upload_changed(const E* host, cudaStream_t stream) {
  // the previous upload's copies may still be reading the mirror that the diff rewrites
  uploaded_.synchronize();
  std::vector<RowRange> ranges;
  if (!synced_) {
    if (mirror_.size() > 0) std::memcpy(mirror_.data(), host, mirror_.size() * sizeof(E));
    if (rows_ > 0) ranges.push_back({0, rows_});
    synced_ = true;
  } else {
    ranges = sync_changed_rows(host, mirror_.data(), rows_, ld_);
  }
  std::size_t bytes = 0;
  for (const RowRange& r : ranges) {
    const std::size_t count = static_cast<std::size_t>(r.end - r.begin) * ld_ * sizeof(E);
    ZW_CUDA_CHECK(cudaMemcpyAsync(device_.get() + r.begin * ld_, mirror_.data() + r.begin * ld_,
                                  count, cudaMemcpyHostToDevice, stream));
    bytes += count;
  }
  if (!ranges.empty()) uploaded_.record(stream);
  return bytes;
}

template <class E>
std::size_t MirroredArena<E>::download(RowRange rows, cudaStream_t stream) {
  if (rows.end <= rows.begin) return 0;
  const std::size_t count = static_cast<std::size_t>(rows.end - rows.begin) * ld_ * sizeof(E);
  ZW_CUDA_CHECK(cudaMemcpyAsync(mirror_.data() + rows.begin * ld_, device_.get() + rows.begin * ld_,
                                count, cudaMemcpyDeviceToHost, stream));
  pending_.push_back(rows);
  return count;
}

template <class E>
void MirroredArena<E>::finish_download(E* host) {
  copy_rows<E>(mirror_.data(), host, pending_, ld_);
  pending_.clear();
}

template <class E>
void MirroredArena<E>::mirror_instance(const E* host, std::int64_t i) {
  if (!synced_) return;  // the first upload copies everything anyway
  uploaded_.synchronize();
  for (int r = 0; r < rows_; ++r) mirror_.data()[r * ld_ + i] = host[r * ld_ + i];
}

template class MirroredArena<float>;
template class MirroredArena<double>;
template class MirroredArena<int>;

}  // namespace zwang::gpu
