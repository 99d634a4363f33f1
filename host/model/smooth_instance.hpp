// One instance of a model in double, without its constraint rows, for what the builder derives
// from the model at a configuration (invweight0, the tendons' length0, muscles' acc0) and for host
// queries (tendon lengths): the kernels' own smooth stages, never a second implementation.
#pragma once

#include <Eigen/Core>
#include <span>
#include <vector>

#include "host/model/one_instance.hpp"
#include "kernels/instance.h"
#include "zwang/model.hpp"

namespace zwang {

class SmoothInstance {
 public:
  // the model's parameters, the mocap bodies at their default poses, zero velocity
  explicit SmoothInstance(const Model& model);
  SmoothInstance(const SmoothInstance&) = delete;
  SmoothInstance& operator=(const SmoothInstance&) = delete;

  // kinematics, body Jacobians and tendons at qpos (nq values); with `mass_matrix` also the body
  // terms and H
  const Instance<double>& evaluate(std::span<const double> qpos, bool mass_matrix);
  // after evaluate(.., true): H, dense (nv x nv)
  Eigen::MatrixXd mass_matrix() const;
  // after evaluate(): the tendons' moments J_t (ntendon x nv)
  Eigen::MatrixXd tendon_jacobian() const;

 private:
  Model plain_;
  OneInstance one_;
};

}  // namespace zwang
