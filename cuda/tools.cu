#include <thrust/copy.h>
#include <thrust/execution_policy.h>
#include <thrust/for_each.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/transform.h>
#include <thrust/transform_reduce.h>

#include <algorithm>

#include "cuda/check.hpp"
#include "cuda/device_memory.hpp"
#include "cuda/group_warp.cuh"
#include "cuda/tools.hpp"
#include "kernels/instance.h"
#include "kernels/pipeline.h"

namespace zwang::gpu {
namespace {

// Thrust copies functors by value into its kernels; &m.lay then points at the thread's own
// copy of the view, which is what Instance needs

template <class T>
struct ResetOp {
  ModelView<T> m;
  DeviceArenas<T> b;
  const T* state;  // qpos, qvel, ctrl, or null for qpos0 and zeros
  ZW_HD void operator()(std::int64_t i) const {
    for (int r = 0; r < m.lay.data_rows; ++r) b.data[r * b.ld + i] = T(0);
    for (int j = 0; j < m.s.nq; ++j) b.data[(m.lay.qpos + j) * b.ld + i] = m.qpos0[j];
    // mocap bodies at their body_pos and body_quat
    for (int body = 1; m.s.nmocap > 0 && body < m.s.nbody; ++body) {
      const int id = m.body_mocapid[body];
      if (id < 0) continue;
      for (int k = 0; k < 3; ++k)
        b.data[(m.lay.mocap_pos + 3 * id + k) * b.ld + i] = m.body_pos[3 * body + k];
      for (int k = 0; k < 4; ++k)
        b.data[(m.lay.mocap_quat + 4 * id + k) * b.ld + i] = m.body_quat[4 * body + k];
    }
    if (state) {
      const int nq = m.s.nq, nv = m.s.nv, nu = m.s.nu;
      for (int j = 0; j < nq; ++j) b.data[(m.lay.qpos + j) * b.ld + i] = state[j];
      for (int j = 0; j < nv; ++j) b.data[(m.lay.qvel + j) * b.ld + i] = state[nq + j];
      for (int j = 0; j < nu; ++j) b.data[(m.lay.ctrl + j) * b.ld + i] = state[nq + nv + j];
    }
    b.time[i] = 0;
    b.status[i] = 0;
    b.phase[i] = 0;
  }
};

template <class T>
struct EnergyOp {
  ModelView<T> m;
  DeviceArenas<T> b;
  ZW_HD Energy<T> operator()(std::int64_t i) const { return instance_energy(m, b.instance(m, i)); }
};

template <class T>
struct NonfiniteOp {
  ModelView<T> m;
  DeviceArenas<T> b;
  ZW_HD std::int64_t operator()(std::int64_t i) const {
    const Instance<T> d = b.instance(m, i);
    const bool finite = all_finite(d.qpos(), m.s.nq) && all_finite(d.qvel(), m.s.nv) &&
                        all_finite(d.qacc(), m.s.nv);
    return finite ? 0 : 1;
  }
};

struct NonZero {
  ZW_HD bool operator()(int s) const { return s != 0; }
};

}  // namespace

template <class T>
void device_reset(const DeviceRun<T>& run, const std::int64_t* instances, std::int64_t count,
                  const T* state) {
  if (count <= 0) return;
  thrust::for_each(thrust::cuda::par_nosync.on(run.stream), instances, instances + count,
                   ResetOp<T>{run.m, run.b, state});
  ZW_CUDA_CHECK(cudaGetLastError());
}

template <class T>
std::vector<Energy<T>> device_energy(const DeviceRun<T>& run) {
  DeviceBuffer<Energy<T>> out(static_cast<std::size_t>(run.n));
  thrust::transform(thrust::cuda::par.on(run.stream), thrust::counting_iterator<std::int64_t>(0),
                    thrust::counting_iterator<std::int64_t>(run.n), out.get(),
                    EnergyOp<T>{run.m, run.b});
  ZW_CUDA_CHECK(cudaGetLastError());
  std::vector<Energy<T>> host(out.size());
  ZW_CUDA_CHECK(
      cudaMemcpyAsync(host.data(), out.get(), out.bytes(), cudaMemcpyDeviceToHost, run.stream));
  ZW_CUDA_CHECK(cudaStreamSynchronize(run.stream));
  return host;
}

template <class T>
std::int64_t device_count_nonfinite(const DeviceRun<T>& run) {
  const std::int64_t count = thrust::transform_reduce(
      thrust::cuda::par.on(run.stream), thrust::counting_iterator<std::int64_t>(0),
      thrust::counting_iterator<std::int64_t>(run.n), NonfiniteOp<T>{run.m, run.b}, std::int64_t{0},
      thrust::plus<std::int64_t>());
  ZW_CUDA_CHECK(cudaGetLastError());
  return count;
}

template <class T>
std::vector<std::int64_t> device_failed_instances(const DeviceRun<T>& run) {
  DeviceBuffer<std::int64_t> out(static_cast<std::size_t>(run.n));
  std::int64_t* end = thrust::copy_if(
      thrust::cuda::par.on(run.stream), thrust::counting_iterator<std::int64_t>(0),
      thrust::counting_iterator<std::int64_t>(run.n), run.b.status, out.get(), NonZero{});
  ZW_CUDA_CHECK(cudaGetLastError());
  std::vector<std::int64_t> host(static_cast<std::size_t>(end - out.get()));
  if (!host.empty()) {
    ZW_CUDA_CHECK(cudaMemcpyAsync(host.data(), out.get(), host.size() * sizeof(std::int64_t),
                                  cudaMemcpyDeviceToHost, run.stream));
  }
  ZW_CUDA_CHECK(cudaStreamSynchronize(run.stream));
  return host;
}

namespace {

// one group of G lanes: out = {sum, max}, ints = {argmax, total}, offsets of the scan
template <int G>
__global__ void group_check_kernel(const double* values, const int* counts, int n, double* out,
                                   int* ints, int* offsets) {
  Warp<G> g(cooperative_groups::tiled_partition<G>(cooperative_groups::this_thread_block()));
  const double sum = g.template sum<double>(n, [&](int i) { return values[i]; });
  const double max = g.template max<double>(
      n, [&](int i) { return values[i]; }, -INFINITY);
  const int argmax = g.argmax(n, [&](int i) { return floor(2 * values[i]); });
  const int total = g.scan(
      n, [&](int i) { return counts[i]; }, [&](int i, int offset) { offsets[i] = offset; });
  const int uniform = g.uniform([&] { return 3 * n + 1; });
  const TwoSums<double> pair = g.sum(
      n, [&](int i) { return TwoSums<double>(values[i], -2 * values[i]); },
      TwoSums<double>(1.5, -0.5));
  g.one([&] {
    out[0] = sum;
    out[1] = max;
    out[2] = pair.a;
    out[3] = pair.b;
    ints[0] = argmax;
    ints[1] = total;
    ints[2] = uniform;
  });
}

// one instance on one warp: forward() (steps = 0) or `steps` step()s on the group
__global__ void group_steps_kernel(const __grid_constant__ ModelView<double> m, double* data,
                                   double* param, double* work, double* time, int* status,
                                   int steps) {
  Warp<32> g(cooperative_groups::tiled_partition<32>(cooperative_groups::this_thread_block()));
  const Instance<double> d{{data, 1}, {param, 1}, {work, 1}, &m.lay, time, status};
  if (steps == 0) forward(m, d, g);
  for (int k = 0; k < steps; ++k) step(m, d, g);
}

}  // namespace

template <int G>
GroupCheck device_group_check(const std::vector<double>& values, const std::vector<int>& counts) {
  const int n = static_cast<int>(values.size());
  DeviceBuffer<double> v(values.size() + 1), out(4);
  DeviceBuffer<int> c(counts.size() + 1), ints(3), offsets(counts.size() + 1);
  ZW_CUDA_CHECK(cudaMemcpy(v.get(), values.data(), n * sizeof(double), cudaMemcpyHostToDevice));
  ZW_CUDA_CHECK(cudaMemcpy(c.get(), counts.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  group_check_kernel<G><<<1, G>>>(v.get(), c.get(), n, out.get(), ints.get(), offsets.get());
  ZW_CUDA_CHECK(cudaGetLastError());
  GroupCheck r;
  double o[4];
  int k[3];
  r.offsets.resize(values.size());
  ZW_CUDA_CHECK(cudaMemcpy(o, out.get(), sizeof(o), cudaMemcpyDeviceToHost));
  ZW_CUDA_CHECK(cudaMemcpy(k, ints.get(), sizeof(k), cudaMemcpyDeviceToHost));
  ZW_CUDA_CHECK(
      cudaMemcpy(r.offsets.data(), offsets.get(), n * sizeof(int), cudaMemcpyDeviceToHost));
  r.sum = o[0];
  r.max = o[1];
  r.pair_a = o[2];
  r.pair_b = o[3];
  r.argmax = k[0];
  r.total = k[1];
  r.uniform = k[2];
  return r;
}

GroupSteps device_group_steps(const ModelView<double>& view, const std::vector<double>& data,
                              const std::vector<double>& param, double time, int steps) {
  const auto upload = [](const auto& host, auto& device) {
    ZW_CUDA_CHECK(cudaMemcpy(device.get(), host.data(), host.size() * sizeof(host[0]),
                             cudaMemcpyHostToDevice));
  };
  DeviceBuffer<int> status(1);
  DeviceBuffer<double> d(data.size()), p(param.size()),
      w(static_cast<std::size_t>(std::max(view.lay.work_rows, 1))), t(1);
  upload(data, d);
  upload(param, p);
  upload(std::vector<double>(w.size(), 0.0), w);
  upload(std::vector<double>{time}, t);
  upload(std::vector<int>{0}, status);
  group_steps_kernel<<<1, 32>>>(view, d.get(), p.get(), w.get(), t.get(), status.get(), steps);
  ZW_CUDA_CHECK(cudaGetLastError());
  GroupSteps r;
  r.data.resize(data.size());
  r.work.resize(w.size());
  ZW_CUDA_CHECK(
      cudaMemcpy(r.data.data(), d.get(), r.data.size() * sizeof(double), cudaMemcpyDeviceToHost));
  ZW_CUDA_CHECK(
      cudaMemcpy(r.work.data(), w.get(), r.work.size() * sizeof(double), cudaMemcpyDeviceToHost));
  ZW_CUDA_CHECK(cudaMemcpy(&r.time, t.get(), sizeof(double), cudaMemcpyDeviceToHost));
  ZW_CUDA_CHECK(cudaMemcpy(&r.status, status.get(), sizeof(int), cudaMemcpyDeviceToHost));
  return r;
}

template GroupCheck device_group_check<16>(const std::vector<double>&, const std::vector<int>&);
template GroupCheck device_group_check<32>(const std::vector<double>&, const std::vector<int>&);

#define ZW_INSTANTIATE(T)                                                                       \
  template void device_reset(const DeviceRun<T>&, const std::int64_t*, std::int64_t, const T*); \
  template std::vector<Energy<T>> device_energy(const DeviceRun<T>&);                           \
  template std::int64_t device_count_nonfinite(const DeviceRun<T>&);                            \
  template std::vector<std::int64_t> device_failed_instances(const DeviceRun<T>&);
ZW_INSTANTIATE(float)
ZW_INSTANTIATE(double)
#undef ZW_INSTANTIATE

}  // namespace zwang::gpu
