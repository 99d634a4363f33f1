#include "host/model/smooth_instance.hpp"

#include <algorithm>

#include "kernels/assemble.h"
#include "kernels/body_jacobians.h"
#include "kernels/body_terms.h"
#include "kernels/forward_kinematics.h"
#include "kernels/tendons.h"

namespace zwang {
namespace {

// the model without constraint rows, drives or non-holonomic constraints: the smooth stages only
Model without_rows(const Model& model) {
  Model plain = model;
  plain.disableflags = kDisableConstraint;
  plain.ndrive = plain.nnhc = 0;
  plain.drive_jnt.clear();
  plain.drive_prm.clear();
  plain.drive_solref.clear();
  plain.nhc_type.clear();
  plain.nhc_body.clear();
  plain.nhc_data.clear();
  plain.nhc_solref.clear();
  return plain;
}

}  // namespace

SmoothInstance::SmoothInstance(const Model& model)
    : plain_(without_rows(model)),
      arrays_(plain_),
      view_(arrays_.view()),
      data_(std::max(view_.lay.data_rows, 1)),
      param_(std::max(view_.lay.param_rows, 1)),
      work_(std::max(view_.lay.work_rows, 1)),
      d_{{data_.data(), 1}, {param_.data(), 1}, {work_.data(), 1}, &view_.lay, &time_, &status_} {
  for (int b = 0; b < model.nbody; ++b) {
    d_.body_mass()[b] = model.body_mass[b];
    for (int k = 0; k < 3; ++k) d_.body_ipos()[3 * b + k] = model.body_ipos[3 * b + k];
    for (int k = 0; k < 6; ++k) d_.body_inertia()[6 * b + k] = model.body_inertia[6 * b + k];
  }
  for (int v = 0; v < model.nv; ++v) d_.dof_armature()[v] = model.dof_armature[v];
  const std::vector<double> mpos = mocap_pos0(model), mquat = mocap_quat0(model);
  for (std::size_t i = 0; i < mpos.size(); ++i) d_.mocap_pos()[i] = mpos[i];
  for (std::size_t i = 0; i < mquat.size(); ++i) d_.mocap_quat()[i] = mquat[i];
}

const Instance<double>& SmoothInstance::evaluate(std::span<const double> qpos, bool mass_matrix) {
  for (int i = 0; i < plain_.nq; ++i) d_.qpos()[i] = qpos[i];
  forward_kinematics(view_, d_);
  body_jacobians(view_, d_);
  tendons(view_, d_);
  if (mass_matrix) {
    body_terms(view_, d_);
    assemble(view_, d_);
  }
  return d_;
}

Eigen::MatrixXd SmoothInstance::mass_matrix() const {
  const int nv = plain_.nv;
  Eigen::MatrixXd h(nv, nv);
  for (int i = 0; i < nv; ++i) {
    for (int j = 0; j <= i; ++j) h(i, j) = h(j, i) = d_.qM()[i * (i + 1) / 2 + j];
  }
  return h;
}

Eigen::MatrixXd SmoothInstance::tendon_jacobian() const {
  const int nv = plain_.nv;
  Eigen::MatrixXd jac(plain_.ntendon, nv);
  for (int t = 0; t < plain_.ntendon; ++t) {
    for (int i = 0; i < nv; ++i) jac(t, i) = d_.ten_J()[t * nv + i];
  }
  return jac;
}

}  // namespace zwang
