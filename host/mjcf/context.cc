// MJCF files, messages and attributes: locations as "file:line", <include> expansion, numbers,
// keywords, and the compiler's orientation rules.
#include "host/mjcf/context.hpp"

#include <fmt/format.h>

#include <Eigen/Geometry>
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <numbers>

#include "host/load/model_file.hpp"
#include "host/load/xml_attributes.hpp"
#include "host/mjcf/compiler.hpp"
#include "host/mjcf/defaults.hpp"

namespace zwang::mjcf {
namespace {

// whitespace-separated finite numbers; the first token that is not one, empty if all are
std::string_view parse_numbers(std::string_view s, std::vector<double>& out) {
  out.clear();
  std::size_t i = 0;
  while (true) {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    if (i == s.size()) return {};
    std::size_t end = i;
    while (end < s.size() && !std::isspace(static_cast<unsigned char>(s[end]))) ++end;
    const std::string_view token = s.substr(i, end - i);
    // from_chars takes no leading '+', which MJCF files use
    std::string_view digits = token;
    if (digits.size() > 1 && digits[0] == '+' && digits[1] != '-') digits.remove_prefix(1);
    double v = 0;
    const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
    if (ec != std::errc() || ptr != digits.data() + digits.size() || !std::isfinite(v)) {
      return token;
    }
    out.push_back(v);
    i = end;
  }
}

Eigen::Vector3d vec(const Vec3d& v) {
  return {v[0], v[1], v[2]};
}

Quatd wxyz(const Eigen::Quaterniond& q) {
  return {q.w(), q.x(), q.y(), q.z()};
}

// the rotation taking (0, 0, 1) to v by the smallest angle, as MuJoCo's mju_quatZ2Vec: about
// z × v by atan2(|z × v|, v_z); v antiparallel to z gives half a turn about x
Eigen::Quaterniond from_z(const Eigen::Vector3d& v) {
  const Eigen::Vector3d axis = Eigen::Vector3d::UnitZ().cross(v);
  const double s = axis.norm();
  const double angle = std::atan2(s, v.z());
  if (s < 1e-14 * v.norm()) {
    return v.z() >= 0 ? Eigen::Quaterniond::Identity()
                      : Eigen::Quaterniond(Eigen::AngleAxisd(angle, Eigen::Vector3d::UnitX()));
  }
  return Eigen::Quaterniond(Eigen::AngleAxisd(angle, axis / s));
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Context

pugi::xml_node Context::parse(std::string text, std::string name, std::filesystem::path path,
                              std::filesystem::path dir, const File* includer) {
  auto file = std::make_unique<File>();
  file->name = std::move(name);
  file->path = std::move(path);
  file->dir = std::move(dir);
  file->includer = includer;
  text_bytes_ += text.size();
  if (text_bytes_ > kMaxModelFileBytes) {
    throw ModelError(fmt::format("{}: the model's files have more than the {} MiB a model may have",
                                 file->name, kMaxModelFileBytes >> 20));
  }
  file->text = std::move(text);
  file->lines = TextLines(file->text);
  const pugi::xml_parse_result result =
      file->doc.load_buffer(file->text.data(), file->text.size(), pugi::parse_default);
  if (!result) {
    throw ModelError(fmt::format("{}:{}: malformed XML: {}", file->name,
                                 file->lines.line_at(result.offset), result.description()));
  }
  check_unique_attributes(file->doc, [&](pugi::xml_node node, std::string_view attr) {
    throw ModelError(fmt::format("{}:{}: <{}> has the attribute '{}' more than once", file->name,
                                 file->lines.line_at(node.offset_debug()), node.name(), attr));
  });
  const pugi::xml_node root = file->doc.document_element();
  if (!root) throw ModelError(fmt::format("{}:1: the document has no element", file->name));
  // an included file's root is only a wrapper, whatever its name (MuJoCo 4.0 reads
  // <mujocoinclude>, the usual one, like any other)
  if (includer == nullptr && std::string_view(root.name()) != "mujoco") {
    throw ModelError(fmt::format("{}:{}: the root element is <{}>, expected <mujoco>", file->name,
                                 file->lines.line_at(root.offset_debug()), root.name()));
  }
  files_.push_back(std::move(file));
  return root;
}

const File& Context::file_of(pugi::xml_node node) const {
  const pugi::xml_node root = node.root();
  for (const auto& f : files_) {
    if (f->doc == root) return *f;
  }
  return *files_.front();
}

std::string Context::where(pugi::xml_node node) const {
  const File& file = file_of(node);
  return fmt::format("{}:{}", file.name, file.lines.line_at(node.offset_debug()));
}

void Context::fail(pugi::xml_node node, std::string_view what) const {
  throw ModelError(fmt::format("{}: {}", where(node), what));
}

void Context::warn(pugi::xml_node node, std::string_view what) {
  warnings.add(where(node), what);
}

void Context::unsupported(pugi::xml_node node, std::string_view reason) {
  warn(node, reason.empty()
                 ? fmt::format("element <{}> is not supported; ignored", node.name())
                 : fmt::format("element <{}> is not supported; ignored ({})", node.name(), reason));
}

// <include file="..."/>: a file whose root's children stand in for the element (the root is
// <mujocoinclude> or <mujoco> in MuJoCo's own files; MuJoCo takes any).  As in MuJoCo, a file is
// included once in a model (so includes cannot multiply), and all the files of a model together
// are at most kMaxModelFileBytes.
pugi::xml_node Context::include(pugi::xml_node node) {
  const auto cached = included_.find(node.internal_object());
  if (cached != included_.end()) return cached->second;
  Attrs a(*this, node);
  const std::string name = a.required_text("file");
  a.finish();
  const File& parent = file_of(node);
  const std::filesystem::path path = parent.dir / name;
  std::error_code ec;
  const std::filesystem::path canonical = std::filesystem::weakly_canonical(path, ec);
  for (const auto& f : files_) {
    if (!f->path.empty() && std::filesystem::weakly_canonical(f->path, ec) == canonical) {
      fail(node, f.get() == &parent
                     ? fmt::format("<include> of '{}' includes itself", name)
                     : fmt::format("<include> of '{}': the file is already part of the model "
                                   "(each file may be included once)",
                                   name));
    }
  }
  std::string text;
  try {
    text = read_model_file(path, path.string());
  } catch (const ModelError& e) {
    fail(node, fmt::format("<include> cannot open '{}' ({})", name, e.what()));
  }
  const pugi::xml_node root =
      parse(std::move(text), path.string(), path, path.parent_path(), &parent);
  included_[node.internal_object()] = root;
  return root;
}

std::vector<pugi::xml_node> Context::children(pugi::xml_node node) {
  std::vector<pugi::xml_node> out;
  for (pugi::xml_node child : node.children()) {
    if (child.type() != pugi::node_element) continue;
    if (std::string_view(child.name()) == "include") {
      const std::vector<pugi::xml_node> inner = children(include(child));
      out.insert(out.end(), inner.begin(), inner.end());
    } else {
      out.push_back(child);
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Attrs

bool Attrs::has(const char* name) const {
  return static_cast<bool>(node_.attribute(name));
}

const char* Attrs::value(const char* name) {
  const pugi::xml_attribute attr = node_.attribute(name);
  if (!attr) return nullptr;
  used_.insert(name);
  return attr.value();
}

void Attrs::fail(std::string_view what) const {
  ctx_.fail(node_, what);
}

std::optional<std::string> Attrs::text(const char* name) {
  const char* v = value(name);
  if (v == nullptr) return std::nullopt;
  return std::string(v);
}

std::string Attrs::required_text(const char* name) {
  const std::optional<std::string> v = text(name);
  if (!v) fail(fmt::format("<{}> needs the attribute '{}'", tag(), name));
  return *v;
}

int Attrs::numbers(const char* name, std::span<double> out, int min) {
  const char* v = value(name);
  if (v == nullptr) return 0;
  std::vector<double> values;
  if (const std::string_view bad = parse_numbers(v, values); !bad.empty()) {
    fail(fmt::format("<{}> attribute '{}': '{}' is not a finite number", tag(), name, bad));
  }
  const int n = static_cast<int>(values.size()), max = static_cast<int>(out.size());
  if (n < min || n > max) {
    const std::string expected =
        min == max ? fmt::format("{}", max) : fmt::format("{} to {}", min, max);
    fail(fmt::format("<{}> attribute '{}': '{}' has {} value{}, expected {}", tag(), name, v, n,
                     n == 1 ? "" : "s", expected));
  }
  std::copy(values.begin(), values.end(), out.begin());
  return n;
}

std::optional<double> Attrs::number(const char* name) {
  std::array<double, 1> v{};
  if (numbers(name, v, 1) == 0) return std::nullopt;
  return v[0];
}

std::optional<int> Attrs::integer(const char* name) {
  const std::optional<double> v = number(name);
  if (!v) return std::nullopt;
  constexpr double lo = std::numeric_limits<int>::min(), hi = std::numeric_limits<int>::max();
  if (*v != std::round(*v) || *v < lo || *v > hi) {
    fail(fmt::format("<{}> attribute '{}': '{}' is not an integer in [{}, {}]", tag(), name,
                     node_.attribute(name).value(), lo, hi));
  }
  return static_cast<int>(*v);
}

std::optional<bool> Attrs::boolean(const char* name) {
  const std::optional<int> k = keyword(name, {"false", "true"});
  if (!k) return std::nullopt;
  return *k == 1;
}

std::optional<int> Attrs::keyword(const char* name, std::span<const std::string_view> options) {
  const char* v = value(name);
  if (v == nullptr) return std::nullopt;
  int i = 0;
  for (std::string_view option : options) {
    if (option == v) return i;
    ++i;
  }
  std::string list;
  for (std::string_view option : options)
    list += fmt::format("{}'{}'", list.empty() ? "" : ", ", option);
  fail(fmt::format("<{}> attribute '{}': '{}' is not one of {}", tag(), name, v, list));
}

void Attrs::ignore(std::initializer_list<const char*> names) {
  for (const char* name : names) {
    if (has(name)) used_.insert(name);
  }
}

void Attrs::finish() {
  for (const pugi::xml_attribute attr : node_.attributes()) {
    if (used_.count(std::string_view(attr.name())) == 0) {
      ctx_.warn(node_, fmt::format("attribute '{}' of <{}> is not supported; ignored", attr.name(),
                                   tag()));
    }
  }
}

// ---------------------------------------------------------------------------------------------
// compiler and orientations

double Compiler::angle_scale() const {
  return degree ? std::numbers::pi / 180 : 1.0;
}

void read_compiler(Attrs& a, Compiler& c) {
  if (const auto angle = a.keyword("angle", {"radian", "degree"})) c.degree = *angle == 1;
  if (const auto coordinate = a.keyword("coordinate", {"local", "global"}); coordinate == 1) {
    a.fail(
        "<compiler> coordinate=\"global\" is not supported; write the model in local coordinates");
  }
  if (const auto ifg = a.keyword("inertiafromgeom", {"false", "true", "auto"})) {
    c.inertiafromgeom = static_cast<InertiaFromGeom>(*ifg);
  }
  if (const auto seq = a.text("eulerseq")) {
    if (seq->size() != 3 || seq->find_first_not_of("xyzXYZ") != std::string::npos) {
      a.fail(
          fmt::format("<compiler> attribute 'eulerseq': '{}' is not three of x y z X Y Z", *seq));
    }
    c.eulerseq = *seq;
  }
  if (const auto autolimits = a.boolean("autolimits")) c.autolimits = *autolimits;
  if (const auto m = a.number("settotalmass")) c.settotalmass = *m;
  if (const auto m = a.number("boundmass")) c.boundmass = *m;
  if (const auto i = a.number("boundinertia")) c.boundinertia = *i;
  a.exact("inertiagrouprange", c.inertiagrouprange);
  if (c.boundmass < 0 || c.boundinertia < 0) a.fail("<compiler> bounds must be non-negative");
  if (const auto dir = a.text("meshdir")) c.meshdir = *dir;
  if (const auto dir = a.text("assetdir")) c.assetdir = *dir;
  if (const auto exact = a.boolean("exactmeshinertia")) {
    c.exactmeshinertia = *exact;
    // MuJoCo 3 and 4 refuse the attribute; read, it keeps its 2.2.2 meaning
    if (a.context().rules != Rules::kMujoco2) {
      a.context().warn(a.node(),
                       "<compiler> exactmeshinertia is MuJoCo 2.2.2's (MuJoCo 3 and 4 refuse it): "
                       "meshes without an inertia attribute take 2.2.2's rule");
    }
  }
  if (const auto fit = a.boolean("fitaabb")) c.fitaabb = *fit;
  if (const auto strip = a.boolean("strippath")) c.strippath = *strip;
  if (const auto fuse = a.boolean("fusestatic")) c.fusestatic = *fuse;
  // textures, threads and visual geoms have no effect on the dynamics; zwang always keeps the
  // convex hull of a mesh
  a.ignore({"texturedir", "discardvisual", "convexhull", "usethread"});
}

void read_lengthrange(Attrs& a, Compiler& c) {
  if (const auto mode = a.keyword("mode", {"none", "muscle", "muscleuser", "all"}))
    c.lengthrange_mode = *mode;
  if (const auto b = a.boolean("useexisting")) c.lengthrange_useexisting = *b;
  if (const auto b = a.boolean("uselimit")) c.lengthrange_uselimit = *b;
  // the rest tunes the simulation that finds a length range, which zwang does not run
  a.ignore({"accel", "maxforce", "timeconst", "timestep", "inttotal", "inteval", "tolrange"});
}

Quatd z_to(const Vec3d& v) {
  return wxyz(from_z(vec(v)));
}

std::optional<Quatd> read_orientation(Attrs& a, const Compiler& c) {
  const char* forms[] = {"quat", "axisangle", "euler", "xyaxes", "zaxis"};
  int given = 0;
  for (const char* f : forms) given += a.has(f) ? 1 : 0;
  if (given == 0) return std::nullopt;
  if (given > 1) {
    a.fail(fmt::format("<{}> has more than one of quat, axisangle, euler, xyaxes, zaxis", a.tag()));
  }
  auto unit = [&](const Eigen::Vector3d& v, const char* what) -> Eigen::Vector3d {
    const double n = v.norm();
    if (n < 1e-14) a.fail(fmt::format("<{}> attribute '{}' has a zero-length axis", a.tag(), what));
    return v / n;
  };
  std::array<double, 4> q{};
  if (a.exact("quat", q)) {
    const Eigen::Quaterniond r(q[0], q[1], q[2], q[3]);
    if (r.norm() < 1e-14) a.fail(fmt::format("<{}> attribute 'quat' has zero length", a.tag()));
    return wxyz(r.normalized());
  }
  std::array<double, 4> aa{};
  if (a.exact("axisangle", aa)) {
    const Eigen::Vector3d axis = unit({aa[0], aa[1], aa[2]}, "axisangle");
    return wxyz(Eigen::Quaterniond(Eigen::AngleAxisd(aa[3] * c.angle_scale(), axis)));
  }
  std::array<double, 3> e{};
  if (a.exact("euler", e)) {
    // each step rotates about an axis of the moving frame (lowercase: q ← q r) or of the fixed
    // one (uppercase: q ← r q)
    Eigen::Quaterniond result = Eigen::Quaterniond::Identity();
    for (int i = 0; i < 3; ++i) {
      const char axis = c.eulerseq[i];
      const Eigen::Quaterniond r(Eigen::AngleAxisd(
          e[i] * c.angle_scale(), Eigen::Vector3d::Unit(std::tolower(axis) - 'x')));
      result = std::islower(axis) ? result * r : r * result;
    }
    return wxyz(result);
  }
  std::array<double, 6> xy{};
  if (a.exact("xyaxes", xy)) {
    // x normalised, y made orthogonal to x and normalised, z = x × y; the quaternion's sign
    // is chosen with w ≥ 0
    const Eigen::Vector3d x = unit({xy[0], xy[1], xy[2]}, "xyaxes");
    Eigen::Vector3d y(xy[3], xy[4], xy[5]);
    y = unit(y - x.dot(y) * x, "xyaxes");
    Eigen::Matrix3d frame;
    frame << x, y, x.cross(y);
    Eigen::Quaterniond r(frame);
    if (r.w() < 0) r.coeffs() = -r.coeffs();
    return wxyz(r);
  }
  std::array<double, 3> z{};
  a.exact("zaxis", z);
  return wxyz(from_z(unit({z[0], z[1], z[2]}, "zaxis")));
}

bool resolve_limited(const Attrs& a, Limited limited, const std::array<double, 2>& range,
                     bool autolimits, std::string_view flag, std::string_view range_name) {
  bool on = limited == Limited::kTrue;
  if (limited == Limited::kAuto) {
    const bool given = range[0] != 0 || range[1] != 0;
    if (given && !autolimits) {
      a.fail(
          fmt::format("<{}> has '{}' but not '{}', and the model sets <compiler "
                      "autolimits=\"false\">: give {}=\"true\" or \"false\"",
                      a.tag(), range_name, flag, flag));
    }
    // MuJoCo 4: a limit where the range is an interval; "1 1" or "1 -1" none
    on = range[0] < range[1];
  }
  if (on && !(range[0] < range[1])) {
    a.fail(fmt::format("<{}> attribute '{}': [{}, {}] is empty (the lower bound must be smaller)",
                       a.tag(), range_name, range[0], range[1]));
  }
  return on;
}

}  // namespace zwang::mjcf
