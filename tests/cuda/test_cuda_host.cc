// The CUDA backend's host-side logic, run on the CPU in every CUDA build, GPU or not: launch
// chunking and launch shapes, the Cholesky path, the pipeline cut at its solves against
// kernels/pipeline.h, the cuSOLVER path's packing, energies, and the no-device case.
// The comparisons with the CPU backend, which need a GPU, are in test_cuda.cc.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "cuda/dense.h"
#include "cuda/device_view.h"
#include "cuda/launch.hpp"
#include "cuda/plan.hpp"
#include "kernels/energy.h"
#include "kernels/pipeline.h"
#include "kernels/status.h"
#include "test_util.h"
#include "zwang/simulator.hpp"

namespace zwang::test {
namespace {

using gpu::DeviceArenas;

// ---------------------------------------------------------------------------------------
// host-side logic

TEST(CudaHost, LaunchesAreCutAtTheGridLimit) {
  EXPECT_EQ(gpu::blocks_for(0, 128), 0);
  EXPECT_EQ(gpu::blocks_for(129, 128), 2);
  const std::vector<gpu::LaunchRange> small = gpu::split_launches(10, 4, 2);
  ASSERT_EQ(small.size(), 2u);
  EXPECT_EQ(small[0].begin, 0);
  EXPECT_EQ(small[0].count, 8);
  EXPECT_EQ(small[1].begin, 8);
  EXPECT_EQ(small[1].count, 2);
  // 2⁴⁰ instances with 256-thread blocks and a 2³¹ − 1 grid: no overflow, full cover
  const std::int64_t n = std::int64_t{1} << 40, max_grid = (std::int64_t{1} << 31) - 1;
  const std::vector<gpu::LaunchRange> big = gpu::split_launches(n, 256, max_grid);
  std::int64_t next = 0;
  for (const gpu::LaunchRange& r : big) {
    EXPECT_EQ(r.begin, next);
    EXPECT_LE(gpu::blocks_for(r.count, 256), max_grid);
    next += r.count;
  }
  EXPECT_EQ(next, n);
  EXPECT_EQ(big.size(), 3u);
  EXPECT_TRUE(gpu::split_launches(0, 256, max_grid).empty());
  EXPECT_THROW(gpu::split_launches(5, 0, 1), std::invalid_argument);
}

TEST(CudaHost, SmallBatchesSpreadOverEveryMultiprocessor) {
  constexpr int kSms = 132;
  for (const int block : {32, 96, 128, 256, 384, 512, 1024}) {
    for (const std::int64_t n :
         {std::int64_t{1}, std::int64_t{31}, std::int64_t{1000}, std::int64_t{4096},
          std::int64_t{4224}, std::int64_t{16384}, std::int64_t{65535}, std::int64_t{1} << 20}) {
      const int b = gpu::spread_block(n, block, kSms);
      const std::int64_t grid = gpu::blocks_for(n, b);
      EXPECT_LE(b, block) << n;
      EXPECT_TRUE(b == block || b % 32 == 0) << n << " " << block;
      // enough blocks for every SM where there are warps enough; the occupancy block where
      // the grid already fills the device
      if (n >= std::int64_t{32} * kSms && block >= 32) {
        EXPECT_GE(grid, kSms) << n << " " << block;
      }
      if (n >= std::int64_t{block} * kSms) {
        EXPECT_EQ(b, block) << n;
      }
    }
  }
  EXPECT_EQ(gpu::spread_block(4096, 512, kSms), 32);
  EXPECT_EQ(gpu::spread_block(16384, 512, kSms), 96);
  EXPECT_EQ(gpu::spread_block(1, 512, kSms), 32);
  EXPECT_THROW(gpu::spread_block(10, 0, kSms), std::invalid_argument);
}

TEST(CudaHost, CholeskyPathFollowsTheThreshold) {
  using enum CholeskyPath;
  EXPECT_EQ(gpu::choose_cholesky(kAuto, 8, 32), kInKernel);
  EXPECT_EQ(gpu::choose_cholesky(kAuto, 31, 32), kInKernel);
  EXPECT_EQ(gpu::choose_cholesky(kAuto, 32, 32), kCusolver);
  EXPECT_EQ(gpu::choose_cholesky(kInKernel, 100, 32), kInKernel);
  EXPECT_EQ(gpu::choose_cholesky(kCusolver, 1, 32), kCusolver);
  // implicitfast's and implicit's H − h D are factored in the kernel
  EXPECT_EQ(gpu::choose_cholesky(kAuto, 100, 32, 1, true), kInKernel);
  EXPECT_THROW(gpu::choose_cholesky(kCusolver, 100, 32, 1, true), std::invalid_argument);
  EXPECT_EQ(SimulatorOptions{}.cusolver_min_nv, 32);
  EXPECT_THROW(gpu::check_cuda_options({.cusolver_min_nv = 0}), std::invalid_argument);
  EXPECT_THROW(gpu::check_cuda_options({.device = -1}), std::invalid_argument);
  EXPECT_NO_THROW(gpu::check_cuda_options({}));
}

TEST(CudaHost, LaneGroupOptions) {
  EXPECT_EQ(gpu::choose_group(CudaGroup::kAuto), 1);
  EXPECT_EQ(gpu::choose_group(CudaGroup::kOne), 1);
  EXPECT_EQ(gpu::choose_group(CudaGroup::k16), 16);
  EXPECT_EQ(gpu::choose_group(CudaGroup::k32), 32);
  // a group factors in the kernel, whatever nv; an explicit path stays the caller's
  EXPECT_EQ(gpu::choose_cholesky(CholeskyPath::kAuto, 40, 32, 32), CholeskyPath::kInKernel);
  EXPECT_EQ(gpu::choose_cholesky(CholeskyPath::kAuto, 40, 32, 1), CholeskyPath::kCusolver);
  EXPECT_NO_THROW(gpu::check_cuda_options({.cuda_group = CudaGroup::k32}));
  EXPECT_THROW(
      gpu::check_cuda_options({.cholesky = CholeskyPath::kCusolver, .cuda_group = CudaGroup::k16}),
      std::invalid_argument);
  EXPECT_THROW(
      gpu::check_cuda_options({.kernels = CudaKernels::kStaged, .cuda_group = CudaGroup::k32}),
      std::invalid_argument);
  EXPECT_THROW(gpu::check_cuda_options({.cuda_group = static_cast<CudaGroup>(8)}),
               std::invalid_argument);
}

// a tile holds an instance's data and parameter rows, an odd count of values: a row of
// consecutive instances' tiles falls into distinct shared-memory banks
TEST(CudaHost, LaneGroupTileIsTheDataAndParameterRows) {
  for (const Model& model : {examples::chain(), examples::floating_base()}) {
    const Layout lay = make_layout(model.sizes());
    const int tile = gpu::group_tile_values(lay);
    EXPECT_GE(tile, lay.data_rows + lay.param_rows);
    EXPECT_LE(tile, lay.data_rows + lay.param_rows + 1);
    for (const int words : {1, 2}) {  // float, double: 4-byte banks, 32 of them
      std::vector<int> banks;
      for (int k = 0; k < 32 / words; ++k) banks.push_back(k * tile * words % 32);
      std::sort(banks.begin(), banks.end());
      EXPECT_EQ(std::adjacent_find(banks.begin(), banks.end()), banks.end()) << words;
    }
  }
}

// instances per block: the most resident on a multiprocessor, the larger block on ties; halved
// while the grid would leave multiprocessors idle
TEST(CudaHost, LaneGroupBlocksFillTheDevice) {
  constexpr int kSms = 132;
  const gpu::GroupBlockChoices tiles{7, 12, 16, 16};  // shared memory caps 8 per block
  EXPECT_EQ(gpu::group_instances_per_block(8192, kSms, tiles), 8);
  EXPECT_EQ(gpu::group_instances_per_block(4096, kSms, tiles), 8);
  EXPECT_EQ(gpu::group_instances_per_block(1024, kSms, tiles), 4);
  EXPECT_EQ(gpu::group_instances_per_block(132, kSms, tiles), 1);
  EXPECT_EQ(gpu::group_instances_per_block(1, kSms, tiles), 1);
  const gpu::GroupBlockChoices big{2, 2, 0, 0};  // two tiles fill the shared memory
  EXPECT_EQ(gpu::group_instances_per_block(8192, kSms, big), 2);
  EXPECT_EQ(gpu::group_instances_per_block(200, kSms, big), 1);
  EXPECT_EQ(gpu::group_instances_per_block(1 << 20, kSms, {8, 8, 8, 0}), 4);
  EXPECT_THROW(gpu::group_instances_per_block(64, kSms, {0, 0, 0, 0}), std::invalid_argument);
}

TEST(CudaHost, CusolverChunkFitsItsBudget) {
  for (int nv : {1, 8, 40, 200}) {
    for (std::size_t bytes : {sizeof(float), sizeof(double)}) {
      const std::size_t budget = std::size_t{64} << 20;
      const std::int64_t chunk = gpu::cusolver_chunk(nv, bytes, std::int64_t{1} << 22, budget);
      EXPECT_EQ(chunk % 32, 0) << nv;
      EXPECT_GE(chunk, 32);
      EXPECT_LE(chunk * (gpu::cusolver_values_per_instance(nv) * bytes + sizeof(int)), budget);
    }
  }
  EXPECT_EQ(gpu::cusolver_chunk(8, 8, 64, std::size_t{1} << 30), 64);  // never past the batch
  EXPECT_EQ(gpu::cusolver_chunk(4000, 8, 1024, 1), 32);                // at least one warp
}

TEST(CudaHost, ArchitecturesCoverDevices) {
  EXPECT_TRUE(gpu::architectures_cover("90", 9, 0));
  EXPECT_TRUE(gpu::architectures_cover("90", 10, 0));  // PTX, compiled by the driver
  EXPECT_FALSE(gpu::architectures_cover("90", 8, 9));
  EXPECT_TRUE(gpu::architectures_cover("80-real", 8, 6));  // same major, later minor
  EXPECT_FALSE(gpu::architectures_cover("80-real", 9, 0));
  EXPECT_TRUE(gpu::architectures_cover("80-virtual", 9, 0));
  EXPECT_TRUE(gpu::architectures_cover("90a", 9, 0));
  EXPECT_FALSE(gpu::architectures_cover("90a", 10, 0));
  EXPECT_TRUE(gpu::architectures_cover("75-real,80-real,90", 7, 5));
  EXPECT_FALSE(gpu::architectures_cover("", 9, 0));
  EXPECT_FALSE(gpu::architectures_cover("junk", 9, 0));
  EXPECT_TRUE(gpu::architectures_cover("native", 8, 0));
  EXPECT_TRUE(gpu::architectures_cover("all-major", 12, 0));
}

// the device view reaches the same addresses as the host batch: row r of instance i at
// base[r * ld + i], for the data, param and work arenas alike
TEST(CudaHost, DeviceViewAddressesMatchTheBatch) {
  const Model model = examples::floating_base();
  Batch<float> b(model, 45);
  ModelArrays<float> arrays(model);
  const ModelView<float> view = arrays.view();
  std::vector<float> work(static_cast<std::size_t>(b.layout().work_rows * b.padded_size()));
  std::vector<double> time(b.padded_size());
  std::vector<int> status(b.padded_size()), phase(b.padded_size());
  const DeviceArenas<float> a{b.data_arena(), b.param_arena(), work.data(),    time.data(),
                              status.data(),  phase.data(),    b.padded_size()};
  EXPECT_EQ(b.padded_size(), 48);  // three cache lines of 16 float32 values
  for (std::int64_t i : {0, 17, 44}) {
    const Instance<float> d = a.instance(view, i);
    for (int j = 0; j < model.nv; ++j) EXPECT_EQ(&d.qvel()[j], &b.qvel()(i, j));
    for (int j = 0; j < 3; ++j) EXPECT_EQ(&d.gravity()[j], &b.gravity()(i, j));
    EXPECT_EQ(&d.qLD()[2], work.data() + (b.layout().qLD + 2) * b.padded_size() + i);
    EXPECT_EQ(d.time, time.data() + i);
    EXPECT_EQ(d.status, status.data() + i);
  }
}

// the no-device case: this part runs exactly where there is no usable GPU
TEST(CudaHost, WithoutADeviceAutoPicksTheCpuAndCudaSaysWhy) {
  const CudaStatus cuda = cuda_status();
  if (cuda.devices > 0) GTEST_SKIP() << "a CUDA device is present; this checks the no-device case";
  EXPECT_EQ(cuda.reason.rfind("no CUDA device: ", 0), 0u) << cuda.reason;
  const Model model = examples::pendulum();
  Simulator<double> automatic(model, 4, {.backend = Backend::kAuto});
  EXPECT_EQ(automatic.backend().rfind("cpu", 0), 0u) << automatic.backend();
  try {
    Simulator<float> cuda_sim(model, 4, {.backend = Backend::kCuda});
    FAIL() << "Backend::kCuda without a device was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), cuda.reason);
  }
  // options are checked before the device
  EXPECT_THROW(Simulator<double>(model, 4, {.backend = Backend::kCuda, .cusolver_min_nv = 0}),
               std::invalid_argument);
}

// ---------------------------------------------------------------------------------------
// the phases of kernels/pipeline.h run batch-wide, phase by phase, as the staged and cuSOLVER
// paths run them, against forward() and step() instance by instance

// a batch with random states and masses, and an interleaved work arena as on the device
struct HostDeviceBatch {
  HostDeviceBatch(const Model& model, int n, unsigned seed)
      : arrays(model),
        view(arrays.view()),
        batch(model, n),
        work(static_cast<std::size_t>(batch.layout().work_rows * batch.padded_size())),
        phase(static_cast<std::size_t>(batch.padded_size()), 0) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> scale(0.8, 1.2);
    for (int i = 0; i < n; ++i) {
      const RandomState s = random_state(model, rng);
      set(batch.qpos(), i, s.qpos);
      set(batch.qvel(), i, s.qvel);
      set(batch.ctrl(), i, s.ctrl);
      Eigen::VectorXd mass = get(batch.body_mass(), i);
      for (int b = 1; b < model.nbody; ++b) mass[b] *= scale(rng);
      set(batch.body_mass(), i, mass);
    }
  }
  DeviceArenas<double> arenas() {
    return {batch.data_arena(),  batch.param_arena(), work.data(),        batch.time_data(),
            batch.status_data(), phase.data(),        batch.padded_size()};
  }
  ModelArrays<double> arrays;
  ModelView<double> view;
  Batch<double> batch;
  std::vector<double> work;
  std::vector<int> phase;
};

// stopped instances: a NaN velocity (1), a negative mass (4: H not positive definite) and a
// huge gravity (7: finite at first, non-finite a few steps later)
void break_some(Batch<double>& b, const Model& model) {
  b.gravity().set(7, std::vector<double>{0, 0, 1e300});
  std::vector<double> qvel = b.qvel().get(1);
  qvel[0] = std::numeric_limits<double>::quiet_NaN();
  b.qvel().set(1, qvel);
  // valid masses, but so large that H overflows: the solve fails
  std::vector<double> mass = b.body_mass().get(4);
  for (int k = 1; k < model.nbody; ++k) mass[k] = std::numeric_limits<double>::max();
  b.body_mass().set(4, mass);
  // a negative mass: stopped before the solve
  mass = b.body_mass().get(5);
  for (int k = 1; k < model.nbody; ++k) mass[k] = -mass[k];
  b.body_mass().set(5, mass);
}

bool same_arena(Batch<double>& a, Batch<double>& b) {
  const std::size_t n = a.data_span().size();
  return n == b.data_span().size() &&
         std::memcmp(a.data_arena(), b.data_arena(), n * sizeof(double)) == 0 &&
         std::memcmp(a.time_data(), b.time_data(), a.size() * sizeof(double)) == 0 &&
         std::memcmp(a.status_data(), b.status_data(), a.size() * sizeof(int)) == 0;
}

class Phased : public ::testing::TestWithParam<std::string> {};

TEST_P(Phased, ForwardAndStepGiveTheSameBitsAsThePipeline) {
  for (Integrator integrator : {Integrator::kEuler, Integrator::kRK4}) {
    Model model = examples::by_name(GetParam());
    model.integrator = integrator;
    constexpr int kN = 40;
    HostDeviceBatch cut(model, kN, 61), whole(model, kN, 61);
    break_some(cut.batch, model);
    break_some(whole.batch, model);
    const ModelView<double>& m = cut.view;
    DeviceArenas<double> a = cut.arenas(), w = whole.arenas();

    // forward: begin → smooth → solve → end
    for (int i = 0; i < kN; ++i) forward(whole.view, w.instance(whole.view, i));
    for (int i = 0; i < kN; ++i) a.phase[i] = forward_begin(m, a.instance(m, i));
    for (int i = 0; i < kN; ++i) {
      if (a.phase[i] == kPhaseSolve) smooth(m, a.instance(m, i));
    }
    for (int i = 0; i < kN; ++i) a.phase[i] = solve_in_place(m, a.instance(m, i), 0.0, a.phase[i]);
    for (int i = 0; i < kN; ++i) forward_end(m, a.instance(m, i), a.phase[i]);
    EXPECT_TRUE(same_arena(cut.batch, whole.batch)) << to_string(integrator) << " forward";

    // steps: begin → solves × (smooth → solve → end)
    for (int s = 0; s < 7; ++s) {
      for (int i = 0; i < kN; ++i) {
        const Instance<double> d = w.instance(whole.view, i);
        if (*d.status == 0) step(whole.view, d);
      }
      for (int i = 0; i < kN; ++i) a.phase[i] = step_begin(m, a.instance(m, i));
      for (int stage = 0; stage < solves_per_step(m); ++stage) {
        for (int i = 0; i < kN; ++i) {
          if (a.phase[i] == kPhaseSolve) smooth(m, a.instance(m, i));
        }
        for (int i = 0; i < kN; ++i) {
          a.phase[i] = solve_in_place(m, a.instance(m, i), step_damping_dt(m), a.phase[i]);
        }
        for (int i = 0; i < kN; ++i) a.phase[i] = step_end(m, a.instance(m, i), stage, a.phase[i]);
      }
    }
    EXPECT_TRUE(same_arena(cut.batch, whole.batch)) << to_string(integrator) << " step";
    EXPECT_NE(cut.batch.status()[1], 0);
    EXPECT_NE(cut.batch.status()[4], 0);
  }
}

INSTANTIATE_TEST_SUITE_P(Examples, Phased, ::testing::ValuesIn(examples::names()),
                         [](const auto& info) { return info.param; });

// ---------------------------------------------------------------------------------------
// the cuSOLVER path's packing on the CPU, with a column-major Cholesky standing in for
// cusolverDn<t>potrfBatched/potrsBatched (lower, info = order of the first bad minor)

int potrf_lower(double* a, int n) {
  for (int j = 0; j < n; ++j) {
    double s = a[j + j * n];
    for (int k = 0; k < j; ++k) s -= a[j + k * n] * a[j + k * n];
    if (!(s > 0)) return j + 1;
    a[j + j * n] = std::sqrt(s);
    for (int i = j + 1; i < n; ++i) {
      double t = a[i + j * n];
      for (int k = 0; k < j; ++k) t -= a[i + k * n] * a[j + k * n];
      a[i + j * n] = t / a[j + j * n];
    }
  }
  return 0;
}

void potrs_lower(const double* l, double* x, int n) {
  for (int i = 0; i < n; ++i) {
    for (int k = 0; k < i; ++k) x[i] -= l[i + k * n] * x[k];
    x[i] /= l[i + i * n];
  }
  for (int i = n - 1; i >= 0; --i) {
    for (int k = i + 1; k < n; ++k) x[i] -= l[k + i * n] * x[k];
    x[i] /= l[i + i * n];
  }
}

// to (cols x rows) = fromᵀ, column-major: what the backend's cuBLAS geam does
void transpose(const double* from, double* to, int rows, int cols) {
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) to[c + r * cols] = from[r + c * rows];
  }
}

TEST_P(Phased, DenseSolveMatchesTheInKernelSolve) {
  const Model model = examples::by_name(GetParam());
  constexpr int kN = 32;
  HostDeviceBatch dense(model, kN, 62), inkernel(model, kN, 62);
  break_some(dense.batch, model);
  break_some(inkernel.batch, model);
  const ModelView<double>& m = dense.view;
  DeviceArenas<double> a = dense.arenas(), b = inkernel.arenas();
  const int nv = model.nv, nn = nv * nv;
  const double damping_dt = 0.01;
  for (int i = 0; i < kN; ++i) {
    a.phase[i] = forward_begin(m, a.instance(m, i));
    b.phase[i] = forward_begin(inkernel.view, b.instance(inkernel.view, i));
    if (a.phase[i] == kPhaseSolve) smooth(m, a.instance(m, i));
    if (b.phase[i] == kPhaseSolve) smooth(inkernel.view, b.instance(inkernel.view, i));
    b.phase[i] =
        solve_in_place(inkernel.view, b.instance(inkernel.view, i), damping_dt, b.phase[i]);
  }
  std::vector<double> packed(nn * kN), strided(nn * kN), rhs(nv * kN), rhs_strided(nv * kN);
  std::vector<int> info(kN);
  for (int k = 0; k < kN; ++k) {
    gpu::pack_dense(m, a.instance(m, k), a.phase[k], damping_dt, Row<double>{packed.data() + k, kN},
                    Row<double>{rhs.data() + k, kN});
  }
  transpose(packed.data(), strided.data(), kN, nn);
  transpose(rhs.data(), rhs_strided.data(), kN, nv);
  for (int k = 0; k < kN; ++k) {
    info[k] = potrf_lower(strided.data() + k * nn, nv);
    if (info[k] == 0) potrs_lower(strided.data() + k * nn, rhs_strided.data() + k * nv, nv);
  }
  transpose(rhs_strided.data(), rhs.data(), nv, kN);
  for (int k = 0; k < kN; ++k) {
    a.phase[k] = gpu::unpack_solution(m, a.instance(m, k), a.phase[k], info[k],
                                      strided.data() + k * nn, Row<double>{rhs.data() + k, kN});
  }
  for (int k = 0; k < kN; ++k) {
    EXPECT_EQ(a.phase[k], b.phase[k]) << "instance " << k;
    EXPECT_EQ(dense.batch.status()[k], inkernel.batch.status()[k]) << "instance " << k;
    EXPECT_LT(relative_error(get(dense.batch.qacc(), k), get(inkernel.batch.qacc(), k)), 1e-12)
        << "instance " << k;
  }
  EXPECT_EQ(a.phase[4], kPhaseFailed);
  EXPECT_EQ(dense.batch.status()[4], kStatusFactorization);
  EXPECT_EQ(a.phase[5], kPhaseIdle);
  EXPECT_EQ(dense.batch.status()[5], kStatusBadParameters);
}

// ---------------------------------------------------------------------------------------
// energies (kernels/energy.h) on the CPU

TEST(Energy, PendulumMatchesItsClosedForm) {
  const double l = 0.7, mass = 1.3, r = 0.05;
  const Model model = examples::pendulum(l, mass);
  HostDeviceBatch h(model, 1, 63);
  const double theta = 0.4, omega = -1.7;
  h.batch.qpos().set(0, std::vector<double>{theta});
  h.batch.qvel().set(0, std::vector<double>{omega});
  h.batch.reset_parameters(0, model);
  const Instance<double> d = h.arenas().instance(h.view, 0);
  ASSERT_TRUE(forward(h.view, d));
  const Energy<double> e = instance_energy(h.view, d);
  const double inertia = 0.4 * mass * r * r + mass * l * l;
  EXPECT_NEAR(e.kinetic, 0.5 * inertia * omega * omega, 1e-12);
  EXPECT_NEAR(e.potential, -mass * 9.81 * l * std::cos(theta), 1e-12);
}

TEST(Energy, IsConservedByRK4OnTheDoublePendulum) {
  Model model = examples::double_pendulum();
  model.integrator = Integrator::kRK4;
  HostDeviceBatch h(model, 1, 64);
  const Instance<double> d = h.arenas().instance(h.view, 0);
  auto total = [&] {
    EXPECT_TRUE(forward(h.view, d));
    const Energy<double> e = instance_energy(h.view, d);
    return e.kinetic + e.potential;
  };
  const double before = total();
  for (int s = 0; s < 500; ++s) step(h.view, d);
  ASSERT_EQ(*d.status, 0);
  EXPECT_NEAR(total(), before, 1e-6 * std::max(1.0, std::abs(before)));
}

}  // namespace
}  // namespace zwang::test
