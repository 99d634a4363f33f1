// The shared part of a model as the kernels see it: topology and geometry, identical for
// every instance.  Plain pointers into arrays owned by a backend (host or device memory).
#pragma once

#include "kernels/hd.h"
#include "kernels/lanes.h"
#include "kernels/layout.h"
#include "kernels/math_chol.h"
#include "kernels/model_fields.h"
#include "kernels/types.h"

namespace zwang {

// how the solver treats a row slot: always quadratic (equality), friction (Huber), inequality
// (limit; active when its distance is below the margin), or hard (exact, Gauss projection);
// contact rows: pyramidal or frictionless (inequalities as limits), elliptic (a cone per contact)
enum EfcKind : int {
  kEfcEquality = 0,
  kEfcFriction = 1,
  kEfcLimit = 2,
  kEfcHard = 3,
  kEfcContact = 4,
  kEfcElliptic = 5
};

// the arrays of kernels/model_fields.h that the kernels read: ZW_MODEL_ARRAYS(ZW_VIEW_INT) and
// ZW_MODEL_ARRAYS(ZW_VIEW_REAL) expand ZW_X(name) for each one they read as ints (an enum as its
// number) or as reals
#define ZW_VIEW_INT(use, type, name, shape, meaning) ZW_ARRAY_INT(use, ZW_X(name))
#define ZW_VIEW_REAL(use, type, name, shape, meaning) ZW_ARRAY_REAL(use, ZW_X(name))

// shared integer arrays of the row plan (host/model/constraint_plan.hpp), derived from the model
#define ZW_PLAN_INTS(X)                                                                    \
  X(jnt_efcadr)        /* first limit row slot, -1 without (njnt) */                       \
  X(ten_efcadr)        /* first limit row slot of each tendon, -1 without (ntendon) */     \
  X(tenfri_efcadr)     /* friction row slot of each tendon, -1 without (ntendon) */        \
  X(dof_efcadr)        /* friction row slot, -1 without (nv) */                            \
  X(eq_efcadr)         /* first row slot, -1 when inactive or disabled (neq) */            \
  X(drive_efcadr)      /* row slot (ndrive) */                                             \
  X(nhc_efcadr)        /* first row slot (nnhc) */                                         \
  X(efc_kind)          /* EfcKind of each row slot (nefc) */                               \
  X(efc_tree)          /* parent of each dof in the pattern of H + Jᵀ D J (nv) */        \
  X(collision_geom1)   /* geom pairs that may collide, type₁ ≤ type₂ (ncollision) */ \
  X(collision_geom2)   /* (ncollision) */                                                  \
  X(collision_dim)     /* condim of their contacts (ncollision) */                         \
  X(collision_couples) /* 1 when its bodies are on different branches of the tree */       \
  X(efc_dense)         /* the dense pattern, parent v − 1 (nv) */                        \
  X(efc_dof0)          /* a row slot's dofs are [efc_dof0, efc_dof1): the range that */    \
  X(efc_dof1)          /* holds its nonzero columns; 0 0 in a contact slot (nefc) */       \
  X(collision_dof0)    /* a pair's contact rows' range (ncollision) */                     \
  X(collision_dof1)    /* (ncollision) */

// shared integer arrays of the lane-group schedule (host/model/group_schedule.hpp): the orders in
// which a group of lanes runs the tree stages of one instance (kernels/tree_order.h)
#define ZW_SCHEDULE_INTS(X)                                                                     \
  X(level_adr)  /* bodies of level l at level_body[level_adr[l] … level_adr[l + 1]) */        \
  X(level_body) /* bodies 1 … nbody − 1 by depth, a parent's level before its children's */ \
  X(child_adr)  /* children of body b at child[child_adr[b] … child_adr[b + 1]) */            \
  X(child)      /* each body's children, decreasing */                                          \
  X(entry_row)  /* H(entry_row[e], entry_col[e]): the entries the tree can fill */              \
  X(entry_col)  /* (nentry) */                                                                  \
  X(entry_adr)  /* row i's entries at [entry_adr[i], entry_adr[i + 1]) (nv + 1) */              \
  X(hess_row)   /* the same for efc_tree's pattern (nhess) */                                   \
  X(hess_col)   /* (nhess) */                                                                   \
  X(hess_adr)   /* (nv + 1) */                                                                  \
  X(dense_row)  /* and for efc_dense's, every (i, j ≤ i) in packed order (nM) */              \
  X(dense_col)  /* (nM) */                                                                      \
  X(dense_adr)  /* (nv + 1) */

#define ZW_PLAN_REALS(X)                                                        \
  X(efc_frictionloss)   /* friction loss of each row slot (nefc) */             \
  X(collision_friction) /* tangent 1, 2, torsion, roll 1, 2 (ncollision x 5) */ \
  X(collision_solref)   /* (ncollision x 2) */                                  \
  X(collision_solimp)   /* (ncollision x 5) */                                  \
  X(collision_margin)   /* contacts found at distance < margin (ncollision) */  \
  X(collision_gap)      /* and rows for those at distance < margin − gap (ncollision) */

template <class T>
struct ModelView {
  Sizes s;             // sizes
  Layout lay;          // field offsets in the arenas
  double timestep;     // integration step (s); in double so that time adds up exactly in float runs
  int integrator;      // Integrator
  int neq, nnhc;       // equality and non-holonomic constraints
  int iterations;      // constraint solver: Newton iterations at most
  T tolerance;         // and the goal of its scaled gradient norm
  int cone;            // Cone
  T impratio;          // frictional-to-normal impedance ratio
  int ncollision;      // geom pairs that may collide
  int contact_efcadr;  // first contact row slot: slot c has rows contact_efcadr + c ncon_rows + k
  int disableflags;    // DisableBit bits (Model::disableflags)
  int wrap_rules;      // WrapRules
  int rules;           // Rules
  int nlevel;          // levels of the body tree (ZW_SCHEDULE_INTS)
  int nentry;          // entries of H that the tree can fill
  int nhess;           // entries of the Newton Hessian's pattern efc_tree
  // check the per-instance parameters (kernels/check_parameters.h); false where every instance
  // holds the model's values and they pass (Batch::parameters_exposed())
  bool check_parameters = true;
#define ZW_X(name) const int* name;
  ZW_MODEL_ARRAYS(ZW_VIEW_INT)
  ZW_PLAN_INTS(ZW_X)
  ZW_SCHEDULE_INTS(ZW_X)
#undef ZW_X
  // for a pack, a pointer that broadcasts each model real to every lane
#define ZW_X(name) typename Lanes<T>::ConstPtr name;
  ZW_MODEL_ARRAYS(ZW_VIEW_REAL)
  ZW_X(magnetic)  // magnetic field, world (3)
  ZW_PLAN_REALS(ZW_X)
#undef ZW_X
  // with dual numbers (kernels/dual.h): the same model in their value type, where the constraint
  // solver iterates on the values alone (kernels/constraint_solver.h); null otherwise
  const ModelView<ValueOf<T>>* values = nullptr;
  // with dual numbers: the position stages' outputs (position_outputs()) are filled in already,
  // their tangents 0, so forward kinematics, the bodies' Jacobians and inertias, H and the
  // collision do not run (positions_given()); for a pass whose seeds leave qpos and the
  // parameters alone
  bool positions_given = false;
};

// whether the position stages are skipped (ModelView::positions_given); never without tangents
template <class T>
ZW_HD ZW_INLINE bool positions_given(const ModelView<T>& m) {
  if constexpr (kTangents<T>) {
    return m.positions_given;
  } else {
    (void)m;
    return false;
  }
}

// The rows that the stages positions_given() skips write, as f(data, first row, rows), data true
// for the data arena's rows and false for the work arena's: forward kinematics' frames and dof
// axes, the geoms' poses and the contacts the collision found, the bodies' COM Jacobians, rotated
// and composite inertias, and H.  The step writes nothing else into them (an Euler or implicit
// step evaluates the positions once, at its start).
template <class T, class F>
void position_outputs(const ModelView<T>& m, F&& f) {
  const Layout& l = m.lay;
  const Sizes& s = m.s;
  f(true, l.xpos, 3 * s.nbody);
  f(true, l.xquat, 4 * s.nbody);
  f(true, l.xipos, 3 * s.nbody);
  f(true, l.ncon, 1);
  f(true, l.contact_geom, 2 * s.nconmax);
  f(true, l.contact_dist, s.nconmax);
  f(true, l.contact_pos, 3 * s.nconmax);
  f(true, l.contact_frame, 9 * s.nconmax);
  f(true, l.geom_xpos, 3 * s.ngeom);
  f(true, l.geom_xmat, 9 * s.ngeom);
  f(false, l.xmat, 9 * s.nbody);
  f(false, l.cdof, 6 * s.nv);
  f(false, l.body_J, 6 * s.njac);
  f(false, l.body_Iw, 6 * s.nbody);
  f(true, l.qM, s.nM);
  f(false, l.crb_inertia, 10 * s.nbody);
  f(false, l.contact_pair, s.nconmax);
}

// H's pattern, the dof tree, by rows (kernels/math_chol.h)
template <class T>
ZW_HD ZW_INLINE TreeRows dof_rows(const ModelView<T>& m) {
  return {m.entry_adr, m.entry_col};
}

}  // namespace zwang
