// Quantities of MuJoCo's mjData that zwang does not keep in a batch, derived from what it
// does keep: the kinematics (xpos, xquat, xipos, subtree_com, cvel) of the state the pipeline
// last evaluated and the per-instance parameters.  They hold MuJoCo's meaning and layout, so an
// observation written for MuJoCo reads the same numbers:
//   after forward():  the current state;
//   after step():     the state of the last evaluation, as MuJoCo's mj_step leaves its mjData:
//                     Euler, the state before the step; RK4, its last stage, x₀ ⊕ h k₃.
// Each output is instance-major and row-major, value (i, k, c) at out[(i·count + k)·width + c],
// for every instance of the batch.
#pragma once

#include <span>
#include <vector>

#include "zwang/batch.hpp"
#include "zwang/model.hpp"

namespace zwang {

enum class Derived {
  // orientation of each body's principal axes of inertia, row-major (nbody x 9): columns in
  // decreasing principal moment, right-handed; MuJoCo's ximat up to the sign of two columns,
  // and up to a rotation about the axis where two moments are equal
  kXimat,
  // MuJoCo's cinert: inertia about the subtree centre of mass of the body's root (the body below
  // the world that it hangs from), world axes: Ixx Iyy Izz Ixy Ixz Iyz, m (xipos − c), m
  // (nbody x 10)
  kCinert,
  // MuJoCo's cvel: [ω; v] of each body, v the velocity of the body point at the subtree centre
  // of mass of its root, world axes (nbody x 6)
  kCvel,
  // site positions, world (nsite x 3)
  kSiteXpos,
  // site orientations, row-major (nsite x 9)
  kSiteXmat,
  // the bodies merged at load (Model::fused_*), as MuJoCo gives them without merging: frame
  // origins, world (nfused x 3)
  kFusedXpos,
  // their frame orientations, unit quaternions w x y z (nfused x 4)
  kFusedXquat,
  // their frame orientations, row-major (nfused x 9)
  kFusedXmat,
  // their centres of mass, world (nfused x 3)
  kFusedXipos,
  // their velocities [ω; v], world axes, v that of the frame origin (MuJoCo's mj_objectVelocity
  // of the body unmerged as an mjOBJ_XBODY, world axes) (nfused x 6)
  kFusedVel,
};

// every derived quantity, in the order above
inline constexpr Derived kAllDerived[] = {
    Derived::kXimat,      Derived::kCinert,    Derived::kCvel,       Derived::kSiteXpos,
    Derived::kSiteXmat,   Derived::kFusedXpos, Derived::kFusedXquat, Derived::kFusedXmat,
    Derived::kFusedXipos, Derived::kFusedVel};

// MuJoCo's name of a derived quantity: "ximat", "cinert", "cvel", "site_xpos",
// "site_xmat"; zwang's "fused_xpos", "fused_xquat", "fused_xmat", "fused_xipos", "fused_vel".
const char* derived_name(Derived what);
// Entities of a derived quantity per instance (nbody, nsite or nfused) ...
int derived_count(const Model& model, Derived what);
// ... and values per entity.
int derived_width(Derived what);
// Values per instance of a derived quantity: count x width.
int derived_size(const Model& model, Derived what);
// The output fields a derived quantity is computed from: a simulator that keeps only some
// outputs (SimulatorOptions::outputs) must keep these for it.
std::vector<FieldId> derived_fields(Derived what);

// Computes `what` for every instance into `out` (batch.size() x derived_size values),
// an OpenMP loop over instances with `threads` threads (0: every core); `model` is the batch's.
// std::invalid_argument if `out` has the wrong size, OutputNotKept if the batch does not keep
// one of derived_fields(what) (none is read where the model has no such entity).
template <class T>
void derive(const Model& model, Batch<T>& batch, Derived what, std::span<T> out, int threads = 0);

extern template void derive(const Model&, Batch<float>&, Derived, std::span<float>, int);
extern template void derive(const Model&, Batch<double>&, Derived, std::span<double>, int);

}  // namespace zwang
