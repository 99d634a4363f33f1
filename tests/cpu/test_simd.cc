// The SIMD CPU backend against the scalar one, instance by instance: the same kernels/ stages
// on packs of instances must give what they give one instance at a time, bit for bit: the
// operations are the same IEEE operations in the same order (no contraction into fused
// multiply-adds in either unit, sin, cos and atan2 from the C library lane by lane).  Stopped
// instances must match in their state, time and status (the SIMD backend leaves their outputs
// unspecified).  The data fields include sensordata: a case has every sensor type.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "host/cpu/cache_size.hpp"
#include "kernels/status.h"
#include "model_cases.h"
#include "test_util.h"
#include "zwang/derived.hpp"
#include "zwang/loaders.hpp"

namespace zwang::test {
namespace {

std::vector<CpuSimd> isas() {
  std::vector<CpuSimd> out;
  const CpuSimd best = cpu_simd_supported();
  if (best == CpuSimd::kAvx2 || best == CpuSimd::kAvx512) out.push_back(CpuSimd::kAvx2);
  if (best == CpuSimd::kAvx512) out.push_back(CpuSimd::kAvx512);
  return out;
}

const char* isa_name(CpuSimd s) {
  return s == CpuSimd::kScalar ? "scalar" : s == CpuSimd::kAvx512 ? "avx512" : "avx2";
}

// every model case on the scalar backend and every SIMD instruction set this CPU runs, in
// float64 and float32: f.template operator()<T>(case, isa)
template <class F>
void for_each_case_and_backend(const F& f) {
  std::vector<CpuSimd> backends = isas();
  backends.push_back(CpuSimd::kScalar);
  for (const ModelCase& c : model_cases()) {
    for (CpuSimd isa : backends) {
      f.template operator()<double>(c, isa);
      f.template operator()<float>(c, isa);
    }
  }
}

// the state, time and status of instance i; NaN equals NaN
template <class T>
void expect_same_state(Simulator<T>& simd, Simulator<T>& scalar, std::int64_t i,
                       const std::string& where) {
  EXPECT_EQ(simd.batch().status()[i], scalar.batch().status()[i]) << where << ", instance " << i;
  EXPECT_EQ(simd.batch().time()[i], scalar.batch().time()[i]) << where << ", instance " << i;
  for (FieldId f : {FieldId::qpos, FieldId::qvel, FieldId::act}) {
    const std::vector<T> a = simd.batch().field(f).get(i);
    const std::vector<T> b = scalar.batch().field(f).get(i);
    for (std::size_t k = 0; k < a.size(); ++k) {
      EXPECT_TRUE(a[k] == b[k] || (std::isnan(a[k]) && std::isnan(b[k])))
          << where << ", instance " << i << ", " << field_name(f) << "[" << k << "]";
    }
  }
}

// every state and output field of instance i
template <class T>
void expect_same_instance(Simulator<T>& simd, Simulator<T>& scalar, std::int64_t i, double tol,
                          const std::string& where) {
  for (FieldId f : data_fields()) {
    const Eigen::VectorXd a = get(simd.batch().field(f), i);
    const Eigen::VectorXd b = get(scalar.batch().field(f), i);
    // tolerance 0: the same values (inf equals inf, NaN equals NaN, −0 equals +0)
    const bool same = tol == 0 ? same_bits(a, b) : relative_error(a, b) <= tol;
    EXPECT_TRUE(same) << where << ", instance " << i << ", " << field_name(f) << ": "
                      << a.transpose() << " vs " << b.transpose();
  }
  EXPECT_EQ(simd.batch().status()[i], scalar.batch().status()[i]) << where << ", instance " << i;
  EXPECT_EQ(simd.batch().time()[i], scalar.batch().time()[i]) << where << ", instance " << i;
}

// every instance of `simd` against `scalar`: a stopped one (a contact overflow, say) in its state,
// time and status (its outputs are unspecified), the others in every field
template <class T>
void expect_same_instances(Simulator<T>& simd, Simulator<T>& scalar, double tol,
                           const std::string& where) {
  for (std::int64_t i = 0; i < scalar.size(); ++i) {
    if ((scalar.batch().status()[i] & kStatusStopping) != 0) {
      expect_same_state(simd, scalar, i, where);
    } else {
      expect_same_instance(simd, scalar, i, tol, where);
    }
  }
}

// two full packs of 16 float32 lanes and a part of a third; under sanitizers one and a part
constexpr std::int64_t kPacksAndAPart = kSanitized ? 19 : 37;

template <class T>
void compare_runs(const ModelCase& c, CpuSimd isa, double tol) {
  // three packs and a partial one at the widest width (16 float32 lanes)
  const std::int64_t n = 51;
  Simulator<T> simd(c.model, n, {.threads = 2, .cpu_simd = isa});
  Simulator<T> scalar(c.model, n, {.threads = 2, .cpu_simd = CpuSimd::kScalar});
  ASSERT_NE(simd.backend().find(isa_name(isa)), std::string::npos) << simd.backend();
  ASSERT_NE(scalar.backend().find("cpu ("), std::string::npos) << scalar.backend();
  set_same_states(simd, scalar, 7);
  const std::string where = c.name + " " + isa_name(isa);
  const auto expect_same = [&](const std::string& what) {
    expect_same_instances(simd, scalar, tol, where + what);
  };
  simd.forward();
  scalar.forward();
  expect_same(" forward");
  if (!scalar.batch().efc_force().get(0).empty()) {
    // the rows must be in play, not only possible
    double active = 0, contacts = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      active += scalar.batch().efc_nactive()(i, 0);
      contacts += scalar.batch().ncon()(i, 0);
    }
    EXPECT_GT(active, 0) << where;
    if (c.name.find("contacts") != std::string::npos) {
      EXPECT_GT(contacts, 0) << where;
    }
  }
  for (int steps : {1, 5}) {
    simd.step(steps);
    scalar.step(steps);
    expect_same(" step(" + std::to_string(steps) + ")");
  }
}

TEST(Simd, EqualsTheScalarBackendInstanceByInstance) {
  if (isas().empty()) GTEST_SKIP() << "this CPU has neither AVX2 nor AVX-512";
  for (const ModelCase& c : model_cases()) {
    for (CpuSimd isa : isas()) {
      compare_runs<double>(c, isa, 0);
      compare_runs<float>(c, isa, 0);
    }
  }
}

// lanes that fail or were stopped: the same status bits and state as the scalar backend, and
// the other lanes of their packs unaffected
template <class T>
void compare_failures(const Model& model, CpuSimd isa) {
  const std::int64_t n = 37;
  Simulator<T> simd(model, n, {.threads = 1, .cpu_simd = isa});
  Simulator<T> scalar(model, n, {.threads = 1, .cpu_simd = CpuSimd::kScalar});
  set_same_states(simd, scalar, 11);
  const T nan = std::numeric_limits<T>::quiet_NaN();
  const T huge = std::numeric_limits<T>::max();
  for (Simulator<T>* sim : {&simd, &scalar}) {
    Batch<T>& b = sim->batch();
    b.qvel()(2, 0) = nan;              // bad state
    b.body_mass()(5, 1) = T(-1);       // bad parameters
    b.qvel()(9, 0) = huge;             // diverges during the step
    b.dof_damping()(12, 0) = -huge;    // H + h damping indefinite: factorisation
    b.status()[20] = kStatusDiverged;  // stopped before the call
    b.qvel()(33, 0) = nan;             // in the partial last pack
  }
  for (int call = 0; call < 3; ++call) {
    simd.step(4);
    scalar.step(4);
    for (std::int64_t i = 0; i < n; ++i) {
      const int status = scalar.batch().status()[i];
      const std::string where = std::string(isa_name(isa)) + " call " + std::to_string(call);
      if ((status & kStatusStopping) == 0) {
        expect_same_instance(simd, scalar, i, 0, where);
        continue;
      }
      EXPECT_EQ(simd.batch().status()[i], status) << where << ", instance " << i;
      EXPECT_EQ(simd.batch().time()[i], scalar.batch().time()[i]) << where << ", instance " << i;
      for (FieldId f : {FieldId::qpos, FieldId::qvel, FieldId::act}) {
        const char* name = field_name(f);
        const std::vector<T> a = simd.batch().field(f).get(i);
        const std::vector<T> b = scalar.batch().field(f).get(i);
        for (std::size_t k = 0; k < a.size(); ++k) {
          EXPECT_TRUE(a[k] == b[k] || (std::isnan(a[k]) && std::isnan(b[k])))
              << where << ", instance " << i << ", " << name << "[" << k << "]";
        }
      }
    }
  }
  for (std::int64_t i : {2, 5, 9, 12, 20, 33}) {
    EXPECT_NE(scalar.batch().status()[i] & kStatusStopping, 0) << "instance " << i;
  }
}

// humanoid.xml among them: contacts and Euler with damping, whose lanes leave the damped step to
// the pack (FromPack::deferred) beside lanes that fail or stopped
TEST(Simd, StoppedLanesMatchTheScalarBackend) {
  if (isas().empty()) GTEST_SKIP() << "this CPU has neither AVX2 nor AVX-512";
  Model rk4 = examples::floating_base();
  rk4.integrator = Integrator::kRK4;
  rk4.validate();
  std::vector<Model> models{examples::chain(), rk4};
  if (std::filesystem::exists(humanoid_xml())) models.push_back(load_mjcf(humanoid_xml()).model);
  for (CpuSimd isa : isas()) {
    for (const Model& m : models) {
      compare_failures<double>(m, isa);
      compare_failures<float>(m, isa);
    }
  }
}

// every output field but sensordata (whose slots of sensors zwang does not compute keep their
// values), NaN in every instance
template <class T>
void poison_outputs(Batch<T>& b) {
  for (FieldId f : data_fields()) {
    if (field_rows(f, b.layout(), b.sizes()).row < input_rows(b.layout())) continue;
    if (f == FieldId::sensordata) continue;
    const FieldRef<T> r = b.field(f);
    for (int j = 0; j < r.width(); ++j) {
      for (T& v : r.column(j)) v = std::numeric_limits<T>::quiet_NaN();
    }
  }
}

// the outputs are written by every call, never read: NaN in them before each forward() and
// step() changes no value after it (the SIMD backend copies in only the state, the inputs and
// sensordata: kernels/layout.h, input_rows())
template <class T>
void compare_poisoned(const ModelCase& c, CpuSimd isa) {
  const std::int64_t n = kPacksAndAPart;
  Simulator<T> clean(c.model, n, {.threads = 1, .cpu_simd = isa});
  Simulator<T> poisoned(c.model, n, {.threads = 1, .cpu_simd = isa});
  set_same_states(clean, poisoned, 5);
  for (int steps : {0, 1, 3}) {
    poison_outputs(poisoned.batch());
    for (Simulator<T>* sim : {&clean, &poisoned}) {
      if (steps == 0) {
        sim->forward();
      } else {
        sim->step(steps);
      }
    }
    const std::string where =
        c.name + " " + isa_name(isa) + " after step(" + std::to_string(steps) + ")";
    expect_same_instances(poisoned, clean, 0, where);
  }
}

TEST(Simd, OutputsAreWrittenByEveryCallAndNeverRead) {
  for_each_case_and_backend(
      []<class T>(const ModelCase& c, CpuSimd isa) { compare_poisoned<T>(c, isa); });
}

// a simulator that keeps some outputs: those equal a simulator's that keeps all, bit for bit,
// after forward() and steps; the others' accessors throw, naming the field
template <class T>
void compare_kept_outputs(const ModelCase& c, CpuSimd isa) {
  const std::int64_t n = kPacksAndAPart;
  const std::vector<FieldId> kept = {FieldId::qpos, FieldId::qacc, FieldId::cvel,
                                     FieldId::contact_force, FieldId::sensordata};
  Simulator<T> all(c.model, n, {.threads = 1, .cpu_simd = isa});
  Simulator<T> some(c.model, n, {.threads = 1, .cpu_simd = isa, .outputs = kept});
  set_same_states(all, some, 9);
  const std::string name = c.name + " " + isa_name(isa);
  EXPECT_EQ(some.batch().outputs(), (std::vector<FieldId>{FieldId::qacc, FieldId::contact_force,
                                                          FieldId::cvel, FieldId::sensordata}))
      << name;
  EXPECT_EQ(all.batch().outputs().size(),
            static_cast<std::size_t>(static_cast<int>(FieldId::sensordata) -
                                     static_cast<int>(FieldId::qacc) + 1));
  for (int steps : {0, 1, 3}) {
    for (Simulator<T>* sim : {&all, &some}) {
      if (steps == 0) {
        sim->forward();
      } else {
        sim->step(steps);
      }
    }
    const std::string where = name + " after step(" + std::to_string(steps) + ")";
    for (std::int64_t i = 0; i < n; ++i) {
      expect_same_state(some, all, i, where);
      if ((all.batch().status()[i] & kStatusStopping) != 0) continue;
      for (FieldId f : kept) {
        const Eigen::VectorXd a = get(some.batch().field(f), i);
        const Eigen::VectorXd b = get(all.batch().field(f), i);
        EXPECT_TRUE(same_bits(a, b)) << where << ", instance " << i << ", " << field_name(f);
      }
    }
  }
  for (FieldId f : data_fields()) {
    if (!is_output(f) || some.batch().kept(f)) continue;
    try {
      std::as_const(some.batch()).field(f);
      ADD_FAILURE() << name << ": reading " << field_name(f) << " did not throw";
    } catch (const OutputNotKept& e) {
      EXPECT_NE(std::string(e.what()).find(field_name(f)), std::string::npos) << e.what();
    }
  }
}

TEST(Simd, OnlyTheKeptOutputsAreCurrentAndEqualThoseOfAFullRun) {
  for_each_case_and_backend(
      []<class T>(const ModelCase& c, CpuSimd isa) { compare_kept_outputs<T>(c, isa); });
}

TEST(Simd, OutputsThatAreNotKeptThrowAndParametersAreRefused) {
  Simulator<double> sim(examples::chain(), 4, {.threads = 1, .outputs = std::vector<FieldId>{}});
  EXPECT_TRUE(sim.batch().outputs().empty());
  sim.step(2);
  EXPECT_EQ(sim.batch().qpos().instances(), 4);
  EXPECT_GT(sim.batch().time()[0], 0);
  try {
    sim.batch().qM();
    ADD_FAILURE() << "qM did not throw";
  } catch (const OutputNotKept& e) {
    EXPECT_NE(std::string(e.what()).find("qM is not among the outputs"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("(none)"), std::string::npos) << e.what();
  }
  EXPECT_THROW(std::as_const(sim.batch()).qacc(), OutputNotKept);
  std::vector<double> cinert(4 * derived_size(sim.model(), Derived::kCinert));
  try {
    derive(sim.model(), sim.batch(), Derived::kCinert, std::span<double>(cinert), 1);
    ADD_FAILURE() << "cinert was derived from outputs not kept";
  } catch (const OutputNotKept& e) {
    EXPECT_NE(std::string(e.what()).find("cinert is computed from xquat, xipos, subtree_com; this "
                                         "simulator does not keep xquat, xipos, subtree_com"),
              std::string::npos)
        << e.what();
  }
  try {
    Simulator<double> bad(examples::chain(), 4,
                          {.outputs = std::vector<FieldId>{FieldId::qM, FieldId::body_mass}});
    ADD_FAILURE() << "a parameter among the outputs was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("body_mass is a parameter"), std::string::npos)
        << e.what();
  }
}

// A batch whose rows exceed the L3 cache gets its outputs back through non-temporal stores on
// AVX-512 (host/cpu/simd.inl): a humanoid's outputs, step after step, must still be those of
// the scalar backend bit for bit.  The batch is a quarter larger than the L3 the backend
// compares it with (host/cpu/cache_size.hpp).
TEST(Simd, BatchesBeyondTheL3EqualTheScalarBackend) {
  if (cpu_simd_supported() != CpuSimd::kAvx512) {
    GTEST_SKIP() << "only the AVX-512 backend writes its outputs past the caches";
  }
  const auto l3 = static_cast<std::int64_t>(l3_bytes());
  Model model = load_model("/usr/share/mujoco/model/humanoid/humanoid.xml").model;
  model.disableflags |= kDisableContact | kDisableConstraint;
  const auto check = [&]<class T>() {
    const Layout lay = Batch<T>(model, 1).layout();
    const std::int64_t bytes =
        std::int64_t(lay.data_rows + lay.param_rows) * std::int64_t(sizeof(T));
    const std::int64_t n = l3 * 5 / 4 / bytes + 1;
    if (n > (std::int64_t{1} << 16)) {
      GTEST_SKIP() << "an L3 of " << l3 << " bytes needs " << n << " humanoids";
    }
    Simulator<T> simd(model, n, {.threads = 2, .cpu_simd = CpuSimd::kAvx512});
    Simulator<T> scalar(model, n, {.threads = 2, .cpu_simd = CpuSimd::kScalar});
    set_same_states(simd, scalar, 11);
    // every 7th instance and the last: every lane of a pack, and the last pack's
    const auto compare = [&](const std::string& what) {
      std::vector<std::int64_t> sample;
      for (std::int64_t i = 0; i < n; i += 7) sample.push_back(i);
      sample.push_back(n - 1);
      for (std::int64_t i : sample) {
        ASSERT_EQ(scalar.batch().status()[i], 0) << what << ", instance " << i;
        expect_same_instance(simd, scalar, i, 0.0, what);
        if (::testing::Test::HasFailure()) return;
      }
    };
    const std::string where =
        "humanoid, " + std::to_string(8 * sizeof(T)) + " bits, " + std::to_string(n) + " instances";
    simd.forward();
    scalar.forward();
    compare(where + ", forward");
    simd.step(2);
    scalar.step(2);
    compare(where + ", step(2)");
  };
  check.template operator()<double>();
  check.template operator()<float>();
}

// free bodies of every primitive type on a floor (condim 1, 3, 4, 6), an arm with joint limits,
// friction loss and a limited tendon (their limit sensors), and a joint equality; ten contact
// slots: the four bodies on the floor fill them (box 4, ball 1, capsule 2, cylinder 3)
constexpr const char* kMixedContacts = R"(<mujoco model="mixed_contacts">
  <size nconmax="10"/>
  <worldbody>
    <geom name="floor" type="plane" size="3 3 0.1"/>
    <body name="box" pos="0 0 0.05">
      <freejoint/><geom type="box" size="0.1 0.08 0.05"/>
    </body>
    <body name="ball" pos="0.3 0 0.06">
      <freejoint/><geom type="sphere" size="0.06" condim="6"/>
    </body>
    <body name="pill" pos="-0.3 0 0.04" euler="0 90 0">
      <freejoint/><geom type="capsule" size="0.04 0.1" condim="4"/>
    </body>
    <body name="can" pos="0 0.3 0.05">
      <freejoint/><geom type="cylinder" size="0.05 0.05" condim="1"/>
    </body>
    <body name="arm" pos="0 -0.4 0.3">
      <joint name="shoulder" axis="0 1 0" range="-60 60" frictionloss="0.1" damping="0.1"/>
      <geom type="capsule" fromto="0 0 0 0.25 0 0" size="0.03"/>
      <body pos="0.25 0 0">
        <joint name="elbow" axis="0 1 0" range="-90 10" frictionloss="0.05"/>
        <geom type="capsule" fromto="0 0 0 0.2 0 0" size="0.025"/>
      </body>
    </body>
  </worldbody>
  <tendon>
    <fixed name="bend" limited="true" range="-0.5 0.5">
      <joint joint="shoulder" coef="1"/><joint joint="elbow" coef="-1"/>
    </fixed>
  </tendon>
  <equality><joint joint1="elbow" joint2="shoulder" polycoef="0 -0.5 0 0 0"/></equality>
  <sensor>
    <jointlimitpos joint="shoulder"/><jointlimitpos joint="elbow"/><tendonlimitpos tendon="bend"/>
  </sensor>
</mujoco>)";

// The lanes of one pack in every situation the rows and the solver meet, side by side: in the
// air, resting on the floor (1 mm into it), sunk with the ball inside the box (11 contacts: the
// slots overflow), stacked (box, ball, capsule, cylinder, each 5 mm into the one below), stopped
// before the call, with the arm past its limits and the tendon's, with a NaN velocity, thrown
// fast (these four 1 mm above the floor); 37 instances take the eight situations in a shuffled
// turn, so that a pack of eight or sixteen lanes holds all of them, a pack of four half, and the
// last pack is partial
template <class T>
void compare_mixed_contacts(const Model& model, CpuSimd isa) {
  const std::int64_t n = 37;
  Simulator<T> simd(model, n, {.threads = 1, .cpu_simd = isa});
  Simulator<T> scalar(model, n, {.threads = 1, .cpu_simd = CpuSimd::kScalar});
  std::mt19937 rng(3);
  std::normal_distribution<double> normal(0, 1);
  enum { kAir, kResting, kSunk, kStopped, kLimits, kNaN, kStacked, kFast };
  // heights of the stacked bodies above their qpos0: each 5 mm into the one below
  const double stacked[4] = {-0.005, 0.095, 0.21, 0.285};
  std::vector<int> situation(n);
  for (std::int64_t i = 0; i < n; ++i) {
    Eigen::VectorXd qpos = Eigen::Map<const Eigen::VectorXd>(model.qpos0.data(), model.nq);
    Eigen::VectorXd qvel = Eigen::VectorXd::Zero(model.nv);
    for (int k = 0; k < model.nv; ++k) qvel[k] = 0.1 * normal(rng);
    const int s = situation[i] = static_cast<int>((i * 5) % 8);
    for (int b = 0; b < 4; ++b) {
      double& z = qpos[7 * b + 2];
      z += s == kAir       ? 1.0
           : s == kResting ? -1e-3 * (1 + 0.3 * normal(rng))
           : s == kSunk    ? -0.03
           : s == kStacked ? stacked[b]
                           : 1e-3;
      if (s == kStacked || (s == kSunk && b == 1)) {
        qpos[7 * b] = qpos[7 * b + 1] = 0;  // over the box
      } else {
        qpos[7 * b] += 0.01 * normal(rng);
      }
    }
    if (s == kLimits) {
      qpos[4 * 7] = 1.4;     // shoulder past 60°
      qpos[4 * 7 + 1] = -2;  // elbow past −90°, the tendon past its range
    }
    if (s == kFast) qvel *= 30;
    if (s == kNaN) qvel[3] = std::numeric_limits<double>::quiet_NaN();
    for (Simulator<T>* sim : {&simd, &scalar}) {
      set(sim->batch().qpos(), i, qpos);
      set(sim->batch().qvel(), i, qvel);
      if (s == kStopped) sim->batch().status()[i] = kStatusDiverged;
    }
  }
  const std::string where =
      std::string(isa_name(isa)) + " " + std::to_string(8 * sizeof(T)) + " bits";
  const auto expect_same = [&](const std::string& what) {
    expect_same_instances(simd, scalar, 0, where + what);
  };
  simd.forward();
  scalar.forward();
  expect_same(", forward");
  // each situation is what it says after forward(): contacts, overflow, limits, stopped lanes
  for (std::int64_t i = 0; i < n; ++i) {
    const int status = scalar.batch().status()[i] & kStatusStopping;
    const double ncon = scalar.batch().ncon()(i, 0);
    const std::vector<T> limits = scalar.batch().sensordata().get(i);
    const std::string lane = where + ", instance " + std::to_string(i);
    switch (situation[i]) {
      case kResting:
      case kStacked:
        EXPECT_EQ(status, 0) << lane;
        EXPECT_GE(ncon, situation[i] == kResting ? 6 : 4) << lane;
        break;
      case kSunk:
        EXPECT_NE(status & kStatusContactOverflow, 0) << lane;
        break;
      case kLimits:
        EXPECT_EQ(status, 0) << lane;
        EXPECT_EQ(ncon, 0) << lane;
        for (int k = 0; k < 3; ++k) EXPECT_NE(limits[k], T(0)) << lane << ", limit " << k;
        break;
      case kStopped:
      case kNaN:
        EXPECT_NE(status, 0) << lane;
        break;
      default:
        EXPECT_EQ(status, 0) << lane;
        EXPECT_EQ(ncon, 0) << lane;
    }
  }
  for (int steps : {1, 5}) {
    simd.step(steps);
    scalar.step(steps);
    expect_same(", step(" + std::to_string(steps) + ")");
  }
}

TEST(Simd, PacksOfLanesInDifferentContactSituationsEqualTheScalarBackend) {
  if (isas().empty()) GTEST_SKIP() << "this CPU has neither AVX2 nor AVX-512";
  const Model model = load_mjcf_string(kMixedContacts, "mixed_contacts.xml").model;
  for (CpuSimd isa : isas()) {
    compare_mixed_contacts<double>(model, isa);
    compare_mixed_contacts<float>(model, isa);
  }
}

TEST(Simd, AutoPicksTheWidestInstructionSet) {
  Simulator<double> sim(examples::chain(), 8, {.threads = 1});
  switch (cpu_simd_supported()) {
    case CpuSimd::kAvx512:
      EXPECT_NE(sim.backend().find("avx512 8xf64"), std::string::npos) << sim.backend();
      break;
    case CpuSimd::kAvx2:
      EXPECT_NE(sim.backend().find("avx2 4xf64"), std::string::npos) << sim.backend();
      break;
    default:
      EXPECT_NE(sim.backend().find("cpu ("), std::string::npos) << sim.backend();
  }
}

}  // namespace
}  // namespace zwang::test
