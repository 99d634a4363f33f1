#include "zwang/loaders.hpp"

#include <fmt/format.h>

namespace zwang {

void check_mjcf_options(const LoadOptions& options, std::string_view file) {
  if (!options.floating_base && !options.balance_inertia && !options.fuse_static) return;
  const char* option = options.floating_base     ? "floating-base"
                       : options.balance_inertia ? "balance-inertia"
                                                 : "fuse-static (in MJCF: <compiler fusestatic>)";
  throw ModelError(fmt::format("{}: the {} option applies to URDF files only", file, option));
}

LoadResult load_model(const std::filesystem::path& file, const LoadOptions& options) {
  if (file.extension() != ".urdf") return load_mjcf(file, options);
  LoadResult r = load_urdf(file, options);
  // explicit pairs of a file carry their own margin and gap: only the geom pairs mix them
  r.model.contact_margin = options.contact_margin;
  r.model.wrap_rules = options.wrap_rules;
  return r;
}

}  // namespace zwang
