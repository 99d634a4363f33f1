// What a SIMD pack does for each of its lanes around the lane's constrain() (kernels/pipeline.h,
// solve_lanes; host/cpu/simd.inl), as the lane sees it.  Before: the geoms' poses and every geom
// pair's bounding test (pack_collision_bounds), and H's factors (pack_mass_factors), which the
// lane reads in the pack's rows: the bits its own collision() and factor_mass() would give (the
// factor with implicitfast's term is not among them: its terms are skipped where no lane of a
// pack has them, so a lane could get a +0 its own would not add, and flip a −0).  After: the
// clearing of the contact slots past the lane's contacts (clear_unused_slots), which the lane's
// collision, contact forces and solve then leave alone; and, where `deferred` is set, Euler's
// damped step (pack_damped_solve).  During: the factors of the lanes' Newton Hessians, an
// iteration's at once where enough lanes need one (LaneFactor, constrain_lanes).
#pragma once

#include "kernels/instance.h"
#include "kernels/math_chol.h"

namespace zwang {

template <class T>
struct FromPack {
  Row<T> near;    // 1 where the geom pair passed the bounding test (ncollision)
  Row<T> h;       // Lᵀ L = H
  Row<T> xs;      // q̈_s = H⁻¹ qfrc_smooth
  Row<T> damped;  // Lᵀ L = H + h diag(damping) (Euler); null when the lane factors it itself
  bool h_failed, damped_failed;  // a pivot that was not positive and finite
  // not null where the pack takes Euler's damped step for the lane (`damped` factored, no hard
  // rows, no sensors to read q̈ before it): the lane's solve then sets *deferred = 1 and leaves
  // q̈ at the Newton solution, and the pack solves (H + h diag(damping)) q̈ = qfrc_smooth +
  // qfrc_constraint on every such lane at once
  int* deferred;
  Row<T> qM;  // H, the lane's copy in one run of values (its data row has a value per pack)
  int lane;   // its lane in the pack
};

// The pack's factor of several lanes' Newton Hessians at once (ConstraintSolve::factor): a[j],
// j < count, the matrix of the pack's lane lanes[j] (its efc_HnL, unit stride), all of pattern
// `tree`, factored in place; failed[j] set where that lane's own factor would fail.  Each lane's
// bits are those of its own factor.  Called for at least `min_lanes` lanes; fewer factor their
// own, since the pack's factor costs about as much as that many of one lane's.
template <class T>
struct LaneFactor {
  void (*factor)(void* context, TreeRows tree, int n, const int* lanes, const Row<T>* a, int count,
                 bool* failed);
  void* context;
  int min_lanes;
};

}  // namespace zwang
