// The shared arrays of a Model in the backend's scalar type, packed into one integer and one
// real buffer so that a backend can copy them anywhere (host or device) and point a
// ModelView at the copies.
#pragma once

#include <vector>

#include "kernels/model_view.h"
#include "zwang/model.hpp"

namespace zwang {

template <class T>
class ModelArrays {
 public:
  explicit ModelArrays(const Model& model);

  const std::vector<int>& ints() const { return ints_; }
  const std::vector<T>& reals() const { return reals_; }

  // The view with its pointers into copies of ints() and reals() at these addresses.
  ModelView<T> view(const int* ints, const T* reals) const;
  // The view into this object's own buffers.
  ModelView<T> view() const { return view(ints_.data(), reals_.data()); }

 private:
  struct Offsets {
#define ZW_X(name) int name;
    ZW_MODEL_ARRAYS(ZW_VIEW_INT)
    ZW_PLAN_INTS(ZW_X)
    ZW_MODEL_ARRAYS(ZW_VIEW_REAL)
    ZW_X(magnetic)
    ZW_PLAN_REALS(ZW_X)
#undef ZW_X
  };
  Sizes sizes_;
  double timestep_;
  int integrator_;
  int neq_, nnhc_, iterations_;
  double tolerance_;
  int cone_;
  double impratio_;
  int ncollision_, contact_efcadr_;
  int disableflags_;
  Offsets offsets_;
  std::vector<int> ints_;
  std::vector<T> reals_;
};

extern template class ModelArrays<float>;
extern template class ModelArrays<double>;

}  // namespace zwang
