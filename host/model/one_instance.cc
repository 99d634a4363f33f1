#include "host/model/one_instance.hpp"

#include <algorithm>

#include "kernels/pipeline.h"

namespace zwang {

std::vector<std::pair<int, std::span<const double>>> parameter_defaults(const Model& model,
                                                                        const Layout& l) {
  return {{l.body_mass, model.body_mass},
          {l.body_ipos, model.body_ipos},
          {l.body_inertia, model.body_inertia},
          {l.body_gravcomp, model.body_gravcomp},
          {l.dof_damping, model.dof_damping},
          {l.dof_armature, model.dof_armature},
          {l.jnt_stiffness, model.jnt_stiffness},
          {l.qpos_spring, model.qpos_spring},
          {l.actuator_gear, model.actuator_gear},
          {l.actuator_gainprm, model.actuator_gainprm},
          {l.actuator_biasprm, model.actuator_biasprm},
          {l.actuator_dynprm, model.actuator_dynprm},
          {l.drive_prm, model.drive_prm},
          {l.tendon_stiffness, model.tendon_stiffness},
          {l.tendon_damping, model.tendon_damping},
          {l.gravity, model.gravity},
          {l.density, {&model.density, 1}},
          {l.viscosity, {&model.viscosity, 1}},
          {l.wind, model.wind}};
}

OneInstance::OneInstance(const Model& model)
    : arrays_(model),
      view_(arrays_.view()),
      data_(std::max(view_.lay.data_rows, 1)),
      param_(std::max(view_.lay.param_rows, 1)),
      work_(std::max(view_.lay.work_rows, 1)),
      d_{{data_.data(), 1}, {param_.data(), 1}, {work_.data(), 1}, &view_.lay, &time_, &status_} {
  const auto put = [](std::vector<double>& arena, int row, std::span<const double> values) {
    std::copy(values.begin(), values.end(), arena.begin() + row);
  };
  put(data_, view_.lay.qpos, model.qpos0);
  put(data_, view_.lay.mocap_pos, mocap_pos0(model));
  put(data_, view_.lay.mocap_quat, mocap_quat0(model));
  for (const auto& [row, values] : parameter_defaults(model, view_.lay)) put(param_, row, values);
}

bool OneInstance::forward() {
  status_ = 0;
  return zwang::forward(view_, d_);
}

}  // namespace zwang
