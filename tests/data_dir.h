// Where the test models, robots and state hashes are: tests/data.
#pragma once

#include <cstdlib>
#include <filesystem>

namespace zwang::test {

// ZWANG_TEST_DIR, which ctest sets, or the folder next to this header for a test binary run by
// hand
inline std::filesystem::path data_dir() {
  const char* dir = std::getenv("ZWANG_TEST_DIR");
  return dir != nullptr ? std::filesystem::path(dir)
                        : std::filesystem::path(__FILE__).parent_path() / "data";
}

}  // namespace zwang::test
