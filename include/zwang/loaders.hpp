// Models from files: MJCF (MuJoCo's XML) and URDF.  Errors are ModelError with the file,
// the line and what is wrong; elements outside the supported subset give warnings.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "zwang/model.hpp"

namespace zwang {

struct LoadOptions {
  bool floating_base = false;  // URDF: put a free joint between the world and the root link
  // URDF: a moving link's inertia that is no rigid body's (a negative principal moment, or
  // A + B < C) becomes MuJoCo's balanced one (its compiler's balanceinertia): negative moments
  // 0, then, where A + B < C still, each moment the mean of the three; a warning names each
  // link changed.  Off: such inertias are used as given, with a warning (as Pinocchio does)
  bool balance_inertia = false;
  // URDF: each link on a fixed joint merged into the link above it (the root link into the
  // world unless floating_base), as MuJoCo's importer does by default (its fusestatic): one body
  // fewer per such link; the merged link's mass joins the body it goes into, and its name is
  // no body's but a merged body's (Model::fused_*, posed by zwang::derive: Derived::kFusedXpos
  // ...).  Off: every link is a body
  bool fuse_static = false;
  // MuJoCo 4.0's meaning of the file, or 2.2.2's (Rules): Model::rules, and each rule below
  // that is not set apart
  Rules rules = Rules::kMujoco4;
  // how two geoms' margins and gaps combine: the sum (MuJoCo 3.5 and later, so 4.0's rules), or
  // the larger (MuJoCo 2.2.2 to 3.4)
  std::optional<ContactMargin> contact_margin = std::nullopt;
  // how a spatial tendon passes a sphere or cylinder with a side site: MuJoCo 4.0's rule, or
  // MuJoCo 2.2.2's (Model::wrap_rules, kernels/tendon_wrap.h)
  std::optional<WrapRules> wrap_rules = std::nullopt;
};

// each rule as the options choose it: set apart, or by `rules`
ContactMargin contact_margin_of(const LoadOptions& options);
WrapRules wrap_rules_of(const LoadOptions& options);

struct LoadResult {
  Model model;
  // "file:line: what", or for an element ignored many times "file: <element> ignored (N
  // elements, the first at line L)"
  std::vector<std::string> warnings;
};

// An MJCF file; <include> files are found relative to it.  Of the options, rules,
// contact_margin and wrap_rules apply; the URDF-only ones are an error.
LoadResult load_mjcf(const std::filesystem::path& file, const LoadOptions& options = {});
// MJCF text; `name` stands for the file in messages, `dir` resolves <include>.
LoadResult load_mjcf_string(std::string_view xml, std::string_view name = "<string>",
                            const std::filesystem::path& dir = {}, const LoadOptions& options = {});
// throws ModelError naming `file` when options has one that applies to URDF files only
void check_mjcf_options(const LoadOptions& options, std::string_view file);
// A URDF file, parsed by urdfdom.
LoadResult load_urdf(const std::filesystem::path& file, const LoadOptions& options = {});
LoadResult load_urdf_string(std::string_view xml, const LoadOptions& options = {},
                            std::string_view name = "<string>");
// By extension: .urdf is URDF, anything else MJCF; options.rules, contact_margin and wrap_rules
// apply to both (load_urdf alone leaves the Model's defaults, MuJoCo 4.0's).
LoadResult load_model(const std::filesystem::path& file, const LoadOptions& options = {});

}  // namespace zwang
