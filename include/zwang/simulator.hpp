// Steps a batch of instances of one model on a backend: the CPU backend runs the
// kernels/ stages for each instance in an OpenMP loop over all cores, the CUDA backend one
// GPU thread per instance.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "zwang/batch.hpp"
#include "zwang/model.hpp"

namespace zwang {

enum class Backend {
  kCpu,   // OpenMP over all cores
  kCuda,  // one GPU thread per instance; an error if no CUDA device can be used
  kAuto,  // CUDA when a device exists, else CPU
};

// How the CUDA backend factors H = L Lᵀ and solves for q̈.
enum class CholeskyPath {
  kAuto,      // kInKernel below SimulatorOptions::cusolver_min_nv, kCusolver from there up
  kInKernel,  // each GPU thread factors its own instance's H (kernels/factor_solve.h)
  kCusolver,  // H copied into a dense strided batch, cuSOLVER's batched potrf/potrs
};

// How the CUDA backend splits the pipeline into kernels.
enum class CudaKernels {
  kFused,   // one kernel for forward() or for all steps of step(n)
  kStaged,  // one kernel per stage (kinematics, Jacobians, ..., solve, integrate)
};

// Lanes per instance in the CUDA backend's fused in-kernel path: one thread per instance, or a
// lane group of 16 or 32 lanes of a warp (kernels/group.h), the instance's state and parameters
// staged in shared memory for the call.  Groups keep an RL-sized batch (a few thousand
// instances) from leaving the GPU idle; one thread per instance is the path for the largest
// batches.  A group factors H in the kernel: it implies CholeskyPath::kInKernel and
// CudaKernels::kFused.
enum class CudaGroup {
  kAuto = 0,  // one thread per instance until the measured table of bench/README.md replaces it
  kOne = 1,   // one thread per instance
  k16 = 16,   // 16 lanes per instance, two instances per warp
  k32 = 32,   // a warp per instance
};

// The CPU backend's arithmetic: one instance at a time, or a pack of instances in the
// lanes of one SIMD register.  Both give the same bits for qpos, qvel, time, status and every
// output of an instance that did not stop; an instance that stops (a status bit) keeps the
// scalar backend's state, time and status, but its outputs are unspecified with packs.
enum class CpuSimd {
  kAuto,    // the widest the CPU supports (AVX-512, AVX2), else scalar
  kScalar,  // one instance at a time: the reference
  kAvx2,    // 4 float64 / 8 float32 instances per register; an error if the CPU lacks AVX2 or FMA
  kAvx512,  // 8 float64 / 16 float32 instances per register; an error if the CPU lacks AVX-512
};

struct SimulatorOptions {
  Backend backend = Backend::kCpu;
  int threads = 0;                              // CPU: OpenMP threads; 0 uses every core
  CpuSimd cpu_simd = CpuSimd::kAuto;            // CPU: instances per register (kAuto: the widest)
  int device = 0;                               // CUDA: device ordinal
  CholeskyPath cholesky = CholeskyPath::kAuto;  // CUDA: the factorisation of H
  // CUDA, kAuto: the smallest nv that goes to cuSOLVER; 32 is the crossover measured on an
  // H100 in float32 and float64 (bench/README.md, "Measured").
  int cusolver_min_nv = 32;
  CudaKernels kernels = CudaKernels::kFused;  // CUDA: fused or one kernel per stage
  bool cuda_graphs = true;  // CUDA: step(n) replays a CUDA Graph captured once per n
  CudaGroup cuda_group = CudaGroup::kAuto;  // CUDA: lanes per instance
  // The output fields (qacc … sensordata, kernels/layout.h) that forward() and step() keep
  // current in the batch: all of them when unset, as MuJoCo's mjData; with a list, only those,
  // and the batch's accessors of the others throw OutputNotKept (a std::logic_error).  The state,
  // time and status are always current.  The CPU backends then copy fewer rows back per call, which
  // is most of what a step(1) call costs beyond its step with many instances (docs/backends.md,
  // "Outputs"); so do the CUDA backend's lane-group kernels (cuda_group), while its one-thread
  // kernels write every output of the device copy either way.
  std::optional<std::vector<FieldId>> outputs = std::nullopt;
};

// CUDA devices this process can use, and why there are none when there are none
// (no device, no driver, or a build without CUDA).
struct CudaStatus {
  int devices = 0;
  std::string reason;
};
CudaStatus cuda_status();

// The widest CpuSimd this CPU runs (kScalar when neither AVX2 nor AVX-512).
CpuSimd cpu_simd_supported();

// One instance's state, in the model's qpos/qvel/ctrl/act layout.  An empty ctrl means
// zero controls, an empty act zero activations.
struct State {
  std::vector<double> qpos;
  std::vector<double> qvel;
  std::vector<double> ctrl;
  std::vector<double> act = {};  // (na), empty: zeros
};

// An instance that stopped: which one, the StatusBit flags, and what they mean.
struct InstanceFailure {
  std::int64_t instance;
  int status;
  // what names the cause beyond the flags: with kStatusHardConflict, the constraints that
  // contradict one another at the instance's state (empty when none is known)
  std::string detail = {};
  std::string message() const;
};

// What a set of StatusBit flags means, stage by stage.
std::string describe_status(int status);

// One field of the CUDA backend's device copy, in place: element j of instance i is at
// data + i * strides[0] + j * strides[1] (strides in elements, the interleaved layout of
// kernels/layout.h: 1 along instances, padded_size along elements).  shape is (N, width), or
// (N,) with strides (1) for time and status.  The pointer stays valid for the simulator's
// lifetime.
struct DeviceField {
  enum class DType { kFloat32, kFloat64, kInt32 };
  FieldId id;
  const char* name;
  void* data;
  DType dtype;
  std::vector<std::int64_t> shape;
  std::vector<std::int64_t> strides;
  int device;  // CUDA device ordinal
};

template <class T>
class BackendImpl;

template <class T>
class Simulator {
 public:
  Simulator(const Model& model, std::int64_t n, SimulatorOptions options = {});
  ~Simulator();
  Simulator(const Simulator&) = delete;
  Simulator& operator=(const Simulator&) = delete;

  const Model& model() const { return model_; }
  // The host batch.  With the CUDA backend it is a mirror of the device copy, brought
  // up to date field by field as it is read (docs/backends.md, "Device-resident state").
  Batch<T>& batch() { return batch_; }
  const Batch<T>& batch() const { return batch_; }
  std::int64_t size() const { return batch_.size(); }
  // The backend in words, e.g. "cpu (2 threads)".
  std::string backend() const;

  // H (qM), qfrc_bias, generalized forces, the constraint rows and forces, and q̈ (qacc,
  // constrained; qacc_smooth without constraints) of every instance at its state and time.
  void forward();
  // n steps of the model's integrator for every instance whose status is clear (or holds
  // only the warning kStatusNotConverged).
  void step(int n = 1);

  // Instances back to the model's default state (parameters are kept).
  void reset(std::span<const std::int64_t> instances);
  // Instances to the given state; std::invalid_argument if a size is wrong.
  void reset(std::span<const std::int64_t> instances, const State& state);
  // Instances to keyframe `key` of the model (MuJoCo's mj_resetDataKeyframe): its time,
  // qpos, qvel, ctrl, act and mocap poses, every other state and output 0, status cleared
  // (parameters are kept); std::out_of_range for a key not in [0, nkey).
  void reset_keyframe(std::span<const std::int64_t> instances, int key);
  // The same for the keyframe of that name; std::invalid_argument if there is none.
  void reset_keyframe(std::span<const std::int64_t> instances, std::string_view name);

  // Every instance with a status bit set, in increasing order.
  std::vector<InstanceFailure> failures() const;

  // Device-resident state (CUDA backend; docs/backends.md, "Device-resident state").  forward(),
  // step(), reset() and upload_host_edits() enqueue their work on cuda_stream() and return
  // without waiting; a host read of a batch field waits and downloads that field.  Work of
  // other code on the device fields must be ordered with cuda_stream(): enqueue it there, or
  // synchronize() before it and finish it before the next call.  After writing device fields
  // directly, mark_device_written() (or invalidate_host()) so that the host mirror downloads
  // them when read.  With the CPU backend there is no device copy: device_fields() is empty,
  // cuda_stream() is null, and the rest do nothing.

  // Every data and parameter field, time and status of the device copy, in FieldId
  // order.  The rows of an output the batch does not keep (SimulatorOptions::outputs) are not
  // current there either: the lane-group kernels do not write them.
  std::vector<DeviceField> device_fields();
  // One of them; std::logic_error without a device copy, OutputNotKept for an output the batch
  // does not keep, as its host accessor.
  DeviceField device_field(FieldId f);
  // The cudaStream_t the backend enqueues on, as a void*; null for the CPU.
  void* cuda_stream() const;
  // Waits for the work enqueued on cuda_stream().
  void synchronize();
  // Enqueues the upload of the fields changed on the host since the last call, so that
  // the device copy is current for other code reading it.
  void upload_host_edits();
  // The device copy of f was written by other code: the host mirror of f is stale,
  // and host edits of f not yet uploaded are dropped.
  void mark_device_written(FieldId f);
  // mark_device_written() for every field.
  void invalidate_host();

 private:
  Model model_;
  Batch<T> batch_;
  std::unique_ptr<BackendImpl<T>> impl_;
};

extern template class Simulator<float>;
extern template class Simulator<double>;

}  // namespace zwang
