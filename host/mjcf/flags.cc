// <option><flag>: the names of MuJoCo 2.2.2 and of MuJoCo 3 and 4 (which split passive into
// spring and damper and added others), each honoured, accepted where it changes nothing zwang
// computes, or refused or warned about with what would differ.
#include <fmt/format.h>

#include <string>
#include <string_view>
#include <vector>

#include "host/mjcf/compiler.hpp"
#include "host/model/flag_names.hpp"

namespace zwang::mjcf {
namespace {

enum class Effect {
  kBit,       // a DisableBit zwang honours
  kNone,      // no effect on what zwang computes, either value
  kWarnOn,    // a feature zwang lacks: a warning when the file enables it
  kRefuseOn,  // an error when the file enables it
};

struct Flag {
  std::string_view name;
  Effect effect;
  int bit;                   // kBit: the DisableBit
  std::string_view message;  // kWarnOn, kRefuseOn: what differs
};

constexpr Flag none(std::string_view name) {
  return {name, Effect::kNone, 0, {}};
}
constexpr Flag warn_on(std::string_view name, std::string_view message) {
  return {name, Effect::kWarnOn, 0, message};
}
constexpr Flag refuse_on(std::string_view name, std::string_view message) {
  return {name, Effect::kRefuseOn, 0, message};
}

// the flags besides the DisableBits (host/model/flag_names.hpp), which zwang honours all; its
// solver starts from the unconstrained q̈ always, so warmstart changes no minimiser
constexpr Flag kFlags[] = {
    // collision acceleration and bookkeeping: the same contacts and forces either way
    none("midphase"),
    none("nativeccd"),
    none("island"),
    // zwang never resets a diverged instance: it stops it with a status bit
    none("autoreset"),
    // an enable flag in MuJoCo 2.2.2, a disable flag in MuJoCo 3 and 4: zwang's convex pairs
    // give one contact each, as MuJoCo without multiccd
    warn_on("multiccd",
            "flag multiccd: zwang gives convex geom pairs one contact each, as MuJoCo without it"),
    // enable flags
    refuse_on("override",
              "flag override is not supported: contacts would keep their geoms' margin, solref and "
              "solimp instead of o_margin, o_solref and o_solimp"),
    warn_on(
        "energy",
        "flag energy: zwang records no energy in its outputs (mjData.energy has no counterpart)"),
    warn_on("fwdinv",
            "flag fwdinv: zwang records no forward-inverse comparison (mjData.solver_fwdinv)"),
    warn_on("sensornoise", "flag sensornoise: sensor noise is not simulated"),
    // inverse dynamics only
    none("invdiscrete"),
    warn_on("sleep",
            "flag sleep: zwang keeps every body awake; MuJoCo would freeze bodies at rest"),
    warn_on("diagexact",
            "flag diagexact: constraint regularisation keeps MuJoCo's approximate diagonal (from "
            "invweight0), not the exact one"),
    refuse_on("ipc", "flag ipc is not supported: it needs MuJoCo's discrete integrator"),
    warn_on("speculative",
            "flag speculative: zwang has no speculative contacts; contacts act within their margin "
            "only"),
};

}  // namespace

void read_flag(Context& ctx, pugi::xml_node node, int& disableflags) {
  Attrs a(ctx, node);
  std::string names;
  std::vector<Flag> flags;
  for (const auto& [bit, name] : kDisableFlagNames) flags.push_back({name, Effect::kBit, bit, {}});
  flags.insert(flags.end(), std::begin(kFlags), std::end(kFlags));
  for (const Flag& f : flags) names += fmt::format("{}{}", names.empty() ? "" : " ", f.name);
  for (const pugi::xml_attribute attr : node.attributes()) {
    const std::string_view name = attr.name();
    const Flag* flag = nullptr;
    for (const Flag& f : flags) {
      if (f.name == name) flag = &f;
    }
    if (flag == nullptr) {
      a.fail(fmt::format("<flag> has no flag '{}' (MuJoCo's flags: {})", name, names));
    }
    const bool enable = *a.keyword(attr.name(), {"disable", "enable"}) == 1;
    switch (flag->effect) {
      case Effect::kBit:
        disableflags = enable ? disableflags & ~flag->bit : disableflags | flag->bit;
        break;
      case Effect::kNone:
        break;
      case Effect::kWarnOn:
        if (enable) ctx.warn(node, flag->message);
        break;
      case Effect::kRefuseOn:
        if (enable) a.fail(flag->message);
        break;
    }
  }
  a.finish();
  for (const pugi::xml_node child : ctx.children(node)) ctx.unsupported(child);
}

}  // namespace zwang::mjcf
