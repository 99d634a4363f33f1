// The URDF robots of tests/data/urdf loaded by zwang and, independently, by MuJoCo 2.2.2's own URDF
// importer (mj_loadXML): same tree, same joint order and limits, and the same H, qfrc_bias,
// qfrc_passive, q̈ and body frames at 20 random states.  MuJoCo's copy of each file gets
//   <mujoco><compiler fusestatic="false" discardvisual="true"/></mujoco>
// so that bodies welded by fixed joints stay bodies and can be compared one to one (the _fused
// cases give both importers fusestatic, MuJoCo's default, and zwang's fuse_static); the
// floating base is written for MuJoCo as a floating joint from a link "world", which is how a
// URDF file says it (zwang loads that form the same way, see test_urdf.cc).
//
// The lenient cases, where both importers mean the same: pybullet's static base of mass 0 and
// its lower > upper "no limit"; rounding noise in tensors (MuJoCo bounds principal moments below
// by 0, zwang sets rounding-level negative ones to 0); welded chains of massless links; and
// tensors that break A + B ≥ C, which MuJoCo refuses unless its compiler balances them
// (balanceinertia), compared with zwang's balance_inertia option.  What MuJoCo refuses and
// Pinocchio takes is checked against Pinocchio (test_urdf_pinocchio.cc).
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <mujoco/mujoco.h>

#include <Eigen/Geometry>
#include <algorithm>
#include <array>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "mujoco_util.h"
#include "test_util.h"
#include "urdf/urdf_files.h"
#include "zwang/loaders.hpp"
#include "zwang/simulator.hpp"

namespace zwang::test {
namespace {

constexpr int kStates = 20;

// MuJoCo's copy of a URDF file: static bodies kept; a floating root as a floating joint from
// the link "world"
std::string for_mujoco(std::string urdf, const std::string& floating_root,
                       const std::string& compiler = "", bool fuse = false) {
  const std::size_t at = urdf.find('>', urdf.find("<robot")) + 1;
  std::string extra = fmt::format(R"(
  <mujoco><compiler fusestatic="{}" discardvisual="true" {}/></mujoco>)",
                                  fuse, compiler);
  if (!floating_root.empty()) {
    extra += fmt::format(R"(
  <link name="world"/>
  <joint name="floating_base" type="floating">
    <parent link="world"/>
    <child link="{}"/>
  </joint>)",
                         floating_root);
  }
  urdf.insert(at, extra);
  return urdf;
}

// MuJoCo's model of a robot of tests/data/urdf
MjModelPtr mujoco_load(const std::string& robot, const std::string& floating_root,
                       std::string* error, const std::string& compiler = "", bool fuse = false) {
  return load_mujoco_string(for_mujoco(read_text(urdf_file(robot)), floating_root, compiler, fuse),
                            "robot.urdf", error);
}

struct Case {
  std::string label;
  std::string robot;
  std::string floating_root;  // empty: the file's own root
  double tolerance;
  bool balance_inertia = false;  // zwang's option, and MuJoCo's balanceinertia
  bool fuse_static = false;      // zwang's option, and MuJoCo's fusestatic (its importer's default)
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.label;
}

// 1e-9 where every URDF inertia tensor is diagonal in its inertial frame (measured: 1e-14, and
// 1e-10 for rounding_noise's rotated rod).  tree.urdf and pybullet_base.urdf have full tensors:
// MuJoCo diagonalises each one when it compiles the model and keeps the principal moments and axes;
// its 3x3 Jacobi eigen-decomposition finds the moments to 1e-12 but axes that rebuild the tensor
// only to 6e-7 of its size for right_forearm (see FullInertiaErrorIsMujocosEigenDecomposition).
// zwang keeps R I Rᵀ as computed (test_urdf.cc checks it to rounding).  H, h and q̈ then differ by
// 4e-8 (measured), hence 1e-6 for these robots.
const std::vector<Case> kCases = {
    {"serial_arm", "serial_arm", "", 1e-9},
    {"mobile_base_welded", "mobile_base", "", 1e-9},
    {"mobile_base_floating", "mobile_base", "chassis", 1e-9},
    {"tree_full_inertia", "tree", "", 1e-6},
    {"pybullet_base", "pybullet_base", "", 1e-6},
    {"rounding_noise", "rounding_noise", "", 1e-9},
    {"massless_fixed_chain", "massless_fixed_chain", "", 1e-9},
    {"triangle_inequality_balanced", "triangle_inequality", "", 1e-9, true},
    // links on fixed joints merged: MuJoCo diagonalises each joined inertia
    {"serial_arm_fused", "serial_arm", "", 1e-6, false, true},
    {"mobile_base_welded_fused", "mobile_base", "", 1e-6, false, true},
    {"mobile_base_floating_fused", "mobile_base", "chassis", 1e-6, false, true},
    {"tree_full_inertia_fused", "tree", "", 1e-6, false, true},
    {"pybullet_base_fused", "pybullet_base", "", 1e-6, false, true},
    {"massless_fixed_chain_fused", "massless_fixed_chain", "", 1e-6, false, true},
};

Eigen::Matrix3d tensor(const Model& z, int b) {
  const double* i = &z.body_inertia[6 * b];
  Eigen::Matrix3d t;
  t << i[0], i[3], i[4], i[3], i[1], i[5], i[4], i[5], i[2];
  return t;
}

// R diag(moments) Rᵀ from a quaternion and principal moments
Eigen::Matrix3d rebuild(const double* quat, const double* moments) {
  const Eigen::Matrix3d r =
      Eigen::Quaterniond(quat[0], quat[1], quat[2], quat[3]).toRotationMatrix();
  return r * Eigen::Vector3d(moments[0], moments[1], moments[2]).asDiagonal() * r.transpose();
}

class UrdfMujoco : public ::testing::TestWithParam<Case> {};

// a merged link's frame, centre of mass and cvel (Model::fused_*, zwang::derive) are those of
// the same link in MuJoCo's import without merging
class UrdfMujocoMerged : public ::testing::TestWithParam<Case> {};

TEST_P(UrdfMujocoMerged, MergedLinksAreWhereMujocosUnmergedBodiesAre) {
  const Case& c = GetParam();
  const Model z = load_urdf(urdf_file(c.robot), {.floating_base = !c.floating_root.empty(),
                                                 .balance_inertia = c.balance_inertia,
                                                 .fuse_static = true})
                      .model;
  std::string error;
  const MjModelPtr m = mujoco_load(c.robot, c.floating_root, &error,
                                   c.balance_inertia ? R"(balanceinertia="true")" : "", false);
  ASSERT_TRUE(m) << c.label << ": " << error;
  expect_fused_as_mujoco_bodies(z, m.get(), 1e-12, c.label, false);
}

TEST_P(UrdfMujoco, SameTreeAndDynamicsAsMujocosImporter) {
  const Case& c = GetParam();
  Model z = load_urdf(urdf_file(c.robot), {.floating_base = !c.floating_root.empty(),
                                           .balance_inertia = c.balance_inertia,
                                           .fuse_static = c.fuse_static})
                .model;
  // the smooth dynamics, as in MuJoCo (load_mujoco)
  z.disableflags |= kDisableConstraint;
  std::string error;
  const MjModelPtr m =
      mujoco_load(c.robot, c.floating_root, &error,
                  c.balance_inertia ? R"(balanceinertia="true")" : "", c.fuse_static);
  ASSERT_TRUE(m) << c.label << ": " << error;

  // the same bodies with the same parents, and the same joints in the same order: both walk
  // the tree depth-first with the children of a link in the document order of their joints,
  // so no permutation is needed
  ASSERT_NO_FATAL_FAILURE(expect_same_tree(z, m.get())) << c.label;
  for (int b = 1; b < z.nbody; ++b) {
    EXPECT_NEAR(z.body_mass[b], m->body_mass[b], 1e-15) << c.label << " body " << b;
  }
  for (int j = 0; j < z.njnt; ++j) {
    EXPECT_EQ(z.jnt_name[j], mj_id2name(m.get(), mjOBJ_JOINT, j)) << c.label << " joint " << j;
    EXPECT_EQ(z.jnt_limited[j], m->jnt_limited[j]) << c.label << " joint " << j;
    if (z.jnt_limited[j]) {
      EXPECT_EQ(z.jnt_range[2 * j], m->jnt_range[2 * j]) << c.label << " joint " << j;
      EXPECT_EQ(z.jnt_range[2 * j + 1], m->jnt_range[2 * j + 1]) << c.label << " joint " << j;
    }
  }
  for (int i = 0; i < z.nv; ++i) {
    EXPECT_EQ(z.dof_damping[i], m->dof_damping[i]) << c.label << " dof " << i;
    EXPECT_EQ(z.dof_frictionloss[i], m->dof_frictionloss[i]) << c.label << " dof " << i;
  }

  // MuJoCo's principal moments and axes, R diag(I) Rᵀ, against zwang's tensor in the body frame,
  // each relative to its size or, for a tensor of rounding noise (rounding_noise's ankle), to
  // 1e-6 of the largest in the model
  double largest = 0;
  for (int b = 1; b < z.nbody; ++b) largest = std::max(largest, tensor(z, b).norm());
  double worst_tensor = 0;
  for (int b = 1; b < z.nbody; ++b) {
    const Eigen::Matrix3d mj = rebuild(m->body_iquat + 4 * b, m->body_inertia + 3 * b);
    const Eigen::Matrix3d zw = tensor(z, b);
    const double e = (zw - mj).norm() / std::max({zw.norm(), 1e-6 * largest, 1e-300});
    worst_tensor = std::max(worst_tensor, e);
    EXPECT_LE(e, c.tolerance) << c.label << " body " << z.body_name[b] << ": inertia tensor";
  }
  ::testing::Test::RecordProperty("max_rel_inertia", fmt::format("{:.3g}", worst_tensor));
  std::cout << fmt::format(
      "[ info     ] {}: largest relative difference of the inertia tensors from MuJoCo's {:.3g}\n",
      c.label, worst_tensor);

  std::mt19937 rng(17);
  Simulator<double> sim(z, kStates);
  const std::vector<RandomState> states = set_random_states(sim, rng);
  sim.forward();
  ASSERT_TRUE(sim.failures().empty()) << c.label << ": " << sim.failures().front().message();

  // the COM of a massless body means nothing, and MuJoCo puts it at the body's offset from its
  // parent (tool0 of serial_arm): xipos is compared on bodies with mass
  const auto massive = [&](std::vector<double> xipos) {
    for (int b = 0; b < z.nbody; ++b) {
      if (z.body_mass[b] == 0) std::fill_n(xipos.begin() + 3 * b, 3, 0.0);
    }
    return xipos;
  };
  const MjDataPtr d(mj_makeData(m.get()));
  const int nv = z.nv, nbody = z.nbody;
  std::vector<double> dense(static_cast<std::size_t>(nv) * nv);
  const double tol = c.tolerance;
  Comparison cmp(c.label);
  auto& batch = sim.batch();
  for (int i = 0; i < kStates; ++i) {
    set_state(m.get(), d.get(), states[i]);
    mj_forward(m.get(), d.get());
    mj_fullM(m.get(), dense.data(), d->qM);
    cmp.check("qM", i, unpack(batch.qM().get(i), nv), dense, tol);
    cmp.check("qfrc_bias", i, batch.qfrc_bias().get(i), view(d->qfrc_bias, nv), tol);
    cmp.check("qfrc_passive", i, batch.qfrc_passive().get(i), view(d->qfrc_passive, nv), tol);
    cmp.check("qacc", i, batch.qacc().get(i), view(d->qacc, nv), tol);
    cmp.check("xpos", i, batch.xpos().get(i), view(d->xpos, 3 * nbody), tol);
    cmp.check("xquat", i, align_quats(batch.xquat().get(i), view(d->xquat, 4 * nbody)),
              view(d->xquat, 4 * nbody), tol);
    cmp.check("xipos", i, massive(batch.xipos().get(i)), massive({d->xipos, d->xipos + 3 * nbody}),
              tol);
  }
}

// The reason for tree_full_inertia's tolerance: right_forearm's inertial frame is its link
// frame, so zwang's tensor is the file's; MuJoCo's compiled tensor is what mju_eig3 makes of it,
// to rounding, and that is 6e-7 away from it, where Eigen's eigen-solver rebuilds it to 1e-15.
TEST(UrdfMujoco, FullInertiaErrorIsMujocosEigenDecomposition) {
  const Model z = load_urdf(urdf_file("tree")).model;
  std::string error;
  const MjModelPtr m = mujoco_load("tree", "", &error);
  ASSERT_TRUE(m) << error;
  const int b = z.id(ObjType::kBody, "right_forearm");
  ASSERT_EQ(b, mj_name2id(m.get(), mjOBJ_BODY, "right_forearm"));
  const Eigen::Matrix3d file = tensor(z, b);

  std::array<double, 9> mat{}, vectors{};
  std::array<double, 3> moments{};
  std::array<double, 4> quat{};
  Eigen::Map<Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>(mat.data()) = file;
  mju_eig3(moments.data(), vectors.data(), quat.data(), mat.data());
  const Eigen::Matrix3d eig3 = rebuild(quat.data(), moments.data());
  const Eigen::Matrix3d compiled = rebuild(m->body_iquat + 4 * b, m->body_inertia + 3 * b);
  const Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> eigen(file);
  const Eigen::Matrix3d exact =
      eigen.eigenvectors() * eigen.eigenvalues().asDiagonal() * eigen.eigenvectors().transpose();

  const double norm = file.norm();
  EXPECT_LE((compiled - eig3).norm() / norm, 1e-14);
  EXPECT_LE((exact - file).norm() / norm, 1e-14);
  const double eig3_error = (eig3 - file).norm() / norm;
  EXPECT_LE(eig3_error, 1e-6);
  ::testing::Test::RecordProperty("mju_eig3_rel_error", fmt::format("{:.3g}", eig3_error));
  std::cout << fmt::format("[ info     ] mju_eig3 rebuilds right_forearm's tensor to {:.3g}\n",
                           eig3_error);
}

// what MuJoCo 2.2.2's importer refuses and zwang takes as Pinocchio does (the dynamics are
// checked against Pinocchio in test_urdf_pinocchio.cc)
TEST(UrdfMujoco, RefusesWhatPinocchioTakes) {
  const std::pair<const char*, const char*> refused[] = {
      {"triangle_inequality", "inertia must satisfy A + B >= C"},
      {"massless_universal", "mass and inertia of moving bodies must be larger than mjMINVAL"},
  };
  for (const auto& [robot, why] : refused) {
    std::string error;
    EXPECT_FALSE(mujoco_load(robot, "", &error)) << robot;
    EXPECT_NE(error.find(why), std::string::npos) << robot << ": " << error;
    EXPECT_GT(load_urdf(urdf_file(robot)).model.nv, 0) << robot;
  }
}

INSTANTIATE_TEST_SUITE_P(Robots, UrdfMujoco, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return info.param.label;
                         });

// the cases that merge links
std::vector<Case> merged_cases() {
  std::vector<Case> out;
  for (const Case& c : kCases) {
    if (c.fuse_static) out.push_back(c);
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(Robots, UrdfMujocoMerged, ::testing::ValuesIn(merged_cases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return info.param.label;
                         });

}  // namespace
}  // namespace zwang::test
