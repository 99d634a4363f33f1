// Constants of the actuators that the compiler derives from the model at qpos0.
#pragma once

#include <vector>

#include "zwang/model.hpp"

namespace zwang {

// The peak force F0 of each muscle into actuator_gainprm[3a] (muscle gain) and F0 fpmax
// into actuator_biasprm[3a] (muscle bias): `force`, or `scale / acc0` when force < 0, with
// acc0 = |H⁻¹ gear e_dof| at qpos0 (MuJoCo's actuator_acc0).  `specs` are the actuators in order.
void set_muscle_constants(Model& model, const std::vector<ActuatorSpec>& specs);

// MuJoCo 3's damping ratios: a position-like actuator (affine bias, gain0 = −bias1 = kp) with
// bias2 > 0 reads bias2 as a damping ratio r, replaced by −kd, kd = r 2 √(kp m), m the inertia
// reflected through the moment at qpos0, 1 / (momentᵀ H⁻¹ moment): what MuJoCo 4.0 compiles for
// <position dampratio> and for such a <general> actuator.
void set_damping_ratios(Model& model);

}  // namespace zwang
