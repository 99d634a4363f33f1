#include "host/model/group_schedule.hpp"

#include <algorithm>

namespace zwang {

GroupSchedule make_group_schedule(const Model& m) {
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

  s.entry_adr.push_back(0);
  for (int i = 0; i < m.nv; ++i) {
    std::vector<int> row;
    for (int j = i; j >= 0; j = m.dof_parentid[j]) row.push_back(j);
    std::reverse(row.begin(), row.end());
    for (int j : row) {
      s.entry_row.push_back(i);
      s.entry_col.push_back(j);
    }
    s.entry_adr.push_back(static_cast<int>(s.entry_row.size()));
  }
  return s;
}

}  // namespace zwang
