// The shared part of a model as the kernels see it: topology and geometry, identical for
// every instance.  Plain pointers into arrays owned by a backend (host or device memory).
#pragma once

#include "kernels/hd.h"
#include "kernels/lanes.h"
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

// actuator dynamics, gain and bias types, numbered as MuJoCo's mjtDyn, mjtGain, mjtBias
// (filterexact, MuJoCo 3's, takes 5: 2.2.2's numbers stay as they are)
enum ActDynId : int {
  kDynNone = 0,
  kDynIntegrator = 1,
  kDynFilter = 2,
  kDynMuscle = 3,
  kDynFilterExact = 5
};
enum ActGainId : int { kGainFixed = 0, kGainAffine = 1, kGainMuscle = 2 };
enum ActBiasId : int { kBiasNone = 0, kBiasAffine = 1, kBiasMuscle = 2 };

enum ConeId : int { kConePyramidal = 0, kConeElliptic = 1 };

// the bits of zwang::DisableBit that the stages read
enum DisableId : int {
  kDsblPassive = 1 << 5,     // no springs, damping forces or gravity compensation
  kDsblGravity = 1 << 6,     // no gravity
  kDsblClampctrl = 1 << 7,   // ctrl unclamped
  kDsblActuation = 1 << 10,  // no actuator forces
  kDsblRefsafe = 1 << 11,    // solref time constants below 2 h kept
  kDsblSensor = 1 << 12,     // sensordata not written
  kDsblSpring = 1 << 13,     // no springs
  kDsblDamper = 1 << 14,     // no damping, explicit or implicit
  kDsblEulerdamp = 1 << 15,  // Euler: damping explicit
};

// equality and non-holonomic types, numbered as zwang::EqualityType and NonholonomicType
enum EqualityId : int { kEqConnect = 0, kEqWeld = 1, kEqJoint = 2, kEqTendon = 3 };
enum NonholonomicId : int { kNhcKnifeEdge = 0, kNhcRollingSphere = 1 };

// transmissions and tendon path entries, numbered as zwang::TransmissionType and WrapType
enum TransmissionId : int { kTrnJoint = 0, kTrnTendon = 3 };
enum WrapId : int { kWrapJoint = 1, kWrapPulley = 2, kWrapSite = 3 };

// shared integer arrays, named and sized as in zwang::Model
#define ZW_MODEL_INTS(X)                                                                  \
  X(body_parent)           /* parent body, -1 for the world (nbody) */                    \
  X(body_jntadr)           /* first joint of the body (nbody) */                          \
  X(body_jntnum)           /* joints of the body (nbody) */                               \
  X(body_treeadr)          /* first entry of the body in tree_dof and body_J (nbody) */   \
  X(body_treenum)          /* dofs from the root to the body, its own included (nbody) */ \
  X(body_mocapid)          /* index in mocap_pos and mocap_quat, -1 if none (nbody) */    \
  X(jnt_type)              /* JointTypeId (njnt) */                                       \
  X(jnt_qposadr)           /* first coordinate in qpos (njnt) */                          \
  X(jnt_dofadr)            /* first dof in qvel (njnt) */                                 \
  X(tree_dof)              /* ancestor dofs of each body, increasing (njac) */            \
  X(dof_parent)            /* previous dof on the path to the root, -1 (nv) */            \
  X(actuator_trnid)        /* joint driven by the actuator (nu) */                        \
  X(actuator_ctrllimited)  /* clamp ctrl to ctrlrange (nu) */                             \
  X(actuator_forcelimited) /* clamp force to forcerange (nu) */                           \
  X(actuator_dyntype)      /* ActDynId (nu) */                                            \
  X(actuator_gaintype)     /* ActGainId (nu) */                                           \
  X(actuator_biastype)     /* ActBiasId (nu) */                                           \
  X(actuator_actadr)       /* index of its activation in act, -1 without dynamics (nu) */ \
  X(actuator_actlimited)   /* clamp act to actrange after each step (nu) */               \
  X(actuator_actearly)     /* force from the activation after the step (MuJoCo 3) (nu) */ \
  X(jnt_limited)           /* (njnt) */                                                   \
  X(eq_type)               /* EqualityType (neq) */                                       \
  X(eq_obj1id)             /* body or joint (neq) */                                      \
  X(eq_obj2id)             /* body or joint, -1: none (neq) */                            \
  X(drive_jnt)             /* driven joint (ndrive) */                                    \
  X(nhc_type)              /* NonholonomicType (nnhc) */                                  \
  X(nhc_body)              /* (nnhc) */                                                   \
  X(geom_type)             /* GeomTypeId (ngeom) */                                       \
  X(geom_body)             /* (ngeom) */                                                  \
  X(geom_visible)          /* 1: rangefinder rays see it (ngeom) */                       \
  X(site_bodyid)           /* (nsite) */                                                  \
  X(site_type)             /* GeomTypeId of the site's zone (nsite) */                    \
  X(tendon_adr)            /* first path entry in wrap_* (ntendon) */                     \
  X(tendon_num)            /* path entries (ntendon) */                                   \
  X(tendon_limited)        /* (ntendon) */                                                \
  X(wrap_type)             /* WrapId of each entry */                                     \
  X(wrap_objid)            /* joint or site of each entry, -1 for a pulley */             \
  X(actuator_trntype)      /* TransmissionId (nu) */                                      \
  X(sensor_type)           /* SensorTypeId (nsensor) */                                   \
  X(sensor_datatype)       /* SensorDataId (nsensor) */                                   \
  X(sensor_objtype)        /* ObjTypeId (nsensor) */                                      \
  X(sensor_objid)          /* (nsensor) */                                                \
  X(sensor_reftype)        /* ObjTypeId (nsensor) */                                      \
  X(sensor_refid)          /* -1: the world frame (nsensor) */                            \
  X(sensor_dim)            /* values (nsensor) */                                         \
  X(sensor_adr)            /* first value in sensordata (nsensor) */

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
  X(efc_dense)         /* the dense pattern, parent v − 1 (nv) */

#define ZW_PLAN_REALS(X)                                                        \
  X(efc_frictionloss)   /* friction loss of each row slot (nefc) */             \
  X(collision_friction) /* tangent 1, 2, torsion, roll 1, 2 (ncollision x 5) */ \
  X(collision_solref)   /* (ncollision x 2) */                                  \
  X(collision_solimp)   /* (ncollision x 5) */                                  \
  X(collision_margin)   /* contacts found at distance < margin (ncollision) */  \
  X(collision_gap)      /* and rows for those at distance < margin − gap (ncollision) */

// shared real arrays
#define ZW_MODEL_REALS(X)                                                               \
  X(body_pos)            /* frame origin in the parent frame (nbody x 3) */             \
  X(body_quat)           /* frame orientation in the parent frame (nbody x 4) */        \
  X(jnt_pos)             /* anchor in the body frame (njnt x 3) */                      \
  X(jnt_axis)            /* unit axis in the body frame, hinge and slide (njnt x 3) */  \
  X(qpos0)               /* configuration where hinge and slide angles are zero (nq) */ \
  X(body_mass)           /* the model's masses, which bound the instances' (nbody) */   \
  X(body_inertia)        /* the model's inertias, likewise (nbody x 6) */               \
  X(actuator_dynprm)     /* the model's activation time constants, likewise (nu x 3) */ \
  X(actuator_ctrlrange)  /* (nu x 2) */                                                 \
  X(actuator_forcerange) /* (nu x 2) */                                                 \
  X(actuator_actrange)   /* (nu x 2) */                                                 \
  X(actuator_musclegain) /* lengthrange0 L0 range0 lmin lmax vmax fvmax 0 (nu x 8) */   \
  X(actuator_musclebias) /* lengthrange0 L0 range0 lmax (nu x 4) */                     \
  X(jnt_range)           /* (njnt x 2) */                                               \
  X(jnt_margin)          /* (njnt) */                                                   \
  X(jnt_solref)          /* (njnt x 2) */                                               \
  X(jnt_solimp)          /* (njnt x 5) */                                               \
  X(dof_frictionloss)    /* (nv) */                                                     \
  X(dof_solref)          /* (nv x 2) */                                                 \
  X(dof_solimp)          /* (nv x 5) */                                                 \
  X(body_invweight0)     /* (nbody x 2) */                                              \
  X(dof_invweight0)      /* (nv) */                                                     \
  X(eq_data)             /* (neq x 11) */                                               \
  X(eq_solref)           /* (neq x 2) */                                                \
  X(eq_solimp)           /* (neq x 5) */                                                \
  X(drive_solref)        /* (ndrive x 2) */                                             \
  X(nhc_data)            /* (nnhc x 6) */                                               \
  X(nhc_solref)          /* (nnhc x 2) */                                               \
  X(geom_pos)            /* body frame (ngeom x 3) */                                   \
  X(geom_quat)           /* body frame (ngeom x 4) */                                   \
  X(geom_size)           /* (ngeom x 3) */                                              \
  X(geom_rbound)         /* bounding sphere radius, 0 for planes (ngeom) */             \
  X(site_pos)            /* body frame (nsite x 3) */                                   \
  X(site_quat)           /* body frame (nsite x 4) */                                   \
  X(site_size)           /* the zone's size, as a geom's (nsite x 3) */                 \
  X(wrap_prm)            /* joint coefficient or pulley divisor of each entry */        \
  X(tendon_lengthspring) /* spring rest length (ntendon) */                             \
  X(tendon_length0)      /* length at qpos0 (ntendon) */                                \
  X(tendon_invweight0)   /* (ntendon) */                                                \
  X(tendon_range)        /* (ntendon x 2) */                                            \
  X(tendon_margin)       /* (ntendon) */                                                \
  X(tendon_solref_lim)   /* (ntendon x 2) */                                            \
  X(tendon_solimp_lim)   /* (ntendon x 5) */                                            \
  X(tendon_solref_fri)   /* (ntendon x 2) */                                            \
  X(tendon_solimp_fri)   /* (ntendon x 5) */                                            \
  X(sensor_cutoff)       /* 0: none (nsensor) */                                        \
  X(magnetic)            /* magnetic field, world (3) */

template <class T>
struct ModelView {
  Sizes s;             // sizes
  Layout lay;          // field offsets in the arenas
  double timestep;     // integration step (s); in double so that time adds up exactly in float runs
  int integrator;      // IntegratorId
  int neq, nnhc;       // equality and non-holonomic constraints
  int iterations;      // constraint solver: Newton iterations at most
  T tolerance;         // and the goal of its scaled gradient norm
  int cone;            // ConeId
  T impratio;          // frictional-to-normal impedance ratio
  int ncollision;      // geom pairs that may collide
  int contact_efcadr;  // first contact row slot: slot c has rows contact_efcadr + c ncon_rows + k
  int disableflags;    // DisableId bits (Model::disableflags)
  // check the per-instance parameters (kernels/check_parameters.h); false where every instance
  // holds the model's values and they pass (Batch::parameters_exposed())
  bool check_parameters = true;
#define ZW_X(name) const int* name;
  ZW_MODEL_INTS(ZW_X)
  ZW_PLAN_INTS(ZW_X)
#undef ZW_X
  // for a pack, a pointer that broadcasts each model real to every lane
#define ZW_X(name) typename Lanes<T>::ConstPtr name;
  ZW_MODEL_REALS(ZW_X)
  ZW_PLAN_REALS(ZW_X)
#undef ZW_X
};

}  // namespace zwang
