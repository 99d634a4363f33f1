// MuJoCo's side of the cross-checks (test_mujoco.cc, test_mjcf.cc, urdf/test_urdf_mujoco.cc,
// test_cli.cc): models compiled by MuJoCo with the constraint solver off, states set into
// mjData, and the Comparison of zwang's arrays with MuJoCo's.
#pragma once

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <mujoco/mujoco.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <numbers>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "test_util.h"
#include "zwang/derived.hpp"
#include "zwang/loaders.hpp"
#include "zwang/model.hpp"
#include "zwang/simulator.hpp"

namespace zwang::test {

struct MjModelDeleter {
  void operator()(mjModel* m) const { mj_deleteModel(m); }
};
struct MjDataDeleter {
  void operator()(mjData* d) const { mj_deleteData(d); }
};
using MjModelPtr = std::unique_ptr<mjModel, MjModelDeleter>;
using MjDataPtr = std::unique_ptr<mjData, MjDataDeleter>;

// zwang reads a file as MuJoCo 2.2.2 does (docs/mjcf.md, "MuJoCo 2.2.2's rules") where it is
// compared with MuJoCo 2.2.2
inline const LoadOptions kMujoco2{.rules = Rules::kMujoco2};

// MuJoCo's model of an MJCF or URDF file, with the constraint solver (contacts, joint limits,
// friction loss) off, as zwang has none yet.  Null with MuJoCo's message in `error` when
// loading fails.
inline MjModelPtr load_mujoco(const std::filesystem::path& file, std::string* error,
                              const mjVFS* vfs = nullptr) {
  std::array<char, 1024> message{};
  MjModelPtr m(mj_loadXML(file.c_str(), vfs, message.data(), static_cast<int>(message.size())));
  if (!m) {
    *error = fmt::format("{}: {}", file.string(), message.data());
    return nullptr;
  }
  m->opt.disableflags |= mjDSBL_CONSTRAINT;
  return m;
}

// the same for text, as the virtual file `name` (its extension tells MJCF from URDF); the text
// is on no disk, so a failure's message ends with it
inline MjModelPtr load_mujoco_string(const std::string& text, const std::string& name,
                                     std::string* error) {
  // an mjVFS holds its file names inline, megabytes: too large for the stack
  auto vfs = std::make_unique<mjVFS>();
  mj_defaultVFS(vfs.get());
  if (mj_makeEmptyFileVFS(vfs.get(), name.c_str(), static_cast<int>(text.size())) != 0) {
    *error = "cannot make a virtual file";
    return nullptr;
  }
  std::memcpy(vfs->filedata[mj_findFileVFS(vfs.get(), name.c_str())], text.data(), text.size());
  MjModelPtr m = load_mujoco(name, error, vfs.get());
  mj_deleteVFS(vfs.get());
  if (!m) *error += "\n" + text;
  return m;
}

// the installed gymnasium package's directory, empty if python3 cannot import it
inline std::string gymnasium_dir() {
  static const std::string dir = [] {
    std::string out;
    FILE* pipe = popen(
        "python3 -c \"import gymnasium, os; print(os.path.dirname(gymnasium.__file__))\" "
        "2>/dev/null",
        "r");
    if (pipe == nullptr) return out;
    std::array<char, 512> buffer{};
    while (std::fgets(buffer.data(), buffer.size(), pipe) != nullptr) out += buffer.data();
    pclose(pipe);
    while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
    return out;
  }();
  return dir;
}

// the same tree: sizes, body names and parents, joint types and addresses.  Callers wrap it in
// ASSERT_NO_FATAL_FAILURE: nothing else can be compared when the sizes differ.
inline void expect_same_tree(const Model& z, const mjModel* m) {
  ASSERT_EQ(z.nq, m->nq);
  ASSERT_EQ(z.nv, m->nv);
  ASSERT_EQ(z.nu, m->nu);
  ASSERT_EQ(z.nbody, m->nbody);
  ASSERT_EQ(z.njnt, m->njnt);
  for (int b = 1; b < z.nbody; ++b) {
    // MuJoCo leaves unnamed bodies nameless; zwang names them
    if (const char* name = mj_id2name(m, mjOBJ_BODY, b)) {
      EXPECT_EQ(z.body_name[b], name) << "body " << b;
    }
    EXPECT_EQ(z.body_parentid[b], m->body_parentid[b]) << "body " << b;
  }
  for (int j = 0; j < z.njnt; ++j) {
    EXPECT_EQ(static_cast<int>(z.jnt_type[j]), m->jnt_type[j]) << "joint " << j;
    EXPECT_EQ(z.jnt_qposadr[j], m->jnt_qposadr[j]) << "joint " << j;
    EXPECT_EQ(z.jnt_dofadr[j], m->jnt_dofadr[j]) << "joint " << j;
  }
}

// MuJoCo's RK4 treats the velocities of these joints as Euclidean, zwang's does not: the two
// single steps differ by more than rounding (test_mujoco.cc, check_rk4_on_rotations)
inline bool has_rotation_joint(const Model& model) {
  return std::any_of(model.jnt_type.begin(), model.jnt_type.end(),
                     [](JointType t) { return t == JointType::kBall || t == JointType::kFree; });
}

// hinges in [-π, π], slides in [-0.3, 0.3], free positions in [-1, 1]³, uniformly random unit
// quaternions; q̇ ~ N(0, 1) per dof; controls in [-1.5, 1.5], beyond most ctrlranges
inline std::vector<State> random_states(const Model& model, int count, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> angle(-std::numbers::pi, std::numbers::pi);
  std::uniform_real_distribution<double> slide(-0.3, 0.3), position(-1, 1), control(-1.5, 1.5);
  std::normal_distribution<double> normal(0, 1);
  auto unit_quat = [&](double* q) {
    double n = 0;
    for (int i = 0; i < 4; ++i) {
      q[i] = normal(rng);
      n += q[i] * q[i];
    }
    for (int i = 0; i < 4; ++i) q[i] /= std::sqrt(n);
  };
  std::vector<State> states(count);
  for (State& s : states) {
    s.qpos.assign(model.nq, 0);
    for (int j = 0; j < model.njnt; ++j) {
      double* q = s.qpos.data() + model.jnt_qposadr[j];
      switch (model.jnt_type[j]) {
        case JointType::kFree:
          for (int i = 0; i < 3; ++i) q[i] = position(rng);
          unit_quat(q + 3);
          break;
        case JointType::kBall:
          unit_quat(q);
          break;
        case JointType::kSlide:
          *q = slide(rng);
          break;
        case JointType::kHinge:
          *q = angle(rng);
          break;
        case JointType::kFixed:
          break;
      }
    }
    s.qvel.resize(model.nv);
    for (double& v : s.qvel) v = normal(rng);
    s.ctrl.resize(model.nu);
    for (double& u : s.ctrl) u = control(rng);
  }
  return states;
}

// a batch with one instance per state
inline std::unique_ptr<Simulator<double>> simulator(const Model& model,
                                                    const std::vector<State>& states) {
  auto sim = std::make_unique<Simulator<double>>(model, std::ssize(states));
  for (std::size_t i = 0; i < states.size(); ++i) {
    sim->batch().qpos().set(i, states[i].qpos);
    sim->batch().qvel().set(i, states[i].qvel);
    sim->batch().ctrl().set(i, states[i].ctrl);
  }
  return sim;
}

// a State or a RandomState into d, everything else as after mj_resetData
template <class S>
void set_state(const mjModel* m, mjData* d, const S& s) {
  mj_resetData(m, d);
  std::copy(s.qpos.begin(), s.qpos.end(), d->qpos);
  std::copy(s.qvel.begin(), s.qvel.end(), d->qvel);
  std::copy(s.ctrl.begin(), s.ctrl.end(), d->ctrl);
}

// MuJoCo's array of `size` values at `data`, as Comparison::check takes it
inline std::span<const double> view(const double* data, int size) {
  return {data, static_cast<std::size_t>(size)};
}

// zwang's qM, the lower triangle of H packed as qM[i (i + 1) / 2 + j] = H(i, j) for j ≤ i
// (kernels/layout.h), as the dense H that mj_fullM writes: row-major, which for a symmetric H
// is column-major too
inline std::vector<double> unpack(const std::vector<double>& packed, int nv) {
  const Eigen::MatrixXd h =
      unpack(Eigen::Map<const Eigen::VectorXd>(packed.data(), std::ssize(packed)), nv);
  return {h.data(), h.data() + h.size()};
}

// zwang's body quaternions with the sign of MuJoCo's (q and −q are the same rotation)
inline std::vector<double> align_quats(std::vector<double> zw, std::span<const double> mj) {
  for (std::size_t b = 0; b + 3 < zw.size(); b += 4) {
    double dot = 0;
    for (int i = 0; i < 4; ++i) dot += zw[b + i] * mj[b + i];
    if (dot < 0) {
      for (int i = 0; i < 4; ++i) zw[b + i] = -zw[b + i];
    }
  }
  return zw;
}

// The bodies that zwang merged at load (Model::fused_*) against the same bodies of `m`, MuJoCo's
// model of the same file compiled without merging (same joints in the same order): names and
// masses, then at random states what zwang::derive gives of them (frames, centres of mass of
// bodies with mass, velocities) against mj_forward's xpos, xquat (up to sign), xmat, xipos and
// mj_objectVelocity's of the frame (mjOBJ_XBODY, world axes).  `massless_xipos`: compare the
// centres of mass of merged bodies without mass too (MuJoCo's URDF importer puts those of
// massless links elsewhere, and there they mean nothing).
inline void expect_fused_as_mujoco_bodies(const Model& z, const mjModel* m, double tol,
                                          const std::string& label, bool massless_xipos = true) {
  ASSERT_GT(z.nfused, 0) << label;
  ASSERT_EQ(z.nbody + z.nfused, m->nbody) << label;
  ASSERT_EQ(z.nq, m->nq) << label;
  for (int j = 0; j < z.njnt; ++j) {
    ASSERT_EQ(z.jnt_qposadr[j], m->jnt_qposadr[j]) << label << " joint " << j;
    if (const char* name = mj_id2name(m, mjOBJ_JOINT, j)) {
      ASSERT_EQ(z.jnt_name[j], name) << label << " joint " << j;
    }
  }
  std::vector<int> id(z.nfused);
  for (int f = 0; f < z.nfused; ++f) {
    ASSERT_FALSE(z.fused_name[f].empty()) << label << ": merged body " << f << " has no name";
    id[f] = mj_name2id(m, mjOBJ_BODY, z.fused_name[f].c_str());
    ASSERT_GT(id[f], 0) << label << ": MuJoCo has no body '" << z.fused_name[f] << "'";
    EXPECT_NEAR(z.fused_mass[f], m->body_mass[id[f]], 1e-12 * std::max(1.0, m->body_mass[id[f]]))
        << label << " " << z.fused_name[f];
  }
  constexpr int kStates = 12;
  const std::vector<State> states = random_states(z, kStates, 23);
  const auto sim = simulator(z, states);
  sim->forward();
  const auto derived = [&](Derived what) {
    std::vector<double> out(static_cast<std::size_t>(kStates) * derived_size(z, what));
    derive<double>(z, sim->batch(), what, out);
    return out;
  };
  const std::vector<double> xpos = derived(Derived::kFusedXpos);
  const std::vector<double> xquat = derived(Derived::kFusedXquat);
  const std::vector<double> xmat = derived(Derived::kFusedXmat);
  const std::vector<double> xipos = derived(Derived::kFusedXipos);
  const std::vector<double> vel = derived(Derived::kFusedVel);
  const MjDataPtr d(mj_makeData(m));
  const int nf = z.nfused;
  for (int i = 0; i < kStates; ++i) {
    set_state(m, d.get(), states[i]);
    mj_forward(m, d.get());
    for (int f = 0; f < nf; ++f) {
      const int b = id[f];
      const std::string at = fmt::format("{} instance {} '{}'", label, i, z.fused_name[f]);
      for (int k = 0; k < 3; ++k) {
        EXPECT_NEAR(xpos[(i * nf + f) * 3 + k], d->xpos[3 * b + k], tol) << at << " xpos";
        if (massless_xipos || z.fused_mass[f] > 0) {
          EXPECT_NEAR(xipos[(i * nf + f) * 3 + k], d->xipos[3 * b + k], tol) << at << " xipos";
        }
      }
      double sign = 0;
      for (int k = 0; k < 4; ++k) sign += xquat[(i * nf + f) * 4 + k] * d->xquat[4 * b + k];
      for (int k = 0; k < 4; ++k) {
        EXPECT_NEAR(std::copysign(1.0, sign) * xquat[(i * nf + f) * 4 + k], d->xquat[4 * b + k],
                    tol)
            << at << " xquat";
      }
      for (int k = 0; k < 9; ++k) {
        EXPECT_NEAR(xmat[(i * nf + f) * 9 + k], d->xmat[9 * b + k], tol) << at << " xmat";
      }
      mjtNum v[6];
      mj_objectVelocity(m, d.get(), mjOBJ_XBODY, b, v, 0);
      for (int k = 0; k < 6; ++k) {
        EXPECT_NEAR(vel[(i * nf + f) * 6 + k], v[k], tol) << at << " velocity";
      }
    }
  }
}

// Checks |zw_i − mj_i| ≤ tol_i max(1, max |mj|) for each element of a quantity and, when that
// fails, names the label, the state and the element farthest beyond its tolerance.  Keeps the
// largest relative error of each quantity; its destructor prints them on one line and records
// them as test properties (--gtest_output=xml).
class Comparison {
 public:
  // errors of elements checked to a tolerance above `exact` are kept apart, as <quantity>_diag
  // (in test_mjcf.cc those depend on an inertia that MuJoCo diagonalised)
  explicit Comparison(std::string label, double exact = std::numeric_limits<double>::infinity())
      : label_(std::move(label)), exact_(exact) {}
  Comparison(const Comparison&) = delete;
  Comparison& operator=(const Comparison&) = delete;
  ~Comparison() {
    std::string line = label_ + ":";
    for (const auto& [quantity, error] : largest_) {
      line += fmt::format(" {} {:.2g}", quantity, error);
    }
    std::cout << line << "\n";
    for (const auto& [quantity, error] : largest_) {
      ::testing::Test::RecordProperty("max_rel_" + quantity, fmt::format("{:.3g}", error));
    }
  }

  // tolerances are positive; an infinite one leaves its element out of the check, not of the
  // scale
  void check(std::string_view quantity, int state, std::span<const double> zw,
             std::span<const double> mj, std::span<const double> tol) {
    ASSERT_EQ(zw.size(), mj.size()) << label_ << " " << quantity;
    ASSERT_EQ(tol.size(), mj.size()) << label_ << " " << quantity;
    double scale = 1;
    for (double v : mj) scale = std::max(scale, std::abs(v));
    std::size_t at = mj.size();
    double worst = 0;  // the error over the tolerance at `at`
    for (std::size_t i = 0; i < mj.size(); ++i) {
      if (std::isinf(tol[i])) continue;
      double e = std::abs(zw[i] - mj[i]) / scale;
      if (std::isnan(e)) e = std::numeric_limits<double>::infinity();
      double& largest = largest_[fmt::format("{}{}", quantity, tol[i] > exact_ ? "_diag" : "")];
      largest = std::max(largest, e);
      if (at == mj.size() || e / tol[i] > worst) {
        at = i;
        worst = e / tol[i];
      }
    }
    if (at == mj.size()) return;
    const double e = std::abs(zw[at] - mj[at]) / scale;
    EXPECT_LE(e, tol[at]) << fmt::format(
        "{} state {}: {}[{}] zwang {:.17g} MuJoCo {:.17g}, relative error {:.3g} (scale {:.3g})",
        label_, state, quantity, at, zw[at], mj[at], e, scale);
  }
  void check(std::string_view quantity, int state, std::span<const double> zw,
             std::span<const double> mj, double tol) {
    check(quantity, state, zw, mj, std::vector<double>(mj.size(), tol));
  }

 private:
  std::string label_;
  double exact_;
  std::map<std::string, double> largest_;
};

}  // namespace zwang::test
