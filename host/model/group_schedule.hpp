// The orders in which a lane group (kernels/group.h) runs the tree stages of one instance: lists
// of independent items, built once per model.
//   levels   the bodies by depth: a body's parent lies in an earlier level, so kinematics runs
//            level by level, one body per lane;
//   children each body's children in decreasing index, the order in which the composite
//            inertias and bias wrenches gather them (leaves first, as kernels/assemble.h sums);
//   entries  the (i, j) of H's packed lower triangle that the tree can make non-zero (j is i or
//            an ancestor dof of i), in packed order: one entry per lane when H is assembled;
//            the same lists for the two patterns of the Newton Hessian H + Jᵀ D J (the row
//            plan's efc_tree, and the dense one when a contact couples two branches), by which
//            a group builds and factors it.
#pragma once

#include <vector>

#include "zwang/model.hpp"

namespace zwang {

struct GroupSchedule {
  // bodies 1 … nbody − 1 of level l at level_body[level_adr[l] … level_adr[l + 1]), increasing
  std::vector<int> level_adr, level_body;
  // children of body b at child[child_adr[b] … child_adr[b + 1]), decreasing
  std::vector<int> child_adr, child;
  // entry e is H(entry_row[e], entry_col[e]), entry_col[e] ≤ entry_row[e]; row i's entries at
  // [entry_adr[i], entry_adr[i + 1]), its ancestors increasing, then (i, i)
  std::vector<int> entry_row, entry_col, entry_adr;
  // the same for the pattern of the row plan's efc_tree, and for the dense pattern (parent v − 1,
  // every (i, j ≤ i): packed order itself)
  std::vector<int> hess_row, hess_col, hess_adr;
  std::vector<int> dense_row, dense_col, dense_adr;

  int nlevel() const { return static_cast<int>(level_adr.size()) - 1; }
  int nentry() const { return static_cast<int>(entry_row.size()); }
  int nhess() const { return static_cast<int>(hess_row.size()); }
};

// the entries (i, j) of the packed lower triangle with j = i or an ancestor of i in `parent`
// (parent[i] < i, −1 at a root), appended: row by row, ancestors increasing, then the diagonal;
// row i's at [adr[i], adr[i + 1])
void tree_entries(const std::vector<int>& parent, std::vector<int>& row, std::vector<int>& col,
                  std::vector<int>& adr);

// efc_tree: the dof parents of the Newton Hessian's pattern (host/model/constraint_plan.hpp)
GroupSchedule make_group_schedule(const Model& model, const std::vector<int>& efc_tree);

}  // namespace zwang
