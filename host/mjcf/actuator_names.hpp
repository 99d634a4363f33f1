// MJCF's names of <general>'s dyntype, gaintype and biastype, which the reader accepts and the
// writer writes, indexed as MuJoCo numbers them (mjtDyn, mjtGain, mjtBias).  zwang refuses
// "user" and has no enumerator for it.
#pragma once

#include <array>
#include <string_view>

#include "kernels/types.h"

namespace zwang::mjcf {

inline constexpr std::array<std::string_view, 6> kDynTypes = {
    "none", "integrator", "filter", "muscle", "user", "filterexact"};
inline constexpr std::array<std::string_view, 4> kGainTypes = {"fixed", "affine", "muscle", "user"};
inline constexpr std::array<std::string_view, 4> kBiasTypes = {"none", "affine", "muscle", "user"};

static_assert(kDynTypes[ActuatorDyn::kFilterExact] == "filterexact");
static_assert(kDynTypes[ActuatorDyn::kMuscle] == "muscle");
static_assert(kGainTypes[ActuatorGain::kMuscle] == "muscle");
static_assert(kBiasTypes[ActuatorBias::kMuscle] == "muscle");

}  // namespace zwang::mjcf
