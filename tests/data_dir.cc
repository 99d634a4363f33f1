// The tests' source folder as CMake knows it, in this unit alone: a path written into every
// test unit, or taken from __FILE__ (which ccache makes relative to the build folder, so that
// clones at different paths share objects), would cost those units their cache entries.
#include "data_dir.h"

namespace zwang::test {

std::filesystem::path tests_dir() {
  return ZWANG_TESTS_DIR;
}

}  // namespace zwang::test
