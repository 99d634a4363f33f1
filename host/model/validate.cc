// Model::validate: the invariants the kernels rely on, checked before a Batch or a Simulator
// reads a Model that may have been edited by hand after ModelBuilder::build().
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <tuple>
#include <utility>
#include <vector>

#include "host/model/constraint_plan.hpp"
#include "host/model/keyframes.hpp"
#include "host/model/sensors.hpp"
#include "host/model/size.hpp"
#include "kernels/layout.h"
#include "kernels/model_view.h"
#include "zwang/model.hpp"

namespace zwang {
namespace {

void finite(const char* field, const std::vector<double>& v) {
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (!std::isfinite(v[i]))
      throw ModelError(fmt::format("model: {}[{}] is not finite", field, i));
  }
}

void index_in(const char* field, int value, int low, int high, std::size_t at) {
  if (value < low || value >= high) {
    throw ModelError(
        fmt::format("model: {}[{}] = {} is not in [{}, {})", field, at, value, low, high));
  }
}

// the quaternion of element `at` of `quats` (4 values each) has norm 1 to 1e-9
void unit_quat(const char* what, const std::vector<double>& quats, std::size_t at) {
  const double* q = quats.data() + 4 * at;
  const double q2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
  if (std::abs(q2 - 1) > 1e-9) {
    throw ModelError(
        fmt::format("model: {} {} has a quaternion of norm {}, not 1", what, at, std::sqrt(q2)));
  }
}

}  // namespace

std::int64_t check_instance_rows(std::int64_t nq, std::int64_t nv, std::int64_t nu,
                                 std::int64_t nbody, std::int64_t njnt, std::int64_t njac,
                                 std::int64_t nefc, std::int64_t nhard, std::int64_t ndrive,
                                 std::int64_t ngeom, std::int64_t nconmax, std::int64_t ncon_rows,
                                 std::int64_t nsensor, std::int64_t nsensordata,
                                 std::int64_t nsensorbody, std::int64_t nmocap,
                                 std::int64_t ntendon, std::int64_t na) {
  // the field lists of kernels/layout.h, evaluated with 64-bit sizes
  struct {
    std::int64_t nq, nv, nu, nbody, njnt, nM, njac, nefc, nhard, ndrive, ngeom, nconmax, ncon_rows,
        nsensor, nsensordata, nsensorbody, nmocap, ntendon, na;
  } s{nq,          nv,          nu,     nbody,   njnt,    nv * (nv + 1) / 2, njac,
      nefc,        nhard,       ndrive, ngeom,   nconmax, ncon_rows,         nsensor,
      nsensordata, nsensorbody, nmocap, ntendon, na};
  std::int64_t rows = 0;
  std::vector<std::pair<std::int64_t, const char*>> fields;
#define ZW_X(name, count) \
  rows += (count);        \
  fields.emplace_back((count), #name);
  ZW_DATA_FIELDS(ZW_X)
  ZW_PARAM_FIELDS(ZW_X)
  ZW_WORK_FIELDS(ZW_X)
#undef ZW_X
  if (rows > kMaxInstanceRows) {
    // the three largest fields, and the sizes they grow with
    std::partial_sort(fields.begin(), fields.begin() + 3, fields.end(), std::greater<>());
    const std::string rows_text =
        nefc == 0      ? ""
        : nconmax == 0 ? fmt::format(", {} constraint rows", nefc)
                       : fmt::format(", {} constraint rows, {} of them for {} contacts (nconmax)",
                                     nefc, nconmax * ncon_rows, nconmax);
    throw ModelError(fmt::format(
        "model: one instance needs {} values, more than the {} an instance may have; the "
        "largest are {} {}, {} {} and {} {} (nv {}, {} bodies{})",
        rows, kMaxInstanceRows, fields[0].second, fields[0].first, fields[1].second,
        fields[1].first, fields[2].second, fields[2].first, nv, nbody, rows_text));
  }
  return rows;
}

void Model::validate() const {
  // the counts, then every array against the shape they give it (kernels/model_fields.h)
  for (const auto& [count, value, least] : {std::tuple{"nbody", nbody, 1},
                                            {"njnt", njnt, 0},
                                            {"nq", nq, 0},
                                            {"nv", nv, 0},
                                            {"nu", nu, 0},
                                            {"na", na, 0},
                                            {"nmocap", nmocap, 0},
                                            {"ntendon", ntendon, 0},
                                            {"neq", neq, 0},
                                            {"ndrive", ndrive, 0},
                                            {"nnhc", nnhc, 0},
                                            {"ngeom", ngeom, 0},
                                            {"nmesh", nmesh, 0},
                                            {"nhfield", nhfield, 0},
                                            {"npair", npair, 0},
                                            {"nexclude", nexclude, 0},
                                            {"nsite", nsite, 0},
                                            {"nfused", nfused, 0},
                                            {"nsensor", nsensor, 0},
                                            {"nsensordata", nsensordata, 0},
                                            {"nkey", nkey, 0}}) {
    if (value < least)
      throw ModelError(fmt::format("model: {} is {}, less than {}", count, value, least));
  }
  for_each_array([](const char* field, const auto& array, const ArrayShape& shape, const char*) {
    if (static_cast<std::int64_t>(array.size()) != shape.count()) {
      throw ModelError(fmt::format("model: {} has {} values, the sizes need {}", field,
                                   array.size(), shape.count()));
    }
  });
  if (!(timestep > 0) || !std::isfinite(timestep)) {
    throw ModelError(fmt::format("model: timestep must be positive (got {})", timestep));
  }
  if (integrator != Integrator::kEuler && integrator != Integrator::kRK4 &&
      integrator != Integrator::kImplicit && integrator != Integrator::kImplicitFast)
    throw ModelError("model: unknown integrator");
  for (double g : gravity) {
    if (!std::isfinite(g)) throw ModelError("model: gravity is not finite");
  }
  if (!(density >= 0) || !std::isfinite(density) || !(viscosity >= 0) ||
      !std::isfinite(viscosity) || !std::isfinite(wind[0]) || !std::isfinite(wind[1]) ||
      !std::isfinite(wind[2]))
    throw ModelError("model: fluid density and viscosity must be finite and >= 0, wind finite");

  // every real array whose values must be finite
  for (const auto& [field, values] : {std::pair{"body_pos", &body_pos},
                                      {"tendon_stiffness", &tendon_stiffness},
                                      {"tendon_damping", &tendon_damping},
                                      {"tendon_lengthspring", &tendon_lengthspring},
                                      {"tendon_length0", &tendon_length0},
                                      {"tendon_invweight0", &tendon_invweight0},
                                      {"tendon_frictionloss", &tendon_frictionloss},
                                      {"tendon_range", &tendon_range},
                                      {"tendon_margin", &tendon_margin},
                                      {"tendon_solref_lim", &tendon_solref_lim},
                                      {"tendon_solimp_lim", &tendon_solimp_lim},
                                      {"tendon_solref_fri", &tendon_solref_fri},
                                      {"tendon_solimp_fri", &tendon_solimp_fri},
                                      {"tendon_actfrcrange", &tendon_actfrcrange},
                                      {"body_quat", &body_quat},
                                      {"body_mass", &body_mass},
                                      {"body_ipos", &body_ipos},
                                      {"body_inertia", &body_inertia},
                                      {"body_iquat", &body_iquat},
                                      {"body_gravcomp", &body_gravcomp},
                                      {"jnt_pos", &jnt_pos},
                                      {"jnt_axis", &jnt_axis},
                                      {"jnt_stiffness", &jnt_stiffness},
                                      {"jnt_actfrcrange", &jnt_actfrcrange},
                                      {"qpos0", &qpos0},
                                      {"qpos_spring", &qpos_spring},
                                      {"dof_damping", &dof_damping},
                                      {"dof_armature", &dof_armature},
                                      {"actuator_gear", &actuator_gear},
                                      {"actuator_gainprm", &actuator_gainprm},
                                      {"actuator_biasprm", &actuator_biasprm},
                                      {"actuator_dynprm", &actuator_dynprm},
                                      {"actuator_actrange", &actuator_actrange},
                                      {"actuator_musclegain", &actuator_musclegain},
                                      {"actuator_musclebias", &actuator_musclebias},
                                      {"wrap_prm", &wrap_prm},
                                      {"geom_pos", &geom_pos},
                                      {"geom_quat", &geom_quat},
                                      {"geom_size", &geom_size},
                                      {"geom_fluid", &geom_fluid},
                                      {"geom_rbound", &geom_rbound},
                                      {"geom_friction", &geom_friction},
                                      {"geom_margin", &geom_margin},
                                      {"geom_gap", &geom_gap},
                                      {"geom_solmix", &geom_solmix},
                                      {"geom_solref", &geom_solref},
                                      {"geom_solimp", &geom_solimp},
                                      {"pair_friction", &pair_friction},
                                      {"pair_solref", &pair_solref},
                                      {"pair_solimp", &pair_solimp},
                                      {"pair_margin", &pair_margin},
                                      {"pair_gap", &pair_gap},
                                      {"site_pos", &site_pos},
                                      {"site_quat", &site_quat},
                                      {"site_size", &site_size},
                                      {"fused_pos", &fused_pos},
                                      {"fused_quat", &fused_quat},
                                      {"fused_mass", &fused_mass},
                                      {"fused_ipos", &fused_ipos},
                                      {"mesh_vert", &mesh_vert}}) {
    finite(field, *values);
  }

  // the tree: parents before children, joints body by body, coordinates and dofs joint by joint
  if (body_parentid[0] != -1) throw ModelError("model: body_parentid[0] must be -1 (the world)");
  int next_jnt = 0, next_q = 0, next_v = 0;
  std::size_t tree = 0;
  for (int k = 0; k < nbody; ++k) {
    if (k > 0) index_in("body_parentid", body_parentid[k], 0, k, k);
    if (body_jntadr[k] != next_jnt || body_jntnum[k] < 0) {
      throw ModelError(
          fmt::format("model: body_jntadr/body_jntnum of body {} do not follow the joints", k));
    }
    next_jnt += body_jntnum[k];
    if (next_jnt > njnt) throw ModelError(fmt::format("model: body {} has joints beyond njnt", k));
    index_in("body_treeadr", body_treeadr[k], 0, static_cast<int>(tree_dof.size()) + 1, k);
    if (body_treeadr[k] + static_cast<std::size_t>(body_treenum[k]) > tree_dof.size()) {
      throw ModelError(fmt::format("model: body_treenum[{}] runs past tree_dof", k));
    }
    tree = std::max(tree, static_cast<std::size_t>(body_treeadr[k] + body_treenum[k]));
  }
  if (next_jnt != njnt) throw ModelError("model: the bodies' joints do not add up to njnt");
  // mocap bodies: numbered in body order, children of the world without joints
  int next_mocap = 0;
  for (int k = 0; k < nbody; ++k) {
    if (body_mocapid[k] < 0) continue;
    if (body_mocapid[k] != next_mocap++) {
      throw ModelError(fmt::format("model: body_mocapid[{}] = {} does not follow body order", k,
                                   body_mocapid[k]));
    }
    if (k == 0 || body_parentid[k] != 0 || body_jntnum[k] != 0) {
      throw ModelError(
          fmt::format("model: mocap body {} must be a child of the world without joints", k));
    }
  }
  if (next_mocap != nmocap) {
    throw ModelError(
        fmt::format("model: {} bodies are mocap bodies, nmocap is {}", next_mocap, nmocap));
  }
  for (int i = 0; i < njnt; ++i) {
    const int type = static_cast<int>(jnt_type[i]);
    if (type < 0 || type > 3)
      throw ModelError(fmt::format("model: jnt_type[{}] is not free, ball, slide or hinge", i));
    index_in("jnt_bodyid", jnt_bodyid[i], 1, nbody, i);
    if (jnt_qposadr[i] != next_q || jnt_dofadr[i] != next_v) {
      throw ModelError(fmt::format(
          "model: jnt_qposadr/jnt_dofadr of joint {} do not follow the joint types", i));
    }
    next_q += joint_nq(type);
    next_v += joint_nv(type);
  }
  if (next_q != nq || next_v != nv) {
    throw ModelError(fmt::format("model: the joints need nq {} and nv {}, the model says {} and {}",
                                 next_q, next_v, nq, nv));
  }
  for (int i = 0; i < nv; ++i) {
    if (dof_parentid[i] >= i || dof_parentid[i] < -1) {
      throw ModelError(
          fmt::format("model: dof_parentid[{}] = {} is not an earlier dof", i, dof_parentid[i]));
    }
  }
  for (std::size_t i = 0; i < tree; ++i) index_in("tree_dof", tree_dof[i], 0, nv, i);
  for (int j = 0; j < njnt; ++j) {
    for (int i = jnt_dofadr[j]; i < jnt_dofadr[j] + joint_nv(jnt_type[j]); ++i) {
      if (dof_jntid[i] != j) {
        throw ModelError(fmt::format("model: dof_jntid[{}] = {} is not joint {}, whose dof it is",
                                     i, dof_jntid[i], j));
      }
    }
  }
  // a body's ancestor dofs are its parent's followed by its own joints' dofs, in order: the
  // assembly of H (kernels/assemble.h) pairs the parent's list with the body's own dofs
  for (int k = 1; k < nbody; ++k) {
    const int p = body_parentid[k];
    const int inherited = p > 0 ? body_treenum[p] : 0;
    int own = 0;
    for (int j = body_jntadr[k]; j < body_jntadr[k] + body_jntnum[k]; ++j) {
      own += joint_nv(static_cast<int>(jnt_type[j]));
    }
    bool ok = body_treenum[k] == inherited + own;
    for (int c = 0; ok && c < inherited; ++c) {
      ok = tree_dof[body_treeadr[k] + c] == tree_dof[body_treeadr[p] + c];
    }
    const int first = body_jntnum[k] > 0 ? jnt_dofadr[body_jntadr[k]] : 0;
    for (int c = 0; ok && c < own; ++c) ok = tree_dof[body_treeadr[k] + inherited + c] == first + c;
    if (!ok) {
      throw ModelError(fmt::format(
          "model: tree_dof of body {} is not its parent's list followed by its own dofs", k));
    }
  }
  if (neq < 0 || ndrive < 0 || nnhc < 0) throw ModelError("model: negative constraint counts");
  for (int i = 0; i < neq; ++i) {
    const int type = static_cast<int>(eq_type[i]);
    if (type < 0 || type > static_cast<int>(EqualityType::kTendon)) {
      throw ModelError(fmt::format("model: equality {} has an unknown type {}", i, type));
    }
    const bool joint = eq_type[i] == EqualityType::kJoint;
    const bool tendon = eq_type[i] == EqualityType::kTendon;
    const int objects = joint ? njnt : tendon ? ntendon : nbody;
    index_in("eq_obj1id", eq_obj1id[i], 0, objects, i);
    index_in("eq_obj2id", eq_obj2id[i], joint || tendon ? -1 : 0, objects, i);
    if (eq_hard[i] && (eq_type[i] == EqualityType::kWeld || tendon)) {
      throw ModelError(
          fmt::format("model: equality {} is a hard weld or tendon equality; those "
                      "are soft",
                      i));
    }
    for (int k = 0; joint && k < 2; ++k) {
      const int j = k == 0 ? eq_obj1id[i] : eq_obj2id[i];
      if (j < 0) continue;
      if (jnt_type[j] != JointType::kHinge && jnt_type[j] != JointType::kSlide) {
        throw ModelError(
            fmt::format("model: equality {} couples a {} joint; joint equalities "
                        "couple hinge and slide joints",
                        i, to_string(jnt_type[j])));
      }
    }
  }
  for (int i = 0; i < ndrive; ++i) {
    index_in("drive_jnt", drive_jnt[i], 0, njnt, i);
    const JointType t = jnt_type[drive_jnt[i]];
    if (t != JointType::kHinge && t != JointType::kSlide) {
      throw ModelError(
          fmt::format("model: drive {} acts on a {} joint; drives act on hinge and "
                      "slide joints",
                      i, to_string(t)));
    }
    for (int k = 0; k < i; ++k) {
      if (drive_jnt[k] == drive_jnt[i]) {
        throw ModelError(fmt::format("model: drives {} and {} drive the same joint", k, i));
      }
    }
    for (int k = 0; k < 5; ++k) {
      if (!std::isfinite(drive_prm[5 * i + k])) {
        throw ModelError(fmt::format("model: drive {} has a number that is not finite", i));
      }
    }
    if (!std::isfinite(drive_solref[2 * i]) || !std::isfinite(drive_solref[2 * i + 1])) {
      throw ModelError(fmt::format("model: drive {} has a solref that is not finite", i));
    }
  }
  for (int i = 0; i < nnhc; ++i) index_in("nhc_body", nhc_body[i], 1, nbody, i);
  if (ngeom < 0 || npair < 0 || nexclude < 0 || nconmax < 0) {
    throw ModelError("model: negative contact counts");
  }
  if (nmesh < 0) throw ModelError("model: negative mesh count");
  for (int i = 0; i < nmesh; ++i) {
    const long long vend = 3LL * mesh_vertadr[i] + 3LL * mesh_vertnum[i];
    const long long fend = 3LL * mesh_faceadr[i] + 3LL * mesh_facenum[i];
    if (mesh_vertadr[i] < 0 || mesh_vertnum[i] < 0 || vend > std::ssize(mesh_vert) ||
        mesh_faceadr[i] < 0 || mesh_facenum[i] < 0 || fend > std::ssize(mesh_face)) {
      throw ModelError(fmt::format("model: mesh {} has vertices or triangles out of range", i));
    }
    for (long long f = 3LL * mesh_faceadr[i]; f < fend; ++f) {
      if (mesh_face[f] < 0 || mesh_face[f] >= mesh_vertnum[i]) {
        throw ModelError(fmt::format("model: mesh {} has a triangle with vertex {} of {}", i,
                                     mesh_face[f], mesh_vertnum[i]));
      }
    }
    // the plane contacts' polygons: corners within the mesh, unit normals, and each vertex's
    // list of polygons within the mesh's
    const long long pend = static_cast<long long>(mesh_polyadr[i]) + mesh_polynum[i];
    if (mesh_polyadr[i] < 0 || mesh_polynum[i] < 0 || pend > nmeshpoly()) {
      throw ModelError(fmt::format("model: mesh {} has polygons out of range", i));
    }
    for (long long p = mesh_polyadr[i]; p < pend; ++p) {
      const long long cend = static_cast<long long>(mesh_polyvertadr[p]) + mesh_polyvertnum[p];
      if (mesh_polyvertadr[p] < 0 || mesh_polyvertnum[p] < 3 || cend > nmeshpolyvert()) {
        throw ModelError(fmt::format("model: mesh {} has a polygon of corners out of range", i));
      }
      for (long long c = mesh_polyvertadr[p]; c < cend; ++c) {
        if (mesh_polyvert[c] < 0 || mesh_polyvert[c] >= mesh_vertnum[i]) {
          throw ModelError(fmt::format("model: mesh {} has a polygon corner {} of {} vertices", i,
                                       mesh_polyvert[c], mesh_vertnum[i]));
        }
      }
      const double* n = &mesh_polynormal[3 * p];
      if (!(std::abs(n[0] * n[0] + n[1] * n[1] + n[2] * n[2] - 1) < 1e-9)) {
        throw ModelError(fmt::format("model: mesh {} has a polygon normal of length ≠ 1", i));
      }
    }
    for (int v = mesh_vertadr[i]; v < mesh_vertadr[i] + mesh_vertnum[i]; ++v) {
      const long long mend = static_cast<long long>(mesh_polymapadr[v]) + mesh_polymapnum[v];
      if (mesh_polymapadr[v] < 0 || mesh_polymapnum[v] < 0 || mend > nmeshpolymap()) {
        throw ModelError(fmt::format("model: mesh {} has a vertex's polygons out of range", i));
      }
      for (long long k = mesh_polymapadr[v]; k < mend; ++k) {
        if (mesh_polymap[k] < 0 || mesh_polymap[k] >= mesh_polynum[i]) {
          throw ModelError(fmt::format("model: mesh {} names polygon {} of {}", i, mesh_polymap[k],
                                       mesh_polynum[i]));
        }
      }
    }
  }
  for (int i = 0; i < nhfield; ++i) {
    const long long end =
        static_cast<long long>(hfield_adr[i]) + 1LL * hfield_nrow[i] * hfield_ncol[i];
    if (hfield_nrow[i] < 2 || hfield_ncol[i] < 2 || hfield_adr[i] < 0 || end > nhfielddata()) {
      throw ModelError(
          fmt::format("model: height field {} has a grid of {} × {} from {}, out of {} elevations",
                      i, hfield_nrow[i], hfield_ncol[i], hfield_adr[i], nhfielddata()));
    }
    for (int k = 0; k < 4; ++k) {
      if (!(hfield_size[4 * i + k] > 0) || !std::isfinite(hfield_size[4 * i + k])) {
        throw ModelError(fmt::format("model: height field {} has size[{}] = {}, not positive", i, k,
                                     hfield_size[4 * i + k]));
      }
    }
    for (long long k = hfield_adr[i]; k < end; ++k) {
      if (!(hfield_data[k] >= 0 && hfield_data[k] <= 1)) {
        throw ModelError(fmt::format("model: height field {} has elevation {} = {}, not in [0, 1]",
                                     i, k - hfield_adr[i], hfield_data[k]));
      }
    }
  }
  for (const auto& [field, values] : {std::pair{"geom_friction", &geom_friction},
                                      {"geom_margin", &geom_margin},
                                      {"geom_gap", &geom_gap},
                                      {"geom_solmix", &geom_solmix},
                                      {"pair_friction", &pair_friction},
                                      {"pair_margin", &pair_margin},
                                      {"pair_gap", &pair_gap}}) {
    for (std::size_t i = 0; i < values->size(); ++i) {
      if ((*values)[i] < 0) {
        throw ModelError(fmt::format("model: {}[{}] = {} is negative", field, i, (*values)[i]));
      }
    }
  }
  // the rigid piece each body moves with: a plane may only be on the world's
  std::vector<int> moves(nbody, 0);
  for (int b = 1; b < nbody; ++b) moves[b] = moves[body_parentid[b]] || body_jntnum[b] > 0;
  for (int i = 0; i < ngeom; ++i) {
    index_in("geom_bodyid", geom_bodyid[i], 0, nbody, i);
    const Vec3d size{geom_size[3 * i], geom_size[3 * i + 1], geom_size[3 * i + 2]};
    const int used = geom_type[i] == GeomType::kSphere                                           ? 1
                     : geom_type[i] == GeomType::kCapsule || geom_type[i] == GeomType::kCylinder ? 2
                     : geom_type[i] == GeomType::kPlane || geom_type[i] == GeomType::kMesh       ? 0
                                                                                           : 3;
    for (int k = 0; k < used; ++k) {
      if (!(size[k] > 0)) {
        throw ModelError(
            fmt::format("model: geom {} has size[{}] = {}, not positive", i, k, size[k]));
      }
    }
    unit_quat("geom", geom_quat, i);
    const double rbound = geom_bounding_radius(geom_type[i], size);
    if (!(geom_rbound[i] >= rbound * (1 - 1e-12))) {
      throw ModelError(fmt::format("model: geom_rbound[{}] = {} does not hold the geom (radius {})",
                                   i, geom_rbound[i], rbound));
    }
    if (geom_type[i] == GeomType::kPlane && moves[geom_bodyid[i]]) {
      throw ModelError(fmt::format("model: geom {} is a plane on a moving body", i));
    }
    const int t = static_cast<int>(geom_type[i]);
    if (t < 0 || t > static_cast<int>(GeomType::kMesh)) {
      throw ModelError(fmt::format("model: geom {} has an unsupported type {}", i, t));
    }
    const bool mesh = geom_type[i] == GeomType::kMesh;
    const bool hfield = geom_type[i] == GeomType::kHfield;
    const int ndata = mesh ? nmesh : hfield ? nhfield : 0;
    if ((mesh || hfield) ? geom_dataid[i] < 0 || geom_dataid[i] >= ndata : geom_dataid[i] != -1) {
      throw ModelError(fmt::format("model: geom {} has geom_dataid {} ({} {})", i, geom_dataid[i],
                                   ndata, hfield ? "height fields" : "meshes"));
    }
    if (hfield) {
      std::array<double, 4> hs;
      std::copy_n(&hfield_size[4 * geom_dataid[i]], 4, hs.begin());
      if (!(geom_rbound[i] >= hfield_bounding_radius(hs) * (1 - 1e-12))) {
        throw ModelError(fmt::format("model: geom_rbound[{}] = {} does not hold the height field",
                                     i, geom_rbound[i]));
      }
    }
    if (mesh && !(size[0] >= 0 && size[1] >= 0 && size[2] >= 0)) {
      throw ModelError(fmt::format("model: mesh geom {} has a negative size", i));
    }
    const int dim = geom_condim[i];
    if (dim != 1 && dim != 3 && dim != 4 && dim != 6) {
      throw ModelError(fmt::format("model: geom {} has condim {}", i, dim));
    }
    if (geom_fluidshape[i] != 0 && geom_fluidshape[i] != 1) {
      throw ModelError(fmt::format("model: geom {} has geom_fluidshape {}", i, geom_fluidshape[i]));
    }
  }
  for (int t = 0; t < ntendon; ++t) {
    if (tendon_lengthspring[2 * t] > tendon_lengthspring[2 * t + 1]) {
      throw ModelError(fmt::format("model: tendon {} has an empty springlength [{}, {}]", t,
                                   tendon_lengthspring[2 * t], tendon_lengthspring[2 * t + 1]));
    }
  }
  // the fluid forces: a body's model is its geoms'
  std::vector<int> ellipsoids(nbody, 0);
  for (int i = 0; i < ngeom; ++i) ellipsoids[geom_bodyid[i]] |= geom_fluidshape[i];
  for (int b = 0; b < nbody; ++b) {
    if (body_fluidshape[b] != ellipsoids[b]) {
      throw ModelError(fmt::format("model: body {} has body_fluidshape {}, its geoms say {}", b,
                                   body_fluidshape[b], ellipsoids[b]));
    }
    const double* q = &body_iquat[4 * b];
    if (std::abs(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3] - 1) > 1e-9) {
      throw ModelError(fmt::format("model: body_iquat of body {} is not a unit quaternion", b));
    }
  }
  if (nsite < 0) throw ModelError("model: negative site count");
  for (int i = 0; i < nsite; ++i) {
    index_in("site_bodyid", site_bodyid[i], 0, nbody, i);
    unit_quat("site", site_quat, i);
    // the zone's shapes: sphere, capsule, ellipsoid, cylinder, box (GeomType 2 to 6)
    index_in("site_type", site_type[i], 2, 7, i);
    if (!(site_size[3 * i] > 0)) {
      throw ModelError(
          fmt::format("model: site {} has a size {} that is not positive", i, site_size[3 * i]));
    }
  }
  if (nfused < 0) throw ModelError("model: negative merged-body count");
  for (int i = 0; i < nfused; ++i) {
    index_in("fused_bodyid", fused_bodyid[i], 0, nbody, i);
    unit_quat("merged body", fused_quat, i);
    if (fused_mass[i] < 0) {
      throw ModelError(fmt::format("model: merged body {} has mass {}", i, fused_mass[i]));
    }
    if (!fused_name[i].empty() && id(ObjType::kBody, fused_name[i]) >= 0) {
      throw ModelError(
          fmt::format("model: merged body {} is named '{}', as a body is", i, fused_name[i]));
    }
  }
  for (int i = 0; i < npair; ++i) {
    index_in("pair_geom1", pair_geom1[i], 0, ngeom, i);
    index_in("pair_geom2", pair_geom2[i], 0, ngeom, i);
    if (pair_geom1[i] == pair_geom2[i]) {
      throw ModelError(fmt::format("model: pair {} is a geom with itself", i));
    }
    const int dim = pair_dim[i];
    if (dim != 1 && dim != 3 && dim != 4 && dim != 6) {
      throw ModelError(fmt::format("model: pair {} has condim {}", i, dim));
    }
  }
  for (int i = 0; i < nexclude; ++i) {
    index_in("exclude_body1", exclude_body1[i], 0, nbody, i);
    index_in("exclude_body2", exclude_body2[i], 0, nbody, i);
  }
  if (cone != Cone::kPyramidal && cone != Cone::kElliptic) {
    throw ModelError("model: cone is neither pyramidal nor elliptic");
  }
  if (contact_margin != ContactMargin::kMax && contact_margin != ContactMargin::kSum) {
    throw ModelError(
        fmt::format("model: contact_margin {} is neither the larger margin (0) nor "
                    "the sum (1)",
                    static_cast<int>(contact_margin)));
  }
  if (rules != Rules::kMujoco4 && rules != Rules::kMujoco2) {
    throw ModelError(fmt::format("model: rules {} are neither MuJoCo 4.0's (0) nor 2.2.2's (1)",
                                 static_cast<int>(rules)));
  }
  if (wrap_rules != WrapRules::kMujoco4 && wrap_rules != WrapRules::kMujoco2) {
    throw ModelError(fmt::format("model: wrap_rules {} is neither MuJoCo 4.0's (0) nor 2.2.2's (1)",
                                 static_cast<int>(wrap_rules)));
  }
  if (!(impratio > 0) || !std::isfinite(impratio)) {
    throw ModelError(fmt::format("model: impratio {} must be positive", impratio));
  }
  if (iterations < 0 || !(tolerance >= 0)) {
    throw ModelError(fmt::format("model: iterations {} and tolerance {} must be non-negative",
                                 iterations, tolerance));
  }
  {
    const RowPlan plan = plan_rows(*this);
    if (integrator == Integrator::kImplicit && plan.nhard > 0) {
      // the hard rows are projected in the metric of the step's matrix, which this integrator's
      // unsymmetric H − h D is not
      throw ModelError(fmt::format(
          "model: the implicit integrator cannot hold the {} hard rows (drives, non-holonomic "
          "constraints, hard equalities); use implicitfast or Euler",
          plan.nhard));
    }
    validate_sensors(*this);
    check_instance_rows(nq, nv, nu, nbody, njnt, static_cast<std::int64_t>(tree_dof.size()),
                        plan.nefc, plan.nhard, ndrive, ngeom, plan.nconmax, plan.ncon_rows, nsensor,
                        nsensordata, sensor_body_rows(*this), nmocap, ntendon, na);
  }
  validate_keyframes(*this);
  for (int t = 0; t < ntendon; ++t) {
    if (tendon_adr[t] < 0 || tendon_num[t] < 0 ||
        tendon_adr[t] + static_cast<std::size_t>(tendon_num[t]) > wrap_type.size()) {
      throw ModelError(fmt::format("model: tendon {} runs past wrap_type", t));
    }
    const double* afr = &tendon_actfrcrange[2 * t];
    if (tendon_actfrclimited[t] != 0 &&
        (tendon_actfrclimited[t] != 1 || !(afr[0] < afr[1] && afr[0] <= 0 && afr[1] >= 0))) {
      throw ModelError(fmt::format(
          "model: tendon {} has tendon_actfrclimited {} and tendon_actfrcrange [{}, {}]", t,
          tendon_actfrclimited[t], afr[0], afr[1]));
    }
    if (tendon_stiffness[t] < 0 || tendon_damping[t] < 0 || tendon_frictionloss[t] < 0)
      throw ModelError(
          fmt::format("model: tendon {} has a negative stiffness, damping or "
                      "frictionloss",
                      t));
    for (int k = tendon_adr[t]; k < tendon_adr[t] + tendon_num[t]; ++k) {
      switch (static_cast<WrapType>(wrap_type[k])) {
        case WrapType::kJoint: {
          index_in("wrap_objid", wrap_objid[k], 0, njnt, k);
          const JointType jt = jnt_type[wrap_objid[k]];
          if (jt != JointType::kHinge && jt != JointType::kSlide)
            throw ModelError(fmt::format("model: tendon {} combines a {} joint", t, to_string(jt)));
          break;
        }
        case WrapType::kSite:
          index_in("wrap_objid", wrap_objid[k], 0, nsite, k);
          break;
        case WrapType::kPulley:
          if (!(wrap_prm[k] > 0))
            throw ModelError(fmt::format("model: tendon {} has a pulley divisor <= 0", t));
          break;
        case WrapType::kSphere:
        case WrapType::kCylinder: {
          index_in("wrap_objid", wrap_objid[k], 0, ngeom, k);
          index_in("wrap_sideid", wrap_sideid[k], -1, nsite, k);
          const GeomType want =
              wrap_type[k] == WrapType::kSphere ? GeomType::kSphere : GeomType::kCylinder;
          if (geom_type[wrap_objid[k]] != want || wrap_prm[k] != wrap_sideid[k])
            throw ModelError(fmt::format(
                "model: wrap entry {} names geom {} of another type or a side site not in "
                "wrap_prm",
                k, wrap_objid[k]));
          const int first = tendon_adr[t], last = first + tendon_num[t] - 1;
          if (k == first || k == last || wrap_type[k - 1] != WrapType::kSite ||
              wrap_type[k + 1] != WrapType::kSite)
            throw ModelError(
                fmt::format("model: tendon {} wraps a geom without a site on both "
                            "sides",
                            t));
          break;
        }
        default:
          throw ModelError(fmt::format(
              "model: wrap_type[{}] = {} is not a joint, pulley, site, sphere or cylinder", k,
              wrap_type[k]));
      }
      if (wrap_type[k] != WrapType::kSphere && wrap_type[k] != WrapType::kCylinder &&
          wrap_sideid[k] != -1)
        throw ModelError(
            fmt::format("model: wrap_sideid[{}] is set on an entry that is no geom", k));
    }
  }
  // activations: the actuators with dynamics, numbered 0 … na − 1 in actuator order
  int activations = 0;
  for (int a = 0; a < nu; ++a) {
    const int dyn = static_cast<int>(actuator_dyntype[a]);
    const int gain = static_cast<int>(actuator_gaintype[a]);
    const int bias = static_cast<int>(actuator_biastype[a]);
    if (dyn < 0 || dyn > 5 || dyn == 4 || gain < 0 || gain > 2 || bias < 0 || bias > 2) {
      throw ModelError(fmt::format("model: actuator {} has dyntype {}, gaintype {}, biastype {}", a,
                                   dyn, gain, bias));
    }
    const int expected = actuator_dyntype[a] == ActuatorDyn::kNone ? -1 : activations++;
    if (actuator_actadr[a] != expected) {
      throw ModelError(
          fmt::format("model: actuator {} has actadr {}, not {}", a, actuator_actadr[a], expected));
    }
  }
  if (activations != na) {
    throw ModelError(
        fmt::format("model: na is {}, but {} actuators have dynamics", na, activations));
  }
  for (int a = 0; a < nu; ++a) {
    if (actuator_trntype[a] == static_cast<int>(TransmissionType::kTendon)) {
      index_in("actuator_trnid", actuator_trnid[a], 0, ntendon, a);
      continue;
    }
    if (actuator_trntype[a] != static_cast<int>(TransmissionType::kJoint))
      throw ModelError(
          fmt::format("model: actuator {} has transmission type {}", a, actuator_trntype[a]));
    index_in("actuator_trnid", actuator_trnid[a], 0, njnt, a);
    const JointType t = jnt_type[actuator_trnid[a]];
    if (t != JointType::kHinge && t != JointType::kSlide) {
      throw ModelError(fmt::format("model: actuator {} drives a {} joint", a, to_string(t)));
    }
  }
}

}  // namespace zwang
