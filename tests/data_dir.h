// Where the test models, robots and state hashes are: tests/data.
#pragma once

#include <cstdlib>
#include <filesystem>

namespace zwang::test {

// the tests' source folder, tests/ (tests/data_dir.cc)
std::filesystem::path tests_dir();

// ZWANG_TEST_DIR, which ctest sets, or tests/data for a test binary run by hand
inline std::filesystem::path data_dir() {
  const char* dir = std::getenv("ZWANG_TEST_DIR");
  return dir != nullptr ? std::filesystem::path(dir) : tests_dir() / "data";
}

}  // namespace zwang::test
