// The orders of the tree stages on a lane group (kernels/group.h), from the schedule in ModelView
// (ZW_SCHEDULE_INTS, host/model/group_schedule.hpp):
//   down_tree(g, m, f)   f(b) for the bodies 1 … nbody − 1, each after its parent: in index order
//                        on one lane; on G > 1 lanes one each() per level, a body per item
//   up_tree(g, m, f)     each after its children: in decreasing index on one lane; on G > 1
//                        lanes the levels from the deepest, a body per item
// f(b) may read what f wrote for b's parent (down) or children (up), and writes only b's rows,
// so the bodies of one level are independent items.
#pragma once

#include "kernels/hd.h"
#include "kernels/model_view.h"

namespace zwang {

template <class Grp, class T, class F>
ZW_HD ZW_INLINE void down_tree(Grp& g, const ModelView<T>& m, F&& f) {
  if constexpr (Grp::size == 1) {
    g.one([&]() ZW_ITEM {
      for (int b = 1; b < m.s.nbody; ++b) f(b);
    });
  } else {
    for (int l = 0; l < m.nlevel; ++l) {
      const int* level = m.level_body + m.level_adr[l];
      g.each(m.level_adr[l + 1] - m.level_adr[l], [&](int i) ZW_ITEM { f(level[i]); });
    }
  }
}

template <class Grp, class T, class F>
ZW_HD ZW_INLINE void up_tree(Grp& g, const ModelView<T>& m, F&& f) {
  if constexpr (Grp::size == 1) {
    g.one([&]() ZW_ITEM {
      for (int b = m.s.nbody - 1; b > 0; --b) f(b);
    });
  } else {
    for (int l = m.nlevel - 1; l >= 0; --l) {
      const int* level = m.level_body + m.level_adr[l];
      g.each(m.level_adr[l + 1] - m.level_adr[l], [&](int i) ZW_ITEM { f(level[i]); });
    }
  }
}

}  // namespace zwang
