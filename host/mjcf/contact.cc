// MJCF contact elements (<contact>: <pair> and <exclude>) in MuJoCo 2.2.2's order, and the warning
// about geom pairs that can touch but have no narrow phase.
#include "host/mjcf/contact.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "host/model/constraint_plan.hpp"
#include "zwang/builder.hpp"

namespace zwang::mjcf {

namespace {

bool is_valid_condim(int condim) {
  return condim == 1 || condim == 3 || condim == 4 || condim == 6;
}

// a geom pair that always collides, with the parameters of its class (no childclass reaches
// it) and its own attributes: MuJoCo 2.2.2 sets every parameter so, none from the geoms.
bool pair(Context& ctx, pugi::xml_node node, const Defaults& defaults,
          const std::map<std::string, GeomRef, std::less<>>& geoms, ContactPairSpec& spec,
          std::array<int, 2>& bodies) {
  Attrs a(ctx, node);
  PairDef d = defaults.of(a, "").pair;
  read_pair(a, d);
  spec.name = a.text("name").value_or("");
  spec.geom1 = a.required_text("geom1");
  spec.geom2 = a.required_text("geom2");
  a.finish();
  if (!is_valid_condim(d.condim)) {
    a.fail(fmt::format("<pair> condim {} is not 1, 3, 4 or 6", d.condim));
  }
  for (int k = 0; k < 2; ++k) {
    const std::string& name = k == 0 ? spec.geom1 : spec.geom2;
    const auto it = geoms.find(name);
    if (it == geoms.end()) a.fail(fmt::format("<pair> names no geom '{}'", name));
    bodies[k] = it->second.body;
  }
  if (bodies[0] > bodies[1]) {
    std::swap(spec.geom1, spec.geom2);
    std::swap(bodies[0], bodies[1]);
  }
  spec.condim = d.condim;
  spec.friction = d.friction;
  spec.solref = d.solref;
  spec.solimp = d.solimp;
  spec.margin = d.margin;
  spec.gap = d.gap;
  return true;
}

// the bodies of an excluded body pair, named as in the document, the lower-numbered first
std::array<int, 2> exclude(Context& ctx, pugi::xml_node node, const std::vector<Body>& bodies) {
  Attrs a(ctx, node);
  a.ignore({"name"});
  const std::string names[2] = {a.required_text("body1"), a.required_text("body2")};
  a.finish();
  std::array<int, 2> ids{};
  for (int k = 0; k < 2; ++k) {
    const auto it = std::find_if(bodies.begin(), bodies.end(),
                                 [&](const Body& b) { return b.name == names[k]; });
    if (names[k].empty() || it == bodies.end()) {
      a.fail(fmt::format("<exclude> names no body '{}'", names[k]));
    }
    ids[k] = static_cast<int>(it - bodies.begin());
  }
  if (ids[0] > ids[1]) std::swap(ids[0], ids[1]);
  return ids;
}

// "'name'", or "#index" for an unnamed geom of the model, with its location when `where`
std::string describe(const Context& ctx, const Model& model,
                     std::span<const Geom* const> model_geoms, int g, bool where) {
  if (!model.geom_name[g].empty()) return fmt::format("'{}'", model.geom_name[g]);
  return where ? fmt::format("#{} at {}", g, ctx.where(model_geoms[g]->node))
               : fmt::format("#{}", g);
}

}  // namespace

void add_contacts(Context& ctx, std::span<const pugi::xml_node> nodes, const Defaults& defaults,
                  const std::vector<Body>& bodies, std::span<const std::string> body_names,
                  const std::map<std::string, GeomRef, std::less<>>& geoms, ModelBuilder& builder) {
  struct Sorted {
    std::array<int, 2> bodies;
    pugi::xml_node node;
    ContactPairSpec pair;  // empty geom names for an exclusion
  };
  std::vector<Sorted> pairs, excludes;
  std::map<std::string, pugi::xml_node, std::less<>> names[2];
  for (const pugi::xml_node node : nodes) {
    const std::string_view tag = node.name();
    if (tag != "pair" && tag != "exclude") {
      ctx.fail(node,
               fmt::format("<{}> is not an element of <contact> (pair and exclude are)", tag));
    }
    const std::string name = node.attribute("name").value();
    if (!name.empty()) {
      const auto [it, added] = names[tag == "pair" ? 0 : 1].emplace(name, node);
      if (!added) {
        ctx.fail(node, fmt::format("<{}> name '{}' is already used at {}", tag, name,
                                   ctx.where(it->second)));
      }
    }
    if (tag == "exclude") {
      excludes.push_back({exclude(ctx, node, bodies), node, {}});
    } else if (Sorted p{{0, 0}, node, {}}; pair(ctx, node, defaults, geoms, p.pair, p.bodies)) {
      pairs.push_back(std::move(p));
    }
  }
  const auto by_bodies = [](const Sorted& a, const Sorted& b) { return a.bodies < b.bodies; };
  std::sort(pairs.begin(), pairs.end(), by_bodies);
  std::sort(excludes.begin(), excludes.end(), by_bodies);
  for (const Sorted& p : pairs) {
    try {
      builder.add_contact_pair(p.pair);
    } catch (const ModelError& e) {
      ctx.fail(p.node, e.what());
    }
  }
  for (const Sorted& x : excludes) {
    try {
      builder.add_contact_exclude(body_names[x.bodies[0]], body_names[x.bodies[1]]);
    } catch (const ModelError& e) {
      ctx.fail(x.node, e.what());
    }
  }
}

void note_unsupported_pairs(Context& ctx, const Model& model,
                            std::span<const Geom* const> model_geoms) {
  struct Types {
    std::array<int, 2> first;
    int count = 0;
  };
  std::vector<Types> seen;
  auto types = [&](const std::array<int, 2>& p) {
    return std::pair(model.geom_type[p[0]], model.geom_type[p[1]]);
  };
  for (const std::array<int, 2>& p : plan_rows(model).unsupported) {
    const auto it = std::find_if(seen.begin(), seen.end(),
                                 [&](const Types& t) { return types(t.first) == types(p); });
    if (it == seen.end()) {
      seen.push_back({p, 1});
    } else {
      ++it->count;
    }
  }
  for (const Types& t : seen) {
    const int g1 = t.first[0], g2 = t.first[1];
    const std::string_view n1 = zwang::to_string(model.geom_type[g1]);
    const std::string_view n2 = zwang::to_string(model.geom_type[g2]);
    const std::string more = t.count == 1
                                 ? ""
                                 : fmt::format(" (as do {} more {}–{} pair{})", t.count - 1, n1, n2,
                                               t.count == 2 ? "" : "s");
    ctx.warn(model_geoms[g1]->node,
             fmt::format("geoms {} ({}) and {} ({}) can touch but zwang has no narrow phase "
                         "for {}–{}; they pass through each other{}",
                         describe(ctx, model, model_geoms, g1, false), n1,
                         describe(ctx, model, model_geoms, g2, true), n2, n1, n2, more));
  }
}

}  // namespace zwang::mjcf
