#include "host/batch/residency.hpp"

namespace zwang {

bool writes(DeviceCall call, FieldId f) {
  const int k = static_cast<int>(f);
  const bool data = k < static_cast<int>(FieldId::body_mass);
  const bool output = data && k >= static_cast<int>(FieldId::qacc);
  switch (call) {
    case DeviceCall::kForward:
      return output || f == FieldId::status;
    case DeviceCall::kStep:
      return output || f == FieldId::qpos || f == FieldId::qvel || f == FieldId::act ||
             f == FieldId::time || f == FieldId::status;
    case DeviceCall::kReset:
      return data || f == FieldId::time || f == FieldId::status;
  }
  return true;
}

Residency::Residency(const Layout& layout, const Sizes& sizes, std::int64_t ld,
                     std::size_t scalar_bytes, FieldCopier& copier)
    : copier_(copier) {
  for (int k = 0; k < kFieldCount; ++k) {
    const FieldRows r = field_rows(static_cast<FieldId>(k), layout, sizes);
    const std::size_t element = r.arena == ArenaId::kTime     ? sizeof(double)
                                : r.arena == ArenaId::kStatus ? sizeof(int)
                                                              : scalar_bytes;
    state_[k].bytes = static_cast<std::size_t>(r.rows) * static_cast<std::size_t>(ld) * element;
  }
}

void Residency::host_read(FieldId f) {
  State& s = state_[index(f)];
  if (s.current) return;
  if (s.bytes > 0) copier_.to_host(f);
  s.current = true;
  s.down += s.bytes;
}

void Residency::host_write(FieldId f) {
  host_read(f);
  // an upload started by push() may still be reading the rows about to change
  if (uploading_) {
    copier_.wait_to_device();
    uploading_ = false;
  }
  state_[index(f)].dirty = true;
}

void Residency::push() {
  for (State& s : state_) s.up = s.down = 0;
  for (int k = 0; k < kFieldCount; ++k) {
    State& s = state_[k];
    if (!s.dirty) continue;
    if (s.bytes > 0) {
      copier_.to_device(static_cast<FieldId>(k));
      uploading_ = true;
    }
    s.dirty = false;
    s.up += s.bytes;
  }
}

void Residency::device_wrote(FieldId f) {
  State& s = state_[index(f)];
  s.current = false;
  s.dirty = false;
}

void Residency::device_wrote(DeviceCall call) {
  for (int k = 0; k < kFieldCount; ++k) {
    if (writes(call, static_cast<FieldId>(k))) device_wrote(static_cast<FieldId>(k));
  }
}

void Residency::pull_all() {
  for (int k = 0; k < kFieldCount; ++k) host_read(static_cast<FieldId>(k));
}

}  // namespace zwang
