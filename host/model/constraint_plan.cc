#include "host/model/constraint_plan.hpp"

#include <fmt/format.h>

#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <stdexcept>

#include "host/model/arrays.hpp"
#include "host/model/size.hpp"
#include "host/model/smooth_instance.hpp"
#include "kernels/model_view.h"
#include "kernels/narrowphase.h"

namespace zwang {

int equality_rows(EqualityType type) {
  return type == EqualityType::kConnect ? 3 : type == EqualityType::kWeld ? 6 : 1;
}

double geom_bounding_radius(GeomType type, const Vec3d& s) {
  switch (type) {
    case GeomType::kSphere:
      return s[0];
    case GeomType::kCapsule:
      return s[0] + s[1];
    case GeomType::kCylinder:
      return std::sqrt(s[0] * s[0] + s[1] * s[1]);
    case GeomType::kEllipsoid:
      return std::max({s[0], s[1], s[2]});
    case GeomType::kBox:
    case GeomType::kMesh:
      return std::sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]);
    case GeomType::kHfield:
      // the height field's rectangle; hfield_bounding_radius adds its heights
      return std::sqrt(s[0] * s[0] + s[1] * s[1]);
    default:
      return 0;
  }
}

double hfield_bounding_radius(const std::array<double, 4>& s) {
  return std::sqrt(s[0] * s[0] + s[1] * s[1] + std::max(s[2] * s[2], s[3] * s[3]));
}

ContactMix mix_contact(const Model& m, int g1, int g2) {
  ContactMix c{};
  if (m.contact_margin == ContactMargin::kSum) {
    c.margin = m.geom_margin[g1] + m.geom_margin[g2];
    c.gap = m.geom_gap[g1] + m.geom_gap[g2];
  } else {
    c.margin = std::max(m.geom_margin[g1], m.geom_margin[g2]);
    c.gap = std::max(m.geom_gap[g1], m.geom_gap[g2]);
  }
  std::array<double, 3> fr{};
  if (m.geom_priority[g1] != m.geom_priority[g2]) {
    const int g = m.geom_priority[g1] > m.geom_priority[g2] ? g1 : g2;
    c.condim = m.geom_condim[g];
    for (int k = 0; k < 3; ++k) fr[k] = m.geom_friction[3 * g + k];
    std::copy_n(m.geom_solref.begin() + 2 * g, 2, c.solref.begin());
    std::copy_n(m.geom_solimp.begin() + 5 * g, 5, c.solimp.begin());
  } else {
    c.condim = std::max(m.geom_condim[g1], m.geom_condim[g2]);
    for (int k = 0; k < 3; ++k) {
      fr[k] = std::max(m.geom_friction[3 * g1 + k], m.geom_friction[3 * g2 + k]);
    }
    // weight of geom1: solmix₁ / (solmix₁ + solmix₂), a zero solmix counting as none
    constexpr double kMin = 1e-15;
    const double s1 = m.geom_solmix[g1], s2 = m.geom_solmix[g2];
    const double mix = s1 >= kMin && s2 >= kMin ? s1 / (s1 + s2)
                       : s1 < kMin && s2 < kMin ? 0.5
                       : s1 < kMin              ? 0.0
                                                : 1.0;
    const double* r1 = m.geom_solref.data() + 2 * g1;
    const double* r2 = m.geom_solref.data() + 2 * g2;
    const bool standard = r1[0] > 0 && r2[0] > 0;
    for (int k = 0; k < 2; ++k) {
      c.solref[k] = standard ? mix * r1[k] + (1 - mix) * r2[k] : std::min(r1[k], r2[k]);
    }
    for (int k = 0; k < 5; ++k) {
      c.solimp[k] = mix * m.geom_solimp[5 * g1 + k] + (1 - mix) * m.geom_solimp[5 * g2 + k];
    }
  }
  c.friction = {fr[0], fr[0], fr[1], fr[2], fr[2]};
  return c;
}

namespace {

// the rigid piece a body belongs to: itself when it has joints, else its parent's (world: 0)
std::vector<int> weld_ids(const Model& m) {
  std::vector<int> weld(m.nbody, 0);
  for (int b = 1; b < m.nbody; ++b) weld[b] = m.body_jntnum[b] > 0 ? b : weld[m.body_parentid[b]];
  return weld;
}

// the dofs moving body b, increasing
std::vector<int> chain(const Model& m, int b) {
  return std::vector<int>(m.tree_dof.begin() + m.body_treeadr[b],
                          m.tree_dof.begin() + m.body_treeadr[b] + m.body_treenum[b]);
}

// the dofs moving one body are a subset of the other's: Jᵀ J of their contact stays on one
// path of the dof tree
bool on_one_path(const Model& m, int b1, int b2) {
  const std::vector<int> a = chain(m, b1), b = chain(m, b2);
  return std::includes(a.begin(), a.end(), b.begin(), b.end()) ||
         std::includes(b.begin(), b.end(), a.begin(), a.end());
}

// the dofs moving either body, increasing
std::vector<int> chains(const Model& m, int b1, int b2) {
  const std::vector<int> a = chain(m, b1), b = chain(m, b2);
  std::vector<int> both;
  std::set_union(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(both));
  return both;
}

// the dofs of a joint
std::vector<int> joint_dofs(const Model& m, int j) {
  const JointType t = m.jnt_type[j];
  const int n = t == JointType::kFree ? 6 : t == JointType::kBall ? 3 : 1;
  std::vector<int> dofs(n);
  for (int k = 0; k < n; ++k) dofs[k] = m.jnt_dofadr[j] + k;
  return dofs;
}

// efc_dof0 and efc_dof1 of every row slot, then the contact pairs' (the contact slots' own are
// empty): the range of the dofs a row can move.  A connect, weld or contact row moves its two
// bodies' chains, a joint equality, drive, limit or friction loss its joints' dofs, a
// non-holonomic row its body's chain; a tendon's rows may touch any dof.
void plan_row_dofs(const Model& m, RowPlan& p) {
  std::vector<std::vector<int>> rows(p.nefc);
  std::vector<int> all(m.nv);
  for (int v = 0; v < m.nv; ++v) all[v] = v;
  const auto set = [&](int adr, int n, const std::vector<int>& dofs) {
    for (int k = 0; k < n; ++k) rows[adr + k] = dofs;
  };
  for (int e = 0; e < m.neq; ++e) {
    const int r = p.eq_efcadr[e];
    if (r < 0) continue;
    const int o1 = m.eq_obj1id[e], o2 = m.eq_obj2id[e];
    switch (m.eq_type[e]) {
      case EqualityType::kConnect:
      case EqualityType::kWeld:
        set(r, equality_rows(m.eq_type[e]), chains(m, o1, o2));
        break;
      case EqualityType::kJoint: {
        std::vector<int> dofs = joint_dofs(m, o1), second;
        if (o2 >= 0) second = joint_dofs(m, o2);
        std::vector<int> both;
        std::set_union(dofs.begin(), dofs.end(), second.begin(), second.end(),
                       std::back_inserter(both));
        set(r, 1, both);
        break;
      }
      default:
        set(r, 1, all);
        break;
    }
  }
  for (int i = 0; i < m.ndrive; ++i) set(p.drive_efcadr[i], 1, {m.jnt_dofadr[m.drive_jnt[i]]});
  for (int i = 0; i < m.nnhc; ++i) {
    const int n = m.nhc_type[i] == NonholonomicType::kKnifeEdge ? 1 : 3;
    set(p.nhc_efcadr[i], n, chain(m, m.nhc_body[i]));
  }
  for (int v = 0; v < m.nv; ++v) {
    if (p.dof_efcadr[v] >= 0) set(p.dof_efcadr[v], 1, {v});
  }
  for (int j = 0; j < m.njnt; ++j) {
    if (p.jnt_efcadr[j] >= 0) {
      set(p.jnt_efcadr[j], m.jnt_type[j] == JointType::kBall ? 1 : 2, joint_dofs(m, j));
    }
  }
  for (int t = 0; t < m.ntendon; ++t) {
    if (p.tenfri_efcadr[t] >= 0) set(p.tenfri_efcadr[t], 1, all);
    if (p.ten_efcadr[t] >= 0) set(p.ten_efcadr[t], 2, all);
  }
  // [first, last + 1), an empty range (0, 0) for no dofs
  const auto range = [](const std::vector<int>& dofs, std::vector<int>& lo, std::vector<int>& hi) {
    lo.push_back(dofs.empty() ? 0 : dofs.front());
    hi.push_back(dofs.empty() ? 0 : dofs.back() + 1);
  };
  for (const std::vector<int>& dofs : rows) range(dofs, p.efc_dof0, p.efc_dof1);
  for (int c = 0; c < p.ncollision; ++c) {
    const int b1 = m.geom_bodyid[p.collision_geom1[c]], b2 = m.geom_bodyid[p.collision_geom2[c]];
    range(chains(m, b1, b2), p.collision_dof0, p.collision_dof1);
  }
}

// the geom pairs that may collide, in MuJoCo's order of testing, with their parameters
void plan_contacts(const Model& m, RowPlan& p) {
  const bool on = !(m.disableflags & (kDisableConstraint | kDisableContact));
  if (!on || m.ngeom == 0) return;
  auto add = [&](int g1, int g2, int dim, const double* friction, const double* solref,
                 const double* solimp, double margin, double gap) {
    const int t1 = static_cast<int>(m.geom_type[g1]), t2 = static_cast<int>(m.geom_type[g2]);
    if (t1 > t2) std::swap(g1, g2);
    const int n = max_contacts(std::min(t1, t2), std::max(t1, t2));
    if (n == 0) {
      p.unsupported.push_back({g1, g2});
      return 0;
    }
    p.collision_geom1.push_back(g1);
    p.collision_geom2.push_back(g2);
    p.collision_dim.push_back(dim);
    // MuJoCo's mjMINMU: a zero friction would give a pyramid edge R = 2 μ² R₀ = 0
    for (int k = 0; k < 5; ++k) p.collision_friction.push_back(std::max(1e-5, friction[k]));
    p.collision_solref.insert(p.collision_solref.end(), solref, solref + 2);
    p.collision_solimp.insert(p.collision_solimp.end(), solimp, solimp + 5);
    p.collision_margin.push_back(margin);
    p.collision_gap.push_back(gap);
    const int b1 = m.geom_bodyid[g1], b2 = m.geom_bodyid[g2];
    p.collision_couples.push_back(on_one_path(m, b1, b2) ? 0 : 1);
    return n;
  };
  long long bound = 0;
  for (int i = 0; i < m.npair; ++i) {
    bound += add(m.pair_geom1[i], m.pair_geom2[i], m.pair_dim[i], m.pair_friction.data() + 5 * i,
                 m.pair_solref.data() + 2 * i, m.pair_solimp.data() + 5 * i, m.pair_margin[i],
                 m.pair_gap[i]);
  }
  const std::vector<int> weld = weld_ids(m);
  auto excluded = [&](int b1, int b2) {
    for (int i = 0; i < m.nexclude; ++i) {
      const int e1 = m.exclude_body1[i], e2 = m.exclude_body2[i];
      if ((e1 == b1 && e2 == b2) || (e1 == b2 && e2 == b1)) return true;
    }
    return false;
  };
  auto explicit_pair = [&](int g1, int g2) {
    for (int i = 0; i < m.npair; ++i) {
      const int p1 = m.pair_geom1[i], p2 = m.pair_geom2[i];
      if ((p1 == g1 && p2 == g2) || (p1 == g2 && p2 == g1)) return true;
    }
    return false;
  };
  // body pairs in order, then their geoms in order
  std::vector<std::vector<int>> body_geoms(m.nbody);
  for (int g = 0; g < m.ngeom; ++g) body_geoms[m.geom_bodyid[g]].push_back(g);
  for (int b1 = 0; b1 < m.nbody; ++b1) {
    for (int b2 = b1 + 1; b2 < m.nbody; ++b2) {
      if (body_geoms[b1].empty() || body_geoms[b2].empty() || excluded(b1, b2)) continue;
      const int w1 = weld[b1], w2 = weld[b2];
      if (w1 == w2) continue;
      // a body and its parent do not collide, unless the parent is the world or the model
      // disables the filter
      const int p1 = weld[m.body_parentid[w1] < 0 ? 0 : m.body_parentid[w1]];
      const int p2 = weld[m.body_parentid[w2] < 0 ? 0 : m.body_parentid[w2]];
      const bool filter = !(m.disableflags & kDisableFilterparent);
      if (filter && w1 != 0 && w2 != 0 && (w1 == p2 || w2 == p1)) continue;
      for (int g1 : body_geoms[b1]) {
        for (int g2 : body_geoms[b2]) {
          const bool compatible = (m.geom_contype[g1] & m.geom_conaffinity[g2]) ||
                                  (m.geom_contype[g2] & m.geom_conaffinity[g1]);
          if (!compatible || explicit_pair(g1, g2)) continue;
          const ContactMix c = mix_contact(m, g1, g2);
          bound += add(g1, g2, c.condim, c.friction.data(), c.solref.data(), c.solimp.data(),
                       c.margin, c.gap);
        }
      }
    }
  }
  p.ncollision = static_cast<int>(p.collision_geom1.size());
  if (p.ncollision == 0) return;
  // the exact bound while it is small; else enough for four contacts per geom (a box face)
  int geoms = 0;
  for (int g = 0; g < m.ngeom; ++g) {
    for (int c = 0; c < p.ncollision; ++c) {
      if (p.collision_geom1[c] == g || p.collision_geom2[c] == g) {
        ++geoms;
        break;
      }
    }
  }
  p.nconmax = m.nconmax > 0 ? m.nconmax
                            : static_cast<int>(std::min<long long>(
                                  bound, std::max<long long>(kDefaultContactBound, 4LL * geoms)));
  for (int c = 0; c < p.ncollision; ++c) {
    const int dim = p.collision_dim[c];
    const int rows = m.cone == Cone::kElliptic ? dim : (dim == 1 ? 1 : 2 * (dim - 1));
    p.ncon_rows = std::max(p.ncon_rows, rows);
  }
}

}  // namespace

RowPlan plan_rows(const Model& m) {
  RowPlan p;
  const int off = m.disableflags;
  const bool none = off & kDisableConstraint;
  const bool eq_on = !none && !(off & kDisableEquality);
  const bool fl_on = !none && !(off & kDisableFrictionloss);
  const bool lim_on = !none && !(off & kDisableLimit);
  p.eq_efcadr.assign(m.neq, -1);
  p.jnt_efcadr.assign(m.njnt, -1);
  p.dof_efcadr.assign(m.nv, -1);
  p.drive_efcadr.assign(m.ndrive, -1);
  p.nhc_efcadr.assign(m.nnhc, -1);
  p.ten_efcadr.assign(m.ntendon, -1);
  p.tenfri_efcadr.assign(m.ntendon, -1);
  auto add = [&](int rows, int kind, double floss = 0) {
    const int adr = p.nefc;
    p.nefc += rows;
    p.efc_kind.insert(p.efc_kind.end(), rows, kind);
    p.efc_frictionloss.insert(p.efc_frictionloss.end(), rows, floss);
    return adr;
  };
  // hard rows: equalities asked to be exact, drives, non-holonomic constraints; drives and
  // non-holonomic constraints define the model's motion, so no flag switches them off
  for (int e = 0; e < m.neq; ++e) {
    if (eq_on && m.eq_active[e] && m.eq_hard[e]) {
      p.eq_efcadr[e] = add(equality_rows(m.eq_type[e]), kEfcHard);
    }
  }
  for (int i = 0; i < m.ndrive; ++i) p.drive_efcadr[i] = add(1, kEfcHard);
  for (int i = 0; i < m.nnhc; ++i) {
    p.nhc_efcadr[i] = add(m.nhc_type[i] == NonholonomicType::kKnifeEdge ? 1 : 3, kEfcHard);
  }
  p.nhard = p.nefc;
  for (int e = 0; e < m.neq; ++e) {
    if (eq_on && m.eq_active[e] && !m.eq_hard[e]) {
      p.eq_efcadr[e] = add(equality_rows(m.eq_type[e]), kEfcEquality);
    }
  }
  for (int v = 0; v < m.nv; ++v) {
    if (fl_on && m.dof_frictionloss[v] > 0) {
      p.dof_efcadr[v] = add(1, kEfcFriction, m.dof_frictionloss[v]);
    }
  }
  for (int t = 0; t < m.ntendon; ++t) {
    if (fl_on && m.tendon_frictionloss[t] > 0) {
      p.tenfri_efcadr[t] = add(1, kEfcFriction, m.tendon_frictionloss[t]);
    }
  }
  for (int j = 0; j < m.njnt; ++j) {
    const JointType t = m.jnt_type[j];
    if (!lim_on || !m.jnt_limited[j] || t == JointType::kFree) continue;
    p.jnt_efcadr[j] = add(t == JointType::kBall ? 1 : 2, kEfcLimit);
  }
  for (int t = 0; t < m.ntendon; ++t) {
    if (lim_on && m.tendon_limited[t]) p.ten_efcadr[t] = add(2, kEfcLimit);
  }
  plan_contacts(m, p);
  // the contact slots' rows in 64 bits: the instance's size is bounded (without the sensors'
  // sums, which the full check adds) before anything of their size is allocated
  const std::int64_t contact_rows = std::int64_t{p.nconmax} * p.ncon_rows;
  const auto check = [&](std::int64_t nconmax) {
    check_instance_rows(m.nq, m.nv, m.nu, m.nbody, m.njnt,
                        static_cast<std::int64_t>(m.tree_dof.size()),
                        p.nefc + nconmax * p.ncon_rows, p.nhard, m.ndrive, m.ngeom, nconmax,
                        p.ncon_rows, m.nsensor, m.nsensordata, 0, m.nmocap, m.ntendon, m.na);
  };
  try {
    check(p.nconmax);
  } catch (const ModelError& e) {
    // the contact bound is named when the instance fits without its slots
    check(0);
    const std::string_view what = e.what();
    throw ModelError(fmt::format("nconmax {} (contacts per instance, {} rows each): {}", p.nconmax,
                                 p.ncon_rows, what.starts_with("model: ") ? what.substr(7) : what));
  }
  p.contact_efcadr =
      add(static_cast<int>(contact_rows), m.cone == Cone::kElliptic ? kEfcElliptic : kEfcContact);
  // a soft row on one joint, or a contact of bodies on one path of the tree, keeps H's tree
  // pattern; equalities between bodies or joints may couple any dofs, and then the Newton
  // Hessian is dense (every dof's parent the previous); so is it in an instance whose active
  // contacts couple branches (collision_couples)
  bool dense = false;
  for (int e = 0; e < m.neq; ++e) dense = dense || (p.eq_efcadr[e] >= 0 && !m.eq_hard[e]);
  // so may a tendon's rows
  for (int t = 0; t < m.ntendon; ++t) {
    dense = dense || p.ten_efcadr[t] >= 0 || p.tenfri_efcadr[t] >= 0;
  }
  p.efc_dense.resize(m.nv);
  for (int v = 0; v < m.nv; ++v) p.efc_dense[v] = v - 1;
  p.efc_tree = dense ? p.efc_dense : m.dof_parentid;
  plan_row_dofs(m, p);
  return p;
}

void set_constraint_constants(Model& model) {
  model.body_invweight0.assign(2 * model.nbody, 0.0);
  model.dof_invweight0.assign(model.nv, 0.0);
  // only soft rows (their R) and equalities (eq_data) use these: a model with neither skips
  // the O(nv³) below
  bool soft_rows = model.neq > 0;
  for (int j = 0; j < model.njnt; ++j) {
    soft_rows = soft_rows || (model.jnt_limited[j] && model.jnt_type[j] != JointType::kFree);
  }
  for (double f : model.dof_frictionloss) soft_rows = soft_rows || f > 0;
  soft_rows = soft_rows || model.ngeom > 0 || model.ntendon > 0;
  if (!soft_rows) return;
  // the smooth quantities at qpos0, from the kernels themselves, without constraint rows
  SmoothInstance smooth(model);
  const Instance<double>& d = smooth.evaluate(model.qpos0, true);
  for (int t = 0; t < model.ntendon; ++t) model.tendon_length0[t] = d.ten_length()[t];

  const int nv = model.nv;
  if (nv > 0) {
    const Eigen::LLT<Eigen::MatrixXd> llt(smooth.mass_matrix());
    const Eigen::MatrixXd hinv = llt.solve(Eigen::MatrixXd::Identity(nv, nv));
    // A = J H⁻¹ Jᵀ for each body's COM Jacobian (translation, rotation), over its ancestor
    // dofs only: mean diagonals.  J e_j = [v + ω × c; ω] for the dof's axis [v; ω] at the world
    // origin (kernels/body_jacobians.h, which stores it for the bodies with joints only)
    for (int b = 1; b < model.nbody; ++b) {
      const int adr = model.body_treeadr[b], n = model.body_treenum[b];
      const Eigen::Vector3d com(d.xipos()[3 * b], d.xipos()[3 * b + 1], d.xipos()[3 * b + 2]);
      Eigen::MatrixXd jac(6, n), hsub(n, n);
      for (int c = 0; c < n; ++c) {
        const Row<double> s = d.cdof() + 6 * model.tree_dof[adr + c];
        const Eigen::Vector3d v(s[0], s[1], s[2]), w(s[3], s[4], s[5]);
        jac.col(c) << v + w.cross(com), w;
        for (int e = 0; e < n; ++e) {
          hsub(c, e) = hinv(model.tree_dof[adr + c], model.tree_dof[adr + e]);
        }
      }
      const Eigen::MatrixXd a = jac * hsub * jac.transpose();
      model.body_invweight0[2 * b] = (a(0, 0) + a(1, 1) + a(2, 2)) / 3;
      model.body_invweight0[2 * b + 1] = (a(3, 3) + a(4, 4) + a(5, 5)) / 3;
    }
    for (int j = 0; j < model.njnt; ++j) {
      const int da = model.jnt_dofadr[j];
      auto mean = [&](int first, int n) {
        double s = 0;
        for (int k = first; k < first + n; ++k) s += hinv(k, k);
        return s / n;
      };
      switch (model.jnt_type[j]) {
        case JointType::kFree:
          for (int k = 0; k < 3; ++k) model.dof_invweight0[da + k] = mean(da, 3);
          for (int k = 3; k < 6; ++k) model.dof_invweight0[da + k] = mean(da + 3, 3);
          break;
        case JointType::kBall:
          for (int k = 0; k < 3; ++k) model.dof_invweight0[da + k] = mean(da, 3);
          break;
        default:
          model.dof_invweight0[da] = hinv(da, da);
          break;
      }
    }
  }

  // tendons: J H⁻¹ Jᵀ at qpos0
  if (nv > 0) {
    const Eigen::LLT<Eigen::MatrixXd> llt(smooth.mass_matrix());
    const Eigen::MatrixXd jac = smooth.tendon_jacobian();
    for (int t = 0; t < model.ntendon; ++t) {
      model.tendon_invweight0[t] = jac.row(t).dot(llt.solve(jac.row(t).transpose()));
    }
  }
  // connect: the anchor in body2's frame; weld: anchor in body1's frame and q1⁻¹ q2, at qpos0
  auto local = [&](int b, const Eigen::Vector3d& world) {
    Eigen::Matrix3d r;
    for (int k = 0; k < 9; ++k) r(k / 3, k % 3) = d.xmat()[9 * b + k];
    const Eigen::Vector3d x(d.xpos()[3 * b], d.xpos()[3 * b + 1], d.xpos()[3 * b + 2]);
    return Eigen::Vector3d(r.transpose() * (world - x));
  };
  auto world = [&](int b, const double* p) {
    Eigen::Matrix3d r;
    for (int k = 0; k < 9; ++k) r(k / 3, k % 3) = d.xmat()[9 * b + k];
    const Eigen::Vector3d x(d.xpos()[3 * b], d.xpos()[3 * b + 1], d.xpos()[3 * b + 2]);
    return Eigen::Vector3d(x + r * Eigen::Vector3d(p[0], p[1], p[2]));
  };
  for (int e = 0; e < model.neq; ++e) {
    double* data_e = model.eq_data.data() + 11 * e;
    const int b1 = model.eq_obj1id[e], b2 = model.eq_obj2id[e];
    if (model.eq_type[e] == EqualityType::kConnect) {
      const Eigen::Vector3d a2 = local(b2, world(b1, data_e));
      for (int k = 0; k < 3; ++k) data_e[3 + k] = a2[k];
    } else if (model.eq_type[e] == EqualityType::kWeld) {
      const bool given = data_e[6] != 0 || data_e[7] != 0 || data_e[8] != 0 || data_e[9] != 0;
      if (given) {
        const double n = std::sqrt(data_e[6] * data_e[6] + data_e[7] * data_e[7] +
                                   data_e[8] * data_e[8] + data_e[9] * data_e[9]);
        for (int k = 6; k < 10; ++k) data_e[k] /= n;
        continue;
      }
      const Eigen::Vector3d a1 = local(b1, world(b2, data_e));
      for (int k = 0; k < 3; ++k) data_e[3 + k] = a1[k];
      const Quat<double> q1 = load_quat(d.xquat(), 4 * b1), q2 = load_quat(d.xquat(), 4 * b2);
      const Quat<double> rel = mul(Quat<double>{q1.w, -q1.x, -q1.y, -q1.z}, q2);
      data_e[6] = rel.w;
      data_e[7] = rel.x;
      data_e[8] = rel.y;
      data_e[9] = rel.z;
    }
  }
  // the spring length MuJoCo takes when none is given (−1 −1): the length at qpos_spring
  const auto unset = [&](int t) {
    return model.tendon_lengthspring[2 * t] == -1 && model.tendon_lengthspring[2 * t + 1] == -1;
  };
  bool spring_length = false;
  for (int t = 0; t < model.ntendon; ++t) spring_length = spring_length || unset(t);
  if (spring_length) {
    smooth.evaluate(model.qpos_spring, false);
    for (int t = 0; t < model.ntendon; ++t) {
      if (unset(t)) {
        model.tendon_lengthspring[2 * t] = model.tendon_lengthspring[2 * t + 1] = d.ten_length()[t];
      }
    }
  }
}

std::vector<double> tendon_lengths(const Model& model, std::span<const double> qpos) {
  if (qpos.size() != static_cast<std::size_t>(model.nq)) {
    throw std::invalid_argument(fmt::format(
        "tendon_lengths: qpos has {} values, the model has nq = {}", qpos.size(), model.nq));
  }
  // the kernels' kinematics and tendons, on one instance without constraint rows
  SmoothInstance smooth(model);
  const Instance<double>& d = smooth.evaluate(qpos, false);
  std::vector<double> length(model.ntendon);
  for (int t = 0; t < model.ntendon; ++t) length[t] = d.ten_length()[t];
  return length;
}

}  // namespace zwang
