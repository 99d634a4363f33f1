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

SmoothInstance::SmoothInstance(const Model& model) : plain_(without_rows(model)), one_(plain_) {}

const Instance<double>& SmoothInstance::evaluate(std::span<const double> qpos, bool mass_matrix) {
  const ModelView<double>& view = one_.view();
  const Instance<double>& d = one_.instance();
  for (int i = 0; i < plain_.nq; ++i) d.qpos()[i] = qpos[i];
  forward_kinematics(view, d);
  body_jacobians(view, d);
  tendons(view, d);
  if (mass_matrix) {
    body_terms(view, d);
    assemble(view, d);
  }
  return d;
}

Eigen::MatrixXd SmoothInstance::mass_matrix() const {
  const int nv = plain_.nv;
  Eigen::MatrixXd h(nv, nv);
  for (int i = 0; i < nv; ++i) {
    for (int j = 0; j <= i; ++j) h(i, j) = h(j, i) = one_.instance().qM()[i * (i + 1) / 2 + j];
  }
  return h;
}

Eigen::MatrixXd SmoothInstance::tendon_jacobian() const {
  const int nv = plain_.nv;
  Eigen::MatrixXd jac(plain_.ntendon, nv);
  for (int t = 0; t < plain_.ntendon; ++t) {
    for (int i = 0; i < nv; ++i) jac(t, i) = one_.instance().ten_J()[t * nv + i];
  }
  return jac;
}

}  // namespace zwang
