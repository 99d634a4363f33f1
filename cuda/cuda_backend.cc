#include "cuda/cuda_backend.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "cuda/check.hpp"
#include "cuda/cusolver_chol.hpp"
#include "cuda/device_memory.hpp"
#include "cuda/launch.hpp"
#include "cuda/plan.hpp"
#include "cuda/tools.hpp"
#include "host/batch/kept_rows.hpp"
#include "host/batch/residency.hpp"
#include "host/model/arrays.hpp"
#include "kernels/pipeline.h"

namespace zwang {

// No device and no driver (cudaErrorNoDevice, cudaErrorInsufficientDriver) are the normal
// "no GPU" case: devices = 0 and the runtime's own words as the reason.  Devices the compiled
// architectures do not cover are not counted either, so that Backend::kAuto picks the CPU.
CudaStatus cuda_status() {
  int count = 0;
  std::vector<cudaDeviceProp> props;
  try {
    ZW_CUDA_CHECK(cudaGetDeviceCount(&count));
    props.resize(static_cast<std::size_t>(count));
    for (int d = 0; d < count; ++d) ZW_CUDA_CHECK(cudaGetDeviceProperties(&props[d], d));
  } catch (const gpu::CudaError& e) {
    cudaGetLastError();
    return {0, gpu::no_device_reason(e.text())};
  }
  if (count == 0) return {0, gpu::no_device_reason("cudaGetDeviceCount found none")};
  int usable = 0;
  std::string skipped;
  for (int d = 0; d < count; ++d) {
    const cudaDeviceProp& p = props[d];
    if (gpu::architectures_cover(ZWANG_CUDA_ARCHITECTURES_STRING, p.major, p.minor)) {
      ++usable;
    } else {
      skipped += fmt::format("{}device {} ({}, compute capability {}.{})",
                             skipped.empty() ? "" : ", ", d, p.name, p.major, p.minor);
    }
  }
  if (usable == 0) {
    return {0, gpu::no_device_reason(fmt::format(
                   "{} not covered by the architectures zwang was built for ({}); reconfigure "
                   "with -DZWANG_CUDA_ARCHITECTURES=<major><minor>",
                   skipped, ZWANG_CUDA_ARCHITECTURES_STRING))};
  }
  return {usable, skipped.empty() ? "" : fmt::format("skipped: {}", skipped)};
}

namespace gpu {
namespace {

// steps per captured graph on the staged and cuSOLVER paths (each step is tens of nodes);
// the fused in-kernel path loops over all steps inside one kernel
constexpr int kGraphSteps = 32;
// graphs kept per backend; a new step count beyond this drops the cache
constexpr std::size_t kMaxGraphs = 8;

}  // namespace

// the copies of one field between the host batch and the device arenas, on the stream
template <class T>
class DeviceCopier final : public FieldCopier {
 public:
  DeviceCopier(Batch<T>& batch, const DeviceArenas<T>& device, cudaStream_t stream)
      : batch_(batch), device_(device), stream_(stream) {}

  void to_host(FieldId f) override {
    copy(f, cudaMemcpyDeviceToHost);
    ZW_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }
  void to_device(FieldId f) override {
    copy(f, cudaMemcpyHostToDevice);
    uploaded_.record(stream_);
  }
  void wait_to_device() override { uploaded_.synchronize(); }

 private:
  // f's rows are contiguous in both copies: rows × ld values from row × ld on
  void copy(FieldId f, cudaMemcpyKind kind) {
    const FieldRows r = field_rows(f, batch_.layout(), batch_.sizes());
    const typename Batch<T>::HostArenas host = batch_.unsynchronized();
    const std::size_t offset = static_cast<std::size_t>(r.row) * device_.ld;
    const std::size_t count = static_cast<std::size_t>(r.rows) * device_.ld;
    switch (r.arena) {
      case ArenaId::kData:
        return copy(host.data + offset, device_.data + offset, count, kind);
      case ArenaId::kParam:
        return copy(host.param + offset, device_.param + offset, count, kind);
      case ArenaId::kTime:
        return copy(host.time, device_.time, count, kind);
      case ArenaId::kStatus:
        return copy(host.status, device_.status, count, kind);
    }
  }
  template <class E>
  void copy(E* host, E* device, std::size_t count, cudaMemcpyKind kind) {
    if (count == 0) return;
    const bool down = kind == cudaMemcpyDeviceToHost;
    ZW_CUDA_CHECK(cudaMemcpyAsync(down ? host : device, down ? device : host, count * sizeof(E),
                                  kind, stream_));
  }

  Batch<T>& batch_;
  DeviceArenas<T> device_;
  cudaStream_t stream_;
  Event uploaded_;  // recorded after the last upload
};

// host memory page-locked for the lifetime of the owner, so that the field copies run at full
// bus speed; where the runtime refuses (already registered, no memory), copies stay pageable
class HostRegistration {
 public:
  HostRegistration() = default;
  HostRegistration(const HostRegistration&) = delete;
  HostRegistration& operator=(const HostRegistration&) = delete;
  ~HostRegistration() {
    for (void* p : registered_) cudaHostUnregister(p);
  }
  void add(void* p, std::size_t bytes) {
    if (bytes == 0) return;
    if (cudaHostRegister(p, bytes, cudaHostRegisterDefault) == cudaSuccess) {
      registered_.push_back(p);
    } else {
      cudaGetLastError();
    }
  }

 private:
  std::vector<void*> registered_;
};

template <class T>
struct CudaBackend<T>::Impl {
  Impl(const Model& m, Batch<T>& b, const SimulatorOptions& o)
      : model(m),
        options(o),
        batch(b),
        n(b.size()),
        ld(b.padded_size()),
        lay(b.layout()),
        group(choose_group(o.cuda_group)),
        path(choose_cholesky(
            o.cholesky, m.nv, o.cusolver_min_nv, group,
            m.integrator == Integrator::kImplicitFast || m.integrator == Integrator::kImplicit)),
        arrays(m),
        model_ints(arrays.ints().size()),
        model_reals(arrays.reals().size()),
        data(static_cast<std::size_t>(lay.data_rows) * ld),
        param(static_cast<std::size_t>(lay.param_rows) * ld),
        time(static_cast<std::size_t>(ld)),
        status(static_cast<std::size_t>(ld)),
        work(static_cast<std::size_t>(lay.work_rows) * ld),
        phase(static_cast<std::size_t>(ld)),
        config(launch_config<T>()),
        copier(b, arenas(), stream.get()),
        residency(lay, b.sizes(), ld, sizeof(T), copier) {
    cudaDeviceProp p{};
    ZW_CUDA_CHECK(cudaGetDeviceProperties(&p, o.device));
    device_name = fmt::format("{}, sm_{}{}", p.name, p.major, p.minor);
    const cudaStream_t s = stream.get();
    ZW_CUDA_CHECK(cudaMemcpyAsync(model_ints.get(), arrays.ints().data(), model_ints.bytes(),
                                  cudaMemcpyHostToDevice, s));
    ZW_CUDA_CHECK(cudaMemcpyAsync(model_reals.get(), arrays.reals().data(), model_reals.bytes(),
                                  cudaMemcpyHostToDevice, s));
    ZW_CUDA_CHECK(cudaMemsetAsync(work.get(), 0, work.bytes(), s));
    ZW_CUDA_CHECK(cudaMemsetAsync(phase.get(), 0, phase.bytes(), s));
    view = arrays.view(model_ints.get(), model_reals.get());
    if (path == CholeskyPath::kCusolver) {
      cusolver = std::make_unique<CusolverCholesky<T>>(m.nv, ld, s, kCusolverBudget);
    }
    if (group > 1) {
      std::vector<int> rows;
      for (const auto& [begin, end] : kept_output_rows(b)) {
        rows.push_back(begin);
        rows.push_back(end);
      }
      out_rows = DeviceBuffer<int>(std::max<std::size_t>(rows.size(), 1));
      if (!rows.empty()) {
        ZW_CUDA_CHECK(cudaMemcpyAsync(out_rows.get(), rows.data(), rows.size() * sizeof(int),
                                      cudaMemcpyHostToDevice, s));
      }
      groups = group_launch<T>(group, lay, n, config.sms, out_rows.get(),
                               static_cast<int>(rows.size() / 2));
    }
    // the device copy starts as the batch, every byte of it, padding included: nothing the
    // host later reads can be uninitialised device memory
    const typename Batch<T>::HostArenas host = b.unsynchronized();
    pinned.add(host.data, data.bytes());
    pinned.add(host.param, param.bytes());
    pinned.add(host.time, time.bytes());
    pinned.add(host.status, status.bytes());
    const auto up = [&](auto* device, const auto* from, std::size_t bytes) {
      if (bytes > 0) ZW_CUDA_CHECK(cudaMemcpyAsync(device, from, bytes, cudaMemcpyHostToDevice, s));
    };
    up(data.get(), host.data, data.bytes());
    up(param.get(), host.param, param.bytes());
    up(time.get(), host.time, time.bytes());
    up(status.get(), host.status, status.bytes());
    stream.synchronize();
    b.set_sync(&residency);
  }

  ~Impl() {
    // uploads may still read the page-locked host batch that `pinned` unregisters
    cudaStreamSynchronize(stream.get());
    if (batch.sync() == &residency) batch.set_sync(nullptr);
  }

  DeviceArenas<T> arenas() const {
    return {data.get(), param.get(), work.get(), time.get(), status.get(), phase.get(), ld};
  }

  DeviceRun<T> run() const { return {view, arenas(), n, stream.get(), &config}; }

  void check_batch(const Batch<T>& b) const {
    if (&b != &batch) {
      throw std::invalid_argument(fmt::format(
          "the CUDA backend holds the state of the batch it was made with ({} instances); got "
          "another batch ({} instances)",
          n, b.size()));
    }
  }

  // before a device call: the host's edits to the device
  void upload(Batch<T>& b) {
    check_batch(b);
    residency.push();
  }

  bool fused_in_kernel() const {
    return path == CholeskyPath::kInKernel && options.kernels == CudaKernels::kFused;
  }

  // Lᵀ L = H + h_d diag(damping) and q̈ for the instances in kPhaseSolve
  void solve(const DeviceRun<T>& r, T damping_dt) {
    if (cusolver) {
      cusolver->solve(r, damping_dt);
    } else {
      launch_solve(r, damping_dt);
    }
  }

  void enqueue_forward() {
    const DeviceRun<T> r = run();
    if (group > 1) {
      launch_step_group(r, groups, 0);
      return;
    }
    if (fused_in_kernel()) {
      launch_forward_fused(r);
      return;
    }
    launch_forward_begin(r);
    launch_smooth(r, options.kernels == CudaKernels::kStaged);
    solve(r, T(0));
    launch_forward_end(r);
  }

  void enqueue_steps(int steps) {
    const DeviceRun<T> r = run();
    if (group > 1) {
      launch_step_group(r, groups, steps);
      return;
    }
    if (fused_in_kernel()) {
      launch_step_fused(r, steps);
      return;
    }
    const bool staged = options.kernels == CudaKernels::kStaged;
    const T damping_dt = step_damping_dt(view);
    const int solves = solves_per_step(view);
    for (int s = 0; s < steps; ++s) {
      launch_step_begin(r);
      for (int stage = 0; stage < solves; ++stage) {
        launch_smooth(r, staged);
        solve(r, damping_dt);
        launch_step_end(r, stage);
      }
    }
  }

  // the stream's work of `enqueue` as an instantiated graph; empty if capture failed (a
  // library call that cannot be captured), in which case nothing was enqueued
  GraphExec capture(const std::function<void()>& enqueue) {
    const cudaStream_t s = stream.get();
    ZW_CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    bool ok = true;
    try {
      enqueue();
    } catch (const CudaError&) {
      ok = false;
    } catch (...) {
      cudaGraph_t broken = nullptr;
      cudaStreamEndCapture(s, &broken);
      if (broken) cudaGraphDestroy(broken);
      throw;
    }
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    try {
      ZW_CUDA_CHECK(cudaStreamEndCapture(s, &graph));
      if (ok) ZW_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    } catch (const CudaError&) {
      ok = false;
    }
    if (graph) cudaGraphDestroy(graph);
    cudaGetLastError();
    return ok ? GraphExec(exec) : GraphExec();
  }

  // `steps` steps from the graph cached for that count: the first call with a count runs
  // directly (it also warms up the libraries), the second captures, later ones replay
  void replay(int steps) {
    if (graphs.size() >= kMaxGraphs && !graphs.count(steps)) graphs.clear();
    CachedGraph& g = graphs[steps];
    if (!g.exec && !g.failed && ++g.calls >= 2) {
      g.exec = capture([&] { enqueue_steps(steps); });
      g.failed = !g.exec;
    }
    if (g.exec) {
      g.exec.launch(stream.get());
    } else {
      enqueue_steps(steps);
    }
  }

  void run_steps(int steps) {
    if (steps <= 0) return;
    if (!options.cuda_graphs) {
      enqueue_steps(steps);
      return;
    }
    const int per_graph = fused_in_kernel() ? steps : std::min(steps, kGraphSteps);
    for (int k = 0; k < steps / per_graph; ++k) replay(per_graph);
    if (steps % per_graph) replay(steps % per_graph);
  }

  struct CachedGraph {
    int calls = 0;
    bool failed = false;
    GraphExec exec;
  };

  // the device buffers for reset(): instance indices and a state, grown as needed
  template <class E>
  E* staged(DeviceBuffer<E>& buffer, const E* values, std::size_t count) {
    if (buffer.size() < count) buffer = DeviceBuffer<E>(count);
    if (count > 0) {
      ZW_CUDA_CHECK(cudaMemcpyAsync(buffer.get(), values, count * sizeof(E), cudaMemcpyHostToDevice,
                                    stream.get()));
    }
    return buffer.get();
  }

  Model model;
  SimulatorOptions options;
  Batch<T>& batch;
  std::int64_t n, ld;
  Layout lay;
  int group;  // lanes per instance
  CholeskyPath path;
  std::string device_name;
  Stream stream;
  ModelArrays<T> arrays;
  DeviceBuffer<int> model_ints;
  DeviceBuffer<T> model_reals;
  ModelView<T> view{};
  DeviceBuffer<T> data, param;
  DeviceBuffer<double> time;
  DeviceBuffer<int> status;
  DeviceBuffer<T> work;
  DeviceBuffer<int> phase;
  LaunchConfig config;
  std::unique_ptr<CusolverCholesky<T>> cusolver;
  DeviceBuffer<int> out_rows;  // the lane-group path's kept output rows, [begin, end) pairs
  GroupLaunch groups;
  std::map<int, CachedGraph> graphs;
  HostRegistration pinned;
  DeviceCopier<T> copier;
  Residency residency;
  DeviceBuffer<std::int64_t> reset_instances;
  DeviceBuffer<T> reset_state;
};

template <class T>
CudaBackend<T>::CudaBackend(const Model& model, Batch<T>& batch, const SimulatorOptions& options) {
  check_cuda_options(options);
  const CudaStatus cuda = cuda_status();
  if (cuda.devices == 0) throw std::runtime_error(cuda.reason);
  int count = 0;
  ZW_CUDA_CHECK(cudaGetDeviceCount(&count));
  if (options.device >= count) {
    throw std::runtime_error(fmt::format("CUDA device {} requested; this machine has {} ({})",
                                         options.device, count, cuda.reason));
  }
  DeviceGuard guard(options.device);
  impl_ = std::make_unique<Impl>(model, batch, options);
}

// the buffers are released with their device current; errors cannot be reported here
template <class T>
CudaBackend<T>::~CudaBackend() {
  if (!impl_) return;
  int previous = 0;
  cudaGetDevice(&previous);
  cudaSetDevice(impl_->options.device);
  impl_.reset();
  cudaSetDevice(previous);
}

template <class T>
void CudaBackend<T>::forward(Batch<T>& batch) {
  DeviceGuard guard(impl_->options.device);
  impl_->upload(batch);
  // before enqueueing: a call that throws after some of its work was enqueued has changed the
  // device copy all the same, and the host must not take its copy for current
  impl_->residency.device_wrote(DeviceCall::kForward);
  impl_->enqueue_forward();
}

template <class T>
void CudaBackend<T>::step(Batch<T>& batch, int steps) {
  if (steps <= 0) return;
  DeviceGuard guard(impl_->options.device);
  impl_->upload(batch);
  impl_->residency.device_wrote(DeviceCall::kStep);  // before enqueueing, as in forward()
  impl_->run_steps(steps);
}

template <class T>
std::string CudaBackend<T>::describe() const {
  const Impl& m = *impl_;
  const std::string kernels =
      m.group > 1 ? fmt::format("lane groups of {}, {} per block{}", m.group, m.groups.per_block,
                                m.groups.tile > 0 ? ", shared-memory tiles" : "")
      : m.options.kernels == CudaKernels::kFused ? "fused kernels"
                                                 : "staged kernels";
  return fmt::format("cuda ({}, {} Cholesky, {}{})", m.device_name,
                     m.path == CholeskyPath::kCusolver ? "cuSOLVER" : "in-kernel", kernels,
                     m.options.cuda_graphs ? ", graphs" : "");
}

template <class T>
CholeskyPath CudaBackend<T>::cholesky() const {
  return impl_->path;
}

template <class T>
int CudaBackend<T>::graphs() const {
  return static_cast<int>(std::count_if(impl_->graphs.begin(), impl_->graphs.end(),
                                        [](const auto& g) { return bool(g.second.exec); }));
}

template <class T>
Transfers CudaBackend<T>::last_transfers() const {
  const Residency& r = impl_->residency;
  Transfers t;
  for (int k = 0; k < kFieldCount; ++k) {
    const FieldId f = static_cast<FieldId>(k);
    t.field_up[k] = r.bytes_up(f);
    t.field_down[k] = r.bytes_down(f);
    t.down += r.bytes_down(f);
    switch (field_rows(f, impl_->lay, impl_->batch.sizes()).arena) {
      case ArenaId::kData:
        t.data_up += r.bytes_up(f);
        break;
      case ArenaId::kParam:
        t.param_up += r.bytes_up(f);
        break;
      case ArenaId::kTime:
      case ArenaId::kStatus:
        t.time_status_up += r.bytes_up(f);
        break;
    }
  }
  return t;
}

template <class T>
bool CudaBackend<T>::host_current(FieldId f) const {
  return impl_->residency.host_current(f);
}

template <class T>
bool CudaBackend<T>::host_dirty(FieldId f) const {
  return impl_->residency.host_dirty(f);
}

template <class T>
void CudaBackend<T>::upload(Batch<T>& batch) {
  DeviceGuard guard(impl_->options.device);
  impl_->upload(batch);
}

template <class T>
void CudaBackend<T>::run_steps(int steps) {
  if (steps <= 0) return;
  DeviceGuard guard(impl_->options.device);
  impl_->residency.device_wrote(DeviceCall::kStep);
  impl_->run_steps(steps);
}

template <class T>
void CudaBackend<T>::download(Batch<T>& batch) {
  DeviceGuard guard(impl_->options.device);
  impl_->check_batch(batch);
  impl_->residency.pull_all();
}

template <class T>
void CudaBackend<T>::synchronize() {
  DeviceGuard guard(impl_->options.device);
  impl_->stream.synchronize();
}

template <class T>
void CudaBackend<T>::reset(const Model&, Batch<T>& batch, std::span<const std::int64_t> instances,
                           const T* qpos, const T* qvel, const T* ctrl) {
  DeviceGuard guard(impl_->options.device);
  impl_->check_batch(batch);
  for (std::int64_t i : instances) {
    if (i < 0 || i >= impl_->n) {
      throw std::out_of_range(fmt::format("instance {} is not in [0, {})", i, impl_->n));
    }
  }
  if (instances.empty()) return;
  impl_->upload(batch);
  const std::int64_t* list =
      impl_->staged(impl_->reset_instances, instances.data(), instances.size());
  const T* state = nullptr;
  if (qpos && qvel) {
    // one copy of nq + nv + nu values; a missing ctrl is zero
    const Sizes& s = batch.sizes();
    std::vector<T> values(static_cast<std::size_t>(s.nq + s.nv + s.nu), T(0));
    std::copy(qpos, qpos + s.nq, values.begin());
    std::copy(qvel, qvel + s.nv, values.begin() + s.nq);
    if (ctrl) std::copy(ctrl, ctrl + s.nu, values.begin() + s.nq + s.nv);
    state = impl_->staged(impl_->reset_state, values.data(), values.size());
  }
  impl_->residency.device_wrote(DeviceCall::kReset);  // before enqueueing, as in forward()
  device_reset(impl_->run(), list, static_cast<std::int64_t>(instances.size()), state);
}

template <class T>
void CudaBackend<T>::reset(Batch<T>& batch, std::span<const std::int64_t> instances) {
  reset(impl_->model, batch, instances, nullptr, nullptr, nullptr);
}

template <class T>
std::vector<DeviceField> CudaBackend<T>::device_fields() {
  const Impl& m = *impl_;
  const DeviceArenas<T> d = m.arenas();
  constexpr DeviceField::DType scalar =
      std::is_same_v<T, double> ? DeviceField::DType::kFloat64 : DeviceField::DType::kFloat32;
  std::vector<DeviceField> out;
  for (int k = 0; k < kFieldCount; ++k) {
    const FieldId f = static_cast<FieldId>(k);
    const FieldRows r = field_rows(f, m.lay, m.batch.sizes());
    const std::size_t offset = static_cast<std::size_t>(r.row) * m.ld;
    DeviceField field{f,         field_name(f),   nullptr, scalar, {m.n, r.rows},
                      {1, m.ld}, m.options.device};
    switch (r.arena) {
      case ArenaId::kData:
        field.data = d.data + offset;
        break;
      case ArenaId::kParam:
        field.data = d.param + offset;
        break;
      case ArenaId::kTime:
        field = {f,     field_name(f), d.time,          DeviceField::DType::kFloat64,
                 {m.n}, {1},           m.options.device};
        break;
      case ArenaId::kStatus:
        field = {f,     field_name(f), d.status,        DeviceField::DType::kInt32,
                 {m.n}, {1},           m.options.device};
        break;
    }
    out.push_back(std::move(field));
  }
  return out;
}

template <class T>
void* CudaBackend<T>::stream() const {
  return impl_->stream.get();
}

template <class T>
void CudaBackend<T>::upload_host_edits() {
  DeviceGuard guard(impl_->options.device);
  impl_->residency.push();
}

template <class T>
void CudaBackend<T>::mark_device_written(FieldId f) {
  impl_->residency.device_wrote(f);
}

template <class T>
void CudaBackend<T>::invalidate_host() {
  for (int k = 0; k < kFieldCount; ++k) impl_->residency.device_wrote(static_cast<FieldId>(k));
}

template <class T>
std::vector<Energy<double>> CudaBackend<T>::energy(Batch<T>& batch) {
  DeviceGuard guard(impl_->options.device);
  impl_->upload(batch);
  const std::vector<Energy<T>> e = device_energy(impl_->run());
  std::vector<Energy<double>> out(e.size());
  for (std::size_t i = 0; i < e.size(); ++i) out[i] = {e[i].kinetic, e[i].potential};
  return out;
}

template <class T>
std::int64_t CudaBackend<T>::count_nonfinite(Batch<T>& batch) {
  DeviceGuard guard(impl_->options.device);
  impl_->upload(batch);
  return device_count_nonfinite(impl_->run());
}

template <class T>
std::vector<std::int64_t> CudaBackend<T>::failed_instances(Batch<T>& batch) {
  DeviceGuard guard(impl_->options.device);
  impl_->upload(batch);
  return device_failed_instances(impl_->run());
}

template class CudaBackend<float>;
template class CudaBackend<double>;

}  // namespace gpu

template <class T>
std::unique_ptr<BackendImpl<T>> make_cuda_backend(const Model& model, Batch<T>& batch,
                                                  const SimulatorOptions& options) {
  return std::make_unique<gpu::CudaBackend<T>>(model, batch, options);
}

template std::unique_ptr<BackendImpl<float>> make_cuda_backend(const Model&, Batch<float>&,
                                                               const SimulatorOptions&);
template std::unique_ptr<BackendImpl<double>> make_cuda_backend(const Model&, Batch<double>&,
                                                                const SimulatorOptions&);

}  // namespace zwang
