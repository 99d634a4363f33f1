#include "host/batch/hard_conflict.hpp"

#include "host/model/hard_rows.hpp"
#include "kernels/constraint_solver.h"

namespace zwang {

template <class T>
std::string hard_conflict(const Model& model, const Batch<T>& batch, std::int64_t i) {
  OneInstance one(model);
  // the state, the inputs and the parameters of instance i, row by row
  for (int k = 0; k < kFieldCount; ++k) {
    const FieldId f = static_cast<FieldId>(k);
    if (f == FieldId::time || f == FieldId::status || is_output(f)) continue;
    const FieldRows rows = field_rows(f, one.view().lay, one.view().s);
    const std::span<double> arena = rows.arena == ArenaId::kData ? one.data() : one.param();
    const FieldRef<const T> from = batch.field(f);
    for (int j = 0; j < from.width(); ++j) arena[rows.row + j] = static_cast<double>(from(i, j));
  }
  one.time() = batch.time()[i];
  return hard_conflict_clauses(model, one, hard_conflict_tolerance<T>(), hard_reach<T>());
}

template std::string hard_conflict(const Model&, const Batch<float>&, std::int64_t);
template std::string hard_conflict(const Model&, const Batch<double>&, std::int64_t);

}  // namespace zwang
