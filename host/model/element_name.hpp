// The name a builder gives a new element of one kind (actuator, tendon, sensor) and the label
// its errors start with.
#pragma once

#include <fmt/format.h>

#include <string>
#include <string_view>
#include <vector>

#include "zwang/spec.hpp"

namespace zwang {

// an empty `name` becomes the kind and the element's index ("actuator3"); returns
// "<kind> '<name>'", ModelError when an element of `existing` has that name already
template <class Spec>
std::string claim_name(std::string& name, const std::vector<Spec>& existing, std::string_view kind,
                       std::string_view article) {
  if (name.empty()) name = fmt::format("{}{}", kind, existing.size());
  const std::string who = fmt::format("{} '{}'", kind, name);
  for (const Spec& s : existing) {
    if (s.name == name) {
      throw ModelError(fmt::format("{}: {} {} of that name exists already", who, article, kind));
    }
  }
  return who;
}

}  // namespace zwang
