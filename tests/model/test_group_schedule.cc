// The lane groups' schedules (host/model/group_schedule.hpp) on every model case: levels and
// child lists against the parent array, H's entries against the pattern that the bodies' ancestry
// gives, and the Newton Hessian's against the row plan's pattern and the dense one.
#include <gtest/gtest.h>

#include <set>
#include <utility>

#include "host/model/constraint_plan.hpp"
#include "host/model/group_schedule.hpp"
#include "model_cases.h"

namespace zwang::test {
namespace {

// whether body a is b or one of b's ancestors
bool ancestor_or_self(const Model& m, int a, int b) {
  for (; b > 0; b = m.body_parentid[b]) {
    if (b == a) return true;
  }
  return a == b;
}

TEST(GroupSchedule, EveryModelCase) {
  for (const ModelCase& c : model_cases()) {
    const Model& m = c.model;
    const RowPlan plan = plan_rows(m);
    const GroupSchedule s = make_group_schedule(m, plan.efc_tree);
    SCOPED_TRACE(c.name);

    // every body once; its parent (the world aside) in an earlier level; increasing in a level
    std::vector<int> level(static_cast<std::size_t>(m.nbody), -1);
    for (int l = 0; l < s.nlevel(); ++l) {
      ASSERT_LT(s.level_adr[l], s.level_adr[l + 1]) << "level " << l << " is empty";
      for (int k = s.level_adr[l]; k < s.level_adr[l + 1]; ++k) {
        const int b = s.level_body[k];
        ASSERT_EQ(level[b], -1) << "body " << b << " twice";
        level[b] = l;
        if (k > s.level_adr[l]) {
          EXPECT_LT(s.level_body[k - 1], b);
        }
        const int p = m.body_parentid[b];
        EXPECT_EQ(p == 0 ? -1 : level[p], l - 1) << "body " << b;
      }
    }
    EXPECT_EQ(static_cast<int>(s.level_body.size()), m.nbody - 1);

    // each child under its parent, decreasing, every body but the world once
    ASSERT_EQ(static_cast<int>(s.child_adr.size()), m.nbody + 1);
    for (int b = 0; b < m.nbody; ++b) {
      for (int k = s.child_adr[b]; k < s.child_adr[b + 1]; ++k) {
        EXPECT_EQ(m.body_parentid[s.child[k]], b);
        if (k > s.child_adr[b]) {
          EXPECT_GT(s.child[k - 1], s.child[k]);
        }
      }
    }
    EXPECT_EQ(static_cast<int>(s.child.size()), m.nbody - 1);

    // H(i, j) can be non-zero when dof j moves a body that dof i's body hangs from (or is): the
    // entries are exactly those pairs, in packed order
    std::vector<std::pair<int, int>> expected;
    for (int i = 0; i < m.nv; ++i) {
      for (int j = 0; j <= i; ++j) {
        if (ancestor_or_self(m, m.dof_bodyid[j], m.dof_bodyid[i])) expected.emplace_back(i, j);
      }
    }
    std::vector<std::pair<int, int>> entries;
    for (int e = 0; e < s.nentry(); ++e) entries.emplace_back(s.entry_row[e], s.entry_col[e]);
    EXPECT_EQ(entries, expected);
    ASSERT_EQ(static_cast<int>(s.entry_adr.size()), m.nv + 1);
    for (int i = 0; i < m.nv; ++i) {
      ASSERT_LT(s.entry_adr[i], s.entry_adr[i + 1]);
      for (int e = s.entry_adr[i]; e < s.entry_adr[i + 1]; ++e) EXPECT_EQ(s.entry_row[e], i);
      EXPECT_EQ(s.entry_col[s.entry_adr[i + 1] - 1], i);
    }

    // the Newton Hessian's patterns: (i, j) with j = i or an ancestor of i in the plan's parents,
    // and for the dense one every (i, j ≤ i)
    const auto check = [&](const std::vector<int>& parent, const std::vector<int>& row,
                           const std::vector<int>& col, const std::vector<int>& adr) {
      std::vector<std::pair<int, int>> want, got;
      for (int i = 0; i < m.nv; ++i) {
        for (int j = 0; j <= i; ++j) {
          int k = i;
          while (k > j) k = parent[k];
          if (k == j) want.emplace_back(i, j);
        }
      }
      for (std::size_t e = 0; e < row.size(); ++e) got.emplace_back(row[e], col[e]);
      EXPECT_EQ(got, want);
      ASSERT_EQ(static_cast<int>(adr.size()), m.nv + 1);
      for (int i = 0; i < m.nv; ++i) {
        EXPECT_EQ(row[adr[i]], i);
        EXPECT_EQ(col[adr[i + 1] - 1], i);
      }
    };
    check(plan.efc_tree, s.hess_row, s.hess_col, s.hess_adr);
    check(plan.efc_dense, s.dense_row, s.dense_col, s.dense_adr);
    EXPECT_EQ(static_cast<int>(s.dense_row.size()), m.nv * (m.nv + 1) / 2);
  }
}

}  // namespace
}  // namespace zwang::test
