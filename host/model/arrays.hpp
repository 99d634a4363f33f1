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
  ModelView<T> view(const int* ints, const T* reals) const { return view_as<T>(ints, reals); }
  // The same over a copy of reals() in another real type R, each value converted from T.
  template <class R>
  ModelView<R> view_as(const int* ints, const R* reals) const;
  // The view into this object's own buffers.
  ModelView<T> view() const { return view(ints_.data(), reals_.data()); }

 private:
  struct Offsets {
#define ZW_X(name) int name;
    ZW_MODEL_ARRAYS(ZW_VIEW_INT)
    ZW_PLAN_INTS(ZW_X)
    ZW_SCHEDULE_INTS(ZW_X)
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
  int wrap_rules_;
  int rules_;
  int nlevel_, nentry_, nhess_;
  Offsets offsets_;
  std::vector<int> ints_;
  std::vector<T> reals_;
};

template <class T>
template <class R>
ModelView<R> ModelArrays<T>::view_as(const int* ints, const R* reals) const {
  ModelView<R> v{};
  v.s = sizes_;
  v.lay = make_layout(sizes_);
  v.timestep = timestep_;
  v.integrator = integrator_;
  v.neq = neq_;
  v.nnhc = nnhc_;
  v.iterations = iterations_;
  v.tolerance = static_cast<R>(tolerance_);
  v.cone = cone_;
  v.impratio = static_cast<R>(impratio_);
  v.ncollision = ncollision_;
  v.contact_efcadr = contact_efcadr_;
  v.disableflags = disableflags_;
  v.wrap_rules = wrap_rules_;
  v.rules = rules_;
  v.nlevel = nlevel_;
  v.nentry = nentry_;
  v.nhess = nhess_;
#define ZW_X(name) v.name = ints + offsets_.name;
  ZW_MODEL_ARRAYS(ZW_VIEW_INT)
  ZW_PLAN_INTS(ZW_X)
  ZW_SCHEDULE_INTS(ZW_X)
#undef ZW_X
#define ZW_X(name) v.name = reals + offsets_.name;
  ZW_MODEL_ARRAYS(ZW_VIEW_REAL)
  ZW_X(magnetic)
  ZW_PLAN_REALS(ZW_X)
#undef ZW_X
  return v;
}

extern template class ModelArrays<float>;
extern template class ModelArrays<double>;

}  // namespace zwang
