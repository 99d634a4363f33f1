#include "actuator_constants.hpp"

#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <algorithm>
#include <array>

#include "kernels/assemble.h"
#include "kernels/body_jacobians.h"
#include "kernels/body_terms.h"
#include "kernels/forward_kinematics.h"
#include "kernels/tendons.h"
#include "model_arrays.hpp"

namespace zwang {
namespace {

// H at qpos0 (armature included) and the tendons' moments there (ntendon x nv), from the
// kernels themselves
struct AtQpos0 {
  Eigen::MatrixXd h, ten_J;
};

AtQpos0 at_qpos0(const Model& model) {
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
  const std::vector<double> mpos = mocap_pos0(model), mquat = mocap_quat0(model);
  for (std::size_t i = 0; i < mpos.size(); ++i) d.mocap_pos()[i] = mpos[i];
  for (std::size_t i = 0; i < mquat.size(); ++i) d.mocap_quat()[i] = mquat[i];
  forward_kinematics(view, d);
  body_jacobians(view, d);
  tendons(view, d);
  body_terms(view, d);
  assemble(view, d);
  const int nv = model.nv;
  Eigen::MatrixXd h(nv, nv);
  for (int i = 0; i < nv; ++i) {
    for (int j = 0; j <= i; ++j) h(i, j) = h(j, i) = d.qM()[i * (i + 1) / 2 + j];
  }
  Eigen::MatrixXd ten_J(model.ntendon, nv);
  for (int t = 0; t < model.ntendon; ++t) {
    for (int i = 0; i < nv; ++i) ten_J(t, i) = d.ten_J()[t * nv + i];
  }
  return {h, ten_J};
}

}  // namespace

void set_muscle_constants(Model& model, const std::vector<ActuatorSpec>& specs) {
  bool any = false;
  for (int a = 0; a < model.nu; ++a) {
    any = any || model.actuator_gaintype[a] == ActuatorGain::kMuscle ||
          model.actuator_biastype[a] == ActuatorBias::kMuscle;
  }
  if (!any) return;
  const AtQpos0 at = at_qpos0(model);
  const Eigen::LLT<Eigen::MatrixXd> llt(at.h);
  for (int a = 0; a < model.nu; ++a) {
    // acc0 = |H⁻¹ m| for the moment m: gear e_dof of a joint, gear J_t of a tendon
    Eigen::VectorXd moment = Eigen::VectorXd::Zero(model.nv);
    const int id = model.actuator_trnid[a];
    if (model.actuator_trntype[a] == static_cast<int>(TransmissionType::kTendon)) {
      moment = model.actuator_gear[a] * at.ten_J.row(id).transpose();
    } else {
      moment[model.jnt_dofadr[id]] = model.actuator_gear[a];
    }
    const double acc0 = model.nv > 0 ? llt.solve(moment).norm() : 0;
    // F0 = force, or scale / max(acc0, 1e-15) when force < 0
    const auto peak = [acc0](const std::array<double, 9>& p) {
      return p[2] < 0 ? p[3] / std::max(1e-15, acc0) : p[2];
    };
    if (model.actuator_gaintype[a] == ActuatorGain::kMuscle)
      model.actuator_gainprm[3 * a] = peak(specs[a].muscle_gain);
    if (model.actuator_biastype[a] == ActuatorBias::kMuscle)
      model.actuator_biasprm[3 * a] = peak(specs[a].muscle_bias) * specs[a].muscle_bias[7];
  }
}

}  // namespace zwang
