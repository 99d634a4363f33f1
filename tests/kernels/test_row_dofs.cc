// The dof range of each constraint row (kernels/row_dofs.h, host/model/constraint_plan.cc) holds
// every nonzero column of the row that the row builders write: every model case at random
// states (contacts, limits, friction loss, equalities, drives, non-holonomic rows, tendons),
// each row of efc_J read outside its range must be exactly zero.  The solver's products skip
// those columns, so a range too narrow would change the physics; one no narrower than nv would
// save nothing, so the test also asks that the ranges of humanoid.xml's contacts and limits are
// narrower than its nv.
#include <gtest/gtest.h>

#include <random>

#include "group_arenas.h"
#include "host/model/arrays.hpp"
#include "kernels/group.h"
#include "kernels/pipeline.h"
#include "kernels/row_dofs.h"
#include "model_cases.h"

namespace zwang::test {
namespace {

TEST(RowDofs, HoldEveryNonzeroColumn) {
  int narrow_contacts = 0, narrow_limits = 0;
  for (const ModelCase& c : model_cases()) {
    SCOPED_TRACE(c.name);
    const ModelArrays<double> arrays(c.model);
    const ModelView<double> view = arrays.view();
    const int nv = view.s.nv;
    std::mt19937 rng(11);
    for (int trial = 0; trial < 5; ++trial) {
      Arenas<double> a(c.model, view, rng);
      const Instance<double> d = a.instance(view);
      Solo g;
      forward(view, d, g);
      const int ncon = view.s.nconmax > 0 ? static_cast<int>(d.ncon()[0]) : 0;
      const int nefc = view.s.nefc - (view.s.nconmax - ncon) * view.s.ncon_rows;
      for (int r = 0; r < nefc; ++r) {
        const RowDofs dofs = row_dofs(view, d, r);
        ASSERT_LE(0, dofs.lo) << "row " << r;
        ASSERT_LE(dofs.lo, dofs.hi) << "row " << r;
        ASSERT_LE(dofs.hi, nv) << "row " << r;
        for (int i = 0; i < nv; ++i) {
          if (i >= dofs.lo && i < dofs.hi) continue;
          EXPECT_EQ(d.efc_J()[r * nv + i], 0.0)
              << "row " << r << " (kind " << view.efc_kind[r] << "), dof " << i << " outside ["
              << dofs.lo << ", " << dofs.hi << ")";
        }
        if (c.name == "humanoid_contacts" && dofs.hi - dofs.lo < nv) {
          const bool contact = r >= view.contact_efcadr;
          narrow_contacts += contact ? 1 : 0;
          narrow_limits += !contact && view.efc_kind[r] == kEfcLimit ? 1 : 0;
        }
      }
    }
  }
  if (std::filesystem::exists(humanoid_xml())) {
    EXPECT_GT(narrow_contacts, 0);
    EXPECT_GT(narrow_limits, 0);
  }
}

}  // namespace
}  // namespace zwang::test
