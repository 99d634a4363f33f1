// Which copy of each field is current when a batch lives in two places, the host Batch and a
// device copy that holds the state of record (the CUDA backend).  Plain C++, no device: the
// copies themselves are a FieldCopier's, so that tests run the bookkeeping with two host
// arenas standing in for the device.
//
// Per field: host_current (the host copy equals the device's) and host_dirty (the host copy
// was written since the last upload; implies host_current).  The rules:
//   host read of f       download f if it is not host_current
//   host write of f      the same, then f is host_dirty
//   a device call        push(): upload every host_dirty field; then, for each field the
//                        call writes, device_wrote(f): not host_current (nothing downloaded)
// so that a step moves no bytes unless the host changed something, and a host read after it
// downloads only the fields read.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "zwang/batch.hpp"

namespace zwang {

// moves one field's rows between the host Batch and the device copy
class FieldCopier {
 public:
  virtual ~FieldCopier() = default;
  // f device → host; returns once the host copy holds the device's values, which includes
  // the device work enqueued before
  virtual void to_host(FieldId f) = 0;
  // f host → device, ordered after the device work enqueued before and before the work
  // enqueued after; may return before the copy has read the host copy
  virtual void to_device(FieldId f) = 0;
  // returns once every copy to_device() started has read the host copy
  virtual void wait_to_device() = 0;
};

// which calls write which fields on the device
enum class DeviceCall {
  kForward,  // outputs (every data field from qacc on) and status
  kStep,     // those, qpos, qvel, act and time
  kReset,    // every data field, time and status (of the listed instances)
};
bool writes(DeviceCall call, FieldId f);

class Residency final : public BatchSync {
 public:
  // every field current on both sides, nothing to upload: the device copy starts as a copy
  // of the host's.  bytes(f) per field: rows × ld × the element size of its arena.
  Residency(const Layout& layout, const Sizes& sizes, std::int64_t ld, std::size_t scalar_bytes,
            FieldCopier& copier);

  void host_read(FieldId f) override;
  void host_write(FieldId f) override;

  // before a device call: the transfer counts restart and every host_dirty field is uploaded
  void push();
  // the device wrote f (a call, or a user's kernel): its host copy is stale, and host edits
  // of it that were not pushed are dropped (the device's values win)
  void device_wrote(FieldId f);
  void device_wrote(DeviceCall call);
  // every field made current on the host
  void pull_all();

  bool host_current(FieldId f) const { return state_[index(f)].current; }
  bool host_dirty(FieldId f) const { return state_[index(f)].dirty; }
  // bytes moved since the last push(), that push included
  std::size_t bytes_up(FieldId f) const { return state_[index(f)].up; }
  std::size_t bytes_down(FieldId f) const { return state_[index(f)].down; }
  // the size of f's rows
  std::size_t bytes(FieldId f) const { return state_[index(f)].bytes; }

 private:
  struct State {
    bool current = true;
    bool dirty = false;
    std::size_t bytes = 0;
    std::size_t up = 0;
    std::size_t down = 0;
  };
  static int index(FieldId f) { return static_cast<int>(f); }

  FieldCopier& copier_;
  std::array<State, kFieldCount> state_{};
  bool uploading_ = false;  // copies started by push() may still read the host copy
};

}  // namespace zwang
