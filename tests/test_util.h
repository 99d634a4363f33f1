// Helpers shared by the tests: seeded random states, batch fields as Eigen objects, errors.
#pragma once

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "host/batch/instance_view.hpp"
#include "host/model/arrays.hpp"
#include "kernels/instance.h"
#include "zwang/batch.hpp"
#include "zwang/examples.hpp"
#include "zwang/model.hpp"
#include "zwang/simulator.hpp"

// AddressSanitizer instruments this build: about ten times slower, so the tests whose size buys
// confidence rather than coverage run on fewer instances or orders under it (scripts/test.sh)
#if defined(__SANITIZE_ADDRESS__)
#define ZW_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ZW_SANITIZED 1
#endif
#endif

namespace zwang::test {

#ifdef ZW_SANITIZED
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif

// a random configuration and velocity of a model
struct RandomState {
  Eigen::VectorXd qpos, qvel, ctrl;
};

inline RandomState random_state(const Model& m, std::mt19937& rng, double speed = 1.0) {
  std::uniform_real_distribution<double> angle(-3.14159, 3.14159), offset(-0.3, 0.3), unit(-1, 1);
  std::normal_distribution<double> normal(0, 1);
  RandomState s{Eigen::VectorXd(m.nq), Eigen::VectorXd(m.nv), Eigen::VectorXd(m.nu)};
  for (int j = 0; j < m.njnt; ++j) {
    int qa = m.jnt_qposadr[j];
    switch (m.jnt_type[j]) {
      case JointType::kFree:
        for (int i = 0; i < 3; ++i) s.qpos[qa + i] = unit(rng);
        qa += 3;
        [[fallthrough]];
      case JointType::kBall: {
        Eigen::Vector4d q(normal(rng), normal(rng), normal(rng), normal(rng));
        s.qpos.segment<4>(qa) = q.normalized();
        break;
      }
      case JointType::kHinge:
        s.qpos[qa] = angle(rng);
        break;
      default:
        s.qpos[qa] = offset(rng);
        break;
    }
  }
  for (int i = 0; i < m.nv; ++i) s.qvel[i] = speed * normal(rng);
  for (int i = 0; i < m.nu; ++i) s.ctrl[i] = 1.5 * unit(rng);
  return s;
}

template <class T>
Eigen::VectorXd get(FieldRef<T> f, std::int64_t i) {
  const std::vector<T> v = f.get(i);
  Eigen::VectorXd out(v.size());
  for (std::size_t j = 0; j < v.size(); ++j) out[j] = static_cast<double>(v[j]);
  return out;
}

template <class T>
void set(FieldRef<T> f, std::int64_t i, const Eigen::VectorXd& v) {
  std::vector<T> values(v.size());
  for (Eigen::Index j = 0; j < v.size(); ++j) values[j] = static_cast<T>(v[j]);
  f.set(i, values);
}

// a random state set into each instance of `sim` (qpos and qvel; ctrl stays as it is)
inline std::vector<RandomState> set_random_states(Simulator<double>& sim, std::mt19937& rng,
                                                  double speed = 1.0) {
  std::vector<RandomState> states;
  for (std::int64_t i = 0; i < sim.size(); ++i) {
    states.push_back(random_state(sim.model(), rng, speed));
    set(sim.batch().qpos(), i, states.back().qpos);
    set(sim.batch().qvel(), i, states.back().qvel);
  }
  return states;
}

// the symmetric matrix from a packed lower triangle
inline Eigen::MatrixXd unpack(const Eigen::VectorXd& packed, int n) {
  Eigen::MatrixXd a(n, n);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j <= i; ++j) a(i, j) = a(j, i) = packed[i * (i + 1) / 2 + j];
  }
  return a;
}

// the same values (−0 equals +0: the state hashes compare the bytes), NaN where NaN
inline bool same_bits(const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
  return a.size() == b.size() &&
         ((a.array() == b.array()) || (a.array().isNaN() && b.array().isNaN())).all();
}

// max |a − b| / max(1, max |b|): relative to the reference's scale, safe for zero entries
inline double relative_error(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
  if (b.size() == 0) return 0;
  return (a - b).cwiseAbs().maxCoeff() / std::max(1.0, b.cwiseAbs().maxCoeff());
}

// the message of the `Error` that `f` throws; "(no error)" when it throws none, and any other
// exception goes on to fail the test
template <class Error = ModelError>
std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

// the examples the tests run on, by name
struct Example {
  std::string name;
  Model model;
};

inline std::vector<Example> all_examples() {
  return {{"pendulum", examples::pendulum()},
          {"double_pendulum", examples::double_pendulum()},
          {"chain8", examples::chain()},
          {"chain8_damped_actuated",
           examples::chain({.damping = 0.3, .stiffness = 2, .armature = 0.05, .actuators = true})},
          {"cart_pole", examples::cart_pole()},
          {"floating_base", examples::floating_base()},
          {"ball_chain", examples::ball_chain()}};
}

// one instance with its own scratch, for calling the kernels/ stages directly
struct SingleInstance {
  explicit SingleInstance(const Model& m)
      : arrays(m), view(arrays.view()), batch(m, 1), work(batch.layout().work_rows) {}
  Instance<double> instance() { return instance_view(batch, view, 0, work.data()); }
  Eigen::VectorXd scratch(int offset, int count) const {
    return Eigen::Map<const Eigen::VectorXd>(work.data() + offset, count);
  }
  ModelArrays<double> arrays;
  ModelView<double> view;
  Batch<double> batch;
  std::vector<double> work;

  // J_k (6 x nv) of body b after body_jacobians(): the stored columns of a body with joints; a
  // body without joints has none, and its J_k is [v + ω × c_k; ω] of the dof axes [v; ω] at
  // the world origin (cdof) and its COM c_k
  Eigen::MatrixXd body_jacobian(const Model& m, int b) const {
    Eigen::MatrixXd j = Eigen::MatrixXd::Zero(6, m.nv);
    const Eigen::VectorXd cols = scratch(batch.layout().body_J, 6 * m.sizes().njac);
    const Eigen::VectorXd cdof = scratch(batch.layout().cdof, 6 * m.nv);
    const std::vector<double> xipos = batch.xipos().get(0);
    const Eigen::Vector3d c(xipos[3 * b], xipos[3 * b + 1], xipos[3 * b + 2]);
    for (int t = 0; t < m.body_treenum[b]; ++t) {
      const int adr = m.body_treeadr[b] + t, dof = m.tree_dof[adr];
      if (m.body_jntnum[b] > 0) {
        j.col(dof) = cols.segment<6>(6 * adr);
      } else {
        const Eigen::Vector3d v = cdof.segment<3>(6 * dof), w = cdof.segment<3>(6 * dof + 3);
        j.col(dof) << v + w.cross(c), w;
      }
    }
    return j;
  }
};

}  // namespace zwang::test
