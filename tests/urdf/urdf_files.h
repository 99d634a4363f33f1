// The robots of tests/data/urdf, shared by test_urdf.cc and its MuJoCo cross-check.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "data_dir.h"

namespace zwang::test {

inline std::filesystem::path urdf_dir() {
  return data_dir() / "urdf";
}

inline std::filesystem::path urdf_file(const std::string& robot) {
  return urdf_dir() / (robot + ".urdf");
}

inline std::string read_text(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + file.string());
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// serial_arm: welded root, revolute/continuous/prismatic/fixed joints, rpy origins, rotated
//   inertial frames with diagonal tensors, a massless welded tool frame
// mobile_base: branches, a welded caster, a lift; loaded with and without a floating base
// tree: root link "world", branches, full inertia tensors, links listed out of tree order
inline const char* const kRobots[] = {"serial_arm", "mobile_base", "tree"};

}  // namespace zwang::test
