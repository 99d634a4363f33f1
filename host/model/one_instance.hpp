// One instance of a model in double on the host, in arrays of its own laid out as the kernels
// lay out a batch (kernels/layout.h, one instance per row), at the model's default state and
// parameters: for what the model itself needs evaluated by the kernels' own stages (its hard rows
// at the default state), and for a closer look at one instance of a batch, its rows copied in.
#pragma once

#include <span>
#include <utility>
#include <vector>

#include "host/model/arrays.hpp"
#include "kernels/instance.h"
#include "kernels/model_view.h"
#include "zwang/model.hpp"

namespace zwang {

// each parameter field's first row in `layout` and the model's values for its rows
std::vector<std::pair<int, std::span<const double>>> parameter_defaults(const Model& model,
                                                                        const Layout& layout);

class OneInstance {
 public:
  // qpos0, the mocap bodies at their poses, every other state and output 0, time 0, the model's
  // parameters
  explicit OneInstance(const Model& model);
  OneInstance(const OneInstance&) = delete;
  OneInstance& operator=(const OneInstance&) = delete;

  const ModelView<double>& view() const { return view_; }
  const Instance<double>& instance() const { return d_; }
  // the rows of the data and parameter arenas, to read or fill
  std::span<double> data() { return data_; }
  std::span<double> param() { return param_; }
  double& time() { return time_; }
  // the kernels' forward() at the instance's state, with its status cleared first; false (and a
  // status bit) where the instance cannot go on
  bool forward();

 private:
  ModelArrays<double> arrays_;
  ModelView<double> view_;
  std::vector<double> data_, param_, work_;
  double time_ = 0;
  int status_ = 0;
  Instance<double> d_;
};

}  // namespace zwang
