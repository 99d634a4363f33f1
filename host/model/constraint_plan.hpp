// Where each constraint of a model puts its rows: a fixed slot per row the model can ever
// need, hard rows first (hard equalities, drives, non-holonomic), then MuJoCo's order (soft
// equalities, dof friction, tendon friction, joint limits, tendon limits).  Slots depend on
// Model::disableflags.
#pragma once

#include <array>
#include <vector>

#include "zwang/model.hpp"

namespace zwang {

// contacts per instance when the model's exact bound (Σ over its collision pairs of the
// contacts each can have) is larger than this and than four per colliding geom
inline constexpr int kDefaultContactBound = 64;

struct RowPlan {
  int nefc = 0;   // row slots
  int nhard = 0;  // the first nhard are hard
  std::vector<int> jnt_efcadr, dof_efcadr, eq_efcadr, drive_efcadr, nhc_efcadr;
  std::vector<int> ten_efcadr, tenfri_efcadr;  // tendon limit (2 rows) and friction (ntendon)
  std::vector<int> efc_kind;                   // EfcKind (nefc)
  std::vector<int> efc_tree;                   // dof parents of H + Jᵀ D J's pattern (nv)
  std::vector<int> efc_dense;                  // the dense pattern, v − 1 (nv)
  std::vector<double> efc_frictionloss;        // (nefc)
  // the dofs a row can touch, a range holding its Jacobian's nonzero columns: row slot r's are
  // [efc_dof0[r], efc_dof1[r]) (a contact slot's are its pair's)
  std::vector<int> efc_dof0, efc_dof1;  // (nefc)

  // contacts: the geom pairs that may collide (explicit pairs first, then the geom pairs the
  // filters let through, in body-pair order), each with geom1's type ≤ geom2's, and its
  // contact parameters; nconmax slots of ncon_rows rows each, the last rows, from contact_efcadr
  int ncollision = 0;
  int nconmax = 0;
  int ncon_rows = 0;
  int contact_efcadr = 0;
  std::vector<int> collision_geom1, collision_geom2, collision_dim;  // (ncollision)
  std::vector<int> collision_couples;  // 1: the bodies are on different branches (ncollision)
  std::vector<int> collision_dof0, collision_dof1;      // its contact rows' dofs (ncollision)
  std::vector<double> collision_friction;               // (ncollision x 5)
  std::vector<double> collision_solref;                 // (ncollision x 2)
  std::vector<double> collision_solimp;                 // (ncollision x 5)
  std::vector<double> collision_margin, collision_gap;  // (ncollision)
  // geom pairs that pass the filters but have no narrow phase: never in contact
  std::vector<std::array<int, 2>> unsupported;
};

RowPlan plan_rows(const Model& model);

// Radius of the sphere about a geom's centre that holds it (0 for a plane: infinite).
double geom_bounding_radius(GeomType type, const Vec3d& size);
// a height-field geom's, from its height field's hfield_size (MuJoCo's geom_rbound: the box of
// its rectangle and the larger of elevation and base)
double hfield_bounding_radius(const std::array<double, 4>& hfield_size);

// rows of one equality of this type
int equality_rows(EqualityType type);

// body_invweight0, dof_invweight0 and the eq_data MuJoCo derives at qpos0 (connect's
// second anchor, weld's relative pose when none is given), from the model's parameters.
void set_constraint_constants(Model& model);

}  // namespace zwang
