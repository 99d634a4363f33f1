// An element with the same attribute twice, which XML forbids and MuJoCo refuses, but pugixml
// accepts (the first wins).
#pragma once

#include <algorithm>
#include <pugixml.hpp>
#include <string_view>
#include <vector>

namespace zwang {

// fail(node, name) for the first element in document order that repeats an attribute.  The walk
// follows parent and sibling links, so it needs no stack of its own however deep the file.
template <class Fail>
void check_unique_attributes(const pugi::xml_document& doc, const Fail& fail) {
  std::vector<std::string_view> names;
  pugi::xml_node n = doc.first_child();
  while (n) {
    if (n.type() == pugi::node_element && n.first_attribute()) {
      names.clear();
      for (const pugi::xml_attribute a : n.attributes()) names.emplace_back(a.name());
      std::sort(names.begin(), names.end());
      const auto twice = std::adjacent_find(names.begin(), names.end());
      if (twice != names.end()) fail(n, *twice);
    }
    if (n.first_child()) {
      n = n.first_child();
      continue;
    }
    while (n && !n.next_sibling()) n = n.parent();
    if (n) n = n.next_sibling();
  }
}

}  // namespace zwang
