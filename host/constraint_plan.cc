#include "constraint_plan.hpp"

#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <algorithm>

#include "kernels/assemble.h"
#include "kernels/body_jacobians.h"
#include "kernels/body_terms.h"
#include "kernels/forward_kinematics.h"
#include "kernels/model_view.h"
#include "model_arrays.hpp"

namespace zwang {

int equality_rows(EqualityType type) {
  return type == EqualityType::kConnect ? 3 : type == EqualityType::kWeld ? 6 : 1;
}

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
  for (int j = 0; j < m.njnt; ++j) {
    const JointType t = m.jnt_type[j];
    if (!lim_on || !m.jnt_limited[j] || t == JointType::kFree) continue;
    p.jnt_efcadr[j] = add(t == JointType::kBall ? 1 : 2, kEfcLimit);
  }
  // a soft row on one joint keeps H's tree pattern; equalities between bodies or joints may
  // couple any dofs, and then the Newton Hessian is dense (every dof's parent the previous)
  bool dense = false;
  for (int e = 0; e < m.neq; ++e) dense = dense || (p.eq_efcadr[e] >= 0 && !m.eq_hard[e]);
  p.efc_tree = m.dof_parent;
  if (dense) {
    for (int v = 0; v < m.nv; ++v) p.efc_tree[v] = v - 1;
  }
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
  if (!soft_rows) return;
  // the smooth quantities at qpos0, from the kernels themselves, without constraint rows
  Model smooth = model;
  smooth.disableflags = kDisableConstraint;
  smooth.ndrive = smooth.nnhc = 0;
  smooth.drive_jnt.clear();
  smooth.drive_prm.clear();
  smooth.drive_solref.clear();
  smooth.nhc_type.clear();
  smooth.nhc_body.clear();
  smooth.nhc_data.clear();
  smooth.nhc_solref.clear();
  const ModelArrays<double> arrays(smooth);
  const ModelView<double> view = arrays.view();
  const Layout& lay = view.lay;
  std::vector<double> data(std::max(lay.data_rows, 1)), param(std::max(lay.param_rows, 1)),
      work(std::max(lay.work_rows, 1));
  double time = 0;
  int status = 0;
  const Instance<double> d{{data.data(), 1}, {param.data(), 1}, {work.data(), 1}, &view.lay, &time,
                           &status};
  for (int i = 0; i < model.nq; ++i) d.qpos()[i] = model.qpos0[i];
  for (int b = 0; b < model.nbody; ++b) {
    d.body_mass()[b] = model.body_mass[b];
    for (int k = 0; k < 3; ++k) d.body_ipos()[3 * b + k] = model.body_ipos[3 * b + k];
    for (int k = 0; k < 6; ++k) d.body_inertia()[6 * b + k] = model.body_inertia[6 * b + k];
  }
  for (int v = 0; v < model.nv; ++v) d.dof_armature()[v] = model.dof_armature[v];
  forward_kinematics(view, d);
  body_jacobians(view, d);
  body_terms(view, d);
  assemble(view, d);

  const int nv = model.nv;
  if (nv > 0) {
    Eigen::MatrixXd h(nv, nv);
    for (int i = 0; i < nv; ++i) {
      for (int j = 0; j <= i; ++j) h(i, j) = h(j, i) = d.qM()[i * (i + 1) / 2 + j];
    }
    const Eigen::LLT<Eigen::MatrixXd> llt(h);
    const Eigen::MatrixXd hinv = llt.solve(Eigen::MatrixXd::Identity(nv, nv));
    // A = J H⁻¹ Jᵀ for each body's COM Jacobian (translation, rotation), over its ancestor
    // dofs only: mean diagonals
    for (int b = 1; b < model.nbody; ++b) {
      const int adr = model.body_treeadr[b], n = model.body_treenum[b];
      Eigen::MatrixXd jac(6, n), hsub(n, n);
      for (int c = 0; c < n; ++c) {
        for (int k = 0; k < 6; ++k) jac(k, c) = d.body_J()[6 * (adr + c) + k];
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
}

}  // namespace zwang
