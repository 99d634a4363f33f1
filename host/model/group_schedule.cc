#include "host/model/group_schedule.hpp"

#include <algorithm>
#include <numeric>
#include <vector>

namespace zwang {

void tree_entries(const std::vector<int>& parent, std::vector<int>& row, std::vector<int>& col,
                  std::vector<int>& adr) {
  adr.push_back(0);
  for (int i = 0; i < static_cast<int>(parent.size()); ++i) {
    std::vector<int> cols;
    for (int j = i; j >= 0; j = parent[j]) cols.push_back(j);
    std::reverse(cols.begin(), cols.end());
    for (int j : cols) {
      row.push_back(i);
      col.push_back(j);
    }
    adr.push_back(static_cast<int>(row.size()));
  }
}

GroupSchedule make_group_schedule(const Model& m, const std::vector<int>& efc_tree) {
  GroupSchedule s;
  // depth 1 for the world's children; parents come before their children (validate())
  std::vector<int> depth(static_cast<std::size_t>(m.nbody), 0);
  int deepest = 0;
  for (int b = 1; b < m.nbody; ++b) {
    depth[b] = depth[m.body_parentid[b]] + 1;
    deepest = std::max(deepest, depth[b]);
  }
  s.level_adr.assign(static_cast<std::size_t>(deepest) + 1, 0);
  for (int level = 1; level <= deepest; ++level) {
    for (int b = 1; b < m.nbody; ++b) {
      if (depth[b] == level) s.level_body.push_back(b);
    }
    s.level_adr[level] = static_cast<int>(s.level_body.size());
  }

  s.child_adr.assign(static_cast<std::size_t>(m.nbody) + 1, 0);
  for (int b = 0; b < m.nbody; ++b) {
    for (int c = m.nbody - 1; c > b; --c) {
      if (m.body_parentid[c] == b) s.child.push_back(c);
    }
    s.child_adr[b + 1] = static_cast<int>(s.child.size());
  }

  tree_entries(std::vector<int>(m.dof_parentid.begin(), m.dof_parentid.end()), s.entry_row,
               s.entry_col, s.entry_adr);
  tree_entries(efc_tree, s.hess_row, s.hess_col, s.hess_adr);
  std::vector<int> dense(static_cast<std::size_t>(m.nv));
  std::iota(dense.begin(), dense.end(), -1);
  tree_entries(dense, s.dense_row, s.dense_col, s.dense_adr);
  return s;
}

}  // namespace zwang
