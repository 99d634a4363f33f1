#include "host/model/actuator_constants.hpp"

#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <algorithm>
#include <array>
#include <cmath>

#include "host/model/smooth_instance.hpp"

namespace zwang {

namespace {

// an actuator's moment at the evaluated state: gear e_dof of a joint, gear J_t of a tendon
Eigen::VectorXd actuator_moment(const Model& model, const Eigen::MatrixXd& ten_J, int a) {
  Eigen::VectorXd moment = Eigen::VectorXd::Zero(model.nv);
  const int id = model.actuator_trnid[a];
  if (model.actuator_trntype[a] == static_cast<int>(TransmissionType::kTendon)) {
    moment = model.actuator_gear[a] * ten_J.row(id).transpose();
  } else {
    moment[model.jnt_dofadr[id]] = model.actuator_gear[a];
  }
  return moment;
}

}  // namespace

void set_muscle_constants(Model& model, const std::vector<ActuatorSpec>& specs) {
  bool any = false;
  for (int a = 0; a < model.nu; ++a) {
    any = any || model.actuator_gaintype[a] == ActuatorGain::kMuscle ||
          model.actuator_biastype[a] == ActuatorBias::kMuscle;
  }
  if (!any) return;
  // H (armature included) and the tendons' moments at qpos0
  SmoothInstance smooth(model);
  smooth.evaluate(model.qpos0, true);
  const Eigen::LLT<Eigen::MatrixXd> llt(smooth.mass_matrix());
  const Eigen::MatrixXd ten_J = smooth.tendon_jacobian();
  for (int a = 0; a < model.nu; ++a) {
    // acc0 = |H⁻¹ m| for the moment m
    const Eigen::VectorXd moment = actuator_moment(model, ten_J, a);
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

void set_damping_ratios(Model& model) {
  const auto ratio = [&model](int a) {
    const double* gain = &model.actuator_gainprm[3 * a];
    const double* bias = &model.actuator_biasprm[3 * a];
    const bool position_like = model.actuator_biastype[a] == ActuatorBias::kAffine &&
                               model.actuator_gaintype[a] != ActuatorGain::kMuscle &&
                               gain[0] == -bias[1];
    return position_like && bias[2] > 0;
  };
  bool any = false;
  for (int a = 0; a < model.nu; ++a) any = any || ratio(a);
  if (!any) return;
  SmoothInstance smooth(model);
  smooth.evaluate(model.qpos0, true);
  const Eigen::LLT<Eigen::MatrixXd> llt(smooth.mass_matrix());
  const Eigen::MatrixXd ten_J = smooth.tendon_jacobian();
  for (int a = 0; a < model.nu; ++a) {
    if (!ratio(a)) continue;
    const Eigen::VectorXd moment = actuator_moment(model, ten_J, a);
    const double inverse = model.nv > 0 ? moment.dot(llt.solve(moment)) : 0.0;
    const double mass = inverse > 0 ? 1 / inverse : 0;
    double& bias2 = model.actuator_biasprm[3 * a + 2];
    bias2 = -bias2 * 2 * std::sqrt(model.actuator_gainprm[3 * a] * mass);
  }
}

}  // namespace zwang
