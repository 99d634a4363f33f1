// The pipeline on lane groups (kernels/pipeline.h: smooth, forward and step with a group) against
// the same calls on one lane: every model case (contacts on) at a random state, in float64 and
// float32, under Emu<G> for G = 4 … 32.  The group's sums (the solver's dot products, gradient
// norms and line search) add each lane's partial and then the lanes, so they round otherwise
// than one lane's running sums: every data field agrees within the CUDA-vs-CPU bound of
// tests/cuda/test_cuda.cc (10³ × max(2 ε κ₂(H), 10⁻¹² or 10⁻⁴), at most 10⁻⁶ or 0.2), and the
// status bits, the contact count and each slot's pair are the same.  As there, contacts make a
// step a discontinuous function of the state: an instance with contacts or a velocity past 10³
// may part (measured: touch in float64, a contact on the boundary of the sensor's
// zone counted by one and not the other; touch and four_bar in float32, whose random state
// violates the closure by O(1)), at most two models per precision (a case and its RK4 variant
// one), never after forward() in the fields contacts do not touch.  The same for the cases with
// contacts, their cones made elliptic (Euler; measured: touch and four_bar in float32).  The smooth
// stages keep the one lane's bits.  A group's result does not depend on the order its items run in:
// the three orders give the same bits.  Every phase is clean in Emu's checked mode (no two items of
// a phase touching the same bytes).
#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <cstring>
#include <iostream>
#include <limits>
#include <random>
#include <set>
#include <sstream>
#include <string>

#include "group_arenas.h"
#include "host/model/arrays.hpp"
#include "kernels/group.h"
#include "kernels/group_emu.h"
#include "kernels/pipeline.h"
#include "model_cases.h"
#include "test_util.h"

namespace zwang::test {
namespace {

// what a test runs on an instance: smooth(), forward(), or `steps` steps
struct Call {
  const char* name;
  int steps;  // -2 smooth, -1 forward
};
constexpr Call kCalls[] = {{"smooth", -2}, {"forward", -1}, {"step(1)", 1}, {"step(5)", 5}};

template <class T, class Grp>
void run(const Call& call, const ModelView<T>& view, const Instance<T>& d, Grp& g) {
  if (call.steps == -2) smooth(view, d, g);
  if (call.steps == -1) forward(view, d, g);
  for (int k = 0; k < call.steps; ++k) step(view, d, g);
}

// f(view, start state) for every model case but the RK4 variants, whose steps run Euler's stages
// four times over: the checked mode, which runs every item of every phase alone, on each stage once
template <class T, class F>
void for_each_euler_case(unsigned seed, F&& f) {
  for (const ModelCase& c : model_cases()) {
    if (c.name.size() > 4 && c.name.rfind("_rk4") == c.name.size() - 4) continue;
    SCOPED_TRACE(c.name);
    const ModelArrays<T> arrays(c.model);
    const ModelView<T> view = arrays.view();
    std::mt19937 rng(seed);
    const Arenas<T> start(c.model, view, rng);
    f(view, start);
  }
}

// the bound of tests/cuda/test_cuda.cc's CudaModels, κ₂ from the H in `data`
template <class T>
double bound(const std::vector<T>& data, const ModelView<T>& view) {
  const double floor = std::is_same_v<T, double> ? 1e-12 : 1e-4;
  const double cap = std::is_same_v<T, double> ? 1e-6 : 0.2;
  const int nv = view.s.nv;
  double kappa = 1;
  if (nv > 0) {
    Eigen::VectorXd packed(view.s.nM);
    for (int k = 0; k < view.s.nM; ++k) packed[k] = static_cast<double>(data[view.lay.qM + k]);
    const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(unpack(packed, nv),
                                                             Eigen::EigenvaluesOnly);
    kappa = eig.eigenvalues().maxCoeff() / eig.eigenvalues().minCoeff();
  }
  return std::min(cap, 1e3 * std::max(floor, 2 * std::numeric_limits<T>::epsilon() * kappa));
}

// the fields that contacts do not change (tests/cuda/test_cuda.cc's contact_free)
bool contact_free(const char* name) {
  for (const char* f :
       {"qpos", "qvel", "act", "qM", "qfrc_bias", "qfrc_passive", "xpos", "xquat", "xipos",
        "qacc_smooth", "ten_length", "ten_velocity", "subtree_com", "cvel"}) {
    if (std::strcmp(name, f) == 0) return true;
  }
  return false;
}

// the group's arenas against one lane's: the same status, time, contact count and slots, and
// every data field within the bound (the solver's iteration count and residual aside: an
// iteration more or less where the two roundings straddle the tolerance)
struct Difference {
  std::string what;         // "" when none
  bool continuous = false;  // a field beyond the bound (not a status, count or slot)
  bool free = false;        // a field beyond it that contacts do not touch
};

template <class T>
Difference difference(const Arenas<T>& a, const Arenas<T>& solo, const ModelView<T>& view) {
  const Sizes& s = view.s;
  const Layout& l = view.lay;
  if (a.status() != solo.status()) {
    return {"status " + std::to_string(a.status()) + " vs " + std::to_string(solo.status())};
  }
  if (a.time() != solo.time()) return {"time"};
  if (s.nconmax > 0) {
    const T ncon = solo.data(l.ncon);
    if (a.data(l.ncon) != ncon) return {"ncon"};
    for (int c = 0; c < static_cast<int>(ncon); ++c) {
      if (a.work()[l.contact_pair + c] != solo.work()[l.contact_pair + c]) {
        return {"the pair of slot " + std::to_string(c)};
      }
    }
  }
  const double tol = bound(solo.data(), view);
  Difference out;
  // every field: the first beyond the bound named, and whether any of those is contact-free
  const auto field = [&](const char* name, int row, int count) {
    if (std::strcmp(name, "solver_niter") == 0 || std::strcmp(name, "solver_residual") == 0) {
      return;
    }
    if (std::memcmp(&a.data()[row], &solo.data()[row], sizeof(T) * count) == 0) return;
    Eigen::VectorXd x(count), y(count);
    for (int k = 0; k < count; ++k) {
      x[k] = static_cast<double>(a.data()[row + k]);
      y[k] = static_cast<double>(solo.data()[row + k]);
    }
    const double e = relative_error(x, y);
    if (e <= tol) return;
    out.free = out.free || contact_free(name);
    if (!out.what.empty()) return;
    std::ostringstream msg;
    msg << name << ": " << e << " (bound " << tol << ")\n"
        << x.transpose() << "\n vs\n"
        << y.transpose();
    out.what = msg.str();
    out.continuous = true;
  };
#define ZW_X(name, count) field(#name, l.name, count);
  ZW_DATA_FIELDS(ZW_X)
#undef ZW_X
  return out;
}

// whether a contact or a fast velocity may have parted the two (tests/cuda/test_cuda.cc)
template <class T>
bool touched(const Arenas<T>& a, const ModelView<T>& view) {
  bool fast = false;
  for (int i = 0; i < view.s.nv; ++i) fast = fast || !(std::abs(a.data(view.lay.qvel + i)) <= 1e3);
  return fast || (view.s.nconmax > 0 && a.data(view.lay.ncon) > T(0));
}

// Emu<G> in each order against one lane; `parted` gathers the excused differences
template <class T, int G>
void expect_emu_is_solo(const Call& call, const ModelView<T>& view, const Arenas<T>& start,
                        const Arenas<T>& solo, std::set<std::string>& parted) {
  Arenas<T> lanes = start;
  for (EmuOrder order : {EmuOrder::kLanes, EmuOrder::kReverse, EmuOrder::kShuffled}) {
    SCOPED_TRACE(::testing::Message()
                 << call.name << ", G = " << G << ", order " << static_cast<int>(order));
    Arenas<T> a = start;
    Emu<G> g(order, 11);
    run(call, view, a.instance(view), g);
    if (order != EmuOrder::kLanes) {
      EXPECT_TRUE(same_bits(a, lanes));
      continue;
    }
    lanes = a;
    // the smooth stages are the one lane's operations in its order
    if (call.steps == -2) {
      EXPECT_TRUE(same_bits(a, solo));
    }
    const Difference diff = difference(a, solo, view);
    if (diff.what.empty()) continue;
    const bool excused = diff.continuous && (touched(solo, view) || touched(a, view)) &&
                         !(call.steps < 0 && diff.free);
    EXPECT_TRUE(excused) << "neither a contact nor a fast velocity explains: " << diff.what;
    parted.insert(std::string(call.name) + ", G = " + std::to_string(G) + ": " + diff.what);
  }
}

// and the steps compared moved the instances, contacts included; `elliptic`: the model cases with
// contacts, their cones elliptic
template <class T>
void expect_groups_are_solo(bool elliptic) {
  int cases = 0, moved = 0, touching = 0;
  std::set<std::string> parted_cases;
  std::string parted_all;
  for (const ModelCase& c : model_cases()) {
    Model model = c.model;
    // the RK4 variants add no solver path to the elliptic cones' run
    const bool rk4 = c.name.size() > 4 && c.name.rfind("_rk4") == c.name.size() - 4;
    if (elliptic) {
      if (model.sizes().nconmax == 0 || rk4) continue;
      model.cone = Cone::kElliptic;
      model.validate();
    }
    SCOPED_TRACE(c.name);
    ++cases;
    const ModelArrays<T> arrays(model);
    const ModelView<T> view = arrays.view();
    std::mt19937 rng(5);
    const Arenas<T> start(model, view, rng);
    for (const Call& call : kCalls) {
      Arenas<T> solo = start;
      Solo one;
      run(call, view, solo.instance(view), one);
      if (call.steps == 5) {
        moved += solo.status() == 0;
        touching += solo.status() == 0 && view.s.nconmax > 0 && solo.data(view.lay.ncon) > T(0);
      }
      std::set<std::string> parted;
      expect_emu_is_solo<T, 4>(call, view, start, solo, parted);
      expect_emu_is_solo<T, 8>(call, view, start, solo, parted);
      expect_emu_is_solo<T, 16>(call, view, start, solo, parted);
      expect_emu_is_solo<T, 32>(call, view, start, solo, parted);
      // a case and its RK4 variant are one model
      const std::string base = c.name.substr(0, c.name.rfind("_rk4"));
      if (!parted.empty()) parted_cases.insert(base);
      for (const std::string& p : parted) parted_all += c.name + ", " + p + "\n";
    }
  }
  EXPECT_GE(moved, cases - 2);
  EXPECT_GE(touching, 1);
  EXPECT_LE(parted_cases.size(), 2u) << parted_all;
  std::cout << parted_cases.size() << " models of " << cases
            << " cases parted after a contact or a fast velocity:";
  for (const std::string& name : parted_cases) std::cout << " " << name;
  std::cout << "\n";
}

TEST(GroupPipeline, EmuIsSoloInDouble) {
  expect_groups_are_solo<double>(false);
}

TEST(GroupPipeline, EmuIsSoloInFloat) {
  expect_groups_are_solo<float>(false);
}

TEST(GroupPipeline, EllipticConesInDouble) {
  expect_groups_are_solo<double>(true);
}

TEST(GroupPipeline, EllipticConesInFloat) {
  expect_groups_are_solo<float>(true);
}

// every phase of a step keeps the contract: its items touch disjoint bytes of the instance; and
// checking changes nothing
TEST(GroupPipeline, CheckedModeIsClean) {
  for_each_euler_case<double>(9, [](const ModelView<double>& view, const Arenas<double>& start) {
    Arenas<double> plain = start;
    Emu<8> unchecked;
    step(view, plain.instance(view), unchecked);
    // the reverse order too, except under sanitizers
    for (EmuOrder order : {EmuOrder::kLanes, EmuOrder::kReverse}) {
      if (kSanitized && order != EmuOrder::kLanes) continue;
      Arenas<double> a = start;
      Emu<8> g(order);
      a.watch(g);
      EXPECT_NO_THROW(step(view, a.instance(view), g));
      EXPECT_TRUE(same_bits(a, plain));
    }
  });
}

}  // namespace
}  // namespace zwang::test
