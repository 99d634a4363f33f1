// The `zwang` program run from the tests: its exit status and what it printed, and the HDF5
// trajectory it wrote read back through the HDF5 C API.
#pragma once

#include <hdf5.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

namespace zwang::test {

struct ProgramResult {
  int exit_code = -1;  // -1 when a signal ended it
  int signal = 0;
  std::string output;  // stdout and stderr together
};

// `sh -c COMMAND`; COMMAND should `exec` the program so that its status is the program's own
inline ProgramResult run_shell(const std::string& command) {
  ProgramResult r;
  FILE* pipe = popen(("exec 2>&1; " + command).c_str(), "r");
  if (pipe == nullptr) return r;
  std::array<char, 4096> buffer;
  while (const std::size_t got = std::fread(buffer.data(), 1, buffer.size(), pipe))
    r.output.append(buffer.data(), got);
  const int status = pclose(pipe);
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  return r;
}

inline ProgramResult run_zwang(const std::string& arguments) {
  return run_shell(std::string("exec ") + ZWANG_CLI + " " + arguments);
}

// a fresh directory under the system's temporary directory, removed with its contents
class TempDir {
 public:
  explicit TempDir(const std::string& name)
      : path_(std::filesystem::temp_directory_path() /
              ("zwang_test_" + name + "_" + std::to_string(::getpid()))) {
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string operator/(const std::string& file) const { return (path_ / file).string(); }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

inline std::string string_attribute(hid_t object, const char* name) {
  if (H5Aexists(object, name) <= 0) return "(missing)";
  const hid_t attr = H5Aopen(object, name, H5P_DEFAULT);
  const hid_t type = H5Aget_type(attr);
  std::string value;
  if (H5Tis_variable_str(type) > 0) {
    char* text = nullptr;
    H5Aread(attr, type, &text);
    if (text != nullptr) value = text;
    H5free_memory(text);
  } else {
    std::vector<char> text(H5Tget_size(type) + 1, '\0');
    H5Aread(attr, type, text.data());
    value = text.data();
  }
  H5Tclose(type);
  H5Aclose(attr);
  return value;
}

inline long long integer_attribute(hid_t object, const char* name) {
  if (H5Aexists(object, name) <= 0) return -1;
  long long value = -1;
  const hid_t attr = H5Aopen(object, name, H5P_DEFAULT);
  H5Aread(attr, H5T_NATIVE_LLONG, &value);
  H5Aclose(attr);
  return value;
}

// the whole dataset as doubles, its dimensions in `dims`; empty when it does not exist
inline std::vector<double> dataset(hid_t file, const char* name, std::vector<hsize_t>* dims) {
  dims->clear();
  if (H5Lexists(file, name, H5P_DEFAULT) <= 0) return {};
  const hid_t d = H5Dopen2(file, name, H5P_DEFAULT);
  const hid_t space = H5Dget_space(d);
  dims->resize(H5Sget_simple_extent_ndims(space));
  H5Sget_simple_extent_dims(space, dims->data(), nullptr);
  hsize_t total = 1;
  for (hsize_t x : *dims) total *= x;
  std::vector<double> v(total);
  if (total > 0) H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data());
  H5Sclose(space);
  H5Dclose(d);
  return v;
}

}  // namespace zwang::test
