#include "cuda/cuda_backend.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>
#include <stdexcept>

#include "cuda/check.hpp"
#include "cuda/cusolver_chol.hpp"
#include "cuda/device_memory.hpp"
#include "cuda/launch.hpp"
#include "cuda/mirror.hpp"
#include "cuda/plan.hpp"
#include "cuda/tools.hpp"
#include "kernels/pipeline.h"
#include "model_arrays.hpp"

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
// device memory for one chunk of the cuSOLVER path
constexpr std::size_t kCusolverBudget = std::size_t{256} << 20;

}  // namespace

template <class T>
struct CudaBackend<T>::Impl {
  Impl(const Model& m, const Batch<T>& batch, const SimulatorOptions& o)
      : model(m),
        options(o),
        n(batch.size()),
        ld(batch.padded_size()),
        lay(batch.layout()),
        path(choose_cholesky(o.cholesky, m.nv, o.cusolver_min_nv)),
        arrays(m),
        model_ints(arrays.ints().size()),
        model_reals(arrays.reals().size()),
        data(lay.data_rows, ld),
        param(lay.param_rows, ld),
        time(1, ld),
        status(1, ld),
        work(static_cast<std::size_t>(lay.work_rows) * ld),
        phase(static_cast<std::size_t>(ld)),
        config(launch_config<T>()) {
    cudaDeviceProp p{};
    ZW_CUDA_CHECK(cudaGetDeviceProperties(&p, o.device));
    device_name = fmt::format("{}, sm_{}{}", p.name, p.major, p.minor);
    ZW_CUDA_CHECK(cudaMemcpyAsync(model_ints.get(), arrays.ints().data(), model_ints.bytes(),
                                  cudaMemcpyHostToDevice, stream.get()));
    ZW_CUDA_CHECK(cudaMemcpyAsync(model_reals.get(), arrays.reals().data(), model_reals.bytes(),
                                  cudaMemcpyHostToDevice, stream.get()));
    ZW_CUDA_CHECK(cudaMemsetAsync(work.get(), 0, work.bytes(), stream.get()));
    ZW_CUDA_CHECK(cudaMemsetAsync(phase.get(), 0, phase.bytes(), stream.get()));
    view = arrays.view(model_ints.get(), model_reals.get());
    if (path == CholeskyPath::kCusolver) {
      cusolver = std::make_unique<CusolverCholesky<T>>(m.nv, ld, stream.get(), kCusolverBudget);
    }
    stream.synchronize();
  }

  DeviceRun<T> run() const {
    const DeviceArenas<T> b{data.device(),   param.device(), work.get(), time.device(),
                            status.device(), phase.get(),    ld};
    return {view, b, n, stream.get(), &config};
  }

  void check_batch(const Batch<T>& batch) const {
    if (batch.size() != n || batch.padded_size() != ld ||
        batch.layout().data_rows != lay.data_rows || batch.layout().param_rows != lay.param_rows) {
      throw std::invalid_argument(
          fmt::format("the CUDA backend was made for {} instances of a model with {} data rows; "
                      "got {} instances with {}",
                      n, lay.data_rows, batch.size(), batch.layout().data_rows));
    }
  }

  // what the user may have changed since the last call.  The copies are asynchronous and read
  // the pinned mirrors; each arena waits for its previous upload's copies before the row diff
  // rewrites its mirror (cuda/mirror.hpp), so that upload() twice without a synchronisation is
  // safe and never waits for the kernels enqueued in between.
  void upload(Batch<T>& batch) {
    check_batch(batch);
    transfers = {};
    const cudaStream_t s = stream.get();
    transfers.data_up = data.upload_changed(batch.data_arena(), s);
    transfers.param_up = param.upload_changed(batch.param_arena(), s);
    transfers.time_status_up =
        time.upload_changed(batch.time_data(), s) + status.upload_changed(batch.status_data(), s);
  }

  // what a call may have written: outputs and status, and for step() qpos, qvel and time.
  // Every data row from qacc on is an output (kernels/layout.h lists the inputs first).
  void download(Batch<T>& batch, bool state) {
    check_batch(batch);  // finish_download() copies rows x ld values into the batch's arenas
    const cudaStream_t s = stream.get();
    if (state) {
      transfers.down += data.download({lay.qpos, lay.qpos + model.nq}, s);
      transfers.down += data.download({lay.qvel, lay.qvel + model.nv}, s);
      transfers.down += time.download({0, 1}, s);
    }
    transfers.down += data.download({lay.qacc, lay.data_rows}, s);
    transfers.down += status.download({0, 1}, s);
    stream.synchronize();
    data.finish_download(batch.data_arena());
    time.finish_download(batch.time_data());
    status.finish_download(batch.status_data());
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

  Model model;
  SimulatorOptions options;
  std::int64_t n, ld;
  Layout lay;
  CholeskyPath path;
  std::string device_name;
  Stream stream;
  ModelArrays<T> arrays;
  DeviceBuffer<int> model_ints;
  DeviceBuffer<T> model_reals;
  ModelView<T> view{};
  MirroredArena<T> data, param;
  MirroredArena<double> time;
  MirroredArena<int> status;
  DeviceBuffer<T> work;
  DeviceBuffer<int> phase;
  LaunchConfig config;
  std::unique_ptr<CusolverCholesky<T>> cusolver;
  std::map<int, CachedGraph> graphs;
  Transfers transfers;
};

template <class T>
CudaBackend<T>::CudaBackend(const Model& model, const Batch<T>& batch,
                            const SimulatorOptions& options) {
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
  impl_->enqueue_forward();
  impl_->download(batch, false);
}

template <class T>
void CudaBackend<T>::step(Batch<T>& batch, int steps) {
  if (steps <= 0) return;
  DeviceGuard guard(impl_->options.device);
  impl_->upload(batch);
  impl_->run_steps(steps);
  impl_->download(batch, true);
}

template <class T>
std::string CudaBackend<T>::describe() const {
  return fmt::format("cuda ({}, {} Cholesky, {} kernels{})", impl_->device_name,
                     impl_->path == CholeskyPath::kCusolver ? "cuSOLVER" : "in-kernel",
                     impl_->options.kernels == CudaKernels::kFused ? "fused" : "staged",
                     impl_->options.cuda_graphs ? ", graphs" : "");
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
  return impl_->transfers;
}

template <class T>
void CudaBackend<T>::upload(Batch<T>& batch) {
  DeviceGuard guard(impl_->options.device);
  impl_->upload(batch);
}

template <class T>
void CudaBackend<T>::run_steps(int steps) {
  DeviceGuard guard(impl_->options.device);
  impl_->run_steps(steps);
}

template <class T>
void CudaBackend<T>::download(Batch<T>& batch) {
  DeviceGuard guard(impl_->options.device);
  impl_->download(batch, true);
}

template <class T>
void CudaBackend<T>::synchronize() {
  DeviceGuard guard(impl_->options.device);
  impl_->stream.synchronize();
}

template <class T>
void CudaBackend<T>::reset(Batch<T>& batch, std::span<const std::int64_t> instances) {
  DeviceGuard guard(impl_->options.device);
  impl_->check_batch(batch);
  for (std::int64_t i : instances) {
    if (i < 0 || i >= impl_->n) {
      throw std::out_of_range(fmt::format("instance {} is not in [0, {})", i, impl_->n));
    }
  }
  for (std::int64_t i : instances) batch.reset_state(i, impl_->model);
  for (std::int64_t i : instances) {
    impl_->data.mirror_instance(batch.data_arena(), i);
    impl_->time.mirror_instance(batch.time_data(), i);
    impl_->status.mirror_instance(batch.status_data(), i);
  }
  device_reset(impl_->run(), std::vector<std::int64_t>(instances.begin(), instances.end()));
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
std::unique_ptr<BackendImpl<T>> make_cuda_backend(const Model& model, const Batch<T>& batch,
                                                  const SimulatorOptions& options) {
  return std::make_unique<gpu::CudaBackend<T>>(model, batch, options);
}

template std::unique_ptr<BackendImpl<float>> make_cuda_backend(const Model&, const Batch<float>&,
                                                               const SimulatorOptions&);
template std::unique_ptr<BackendImpl<double>> make_cuda_backend(const Model&, const Batch<double>&,
                                                                const SimulatorOptions&);

}  // namespace zwang
