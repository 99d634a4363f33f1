#include "zwang/loaders.hpp"

namespace zwang {

LoadResult load_urdf(const std::filesystem::path& file, const LoadOptions&) {
  throw ModelError(file.string() + ": URDF loading is not built yet");
}

LoadResult load_urdf_string(std::string_view, const LoadOptions&, std::string_view name) {
  throw ModelError(std::string(name) + ": URDF loading is not built yet");
}

}  // namespace zwang
