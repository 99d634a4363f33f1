// Keyframes and the mocap bodies' default poses: the states a model names for starting and
// resetting instances.
#pragma once

#include "zwang/model.hpp"

namespace zwang {

// ModelError "model: ..." when the key_ arrays, sized by Model::validate(), hold a value that
// is not finite
void validate_keyframes(const Model& model);

}  // namespace zwang
