#include "host/load/model_file.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <fstream>
#include <system_error>

#include "zwang/model.hpp"

namespace zwang {

std::string read_model_file(const std::filesystem::path& path, const std::string& name,
                            std::uintmax_t max_bytes) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (!fs::exists(status)) {
    throw ModelError(fmt::format("{}: cannot open the file ({})", name,
                                 ec ? ec.message() : std::generic_category().message(ENOENT)));
  }
  if (fs::is_directory(status)) {
    throw ModelError(fmt::format("{}: cannot open the file (it is a directory)", name));
  }
  // a device or a pipe has no size to check and may never end (/dev/zero)
  if (!fs::is_regular_file(status)) {
    throw ModelError(fmt::format("{}: cannot open the file (not a regular file)", name));
  }
  const std::uintmax_t size = fs::file_size(path, ec);
  if (ec) throw ModelError(fmt::format("{}: cannot open the file ({})", name, ec.message()));
  if (size > max_bytes) {
    throw ModelError(fmt::format("{}: the file has {} bytes, more than the {} MiB a model may have",
                                 name, size, max_bytes >> 20));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int error = errno;
    throw ModelError(
        fmt::format("{}: cannot open the file ({})", name, std::generic_category().message(error)));
  }
  std::string text(static_cast<std::size_t>(size), '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (in.bad()) throw ModelError(fmt::format("{}: cannot read the file", name));
  text.resize(static_cast<std::size_t>(in.gcount()));
  return text;
}

}  // namespace zwang
