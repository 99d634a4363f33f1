// Per-instance fields and where they live.  Every field is a block of rows in one of three
// arenas; row r of instance i is at base[r * ld + i * inst] (DESIGN.md §2):
//   data   state and outputs a user reads or writes     (per instance)
//   param  numeric parameters a user may randomise      (per instance, or shared)
//   work   scratch of the stages                        (per instance or per thread)
// Counts are expressions of the model sizes `s`.
#pragma once

#include "kernels/hd.h"

namespace zwang {

// sizes shared by every instance of a model
struct Sizes {
  int nq;         // generalized coordinates
  int nv;         // degrees of freedom
  int nu;         // actuators
  int nbody;      // bodies, the world (body 0) included
  int njnt;       // joints
  int nM;         // packed lower triangle of H: nv (nv + 1) / 2
  int njac;       // non-zero Jacobian columns over all bodies: Σ_k (ancestor dofs of k)
  int nefc;       // constraint row slots: hard rows first, then equality, friction, limit rows
  int nhard;      // hard rows (drives, non-holonomic, hard equalities), the first nhard slots
  int ndrive;     // driven joints
  int ngeom;      // collision geoms
  int nconmax;    // contacts per instance at most
  int ncon_rows;  // row slots per contact (pyramidal 2 (condim − 1) or 1, elliptic condim)

  int nsensor;      // sensors
  int nsensordata;  // their values
  int nsensorbody;  // nbody when a sensor needs sums over subtrees (velocity, momentum, force)
  int nmocap;       // mocap bodies, posed by each instance's mocap_pos and mocap_quat
  int ntendon;      // tendons
  int na;           // activations: one per actuator with dynamics, in actuator order
};

#define ZW_DATA_FIELDS(X)                                                                          \
  X(qpos, s.nq)                /* joint positions, MuJoCo layout (nq) */                           \
  X(qvel, s.nv)                /* joint velocities, MuJoCo layout (nv) */                          \
  X(ctrl, s.nu)                /* actuator controls (nu) */                                        \
  X(act, s.na)                 /* actuator activations, part of the state (na) */                  \
  X(xfrc_applied, 6 * s.nbody) /* external wrench at each COM, world: force, torque */             \
  X(mocap_pos, 3 * s.nmocap)   /* position of each mocap body, world (nmocap x 3) */               \
  X(mocap_quat, 4 * s.nmocap)  /* orientation of each mocap body, world, normalised on use */      \
  X(qacc, s.nv)                /* q̈ (nv); after an implicit step, (H − h D)⁻¹(τ − h) */  \
  X(qM, s.nM)                  /* H = Σ J_kᵀ M_k J_k + armature, packed lower (nM) */           \
  X(qfrc_bias, s.nv)           /* h − Σ J_kᵀ [m_k g; 0]: Coriolis, centrifugal, gravity */    \
  X(qfrc_passive, s.nv)        /* springs, damping, gravity compensation (nv) */                   \
  X(qfrc_actuator, s.nv)       /* actuator forces in joint space (nv) */                           \
  X(qfrc_applied, s.nv)        /* Σ J_kᵀ xfrc_applied_k (nv) */                                 \
  X(actuator_force, s.nu)      /* scalar actuator forces (nu) */                                   \
  X(act_dot, s.na)             /* time derivative of act (na) */                                   \
  X(xpos, 3 * s.nbody)         /* body frame origins, world (nbody x 3) */                         \
  X(xquat, 4 * s.nbody)        /* body frame orientations, world (nbody x 4) */                    \
  X(xipos, 3 * s.nbody)        /* body centres of mass, world (nbody x 3) */                       \
  X(qacc_smooth, s.nv) /* q̈ without constraints (nv); in an Euler step without rows, damped */   \
  X(qfrc_constraint, s.nv)        /* Σ_rows J_rᵀ f_r: generalized constraint force (nv) */      \
  X(efc_force, s.nefc)            /* force of each row slot, 0 when inactive (nefc) */             \
  X(drive_force, s.ndrive)        /* generalized force each drive supplies (ndrive) */             \
  X(efc_nactive, 1)               /* active constraint rows */                                     \
  X(solver_niter, 1)              /* Newton iterations of the last constraint solve */             \
  X(solver_residual, 1)           /* its scaled gradient norm (Model::tolerance is the goal) */    \
  X(ncon, 1)                      /* contacts found, at most nconmax */                            \
  X(contact_geom, 2 * s.nconmax)  /* geom1, geom2 of each contact, −1 past ncon (nconmax x 2) */ \
  X(contact_dist, s.nconmax)      /* signed distance, negative in penetration (nconmax) */         \
  X(contact_pos, 3 * s.nconmax)   /* contact point, world (nconmax x 3) */                         \
  X(contact_frame, 9 * s.nconmax) /* rows: normal from geom1 to geom2, tangents (nconmax x 9) */   \
  X(contact_force, 6 * s.nconmax) /* on geom2, contact frame: n, t1, t2, torsion, rolling */       \
  X(geom_xpos, 3 * s.ngeom)       /* geom centres, world (ngeom x 3) */                            \
  X(geom_xmat, 9 * s.ngeom)       /* geom orientations, row-major (ngeom x 9) */                   \
  X(subtree_com, 3 * s.nbody)     /* centre of mass of each body's subtree, world */               \
  X(cfrc_ext, 6 * s.nbody) /* external torque, force on each body about its tree's subtree_com */  \
  X(cvel, 6 * s.nbody) /* body velocities, Plücker at the world origin: [v_O; ω] (nbody x 6) */  \
  X(ten_length, s.ntendon)     /* tendon lengths (ntendon) */                                      \
  X(ten_velocity, s.ntendon)   /* their rates J_t q̇ (ntendon) */                                 \
  X(sensordata, s.nsensordata) /* sensor values; after step(), at the step's start state */

#define ZW_PARAM_FIELDS(X)                                                                    \
  X(body_mass, s.nbody)          /* mass (nbody) */                                           \
  X(body_ipos, 3 * s.nbody)      /* COM in the body frame (nbody x 3) */                      \
  X(body_inertia, 6 * s.nbody)   /* inertia about the COM, body frame: xx yy zz xy xz yz */   \
  X(body_gravcomp, s.nbody)      /* gravity compensation: passive force −gravcomp m g */    \
  X(dof_damping, s.nv)           /* viscous damping (nv) */                                   \
  X(dof_armature, s.nv)          /* rotor inertia added to H's diagonal (nv) */               \
  X(jnt_stiffness, s.njnt)       /* spring stiffness (njnt) */                                \
  X(qpos_spring, s.nq)           /* spring rest position (nq) */                              \
  X(actuator_gear, s.nu)         /* transmission ratio (nu) */                                \
  X(actuator_gainprm, 3 * s.nu)  /* gain = gain0 + gain1 l + gain2 l̇ (nu x 3) */            \
  X(actuator_biasprm, 3 * s.nu)  /* bias = bias0 + bias1 l + bias2 l̇ (nu x 3) */            \
  X(actuator_dynprm, 3 * s.nu)   /* filter: time constant τ (nu x 3) */                      \
  X(gravity, 3)                  /* gravitational acceleration, world (3) */                  \
  X(density, 1)                  /* density of the medium (kg/m³) */                         \
  X(viscosity, 1)                /* viscosity of the medium (Pa s) */                         \
  X(wind, 3)                     /* velocity of the medium, world (3) */                      \
  X(drive_prm, 5 * s.ndrive)     /* q0 v0 amplitude omega phase of each drive (ndrive x 5) */ \
  X(tendon_stiffness, s.ntendon) /* tendon spring stiffness (ntendon) */                      \
  X(tendon_damping, s.ntendon)   /* tendon viscous damping (ntendon) */

// scratch of the sensors (kernels/sensors.h), of every body where a sensor needs sums over subtrees
#define ZW_SENSOR_WORK_FIELDS(X)                                            \
  X(subtree_mass, s.nsensorbody)       /* mass of each body's subtree */    \
  X(subtree_linvel, 3 * s.nsensorbody) /* velocity of its centre of mass */ \
  X(subtree_angmom, 3 * s.nsensorbody) /* its angular momentum about it */  \
  X(cfrc_int, 6 * s.nsensorbody) /* torque, force from the parent about the tree's subtree_com */

#define ZW_WORK_FIELDS(X)                                                                          \
  X(xmat, 9 * s.nbody)         /* body orientations, row-major (nbody x 9) */                      \
  X(cdof, 6 * s.nv)            /* dof motion axes, Plücker at the world origin (nv x 6) */        \
  X(cacc, 6 * s.nbody)         /* body bias accelerations (q̈ = 0), same frame */                 \
  X(body_J, 6 * s.njac)        /* COM Jacobian columns of ancestor dofs, bodies with joints */     \
  X(body_biasacc, 6 * s.nbody) /* J̇_k q̇ at the COM, world, linear first */                     \
  X(body_Iw, 6 * s.nbody)      /* R_k I_k R_kᵀ (nbody x 6) */                                    \
  X(body_n, 3 * s.nbody)       /* ω_k × (R_k I_k R_kᵀ) ω_k (nbody x 3) */                     \
  X(crb_inertia, 10 * s.nbody) /* subtree Σ M_k about the COM c: m, Σ m_k (c_k − c), I */      \
  X(crb_wrench, 6 * s.nbody)   /* subtree Σ M_k (J̇_k q̇ − [g; 0]) + n_k about the COM */     \
  X(qLD, s.nM)                 /* factor of H (+ h·damping or − h D), packed lower, or LU */    \
  X(qfrc_smooth, s.nv)         /* τ + Σ J_kᵀ w_k − h: the right-hand side of H q̈ (nv) */   \
  X(step_qpos, s.nq)           /* qpos at the start of the step */                                 \
  X(step_qvel, s.nv)           /* qvel at the start of the step */                                 \
  X(step_act, s.na)            /* act at the start of the step */                                  \
  X(rk_dact, s.na)             /* RK4: weighted sum of stage activation rates */                   \
  X(rk_rate, s.nv)             /* RK4: rate of the step's local coordinates, last stage */         \
  X(rk_dpos, s.nv)             /* RK4: weighted sum of the rates */                                \
  X(rk_dvel, s.nv)             /* RK4: weighted sum of stage accelerations */                      \
  X(efc_J, s.nefc* s.nv)       /* constraint Jacobian, dense rows (nefc x nv) */                   \
  X(efc_pos, s.nefc)           /* constraint violation (distance for limits) */                    \
  X(efc_aref, s.nefc)          /* reference acceleration of each row */                            \
  X(efc_D, s.nefc)             /* 1 / R, 0 for inactive rows */                                    \
  X(efc_R, s.nefc)             /* regulariser */                                                   \
  X(efc_jar, s.nefc)           /* J q̈ − aref */                                                \
  X(efc_jv, s.nefc)            /* J d along the search direction d */                              \
  X(efc_weight, s.nefc)        /* s″ of each soft row at jar: its weight in H + Jᵀ D J */      \
  X(efc_HL, s.nM)              /* Cholesky factor of H; implicit: the LU's upper part */           \
  X(efc_HnL, s.nM)             /* factor of the Newton Hessian H + Jᵀ D J, then the step's */    \
  X(efc_grad, s.nv)            /* gradient of the cost; in a SIMD pack q̈_s for its lanes */      \
  X(efc_dir, s.nv)             /* search direction */                                              \
  X(efc_Hd, s.nv)              /* H d */                                                           \
  X(efc_tmp, s.nv)             /* scratch vector */                                                \
  X(efc_qvel, s.nv)            /* q̇ while the rows are built (a copy of qvel in the scratch) */  \
  X(efc_M, s.nM)               /* H during the solve (a copy of qM in the scratch) */              \
  X(efc_xs, s.nv)              /* q̈_s during the solve (a copy of qacc_smooth in the scratch) */ \
  X(efc_x, s.nv)               /* q̈ during the solve, qacc at its end */                         \
  X(efc_qfrc, s.nv)            /* Jᵀ f during the solve, qfrc_constraint at its end */           \
  X(efc_Y, s.nhard* s.nv)      /* G⁻¹ Aᵀ for the hard rows A (nhard x nv) */                  \
  X(efc_S, s.nhard* s.nhard)   /* A G⁻¹ Aᵀ and its factor (nhard x nhard) */                  \
  X(efc_mu, s.nhard)           /* multipliers of the hard rows */                                  \
  X(efc_perm, s.nhard)         /* pivot order of A G⁻¹ Aᵀ's factor, −1 past its rank */     \
  X(efc_pstate, s.nhard)       /* its rows: diagonal, −1 eliminated, −2 dropped */             \
  X(contact_pair, s.nconmax)   /* collision pair of each contact (nconmax) */                      \
  X(contact_mu, s.nconmax)     /* friction of the regularised cone, μ₁ √(R₁ / R₀) */      \
  X(ten_J, s.ntendon* s.nv)    /* tendon moments ∂L/∂q in dof space, dense (ntendon x nv) */   \
  ZW_SENSOR_WORK_FIELDS(X)

// row offsets of every field in its arena, and the rows of each arena
struct Layout {
#define ZW_X(name, count) int name;
  ZW_DATA_FIELDS(ZW_X)
  ZW_PARAM_FIELDS(ZW_X)
  ZW_WORK_FIELDS(ZW_X)
#undef ZW_X
  int data_rows;
  int param_rows;
  int work_rows;
};

// The data rows that forward() and a step read before they write them: the state and the
// inputs, which ZW_DATA_FIELDS lists first (qpos … mocap_quat).  Every later data row is an
// output, written before it is read, but for sensordata (last): the values of sensors zwang
// does not compute, and of user sensors, are the user's and stay.
ZW_HD inline int input_rows(const Layout& l) {
  return l.qacc;
}

ZW_HD inline Layout make_layout(const Sizes& s) {
  Layout l{};
  int r = 0;
#define ZW_X(name, count) \
  l.name = r;             \
  r += (count);
  ZW_DATA_FIELDS(ZW_X)
  l.data_rows = r;
  r = 0;
  ZW_PARAM_FIELDS(ZW_X)
  l.param_rows = r;
  r = 0;
  ZW_WORK_FIELDS(ZW_X)
  l.work_rows = r;
#undef ZW_X
  return l;
}

}  // namespace zwang
