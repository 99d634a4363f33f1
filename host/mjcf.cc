#include "zwang/loaders.hpp"

namespace zwang {

LoadResult load_mjcf(const std::filesystem::path& file) {
  throw ModelError(file.string() + ": MJCF loading is not built yet");
}

LoadResult load_mjcf_string(std::string_view, std::string_view name, const std::filesystem::path&) {
  throw ModelError(std::string(name) + ": MJCF loading is not built yet");
}

}  // namespace zwang
