// The kernels' view of instance i of a host batch, with per-thread scratch.
#pragma once

#include <cstdint>

#include "kernels/instance.h"
#include "kernels/model_view.h"
#include "zwang/batch.hpp"

namespace zwang {

template <class T>
Instance<T> instance_view(Batch<T>& batch, const ModelView<T>& m, std::int64_t i, T* work) {
  const std::int64_t ld = batch.padded_size();
  return Instance<T>{{batch.data_arena() + i, ld}, {batch.param_arena() + i, ld}, {work, 1}, &m.lay,
                     batch.time_data() + i,        batch.status_data() + i};
}

}  // namespace zwang
