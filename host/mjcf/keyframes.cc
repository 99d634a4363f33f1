// <keyframe><key>: named states, completed and checked by ModelBuilder once the sizes are known.
#include <fmt/format.h>

#include <string>
#include <vector>

#include "host/mjcf/body.hpp"
#include "zwang/builder.hpp"

namespace zwang::mjcf {
namespace {

// every number of a list attribute (MuJoCo reads at most 1000), empty when it is absent
std::vector<double> all_numbers(Attrs& a, const char* name) {
  std::vector<double> v(1000);
  v.resize(static_cast<std::size_t>(a.numbers(name, v, 1)));
  return v;
}

}  // namespace

std::vector<pugi::xml_node> read_keyframes(Context& ctx, std::span<const pugi::xml_node> keys,
                                           int nkey, ModelBuilder& builder) {
  std::vector<pugi::xml_node> nodes;
  for (const pugi::xml_node node : keys) {
    if (std::string_view(node.name()) != "key") {
      ctx.unsupported(node);
      continue;
    }
    Attrs a(ctx, node);
    KeyframeSpec spec;
    spec.name = a.text("name").value_or("");
    spec.time = a.number("time").value_or(0);
    spec.qpos = all_numbers(a, "qpos");
    spec.qvel = all_numbers(a, "qvel");
    spec.ctrl = all_numbers(a, "ctrl");
    spec.mpos = all_numbers(a, "mpos");
    spec.mquat = all_numbers(a, "mquat");
    spec.act = all_numbers(a, "act");
    a.finish();
    try {
      builder.add_keyframe(spec);
    } catch (const ModelError& e) {
      ctx.fail(node, e.what());
    }
    for (const pugi::xml_node child : ctx.children(node)) ctx.unsupported(child);
    nodes.push_back(node);
  }
  // <size nkey> asks for keys beyond those written: MuJoCo adds default ones
  for (int k = static_cast<int>(nodes.size()); k < nkey; ++k) builder.add_keyframe({});
  return nodes;
}

}  // namespace zwang::mjcf
