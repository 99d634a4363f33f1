#include "host/model/arrays.hpp"

#include "host/model/constraint_plan.hpp"

namespace zwang {

namespace {

const std::vector<int>& as_ints(const std::vector<int>& v) {
  return v;
}

template <class E>
std::vector<int> as_ints(const std::vector<E>& v) {
  std::vector<int> out;
  for (E t : v) out.push_back(static_cast<int>(t));
  return out;
}

}  // namespace

template <class T>
ModelArrays<T>::ModelArrays(const Model& model)
    : sizes_(model.sizes()),
      timestep_(model.timestep),
      integrator_(model.integrator),
      neq_(model.neq),
      nnhc_(model.nnhc),
      iterations_(model.iterations),
      tolerance_(model.tolerance),
      cone_(model.cone),
      impratio_(model.impratio),
      disableflags_(model.disableflags) {
  const RowPlan plan = plan_rows(model);
  ncollision_ = plan.ncollision;
  contact_efcadr_ = plan.contact_efcadr;
#define ZW_X(name)                                   \
  offsets_.name = static_cast<int>(ints_.size());    \
  {                                                  \
    const std::vector<int>& v = as_ints(model.name); \
    ints_.insert(ints_.end(), v.begin(), v.end());   \
  }
  ZW_MODEL_ARRAYS(ZW_VIEW_INT)
#undef ZW_X
#define ZW_X(name)                                \
  offsets_.name = static_cast<int>(ints_.size()); \
  ints_.insert(ints_.end(), plan.name.begin(), plan.name.end());
  ZW_PLAN_INTS(ZW_X)
#undef ZW_X
#define ZW_X(name)                                 \
  offsets_.name = static_cast<int>(reals_.size()); \
  for (double x : model.name) reals_.push_back(static_cast<T>(x));
  ZW_MODEL_ARRAYS(ZW_VIEW_REAL)
  ZW_X(magnetic)
#undef ZW_X
#define ZW_X(name)                                 \
  offsets_.name = static_cast<int>(reals_.size()); \
  for (double x : plan.name) reals_.push_back(static_cast<T>(x));
  ZW_PLAN_REALS(ZW_X)
#undef ZW_X
  // never empty, so that the pointers of a model without actuators stay valid
  ints_.push_back(0);
  reals_.push_back(T(0));
}

template <class T>
ModelView<T> ModelArrays<T>::view(const int* ints, const T* reals) const {
  ModelView<T> v{};
  v.s = sizes_;
  v.lay = make_layout(sizes_);
  v.timestep = timestep_;
  v.integrator = integrator_;
  v.neq = neq_;
  v.nnhc = nnhc_;
  v.iterations = iterations_;
  v.tolerance = static_cast<T>(tolerance_);
  v.cone = cone_;
  v.impratio = static_cast<T>(impratio_);
  v.ncollision = ncollision_;
  v.contact_efcadr = contact_efcadr_;
  v.disableflags = disableflags_;
#define ZW_X(name) v.name = ints + offsets_.name;
  ZW_MODEL_ARRAYS(ZW_VIEW_INT)
  ZW_PLAN_INTS(ZW_X)
#undef ZW_X
#define ZW_X(name) v.name = reals + offsets_.name;
  ZW_MODEL_ARRAYS(ZW_VIEW_REAL)
  ZW_X(magnetic)
  ZW_PLAN_REALS(ZW_X)
#undef ZW_X
  return v;
}

template class ModelArrays<float>;
template class ModelArrays<double>;

}  // namespace zwang
