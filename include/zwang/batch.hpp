// N instances of one model: state, parameters and outputs stored structure-of-arrays.
// Element j of a field of instance i is at arena[(offset + j) * padded_size + i], so one
// element of all instances is contiguous (DESIGN.md §2, kernels/layout.h).
//
// With the CUDA backend the device holds the state of record and the Batch is a host mirror
// kept by a BatchSync hook: each field accessor first brings that field's host copy up to date
// (a download of that field alone when the device is newer), and the non-const accessors also
// mark the field changed, so that the next device call uploads it.  A FieldRef or span taken
// from such a batch is valid until the next step(), forward() or reset(): take it again after
// one.  Without a hook (the CPU backend) an accessor costs one null test and references stay
// valid for the batch's lifetime.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "kernels/layout.h"
#include "zwang/model.hpp"

namespace zwang {

// Storage of the arenas, 64-byte aligned: with a padded size that is a multiple of the
// SIMD width, each row of a pack of instances is then one aligned register (with AVX-512, one
// cache line), which the SIMD CPU backend copies to and from its tiles with one load and store
// (and reads in place, for parameters).  Large arenas are also given 2 MiB pages where the system
// offers them (Linux's transparent huge pages): a pack's rows lie one padded row apart, and with
// 4 KiB pages each would need its own TLB entry.
void* arena_allocate(std::size_t bytes);
void arena_deallocate(void* p, std::size_t bytes);

template <class T>
struct ArenaAllocator {
  using value_type = T;
  ArenaAllocator() = default;
  template <class U>
  ArenaAllocator(const ArenaAllocator<U>&) {}
  T* allocate(std::size_t n) { return static_cast<T*>(arena_allocate(n * sizeof(T))); }
  void deallocate(T* p, std::size_t n) { arena_deallocate(p, n * sizeof(T)); }
  friend bool operator==(const ArenaAllocator&, const ArenaAllocator&) { return true; }
};
template <class T>
using ArenaVector = std::vector<T, ArenaAllocator<T>>;

// Every field a user reads or writes: the data fields and the parameter fields of
// kernels/layout.h, in its order, then time and status.
enum class FieldId : int {
#define ZW_X(name, count) name,
  ZW_DATA_FIELDS(ZW_X) ZW_PARAM_FIELDS(ZW_X)
#undef ZW_X
      time,
  status,
};
inline constexpr int kFieldCount = static_cast<int>(FieldId::status) + 1;

// The field's name as in kernels/layout.h: "qpos", "body_mass", ..., "time", "status".
const char* field_name(FieldId f);
// Whether f is an output: a data field a call computes (qacc … sensordata), not the
// state or an input (qpos … mocap_quat), a parameter, time or status.
constexpr bool is_output(FieldId f) {
  return f >= FieldId::qacc && f <= FieldId::sensordata;
}
// Whether f is a parameter field (body_mass … tendon_damping).
constexpr bool is_parameter(FieldId f) {
  return f > FieldId::sensordata && f < FieldId::time;
}
// The field of that name; std::invalid_argument for an unknown name.
FieldId field_id(std::string_view name);
// The count of objects that field f holds a row each of ("nbody" for body_ipos, "nv" for qvel),
// "" for a field of fixed width (gravity, time, status).
std::string_view field_count(FieldId f);
// The per-instance shape of field f: () for one value (time, status, ncon), (width) for one value
// per object or a fixed width (qvel: nv; gravity: 3), (objects, k) for k values per object
// (body_ipos: nbody, 3).
std::vector<int> field_shape(FieldId f, const Sizes& sizes);

// Thrown by the accessor of an output field a batch does not keep current
// (SimulatorOptions::outputs); Python's zwang.OutputNotKeptError, an AttributeError.
class OutputNotKept : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

enum class ArenaId { kData, kParam, kTime, kStatus };

// Where a field lives: rows [row, row + rows) of an arena, each padded_size values long
// (time and status are the one row of their own arena).
struct FieldRows {
  ArenaId arena;
  int row;
  int rows;
};
FieldRows field_rows(FieldId f, const Layout& layout, const Sizes& sizes);

// Keeps the host copy of a batch coherent with another copy of it (the CUDA backend's
// device arenas).  Installed by that backend; null for the CPU backend.
class BatchSync {
 public:
  virtual ~BatchSync() = default;
  // before a host read of f: the host copy of f made current
  virtual void host_read(FieldId f) = 0;
  // before a host write of f: the host copy of f made current and marked changed
  virtual void host_write(FieldId f) = 0;
};

// One field of every instance of a batch; FieldRef<const T> only reads.
template <class T>
class FieldRef {
 public:
  using Value = std::remove_const_t<T>;

  FieldRef(T* base, int width, std::int64_t instances, std::int64_t ld)
      : base_(base), width_(width), n_(instances), ld_(ld) {}
  // a writable reference, read through (a template, so that the copy constructor stays)
  template <class U>
  requires(std::is_const_v<T>&& std::is_same_v<U, Value>) FieldRef(const FieldRef<U>& other)
      : FieldRef(other.data(), other.width(), other.instances(), other.ld()) {}

  int width() const { return width_; }  // values per instance
  std::int64_t instances() const { return n_; }
  // Element 0 of instance 0: element j of instance i is at data()[j * ld() + i].
  T* data() const { return base_; }
  std::int64_t ld() const { return ld_; }

  // Element j of instance i, unchecked.
  T& operator()(std::int64_t i, int j) const { return base_[j * ld_ + i]; }
  // Element j of instance i; std::out_of_range names the bad index.
  T& at(std::int64_t i, int j) const;

  // Element j of every instance, contiguous.
  std::span<T> column(int j) const;

  // The values of instance i.
  std::vector<Value> get(std::int64_t i) const;
  // Sets the values of instance i; std::invalid_argument if the size is not width().
  // (member templates, so that an explicit instantiation of FieldRef<const T> leaves them out)
  template <class U = T>
  requires(!std::is_const_v<U>) void set(std::int64_t i, std::span<const Value> values) const {
    check_instance(i);
    check_size(values.size());
    for (int j = 0; j < width_; ++j) (*this)(i, j) = values[j];
  }
  // Sets the same values on every instance.
  template <class U = T>
  requires(!std::is_const_v<U>) void fill(std::span<const Value> values) const {
    check_size(values.size());
    for (int j = 0; j < width_; ++j) {
      for (std::int64_t i = 0; i < n_; ++i) (*this)(i, j) = values[j];
    }
  }

 private:
  void check_instance(std::int64_t i) const;
  void check_size(std::size_t size) const;
  T* base_;
  int width_;
  std::int64_t n_;
  std::int64_t ld_;
};

template <class T>
class Batch {
 public:
  // n instances, every one at the model's default state and parameters.  `outputs`: the
  // output fields its simulator's calls keep current (SimulatorOptions::outputs), all of them
  // without a list; state, input and parameter fields, time and status may be listed and are
  // always current.  An accessor of an output left out throws OutputNotKept.
  // std::invalid_argument names a listed field that is a parameter.
  Batch(const Model& model, std::int64_t n,
        const std::optional<std::vector<FieldId>>& outputs = std::nullopt);
  // A copy of every field as it is now (the fields a device holds newer values of are
  // brought up to date first); the copy has no sync hook of its own.
  Batch(const Batch& other);
  // a backend's batch is replaced only through its accessors, which keep the device informed
  Batch& operator=(const Batch&) = delete;

  std::int64_t size() const { return n_; }
  // The stride between rows of an arena: from kPadding instances on, the instance count
  // rounded up to an odd number of 64-byte cache lines (8 float64 or 16 float32 values each),
  // not one line past a multiple of 4 KiB, so that the rows of a pack of instances fall in
  // different cache sets; below kPadding, the count itself.
  std::int64_t padded_size() const { return padded_; }
  static constexpr std::int64_t kPadding = 32;

  const Sizes& sizes() const { return sizes_; }
  const Layout& layout() const { return layout_; }

  // Whether every call keeps f current: true but for the outputs the batch was made
  // without (SimulatorOptions::outputs), whose accessors throw OutputNotKept; what their rows
  // hold is unspecified.
  bool kept(FieldId f) const { return kept_[static_cast<int>(f)]; }
  // OutputNotKept, naming the outputs kept, unless f is kept
  void require_kept(FieldId f) const {
    if (!kept(f)) not_kept(f);
  }
  // The output fields kept current, in FieldId order.
  std::vector<FieldId> outputs() const;

  // A field of every instance.  With a sync hook the non-const accessors make the
  // field's host copy current and mark it changed; the const ones only make it current
  // (std::as_const(batch).qpos() reads without causing an upload).
#define ZW_X(name, count)                                                         \
  FieldRef<T> name() {                                                            \
    if (!kept(FieldId::name)) not_kept(FieldId::name);                            \
    if (sync_) sync_->host_write(FieldId::name);                                  \
    return field_ref(data_.data(), layout_.name, count_##name());                 \
  }                                                                               \
  FieldRef<const T> name() const {                                                \
    if (!kept(FieldId::name)) not_kept(FieldId::name);                            \
    if (sync_) sync_->host_read(FieldId::name);                                   \
    return field_ref(const_cast<T*>(data_.data()), layout_.name, count_##name()); \
  }
  ZW_DATA_FIELDS(ZW_X)
#undef ZW_X
#define ZW_X(name, count)                                                          \
  FieldRef<T> name() {                                                             \
    if (sync_) sync_->host_write(FieldId::name);                                   \
    parameters_exposed_ = true;                                                    \
    return field_ref(param_.data(), layout_.name, count_##name());                 \
  }                                                                                \
  FieldRef<const T> name() const {                                                 \
    if (sync_) sync_->host_read(FieldId::name);                                    \
    return field_ref(const_cast<T*>(param_.data()), layout_.name, count_##name()); \
  }
  ZW_PARAM_FIELDS(ZW_X)
#undef ZW_X

  // The data or parameter field f, as its named accessor gives it; std::invalid_argument
  // for time and status (time() and status() give them).
  FieldRef<T> field(FieldId f);
  FieldRef<const T> field(FieldId f) const;

  // Simulated time of each instance (s).
  std::span<double> time() {
    if (sync_) sync_->host_write(FieldId::time);
    return {time_.data(), static_cast<std::size_t>(n_)};
  }
  // StatusBit flags of each instance; an instance with a bit set does not advance, except
  // for kStatusNotConverged alone (a warning: the constraint solver reached its cap).
  std::span<int> status() {
    if (sync_) sync_->host_write(FieldId::status);
    return {status_.data(), static_cast<std::size_t>(n_)};
  }
  std::span<const double> time() const {
    if (sync_) sync_->host_read(FieldId::time);
    return {time_.data(), static_cast<std::size_t>(n_)};
  }
  std::span<const int> status() const {
    if (sync_) sync_->host_read(FieldId::status);
    return {status_.data(), static_cast<std::size_t>(n_)};
  }

  // qpos = qpos0, the mocap bodies at their body_pos and body_quat, every other state and
  // output 0, time = 0, status cleared.
  void reset_state(std::int64_t i, const Model& model);
  // Every parameter of instance i back to the model's value.
  void reset_parameters(std::int64_t i, const Model& model);
  // Whether the parameters may have been written: a writable reference to them has been
  // handed out (a non-const parameter accessor, field() of a parameter, param_arena(),
  // param_span(), unsynchronized()) or reset_parameters() has run.  Until then every parameter
  // holds the model's value and the CPU backends skip the check of the parameters that each call
  // otherwise makes (kernels/check_parameters.h).  It stays set: a reference, a NumPy view say,
  // may be written at any later time.
  bool parameters_exposed() const {
    return parameters_exposed_;
  }

  // Whole arenas, for the backends and for tools that sweep every field.  With a sync
  // hook every field of the arena is first made current, and the non-const ones also mark
  // every field of it changed (the next device call uploads the whole arena).
  T* data_arena();
  T* param_arena();
  double* time_data();
  int* status_data();
  const T* data_arena() const;
  const T* param_arena() const;
  const double* time_data() const;
  const int* status_data() const;
  std::span<T> data_span() {
    return {data_arena(), data_.size()};
  }
  std::span<T> param_span() {
    return {param_arena(), param_.size()};
  }

  // The host arenas as they are, without synchronisation: for a sync hook's copies.
  struct HostArenas {
    T* data;
    T* param;
    double* time;
    int* status;
  };
  HostArenas unsynchronized() {
    parameters_exposed_ = true;
    return {data_.data(), param_.data(), time_.data(), status_.data()};
  }

  // Installs the hook that keeps the host copy coherent; null (the default) for none.
  void set_sync(BatchSync* sync) {
    sync_ = sync;
  }
  BatchSync* sync() const {
    return sync_;
  }

 private:
#define ZW_X(name, count)                     \
  int count_##name() const {                  \
    [[maybe_unused]] const Sizes& s = sizes_; \
    return (count);                           \
  }
  ZW_DATA_FIELDS(ZW_X)
  ZW_PARAM_FIELDS(ZW_X)
#undef ZW_X
  template <class R>
  FieldRef<R> field_ref(R* arena, int offset, int width) const {
    return FieldRef<R>(arena + offset * padded_, width, n_, padded_);
  }
  // the OutputNotKept of an accessor of an output this batch does not keep
  [[noreturn]] void not_kept(FieldId f) const;
  // every field of one arena through the hook
  void sync_arena(ArenaId arena, bool write) const;
  // every field made current on the host; returns the sizes, for the copy constructor
  const Sizes& read_all() const;
  void check_instance(std::int64_t i) const;
  void put(ArenaVector<T>& arena, std::int64_t i, int offset, std::span<const double> values);
  void fill_state(std::int64_t i, const Model& model);
  void fill_parameters(std::int64_t i, const Model& model);
  std::vector<std::pair<int, std::span<const double>>> parameter_defaults(const Model& model) const;

  Sizes sizes_;
  Layout layout_;
  std::int64_t n_;
  std::int64_t padded_;
  ArenaVector<T> data_;
  ArenaVector<T> param_;
  ArenaVector<double> time_;
  ArenaVector<int> status_;
  BatchSync* sync_ = nullptr;
  std::array<bool, kFieldCount> kept_;
  bool parameters_exposed_ = false;
};

extern template class FieldRef<float>;
extern template class FieldRef<double>;
extern template class FieldRef<const float>;
extern template class FieldRef<const double>;
extern template class Batch<float>;
extern template class Batch<double>;

}  // namespace zwang
