// Built-in example models, used by the command-line tool, the tests and the benchmarks.
#pragma once

#include <random>
#include <span>
#include <string>
#include <vector>

#include "zwang/model.hpp"

namespace zwang::examples {

// A bob of mass m on a hinge about y, its COM a distance `length` below the axis.
Model pendulum(double length = 1.0, double mass = 1.0);

// Two uniform rods on parallel hinges about y.
Model double_pendulum();

struct ChainOptions {
  int links = 8;
  double damping = 0;      // per joint
  double stiffness = 0;    // per joint, rest at springref = 0.1
  double armature = 0;     // per joint
  bool actuators = false;  // a motor, a position and a velocity servo on the first joints
  bool gravity = true;
  bool slides = true;  // every fifth joint a slide; false gives hinges only
};
// A serial chain of hinges and slides with mixed axes, offsets, and full inertia
// tensors that are not aligned with the body frames.
Model chain(const ChainOptions& options = {});

struct RodChainOptions {
  int links = 8;
  double length = 1.0;  // of each rod (m); each rod is 1 kg
  bool planar = true;   // every hinge about y; false cycles the axes y, x, z
  double damping = 0;   // per joint
  double armature = 0;  // per joint
};
// A pendulum chain: uniform rods hanging end to end from the world on hinges.
Model rod_chain(const RodChainOptions& options = {});

// A cart on a slide along x with a pole on a hinge about y; a motor drives the cart.
Model cart_pole();

// A torso on a free joint with two limbs (hinge–hinge and slide–hinge).
Model floating_base(bool gravity = true);

// A chain of bodies on ball joints with offset anchors.
Model ball_chain(int links = 3);

// `base` (nq values) with every hinge and slide coordinate moved by its own U(−noise, noise):
// the kind of start state an environment resets to; perturbed_qpos0 about qpos0.
std::vector<double> perturbed_qpos(const Model& model, std::span<const double> base, double noise,
                                   std::mt19937_64& rng);
std::vector<double> perturbed_qpos0(const Model& model, double noise, std::mt19937_64& rng);

// Names accepted by by_name(), in a stable order.
std::vector<std::string> names();
// The example of that name with its defaults; ModelError if there is none.
Model by_name(const std::string& name);

}  // namespace zwang::examples
