// The CUDA backend against the CPU backend, instance by instance, for every example model, in
// float64 and float32 (relative: 1e-12 and 1e-4, or 2 ε κ₂(H) where H is worse conditioned),
// forward() and step() under Euler and RK4, for the in-kernel and cuSOLVER factorisations, fused
// and staged kernels; graph replay, transfers, host edits, uploads without a synchronisation,
// batch size checks, the Thrust utilities, two simulators at once, 2²⁰ instances.  Each test
// needs a GPU and is skipped, with cuda_status()'s reason, where there is none.  Host-side logic
// is tested on the CPU in test_cuda_host.cc.
#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <ostream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <type_traits>
#include <vector>

#include "cuda/cuda_backend.hpp"
#include "cuda/cusolver_chol.hpp"
#include "cuda/device_memory.hpp"
#include "cuda/plan.hpp"
#include "cuda/tools.hpp"
#include "group_arenas.h"
#include "host/model/arrays.hpp"
#include "kernels/energy.h"
#include "kernels/group_emu.h"
#include "kernels/pipeline.h"
#include "kernels/status.h"
#include "model_cases.h"
#include "test_util.h"
#include "zwang/simulator.hpp"

namespace zwang::test {
namespace {

// instance i's state and masses from its own seed, so that any instance can be rebuilt alone
template <class T>
void scatter(Batch<T>& b, const Model& model, std::int64_t first, std::int64_t count) {
  for (std::int64_t i = first; i < first + count; ++i) {
    std::mt19937 rng(1000 + static_cast<unsigned>(i));
    const RandomState s = random_state(model, rng);
    set(b.qpos(), i - first, s.qpos);
    set(b.qvel(), i - first, s.qvel);
    set(b.ctrl(), i - first, s.ctrl);
    std::uniform_real_distribution<double> scale(0.8, 1.2);
    Eigen::VectorXd mass = get(b.body_mass(), i - first);
    for (int k = 1; k < model.nbody; ++k) mass[k] *= scale(rng);
    set(b.body_mass(), i - first, mass);
  }
}

// one instance with a NaN velocity, one with a negative mass
template <class T>
void break_two(Batch<T>& b, const Model& model) {
  std::vector<T> qvel = b.qvel().get(3);
  qvel[0] = std::numeric_limits<T>::quiet_NaN();
  b.qvel().set(3, qvel);
  std::vector<T> mass = b.body_mass().get(6);
  for (int k = 1; k < model.nbody; ++k) mass[k] = -mass[k];
  b.body_mass().set(6, mass);
}

// Relative tolerance of instance i.  Two backward-stable solves of H q̈ = τ − h that round
// differently (the GPU fuses multiply-adds, the CPU build does not) differ by up to about
// ε κ₂(H) each, so the bound is 2 ε κ₂(H) with κ₂ from the CPU's H, and never below the
// precision's floor (1e-12, 1e-4).  On rod_chain in float32 κ₂ reaches 8·10³ and the GPU's q̈
// differs by 1.6·10⁻⁴ (H100, nvcc 13.0), within 2 ε κ₂ = 9.5·10⁻⁴.
template <class T>
double tolerance(Batch<T>& cpu, std::int64_t i) {
  const double floor = std::is_same_v<T, double> ? 1e-12 : 1e-4;
  const int nv = cpu.sizes().nv;
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(unpack(get(cpu.qM(), i), nv),
                                                           Eigen::EigenvaluesOnly);
  const double kappa = eig.eigenvalues().maxCoeff() / eig.eigenvalues().minCoeff();
  return std::max(floor, 2 * std::numeric_limits<T>::epsilon() * kappa);
}

// every state and output of every instance within its relative tolerance; status bits equal;
// a stopped instance's values are not compared
template <class T>
void expect_close(Batch<T>& gpu, Batch<T>& cpu, const std::string& what) {
  ASSERT_EQ(gpu.size(), cpu.size());
  const std::vector<std::pair<const char*, FieldRef<T> (Batch<T>::*)()>> fields = {
      {"qpos", &Batch<T>::qpos},
      {"qvel", &Batch<T>::qvel},
      {"qacc", &Batch<T>::qacc},
      {"qM", &Batch<T>::qM},
      {"qfrc_bias", &Batch<T>::qfrc_bias},
      {"qfrc_passive", &Batch<T>::qfrc_passive},
      {"qfrc_actuator", &Batch<T>::qfrc_actuator},
      {"qfrc_applied", &Batch<T>::qfrc_applied},
      {"xpos", &Batch<T>::xpos},
      {"xquat", &Batch<T>::xquat},
      {"xipos", &Batch<T>::xipos}};
  for (std::int64_t i = 0; i < gpu.size(); ++i) {
    ASSERT_EQ(gpu.status()[i], cpu.status()[i]) << what << ", instance " << i;
    EXPECT_NEAR(gpu.time()[i], cpu.time()[i], 1e-9) << what << ", instance " << i;
    if (cpu.status()[i]) continue;
    const double tol = tolerance(cpu, i);
    for (const auto& [name, field] : fields) {
      ASSERT_LT(relative_error(get((gpu.*field)(), i), get((cpu.*field)(), i)), tol)
          << what << ", instance " << i << ", " << name;
    }
  }
}

struct GpuCase {
  std::string model;
  bool f64;
  CholeskyPath cholesky;
  CudaKernels kernels;
  CudaGroup group = CudaGroup::kOne;  // lanes per instance (k32: the lane-group kernel)
};

std::vector<GpuCase> gpu_cases() {
  std::vector<GpuCase> out;
  for (const std::string& name : examples::names()) {
    for (bool f64 : {true, false}) {
      out.push_back({name, f64, CholeskyPath::kInKernel, CudaKernels::kFused});
      out.push_back({name, f64, CholeskyPath::kInKernel, CudaKernels::kStaged});
      out.push_back({name, f64, CholeskyPath::kCusolver, CudaKernels::kFused});
      out.push_back({name, f64, CholeskyPath::kCusolver, CudaKernels::kStaged});
      out.push_back({name, f64, CholeskyPath::kInKernel, CudaKernels::kFused, CudaGroup::k32});
    }
  }
  return out;
}

std::string describe(const GpuCase& c) {
  return c.model + (c.f64 ? "_f64" : "_f32") +
         (c.cholesky == CholeskyPath::kCusolver ? "_cusolver" : "_inkernel") +
         (c.kernels == CudaKernels::kFused ? "_fused" : "_staged") +
         (c.group == CudaGroup::k32 ? "_g32" : "");
}

std::string gpu_case_name(const ::testing::TestParamInfo<GpuCase>& info) {
  return describe(info.param);
}

void PrintTo(const GpuCase& c, std::ostream* os) {
  *os << describe(c);
}

// skips, with the reason, where no CUDA device can be used
class WithDevice {
 protected:
  static std::string no_device() {
    const CudaStatus cuda = cuda_status();
    return cuda.devices > 0 ? "" : cuda.reason;
  }
};

#define ZW_REQUIRE_DEVICE()                      \
  do {                                           \
    const std::string reason = no_device();      \
    if (!reason.empty()) GTEST_SKIP() << reason; \
  } while (false)

// the multiprocessors of the current device
int multiprocessors() {
  int device = 0, sms = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  return std::max(sms, 1);
}

class CudaGroups : public ::testing::Test, protected WithDevice {
 protected:
  void SetUp() override { ZW_REQUIRE_DEVICE(); }
};

// Warp<G> gives Emu<G>'s bits: the rounding of the sum, the maximum, the argmax among ties, the
// scan, and two sums carried together from a start
template <int G>
void expect_warp_is_emu() {
  for (int n : {0, 1, G - 1, G + 3, 200}) {
    std::mt19937_64 rng(static_cast<std::uint64_t>(n + G));
    std::uniform_real_distribution<double> u(-1, 1);
    std::vector<double> v(static_cast<std::size_t>(n));
    std::vector<int> c(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) {
      v[i] = u(rng) * std::pow(10.0, 12 * std::abs(u(rng)) - 6);
      c[i] = static_cast<int>(rng() % 4);
    }
    const gpu::GroupCheck w = gpu::device_group_check<G>(v, c);
    Emu<G> e;
    auto value = [&](int i) { return v[i]; };
    const std::string at = fmt::format("G {}, n {}", G, n);
    EXPECT_EQ(w.sum, e.template sum<double>(n, value)) << at;
    EXPECT_EQ(w.max, e.template max<double>(n, value, -INFINITY)) << at;
    EXPECT_EQ(w.argmax, e.argmax(n, [&](int i) { return std::floor(2 * v[i]); })) << at;
    std::vector<int> offsets(static_cast<std::size_t>(n));
    EXPECT_EQ(w.total,
              e.scan(
                  n, [&](int i) { return c[i]; }, [&](int i, int offset) { offsets[i] = offset; }))
        << at;
    EXPECT_EQ(w.offsets, offsets) << at;
    const TwoSums<double> pair = e.sum(
        n, [&](int i) { return TwoSums<double>(v[i], -2 * v[i]); }, TwoSums<double>(1.5, -0.5));
    EXPECT_EQ(w.pair_a, pair.a) << at;
    EXPECT_EQ(w.pair_b, pair.b) << at;
  }
}

TEST_F(CudaGroups, WarpIsEmuBitForBit) {
  expect_warp_is_emu<16>();
  expect_warp_is_emu<32>();
  EXPECT_EQ(gpu::device_group_check<32>({1.0, 2.0}, {1, 1}).uniform, 7);
}

// The group kernels keep what the batch keeps: with outputs {qacc, cfrc_ext}, forward() and
// step(3) of a floating base (no contact to part the paths) give the one-thread kernel's state,
// time, status and kept outputs within 1e-9 of their scale (the sums' order differs) for 8
// instances per multiprocessor and 3 more; a device field of an output not kept is
// OutputNotKept. G = 16 where the build has it (ZWANG_CUDA_GROUPS).
TEST_F(CudaGroups, KeptOutputsAgreeWithOneThread) {
  const Model model = examples::floating_base();
  const std::int64_t n = 8 * multiprocessors() + 3;
  const std::vector<FieldId> kept = {FieldId::qacc, FieldId::cfrc_ext};
  const auto run = [&](CudaGroup group) {
    auto sim = std::make_unique<Simulator<double>>(
        model, n,
        SimulatorOptions{.backend = Backend::kCuda, .cuda_group = group, .outputs = kept});
    Simulator<double> reference(model, n, {.threads = 2});
    set_same_states(*sim, reference, 3);
    sim->forward();
    return sim;
  };
  const std::unique_ptr<Simulator<double>> one = run(CudaGroup::kOne);
  one->step(3);
  for (const CudaGroup group : {CudaGroup::k32, CudaGroup::k16}) {
    std::unique_ptr<Simulator<double>> sim;
    try {
      sim = run(group);
    } catch (const std::invalid_argument& e) {
      std::cout << "not built: " << e.what() << "\n";
      continue;
    }
    sim->step(3);
    const std::string at = sim->backend();
    EXPECT_NE(at.find("lane groups"), std::string::npos) << at;
    for (std::int64_t i = 0; i < n; ++i) {
      EXPECT_EQ(sim->batch().status()[i], one->batch().status()[i]) << at << " " << i;
      EXPECT_EQ(sim->batch().time()[i], one->batch().time()[i]) << at << " " << i;
      for (const FieldId f : {FieldId::qpos, FieldId::qvel, FieldId::qacc, FieldId::cfrc_ext}) {
        EXPECT_LT(relative_error(get(sim->batch().field(f), i), get(one->batch().field(f), i)),
                  1e-9)
            << at << " " << field_name(f) << " " << i;
      }
    }
    EXPECT_THROW(sim->device_field(FieldId::xpos), OutputNotKept) << at;
    EXPECT_NO_THROW(sim->device_field(FieldId::qacc)) << at;
  }
}

// forward() and step(5) of every model case on one warp against Emu<32> on the CPU: the same
// status bits and contact count, the state and accelerations to 1e-9 of their scale (the GPU
// contracts products into FMAs and has its own libm), and the same bits in a second run
TEST_F(CudaGroups, PipelineOnAWarpIsEmu) {
  int compared = 0;
  for (const ModelCase& c : model_cases()) {
    SCOPED_TRACE(c.name);
    const ModelArrays<double> arrays(c.model);
    const ModelView<double> view = arrays.view();
    // the model's arrays in device memory, and a view of them there
    gpu::DeviceBuffer<int> ints(arrays.ints().size());
    gpu::DeviceBuffer<double> reals(arrays.reals().size());
    ASSERT_EQ(cudaMemcpy(ints.get(), arrays.ints().data(), ints.size() * sizeof(int),
                         cudaMemcpyHostToDevice),
              cudaSuccess);
    ASSERT_EQ(cudaMemcpy(reals.get(), arrays.reals().data(), reals.size() * sizeof(double),
                         cudaMemcpyHostToDevice),
              cudaSuccess);
    const ModelView<double> on_device = arrays.view(ints.get(), reals.get());
    std::mt19937 rng(5);
    const Arenas<double> start(c.model, view, rng);
    for (int steps : {0, 5}) {
      Arenas<double> emu = start;
      Emu<32> g;
      if (steps == 0) forward(view, emu.instance(view), g);
      for (int k = 0; k < steps; ++k) step(view, emu.instance(view), g);
      const gpu::GroupSteps warp =
          gpu::device_group_steps(on_device, start.data(), start.param(), start.time(), steps);
      const gpu::GroupSteps again =
          gpu::device_group_steps(on_device, start.data(), start.param(), start.time(), steps);
      EXPECT_EQ(std::memcmp(warp.data.data(), again.data.data(), warp.data.size() * 8), 0);
      EXPECT_EQ(warp.status, emu.status());
      EXPECT_EQ(warp.time, emu.time());
      if (view.s.nconmax > 0) {
        EXPECT_EQ(warp.data[view.lay.ncon], emu.data(view.lay.ncon));
      }
      const auto expect_near = [&](int row, int count, const char* what) {
        for (int k = 0; k < count; ++k) {
          const double a = warp.data[row + k], b = emu.data(row + k);
          EXPECT_LE(std::abs(a - b), 1e-9 * std::max(1.0, std::abs(b)))
              << what << "[" << k << "], steps " << steps;
        }
      };
      expect_near(view.lay.qpos, view.s.nq, "qpos");
      expect_near(view.lay.qvel, view.s.nv, "qvel");
      expect_near(view.lay.qacc, view.s.nv, "qacc");
      ++compared;
    }
  }
  EXPECT_GT(compared, 0);
}

class CudaVsCpu : public ::testing::TestWithParam<GpuCase>, protected WithDevice {
 protected:
  void SetUp() override { ZW_REQUIRE_DEVICE(); }

  template <class T>
  void compare(Integrator integrator, int steps) {
    Model model = examples::by_name(GetParam().model);
    model.integrator = integrator;
    constexpr std::int64_t kN = 257;  // not a multiple of 32: padding in use
    const SimulatorOptions options{.backend = Backend::kCuda,
                                   .cholesky = GetParam().cholesky,
                                   .kernels = GetParam().kernels,
                                   .cuda_group = GetParam().group};
    Simulator<T> gpu(model, kN, options), cpu(model, kN, {.threads = 2});
    for (Simulator<T>* sim : {&gpu, &cpu}) {
      scatter(sim->batch(), model, 0, kN);
      break_two(sim->batch(), model);
    }
    if (steps == 0) {
      gpu.forward();
      cpu.forward();
    } else {
      // in three calls, so that graphs are captured and replayed
      for (int call = 0; call < 3; ++call) {
        gpu.step(steps);
        cpu.step(steps);
      }
    }
    expect_close(gpu.batch(), cpu.batch(),
                 fmt::format("{} {} steps of {}", gpu.backend(), 3 * steps, to_string(integrator)));
  }

  template <class T>
  void both(int steps) {
    compare<T>(Integrator::kEuler, steps);
    compare<T>(Integrator::kRK4, steps);
  }
};

TEST_P(CudaVsCpu, Forward) {
  GetParam().f64 ? both<double>(0) : both<float>(0);
}

TEST_P(CudaVsCpu, Step) {
  GetParam().f64 ? both<double>(4) : both<float>(3);
}

INSTANTIATE_TEST_SUITE_P(Examples, CudaVsCpu, ::testing::ValuesIn(gpu_cases()), gpu_case_name);

// why the model files could not be read, where they could not (one failing case says so)
std::string& model_cases_error() {
  static std::string error;
  return error;
}

// the model of model_cases.h called `name` (an empty model when there is none)
const Model& model_case(const std::string& name) {
  static const std::vector<ModelCase> cases = model_cases();
  static const Model none;
  for (const ModelCase& m : cases) {
    if (m.name == name) return m.model;
  }
  return none;
}

// the instances a model case runs: three tiles of 32, the last partial; on lane groups 8 instances
// per multiprocessor and 5 more, so that blocks hold several instances and the last is partial
std::int64_t case_instances(const GpuCase& c) {
  return c.group == CudaGroup::kOne ? 77 : 8 * multiprocessors() + 5;
}

SimulatorOptions case_options(const GpuCase& c) {
  return {.backend = Backend::kCuda,
          .cholesky = c.cholesky,
          .kernels = c.kernels,
          .cuda_group = c.group};
}

std::vector<GpuCase> model_gpu_cases() {
  std::vector<GpuCase> out;
  try {
    for (const ModelCase& c : model_cases()) {
      out.push_back({c.name, true, CholeskyPath::kInKernel, CudaKernels::kFused});
      out.push_back({c.name, true, CholeskyPath::kInKernel, CudaKernels::kStaged});
      // implicitfast and implicit factor in the kernel only (gpu::choose_cholesky)
      if (c.model.integrator != Integrator::kImplicitFast &&
          c.model.integrator != Integrator::kImplicit) {
        out.push_back({c.name, true, CholeskyPath::kCusolver, CudaKernels::kFused});
      }
      out.push_back({c.name, false, CholeskyPath::kInKernel, CudaKernels::kFused});
      out.push_back({c.name, true, CholeskyPath::kInKernel, CudaKernels::kFused, CudaGroup::k32});
      out.push_back({c.name, false, CholeskyPath::kInKernel, CudaKernels::kFused, CudaGroup::k32});
    }
  } catch (const std::exception& e) {
    model_cases_error() = e.what();
    out = {{"models_unavailable", true, CholeskyPath::kInKernel, CudaKernels::kFused}};
  }
  return out;
}

// Every model of model_cases.h (sensors of every type, tendons, actuator dynamics, contacts, soft
// and hard rows, RK4), CUDA against the CPU backend from the same states, controls, activations
// and external wrenches: every data field after forward(), and after step(1) and step(5) in
// float64 (the state alone in float32), but the solver's iteration count and residual (one
// iteration more or less where the two roundings straddle the tolerance).  The bound is 10³ ×
// the solve's rounding bound above, max(2 ε κ₂(H), 10⁻¹² or 10⁻⁴), room for six steps of rounding
// that differs (fused multiply-adds on the GPU) to grow, and at most 10⁻⁶ in float64 and 0.2
// in float32, so that a wrong index or a missing stage, errors of order one, always fails
// (measured on an H100: at most 0.052 in float32, 1.3·10⁻¹⁰ in float64, outside parted
// instances).
//
// Contacts make the step a discontinuous function of the state, and these random states put
// geoms into each other at ties that rounding decides: capsules of a planar linkage crossing
// (the normal of intersecting coplanar segments), a contact at dist = 0.  A random state also
// violates a hard closure by O(1), which its rows correct with forces up to 10¹² and velocities
// past 10³ that amplify any rounding difference, and whether its dependent hard rows contradict
// the others is a threshold on residuals of that size (kernels/constraint_solver.h,
// hard_consistent) that rounding decides in float32.  An instance that has had a contact or such
// a velocity, or that one backend alone stopped for a hard conflict in float32, may therefore
// part from the CPU (measured: at most 9 of 77 instances, float32 four_bar_hard); at most 11
// may, and every other instance must agree, as must every instance after forward() in the
// fields that contacts do not touch (kinematics, H, bias, passive forces, q̈ without rows,
// tendons).  The other status bits that stop an instance must be equal; kStatusNotConverged, the
// solver's iteration cap, may differ as its count does.
class CudaModels : public ::testing::TestWithParam<GpuCase>, protected WithDevice {
 protected:
  void SetUp() override { ZW_REQUIRE_DEVICE(); }

  template <class T>
  void compare() {
    const GpuCase& c = GetParam();
    ASSERT_TRUE(model_cases_error().empty()) << model_cases_error();
    const Model& model = model_case(c.model);
    ASSERT_GT(model.nbody, 0) << c.model;
    const std::int64_t kN = case_instances(c);
    const std::size_t kMayPart = static_cast<std::size_t>(11 * kN / 77);
    constexpr double kFast = 1e3;
    Simulator<T> gpu(model, kN, case_options(c)), cpu(model, kN, {.threads = 2});
    set_same_states(gpu, cpu, 5);
    constexpr double kGrowth = 1e3;
    const double cap = std::is_same_v<T, double> ? 1e-6 : 0.2;
    const std::vector<FieldId> state = {FieldId::qpos, FieldId::qvel, FieldId::act};
    const std::vector<FieldId> contact_free = {
        FieldId::qpos,        FieldId::qvel,         FieldId::act,        FieldId::qM,
        FieldId::qfrc_bias,   FieldId::qfrc_passive, FieldId::xpos,       FieldId::xquat,
        FieldId::xipos,       FieldId::qacc_smooth,  FieldId::ten_length, FieldId::ten_velocity,
        FieldId::subtree_com, FieldId::cvel};
    const auto is_contact_free = [&](FieldId f) {
      return std::find(contact_free.begin(), contact_free.end(), f) != contact_free.end();
    };
    // the fields contacts do not touch first, so that a difference there is never hidden behind
    // one that a contact explains
    std::vector<FieldId> outputs = contact_free;
    for (FieldId f : data_fields()) {
      if (!is_contact_free(f) && f != FieldId::solver_niter && f != FieldId::solver_residual) {
        outputs.push_back(f);
      }
    }
    std::vector<bool> touched(kN, false);
    std::map<std::int64_t, std::string> parted;  // instance: the first difference
    double worst = 0;
    std::string worst_at;
    const auto check = [&](const std::string& what, bool all_fields) {
      for (std::int64_t i = 0; i < kN; ++i) {
        for (Simulator<T>* sim : {&gpu, &cpu}) {
          const Eigen::VectorXd qvel = get(sim->batch().qvel(), i);
          touched[i] = touched[i] || sim->batch().ncon()(i, 0) > 0 ||
                       (qvel.size() > 0 && !(qvel.cwiseAbs().maxCoeff() <= kFast));
        }
        if (parted.count(i) != 0) continue;
        std::string difference;
        bool excusable = touched[i];
        const int stop_gpu = gpu.batch().status()[i] & kStatusStopping;
        const int stop_cpu = cpu.batch().status()[i] & kStatusStopping;
        if (stop_gpu != stop_cpu) {
          difference = fmt::format("{}, instance {}: status {} vs {}", what, i,
                                   gpu.batch().status()[i], cpu.batch().status()[i]);
          excusable = excusable ||
                      (std::is_same_v<T, float> && (stop_gpu ^ stop_cpu) == kStatusHardConflict);
        } else if (stop_cpu == 0) {
          const double tol = std::min(cap, kGrowth * tolerance(cpu.batch(), i));
          for (FieldId f : all_fields ? outputs : state) {
            const Eigen::VectorXd a = get(gpu.batch().field(f), i);
            const Eigen::VectorXd b = get(cpu.batch().field(f), i);
            const double e = relative_error(a, b);
            if (!(e < tol)) {
              std::ostringstream values;
              values << a.transpose() << " vs " << b.transpose();
              difference = fmt::format("{}, instance {}, {}: {:.3g} (bound {:.2g}): {}", what, i,
                                       field_name(f), e, tol, values.str());
              excusable = excusable && !(what == "forward" && is_contact_free(f));
              break;
            }
            if (e / tol > worst) {
              worst = e / tol;
              worst_at = fmt::format("{}, instance {}, {}: {:.2g}", what, i, field_name(f), e);
            }
          }
        }
        if (difference.empty()) continue;
        EXPECT_TRUE(excusable) << "no contact, fast velocity or hard conflict explains: "
                               << difference;
        parted[i] = difference;
      }
    };
    gpu.forward();
    cpu.forward();
    check("forward", true);
    for (int steps : {1, 5}) {
      gpu.step(steps);
      cpu.step(steps);
      check(fmt::format("step({})", steps), std::is_same_v<T, double>);
    }
    EXPECT_LE(parted.size(), kMayPart) << [&] {
      std::string all;
      for (const auto& [i, difference] : parted) all += difference + "\n";
      return all;
    }();
    RecordProperty("parted", static_cast<int>(parted.size()));
    std::cout << fmt::format(
        "{} {}: {} of {} instances parted after a contact, a fast velocity or a hard conflict; "
        "elsewhere the "
        "largest error / bound {:.2g} ({})\n",
        c.model, gpu.backend(), parted.size(), kN, worst, worst_at);
  }
};

TEST_P(CudaModels, AgreesWithTheCpu) {
  GetParam().f64 ? compare<double>() : compare<float>();
}

INSTANTIATE_TEST_SUITE_P(Models, CudaModels, ::testing::ValuesIn(model_gpu_cases()), gpu_case_name);

// the kernels that loop over a call's steps (the fused one and the lane groups) in each precision
std::vector<GpuCase> model_loop_cases() {
  std::vector<GpuCase> out;
  for (const GpuCase& c : model_gpu_cases()) {
    if (c.cholesky == CholeskyPath::kInKernel && c.kernels == CudaKernels::kFused) out.push_back(c);
  }
  return out;
}

// A call of n steps gives the bits of n calls of one step: the kernels that loop over a call's
// steps (the fused kernel, the lane groups) carry nothing from one step to the next but the
// instance's arenas, and the graph a repeated step count replays is that of direct launches.
class CudaLoops : public ::testing::TestWithParam<GpuCase>, protected WithDevice {
 protected:
  void SetUp() override { ZW_REQUIRE_DEVICE(); }

  template <class T>
  void compare() {
    const GpuCase& c = GetParam();
    ASSERT_TRUE(model_cases_error().empty()) << model_cases_error();
    const Model& model = model_case(c.model);
    ASSERT_GT(model.nbody, 0) << c.model;
    const std::int64_t n = case_instances(c);
    Simulator<T> each(model, n, case_options(c)), loop(model, n, case_options(c));
    set_same_states(each, loop, 5);
    for (int s = 0; s < 6; ++s) each.step(1);
    loop.step(4);
    loop.step(2);
    int differ = 0;
    for (std::int64_t i = 0; i < n && differ < 3; ++i) {
      std::string what;
      if (each.batch().status()[i] != loop.batch().status()[i]) what = "status";
      if (each.batch().time()[i] != loop.batch().time()[i]) what = "time";
      for (FieldId f : data_fields()) {
        if (!what.empty()) break;
        const Eigen::VectorXd a = get(each.batch().field(f), i), b = get(loop.batch().field(f), i);
        if (!same_bits(a, b)) what = field_name(f);
      }
      if (what.empty()) continue;
      ++differ;
      ADD_FAILURE() << c.model << " " << each.backend() << ", instance " << i << ": " << what
                    << " after step(1) six times differs from step(4), step(2)";
    }
  }
};

TEST_P(CudaLoops, StepsInOneLaunchEqualOneLaunchEach) {
  GetParam().f64 ? compare<double>() : compare<float>();
}

INSTANTIATE_TEST_SUITE_P(Models, CudaLoops, ::testing::ValuesIn(model_loop_cases()), gpu_case_name);

class Cuda : public ::testing::Test, protected WithDevice {
 protected:
  void SetUp() override { ZW_REQUIRE_DEVICE(); }
};

// step(n) replayed from a graph gives the bits of direct launches, and the CPU's values
TEST_F(Cuda, GraphRolloutMatchesDirectLaunchesAndTheCpu) {
  for (CholeskyPath path : {CholeskyPath::kInKernel, CholeskyPath::kCusolver}) {
    const Model model = examples::chain({.damping = 0.3, .stiffness = 2, .actuators = true});
    constexpr std::int64_t kN = 500;
    Batch<double> graphed(model, kN), direct(model, kN);
    scatter(graphed, model, 0, kN);
    scatter(direct, model, 0, kN);
    gpu::CudaBackend<double> with(model, graphed, {.cholesky = path, .cuda_graphs = true});
    gpu::CudaBackend<double> without(model, direct, {.cholesky = path, .cuda_graphs = false});
    Simulator<double> cpu(model, kN);
    scatter(cpu.batch(), model, 0, kN);
    for (int call = 0; call < 4; ++call) {
      with.step(graphed, 10);
      without.step(direct, 10);
      cpu.step(10);
    }
    // cuSOLVER's calls may refuse capture; the backend then runs them directly (recorded)
    if (path == CholeskyPath::kInKernel) {
      EXPECT_EQ(with.graphs(), 1) << with.describe();
    }
    RecordProperty(path == CholeskyPath::kInKernel ? "inkernel_graphs" : "cusolver_graphs",
                   with.graphs());
    EXPECT_EQ(without.graphs(), 0);
    EXPECT_EQ(std::memcmp(graphed.data_arena(), direct.data_arena(),
                          graphed.data_span().size() * sizeof(double)),
              0);
    expect_close(graphed, cpu.batch(), with.describe());
  }
}

// The cuSOLVER path over three chunks (rod_chain with nv = 48 in float64: kCusolverBudget holds
// about 7100 instances; the last chunk is a partial one), and the staged kernels over step counts
// longer than one graph segment (70 steps: graphs of 32 and 6 steps, captured at their second
// replay), against the CPU backend.
TEST_F(Cuda, CusolverChunksAndLongRolloutsMatchTheCpu) {
  const Model model = examples::rod_chain(
      {.links = 48, .length = 0.3, .planar = false, .damping = 0.05, .armature = 0.01});
  const std::int64_t chunk =
      gpu::cusolver_chunk(model.nv, sizeof(double), std::int64_t{1} << 20, gpu::kCusolverBudget);
  const std::int64_t n = 2 * chunk + 100;
  Batch<double> chunked(model, n);
  scatter(chunked, model, 0, n);
  gpu::CudaBackend<double> cusolver(model, chunked, {.cholesky = CholeskyPath::kCusolver});
  Simulator<double> cpu(model, n, {.threads = 0});
  scatter(cpu.batch(), model, 0, n);
  cusolver.step(chunked, 3);
  cpu.step(3);
  expect_close(chunked, cpu.batch(), fmt::format("{} instances, chunks of {}", n, chunk));

  constexpr std::int64_t kN = 300;
  Batch<double> staged(model, kN);
  scatter(staged, model, 0, kN);
  gpu::CudaBackend<double> long_run(
      model, staged, {.cholesky = CholeskyPath::kInKernel, .kernels = CudaKernels::kStaged});
  Simulator<double> reference(model, kN);
  scatter(reference.batch(), model, 0, kN);
  for (int call = 0; call < 2; ++call) {
    long_run.step(staged, 70);
    reference.step(70);
  }
  EXPECT_EQ(long_run.graphs(), 2) << long_run.describe();
  expect_close(staged, reference.batch(), "140 staged steps in segments of 32");
}

// edits and host-side resets of the host mirror between calls reach the device, outputs
// included (a reset zeroes them).  An upload and a download with nothing run in
// between bring back, bit for bit, every row a call downloads: a row that missed the upload
// would come back with the device's older values.
TEST_F(Cuda, HostEditsBetweenCallsAreSeen) {
  const Model model = examples::cart_pole();
  constexpr std::int64_t kN = 100;
  Batch<double> b(model, kN);
  gpu::CudaBackend<double> cuda(model, b, {});
  Simulator<double> cpu(model, kN);
  scatter(b, model, 0, kN);
  scatter(cpu.batch(), model, 0, kN);
  cuda.step(b, 5);
  cpu.step(5);
  const std::int64_t some[] = {2, 9};
  for (Batch<double>* batch : {&b, &cpu.batch()}) {
    for (std::int64_t i : some) batch->reset_state(i, model);
    batch->ctrl()(4, 0) = 0.7;
    batch->body_mass()(7, 2) *= 1.5;
    batch->time()[11] = 3.0;
  }
  const std::vector<double> data(b.data_span().begin(), b.data_span().end());
  const std::vector<double> time(b.time().begin(), b.time().end());
  const std::vector<int> status(b.status().begin(), b.status().end());
  cuda.upload(b);
  cuda.download(b);
  EXPECT_EQ(std::memcmp(b.data_arena(), data.data(), data.size() * sizeof(double)), 0);
  EXPECT_EQ(std::memcmp(b.time().data(), time.data(), time.size() * sizeof(double)), 0);
  EXPECT_EQ(std::memcmp(b.status().data(), status.data(), status.size() * sizeof(int)), 0);
  cuda.forward(b);
  cpu.forward();
  expect_close(b, cpu.batch(), "forward after host edits");
  cuda.step(b, 5);
  cpu.step(5);
  expect_close(b, cpu.batch(), "step after host edits");
}

// upload() twice without a synchronisation: the second waits for the first's copies out of
// the mirror before its row diff rewrites it, so the steps enqueued in between see the first
// upload's values and the later ones the second's (a check of the order; the timing of the
// race itself cannot be forced from a test)
TEST_F(Cuda, UploadsWithoutSynchronisationKeepTheirOrder) {
  const Model model = examples::chain({.actuators = true});
  constexpr std::int64_t kN = 1000;
  Batch<double> b(model, kN);
  gpu::CudaBackend<double> cuda(model, b, {});
  Simulator<double> cpu(model, kN);
  scatter(b, model, 0, kN);
  scatter(cpu.batch(), model, 0, kN);
  // ctrl and body_mass are never downloaded: they reach the device only through an upload
  cuda.upload(b);
  cuda.run_steps(3);
  b.ctrl()(17, 0) = 0.5;
  b.body_mass()(17, 3) *= 2;
  cuda.upload(b);
  cuda.run_steps(3);
  cuda.download(b);
  cpu.step(3);
  cpu.batch().ctrl()(17, 0) = 0.5;
  cpu.batch().body_mass()(17, 3) *= 2;
  cpu.step(3);
  expect_close(b, cpu.batch(), "two uploads, no synchronisation");
}

// a batch of another size is refused by every entry point that copies rows
TEST_F(Cuda, ABatchOfAnotherSizeIsRefused) {
  const Model model = examples::chain();
  Batch<float> b(model, 1000), other(model, 999);
  gpu::CudaBackend<float> cuda(model, b, {});
  EXPECT_THROW(cuda.upload(other), std::invalid_argument);
  EXPECT_THROW(cuda.download(other), std::invalid_argument);
  EXPECT_THROW(cuda.forward(other), std::invalid_argument);
  EXPECT_THROW(cuda.step(other, 1), std::invalid_argument);
}

// the device copy starts as the batch; afterwards a call uploads exactly the fields written on
// the host (host/batch/residency.hpp), whole fields
TEST_F(Cuda, OnlyChangedFieldsAreUploaded) {
  const Model model = examples::chain();
  Batch<float> b(model, 1000);
  gpu::CudaBackend<float> cuda(model, b, {});
  cuda.step(b, 1);
  EXPECT_EQ(cuda.last_transfers().param_up, 0u);
  EXPECT_EQ(cuda.last_transfers().data_up, 0u);
  b.qvel()(17, 2) += 1;
  b.body_mass()(17, 3) *= 2;
  cuda.step(b, 1);
  const std::size_t row = static_cast<std::size_t>(b.padded_size()) * sizeof(float);
  EXPECT_EQ(cuda.last_transfers().data_up, model.nv * row);
  EXPECT_EQ(cuda.last_transfers().param_up, model.nbody * row);
}

// the Thrust utilities agree with the host: energy, non-finite count, failures, reset
TEST_F(Cuda, BatchUtilitiesAgreeWithTheHost) {
  const Model model = examples::floating_base();
  constexpr std::int64_t kN = 300;
  Simulator<double> cpu(model, kN);
  Batch<double> b(model, kN);
  scatter(b, model, 0, kN);
  scatter(cpu.batch(), model, 0, kN);
  break_two(b, model);
  break_two(cpu.batch(), model);
  gpu::CudaBackend<double> cuda(model, b, {});
  cuda.forward(b);
  cpu.forward();
  const std::vector<Energy<double>> energy = cuda.energy(b);
  ModelArrays<double> arrays(model);
  const ModelView<double> view = arrays.view();
  std::vector<double> work(b.layout().work_rows);
  for (std::int64_t i = 0; i < kN; ++i) {
    if (cpu.batch().status()[i]) continue;
    const Energy<double> e =
        instance_energy(view, instance_view(cpu.batch(), view, i, work.data()));
    EXPECT_NEAR(energy[i].kinetic, e.kinetic, 1e-10 * std::max(1.0, std::abs(e.kinetic)));
    EXPECT_NEAR(energy[i].potential, e.potential, 1e-10 * std::max(1.0, std::abs(e.potential)));
  }
  EXPECT_EQ(cuda.count_nonfinite(b), 1);  // the NaN velocity
  std::vector<std::int64_t> expected;
  for (const InstanceFailure& f : cpu.failures()) expected.push_back(f.instance);
  EXPECT_EQ(cuda.failed_instances(b), expected);

  const std::int64_t some[] = {3, 6, 200};
  cuda.reset(b, some);
  cpu.reset(some);
  cuda.step(b, 5);
  cpu.step(5);
  expect_close(b, cpu.batch(), "after a device reset");
  EXPECT_EQ(cuda.failed_instances(b), std::vector<std::int64_t>{6});  // its mass is still < 0
}

// two simulators on two host threads, each on its own stream
TEST_F(Cuda, TwoSimulatorsOnTwoThreads) {
  const Model model = examples::ball_chain();
  constexpr std::int64_t kN = 4000;
  std::vector<std::unique_ptr<Simulator<float>>> gpus, cpus;
  for (int k = 0; k < 2; ++k) {
    gpus.push_back(
        std::make_unique<Simulator<float>>(model, kN, SimulatorOptions{.backend = Backend::kCuda}));
    cpus.push_back(std::make_unique<Simulator<float>>(model, kN));
    scatter(gpus[k]->batch(), model, k * kN, kN);
    scatter(cpus[k]->batch(), model, k * kN, kN);
  }
  std::thread a([&] { gpus[0]->step(10); }), b([&] { gpus[1]->step(10); });
  a.join();
  b.join();
  for (int k = 0; k < 2; ++k) {
    cpus[k]->step(10);
    expect_close(gpus[k]->batch(), cpus[k]->batch(), fmt::format("simulator {}", k));
  }
}

// 2²⁰ instances; a few of them rebuilt alone on the CPU
TEST_F(Cuda, MillionInstances) {
  const Model model = examples::chain();
  constexpr std::int64_t kN = std::int64_t{1} << 20;
  Simulator<float> gpu(model, kN, {.backend = Backend::kCuda});
  scatter(gpu.batch(), model, 0, kN);
  gpu.step(5);
  for (std::int64_t i : {std::int64_t{0}, std::int64_t{123457}, kN - 1}) {
    Simulator<float> one(model, 1);
    scatter(one.batch(), model, i, 1);
    one.step(5);
    EXPECT_LT(relative_error(get(gpu.batch().qpos(), i), get(one.batch().qpos(), 0)), 1e-4)
        << "instance " << i;
  }
}

}  // namespace
}  // namespace zwang::test
