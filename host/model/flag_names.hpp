// MuJoCo's names of the bits of Model::disableflags: the <flag> attributes that the MJCF reader
// honours and the writer writes, and the names the command-line tool prints and accepts.
#pragma once

#include <array>
#include <string_view>

#include "kernels/types.h"

namespace zwang {

struct DisableFlagName {
  int bit;  // a DisableBit
  std::string_view name;
};

// in bit order
inline constexpr std::array<DisableFlagName, 16> kDisableFlagNames = {{
    // MuJoCo 2.2.2's
    {kDisableConstraint, "constraint"},
    {kDisableEquality, "equality"},
    {kDisableFrictionloss, "frictionloss"},
    {kDisableLimit, "limit"},
    {kDisableContact, "contact"},
    {kDisablePassive, "passive"},
    {kDisableGravity, "gravity"},
    {kDisableClampctrl, "clampctrl"},
    {kDisableWarmstart, "warmstart"},
    {kDisableFilterparent, "filterparent"},
    {kDisableActuation, "actuation"},
    {kDisableRefsafe, "refsafe"},
    {kDisableSensor, "sensor"},
    // MuJoCo 3 and 4's
    {kDisableSpring, "spring"},
    {kDisableDamper, "damper"},
    {kDisableEulerdamp, "eulerdamp"},
}};

static_assert([] {
  for (int b = 0; b < static_cast<int>(kDisableFlagNames.size()); ++b) {
    if (kDisableFlagNames[b].bit != 1 << b) return false;
  }
  return true;
}());

}  // namespace zwang
