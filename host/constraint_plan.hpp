// Where each constraint of a model puts its rows: a fixed slot per row the model can ever
// need, hard rows first (hard equalities, drives, non-holonomic), then MuJoCo's order (soft
// equalities, dof friction, joint limits).  Slots depend on Model::disableflags.
#pragma once

#include <vector>

#include "zwang/model.hpp"

namespace zwang {

struct RowPlan {
  int nefc = 0;   // row slots
  int nhard = 0;  // the first nhard are hard
  std::vector<int> jnt_efcadr, dof_efcadr, eq_efcadr, drive_efcadr, nhc_efcadr;
  std::vector<int> efc_kind;             // EfcKind (nefc)
  std::vector<int> efc_tree;             // dof parents of H + Jᵀ D J's pattern (nv)
  std::vector<double> efc_frictionloss;  // (nefc)
};

RowPlan plan_rows(const Model& model);

// rows of one equality of this type
int equality_rows(EqualityType type);

// \brief body_invweight0, dof_invweight0 and the eq_data MuJoCo derives at qpos0 (connect's
// second anchor, weld's relative pose when none is given), from the model's parameters.
void set_constraint_constants(Model& model);

}  // namespace zwang
