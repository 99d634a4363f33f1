#include "host/model/arrays.hpp"

#include "host/model/constraint_plan.hpp"
#include "host/model/group_schedule.hpp"

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
      disableflags_(model.disableflags),
      wrap_rules_(model.wrap_rules),
      rules_(model.rules) {
  const RowPlan plan = plan_rows(model);
  ncollision_ = plan.ncollision;
  contact_efcadr_ = plan.contact_efcadr;
  const GroupSchedule schedule = make_group_schedule(model, plan.efc_tree);
  nlevel_ = schedule.nlevel();
  nentry_ = schedule.nentry();
  nhess_ = schedule.nhess();
  // each array appended to its buffer, its offset kept
  const auto add_ints = [&](int& offset, const std::vector<int>& values) {
    offset = static_cast<int>(ints_.size());
    ints_.insert(ints_.end(), values.begin(), values.end());
  };
  const auto add_reals = [&](int& offset, const auto& values) {
    offset = static_cast<int>(reals_.size());
    for (double x : values) reals_.push_back(static_cast<T>(x));
  };
#define ZW_X(name) add_ints(offsets_.name, as_ints(model.name));
  ZW_MODEL_ARRAYS(ZW_VIEW_INT)
#undef ZW_X
#define ZW_X(name) add_ints(offsets_.name, plan.name);
  ZW_PLAN_INTS(ZW_X)
#undef ZW_X
#define ZW_X(name) add_ints(offsets_.name, schedule.name);
  ZW_SCHEDULE_INTS(ZW_X)
#undef ZW_X
#define ZW_X(name) add_reals(offsets_.name, model.name);
  ZW_MODEL_ARRAYS(ZW_VIEW_REAL)
  ZW_X(magnetic)
#undef ZW_X
#define ZW_X(name) add_reals(offsets_.name, plan.name);
  ZW_PLAN_REALS(ZW_X)
#undef ZW_X
  // never empty, so that the pointers of a model without actuators stay valid
  ints_.push_back(0);
  reals_.push_back(T(0));
}

template class ModelArrays<float>;
template class ModelArrays<double>;

}  // namespace zwang
