// The tree-pattern Cholesky factor on lane groups (kernels/group_chol.h) against the one of
// kernels/math_chol.h, bit for bit, on the mass matrices of every model case, in the tree's pattern
// and in the dense one (the Newton Hessian's when a contact couples two branches): under Solo and
// under Emu<G> with its items in every order.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "host/model/constraint_plan.hpp"
#include "host/model/group_schedule.hpp"
#include "kernels/group.h"
#include "kernels/group_chol.h"
#include "kernels/group_emu.h"
#include "kernels/math_chol.h"
#include "model_cases.h"
#include "test_util.h"

namespace zwang::test {
namespace {

TEST(GroupCholesky, IsTheTreeFactorBitForBit) {
  int factored = 0;
  for (const ModelCase& c : model_cases()) {
    const Model& m = c.model;
    if (m.nv == 0) continue;
    SCOPED_TRACE(c.name);
    Simulator<double> sim(m, 3);
    std::mt19937 rng(7);
    set_random_states(sim, rng, 0.5);
    sim.forward();
    const RowPlan plan = plan_rows(m);
    const GroupSchedule s = make_group_schedule(m, plan.efc_tree);
    for (std::int64_t i = 0; i < sim.size(); ++i) {
      const std::vector<double> h = sim.batch().qM().get(i);
      for (const bool dense : {false, true}) {
        SCOPED_TRACE(dense ? "dense" : "tree");
        const int* parent = dense ? plan.efc_dense.data() : m.dof_parentid.data();
        std::vector<double> expected = h;
        const int ok = cholesky_factor<double>(expected.data(), parent, m.nv);
        auto factor = [&](auto& g) {
          std::vector<double> a = h;
          EXPECT_EQ(cholesky_factor<double>(g, a.data(), parent,
                                            (dense ? s.dense_adr : s.entry_adr).data(),
                                            (dense ? s.dense_col : s.entry_col).data(), m.nv),
                    ok);
          return a;
        };
        Solo solo;
        Emu<4> shuffled(EmuOrder::kShuffled, 3);
        Emu<32> reverse(EmuOrder::kReverse);
        EXPECT_EQ(factor(solo), expected);
        EXPECT_EQ(factor(shuffled), expected);
        EXPECT_EQ(factor(reverse), expected);
        ++factored;
      }
    }
  }
  EXPECT_GT(factored, 0);
}

// a pivot that is not positive stops both at the same pivot
TEST(GroupCholesky, ReportsTheFirstBadPivot) {
  const Model m = examples::chain();
  const GroupSchedule s = make_group_schedule(m, plan_rows(m).efc_tree);
  Simulator<double> sim(m, 1);
  sim.forward();
  std::vector<double> h = sim.batch().qM().get(0);
  h[packed_index(5, 5)] = -1;
  std::vector<double> a = h, b = h;
  Emu<8> g(EmuOrder::kShuffled, 1);
  const int expected = cholesky_factor<double>(a.data(), m.dof_parentid.data(), m.nv);
  EXPECT_LT(expected, m.nv);
  EXPECT_EQ(cholesky_factor<double>(g, b.data(), m.dof_parentid.data(), s.entry_adr.data(),
                                    s.entry_col.data(), m.nv),
            expected);
}

}  // namespace
}  // namespace zwang::test
