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
        const TreeRows tree{(dense ? s.dense_adr : s.entry_adr).data(),
                            (dense ? s.dense_col : s.entry_col).data()};
        std::vector<double> expected = h;
        const int ok = cholesky_factor<double>(expected.data(), tree, m.nv);
        auto factor = [&](auto& g) {
          std::vector<double> a = h;
          EXPECT_EQ(cholesky_factor<double>(g, a.data(), tree, m.nv), ok);
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

// the dense pattern on dense matrices (B Bᵀ + n I, every entry filled), n from 1 to 12
TEST(GroupCholesky, DenseMatricesBitForBit) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int n = 1; n <= 12; ++n) {
    std::vector<double> a(static_cast<std::size_t>(n * (n + 1) / 2));
    std::vector<double> b(static_cast<std::size_t>(n * n));
    for (double& x : b) x = u(rng);
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j <= i; ++j) {
        double v = i == j ? n : 0.0;
        for (int k = 0; k < n; ++k) v += b[i * n + k] * b[j * n + k];
        a[packed_index(i, j)] = v;
      }
    }
    std::vector<int> adr{0}, col;
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j <= i; ++j) col.push_back(j);
      adr.push_back(static_cast<int>(col.size()));
    }
    std::vector<double> expected = a;
    const TreeRows tree{adr.data(), col.data()};
    ASSERT_EQ(cholesky_factor<double>(expected.data(), tree, n), n);
    for (int order = 0; order < 3; ++order) {
      Emu<8> g(static_cast<EmuOrder>(order), 5);
      std::vector<double> got = a;
      EXPECT_EQ(cholesky_factor<double>(g, got.data(), tree, n), n);
      EXPECT_EQ(got, expected) << "n " << n << ", order " << order;
    }
  }
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
  const TreeRows tree{s.entry_adr.data(), s.entry_col.data()};
  const int expected = cholesky_factor<double>(a.data(), tree, m.nv);
  EXPECT_LT(expected, m.nv);
  EXPECT_EQ(cholesky_factor<double>(g, b.data(), tree, m.nv), expected);
}

}  // namespace
}  // namespace zwang::test
