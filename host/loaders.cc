#include "zwang/loaders.hpp"

#include <fmt/format.h>

namespace zwang {

LoadResult load_model(const std::filesystem::path& file, const LoadOptions& options) {
  if (file.extension() != ".urdf" &&
      (options.floating_base || options.balance_inertia || options.fuse_static)) {
    const char* option = options.floating_base     ? "floating-base"
                         : options.balance_inertia ? "balance-inertia"
                                                   : "fuse-static (in MJCF: <compiler fusestatic>)";
    throw ModelError(
        fmt::format("{}: the {} option applies to URDF files only", file.string(), option));
  }
  LoadResult r = file.extension() == ".urdf" ? load_urdf(file, options) : load_mjcf(file);
  // explicit pairs of a file carry their own margin and gap: only the geom pairs mix them
  r.model.contact_margin = options.contact_margin;
  return r;
}

}  // namespace zwang
