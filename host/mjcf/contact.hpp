// The MJCF reader's contacts: <pair>, <exclude> and the pairs without a narrow phase.
#pragma once

#include <functional>
#include <map>
#include <pugixml.hpp>
#include <span>
#include <string>
#include <vector>

#include "host/mjcf/mesh.hpp"
#include "zwang/builder.hpp"

namespace zwang::mjcf {

// a geom of the document and the body it is on
struct GeomRef {
  const Geom* geom;
  int body;
};

// <contact>: <pair> and <exclude>, each with the lower-numbered body first and sorted by their
// bodies as MuJoCo stores them.  MuJoCo's std::sort is not stable: the same sort of the same
// sequence gives its order of equal body pairs (libstdc++'s, as the MuJoCo 2.2.2 the tests
// use).  Names unique among pairs and among exclusions.  `body_names` completes the names of
// `bodies`; `geoms` holds the named geoms of the document.
void add_contacts(Context& ctx, std::span<const pugi::xml_node> nodes, const Defaults& defaults,
                  const std::vector<Body>& bodies, std::span<const std::string> body_names,
                  const std::map<std::string, GeomRef, std::less<>>& geoms, ModelBuilder& builder);

// geom pairs that can touch (the filters or a <pair> let them through) but have no narrow
// phase: one warning per pair of types, located at the first such pair's first geom;
// `model_geoms` gives the element of each geom of the model
void note_unsupported_pairs(Context& ctx, const Model& model,
                            std::span<const Geom* const> model_geoms);

}  // namespace zwang::mjcf
