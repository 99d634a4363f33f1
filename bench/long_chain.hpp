// A serial chain of `links` rods on hinges whose axes cycle through y, x and z: a model of any
// nv for the benchmarks (the built-in chain stops at 9 links).  Each rod is 0.3 m and 1 kg,
// with a little armature so that H stays well conditioned as nv grows.
#pragma once

#include <fmt/format.h>

#include <string>

#include "zwang/model.hpp"

namespace zwang::bench {

inline Model long_chain(int links) {
  ModelBuilder b;
  const double m = 1.0, l = 0.3, r = 0.02;
  const double side = m * (3 * r * r + l * l) / 12;
  const Vec3d axes[3] = {{0, 1, 0}, {1, 0, 0}, {0, 0, 1}};
  std::string parent = "world";
  for (int k = 0; k < links; ++k) {
    const std::string name = fmt::format("rod{}", k);
    b.add_body({.name = name,
                .parent = parent,
                .pos = {0, 0, k == 0 ? 0.0 : -l},
                .mass = m,
                .com = {0, 0, -l / 2},
                .inertia = {side, side, m * r * r / 2, 0, 0, 0}});
    b.add_joint(name, {.name = fmt::format("hinge{}", k),
                       .type = JointType::kHinge,
                       .axis = axes[k % 3],
                       .damping = 0.05,
                       .armature = 0.01});
    parent = name;
  }
  return b.build();
}

}  // namespace zwang::bench
