// The data rows a backend writes back after a call from an instance's own copy of its rows.
#pragma once

#include <utility>
#include <vector>

#include "zwang/batch.hpp"

namespace zwang {

// the data rows of the outputs a batch keeps (Batch::kept) as [begin, end) ranges, adjacent
// fields merged: one range when it keeps them all
template <class T>
std::vector<std::pair<int, int>> kept_output_rows(const Batch<T>& batch) {
  std::vector<std::pair<int, int>> out;
  for (int k = 0; k < kFieldCount; ++k) {
    const FieldId f = static_cast<FieldId>(k);
    if (!is_output(f) || !batch.kept(f)) continue;
    const FieldRows r = field_rows(f, batch.layout(), batch.sizes());
    if (r.rows == 0) continue;
    if (!out.empty() && out.back().second == r.row) {
      out.back().second = r.row + r.rows;
    } else {
      out.emplace_back(r.row, r.row + r.rows);
    }
  }
  return out;
}

}  // namespace zwang
