#include "zwang/batch.hpp"

#include <fmt/format.h>

#include "host/model/one_instance.hpp"

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <iterator>
#include <limits>
#include <new>
#include <stdexcept>
#include <string>

namespace zwang {

namespace {
constexpr std::size_t kHugePage = std::size_t(2) << 20;
}

void* arena_allocate(std::size_t bytes) {
  if (bytes < kHugePage) return ::operator new(bytes, std::align_val_t(64));
  void* p = ::operator new(bytes, std::align_val_t(kHugePage));
#if defined(__linux__)
  madvise(p, bytes, MADV_HUGEPAGE);  // advice only: without huge pages the arena works the same
#endif
  return p;
}

void arena_deallocate(void* p, std::size_t bytes) {
  ::operator delete(p, std::align_val_t(bytes < kHugePage ? 64 : kHugePage));
}

template <class T>
void FieldRef<T>::check_instance(std::int64_t i) const {
  if (i < 0 || i >= n_)
    throw std::out_of_range(fmt::format("instance {} is not in [0, {})", i, n_));
}

template <class T>
void FieldRef<T>::check_size(std::size_t size) const {
  if (size != static_cast<std::size_t>(width_)) {
    throw std::invalid_argument(
        fmt::format("expected {} values per instance, got {}", width_, size));
  }
}

namespace {

// each field's name and count expression in kernels/layout.h ("s.nv", "6 * s.nbody", "3", "1")
struct FieldText {
  const char* name;
  std::string_view count;
};
constexpr FieldText kFieldTexts[] = {
#define ZW_X(name, count) {#name, #count},
    ZW_DATA_FIELDS(ZW_X) ZW_PARAM_FIELDS(ZW_X)
#undef ZW_X
        {"time", "1"},
    {"status", "1"}};
static_assert(std::size(kFieldTexts) == kFieldCount);

}  // namespace

const char* field_name(FieldId f) {
  return kFieldTexts[static_cast<int>(f)].name;
}

FieldId field_id(std::string_view name) {
  for (int k = 0; k < kFieldCount; ++k) {
    if (name == kFieldTexts[k].name) return static_cast<FieldId>(k);
  }
  throw std::invalid_argument(fmt::format("no field is named '{}'", name));
}

FieldRows field_rows(FieldId f, const Layout& l, [[maybe_unused]] const Sizes& s) {
  switch (f) {
#define ZW_X(name, count) \
  case FieldId::name:     \
    return {ArenaId::kData, l.name, static_cast<int>(count)};
    ZW_DATA_FIELDS(ZW_X)
#undef ZW_X
#define ZW_X(name, count) \
  case FieldId::name:     \
    return {ArenaId::kParam, l.name, static_cast<int>(count)};
    ZW_PARAM_FIELDS(ZW_X)
#undef ZW_X
    case FieldId::time:
      return {ArenaId::kTime, 0, 1};
    case FieldId::status:
      return {ArenaId::kStatus, 0, 1};
  }
  throw std::invalid_argument(fmt::format("no field has id {}", static_cast<int>(f)));
}

std::string_view field_count(FieldId f) {
  const std::string_view e = kFieldTexts[static_cast<int>(f)].count;
  const std::size_t at = e.find("s.");
  return at == std::string_view::npos ? std::string_view() : e.substr(at + 2);
}

std::vector<int> field_shape(FieldId f, const Sizes& sizes) {
  const int width = field_rows(f, make_layout(sizes), sizes).rows;
  const std::string_view e = kFieldTexts[static_cast<int>(f)].count;
  if (e == "1") return {};
  // "k * s.name": k values for each of the count's objects
  const std::size_t star = e.find('*');
  int k = 0;
  if (star != std::string_view::npos && !field_count(f).empty()) {
    const std::string_view factor = e.substr(0, e.find_last_not_of(' ', star - 1) + 1);
    std::from_chars(factor.data(), factor.data() + factor.size(), k);
  }
  if (k > 0) return {width / k, k};
  return {width};
}

template <class T>
T& FieldRef<T>::at(std::int64_t i, int j) const {
  check_instance(i);
  if (j < 0 || j >= width_)
    throw std::out_of_range(fmt::format("element {} is not in [0, {})", j, width_));
  return (*this)(i, j);
}

template <class T>
std::span<T> FieldRef<T>::column(int j) const {
  if (j < 0 || j >= width_)
    throw std::out_of_range(fmt::format("element {} is not in [0, {})", j, width_));
  return {base_ + j * ld_, static_cast<std::size_t>(n_)};
}

template <class T>
std::vector<typename FieldRef<T>::Value> FieldRef<T>::get(std::int64_t i) const {
  check_instance(i);
  std::vector<Value> v(width_);
  for (int j = 0; j < width_; ++j) v[j] = (*this)(i, j);
  return v;
}

// the host copy made current before the members are copied: read_all() runs in the first
// member's initialiser
template <class T>
Batch<T>::Batch(const Batch& other)
    : sizes_(other.read_all()),
      layout_(other.layout_),
      n_(other.n_),
      padded_(other.padded_),
      data_(other.data_),
      param_(other.param_),
      time_(other.time_),
      status_(other.status_),
      kept_(other.kept_),
      parameters_exposed_(other.parameters_exposed_) {}

template <class T>
const Sizes& Batch<T>::read_all() const {
  for (const ArenaId arena : {ArenaId::kData, ArenaId::kParam, ArenaId::kTime, ArenaId::kStatus})
    sync_arena(arena, false);
  return sizes_;
}

template <class T>
Batch<T>::Batch(const Model& model, std::int64_t n,
                const std::optional<std::vector<FieldId>>& outputs)
    : sizes_((model.validate(), model.sizes())), layout_(make_layout(sizes_)), n_(n) {
  if (n < 1)
    throw std::invalid_argument(fmt::format("a batch needs at least one instance (got {})", n));
  kept_.fill(true);
  if (outputs) {
    for (int k = 0; k < kFieldCount; ++k) kept_[k] = !is_output(static_cast<FieldId>(k));
    for (const FieldId f : *outputs) {
      if (static_cast<int>(f) < 0 || static_cast<int>(f) >= kFieldCount)
        throw std::invalid_argument(
            fmt::format("outputs: no field has id {}", static_cast<int>(f)));
      if (is_parameter(f)) {
        throw std::invalid_argument(
            fmt::format("outputs: {} is a parameter, not an output", field_name(f)));
      }
      kept_[static_cast<int>(f)] = true;
    }
  }
  // the size in floating point first: with ~2^62 instances the integer products would overflow
  // padding adds less than four cache lines of values (below)
  const double bytes = (static_cast<double>(n) + (n < kPadding ? 0 : 4 * 64 / sizeof(T))) *
                       ((layout_.data_rows + static_cast<double>(layout_.param_rows)) * sizeof(T) +
                        sizeof(double) + sizeof(int));
  const auto too_large = [&] {
    return std::runtime_error(
        fmt::format("a batch of {} instances needs {:.3g} GiB, more than can be allocated", n,
                    bytes / (1 << 30)));
  };
  if (bytes > static_cast<double>(std::numeric_limits<std::ptrdiff_t>::max())) throw too_large();
  // fewer than kPadding instances are not padded: a batch of one instance of a large model
  // needs one instance's memory, not kPadding instances'.  Above, rows are an odd number of
  // cache lines apart, and not one line past a multiple of 4 KiB.  A pack of instances reads one
  // line of each of its rows; with the L1's set taken from address bits 6–11, a stride of 2^k
  // lines puts all those lines in 64 / 2^k sets (132 lines, 1056 float64 instances: 16 of 64),
  // which evict each other.  Of the odd strides, 4 KiB + 64 bytes ran step(1) 10–20 % slower
  // than its odd neighbours (humanoid.xml, 1024 instances, AVX2, both precisions).
  if (n < kPadding) {
    padded_ = n;
  } else {
    constexpr std::int64_t line = 64 / sizeof(T);
    std::int64_t lines = (n + line - 1) / line;
    if (lines % 2 == 0) ++lines;
    if (lines % 64 == 1) lines += 2;
    padded_ = lines * line;
  }
  try {
    data_.assign(static_cast<std::size_t>(layout_.data_rows) * padded_, T(0));
    param_.assign(static_cast<std::size_t>(layout_.param_rows) * padded_, T(0));
    time_.assign(static_cast<std::size_t>(padded_), 0.0);
    status_.assign(static_cast<std::size_t>(padded_), 0);
  } catch (const std::bad_alloc&) {
    throw too_large();
  } catch (const std::length_error&) {
    throw too_large();
  }
  // every instance, padding included (a backend may step it harmlessly), at the defaults:
  // qpos0 and the model's parameters, row by row
  const auto rows = [&](ArenaVector<T>& arena, int offset, std::span<const double> values) {
    for (std::size_t j = 0; j < values.size(); ++j) {
      std::fill_n(arena.begin() + (offset + j) * padded_, padded_, static_cast<T>(values[j]));
    }
  };
  rows(data_, layout_.qpos, model.qpos0);
  rows(data_, layout_.mocap_pos, mocap_pos0(model));
  rows(data_, layout_.mocap_quat, mocap_quat0(model));
  for (const auto& [offset, values] : parameter_defaults(model)) rows(param_, offset, values);
}

template <class T>
std::vector<FieldId> Batch<T>::outputs() const {
  std::vector<FieldId> out;
  for (int k = 0; k < kFieldCount; ++k) {
    const FieldId f = static_cast<FieldId>(k);
    if (is_output(f) && kept(f)) out.push_back(f);
  }
  return out;
}

template <class T>
void Batch<T>::not_kept(FieldId f) const {
  std::string names;
  for (const FieldId k : outputs())
    names += fmt::format("{}{}", names.empty() ? "" : ", ", field_name(k));
  throw OutputNotKept(fmt::format(
      "{} is not among the outputs this simulator keeps current ({}): list it in its outputs "
      "when creating the simulator",
      field_name(f), names.empty() ? "none" : names));
}

template <class T>
FieldRef<T> Batch<T>::field(FieldId f) {
  const FieldRows r = field_rows(f, layout_, sizes_);
  if (r.arena != ArenaId::kData && r.arena != ArenaId::kParam) {
    throw std::invalid_argument(fmt::format(
        "{} is not a data or parameter field: time() and status() give it", field_name(f)));
  }
  if (!kept(f)) not_kept(f);
  if (sync_) sync_->host_write(f);
  if (r.arena == ArenaId::kParam) parameters_exposed_ = true;
  return field_ref(r.arena == ArenaId::kData ? data_.data() : param_.data(), r.row, r.rows);
}

template <class T>
FieldRef<const T> Batch<T>::field(FieldId f) const {
  const FieldRows r = field_rows(f, layout_, sizes_);
  if (r.arena != ArenaId::kData && r.arena != ArenaId::kParam) {
    throw std::invalid_argument(fmt::format(
        "{} is not a data or parameter field: time() and status() give it", field_name(f)));
  }
  if (!kept(f)) not_kept(f);
  if (sync_) sync_->host_read(f);
  return field_ref(const_cast<T*>(r.arena == ArenaId::kData ? data_.data() : param_.data()), r.row,
                   r.rows);
}

template <class T>
void Batch<T>::sync_arena(ArenaId arena, bool write) const {
  if (!sync_) return;
  for (int k = 0; k < kFieldCount; ++k) {
    const FieldId f = static_cast<FieldId>(k);
    if (field_rows(f, layout_, sizes_).arena != arena) continue;
    if (write) {
      sync_->host_write(f);
    } else {
      sync_->host_read(f);
    }
  }
}

template <class T>
T* Batch<T>::data_arena() {
  sync_arena(ArenaId::kData, true);
  return data_.data();
}

template <class T>
T* Batch<T>::param_arena() {
  sync_arena(ArenaId::kParam, true);
  parameters_exposed_ = true;
  return param_.data();
}

template <class T>
double* Batch<T>::time_data() {
  sync_arena(ArenaId::kTime, true);
  return time_.data();
}

template <class T>
int* Batch<T>::status_data() {
  sync_arena(ArenaId::kStatus, true);
  return status_.data();
}

template <class T>
const T* Batch<T>::data_arena() const {
  sync_arena(ArenaId::kData, false);
  return data_.data();
}

template <class T>
const T* Batch<T>::param_arena() const {
  sync_arena(ArenaId::kParam, false);
  return param_.data();
}

template <class T>
const double* Batch<T>::time_data() const {
  sync_arena(ArenaId::kTime, false);
  return time_.data();
}

template <class T>
const int* Batch<T>::status_data() const {
  sync_arena(ArenaId::kStatus, false);
  return status_.data();
}

template <class T>
void Batch<T>::check_instance(std::int64_t i) const {
  if (i < 0 || i >= n_)
    throw std::out_of_range(fmt::format("instance {} is not in [0, {})", i, n_));
}

template <class T>
void Batch<T>::put(ArenaVector<T>& arena, std::int64_t i, int offset,
                   std::span<const double> values) {
  for (std::size_t j = 0; j < values.size(); ++j) {
    arena[(offset + j) * padded_ + i] = static_cast<T>(values[j]);
  }
}

template <class T>
void Batch<T>::fill_state(std::int64_t i, const Model& model) {
  for (int r = 0; r < layout_.data_rows; ++r) data_[r * padded_ + i] = T(0);
  put(data_, i, layout_.qpos, model.qpos0);
  put(data_, i, layout_.mocap_pos, mocap_pos0(model));
  put(data_, i, layout_.mocap_quat, mocap_quat0(model));
  time_[i] = 0;
  status_[i] = 0;
}

// each parameter field's row offset and the model's values for it (host/model/one_instance.hpp)
template <class T>
std::vector<std::pair<int, std::span<const double>>> Batch<T>::parameter_defaults(
    const Model& model) const {
  return zwang::parameter_defaults(model, layout_);
}

template <class T>
void Batch<T>::fill_parameters(std::int64_t i, const Model& model) {
  for (const auto& [offset, values] : parameter_defaults(model)) put(param_, i, offset, values);
}

// a reset writes every row of its arenas: through the hook, all of their fields
template <class T>
void Batch<T>::reset_state(std::int64_t i, const Model& model) {
  check_instance(i);
  for (ArenaId a : {ArenaId::kData, ArenaId::kTime, ArenaId::kStatus}) sync_arena(a, true);
  fill_state(i, model);
}

template <class T>
void Batch<T>::reset_parameters(std::int64_t i, const Model& model) {
  check_instance(i);
  sync_arena(ArenaId::kParam, true);
  // `model` may be another than the one the backend checked
  parameters_exposed_ = true;
  fill_parameters(i, model);
}

template class FieldRef<float>;
template class FieldRef<double>;
template class FieldRef<const float>;
template class FieldRef<const double>;
template class Batch<float>;
template class Batch<double>;

}  // namespace zwang
