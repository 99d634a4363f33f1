// The MJCF loader against MuJoCo 2.2.2.  Every model of tests/data/models/, MuJoCo's humanoid.xml
// and mug.xml and ten Gymnasium v5 models are loaded by both; the compiled trees must agree (sizes,
// addresses, qpos0, springs, limits, masses, inertias, actuators, tendons) and so must the
// dynamics at 20 seeded random states (mj_forward with constraints disabled) and one step of
// Euler (and of RK4 where there is no ball or free joint, see test_mujoco.cc for why).
//
// Tolerance, body by body (max |zwang − MuJoCo| / max(1, max |MuJoCo|)):
//   1e-9  where MuJoCo copies a body's inertia as written: one geom, or an <inertial> with
//         diaginertia (an exact diagonal in a given frame);
//   1e-6  where MuJoCo diagonalises it: several geoms combined about the COM, fullinertia, or a
//         mesh (the mug's).
//         MuJoCo's 3×3 eigen-solver stops near 1e-7 relative; zwang keeps the full tensor.
// An entry of H or h takes the class of the bodies below the deeper of its dofs; q̈ and the
// steps take the worst class of the moving bodies.  Kinematics (xpos, xquat, tendon lengths)
// and joint-space forces (passive, actuator) do not involve inertia: 1e-9 always.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>
#include <mujoco/mujoco.h>
#include <unistd.h>

#include <Eigen/Dense>
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <list>
#include <numbers>
#include <pugixml.hpp>
#include <span>
#include <string>
#include <vector>

#include "data_dir.h"
#include "mujoco_util.h"
#include "zwang/loaders.hpp"
#include "zwang/model.hpp"
#include "zwang/simulator.hpp"

namespace zwang::test {
namespace {

namespace fs = std::filesystem;

constexpr double kExact = 1e-9;
constexpr double kDiagonalised = 1e-6;
constexpr int kStates = 20;

fs::path test_dir() {
  return data_dir();
}

struct Case {
  std::string name;
  fs::path file;    // empty: a Gymnasium model, found at run time
  std::string gym;  // the Gymnasium asset's name
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.name;
}

std::vector<Case> all_cases() {
  std::vector<Case> cases;
  for (const auto& entry : fs::directory_iterator(test_dir() / "models")) {
    if (entry.path().extension() == ".xml") {
      cases.push_back({entry.path().stem().string(), entry.path(), ""});
    }
  }
  std::sort(cases.begin(), cases.end(),
            [](const Case& a, const Case& b) { return a.name < b.name; });
  cases.push_back({"mujoco_humanoid", "/usr/share/mujoco/model/humanoid/humanoid.xml", ""});
  // a mesh geom (an OBJ file, scaled) and 34 boxes and cylinders on a free body
  cases.push_back({"mujoco_mug", "/usr/share/mujoco/model/mug/mug.xml", ""});
  for (const char* gym :
       {"ant", "half_cheetah", "hopper", "humanoid", "inverted_pendulum",
        "inverted_double_pendulum", "reacher", "swimmer", "pusher_v5", "walker2d_v5"}) {
    cases.push_back({fmt::format("gym_{}", gym), {}, gym});
  }
  return cases;
}

fs::path resolve(const Case& c) {
  if (c.gym.empty()) return c.file;
  const std::string dir = gymnasium_dir();
  if (dir.empty()) {
    ADD_FAILURE() << "gymnasium is not installed for python3: pip install gymnasium";
    return {};
  }
  return fs::path(dir) / "envs" / "mujoco" / "assets" / (c.gym + ".xml");
}

// ---------------------------------------------------------------------------------------------
// the tolerance class of each body, read from the MJCF as the header says

class InertiaClasses {
 public:
  explicit InertiaClasses(const fs::path& file) {
    const pugi::xml_node root = open(file);
    std::string from_geom = "auto";
    for (const auto& [node, dir] : elements(root, file.parent_path())) {
      if (std::string_view(node.name()) != "compiler") continue;
      if (node.attribute("inertiafromgeom")) from_geom = node.attribute("inertiafromgeom").value();
      if (node.attribute("fusestatic")) fuse_ = node.attribute("fusestatic").as_bool();
    }
    exact_.push_back(true);  // the world
    for (const auto& [node, dir] : elements(root, file.parent_path())) {
      if (std::string_view(node.name()) == "worldbody") walk(node, dir, from_geom, 0);
    }
  }
  // one flag per body in document order, the world first
  const std::vector<bool>& exact() const { return exact_; }

 private:
  pugi::xml_node open(const fs::path& file) {
    docs_.emplace_back();
    if (!docs_.back().load_file(file.c_str())) ADD_FAILURE() << "cannot parse " << file;
    return docs_.back().document_element();
  }
  // children with each <include> replaced by its file's
  std::vector<std::pair<pugi::xml_node, fs::path>> elements(pugi::xml_node node,
                                                            const fs::path& dir) {
    std::vector<std::pair<pugi::xml_node, fs::path>> out;
    for (const pugi::xml_node child : node.children()) {
      if (child.type() != pugi::node_element) continue;
      if (std::string_view(child.name()) == "include") {
        const fs::path file = dir / child.attribute("file").value();
        const auto inner = elements(open(file), file.parent_path());
        out.insert(out.end(), inner.begin(), inner.end());
      } else {
        out.emplace_back(child, dir);
      }
    }
    return out;
  }
  // `owner`: the body that the bodies of `node` belong to, the nearest one MuJoCo keeps.  With
  // fusestatic, MuJoCo 2.2.2 merges every body without joints (these test models name no body
  // from elsewhere) into its owner, whose inertia it then diagonalises.
  void walk(pugi::xml_node node, const fs::path& dir, const std::string& from_geom, int owner) {
    for (const auto& [child, child_dir] : elements(node, dir)) {
      if (std::string_view(child.name()) != "body") continue;
      bool jointed = child.attribute("mocap").as_bool();
      for (const auto& [e, d] : elements(child, child_dir)) {
        const std::string_view tag = e.name();
        jointed = jointed || tag == "joint" || tag == "freejoint";
      }
      if (fuse_ && !jointed) {
        if (owner > 0) exact_[owner] = false;
        walk(child, child_dir, from_geom, owner);
        continue;
      }
      int geoms = 0;
      bool mesh = false;
      pugi::xml_node inertial;
      for (const auto& [e, d] : elements(child, child_dir)) {
        // geoms outside MuJoCo's default inertiagrouprange (0..5) carry no mass
        const int group = e.attribute("group").as_int(0);
        if (std::string_view(e.name()) == "geom" && group >= 0 && group <= 5) {
          ++geoms;
          // MuJoCo diagonalises a mesh's inertia
          mesh = mesh || e.attribute("mesh");
        }
        if (std::string_view(e.name()) == "inertial") inertial = e;
      }
      const bool use_inertial = from_geom == "false" || (from_geom == "auto" && inertial);
      exact_.push_back(use_inertial ? !inertial.attribute("fullinertia") : geoms <= 1 && !mesh);
      walk(child, child_dir, from_geom, static_cast<int>(exact_.size()) - 1);
    }
  }
  std::list<pugi::xml_document> docs_;
  std::vector<bool> exact_;
  bool fuse_ = false;
};

// ---------------------------------------------------------------------------------------------
// the fixture: one model loaded by both

class MjcfVsMujoco : public ::testing::TestWithParam<Case> {
 protected:
  void SetUp() override {
    const Case& c = GetParam();
    file_ = resolve(c);
    ASSERT_FALSE(file_.empty());
    zwang::LoadResult loaded = zwang::load_mjcf(file_, kMujoco2);
    model_ = std::move(loaded.model);
    // the smooth dynamics, as in MuJoCo (load_mujoco); constraints: test_constraints.cc
    model_.disableflags |= zwang::kDisableConstraint;
    warnings_ = std::move(loaded.warnings);
    std::string error;
    m_ = load_mujoco(file_, &error);
    ASSERT_TRUE(m_) << error;
    const std::vector<bool> exact = InertiaClasses(file_).exact();
    ASSERT_EQ(static_cast<int>(exact.size()), m_->nbody) << "bodies counted in the MJCF";
    // a body's class, then the worst class in its subtree
    for (int b = 0; b < m_->nbody; ++b) body_tol_.push_back(exact[b] ? kExact : kDiagonalised);
    subtree_tol_ = body_tol_;
    for (int b = m_->nbody - 1; b > 0; --b) {
      const int p = m_->body_parentid[b];
      subtree_tol_[p] = std::max(subtree_tol_[p], subtree_tol_[b]);
    }
    model_tol_ = kExact;
    for (int i = 0; i < m_->nv; ++i) model_tol_ = std::max(model_tol_, dof_tol(i));
  }

  double dof_tol(int dof) const { return subtree_tol_[m_->dof_bodyid[dof]]; }

  fs::path file_;
  Model model_;
  std::vector<std::string> warnings_;
  MjModelPtr m_;
  std::vector<double> subtree_tol_, body_tol_;
  double model_tol_ = kExact;
};

// sizes, addresses, defaults and parameters of the compiled trees
TEST_P(MjcfVsMujoco, CompiledModelMatches) {
  const Model& z = model_;
  const mjModel* m = m_.get();
  ASSERT_NO_FATAL_FAILURE(expect_same_tree(z, m));
  ASSERT_EQ(z.ntendon, m->ntendon);
  EXPECT_EQ(z.timestep, m->opt.timestep);
  EXPECT_EQ(static_cast<int>(z.integrator), m->opt.integrator);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(z.gravity[i], m->opt.gravity[i]);
  Comparison cmp(GetParam().name + " (compiled)", kExact);
  for (int b = 1; b < z.nbody; ++b) {
    EXPECT_EQ(z.body_jntnum[b], m->body_jntnum[b]) << "body " << b;
    const std::array<double, 1> mass{z.body_mass[b]};
    cmp.check("body_mass", b, mass, view(m->body_mass + b, 1), 1e-12);
    cmp.check("body_pos", b, std::span(z.body_pos).subspan(3 * b, 3), view(m->body_pos + 3 * b, 3),
              1e-12);
    const std::vector<double> zq(z.body_quat.begin() + 4 * b, z.body_quat.begin() + 4 * b + 4);
    cmp.check("body_quat", b, align_quats(zq, view(m->body_quat + 4 * b, 4)),
              view(m->body_quat + 4 * b, 4), 1e-12);
    // a body without mass of its own has its COM at its pos, in MuJoCo 2.2.2 and in zwang
    cmp.check("body_ipos", b, std::span(z.body_ipos).subspan(3 * b, 3),
              view(m->body_ipos + 3 * b, 3), body_tol_[b]);
    // MuJoCo's principal moments in its inertial frame, R diag(I) Rᵀ, relative to their size
    const double* q = m->body_iquat + 4 * b;
    const Eigen::Matrix3d r = Eigen::Quaterniond(q[0], q[1], q[2], q[3]).toRotationMatrix();
    const Eigen::Matrix3d mj =
        r * Eigen::Vector3d(m->body_inertia + 3 * b).asDiagonal() * r.transpose();
    Eigen::Matrix3d zw;
    const double* i = z.body_inertia.data() + 6 * b;
    zw << i[0], i[3], i[4], i[3], i[1], i[5], i[4], i[5], i[2];
    const double size = std::max(1e-300, mj.cwiseAbs().maxCoeff());
    const Eigen::Matrix3d zs = zw / size, ms = mj / size;
    cmp.check("body_inertia", b, std::span(zs.data(), 9), std::span(ms.data(), 9), body_tol_[b]);
  }
  for (int j = 0; j < z.njnt; ++j) {
    EXPECT_EQ(z.jnt_bodyid[j], m->jnt_bodyid[j]) << "joint " << j;
    EXPECT_EQ(z.jnt_limited[j], m->jnt_limited[j]) << "joint " << j;
    cmp.check("jnt_pos", j, std::span(z.jnt_pos).subspan(3 * j, 3), view(m->jnt_pos + 3 * j, 3),
              1e-12);
    cmp.check("jnt_axis", j, std::span(z.jnt_axis).subspan(3 * j, 3), view(m->jnt_axis + 3 * j, 3),
              1e-12);
    cmp.check("jnt_range", j, std::span(z.jnt_range).subspan(2 * j, 2),
              view(m->jnt_range + 2 * j, 2), 1e-12);
  }
  cmp.check("jnt_stiffness", 0, z.jnt_stiffness, view(m->jnt_stiffness, m->njnt), 1e-12);
  cmp.check("qpos0", 0, z.qpos0, view(m->qpos0, m->nq), 1e-12);
  cmp.check("qpos_spring", 0, z.qpos_spring, view(m->qpos_spring, m->nq), 1e-12);
  cmp.check("dof_damping", 0, z.dof_damping, view(m->dof_damping, m->nv), 1e-12);
  cmp.check("dof_armature", 0, z.dof_armature, view(m->dof_armature, m->nv), 1e-12);
  for (int a = 0; a < z.nu; ++a) {
    EXPECT_EQ(z.actuator_trntype[a], m->actuator_trntype[a]) << "actuator " << a;
    EXPECT_EQ(z.actuator_trnid[a], m->actuator_trnid[2 * a]) << "actuator " << a;
    EXPECT_EQ(z.actuator_ctrllimited[a], m->actuator_ctrllimited[a]) << "actuator " << a;
    EXPECT_EQ(z.actuator_forcelimited[a], m->actuator_forcelimited[a]) << "actuator " << a;
    const std::array<double, 1> gear{z.actuator_gear[a]};
    cmp.check("actuator_gear", a, gear, view(m->actuator_gear + 6 * a, 1), 1e-12);
    // MuJoCo keeps gainprm[1..2] when gaintype is fixed; zwang stores the zeros it means
    const std::vector<double> gain =
        m->actuator_gaintype[a] == mjGAIN_FIXED
            ? std::vector<double>{m->actuator_gainprm[mjNGAIN * a], 0, 0}
            : std::vector<double>(m->actuator_gainprm + mjNGAIN * a,
                                  m->actuator_gainprm + mjNGAIN * a + 3);
    cmp.check("actuator_gainprm", a, std::span(z.actuator_gainprm).subspan(3 * a, 3), gain, 1e-12);
    EXPECT_EQ(static_cast<int>(z.actuator_dyntype[a]), m->actuator_dyntype[a]) << "actuator " << a;
    EXPECT_EQ(z.actuator_actadr[a] >= 0, m->actuator_dyntype[a] != mjDYN_NONE) << "actuator " << a;
    // MuJoCo keeps biasprm when biastype is none; zwang stores the zero bias it means
    const std::vector<double> bias =
        m->actuator_biastype[a] == mjBIAS_NONE
            ? std::vector<double>{0, 0, 0}
            : std::vector<double>(m->actuator_biasprm + mjNBIAS * a,
                                  m->actuator_biasprm + mjNBIAS * a + 3);
    cmp.check("actuator_biasprm", a, std::span(z.actuator_biasprm).subspan(3 * a, 3), bias, 1e-12);
  }
  cmp.check("actuator_ctrlrange", 0, z.actuator_ctrlrange, view(m->actuator_ctrlrange, 2 * m->nu),
            1e-12);
  cmp.check("actuator_forcerange", 0, z.actuator_forcerange,
            view(m->actuator_forcerange, 2 * m->nu), 1e-12);
  for (int t = 0; t < z.ntendon; ++t) {
    ASSERT_EQ(z.tendon_num[t], m->tendon_num[t]) << "tendon " << t;
    for (int w = 0; w < z.tendon_num[t]; ++w) {
      EXPECT_EQ(z.wrap_type[z.tendon_adr[t] + w], m->wrap_type[m->tendon_adr[t] + w]);
      EXPECT_EQ(z.wrap_objid[z.tendon_adr[t] + w], m->wrap_objid[m->tendon_adr[t] + w]);
      EXPECT_EQ(z.wrap_prm[z.tendon_adr[t] + w], m->wrap_prm[m->tendon_adr[t] + w]);
    }
  }
}

// Model::id looks every named object up as MuJoCo's mj_name2id does, under MuJoCo's numbering
TEST_P(MjcfVsMujoco, IdsAreMujocosName2Id) {
  const Model& z = model_;
  const mjModel* m = m_.get();
  // the same numbers as MuJoCo 2.2.2's mjtObj
  static_assert(+ObjType::kBody == +mjOBJ_BODY && +ObjType::kXBody == +mjOBJ_XBODY &&
                +ObjType::kJoint == +mjOBJ_JOINT && +ObjType::kDof == +mjOBJ_DOF &&
                +ObjType::kGeom == +mjOBJ_GEOM && +ObjType::kSite == +mjOBJ_SITE &&
                +ObjType::kCamera == +mjOBJ_CAMERA && +ObjType::kMesh == +mjOBJ_MESH &&
                +ObjType::kEquality == +mjOBJ_EQUALITY && +ObjType::kTendon == +mjOBJ_TENDON &&
                +ObjType::kActuator == +mjOBJ_ACTUATOR && +ObjType::kSensor == +mjOBJ_SENSOR &&
                +ObjType::kKey == +mjOBJ_KEY);
  int named = 0;
  for (const ObjType type : {ObjType::kBody, ObjType::kJoint, ObjType::kGeom, ObjType::kSite,
                             ObjType::kMesh, ObjType::kEquality, ObjType::kTendon,
                             ObjType::kActuator, ObjType::kSensor, ObjType::kKey}) {
    // MuJoCo's names (zwang also names the unnamed sensors)
    const int n = static_cast<int>(z.names(type)->size());
    for (int i = 0; i < n; ++i) {
      const char* name = mj_id2name(m, type, i);
      if (name == nullptr) continue;
      EXPECT_EQ(z.id(type, name), i) << to_string(type) << " '" << name << "'";
      EXPECT_EQ(mj_name2id(m, type, name), i);
      ++named;
    }
    EXPECT_EQ(z.id(type, "no such name"), -1) << to_string(type);
  }
  EXPECT_GT(named, 0);
  // the deprecated per-kind lookups answer as id() does
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  EXPECT_EQ(z.body_id(z.body_name.back()), z.id(ObjType::kBody, z.body_name.back()));
  EXPECT_EQ(z.geom_id("no such name"), -1);
#pragma GCC diagnostic pop
  EXPECT_EQ(z.names(ObjType::kDof), nullptr);
  EXPECT_EQ(z.id(ObjType::kUnknown, z.body_name[0]), -1);
  // "" names nothing (as in MuJoCo 3 and 4; python_shim/tests/test_mujoco.py)
  EXPECT_EQ(z.id(ObjType::kGeom, ""), -1);
}

// H, h, q̈, body frames, passive and actuator forces, tendon lengths of mj_forward
TEST_P(MjcfVsMujoco, ForwardMatchesMujoco) {
  const mjModel* m = m_.get();
  ASSERT_EQ(model_.nv, m->nv);
  ASSERT_EQ(model_.nbody, m->nbody);
  const MjDataPtr d(mj_makeData(m));
  const std::vector<State> states = random_states(model_, kStates, 11);
  const auto sim = simulator(model_, states);
  // outputs poisoned, so one forward() must write every value compared
  auto& b = sim->batch();
  for (auto field : {b.qacc(), b.qM(), b.qfrc_bias(), b.qfrc_passive(), b.qfrc_actuator(),
                     b.actuator_force(), b.xpos(), b.xquat(), b.xipos()}) {
    field.fill(std::vector<double>(field.width(), std::numeric_limits<double>::quiet_NaN()));
  }
  sim->forward();
  for (const auto& f : sim->failures()) ADD_FAILURE() << f.message();

  const int nv = m->nv, nu = m->nu, nbody = m->nbody;
  std::vector<double> qm_tol(static_cast<std::size_t>(nv) * nv), bias_tol(nv);
  for (int i = 0; i < nv; ++i) {
    bias_tol[i] = dof_tol(i);
    for (int j = 0; j < nv; ++j) qm_tol[i * nv + j] = dof_tol(std::max(i, j));
  }
  const std::vector<double> xipos_tol(3 * nbody, model_tol_);
  std::vector<double> dense(static_cast<std::size_t>(nv) * nv);
  Comparison cmp(GetParam().name, kExact);
  for (int s = 0; s < kStates; ++s) {
    set_state(m, d.get(), states[s]);
    mj_forward(m, d.get());
    mj_fullM(m, dense.data(), d->qM);
    cmp.check("qM", s, unpack(b.qM().get(s), nv), dense, qm_tol);
    cmp.check("qfrc_bias", s, b.qfrc_bias().get(s), view(d->qfrc_bias, nv), bias_tol);
    cmp.check("qacc", s, b.qacc().get(s), view(d->qacc, nv), model_tol_);
    cmp.check("xpos", s, b.xpos().get(s), view(d->xpos, 3 * nbody), kExact);
    cmp.check("xquat", s, align_quats(b.xquat().get(s), view(d->xquat, 4 * nbody)),
              view(d->xquat, 4 * nbody), kExact);
    cmp.check("xipos", s, b.xipos().get(s), view(d->xipos, 3 * nbody), xipos_tol);
    cmp.check("qfrc_passive", s, b.qfrc_passive().get(s), view(d->qfrc_passive, nv), kExact);
    cmp.check("qfrc_actuator", s, b.qfrc_actuator().get(s), view(d->qfrc_actuator, nv), kExact);
    cmp.check("actuator_force", s, b.actuator_force().get(s), view(d->actuator_force, nu), kExact);
    cmp.check("ten_length", s, zwang::tendon_lengths(model_, states[s].qpos),
              view(d->ten_length, m->ntendon), kExact);
  }
}

// one step of each integrator from the same random states
// one zwang step against `substeps` MuJoCo steps of timestep / substeps
void check_step(const Case& c, Model model, mjModel* m, Integrator integrator, double tol,
                int substeps = 1) {
  model.integrator = integrator;
  m->opt.integrator = integrator == Integrator::kRK4 ? mjINT_RK4 : mjINT_EULER;
  m->opt.timestep = model.timestep / substeps;
  const MjDataPtr d(mj_makeData(m));
  const std::vector<State> states = random_states(model, kStates, 12);
  const auto sim = simulator(model, states);
  sim->step(1);
  for (const auto& f : sim->failures()) ADD_FAILURE() << f.message();
  Comparison cmp(fmt::format("{} ({} step)", c.name, zwang::to_string(integrator)), kExact);
  for (int s = 0; s < kStates; ++s) {
    set_state(m, d.get(), states[s]);
    mj_step(m, d.get());
    cmp.check("qpos", s, sim->batch().qpos().get(s), view(d->qpos, m->nq), tol);
    cmp.check("qvel", s, sim->batch().qvel().get(s), view(d->qvel, m->nv), tol);
  }
}

TEST_P(MjcfVsMujoco, EulerStepMatchesMujoco) {
  check_step(GetParam(), model_, m_.get(), Integrator::kEuler, model_tol_);
}

// zwang's RK4 is fourth order on ball and free joints where MuJoCo's is second order
// (test_mujoco.cc), so on such models the two single steps differ by more than rounding.
// Both are measured against 256 MuJoCo steps of h/256: zwang's step must be no farther from it
// than MuJoCo's, give or take the models' own difference (the inertia tolerance times the
// step's change of state, which for a light body such as the mug's exceeds both truncation
// errors).  (With strong joint damping both errors are dominated by the same stiff truncation
// error, so they nearly coincide.)
void check_rk4_no_worse_than_mujoco(const Case& c, Model model, mjModel* m, double model_tol) {
  constexpr int kSubsteps = 256;
  model.integrator = Integrator::kRK4;
  m->opt.integrator = mjINT_RK4;
  const double h = model.timestep;
  const MjDataPtr d(mj_makeData(m));
  const std::vector<State> states = random_states(model, kStates, 12);
  const auto sim = simulator(model, states);
  sim->step(1);
  for (const auto& f : sim->failures()) ADD_FAILURE() << f.message();
  double worst_ratio = 0;
  for (int s = 0; s < kStates; ++s) {
    auto run = [&](int substeps) {
      m->opt.timestep = h / substeps;
      set_state(m, d.get(), states[s]);
      for (int k = 0; k < substeps; ++k) mj_step(m, d.get());
      std::vector<double> x(d->qpos, d->qpos + m->nq);
      x.insert(x.end(), d->qvel, d->qvel + m->nv);
      return x;
    };
    const std::vector<double> mujoco = run(1), fine = run(kSubsteps);
    std::vector<double> zw = sim->batch().qpos().get(s);
    const std::vector<double> v = sim->batch().qvel().get(s);
    zw.insert(zw.end(), v.begin(), v.end());
    std::vector<double> start = states[s].qpos;
    start.insert(start.end(), states[s].qvel.begin(), states[s].qvel.end());
    double ez = 0, em = 0, change = 0;
    for (std::size_t i = 0; i < fine.size(); ++i) {
      ez = std::max(ez, std::abs(zw[i] - fine[i]));
      em = std::max(em, std::abs(mujoco[i] - fine[i]));
      change = std::max(change, std::abs(fine[i] - start[i]));
    }
    EXPECT_LE(ez, 1.01 * em + 1e-12 + model_tol * change)
        << c.name << " state " << s << ": zwang " << ez << ", MuJoCo " << em << ", change "
        << change;
    worst_ratio = std::max(worst_ratio, ez / std::max(em, 1e-300));
  }
  m->opt.timestep = h;
  ::testing::Test::RecordProperty("max_error_ratio_zwang_to_mujoco",
                                  fmt::format("{:.3g}", worst_ratio));
}

TEST_P(MjcfVsMujoco, Rk4StepMatchesMujoco) {
  if (has_rotation_joint(model_)) {
    check_rk4_no_worse_than_mujoco(GetParam(), model_, m_.get(), model_tol_);
  } else {
    check_step(GetParam(), model_, m_.get(), Integrator::kRK4, model_tol_);
  }
}

INSTANTIATE_TEST_SUITE_P(Models, MjcfVsMujoco, ::testing::ValuesIn(all_cases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return info.param.name;
                         });

// ---------------------------------------------------------------------------------------------
// springs, settotalmass

// hinge0 of chain.xml: ref 0.2, springref −0.4 (radians), so at qpos0 the spring already pulls
// with −k (ref − springref); the slide has ref 0.05, springref −0.02
TEST(MjcfSprings, SpringrefIsIndependentOfRef) {
  const fs::path file = test_dir() / "models" / "chain.xml";
  const Model model = zwang::load_mjcf(file, kMujoco2).model;
  std::string error;
  const MjModelPtr m = load_mujoco(file, &error);
  ASSERT_TRUE(m) << error;
  const int hinge = model.id(ObjType::kJoint, "hinge0"),
            slide = model.id(ObjType::kJoint, "slide2");
  ASSERT_GE(hinge, 0);
  ASSERT_GE(slide, 0);
  const int qh = model.jnt_qposadr[hinge], qs = model.jnt_qposadr[slide];
  EXPECT_DOUBLE_EQ(model.qpos0[qh], 0.2);
  EXPECT_DOUBLE_EQ(model.qpos_spring[qh], -0.4);
  EXPECT_DOUBLE_EQ(model.qpos0[qs], 0.05);
  EXPECT_DOUBLE_EQ(model.qpos_spring[qs], -0.02);
  EXPECT_EQ(model.qpos0[qh], m->qpos0[qh]);
  EXPECT_EQ(model.qpos_spring[qh], m->qpos_spring[qh]);

  Simulator<double> sim(model, 1);
  sim.forward();
  const MjDataPtr d(mj_makeData(m.get()));
  mj_forward(m.get(), d.get());
  const std::vector<double> passive = sim.batch().qfrc_passive().get(0);
  const int dh = model.jnt_dofadr[hinge], ds = model.jnt_dofadr[slide];
  EXPECT_NEAR(passive[dh], -4 * (0.2 - (-0.4)), 1e-12);
  EXPECT_NEAR(passive[ds], -30 * (0.05 - (-0.02)), 1e-12);
  for (int i = 0; i < model.nv; ++i) EXPECT_NEAR(passive[i], d->qfrc_passive[i], 1e-12) << i;
}

// every body scaled by the same factor, after boundmass lifted the light ones
TEST(MjcfMass, SettotalmassRescalesEveryBody) {
  for (const fs::path& file : {test_dir() / "models" / "inertia_from_geom.xml",
                               fs::path(gymnasium_dir()) / "envs/mujoco/assets/half_cheetah.xml"}) {
    if (!fs::exists(file)) {
      ADD_FAILURE() << file << " is missing; for Gymnasium: pip install gymnasium";
      continue;
    }
    const Model model = zwang::load_mjcf(file, kMujoco2).model;
    std::string error;
    const MjModelPtr m = load_mujoco(file, &error);
    ASSERT_TRUE(m) << error;
    double total = 0;
    for (int b = 0; b < m->nbody; ++b) total += m->body_mass[b];
    EXPECT_NEAR(model.total_mass(), total, 1e-12 * total) << file;
    EXPECT_NEAR(model.total_mass(), file.stem() == "half_cheetah" ? 14 : 12, 1e-12) << file;
    for (int b = 0; b < m->nbody; ++b) {
      EXPECT_NEAR(model.body_mass[b], m->body_mass[b], 1e-12 * total) << file << " body " << b;
    }
  }
}

// zwang's own constraints name bodies too (MuJoCo has no such element to compare with): with
// fusestatic, a welded wheel that a knife edge or a rolling sphere acts on stays a body with its
// constraint, and without the constraint it is merged into the cart
TEST(MjcfFuseStatic, BodiesOfZwangsConstraintsStay) {
  const auto cart = [](std::string_view custom) {
    return fmt::format(R"(<mujoco>
  <compiler fusestatic="true"/>
  <worldbody>
    <body name="cart" pos="0 0 0.2">
      <freejoint/>
      <geom type="box" size="0.2 0.1 0.05"/>
      <body name="wheel" pos="0.1 0 -0.1"><geom type="sphere" size="0.1"/></body>
    </body>
  </worldbody>
  {}
</mujoco>)",
                       custom);
  };
  const Model fused = zwang::load_mjcf_string(cart("")).model;
  EXPECT_EQ(fused.nbody, 2);
  EXPECT_NEAR(fused.body_mass[1], 0.4 * 0.2 * 0.1 * 1000 + 4 * std::numbers::pi / 3 * 1e-3 * 1000,
              1e-12);
  for (const char* numeric : {R"(<numeric name="knife_edge:wheel" data="0 0 0 1 0 0"/>)",
                              R"(<numeric name="rolling_sphere:wheel" data="0.1 0"/>)"}) {
    const Model kept =
        zwang::load_mjcf_string(cart(fmt::format("<custom>{}</custom>", numeric))).model;
    ASSERT_EQ(kept.nbody, 3) << numeric;
    EXPECT_EQ(kept.body_name[2], "wheel") << numeric;
    EXPECT_EQ(kept.nnhc, 1) << numeric;
  }
}

// ---------------------------------------------------------------------------------------------
// nesting: the body tree and the default classes are read without recursion, so a depth far
// beyond any model's loads instead of overflowing the stack

constexpr int kDeep = 20000;

// kDeep bodies, each inside the previous and each with `attributes`, a hinge and a sphere in the
// last one; `compiler` and `after` (in the worldbody, after the chain) around them
std::string deep_chain(std::string_view compiler, std::string_view attributes,
                       std::string_view after) {
  std::string xml = fmt::format("<mujoco>\n{}\n<worldbody>\n", compiler);
  for (int i = 0; i < kDeep; ++i) xml += fmt::format("<body{}>", attributes);
  xml += "<joint/><geom size=\"0.1\"/>";
  for (int i = 0; i < kDeep; ++i) xml += "</body>";
  return xml + fmt::format("\n{}\n</worldbody>\n</mujoco>\n", after);
}

TEST(MjcfNesting, DeepBodyChainLoads) {
  const Model model = zwang::load_mjcf_string(deep_chain("", "", "<body name=\"after\"/>"),
                                              "deep.xml", {}, kMujoco2)
                          .model;
  ASSERT_EQ(model.nbody, kDeep + 2);
  for (int b = 1; b <= kDeep; ++b) ASSERT_EQ(model.body_parentid[b], b - 1) << "body " << b;
  // the walk comes back up to the world for the sibling after the chain
  EXPECT_EQ(model.body_parentid[kDeep + 1], 0);
  ASSERT_EQ(model.njnt, 1);
  EXPECT_EQ(model.jnt_bodyid[0], kDeep);
}

// with fusestatic the same chain is one body: the kDeep − 1 without joints merge into the world
// one after another, taking the jointed body up to it in their frames (each 1 m along x)
TEST(MjcfNesting, DeepWeldedChainFuses) {
  const std::string xml = deep_chain("<compiler fusestatic=\"true\"/>", " pos=\"1 0 0\"", "");
  const Model model = zwang::load_mjcf_string(xml, "deep.xml", {}, kMujoco2).model;
  ASSERT_EQ(model.nbody, 2);
  EXPECT_EQ(model.body_parentid[1], 0);
  EXPECT_EQ(model.body_pos[3], kDeep);
  EXPECT_EQ(model.njnt, 1);
}

// classes c0 ... c{kDeep-1}, each inside the previous; main sets the damping, the middle one
// the armature, and a sibling of c0 after the chain has only main's
TEST(MjcfNesting, DeepDefaultClassesInherit) {
  std::string xml = "<mujoco>\n<default>\n<joint damping=\"2\"/>\n";
  for (int i = 0; i < kDeep; ++i) {
    xml += fmt::format("<default class=\"c{}\">", i);
    if (i == kDeep / 2) xml += "<joint armature=\"0.5\"/>";
  }
  for (int i = 0; i < kDeep; ++i) xml += "</default>";
  xml += fmt::format(
      "\n<default class=\"after\"/>\n</default>\n<worldbody>\n"
      "<body><joint name=\"deep\" class=\"c{}\"/><geom size=\"0.1\"/></body>\n"
      "<body><joint name=\"middle\" class=\"c{}\"/><geom size=\"0.1\"/></body>\n"
      "<body><joint name=\"after\" class=\"after\"/><geom size=\"0.1\"/></body>\n"
      "</worldbody>\n</mujoco>\n",
      kDeep - 1, kDeep / 2 - 1);
  const Model model = zwang::load_mjcf_string(xml, "deep.xml", {}, kMujoco2).model;
  const int deep = model.id(ObjType::kJoint, "deep"), middle = model.id(ObjType::kJoint, "middle"),
            after = model.id(ObjType::kJoint, "after");
  ASSERT_GE(deep, 0);
  ASSERT_GE(middle, 0);
  ASSERT_GE(after, 0);
  EXPECT_EQ(model.dof_damping[model.jnt_dofadr[deep]], 2);
  EXPECT_EQ(model.dof_armature[model.jnt_dofadr[deep]], 0.5);
  EXPECT_EQ(model.dof_damping[model.jnt_dofadr[middle]], 2);
  EXPECT_EQ(model.dof_armature[model.jnt_dofadr[middle]], 0);
  EXPECT_EQ(model.dof_damping[model.jnt_dofadr[after]], 2);
  EXPECT_EQ(model.dof_armature[model.jnt_dofadr[after]], 0);
}

// ---------------------------------------------------------------------------------------------
// errors: each names the file, the line and what is wrong

std::string load_error(std::string_view xml, const fs::path& dir = {}) {
  return error_of([&] { zwang::load_mjcf_string(xml, "bad.xml", dir, kMujoco2); });
}

// a body that fusestatic merges is checked as one that stays would be
TEST(MjcfErrors, MergedBodiesAreCheckedFirst) {
  const auto welded = [](std::string_view second) {
    return fmt::format(
        "<mujoco>\n<compiler fusestatic=\"true\"/>\n<worldbody>\n<body name=\"k\">\n"
        "<freejoint/><geom size=\"0.1\"/>\n{}\n</body>\n</worldbody>\n</mujoco>\n",
        second);
  };
  EXPECT_EQ(load_error(welded("<body name=\"k\"><geom size=\"0.1\"/></body>")),
            "bad.xml:6: body name 'k' is already used by the body at bad.xml:4");
  const std::string error =
      load_error(welded("<body><inertial pos=\"0 0 0\" mass=\"1\" diaginertia=\"1 1 3\"/></body>"));
  EXPECT_TRUE(error.starts_with(
      "bad.xml:6: the unnamed body: inertia violates the triangle inequality of a rigid body"))
      << error;
}

// `inside` in a body from line 4 on, `after` after the worldbody (line 8 for a two-line inside)
std::string body_with(std::string_view inside, std::string_view after = "") {
  return fmt::format(
      "<mujoco>\n<worldbody>\n<body name=\"b\">\n{}\n</body>\n</worldbody>\n{}\n</mujoco>\n",
      inside, after);
}

TEST(MjcfErrors, MissingFile) {
  try {
    zwang::load_mjcf("/no/such/dir/model.xml", kMujoco2);
    ADD_FAILURE() << "no error";
  } catch (const ModelError& e) {
    EXPECT_EQ(std::string(e.what()),
              "/no/such/dir/model.xml: cannot open the file (No such file or directory)");
  }
}

// each model text with the message it must give; "..." at the end matches any rest
TEST(MjcfErrors, MessagesNameFileLineAndWhat) {
  const std::string sphere = "<geom size=\"0.1\"/>";
  const std::vector<std::pair<std::string, std::string>> cases = {
      // malformed XML, with pugixml's reason
      {"<mujoco>\n<worldbody>\n<body>\n</worldbody>\n</mujoco>\n", "bad.xml:4: malformed XML: ..."},
      {"<robot/>\n", "bad.xml:1: the root element is <robot>, expected <mujoco>"},
      // unknown keywords, bad numbers, wrong counts
      {body_with("<joint type=\"hinged\"/>\n" + sphere),
       "bad.xml:4: <joint> attribute 'type': 'hinged' is not one of 'free', 'ball', 'slide', "
       "'hinge'"},
      {body_with("<joint pos=\"1.2.3 0 0\"/>\n" + sphere),
       "bad.xml:4: <joint> attribute 'pos': '1.2.3' is not a finite number"},
      {body_with("<joint damping=\"0x10\"/>\n" + sphere),
       "bad.xml:4: <joint> attribute 'damping': '0x10' is not a finite number"},
      {body_with("<joint/>\n<geom size=\"0.1\" pos=\"1 2\"/>"),
       "bad.xml:5: <geom> attribute 'pos': '1 2' has 2 values, expected 3"},
      {body_with("<joint/>\n<geom size=\"0.1 0.2 0.3 0.4\"/>"),
       "bad.xml:5: <geom> attribute 'size': '0.1 0.2 0.3 0.4' has 4 values, expected 1 to 3"},
      // missing required attributes
      {body_with("<joint/>\n<geom type=\"capsule\" size=\"0.1\"/>"),
       "bad.xml:5: <geom> of type capsule needs 2 positive size values (radius, half-length); "
       "size is 0.1 0 0"},
      {body_with("<joint/>\n<geom/>"),
       "bad.xml:5: <geom> of type sphere needs 1 positive size value (radius); size is 0 0 0"},
      {body_with("<joint/>\n" + sphere, "<actuator>\n<motor gear=\"2\"/>\n</actuator>"),
       "bad.xml:9: <motor> needs the attribute 'joint' or 'tendon'"},
      {body_with("<joint/>\n" + sphere, "<actuator>\n<motor joint=\"nope\"/>\n</actuator>"),
       "bad.xml:9: actuator 'actuator0': unknown joint 'nope'"},
      {body_with("<joint/>\n<inertial pos=\"0 0 0\"/>"),
       "bad.xml:5: <inertial> needs the attribute 'mass'"},
      // classes, includes, free joints
      {body_with("<joint class=\"nope\"/>\n" + sphere), "bad.xml:4: unknown default class 'nope'"},
      {"<mujoco>\n<default>\n<default class=\"a\">\n<default/>\n</default>\n</default>\n"
       "</mujoco>\n",
       "bad.xml:4: a nested <default> needs the attribute 'class'"},
      {"<mujoco>\n<default>\n<default class=\"a\"/>\n<default class=\"b\">\n"
       "<default class=\"a\"/>\n</default>\n</default>\n</mujoco>\n",
       "bad.xml:5: default class 'a' is defined twice"},
      {body_with("<include file=\"missing.xml\"/>"),
       "bad.xml:4: <include> cannot open 'missing.xml' ..."},
      {body_with(sphere + "\n<body>\n<freejoint/>\n" + sphere + "\n</body>"),
       "bad.xml:6: joint 'joint0': a free joint must be in a child of the world"},
      // without autolimits (2.2.2's default) a range needs limited="true"; a limited range is not
      // empty
      {"<mujoco>\n<compiler autolimits=\"false\"/>\n<worldbody>\n<body>\n<joint range=\"0 1\"/>\n" +
           sphere + "\n</body>\n</worldbody>\n</mujoco>\n",
       "bad.xml:5: <joint> has 'range' but not 'limited', and the model sets <compiler "
       "autolimits=\"false\">: give limited=\"true\" or \"false\""},
      {body_with("<joint limited=\"true\"/>\n" + sphere),
       "bad.xml:4: <joint> attribute 'range': [0, 0] is empty (the lower bound must be smaller)"},
      // what would change the state or control layout is an error, not a warning
      {body_with("<joint name=\"j\"/>\n" + sphere,
                 "<actuator>\n<damper joint=\"j\"/>\n</actuator>"),
       "bad.xml:9: <damper> actuators are not supported (motor, position, velocity, cylinder, "
       "muscle and general are)"},
      {"<mujoco>\n<compiler coordinate=\"global\"/>\n</mujoco>\n",
       "bad.xml:2: <compiler> coordinate=\"global\" is not supported; write the model in local "
       "coordinates"},
  };
  for (const auto& [xml, expected] : cases) {
    const std::string error = load_error(xml, fs::temp_directory_path());
    if (expected.ends_with("...")) {
      EXPECT_TRUE(error.starts_with(expected.substr(0, expected.size() - 3))) << error;
    } else {
      EXPECT_EQ(error, expected) << xml;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// warnings: one per element or attribute outside the subset, none for what is accepted

std::vector<std::string> load_warnings(std::string_view xml) {
  return zwang::load_mjcf_string(xml, "w.xml", {}, kMujoco2).warnings;
}

// geoms collide and joint limits are enforced: nothing is said about either
// (test_mjcf_contacts.cc has the warnings for geom pairs without a narrow phase)
TEST(MjcfWarnings, ContactsAndLimitsNeedNoNote) {
  const std::vector<std::string> w =
      load_warnings(body_with("<joint limited=\"true\" range=\"-1 1\"/>\n<geom size=\"0.1\"/>\n"
                              "<geom size=\"0.2\" pos=\"0 0 1\"/>",
                              "<worldbody><geom type=\"plane\" size=\"1 1 1\"/></worldbody>"));
  EXPECT_EQ(w, std::vector<std::string>{});
  const std::string off = "<option><flag contact=\"disable\"/></option>";
  EXPECT_EQ(load_warnings(body_with("<joint/>\n<geom size=\"0.1\"/>", off)),
            std::vector<std::string>{});
}

TEST(MjcfWarnings, UnsupportedElementOnce) {
  const std::vector<std::string> w = load_warnings(
      "<mujoco>\n<worldbody>\n<body>\n<joint/>\n<geom size=\"0.1\"/>\n<plugin "
      "plugin=\"p\"><config key=\"k\" value=\"v\"/></plugin>\n</body>\n</worldbody>\n</mujoco>\n");
  ASSERT_EQ(w.size(), 1u) << fmt::format("{}", fmt::join(w, "\n"));
  EXPECT_EQ(w[0], "w.xml:6: element <plugin> is not supported; ignored");
}

TEST(MjcfWarnings, EachUnsupportedThingOnce) {
  const std::vector<std::string> w = load_warnings(body_with(
      "<joint name=\"j\" springdamper=\"1 1\" frictionloss=\"0.5\"/>\n<geom size=\"0.1\"/>",
      "<sensor><jointpos joint=\"j\"/></sensor>\n<contact/><equality/>\n"
      "<option><flag fwdinv=\"enable\" limit=\"disable\"/></option>"));
  // <option> is read first, wherever it stands
  const std::vector<std::string> expected = {
      "w.xml:10: flag fwdinv: zwang records no forward-inverse comparison "
      "(mjData.solver_fwdinv)",
      "w.xml:4: attribute 'springdamper' of <joint> is not supported; ignored"};
  EXPECT_EQ(w, expected);
}

// dynamics MuJoCo has and zwang has not yet: said once each, the rest of the model loads
TEST(MjcfWarnings, DynamicsNotSimulated) {
  const zwang::LoadResult r = zwang::load_mjcf_string(
      "<mujoco>\n<option integrator=\"implicit\"/>\n<worldbody>\n"
      "<body><geom size=\"0.1\"/><plugin plugin=\"p\"/></body>\n"
      "<body><joint name=\"j\"/><geom size=\"0.1\"/></body>\n</worldbody>\n"
      "<tendon><fixed stiffness=\"2\"><joint joint=\"j\" coef=\"1\"/></fixed></tendon>\n"
      "</mujoco>\n",
      "w.xml", {}, kMujoco2);
  const std::vector<std::string> expected = {"w.xml:4: element <plugin> is not supported; ignored"};
  EXPECT_EQ(r.warnings, expected);
  EXPECT_EQ(r.model.integrator, Integrator::kImplicit);
  EXPECT_EQ(r.model.ntendon, 1);
}

// contact, rendering and limit-solver data are accepted without a word
TEST(MjcfWarnings, AcceptedSilently) {
  const std::vector<std::string> w = load_warnings(
      "<mujoco model=\"m\">\n<compiler meshdir=\"x\"/>\n<size nstack=\"1000\"/>\n"
      "<visual><map znear=\"0.1\"/></visual>\n<asset><texture name=\"t\" builtin=\"flat\"/>"
      "<material name=\"m\" rgba=\"1 1 1 0.5\"/>"
      "</asset>\n<default><geom rgba=\"1 0 0 1\"/><site size=\"0.1\"/><tendon/></default>\n"
      "<worldbody>\n<light pos=\"0 0 1\"/>\n<body>\n<camera pos=\"0 0 1\"/>\n"
      "<joint limited=\"true\" range=\"-1 1\" solimplimit=\"0 .9 .01\" margin=\"0.1\"/>\n"
      "<geom size=\"0.1\" contype=\"1\" conaffinity=\"0\" condim=\"3\" friction=\"1 0.1 0.1\" "
      "material=\"m\" solref=\"0.02 1\" user=\"1\"/>\n<site name=\"s\"/>\n</body>\n"
      "</worldbody>\n<custom><numeric name=\"n\" data=\"1\"/></custom>\n</mujoco>\n");
  EXPECT_TRUE(w.empty()) << fmt::format("{}", fmt::join(w, "\n"));
}

// an element of an included file is located in that file
TEST(MjcfWarnings, IncludedFileLocations) {
  const fs::path dir = fs::temp_directory_path() / fmt::format("zwang_mjcf_test_{}", getpid());
  fs::create_directories(dir);
  {
    std::FILE* f = std::fopen((dir / "part.xml").c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs("<mujoco>\n  <extension/>\n</mujoco>\n", f);
    std::fclose(f);
  }
  const zwang::LoadResult r = zwang::load_mjcf_string(
      "<mujoco>\n<include file=\"part.xml\"/>\n</mujoco>\n", "main.xml", dir, kMujoco2);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.warnings[0], fmt::format("{}:2: element <extension> is not supported; ignored",
                                       (dir / "part.xml").string()));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace zwang::test
