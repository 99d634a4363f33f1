// Derivatives of one step (or of several) of each instance, exact to rounding: the kernels' own
// step run on dual numbers (kernels/dual.h), which carry the directional derivatives of every
// value along with it.
//
// The state x = (qpos, qvel, act) is perturbed in MuJoCo's tangent space, as its
// mjd_transitionFD does: nv coordinates for qpos (a ball or a free joint's rotation by a
// body-frame rotation vector, q ⊗ exp(δ / 2)), then qvel and act; so
//   A = ∂x⁺/∂x (nx × nx, nx = 2 nv + na)   B = ∂x⁺/∂ctrl (nx × nu)
//   C = ∂sensordata/∂x (nsensordata × nx)    D = ∂sensordata/∂ctrl (nsensordata × nu)
// with x⁺ the state after the step and sensordata as the step evaluates it (at the state it
// starts from, as MuJoCo's mj_step).  A rotation's rows are those of 2 log(q⁺⁻¹ (q⁺ + dq⁺)),
// its tangent in the same convention.  For the parameter fields asked for (their np elements,
// field after field),
//   E = ∂x⁺/∂p (nx × np)                        F = ∂sensordata/∂p (nsensordata × np)
// the derivatives of the step as a function of the batch's parameters (Simulator::params()):
// what the model derived from its own parameters when it was built (MuJoCo's invweight0, which
// sets the constraints' regularisation, and the like) stays as it is, as in the step itself.
//
// The constraint solver is differentiated by the implicit function theorem: after the solve has
// converged, one Newton step at the solution taken on the tangents alone (kernels/
// constraint_solver.h, implicit_tangents), which gives the derivative of the smooth piece the
// state lies on (a fixed set of active rows).  At a state where a contact or a limit switches
// on or off the step is not differentiable; the result is the derivative of the piece the
// state's own solve is on.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "zwang/batch.hpp"
#include "zwang/model.hpp"

namespace zwang {

struct StepJacobians {
  std::int64_t n = 0;  // instances
  int nx = 0;          // 2 nv + na
  int nu = 0;
  int nsensordata = 0;
  int np = 0;  // parameter columns
  // per instance, row-major, instance after instance: A (n × nx × nx), B (n × nx × nu),
  // C (n × nsensordata × nx), D (n × nsensordata × nu), E (n × nx × np), F (n × nsensordata × np)
  std::vector<double> A, B, C, D, E, F;
  // the step's results, the values the differentiated step computed (for a float64 batch those
  // of the simulator's step from the same state; a stopped instance's state as it is): qpos
  // (n × nq), qvel (n × nv), act (n × na), and sensordata (n × nsensordata) at the state the
  // step started from
  std::vector<double> qpos, qvel, act, sensordata;
  // the status each instance's differentiated step left (StatusBit), or the one it had stopped
  // with; where it is not 0 but for kStatusNotConverged, that instance's blocks are NaN
  std::vector<int> status;
};

// The Jacobians of one step of the listed instances of a batch, from their current state,
// controls, time and parameters (the batch is not changed), computed in float64 (a float32
// batch's values are widened).  `threads`: 0 for every core.  `params`: parameter fields
// (FieldId::body_mass, ...) whose elements are E's and F's columns, in that order.  `steps`:
// of that many steps instead, the controls (and mocap, applied forces) held: x⁺ is the state
// after the last, sensordata as the last evaluates it, an instance's blocks NaN where any of
// them stops it.  std::out_of_range for an instance not in the batch; std::invalid_argument for
// a field that is not a parameter, one listed twice, or steps < 1.
template <class T>
StepJacobians step_jacobians(const Model& model, const Batch<T>& batch,
                             std::span<const std::int64_t> instances, int threads = 0,
                             std::span<const FieldId> params = {}, int steps = 1);

}  // namespace zwang
