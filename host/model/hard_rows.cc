#include "host/model/hard_rows.hpp"

#include <fmt/format.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <vector>

#include "host/model/constraint_plan.hpp"
#include "kernels/constraint_solver.h"
#include "kernels/status.h"

namespace zwang {
namespace {

// the constraint that owns hard row r, in words
std::string row_owner(const Model& m, const RowPlan& plan, int r) {
  for (int e = 0; e < m.neq; ++e) {
    const int adr = plan.eq_efcadr[e];
    if (adr >= 0 && m.eq_hard[e] && r >= adr && r < adr + equality_rows(m.eq_type[e])) {
      return m.eq_name[e].empty() ? fmt::format("equality {}", e)
                                  : fmt::format("equality '{}'", m.eq_name[e]);
    }
  }
  for (int i = 0; i < m.ndrive; ++i) {
    if (plan.drive_efcadr[i] == r) {
      return fmt::format("the drive of joint '{}'", m.jnt_name[m.drive_jnt[i]]);
    }
  }
  for (int i = 0; i < m.nnhc; ++i) {
    const int rows = m.nhc_type[i] == NonholonomicType::kKnifeEdge ? 1 : 3;
    if (r >= plan.nhc_efcadr[i] && r < plan.nhc_efcadr[i] + rows) {
      return fmt::format("'{}'", m.nhc_name[i]);
    }
  }
  return fmt::format("hard row {}", r);
}

}  // namespace

std::string hard_conflict_clauses(const Model& model, OneInstance& one, double tol, double reach) {
  one.forward();
  const Instance<double>& d = one.instance();
  const int nv = model.nv, nh = one.view().s.nhard;
  if (nh == 0 || nv == 0 || !(*d.status & kStatusHardConflict)) return "";

  // A (nh x nv), H, x = q̈ of the projection, as hard_consistent() sees them
  Eigen::MatrixXd a(nh, nv), h(nv, nv);
  Eigen::VectorXd x(nv), xs(nv), aref(nh);
  for (int r = 0; r < nh; ++r) {
    for (int i = 0; i < nv; ++i) a(r, i) = d.efc_J()[r * nv + i];
    aref[r] = d.efc_aref()[r];
  }
  for (int i = 0; i < nv; ++i) {
    x[i] = d.qacc()[i];
    xs[i] = d.qacc_smooth()[i];
    for (int j = 0; j <= i; ++j) h(i, j) = h(j, i) = d.qM()[i * (i + 1) / 2 + j];
  }
  const Eigen::VectorXd residual = a * x - aref;
  std::vector<int> kept;
  for (int r = 0; r < nh; ++r) {
    if (d.efc_pstate()[r] == -1) kept.push_back(r);
  }
  // A_p = Σ_k c_k A_k over the kept rows k, in the metric H⁻¹: S_KK c = S_Kp, S = A H⁻¹ Aᵀ
  const Eigen::MatrixXd s = a * Eigen::LDLT<Eigen::MatrixXd>(h).solve(a.transpose());
  Eigen::MatrixXd skk(kept.size(), kept.size());
  for (std::size_t u = 0; u < kept.size(); ++u) {
    for (std::size_t v = 0; v < kept.size(); ++v) skk(u, v) = s(kept[u], kept[v]);
  }
  const Eigen::LDLT<Eigen::MatrixXd> factor(skk);

  const RowPlan plan = plan_rows(model);
  const Eigen::VectorXd terms = a.cwiseAbs() * (x.cwiseAbs() + xs.cwiseAbs()) + aref.cwiseAbs();
  const double floor = tol * (1 + terms.maxCoeff());
  const double change = std::sqrt(std::max((x - xs).dot(h * (x - xs)), 0.0));
  std::vector<std::string> clauses;
  for (int p = 0; p < nh; ++p) {
    if (d.efc_pstate()[p] != -2 || !(std::abs(residual[p]) > floor)) continue;
    const double sigma = std::max(d.efc_S()[p * nh + p], 0.0);
    if (!(std::abs(residual[p]) > reach * std::sqrt(sigma) * change)) continue;
    Eigen::VectorXd skp(kept.size());
    for (std::size_t u = 0; u < kept.size(); ++u) skp[u] = s(kept[u], p);
    const Eigen::VectorXd c = kept.empty() ? skp : Eigen::VectorXd(factor.solve(skp));
    const double big = c.size() > 0 ? c.cwiseAbs().maxCoeff() : 0;
    std::vector<std::string> with;
    for (std::size_t u = 0; u < kept.size(); ++u) {
      if (!(std::abs(c[u]) > 1e-6 * big)) continue;
      const std::string owner = row_owner(model, plan, kept[u]);
      if (std::find(with.begin(), with.end(), owner) == with.end()) with.push_back(owner);
    }
    const std::string self = row_owner(model, plan, p);
    std::erase(with, self);
    std::string others;
    for (std::size_t k = 0; k < with.size(); ++k) {
      others += (k == 0 ? "" : k + 1 == with.size() ? " and " : ", ") + with[k];
    }
    clauses.push_back(
        others.empty()
            ? fmt::format(
                  "{} cannot hold (its row acts on no degree of freedom; violated by {:.3g})", self,
                  residual[p])
            : fmt::format("{} contradicts {} (violated by {:.3g})", self, others, residual[p]));
  }
  std::string out;
  for (std::size_t k = 0; k < clauses.size(); ++k) out += (k == 0 ? "" : "; ") + clauses[k];
  return out;
}

void check_hard_rows(const Model& model) {
  if (model.sizes().nhard == 0) return;
  OneInstance one(model);
  const std::string conflict =
      hard_conflict_clauses(model, one, hard_conflict_tolerance<double>(), hard_reach<double>());
  if (!conflict.empty()) {
    throw ModelError(fmt::format(
        "model: hard constraints contradict one another at the default state (qpos0, at rest, "
        "t = 0): {}; no acceleration satisfies them all",
        conflict));
  }
}

}  // namespace zwang
