// Whether the joints of a model make H positive definite (InertiaRule::kMassMatrix), and whether
// a body's inertia can be a rigid body's (InertiaRule::kRigidBody).
#pragma once

#include <span>
#include <string>

#include "zwang/model.hpp"

namespace zwang {

// the first dof, from the leaves, at which H stops being positive definite at `qpos`
struct MassMatrixPivot {
  int dof = -1;          // -1: H is positive definite
  double pivot = 0;      // its articulated inertia about the dof, S_iᵀ I^A S_i after elimination
  double composite = 0;  // the rigid inertia of all it moves about the dof, S_iᵀ I^C S_i (≥ 0)
};
MassMatrixPivot mass_matrix_pivot(const Model& m, std::span<const double> qpos);

// ModelError naming the joint, when H is singular or indefinite both at qpos0 and at a second,
// fixed configuration
void check_mass_matrix(const Model& m);

// ModelError "WHO: ..." unless `inertia` (about the COM) can be a rigid body's of that mass:
// finite, principal moments ≥ 0 and A + B ≥ C, or all zero (a point mass)
void check_inertia(const Inertia6& inertia, double mass, const std::string& who);

}  // namespace zwang
