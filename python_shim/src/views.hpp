// The batch's fields as NumPy views without copies. A field with `width` values per instance
// keeps element j of instance i at base[j * ld + i] (ld = the padded instance count), so its
// view of shape (N, width) has strides (1, ld) elements, and a field of `count` entities of `k`
// values, (N, count, k) with strides (1, k ld, ld). The fields are listed from
// kernels/layout.h.
#pragma once

#include <nanobind/ndarray.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bindings.hpp"
#include "kernels/layout.h"

namespace zwang::python {

using Array = nb::ndarray<nb::numpy>;

// a field of kernels/layout.h that Python views
struct FieldInfo {
  const char* name;
};

#define ZW_X(name, count) {#name},
inline constexpr FieldInfo kDataFields[] = {ZW_DATA_FIELDS(ZW_X)};
inline constexpr FieldInfo kParamFields[] = {ZW_PARAM_FIELDS(ZW_X)};
#undef ZW_X

// Data fields left out of the views: the packed mass matrix (mass_matrix() gives it dense) and
// the body velocities at the world origin (cvel gives MuJoCo's).
inline bool hidden(std::string_view name) {
  return name == "qM" || name == "cvel";
}

inline const FieldInfo& data_field(std::string_view name) {
  for (const FieldInfo& f : kDataFields) {
    if (name == f.name) return f;
  }
  throw std::logic_error("no data field " + std::string(name));
}

// the per-instance shape of a field, (nbody, 3) rather than (3 nbody)
inline std::vector<std::size_t> per_instance_shape(std::string_view name, const Sizes& s) {
  const std::vector<int> shape = field_shape(field_id(name), s);
  return {shape.begin(), shape.end()};
}

// a view of `per_instance` values per instance whose element j of instance i is at
// base[j * ld + i]
inline nb::object strided_view(nb::handle owner, void* base, nb::dlpack::dtype dtype,
                               std::int64_t n, std::int64_t ld,
                               const std::vector<std::size_t>& per_instance) {
  std::vector<std::size_t> shape{static_cast<std::size_t>(n)};
  std::vector<std::int64_t> strides{1};
  shape.insert(shape.end(), per_instance.begin(), per_instance.end());
  // row-major over the per-instance axes, in units of ld
  std::vector<std::int64_t> tail(per_instance.size());
  std::int64_t step = ld;
  for (std::size_t k = per_instance.size(); k-- > 0;) {
    tail[k] = step;
    step *= static_cast<std::int64_t>(per_instance[k]);
  }
  strides.insert(strides.end(), tail.begin(), tail.end());
  return nb::cast(Array(base, shape.size(), shape.data(), owner, strides.data(), dtype),
                  nb::rv_policy::automatic);
}

// an owned NumPy array of shape `shape` over a heap buffer
template <class T>
nb::object owned(std::vector<T>&& values, std::vector<std::size_t> shape) {
  auto* p = new std::vector<T>(std::move(values));
  nb::capsule owner(p, [](void* q) noexcept { delete static_cast<std::vector<T>*>(q); });
  return nb::cast(Array(p->data(), shape.size(), shape.data(), owner, nullptr, nb::dtype<T>()),
                  nb::rv_policy::automatic);
}

}  // namespace zwang::python
