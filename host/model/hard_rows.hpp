// Hard rows that contradict one another (kStatusHardConflict), named: for each row the pivoted
// factor of A H⁻¹ Aᵀ dropped and left violated, the kept rows it is a combination of; and the
// model-level check that its hard rows hold together at its default state.
#pragma once

#include <string>

#include "host/model/one_instance.hpp"
#include "zwang/model.hpp"

namespace zwang {

// "equality 'e2' contradicts equality 'e1' (violated by 2.5e+03)", one clause per
// dropped row that the kept rows leave violated, after a forward() of `one` at its state; empty
// when the rows hold there.  `tol` and `reach` are ConstraintSolver::hard_consistent's, of the
// scalar type whose verdict is explained.
std::string hard_conflict_clauses(const Model& model, OneInstance& one, double tol, double reach);

// ModelError "model: hard constraints contradict one another at the default state ..."
// when they do at qpos0, at rest, at time 0, with the model's parameters.
void check_hard_rows(const Model& model);

}  // namespace zwang
