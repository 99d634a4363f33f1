// Device-resident state on a GPU: a step moves nothing over the bus, a host read downloads the
// field read and nothing else, a host edit uploads the field edited, reset runs on the device
// and equals the CPU backend's, the device fields have the documented layout and pointers, and
// results still equal the CPU backend's.  Each test needs a GPU and is skipped, with
// cuda_status()'s reason, where there is none; the bookkeeping itself is tested without one in
// test_residency.cc.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <utility>
#include <vector>

#include "cuda/cuda_backend.hpp"
#include "test_util.h"
#include "zwang/simulator.hpp"

namespace zwang::test {
namespace {

#define ZW_REQUIRE_DEVICE()                             \
  do {                                                  \
    const CudaStatus cuda = cuda_status();              \
    if (cuda.devices == 0) GTEST_SKIP() << cuda.reason; \
  } while (false)

// random states and masses, instance by instance from one seed
template <class T>
void scatter(Batch<T>& b, const Model& model, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> scale(0.8, 1.2);
  for (std::int64_t i = 0; i < b.size(); ++i) {
    const RandomState s = random_state(model, rng);
    set(b.qpos(), i, s.qpos);
    set(b.qvel(), i, s.qvel);
    set(b.ctrl(), i, s.ctrl);
    Eigen::VectorXd mass = get(b.body_mass(), i);
    for (int k = 1; k < model.nbody; ++k) mass[k] *= scale(rng);
    set(b.body_mass(), i, mass);
  }
}

// state, outputs, time and status of every instance, read through the const accessors
void expect_close(const Batch<double>& gpu, const Batch<double>& cpu, const char* what) {
  using enum FieldId;
  for (FieldId f : {qpos, qvel, ctrl, qacc, qfrc_bias, xpos, xquat}) {
    const FieldRef<const double> a = gpu.field(f), b = cpu.field(f);
    for (std::int64_t i = 0; i < gpu.size(); ++i) {
      if (cpu.status()[i]) continue;
      for (int j = 0; j < a.width(); ++j) {
        ASSERT_NEAR(a(i, j), b(i, j), 1e-10 * std::max(1.0, std::abs(b(i, j))))
            << what << ", " << field_name(f) << ", instance " << i << ", element " << j;
      }
    }
  }
  for (std::int64_t i = 0; i < gpu.size(); ++i) {
    ASSERT_EQ(gpu.status()[i], cpu.status()[i]) << what << ", instance " << i;
    ASSERT_NEAR(gpu.time()[i], cpu.time()[i], 1e-12) << what << ", instance " << i;
  }
}

std::size_t bytes(const Batch<double>& b, FieldId f) {
  const FieldRows r = field_rows(f, b.layout(), b.sizes());
  const std::size_t element = r.arena == ArenaId::kStatus ? sizeof(int) : sizeof(double);
  return static_cast<std::size_t>(r.rows) * b.padded_size() * element;
}

class CudaResident : public ::testing::Test {
 protected:
  void SetUp() override { ZW_REQUIRE_DEVICE(); }
};

// the device copy starts as the batch: a download before any call brings back the batch's
// own values, not uninitialised device memory
TEST_F(CudaResident, TheDeviceCopyStartsAsTheBatch) {
  const Model model = examples::cart_pole();
  Batch<double> b(model, 100);
  scatter(b, model, 1);
  const std::vector<double> data(b.data_span().begin(), b.data_span().end());
  const std::vector<double> param(b.param_span().begin(), b.param_span().end());
  gpu::CudaBackend<double> cuda(model, b, {});
  cuda.download(b);  // every field current: nothing moves
  EXPECT_EQ(cuda.last_transfers().down, 0u);
  cuda.invalidate_host();
  cuda.download(b);  // now every field comes down
  EXPECT_GT(cuda.last_transfers().down, 0u);
  const Batch<double>& read = b;
  EXPECT_EQ(std::memcmp(read.data_arena(), data.data(), data.size() * sizeof(double)), 0);
  EXPECT_EQ(std::memcmp(read.param_arena(), param.data(), param.size() * sizeof(double)), 0);
}

// step() uploads only the fields written on the host and downloads nothing; a host read
// downloads that field alone
TEST_F(CudaResident, AStepMovesNothingAndAReadDownloadsThatField) {
  const Model model = examples::cart_pole();
  constexpr std::int64_t kN = 300;
  Batch<double> b(model, kN);
  gpu::CudaBackend<double> cuda(model, b, {});
  Simulator<double> cpu(model, kN);
  scatter(b, model, 2);
  scatter(cpu.batch(), model, 2);
  cuda.step(b, 5);
  const gpu::Transfers first = cuda.last_transfers();
  using enum FieldId;
  for (FieldId f : {qpos, qvel, ctrl, body_mass}) {
    EXPECT_EQ(first.field_up[static_cast<int>(f)], bytes(b, f)) << field_name(f);
  }
  EXPECT_EQ(first.data_up + first.param_up,
            bytes(b, qpos) + bytes(b, qvel) + bytes(b, ctrl) + bytes(b, body_mass));
  EXPECT_EQ(first.down, 0u);

  cuda.step(b, 5);
  const gpu::Transfers second = cuda.last_transfers();
  EXPECT_EQ(second.data_up + second.param_up + second.time_status_up + second.down, 0u);
  EXPECT_FALSE(cuda.host_current(qpos));
  EXPECT_TRUE(cuda.host_current(ctrl));

  const Batch<double>& read = b;
  cpu.step(10);
  for (std::int64_t i = 0; i < kN; ++i) {
    ASSERT_NEAR(read.qpos()(i, 0), std::as_const(cpu.batch()).qpos()(i, 0), 1e-10) << i;
  }
  const gpu::Transfers after = cuda.last_transfers();
  EXPECT_EQ(after.field_down[static_cast<int>(qpos)], bytes(b, qpos));
  EXPECT_EQ(after.down, bytes(b, qpos));  // qpos alone
  EXPECT_FALSE(cuda.host_current(qvel));
  EXPECT_FALSE(cuda.host_dirty(qpos));
  expect_close(b, cpu.batch(), "after 10 steps");
}

// a host edit of one field uploads that field and no other
TEST_F(CudaResident, AHostEditUploadsThatFieldAlone) {
  const Model model = examples::cart_pole();
  constexpr std::int64_t kN = 200;
  Batch<double> b(model, kN);
  gpu::CudaBackend<double> cuda(model, b, {});
  Simulator<double> cpu(model, kN);
  scatter(b, model, 3);
  scatter(cpu.batch(), model, 3);
  cuda.step(b, 3);
  cpu.step(3);
  b.ctrl()(4, 0) = 0.7;
  cpu.batch().ctrl()(4, 0) = 0.7;
  cuda.step(b, 3);
  cpu.step(3);
  gpu::Transfers t = cuda.last_transfers();
  EXPECT_EQ(t.data_up, bytes(b, FieldId::ctrl));
  EXPECT_EQ(t.field_up[static_cast<int>(FieldId::ctrl)], bytes(b, FieldId::ctrl));
  EXPECT_EQ(t.param_up + t.time_status_up + t.down, 0u);
  // a parameter: its field only, no download (the device never writes parameters)
  b.body_mass()(7, 2) *= 1.5;
  cpu.batch().body_mass()(7, 2) *= 1.5;
  cuda.step(b, 3);
  cpu.step(3);
  t = cuda.last_transfers();
  EXPECT_EQ(t.param_up, bytes(b, FieldId::body_mass));
  EXPECT_EQ(t.data_up + t.down, 0u);
  // an edit of a field the device wrote downloads it first: the other instances keep their
  // device values
  b.qvel()(9, 1) = 0.25;
  cpu.batch().qvel()(9, 1) = 0.25;
  t = cuda.last_transfers();
  EXPECT_EQ(t.down, bytes(b, FieldId::qvel));
  cuda.step(b, 3);
  cpu.step(3);
  expect_close(b, cpu.batch(), "after host edits");
}

// reset on the device (default state, and a given state) equals the CPU backend's reset, and
// moves no rows: only the instance list and the state go up
TEST_F(CudaResident, ResetOnTheDeviceEqualsTheCpuReset) {
  const Model model = examples::cart_pole();
  constexpr std::int64_t kN = 257;
  Batch<double> b(model, kN);
  gpu::CudaBackend<double> cuda(model, b, {});
  Simulator<double> cpu(model, kN);
  scatter(b, model, 4);
  scatter(cpu.batch(), model, 4);
  cuda.step(b, 4);
  cpu.step(4);
  const std::int64_t some[] = {2, 9, 256};
  cuda.reset(b, some);
  cpu.reset(some);
  EXPECT_EQ(cuda.last_transfers().down, 0u);
  EXPECT_EQ(cuda.last_transfers().data_up, 0u);
  const State state{{0.1, -0.2}, {0.3, 0.4}, {0.5}};
  const std::vector<double> q = state.qpos, v = state.qvel, u = state.ctrl;
  const std::int64_t others[] = {5, 100};
  cuda.reset(model, b, others, q.data(), v.data(), u.data());
  cpu.reset(others, state);
  EXPECT_EQ(cuda.last_transfers().down, 0u);
  expect_close(b, cpu.batch(), "after the resets");
  const Batch<double>& read = b;
  EXPECT_EQ(read.qvel()(100, 1), 0.4);
  EXPECT_EQ(read.time()[2], 0.0);
  cuda.step(b, 4);
  cpu.step(4);
  expect_close(b, cpu.batch(), "4 steps after the resets");

  // through Simulator, in float64, the same
  Simulator<double> sim(model, kN, {.backend = Backend::kCuda});
  scatter(sim.batch(), model, 4);
  sim.step(4);
  sim.reset(some);
  sim.reset(others, state);
  sim.step(4);
  expect_close(std::as_const(sim).batch(), cpu.batch(), "Simulator::reset on CUDA");
}

// every device field: its dtype, shape and strides, and a cudaMemcpy of it equals the host
// view after a synchronisation
TEST_F(CudaResident, DeviceFieldsHaveTheDocumentedLayout) {
  const Model model = examples::floating_base();
  constexpr std::int64_t kN = 70;  // padded to 72: 9 cache lines of 8 float64
  Simulator<double> sim(model, kN, {.backend = Backend::kCuda});
  scatter(sim.batch(), model, 5);
  sim.step(3);
  ASSERT_NE(sim.cuda_stream(), nullptr);
  const std::vector<DeviceField> fields = sim.device_fields();
  ASSERT_EQ(fields.size(), static_cast<std::size_t>(kFieldCount));
  sim.synchronize();
  const Batch<double>& b = sim.batch();
  const std::int64_t ld = b.padded_size();
  for (const DeviceField& f : fields) {
    const FieldRows r = field_rows(f.id, b.layout(), b.sizes());
    EXPECT_STREQ(f.name, field_name(f.id));
    EXPECT_EQ(f.device, 0);
    if (f.id == FieldId::time || f.id == FieldId::status) {
      EXPECT_EQ(f.shape, std::vector<std::int64_t>{kN});
      EXPECT_EQ(f.strides, std::vector<std::int64_t>{1});
      continue;
    }
    EXPECT_EQ(f.dtype, DeviceField::DType::kFloat64);
    EXPECT_EQ(f.shape, (std::vector<std::int64_t>{kN, r.rows}));
    EXPECT_EQ(f.strides, (std::vector<std::int64_t>{1, ld}));
    std::vector<double> copy(static_cast<std::size_t>(r.rows * ld));
    if (copy.empty()) continue;
    ASSERT_EQ(cudaMemcpy(copy.data(), f.data, copy.size() * sizeof(double), cudaMemcpyDeviceToHost),
              cudaSuccess);
    const FieldRef<const double> host = b.field(f.id);
    for (std::int64_t i = 0; i < kN; ++i) {
      for (int j = 0; j < r.rows; ++j) {
        ASSERT_EQ(copy[i * f.strides[0] + j * f.strides[1]], host(i, j))
            << f.name << ", instance " << i << ", element " << j;
      }
    }
  }
  std::vector<double> time(kN);
  const DeviceField t = sim.device_field(FieldId::time);
  EXPECT_EQ(t.dtype, DeviceField::DType::kFloat64);
  ASSERT_EQ(cudaMemcpy(time.data(), t.data, kN * sizeof(double), cudaMemcpyDeviceToHost),
            cudaSuccess);
  for (std::int64_t i = 0; i < kN; ++i) EXPECT_EQ(time[i], b.time()[i]);
  EXPECT_EQ(sim.device_field(FieldId::status).dtype, DeviceField::DType::kInt32);
}

// a policy on the GPU: controls written straight into device memory, marked, stepped; the
// results equal the CPU backend's with the same controls
TEST_F(CudaResident, DeviceWritesReachTheStepAndTheHostMirror) {
  const Model model = examples::cart_pole();
  constexpr std::int64_t kN = 128;
  Simulator<double> gpu(model, kN, {.backend = Backend::kCuda}), cpu(model, kN);
  scatter(gpu.batch(), model, 6);
  scatter(cpu.batch(), model, 6);
  const DeviceField ctrl = gpu.device_field(FieldId::ctrl);
  for (int round = 0; round < 3; ++round) {
    std::vector<double> u(kN);
    for (std::int64_t i = 0; i < kN; ++i) u[i] = 0.01 * (i % 7) - 0.02 * round;
    gpu.upload_host_edits();
    ASSERT_EQ(cudaMemcpyAsync(ctrl.data, u.data(), kN * sizeof(double), cudaMemcpyHostToDevice,
                              static_cast<cudaStream_t>(gpu.cuda_stream())),
              cudaSuccess);
    gpu.mark_device_written(FieldId::ctrl);
    for (std::int64_t i = 0; i < kN; ++i) cpu.batch().ctrl()(i, 0) = u[i];
    gpu.step(2);
    cpu.step(2);
  }
  expect_close(std::as_const(gpu).batch(), cpu.batch(), "device-written controls");
}

}  // namespace
}  // namespace zwang::test
