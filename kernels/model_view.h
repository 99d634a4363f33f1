// The shared part of a model as the kernels see it: topology and geometry, identical for
// every instance.  Plain pointers into arrays owned by a backend (host or device memory).
#pragma once

#include "kernels/hd.h"
#include "kernels/layout.h"

namespace zwang {

// joint types, numbered as MuJoCo's mjtJoint
enum JointTypeId : int { kJntFree = 0, kJntBall = 1, kJntSlide = 2, kJntHinge = 3 };

// dofs and coordinates of a joint type
ZW_HD inline int joint_nv(int type) {
  return type == kJntFree ? 6 : type == kJntBall ? 3 : 1;
}
ZW_HD inline int joint_nq(int type) {
  return type == kJntFree ? 7 : type == kJntBall ? 4 : 1;
}

enum IntegratorId : int { kIntEuler = 0, kIntRK4 = 1 };

// shared integer arrays, named and sized as in zwang::Model
#define ZW_MODEL_INTS(X)                                                                  \
  X(body_parent)           /* parent body, -1 for the world (nbody) */                    \
  X(body_jntadr)           /* first joint of the body (nbody) */                          \
  X(body_jntnum)           /* joints of the body (nbody) */                               \
  X(body_treeadr)          /* first entry of the body in tree_dof and body_J (nbody) */   \
  X(body_treenum)          /* dofs from the root to the body, its own included (nbody) */ \
  X(jnt_type)              /* JointTypeId (njnt) */                                       \
  X(jnt_qposadr)           /* first coordinate in qpos (njnt) */                          \
  X(jnt_dofadr)            /* first dof in qvel (njnt) */                                 \
  X(tree_dof)              /* ancestor dofs of each body, increasing (njac) */            \
  X(dof_parent)            /* previous dof on the path to the root, -1 (nv) */            \
  X(actuator_trnid)        /* joint driven by the actuator (nu) */                        \
  X(actuator_ctrllimited)  /* clamp ctrl to ctrlrange (nu) */                             \
  X(actuator_forcelimited) /* clamp force to forcerange (nu) */

// shared real arrays
#define ZW_MODEL_REALS(X)                                                               \
  X(body_pos)            /* frame origin in the parent frame (nbody x 3) */             \
  X(body_quat)           /* frame orientation in the parent frame (nbody x 4) */        \
  X(jnt_pos)             /* anchor in the body frame (njnt x 3) */                      \
  X(jnt_axis)            /* unit axis in the body frame, hinge and slide (njnt x 3) */  \
  X(qpos0)               /* configuration where hinge and slide angles are zero (nq) */ \
  X(body_mass)           /* the model's masses, which bound the instances' (nbody) */   \
  X(body_inertia)        /* the model's inertias, likewise (nbody x 6) */               \
  X(actuator_ctrlrange)  /* (nu x 2) */                                                 \
  X(actuator_forcerange) /* (nu x 2) */

template <class T>
struct ModelView {
  Sizes s;          // sizes
  Layout lay;       // field offsets in the arenas
  double timestep;  // integration step (s); in double so that time adds up exactly in float runs
  int integrator;   // IntegratorId
#define ZW_X(name) const int* name;
  ZW_MODEL_INTS(ZW_X)
#undef ZW_X
#define ZW_X(name) const T* name;
  ZW_MODEL_REALS(ZW_X)
#undef ZW_X
};

}  // namespace zwang
