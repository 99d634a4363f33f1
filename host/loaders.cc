#include "zwang/loaders.hpp"

#include <fmt/format.h>

namespace zwang {

LoadResult load_model(const std::filesystem::path& file, const LoadOptions& options) {
  if (file.extension() == ".urdf") return load_urdf(file, options);
  if (options.floating_base) {
    throw ModelError(
        fmt::format("{}: the floating-base option applies to URDF files only", file.string()));
  }
  return load_mjcf(file);
}

}  // namespace zwang
