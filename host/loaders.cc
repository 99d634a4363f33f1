#include "zwang/loaders.hpp"

#include <fmt/format.h>

namespace zwang {

void check_mjcf_options(const LoadOptions& options, std::string_view file) {
  if (options.rules != Rules::kMujoco4 && options.rules != Rules::kMujoco2) {
    throw ModelError(fmt::format("{}: rules {} are neither MuJoCo 4.0's (0) nor 2.2.2's (1)", file,
                                 static_cast<int>(options.rules)));
  }
  if (!options.floating_base && !options.balance_inertia && !options.fuse_static) return;
  const char* option = options.floating_base     ? "floating-base"
                       : options.balance_inertia ? "balance-inertia"
                                                 : "fuse-static (in MJCF: <compiler fusestatic>)";
  throw ModelError(fmt::format("{}: the {} option applies to URDF files only", file, option));
}

ContactMargin contact_margin_of(const LoadOptions& options) {
  return options.contact_margin.value_or(options.rules == Rules::kMujoco2 ? ContactMargin::kMax
                                                                          : ContactMargin::kSum);
}

WrapRules wrap_rules_of(const LoadOptions& options) {
  return options.wrap_rules.value_or(options.rules == Rules::kMujoco2 ? WrapRules::kMujoco2
                                                                      : WrapRules::kMujoco4);
}

LoadResult load_model(const std::filesystem::path& file, const LoadOptions& options) {
  if (file.extension() != ".urdf") return load_mjcf(file, options);
  LoadResult r = load_urdf(file, options);
  // explicit pairs of a file carry their own margin and gap: only the geom pairs mix them
  r.model.contact_margin = contact_margin_of(options);
  r.model.wrap_rules = wrap_rules_of(options);
  r.model.rules = options.rules;
  return r;
}

}  // namespace zwang
