// The MJCF reader's files and messages: one parsed document per file, the context that
// locates a message at its file and line, and attribute reading.
#pragma once

#include <array>
#include <filesystem>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <pugixml.hpp>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "host/load/text_lines.hpp"
#include "host/load/warnings.hpp"
#include "zwang/model.hpp"

namespace zwang::mjcf {

// one parsed file: the main one or an <include>d one
struct File {
  std::string name;                // as messages show it
  std::filesystem::path path;      // empty for a string
  std::filesystem::path dir;       // <include> paths are relative to it
  const File* includer = nullptr;  // the file whose <include> opened this one
  std::string text;                // what pugixml parsed
  TextLines lines;                 // the line of an offset in text
  pugi::xml_document doc;
};

class Context {
 public:
  // the <mujoco> root of a document; ModelError "name:line: ..." when the XML is malformed
  pugi::xml_node parse(std::string text, std::string name, std::filesystem::path path,
                       std::filesystem::path dir, const File* includer = nullptr);

  // "file:line" of an element
  std::string where(pugi::xml_node node) const;
  [[noreturn]] void fail(pugi::xml_node node, std::string_view what) const;
  // "file:line: what", once however often it is produced; the same `what` at other places is
  // counted on the same line (LoadWarnings)
  void warn(pugi::xml_node node, std::string_view what);
  // "file:line: element <tag> is not supported; ignored", with an optional reason
  void unsupported(pugi::xml_node node, std::string_view reason = {});

  // the element children of a node, each <include> replaced by the children of its file's root
  std::vector<pugi::xml_node> children(pugi::xml_node node);

  LoadWarnings warnings;
  // how tendons pass a wrap geom with a side site (LoadOptions::wrap_rules)
  WrapRules wrap_rules = WrapRules::kMujoco4;
  // MuJoCo 4.0's defaults, or 2.2.2's (LoadOptions::rules)
  Rules rules = Rules::kMujoco4;
  // the directory of the model's main file, where MuJoCo looks for mesh files
  const std::filesystem::path& model_dir() const { return files_.front()->dir; }

 private:
  const File& file_of(pugi::xml_node node) const;
  pugi::xml_node include(pugi::xml_node node);

  std::vector<std::unique_ptr<File>> files_;
  std::map<const void*, pugi::xml_node> included_;  // <include> element => root of its file
  std::uintmax_t text_bytes_ = 0;                   // of every file parsed
};

// the attributes of one element; every attribute must be read or ignored before finish(), which
// warns once about each of the others
class Attrs {
 public:
  Attrs(Context& ctx, pugi::xml_node node) : ctx_(ctx), node_(node) {}

  pugi::xml_node node() const { return node_; }
  std::string tag() const { return node_.name(); }
  Context& context() const { return ctx_; }
  bool has(const char* name) const;

  std::optional<std::string> text(const char* name);
  std::string required_text(const char* name);
  std::optional<double> number(const char* name);
  // between `min` and out.size() numbers into the front of `out`; the count, 0 if absent
  int numbers(const char* name, std::span<double> out, int min);
  template <std::size_t N>
  bool exact(const char* name, std::array<double, N>& out) {
    return numbers(name, out, static_cast<int>(N)) > 0;
  }
  // an integral number within the range of int
  std::optional<int> integer(const char* name);
  std::optional<bool> boolean(const char* name);
  // the index of the value among `options`; an error naming them otherwise
  std::optional<int> keyword(const char* name, std::span<const std::string_view> options);
  std::optional<int> keyword(const char* name, std::initializer_list<std::string_view> options) {
    return keyword(name, std::span<const std::string_view>(options.begin(), options.size()));
  }

  // attributes accepted without effect (rendering, user and solver data)
  void ignore(std::initializer_list<const char*> names);
  void finish();

  [[noreturn]] void fail(std::string_view what) const;

 private:
  const char* value(const char* name);

  Context& ctx_;
  pugi::xml_node node_;
  std::set<std::string, std::less<>> used_;
};

}  // namespace zwang::mjcf
