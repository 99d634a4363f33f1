// The pieces of the zwang Python module: a loaded model with its warnings, and the binding of
// each class.
#pragma once

#include <nanobind/nanobind.h>

#include <optional>
#include <string>
#include <vector>

#include "zwang/model.hpp"

namespace zwang::python {

namespace nb = nanobind;

// a model and what its loader ignored
// zwang.load()'s arguments other than the path, as given
struct LoadArguments {
  bool floating_base = false, balance_inertia = false, fuse_static = false;
  std::optional<std::string> contact_margin, wrap_rules;
  std::string rules = "4.0";
};

struct PyModel {
  Model model;
  std::vector<std::string> warnings;
  // the file load() read, absolute, and how; empty for a model built in code
  std::string path;
  LoadArguments arguments;
};

void bind_module(nb::module_& m);  // exceptions, load(), constants
void bind_model(nb::module_& m);
void bind_simulator(nb::module_& m);

}  // namespace zwang::python
