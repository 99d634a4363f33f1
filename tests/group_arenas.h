// One instance's arenas for the lane-group tests (tests/kernels/test_group_pipeline.cc on the
// CPU, tests/cuda/test_cuda.cc on a GPU): contiguous (ld 1), at a random state with controls,
// activations and wrenches.
#pragma once

#include <algorithm>
#include <cstring>
#include <random>
#include <vector>

#include "host/model/one_instance.hpp"
#include "kernels/group_emu.h"
#include "kernels/instance.h"
#include "kernels/model_view.h"
#include "test_util.h"

namespace zwang::test {

// one instance's arenas in T, at a random state with controls, activations and wrenches
template <class T>
class Arenas {
 public:
  Arenas(const Model& model, const ModelView<T>& view, std::mt19937& rng) {
    OneInstance one(model);
    data_.assign(one.data().begin(), one.data().end());
    param_.assign(one.param().begin(), one.param().end());
    work_.assign(static_cast<std::size_t>(std::max(view.lay.work_rows, 1)), T(0));
    const RandomState s = random_state(model, rng, 0.7);
    std::uniform_real_distribution<double> unit(-1, 1);
    const Layout& l = view.lay;
    for (int i = 0; i < model.nq; ++i) data_[l.qpos + i] = static_cast<T>(s.qpos[i]);
    for (int i = 0; i < model.nv; ++i) data_[l.qvel + i] = static_cast<T>(s.qvel[i]);
    for (int i = 0; i < model.nu; ++i) data_[l.ctrl + i] = static_cast<T>(s.ctrl[i]);
    for (int i = 0; i < model.na; ++i) data_[l.act + i] = static_cast<T>(0.5 + 0.4 * unit(rng));
    for (int b = 1; b < model.nbody; b += 2) {
      for (int k = 0; k < 6; ++k) data_[l.xfrc_applied + 6 * b + k] = static_cast<T>(unit(rng));
    }
  }

  Instance<T> instance(const ModelView<T>& view) {
    return {{data_.data(), 1}, {param_.data(), 1}, {work_.data(), 1}, &view.lay, &time_, &status_};
  }
  int status() const { return status_; }
  T data(int row) const { return data_[row]; }
  const std::vector<T>& data() const { return data_; }
  const std::vector<T>& param() const { return param_; }
  const std::vector<T>& work() const { return work_; }
  double time() const { return time_; }
  template <int G>
  void watch(Emu<G>& g) {
    g.watch(data_.data(), data_.size() * sizeof(T));
    g.watch(param_.data(), param_.size() * sizeof(T));
    g.watch(work_.data(), work_.size() * sizeof(T));
  }
  // the same bits in the data and work arenas (NaN included), time and status
  friend bool same_bits(const Arenas& a, const Arenas& b) {
    const auto same = [](const std::vector<T>& x, const std::vector<T>& y) {
      return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size() * sizeof(T)) == 0;
    };
    return same(a.data_, b.data_) && same(a.work_, b.work_) && a.time_ == b.time_ &&
           a.status_ == b.status_;
  }

 private:
  std::vector<T> data_, param_, work_;
  double time_ = 0;
  int status_ = 0;
};

}  // namespace zwang::test
