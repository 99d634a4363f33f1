// The stages in order, for one instance (forward, step and their phases; the CUDA backend and the
// scalar CPU backend call these) or for a pack of instances (forward_lanes, step_lanes at the
// end; the SIMD CPU backend).
//   smooth:  kinematics → Jacobians → tendons → M_k, n_k → H, h → generalized forces
//   forward: smooth → Lᵀ L = H → q̈
//   step:    Euler: smooth → Lᵀ L = H + h·diag(damping) → q̈ → integrate
//            RK4:   4 × (smooth → Lᵀ L = H → q̈ → stage) → integrate
//
// forward() and step() are written as phases cut at their Cholesky solves, so that a backend
// can also run every phase batch-wide, one kernel each, and the solves in between with a
// batched solver (cuSOLVER), and get the same bits:
//   forward: forward_begin → smooth → solve → forward_end
//   step:    step_begin → solves_per_step × (smooth → solve → step_end(stage))
// `phase` carries an instance from one cut to the next:
//   kPhaseIdle    nothing left to do in this call (skipped, finished or failed)
//   kPhaseSolve   smooth() and a solve are due; after the solve, qacc holds q̈
//   kPhaseFailed  the solve failed (kStatusFactorization set, qacc untouched)
//
// Sensors (kernels/sensors.h) are evaluated where MuJoCo's mj_forward evaluates them: in
// forward(), and in step() at the state the step starts from (its first evaluation; RK4's later
// stages skip them, as MuJoCo's mj_RungeKutta does).
#pragma once

#include <cmath>
#include <optional>

#include "kernels/assemble.h"
#include "kernels/body_jacobians.h"
#include "kernels/body_terms.h"
#include "kernels/check_parameters.h"
#include "kernels/constraint_rows.h"
#include "kernels/constraint_solver.h"
#include "kernels/contacts.h"
#include "kernels/factor_solve.h"
#include "kernels/forward_kinematics.h"
#include "kernels/generalized_forces.h"
#include "kernels/hd.h"
#include "kernels/instance.h"
#include "kernels/integrate.h"
#include "kernels/model_view.h"
#include "kernels/sensors.h"
#include "kernels/status.h"
#include "kernels/tendons.h"

namespace zwang {

enum PhaseId : int { kPhaseIdle = 0, kPhaseSolve = 1, kPhaseFailed = 2 };

// on a lane group (kernels/group.h); the tendons and generalized forces run on one lane
template <class T, class Grp>
ZW_HD void smooth(const ModelView<T>& m, const Instance<T>& d, Grp& g) {
  forward_kinematics(m, d, g);
  body_jacobians(m, d, g);
  g.one([&]() ZW_ITEM { tendons(m, d); });
  body_terms(m, d, g);
  assemble(m, d, g);
  g.one([&]() ZW_ITEM { generalized_forces(m, d); });
}

template <class T>
ZW_HD void smooth(const ModelView<T>& m, const Instance<T>& d) {
  Solo g;
  smooth(m, d, g);
}

// solves per step: RK4 evaluates q̈ four times, Euler once
template <class T>
ZW_HD ZW_INLINE int solves_per_step(const ModelView<T>& m) {
  return m.integrator == Integrator::kRK4 ? 4 : 1;
}

// the time step of the step's implicit term (kernels/implicit.h): h for Euler (implicit damping,
// Lᵀ L = H + h diag(damping), MuJoCo's Euler), implicitfast and implicit (H − h ∂f/∂q̇); 0 for
// RK4 and forward(), and for Euler where MuJoCo 3's damper or eulerdamp flag is off (the damping
// force, if any, then acts explicitly)
template <class T>
ZW_HD ZW_INLINE T step_damping_dt(const ModelView<T>& m) {
  if (m.integrator == Integrator::kImplicitFast || m.integrator == Integrator::kImplicit)
    return T(m.timestep);
  const bool explicit_damping = m.disableflags & (kDisableDamper | kDisableEulerdamp);
  return m.integrator == Integrator::kRK4 || explicit_damping ? T(0) : T(m.timestep);
}

// RK4 weights 1/6, 1/3, 1/3, 1/6 and stage offsets 0, ½, ½, 1, as selects (no local array)
template <class T>
ZW_HD ZW_INLINE T rk4_weight(int stage) {
  return stage == 0 || stage == 3 ? T(1) / T(6) : T(1) / T(3);
}
template <class T>
ZW_HD ZW_INLINE T rk4_advance(int stage) {
  return stage == 0 ? T(0) : stage == 3 ? T(1) : T(0.5);
}

// the time of a stage's solve: t + c_stage h in RK4, t in Euler
template <class T>
ZW_HD ZW_INLINE double solve_time(const ModelView<T>& m, double time, int stage) {
  return time + (m.integrator == Integrator::kRK4 ? rk4_advance<double>(stage) : 0.0) * m.timestep;
}

// the solve of a phased instance, in place; with constraint rows, constrain() solves instead
template <class T>
ZW_HD ZW_INLINE int solve_in_place(const ModelView<T>& m, const Instance<T>& d, T damping_dt,
                                   int phase) {
  if (phase != kPhaseSolve || m.s.nefc > 0) return phase;
  return factor_solve(m, d, damping_dt) ? kPhaseSolve : kPhaseFailed;
}

// after the solve of a model without constraint rows: q̈_smooth = q̈, the geoms' poses, the
// bodies' external wrenches, and no constraint force, contact or solver iteration (written each
// time like every other output: the SIMD CPU backend copies in only the inputs)
template <class T>
ZW_HD ZW_INLINE void unconstrained_outputs(const ModelView<T>& m, const Instance<T>& d) {
  if (m.s.ngeom > 0) geom_poses(m, d);
  copy_row(d.qacc_smooth(), d.qacc(), m.s.nv);
  external_wrenches(m, d);
  const Row<T> qfrc = d.qfrc_constraint();
  for (int i = 0; i < m.s.nv; ++i) qfrc[i] = T(0);
  d.efc_nactive()[0] = d.solver_niter()[0] = d.solver_residual()[0] = d.ncon()[0] = T(0);
}

// whether the solve of `stage` (−1: forward()) writes the outputs that only the caller and the
// sensors read: the contact forces, subtree_com and cfrc_ext, and without rows those of
// unconstrained_outputs().  The step's last solve does, and its first when there are sensors;
// RK4's other stages leave them to the last, which overwrites them.
template <class T>
ZW_HD ZW_INLINE bool stage_outputs(const ModelView<T>& m, int stage) {
  return stage < 0 || stage == solves_per_step(m) - 1 || (stage == 0 && m.s.nsensor > 0);
}

// constrain()'s rows at time t: the collisions, then every row; false when the collision fails
// (kStatusContactOverflow and the like)
template <class T, class Grp>
ZW_HD ZW_INLINE bool build_rows(const ModelView<T>& m, const Instance<T>& d, double t, Grp& g,
                                const FromPack<T>* pack) {
  // the contacts may be given with the positions (ModelView::positions_given)
  const bool given = positions_given(m);
  if (!given && m.ncollision == 0) {
    g.one([&]() ZW_ITEM {
      if (m.s.ngeom > 0) geom_poses(m, d);
      d.ncon()[0] = T(0);
    });
  } else if (!given && !collision(m, d, g, pack)) {
    return false;
  }
  constraint_rows(m, d, t, g);
  contact_rows(m, d, g);
  return true;
}

// constrain()'s outputs after a solve with rows: the contact forces and the bodies' external
// wrenches (a pack clears the unused contact slots itself)
template <class T>
ZW_HD ZW_INLINE void constrained_outputs(const ModelView<T>& m, const Instance<T>& d,
                                         const FromPack<T>* pack) {
  contact_forces(m, d, !pack);
  external_wrenches(m, d);
}

// after the solve: the constrained q̈ at time t (rows and solver), or q̈_smooth = q̈ without
// rows; replaces whatever a batched solve left in qacc; the outputs above where `outputs`.  On a
// lane group the collision, the contact, friction-loss and limit rows (a contact, dof or joint per
// item) and the solver run on the group, the other rows on one lane.
template <class T, class Grp>
ZW_HD ZW_INLINE int constrain(const ModelView<T>& m, const Instance<T>& d, T damping_dt, double t,
                              int phase, Grp& g, const FromPack<T>* pack = nullptr,
                              bool outputs = true) {
  if (phase != kPhaseSolve) return phase;
  if (m.s.nefc == 0) {
    if (outputs) g.one([&]() ZW_ITEM { unconstrained_outputs(m, d); });
    return phase;
  }
  if (!build_rows(m, d, t, g, pack)) return kPhaseFailed;
  if (!constraint_solve(m, d, damping_dt, g, pack)) return kPhaseFailed;
  if (outputs) g.one([&]() ZW_ITEM { constrained_outputs(m, d, pack); });
  return kPhaseSolve;
}

template <class T>
ZW_HD ZW_INLINE int constrain(const ModelView<T>& m, const Instance<T>& d, T damping_dt, double t,
                              int phase, const FromPack<T>* pack = nullptr, bool outputs = true) {
  Solo g;
  return constrain(m, d, damping_dt, t, phase, g, pack, outputs);
}

// the state must be finite and the parameters valid: the lanes of `live` that pass; the others
// of `live` get their status bits
template <class T>
ZW_HD MaskOf<T> check_lanes(const ModelView<T>& m, const Instance<T>& d, MaskOf<T> live) {
  const MaskOf<T> state_ok = all_finite(d.qpos(), m.s.nq) && all_finite(d.qvel(), m.s.nv) &&
                             all_finite(d.ctrl(), m.s.nu) && all_finite(d.act(), m.s.na) &&
                             visfinite(Lanes<T>::time(d.time));
  const MaskOf<T> parameters_ok = m.check_parameters ? parameters_valid(m, d) : MaskOf<T>(true);
  Lanes<T>::set_bits(d.status, live && !state_ok, kStatusBadState);
  Lanes<T>::set_bits(d.status, live && !parameters_ok, kStatusBadParameters);
  return live && state_ok && parameters_ok;
}

// forward() up to smooth()
template <class T>
ZW_HD int forward_begin(const ModelView<T>& m, const Instance<T>& d) {
  return check_lanes(m, d, true) ? kPhaseSolve : kPhaseIdle;
}

// forward() after the solve: q̈ must be finite; true when it is
template <class T, class Grp>
ZW_HD bool forward_end(const ModelView<T>& m, const Instance<T>& d, int phase, Grp& g) {
  phase = constrain(m, d, T(0), *d.time, phase, g);
  return g.uniform([&]() ZW_ITEM {
    if (phase != kPhaseSolve) return 0;
    sensors(m, d);
    if (all_finite(d.qacc(), m.s.nv)) return 1;
    *d.status |= kStatusDiverged;
    return 0;
  }) != 0;
}

template <class T>
ZW_HD bool forward_end(const ModelView<T>& m, const Instance<T>& d, int phase) {
  Solo g;
  return forward_end(m, d, phase, g);
}

// H, h, q̈ at the current state; false (and a status bit) when the instance cannot go on. On a
// lane group (kernels/group.h) smooth(), the collision and the solver run on the group, the rest on
// one lane of it.
template <class T, class Grp>
ZW_HD bool forward(const ModelView<T>& m, const Instance<T>& d, Grp& g) {
  int phase = g.uniform([&]() ZW_ITEM { return forward_begin(m, d); });
  if (phase == kPhaseSolve) smooth(m, d, g);
  phase = g.uniform([&]() ZW_ITEM { return solve_in_place(m, d, T(0), phase); });
  return forward_end(m, d, phase, g);
}

template <class T>
ZW_HD bool forward(const ModelView<T>& m, const Instance<T>& d) {
  Solo g;
  return forward(m, d, g);
}

// the state (qpos, qvel, act) is finite: the lanes where it is
template <class T>
ZW_HD ZW_INLINE MaskOf<T> state_finite(const ModelView<T>& m, const Instance<T>& d) {
  return all_finite(d.qpos(), m.s.nq) && all_finite(d.qvel(), m.s.nv) &&
         all_finite(d.act(), m.s.na);
}

// the end of step(): a failed or non-finite step is undone, so the instance keeps the state it
// had before the step; a good one advances the time
template <class T>
ZW_HD void step_finish(const ModelView<T>& m, const Instance<T>& d) {
  const Row<T> qpos = d.qpos(), qvel = d.qvel(), qpos0 = d.step_qpos(), qvel0 = d.step_qvel();
  const Row<T> act = d.act(), act0 = d.step_act();
  stop_lanes(d, !state_finite(m, d), kStatusDiverged);
  const MaskOf<T> undo = stopped(d);
  if (any_lane<T>(undo)) {
    for (int i = 0; i < m.s.nq; ++i) qpos[i] = vselect(undo, qpos0[i], qpos[i]);
    for (int i = 0; i < m.s.nv; ++i) qvel[i] = vselect(undo, qvel0[i], qvel[i]);
    for (int i = 0; i < m.s.na; ++i) act[i] = vselect(undo, act0[i], act[i]);
  }
  Lanes<T>::advance(d.time, !undo, m.timestep);
}

// the state at the start of the step, kept to undo it, and the RK4 sums cleared
template <class T>
ZW_HD void step_keep(const ModelView<T>& m, const Instance<T>& d) {
  copy_row(d.step_qpos(), d.qpos(), m.s.nq);
  copy_row(d.step_qvel(), d.qvel(), m.s.nv);
  copy_row(d.step_act(), d.act(), m.s.na);
  if (m.integrator == Integrator::kRK4) {
    const Row<T> rate = d.rk_rate(), dpos = d.rk_dpos(), dvel = d.rk_dvel(), dact = d.rk_dact();
    for (int i = 0; i < m.s.nv; ++i) dpos[i] = dvel[i] = rate[i] = T(0);
    for (int i = 0; i < m.s.na; ++i) dact[i] = T(0);
  }
}

// step() up to the first smooth(): skip stopped instances, check and keep the state
template <class T>
ZW_HD int step_begin(const ModelView<T>& m, const Instance<T>& d) {
  if (stopped(d)) return kPhaseIdle;
  if (forward_begin(m, d) != kPhaseSolve) return kPhaseIdle;
  step_keep(m, d);
  return kPhaseSolve;
}

// Euler (semi-implicit): act⁺ = act + h act_dot (clamped to actrange),  q̇⁺ = q̇ + h q̈,
// q⁺ = q ⊕ h q̇⁺
template <class T>
ZW_HD void euler_update(const ModelView<T>& m, const Instance<T>& d) {
  const T h = T(m.timestep);
  const Row<T> qpos = d.qpos(), qvel = d.qvel(), qacc = d.qacc(), act = d.act();
  const Row<T> act_dot = d.act_dot();
  advance_activations(m, d, act, act, act_dot, h);
  for (int i = 0; i < m.s.nv; ++i) qvel[i] += h * qacc[i];
  integrate_pos(m, qpos, qvel, h);
}

// RK4 after the solve of `stage`: k_stage = (Ω̇, q̈, act_dot) at x_stage = x ⊕ advance_stage h
// k_{stage−1} joins the weighted sums; then x⁺ = x ⊕ h Σ w_i k_i after the last stage (act⁺
// clamped to actrange), else the next stage's state x_{stage+1} = x ⊕ c k_stage,
// c = advance_{stage+1} h
template <class T>
ZW_HD void rk4_update(const ModelView<T>& m, const Instance<T>& d, int stage) {
  const T h = T(m.timestep);
  const int nq = m.s.nq, nv = m.s.nv;
  const Row<T> qpos = d.qpos(), qvel = d.qvel(), qacc = d.qacc();
  const Row<T> qpos0 = d.step_qpos(), qvel0 = d.step_qvel();
  const Row<T> rate = d.rk_rate(), dpos = d.rk_dpos(), dvel = d.rk_dvel();
  const Row<T> act = d.act(), act0 = d.step_act(), act_dot = d.act_dot(), dact = d.rk_dact();
  local_rate(m, qvel, rk4_advance<T>(stage) * h, rate);
  const T w = rk4_weight<T>(stage);
  for (int i = 0; i < nv; ++i) {
    dpos[i] += w * rate[i];
    dvel[i] += w * qacc[i];
  }
  for (int i = 0; i < m.s.na; ++i) dact[i] += w * act_dot[i];
  copy_row(qpos, qpos0, nq);
  if (stage == 3) {
    integrate_pos(m, qpos, dpos, h);
    for (int i = 0; i < nv; ++i) qvel[i] = qvel0[i] + h * dvel[i];
    advance_activations(m, d, act, act0, dact, h);
    return;
  }
  const T c = rk4_advance<T>(stage + 1) * h;
  integrate_pos(m, qpos, rate, c);
  for (int i = 0; i < nv; ++i) qvel[i] = qvel0[i] + c * qacc[i];
  for (int i = 0; i < m.s.na; ++i) act[i] = act0[i] + c * act_dot[i];
}

// step_end() after constrain()
template <class T>
ZW_HD ZW_INLINE int step_advance(const ModelView<T>& m, const Instance<T>& d, int stage,
                                 int phase) {
  if (phase == kPhaseIdle) return kPhaseIdle;
  if (phase == kPhaseFailed) {
    step_finish(m, d);
    return kPhaseIdle;
  }
  if (stage == 0) sensors(m, d);
  if (m.integrator != Integrator::kRK4) {
    euler_update(m, d);
    step_finish(m, d);
    return kPhaseIdle;
  }
  if (!all_finite(d.qacc(), m.s.nv)) {
    *d.status |= kStatusDiverged;
    step_finish(m, d);
    return kPhaseIdle;
  }
  rk4_update(m, d, stage);
  if (stage == 3) {
    step_finish(m, d);
    return kPhaseIdle;
  }
  if (!state_finite(m, d)) {
    *d.status |= kStatusDiverged;
    step_finish(m, d);
    return kPhaseIdle;
  }
  return kPhaseSolve;
}

// step() after the solve of `stage`: Euler integrates; RK4 accumulates the stage and either
// moves to the next stage's state (kPhaseSolve again) or completes the step
template <class T, class Grp>
ZW_HD int step_end(const ModelView<T>& m, const Instance<T>& d, int stage, int phase, Grp& g) {
  phase = constrain(m, d, step_damping_dt(m), solve_time(m, *d.time, stage), phase, g,
                    static_cast<const FromPack<T>*>(nullptr), stage_outputs(m, stage));
  return g.uniform([&]() ZW_ITEM { return step_advance(m, d, stage, phase); });
}

template <class T>
ZW_HD int step_end(const ModelView<T>& m, const Instance<T>& d, int stage, int phase) {
  Solo g;
  return step_end(m, d, stage, phase, g);
}

// One step of the model's integrator.  An instance with a status bit set does not move; one
// that fails during the step gets its bit and keeps the state it had before the step.
// On a lane group, smooth(), the collision and the solver on the group, the rest on one lane of it,
// as forward().
template <class T, class Grp>
ZW_HD void step(const ModelView<T>& m, const Instance<T>& d, Grp& g) {
  const T damping_dt = step_damping_dt(m);
  int phase = g.uniform([&]() ZW_ITEM { return step_begin(m, d); });
  for (int stage = 0; phase == kPhaseSolve; ++stage) {
    smooth(m, d, g);
    phase = g.uniform([&]() ZW_ITEM { return solve_in_place(m, d, damping_dt, phase); });
    phase = step_end(m, d, stage, phase, g);
  }
}

template <class T>
ZW_HD void step(const ModelView<T>& m, const Instance<T>& d) {
  Solo g;
  step(m, d, g);
}

// A pack of instances (kernels/lanes.h), one per lane: every lane runs the same arithmetic, and
// a lane that stops goes on computing values that are thrown away.  Its status keeps the first
// reason it stopped for, and step_lanes() gives it back the state it had before the step, so
// status, qpos, qvel and time are those of the one-instance functions above; the outputs of a
// stopped lane are not.
//
// Without constraint rows the whole step runs on the pack.  With rows, the collisions, the rows
// and their solver branch per instance: `rows(d, stage, factors)` runs constrain() on each lane
// that has not stopped, each on its own instance, the lanes' Newton iterations in step, after the
// pack's smooth() (stage −1: forward(), else the step's solve `stage`), and the sensors with it
// (constrain_lanes()).  The factors of H that the solver needs run on the pack before
// (pack_mass_factors()).

// before the lanes' collisions, on the pack: the geoms' poses, and near[c] = 1 where geom pair c
// passes its bounding test (pair_near()).  Without pairs constrain() poses the geoms itself.
template <class T>
void pack_collision_bounds(const ModelView<T>& m, const Instance<T>& d, Row<T> near) {
  if (m.ncollision == 0) return;
  geom_poses(m, d);
  for (int c = 0; c < m.ncollision; ++c) near[c] = vselect(pair_near(m, d, c), T(1), T(0));
}

// The lanes whose factors failed in pack_mass_factors(): the factor of H, and the one with
// Euler's damping (computed when `damped`)
template <class T>
struct PackFactors {
  MaskOf<T> h_failed, damped_failed;
  bool damped;
};

// for each lane's constraint_solve() (FromPack), on the pack, in rows the pack's lanes do not use
// otherwise: efc_HL = the factor of H, efc_grad = q̈_s = H⁻¹ qfrc_smooth, and qLD = the factor of
// H + h diag(damping) in an Euler step with damping (implicitfast's and implicit's matrices the
// lanes factor: FromPack).  Each lane's bits are factor_mass()'s: the pack's factor only goes on
// past a failed pivot of one lane.
template <class T>
PackFactors<T> pack_mass_factors(const ModelView<T>& m, const Instance<T>& d, T damping_dt) {
  PackFactors<T> f{MaskOf<T>(false), MaskOf<T>(false), false};
  const int nv = m.s.nv;
  if (nv == 0) return f;
  const Row<T> qM = d.qM(), hl = d.efc_HL(), xs = d.efc_grad(), smooth = d.qfrc_smooth();
  for (int e = 0; e < m.s.nM; ++e) hl[e] = qM[e];
  cholesky_factor<T>(hl, dof_rows(m), nv, &f.h_failed);
  for (int i = 0; i < nv; ++i) xs[i] = smooth[i];
  cholesky_solve<T>(hl, dof_rows(m), xs, nv);
  f.damped = any_lane<T>(damping_dt > T(0)) && m.integrator == Integrator::kEuler;
  if (f.damped) {
    const Row<T> l = d.qLD();
    for (int e = 0; e < m.s.nM; ++e) l[e] = qM[e];
    add_implicit_term(m, d, l, damping_dt);
    cholesky_factor<T>(l, dof_rows(m), nv, &f.damped_failed);
  }
  return f;
}

// after the lanes' constrain(), the contact slots past each lane's contacts as the one-instance
// functions leave them (collision(), contact_forces(), constraint_solve()): no geoms, no contact,
// no force.  One select per value of the pack, where the lanes would write them a pack apart.
template <class T>
void clear_unused_slots(const ModelView<T>& m, const Instance<T>& d) {
  if (m.s.nconmax == 0) return;
  const T ncon = d.ncon()[0];
  // the values of slots [c0, c1) in each field (`per` values a slot, from row `at`): the unused
  // lanes', or every lane's when `all`
  const auto clear = [&](MaskOf<T> unused, bool all, int c0, int c1) {
    const auto set = [&](Row<T> row, int at, int per, T value) {
      for (int r = at + c0 * per; r < at + c1 * per; ++r) {
        row[r] = all ? value : vselect(unused, value, row[r]);
      }
    };
    // without geom pairs collision() does not run, and leaves the slots as they are
    if (m.ncollision > 0) {
      set(d.contact_geom(), 0, 2, T(-1));
      set(d.contact_dist(), 0, 1, T(0));
      set(d.contact_pos(), 0, 3, T(0));
      set(d.contact_frame(), 0, 9, T(0));
    }
    set(d.contact_force(), 0, 6, T(0));
    set(d.efc_force(), m.contact_efcadr, m.s.ncon_rows, T(0));
  };
  // the slots some lane uses one by one, then those past every lane's contacts field by field
  int c = 0;
  for (; c < m.s.nconmax && any_lane<T>(T(c) < ncon); ++c) {
    const MaskOf<T> unused = !(T(c) < ncon);
    if (any_lane<T>(unused)) clear(unused, false, c, c + 1);
  }
  clear(MaskOf<T>(true), true, c, m.s.nconmax);
}

// Euler's damped step of the lanes that left it to the pack (FromPack::deferred): q̈ = (H + h
// diag(damping))⁻¹ (qfrc_smooth + qfrc_constraint) with pack_mass_factors()'s factor in qLD, each
// lane's bits those of its own solve
template <class T>
void pack_damped_solve(const ModelView<T>& m, const Instance<T>& d, MaskOf<T> lanes) {
  if (!any_lane<T>(lanes)) return;
  const int nv = m.s.nv;
  const Row<T> x = d.efc_dir(), smooth = d.qfrc_smooth(), qfrc = d.qfrc_constraint();
  const Row<T> qacc = d.qacc();
  for (int i = 0; i < nv; ++i) x[i] = smooth[i] + qfrc[i];
  cholesky_solve<T>(d.qLD(), dof_rows(m), x, nv);
  for (int i = 0; i < nv; ++i) qacc[i] = vselect(lanes, x[i], qacc[i]);
}

// after smooth(): q̈, and the outputs of the solve when `outputs` (without rows nothing in a
// step reads them, and a later solve of the step overwrites them)
template <class T, class Rows>
void solve_lanes(const ModelView<T>& m, const Instance<T>& d, T damping_dt, int stage,
                 const Rows& rows, bool outputs) {
  if (m.s.nefc > 0) {
    rows(d, stage, pack_mass_factors(m, d, damping_dt));
    clear_unused_slots(m, d);
    return;
  }
  factor_solve(m, d, damping_dt);
  if (outputs) unconstrained_outputs(m, d);
  if (stage <= 0) sensors(m, d);
}

// forward(): the status bits of this evaluation join those the lanes had
template <class T, class Rows>
void forward_lanes(const ModelView<T>& m, const Instance<T>& d, const Rows& rows) {
  int before[Lanes<T>::width];
  for (int i = 0; i < Lanes<T>::width; ++i) {
    before[i] = d.status[i];
    d.status[i] = 0;
  }
  if (any_lane<T>(check_lanes(m, d, MaskOf<T>(true)))) {
    smooth(m, d);
    solve_lanes(m, d, T(0), -1, rows, true);
    stop_lanes(d, !all_finite(d.qacc(), m.s.nv), kStatusDiverged);
  }
  for (int i = 0; i < Lanes<T>::width; ++i) d.status[i] |= before[i];
}

// step(): lanes already stopped do not move.  `first`: the first step of a call, which checks
// the state and the parameters; within a call the parameters stay, and a step that leaves a
// non-finite state is undone and stops its lane, so later checks would find nothing.
template <class T, class Rows>
void step_lanes(const ModelView<T>& m, const Instance<T>& d, const Rows& rows, bool first) {
  const MaskOf<T> live = !stopped(d);
  if (!any_lane<T>(live)) return;
  if (first) check_lanes(m, d, live);
  step_keep(m, d);
  const T damping_dt = step_damping_dt(m);
  const int solves = solves_per_step(m);
  for (int stage = 0; stage < solves && !all_lanes<T>(stopped(d)); ++stage) {
    smooth(m, d);
    // the sensors of the step's first evaluation read its outputs too
    solve_lanes(m, d, damping_dt, stage, rows, stage_outputs(m, stage));
    if (m.integrator != Integrator::kRK4) {
      euler_update(m, d);
      break;
    }
    stop_lanes(d, !all_finite(d.qacc(), m.s.nv), kStatusDiverged);
    rk4_update(m, d, stage);
    if (stage < 3) {
      stop_lanes(d, !state_finite(m, d), kStatusDiverged);
    }
  }
  step_finish(m, d);
}

inline constexpr int kMaxPackWidth = 16;  // the widest pack: float on AVX-512

// The one-instance part of a pack's solve with constraint rows (`rows` above), for its lanes
// d[0 .. count) that have not stopped, each in its own work rows: constrain() at the time of the
// stage, with H's factors from the pack, then the sensors where the evaluation is the one they
// describe; a failure leaves its status bit.  The lanes' Newton iterations go in step, and
// where at least factor.min_lanes of them need a Newton Hessian of one pattern in an iteration,
// the pack factors those at once (`factor`): each lane's bits are those of its own constrain().
template <class T>
void constrain_lanes(const ModelView<T>& m, const Instance<T>* d, const FromPack<T>* pack,
                     int count, int stage, const LaneFactor<T>& factor) {
  constexpr int kMax = kMaxPackWidth;
  Solo g;
  const T damping_dt = stage < 0 ? T(0) : step_damping_dt(m);
  std::optional<ConstraintSolve<T, Solo>> solve[kMax];
  // the lanes whose solve succeeded, and those still in Newton
  bool ok[kMax] = {}, newton[kMax] = {};
  for (int k = 0; k < count; ++k) {
    const double t = stage < 0 ? *d[k].time : solve_time(m, *d[k].time, stage);
    if (!build_rows(m, d[k], t, g, pack + k)) continue;
    solve[k].emplace(m, d[k], damping_dt, pack + k);
    const int begun = solve[k]->begin(g);
    ok[k] = begun == solve[k]->kDone;
    newton[k] = begun == solve[k]->kNewton;
  }
  for (;;) {
    int lane[kMax], n = 0;
    for (int k = 0; k < count; ++k) {
      if (!newton[k]) continue;
      if (solve[k]->iterate(g)) {
        lane[n++] = k;
      } else {
        newton[k] = false;
        ok[k] = solve[k]->end(g);
      }
    }
    if (n == 0) break;
    // the lanes of each pattern together where there are enough of them
    bool failed[kMax] = {};
    for (int dense = 0; dense < 2; ++dense) {
      int at[kMax], pos[kMax], ns = 0;
      Row<T> a[kMax];
      for (int i = 0; i < n; ++i) {
        if (solve[lane[i]]->dense() != (dense == 1)) continue;
        at[ns] = i;
        pos[ns] = pack[lane[i]].lane;
        a[ns++] = d[lane[i]].efc_HnL();
      }
      if (ns == 0) continue;
      if (ns < factor.min_lanes) {
        for (int j = 0; j < ns; ++j) failed[at[j]] = !solve[lane[at[j]]]->factor(g);
        continue;
      }
      bool out[kMax] = {};
      factor.factor(factor.context, solve[lane[at[0]]]->hess.tree(), m.s.nv, pos, a, ns, out);
      for (int j = 0; j < ns; ++j) failed[at[j]] = out[j];
    }
    for (int i = 0; i < n; ++i) {
      const int k = lane[i];
      if (failed[i]) {
        newton[k] = ok[k] = solve[k]->factor_failed(g);
      } else if (!solve[k]->advance(g)) {
        newton[k] = false;
        ok[k] = solve[k]->end(g);
      }
    }
  }
  for (int k = 0; k < count; ++k) {
    if (!ok[k]) continue;
    if (stage_outputs(m, stage)) constrained_outputs(m, d[k], pack + k);
    if (stage <= 0) sensors(m, d[k]);
  }
}

}  // namespace zwang
