// The dofs a constraint row can touch (host/model/constraint_plan.cc's plan_row_dofs): a range
// that holds the nonzero columns of its efc_J row, so that products with the row skip the
// others and stay contiguous loops.  Adding J_ri x_i = 0 to a sum that starts at +0 never
// changes it, and so the products over the range give the dense ones' bits.
#pragma once

#include "kernels/hd.h"
#include "kernels/instance.h"
#include "kernels/model_view.h"

namespace zwang {

// the dofs [lo, hi)
struct RowDofs {
  int lo, hi;
};

// row slot r's dofs; a contact row's are those of its contact's pair.  One lane's instance only
// (a contact's pair is a number per instance).
template <class T>
ZW_HD ZW_INLINE RowDofs row_dofs(const ModelView<T>& m, const Instance<T>& d, int r) {
  if (r < m.contact_efcadr) return {m.efc_dof0[r], m.efc_dof1[r]};
  const int pair = static_cast<int>(d.contact_pair()[(r - m.contact_efcadr) / m.s.ncon_rows]);
  return {m.collision_dof0[pair], m.collision_dof1[pair]};
}

}  // namespace zwang
