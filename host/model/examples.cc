#include "zwang/examples.hpp"

#include <fmt/format.h>

#include <cmath>

#include "zwang/builder.hpp"

namespace zwang::examples {
namespace {

// uniform rod of mass m and length l along the body's z axis, centred at the COM
Inertia6 rod(double m, double l, double r = 0.02) {
  const double side = m * (3 * r * r + l * l) / 12;
  return {side, side, m * r * r / 2, 0, 0, 0};
}

// unit quaternion of a rotation by angle about axis
Quatd rotation(Vec3d axis, double angle) {
  const double n = std::sqrt(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
  const double s = std::sin(angle / 2) / n;
  return {std::cos(angle / 2), s * axis[0], s * axis[1], s * axis[2]};
}

}  // namespace

Model pendulum(double length, double mass) {
  ModelBuilder b;
  const double r = 0.05;  // a solid sphere of radius r
  const double i = 0.4 * mass * r * r;
  b.add_body({.name = "bob", .mass = mass, .com = {0, 0, -length}, .inertia = {i, i, i, 0, 0, 0}});
  b.add_joint("bob", {.name = "hinge", .type = JointType::kHinge, .axis = {0, 1, 0}});
  return b.build();
}

Model double_pendulum() {
  ModelBuilder b;
  b.add_body({.name = "upper", .mass = 1.0, .com = {0, 0, -0.5}, .inertia = rod(1.0, 1.0)});
  b.add_joint("upper", {.name = "shoulder", .type = JointType::kHinge, .axis = {0, 1, 0}});
  b.add_body({.name = "lower",
              .parent = "upper",
              .pos = {0, 0, -1.0},
              .mass = 0.7,
              .com = {0, 0, -0.4},
              .inertia = rod(0.7, 0.8)});
  b.add_joint("lower", {.name = "elbow", .type = JointType::kHinge, .axis = {0, 1, 0}});
  return b.build();
}

Model chain(const ChainOptions& o) {
  ModelBuilder b;
  if (!o.gravity) b.set_gravity({0, 0, 0});
  const Vec3d axes[4] = {{0, 1, 0}, {1, 0, 0}, {0, 0.6, 0.8}, {0, 0, 1}};
  std::string parent = "world";
  for (int k = 0; k < o.links; ++k) {
    const std::string name = fmt::format("link{}", k);
    const double m = 0.5 + 0.15 * k;
    const Quatd frame = rotation({1.0, 0.3 * k, -0.5}, 0.2 + 0.3 * k);
    BodySpec body{.name = name,
                  .parent = parent,
                  .pos = k == 0 ? Vec3d{0, 0, 0} : Vec3d{0.05 * (k % 3), 0.02 * k, -0.4},
                  .quat = rotation({0.2, 1.0, 0.1 * k}, 0.15 * k),
                  .mass = m,
                  .com = {0.03, -0.01 * k, -0.2},
                  .inertia = inertia_from_principal(
                      {0.02 + 0.004 * k, 0.025 + 0.002 * k, 0.011 + 0.003 * k}, frame)};
    b.add_body(body);
    JointSpec joint{.name = fmt::format("joint{}", k),
                    .type = o.slides && k % 5 == 4 ? JointType::kSlide : JointType::kHinge,
                    .pos = {0.01 * k, 0.0, 0.02},
                    .axis = axes[k % 4],
                    .damping = o.damping,
                    .armature = o.armature,
                    .stiffness = o.stiffness,
                    .springref = 0.1};
    b.add_joint(name, joint);
    parent = name;
  }
  if (o.actuators && o.links >= 3) {
    b.add_actuator({.name = "motor0",
                    .joint = "joint0",
                    .type = ActuatorType::kMotor,
                    .gear = 2.0,
                    .ctrllimited = true,
                    .ctrlrange = {-1, 1}});
    b.add_actuator({.name = "servo1",
                    .joint = "joint1",
                    .type = ActuatorType::kPosition,
                    .gear = 1.5,
                    .kp = 20});
    b.add_actuator({.name = "speed2",
                    .joint = "joint2",
                    .type = ActuatorType::kVelocity,
                    .forcelimited = true,
                    .forcerange = {-2, 2},
                    .kv = 3});
  }
  return b.build();
}

Model rod_chain(const RodChainOptions& o) {
  ModelBuilder b;
  const double m = 1.0, r = 0.05;
  const Vec3d axes[3] = {{0, 1, 0}, {1, 0, 0}, {0, 0, 1}};
  std::string parent = "world";
  for (int k = 0; k < o.links; ++k) {
    const std::string name = fmt::format("rod{}", k);
    b.add_body({.name = name,
                .parent = parent,
                .pos = {0, 0, k == 0 ? 0.0 : -o.length},
                .mass = m,
                .com = {0, 0, -o.length / 2},
                .inertia = rod(m, o.length, r)});
    b.add_joint(name, {.name = fmt::format("hinge{}", k),
                       .type = JointType::kHinge,
                       .axis = o.planar ? axes[0] : axes[k % 3],
                       .damping = o.damping,
                       .armature = o.armature});
    parent = name;
  }
  return b.build();
}

Model cart_pole() {
  ModelBuilder b;
  b.add_body({.name = "cart", .mass = 1.0, .inertia = {0.01, 0.02, 0.02, 0, 0, 0}});
  b.add_joint("cart", {.name = "slider", .type = JointType::kSlide, .axis = {1, 0, 0}});
  b.add_body({.name = "pole",
              .parent = "cart",
              .mass = 0.1,
              .com = {0, 0, 0.5},
              .inertia = rod(0.1, 1.0)});
  b.add_joint("pole", {.name = "hinge", .type = JointType::kHinge, .axis = {0, 1, 0}});
  b.add_actuator(
      {.name = "push", .joint = "slider", .gear = 10, .ctrllimited = true, .ctrlrange = {-1, 1}});
  return b.build();
}

Model floating_base(bool gravity) {
  ModelBuilder b;
  if (!gravity) b.set_gravity({0, 0, 0});
  b.add_body({.name = "torso",
              .pos = {0, 0, 1.0},
              .mass = 5.0,
              .com = {0.02, -0.01, 0.05},
              .inertia = inertia_from_principal({0.3, 0.25, 0.12}, rotation({0.3, 1, 0.2}, 0.4))});
  b.add_joint("torso", {.name = "root", .type = JointType::kFree});
  // left limb: two hinges with offset anchors
  b.add_body({.name = "left_thigh",
              .parent = "torso",
              .pos = {0.1, 0.15, -0.2},
              .mass = 1.2,
              .com = {0, 0, -0.2},
              .inertia = rod(1.2, 0.4)});
  b.add_joint("left_thigh", {.name = "left_hip_x", .type = JointType::kHinge, .axis = {1, 0, 0}});
  b.add_joint(
      "left_thigh",
      {.name = "left_hip_y", .type = JointType::kHinge, .pos = {0, 0, 0.03}, .axis = {0, 1, 0}});
  b.add_body({.name = "left_shin",
              .parent = "left_thigh",
              .pos = {0, 0, -0.4},
              .quat = rotation({0, 0, 1}, 0.3),
              .mass = 0.8,
              .com = {0.01, 0, -0.18},
              .inertia = rod(0.8, 0.36)});
  b.add_joint("left_shin", {.name = "left_knee", .type = JointType::kHinge, .axis = {0, 1, 0.2}});
  // right limb: a slide and a hinge
  b.add_body({.name = "right_thigh",
              .parent = "torso",
              .pos = {0.1, -0.15, -0.2},
              .quat = rotation({1, 0, 0}, -0.2),
              .mass = 1.1,
              .com = {0, 0, -0.2},
              .inertia = rod(1.1, 0.4)});
  b.add_joint("right_thigh",
              {.name = "right_slide", .type = JointType::kSlide, .axis = {0.2, 0, 1}});
  b.add_joint(
      "right_thigh",
      {.name = "right_hip", .type = JointType::kHinge, .pos = {0, 0.01, 0}, .axis = {0, 1, 0}});
  return b.build();
}

Model ball_chain(int links) {
  ModelBuilder b;
  std::string parent = "world";
  for (int k = 0; k < links; ++k) {
    const std::string name = fmt::format("ball{}", k);
    b.add_body(
        {.name = name,
         .parent = parent,
         .pos = k == 0 ? Vec3d{0, 0, 0} : Vec3d{0.1, 0.0, -0.5},
         .quat = rotation({1, 0.5, 0}, 0.3 * k),
         .mass = 1.0 - 0.2 * k,
         .com = {0, 0.02, -0.25},
         .inertia = inertia_from_principal({0.03, 0.02, 0.01}, rotation({0, 1, 1}, 0.5 + k))});
    b.add_joint(
        name,
        {.name = fmt::format("joint{}", k), .type = JointType::kBall, .pos = {0, 0, 0.05 * k}});
    parent = name;
  }
  return b.build();
}

std::vector<double> perturbed_qpos0(const Model& model, double noise, std::mt19937_64& rng) {
  return perturbed_qpos(model, model.qpos0, noise, rng);
}

std::vector<double> perturbed_qpos(const Model& model, std::span<const double> base, double noise,
                                   std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-noise, noise);
  std::vector<double> q(base.begin(), base.end());
  for (int j = 0; j < model.njnt; ++j) {
    if (model.jnt_type[j] == JointType::kHinge || model.jnt_type[j] == JointType::kSlide) {
      q[model.jnt_qposadr[j]] += u(rng);
    }
  }
  return q;
}

std::vector<std::string> names() {
  return {"pendulum",  "double_pendulum", "chain",     "rod_chain",
          "cart_pole", "floating_base",   "ball_chain"};
}

Model by_name(const std::string& name) {
  if (name == "pendulum") return pendulum();
  if (name == "double_pendulum") return double_pendulum();
  if (name == "chain") return chain();
  if (name == "rod_chain") return rod_chain();
  if (name == "cart_pole") return cart_pole();
  if (name == "floating_base") return floating_base();
  if (name == "ball_chain") return ball_chain();
  throw ModelError(fmt::format("no built-in example named '{}'", name));
}

}  // namespace zwang::examples
