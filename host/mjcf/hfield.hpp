// The MJCF reader's height fields (host/mjcf/hfield.cc).
#pragma once

#include <map>
#include <pugixml.hpp>
#include <span>
#include <string>
#include <vector>

#include "host/mjcf/body.hpp"
#include "zwang/builder.hpp"

namespace zwang::mjcf {

// the <hfield> elements of the <asset> sections, read as MuJoCo 4.0 reads them, in document
// order: elevations inline (the first row of `elevation` at +y), from a PNG image (grey levels,
// the top row at +y) or from MuJoCo's binary format, or all zero where only nrow and ncol are given
class HFields {
 public:
  HFields(Context& ctx, std::span<const pugi::xml_node> assets, const Compiler& c);

  // each height-field geom takes its height field's size (MuJoCo's geom_size: its mass is that of
  // the box of those half-sizes); a geom of another type may not name one
  void apply(std::vector<Body>& bodies) const;
  // every height field, in document order
  void add_to(ModelBuilder& builder) const;

 private:
  struct Entry {
    pugi::xml_node node;
    HFieldSpec spec;
  };
  Context& ctx_;
  std::vector<Entry> fields_;
  std::map<std::string, int, std::less<>> index_;
};

}  // namespace zwang::mjcf
