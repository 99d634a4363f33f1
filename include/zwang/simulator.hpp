// \brief Steps a batch of instances of one model.  The CPU backend runs the kernels/ stages
// for each instance in an OpenMP loop over all cores.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "zwang/batch.hpp"
#include "zwang/model.hpp"

namespace zwang {

struct SimulatorOptions {
  int threads = 0;  // OpenMP threads; 0 uses every core
};

// \brief One instance's state, in the model's qpos/qvel/ctrl layout.  An empty ctrl means
// zero controls.
struct State {
  std::vector<double> qpos;
  std::vector<double> qvel;
  std::vector<double> ctrl;
};

// \brief An instance that stopped: which one, the StatusBit flags, and what they mean.
struct InstanceFailure {
  std::int64_t instance;
  int status;
  std::string message() const;
};

// \brief What a set of StatusBit flags means, stage by stage.
std::string describe_status(int status);

template <class T>
class Simulator {
 public:
  Simulator(const Model& model, std::int64_t n, SimulatorOptions options = {});
  ~Simulator();
  Simulator(const Simulator&) = delete;
  Simulator& operator=(const Simulator&) = delete;

  const Model& model() const { return model_; }
  Batch<T>& batch() { return batch_; }
  std::int64_t size() const { return batch_.size(); }
  int threads() const { return threads_; }

  // \brief H (qM), qfrc_bias, generalized forces and q̈ (qacc) of every instance at its state.
  void forward();
  // \brief n steps of the model's integrator for every instance whose status is clear.
  void step(int n = 1);

  // \brief Instances back to the model's default state (parameters are kept).
  void reset(std::span<const std::int64_t> instances);
  // \brief Instances to the given state; std::invalid_argument if a size is wrong.
  void reset(std::span<const std::int64_t> instances, const State& state);

  // \brief Every instance with a status bit set, in increasing order.
  std::vector<InstanceFailure> failures() const;

 private:
  struct Cpu;
  Model model_;
  Batch<T> batch_;
  int threads_;
  std::unique_ptr<Cpu> cpu_;
};

extern template class Simulator<float>;
extern template class Simulator<double>;

}  // namespace zwang
