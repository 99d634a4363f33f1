// \brief N instances of one model: state, parameters and outputs stored structure-of-arrays.
// Element j of a field of instance i is at arena[(offset + j) * padded_size + i], so one
// element of all instances is contiguous (DESIGN.md §2, kernels/layout.h).
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "kernels/layout.h"
#include "zwang/model.hpp"

namespace zwang {

// \brief One field of every instance of a batch.
template <class T>
class FieldRef {
 public:
  FieldRef(T* base, int width, std::int64_t instances, std::int64_t ld)
      : base_(base), width_(width), n_(instances), ld_(ld) {}

  int width() const { return width_; }  // values per instance
  std::int64_t instances() const { return n_; }

  // \brief Element j of instance i, unchecked.
  T& operator()(std::int64_t i, int j) const { return base_[j * ld_ + i]; }
  // \brief Element j of instance i; std::out_of_range names the bad index.
  T& at(std::int64_t i, int j) const;

  // \brief Element j of every instance, contiguous.
  std::span<T> column(int j) const;

  // \brief The values of instance i.
  std::vector<T> get(std::int64_t i) const;
  // \brief Sets the values of instance i; std::invalid_argument if the size is not width().
  void set(std::int64_t i, std::span<const T> values) const;
  // \brief Sets the same values on every instance.
  void fill(std::span<const T> values) const;

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
  // \brief n instances, every one at the model's default state and parameters.
  Batch(const Model& model, std::int64_t n);

  std::int64_t size() const { return n_; }
  // \brief The stride between rows of an arena: the instance count rounded up to kPadding, or
  // the count itself below kPadding.
  std::int64_t padded_size() const { return padded_; }
  static constexpr std::int64_t kPadding = 32;

  const Sizes& sizes() const { return sizes_; }
  const Layout& layout() const { return layout_; }

#define ZW_X(name, count)                                     \
  FieldRef<T> name() {                                        \
    return field(data_.data(), layout_.name, count_##name()); \
  }
  ZW_DATA_FIELDS(ZW_X)
#undef ZW_X
#define ZW_X(name, count)                                      \
  FieldRef<T> name() {                                         \
    return field(param_.data(), layout_.name, count_##name()); \
  }
  ZW_PARAM_FIELDS(ZW_X)
#undef ZW_X

  // \brief Simulated time of each instance (s).
  std::span<double> time() {
    return {time_.data(), static_cast<std::size_t>(n_)};
  }
  // \brief StatusBit flags of each instance; an instance with a bit set does not advance, except
  // for kStatusNotConverged alone (a warning: the constraint solver reached its cap).
  std::span<int> status() {
    return {status_.data(), static_cast<std::size_t>(n_)};
  }
  std::span<const double> time() const {
    return {time_.data(), static_cast<std::size_t>(n_)};
  }
  std::span<const int> status() const {
    return {status_.data(), static_cast<std::size_t>(n_)};
  }

  // \brief qpos = qpos0, every other state and output 0, time = 0, status cleared.
  void reset_state(std::int64_t i, const Model& model);
  // \brief Every parameter of instance i back to the model's value.
  void reset_parameters(std::int64_t i, const Model& model);

  // arenas, for the backends
  T* data_arena() {
    return data_.data();
  }
  T* param_arena() {
    return param_.data();
  }
  double* time_data() {
    return time_.data();
  }
  int* status_data() {
    return status_.data();
  }
  std::span<T> data_span() {
    return data_;
  }
  std::span<T> param_span() {
    return param_;
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
  FieldRef<T> field(T* arena, int offset, int width) {
    return FieldRef<T>(arena + offset * padded_, width, n_, padded_);
  }
  void check_instance(std::int64_t i) const;
  void put(std::vector<T>& arena, std::int64_t i, int offset, std::span<const double> values);
  void fill_state(std::int64_t i, const Model& model);
  void fill_parameters(std::int64_t i, const Model& model);
  std::vector<std::pair<int, std::span<const double>>> parameter_defaults(const Model& model) const;

  Sizes sizes_;
  Layout layout_;
  std::int64_t n_;
  std::int64_t padded_;
  std::vector<T> data_;
  std::vector<T> param_;
  std::vector<double> time_;
  std::vector<int> status_;
};

extern template class FieldRef<float>;
extern template class FieldRef<double>;
extern template class Batch<float>;
extern template class Batch<double>;

}  // namespace zwang
