#include "host/cli/cli_common.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <numeric>
#include <set>
#include <span>
#include <sstream>
#include <stdexcept>

#include "host/model/flag_names.hpp"
#include "kernels/status.h"
#include "zwang/examples.hpp"

namespace zwang::cli {

OpenedModel open_model(const std::string& spec, const LoadOptions& load) {
  const std::vector<std::string> names = examples::names();
  if (std::find(names.begin(), names.end(), spec) != names.end()) {
    if (load.floating_base || load.balance_inertia || load.fuse_static) {
      throw ModelError(
          fmt::format("--{} applies to URDF files only", load.floating_base     ? "floating-base"
                                                         : load.balance_inertia ? "balance-inertia"
                                                                                : "fuse-static"));
    }
    Model m = examples::by_name(spec);
    m.contact_margin = contact_margin_of(load);
    m.wrap_rules = wrap_rules_of(load);
    m.rules = load.rules;
    return {std::move(m), "built-in example " + spec, {}};
  }
  if (!std::filesystem::exists(spec)) {
    throw ModelError(fmt::format("{}: no such file, and not a built-in example ({})", spec,
                                 fmt::join(names, ", ")));
  }
  LoadResult r = load_model(spec, load);
  return {std::move(r.model), spec, std::move(r.warnings)};
}

namespace {

[[noreturn]] void os_failure(const std::string& path, const char* what, int error) {
  throw std::runtime_error(fmt::format("{}: {}: {}", path, what, std::strerror(error)));
}

int open_or_throw(const std::string& path, int flags, const char* what, mode_t mode = 0) {
  int fd = -1;
  do {
    fd = ::open(path.c_str(), flags | O_CLOEXEC, mode);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) os_failure(path, what, errno);
  return fd;
}

// 0, or the error of the write that failed
int write_all(int fd, const std::string& text) {
  for (std::size_t done = 0; done < text.size();) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    done += static_cast<std::size_t>(n);
  }
  return 0;
}

// written in place, for targets that cannot be renamed onto; every error is reported
void write_in_place(const std::string& path, const std::string& text) {
  const int fd = open_or_throw(path, O_WRONLY | O_CREAT | O_TRUNC, "cannot open", 0666);
  int error = write_all(fd, text);
  if (::close(fd) != 0 && error == 0) error = errno;
  if (error != 0) os_failure(path, "cannot write", error);
}

}  // namespace

std::string read_file(const std::string& path, std::size_t max_bytes) {
  std::error_code ignored;
  if (std::filesystem::is_directory(path, ignored))
    throw std::runtime_error(path + ": is a directory");
  const int fd = open_or_throw(path, O_RDONLY, "cannot open");
  std::string text;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int error = errno;
      ::close(fd);
      os_failure(path, "cannot read", error);
    }
    if (n == 0) break;
    if (text.size() + static_cast<std::size_t>(n) > max_bytes) {
      ::close(fd);
      throw std::runtime_error(
          fmt::format("{}: more than {} bytes, larger than an input may be", path, max_bytes));
    }
    text.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return text;
}

void write_file(const std::string& path, const std::string& text) {
  namespace fs = std::filesystem;
  std::error_code ignored;
  const fs::file_status target = fs::status(path, ignored);  // through symbolic links
  if (fs::is_directory(target)) throw std::runtime_error(path + ": is a directory");
  if (fs::exists(target) && !fs::is_regular_file(target)) return write_in_place(path, text);

  // a temporary file beside the target (the file a link points to, the link staying), renamed
  // onto it once all of it is on disk, with the target's mode or the one a new file would get
  std::error_code unresolved;
  fs::path final_path = fs::canonical(path, unresolved);
  if (unresolved) final_path = path;
  std::string temp =
      (final_path.parent_path() / fmt::format(".{}.XXXXXX", final_path.filename().string()))
          .string();
  const int fd = ::mkstemp(temp.data());
  if (fd < 0 && errno == EACCES && fs::exists(target)) return write_in_place(path, text);
  if (fd < 0) os_failure(path, "cannot create a file beside it", errno);
  mode_t mode = 0;
  if (fs::exists(target)) {
    mode = static_cast<mode_t>(target.permissions());
  } else {
    const mode_t mask = ::umask(0);
    ::umask(mask);
    mode = 0666 & ~mask;
  }
  int error = write_all(fd, text);
  if (error == 0 && ::fchmod(fd, mode) != 0) error = errno;
  if (error == 0 && ::fsync(fd) != 0) error = errno;
  if (::close(fd) != 0 && error == 0) error = errno;
  if (error == 0 && ::rename(temp.c_str(), final_path.c_str()) != 0) error = errno;
  if (error != 0) {
    ::unlink(temp.c_str());
    os_failure(path, "cannot write", error);
  }
}

void check_writable(const std::string& path, const std::string& option) {
  namespace fs = std::filesystem;
  std::error_code ignored;
  if (fs::is_directory(path, ignored)) {
    throw std::runtime_error(fmt::format("{} {}: is a directory", option, path));
  }
  const bool existed = fs::exists(path, ignored);
  int fd = -1;
  do {
    fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) {
    throw std::runtime_error(
        fmt::format("{} {}: cannot write: {}", option, path, std::strerror(errno)));
  }
  ::close(fd);
  if (!existed) ::unlink(path.c_str());
}

namespace {

// --disable switches constraints off: the flags from constraint to contact
constexpr std::span<const DisableFlagName, 5> kDisableFlags =
    std::span(kDisableFlagNames).first<5>();
static_assert(kDisableFlags.back().bit == kDisableContact);

}  // namespace

std::vector<std::string> disable_flag_names() {
  std::vector<std::string> names;
  for (const auto& [bit, name] : kDisableFlags) names.emplace_back(name);
  return names;
}

int parse_disable(const std::vector<std::string>& lists) {
  int flags = 0;
  for (const std::string& list : lists) {
    std::stringstream in(list + ",");  // "a,b," splits into a, b and a last ""
    for (std::string name; std::getline(in, name, ',');) {
      const auto it = std::find_if(kDisableFlags.begin(), kDisableFlags.end(),
                                   [&](const auto& flag) { return name == flag.name; });
      if (it == kDisableFlags.end()) {
        throw std::invalid_argument(
            fmt::format("--disable: {} in '{}' (valid: {})",
                        name.empty() ? std::string("an empty name") : "unknown flag '" + name + "'",
                        list, fmt::join(disable_flag_names(), ", ")));
      }
      flags |= it->bit;
    }
  }
  return flags;
}

namespace {

std::string trimmed(const std::string& text) {
  const auto first = text.find_first_not_of(" \t"), last = text.find_last_not_of(" \t");
  return first == std::string::npos ? "" : text.substr(first, last - first + 1);
}

}  // namespace

DriveOption parse_drive(const std::string& text) {
  constexpr const char* kForm = "JOINT=q0,v0,amplitude,omega,phase";
  // numbers hold no '=', so the last one ends the joint's name
  const auto eq = text.rfind('=');
  if (eq == std::string::npos || trimmed(text.substr(0, eq)).empty()) {
    throw std::invalid_argument(fmt::format("--drive: '{}' is not {}", text, kForm));
  }
  DriveOption d{trimmed(text.substr(0, eq))};
  std::vector<std::string> numbers;
  std::stringstream in(text.substr(eq + 1) + ",");  // "a,b," splits into a, b and keeps a last ""
  for (std::string item; std::getline(in, item, ',');) numbers.push_back(trimmed(item));
  if (numbers.size() != d.prm.size()) {
    throw std::invalid_argument(fmt::format("--drive: '{}' has {} number{}; {} needs 5", text,
                                            numbers.size(), numbers.size() == 1 ? "" : "s", kForm));
  }
  for (std::size_t k = 0; k < numbers.size(); ++k) {
    const std::string& x = numbers[k];
    const char* begin = x.data() + (x.size() > 1 && x[0] == '+' ? 1 : 0);
    const char* end = x.data() + x.size();
    const auto [stop, error] = std::from_chars(begin, end, d.prm[k]);
    if (x.empty() || error != std::errc() || stop != end || !std::isfinite(d.prm[k])) {
      constexpr const char* kNames[5] = {"q0", "v0", "amplitude", "omega", "phase"};
      throw std::invalid_argument(
          fmt::format("--drive: '{}': {} '{}' is not a finite number", text, kNames[k], x));
    }
  }
  return d;
}

void apply_drives(Model& model, const std::vector<DriveOption>& drives) {
  std::set<std::string> given;
  for (const DriveOption& d : drives) {
    const int j = model.id(ObjType::kJoint, d.joint);
    if (j < 0)
      throw std::invalid_argument(fmt::format("--drive: no joint '{}' in the model", d.joint));
    const JointType type = model.jnt_type[j];
    if (type != JointType::kHinge && type != JointType::kSlide) {
      throw std::invalid_argument(
          fmt::format("--drive: joint '{}' is a {} joint; drives act on hinge and slide joints",
                      d.joint, to_string(type)));
    }
    if (!given.insert(d.joint).second)
      throw std::invalid_argument(fmt::format("--drive: joint '{}' is given twice", d.joint));
    const auto it = std::find(model.drive_jnt.begin(), model.drive_jnt.end(), j);
    const std::size_t k = it - model.drive_jnt.begin();
    if (it == model.drive_jnt.end()) {
      model.drive_jnt.push_back(j);
      model.drive_prm.resize(model.drive_prm.size() + d.prm.size());
      model.drive_solref.insert(model.drive_solref.end(), kDefaultSolRef.begin(),
                                kDefaultSolRef.end());
      ++model.ndrive;
    }
    std::copy(d.prm.begin(), d.prm.end(), model.drive_prm.begin() + d.prm.size() * k);
  }
}

void apply_model_edits(Model& model, const ModelEdits& edits) {
  const int flags = parse_disable(edits.disable);
  std::vector<DriveOption> drives;
  for (const std::string& text : edits.drive) drives.push_back(parse_drive(text));
  model.disableflags |= flags;
  apply_drives(model, drives);
  model.validate();
}

namespace {

// A first pass over the states text that knows where it is, for what the DOM parser of
// nlohmann::json cannot say: it reports a number beyond the range of double without its place,
// and keeps only the last of duplicate keys.
class StatesScan : public nlohmann::json_sax<nlohmann::json> {
 public:
  std::string error;  // the first problem found, "" if none

  bool null() override { return value(); }
  bool boolean(bool) override { return value(); }
  bool number_integer(number_integer_t) override { return value(); }
  bool number_unsigned(number_unsigned_t) override { return value(); }
  bool number_float(number_float_t, const string_t&) override { return value(); }
  bool string(string_t&) override { return value(); }
  bool binary(binary_t&) override { return value(); }
  bool start_object(std::size_t) override {
    value();
    frames_.emplace_back().array = false;
    return true;
  }
  bool key(string_t& key) override {
    Frame& f = frames_.back();
    if (!f.keys.insert(key).second) {
      error = fmt::format("states: key \"{}\" appears twice", key);
      return false;
    }
    f.key = key;
    return true;
  }
  bool end_object() override {
    frames_.pop_back();
    return true;
  }
  bool start_array(std::size_t) override {
    value();
    frames_.emplace_back().array = true;
    return true;
  }
  bool end_array() override {
    frames_.pop_back();
    return true;
  }
  bool parse_error(std::size_t, const std::string& token,
                   const nlohmann::json::exception& e) override {
    // 406: a number that overflows a double
    error = e.id == 406 ? fmt::format("states: {} is out of range: {}", place(), token)
                        : fmt::format("states: not valid JSON: {}", e.what());
    return false;
  }

 private:
  struct Frame {
    bool array = false;
    std::size_t next = 0, current = 0;  // arrays: the next element, the one being read
    std::string key;                    // objects: the key being read
    std::set<std::string> keys;
  };
  bool value() {
    if (!frames_.empty() && frames_.back().array) frames_.back().current = frames_.back().next++;
    return true;
  }
  // "qpos[3][2]": where the value about to be read goes
  std::string place() const {
    std::string s;
    for (std::size_t k = 0; k < frames_.size(); ++k) {
      const Frame& f = frames_[k];
      s += f.array ? fmt::format("[{}]", k + 1 < frames_.size() ? f.current : f.next) : f.key;
    }
    return s;
  }
  std::vector<Frame> frames_;
};

std::vector<std::vector<double>> rows(const nlohmann::json& doc, const char* field, int width,
                                      std::size_t count, bool optional) {
  if (!doc.contains(field)) {
    if (optional) return {};
    throw std::invalid_argument(fmt::format("states: \"{}\" is missing", field));
  }
  const nlohmann::json& a = doc.at(field);
  if (!a.is_array())
    throw std::invalid_argument(fmt::format("states: \"{}\" must be an array of states", field));
  if (count != 0 && a.size() != count) {
    throw std::invalid_argument(
        fmt::format("states: \"{}\" has {} states, \"qpos\" has {}", field, a.size(), count));
  }
  std::vector<std::vector<double>> out;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const nlohmann::json& row = a[i];
    if (!row.is_array() || row.size() != static_cast<std::size_t>(width)) {
      throw std::invalid_argument(
          fmt::format("states: {}[{}] must be a list of {} numbers", field, i, width));
    }
    std::vector<double> v;
    for (std::size_t k = 0; k < row.size(); ++k) {
      if (!row[k].is_number()) {
        throw std::invalid_argument(fmt::format("states: {}[{}][{}] is not a number", field, i, k));
      }
      const double x = row[k].get<double>();
      if (!std::isfinite(x))
        throw std::invalid_argument(fmt::format("states: {}[{}][{}] is not finite", field, i, k));
      v.push_back(x);
    }
    out.push_back(std::move(v));
  }
  return out;
}

}  // namespace

States parse_states(const std::string& json_text, const Model& model) {
  StatesScan scan;
  if (!nlohmann::json::sax_parse(json_text, &scan)) throw std::invalid_argument(scan.error);
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(json_text);
  } catch (const nlohmann::json::exception& e) {
    throw std::invalid_argument(fmt::format("states: not valid JSON: {}", e.what()));
  }
  if (!doc.is_object())
    throw std::invalid_argument("states: expected an object with \"qpos\" and \"qvel\"");
  for (const auto& item : doc.items()) {
    if (item.key() != "qpos" && item.key() != "qvel" && item.key() != "ctrl" &&
        item.key() != "act") {
      throw std::invalid_argument(
          fmt::format("states: unknown key \"{}\" (known: qpos, qvel, ctrl, act)", item.key()));
    }
  }
  States s;
  s.qpos = rows(doc, "qpos", model.nq, 0, false);
  if (s.qpos.empty()) throw std::invalid_argument("states: \"qpos\" holds no state");
  s.qvel = rows(doc, "qvel", model.nv, s.qpos.size(), false);
  s.ctrl = rows(doc, "ctrl", model.nu, s.qpos.size(), true);
  s.act = rows(doc, "act", model.na, s.qpos.size(), true);
  return s;
}

namespace {

// the values of one field of every instance, [instance][element]
template <class T>
nlohmann::json per_instance(FieldRef<T> field) {
  nlohmann::json rows = nlohmann::json::array();
  for (std::int64_t i = 0; i < field.instances(); ++i) {
    const std::vector<T> v = field.get(i);
    rows.push_back(std::vector<double>(v.begin(), v.end()));
  }
  return rows;
}

// a count held in a one-element field, [instance]
template <class T>
nlohmann::json per_instance_count(FieldRef<T> field) {
  nlohmann::json counts = nlohmann::json::array();
  for (const T x : field.column(0)) counts.push_back(std::lround(x));
  return counts;
}

// values first..first+count of instance i of a field
template <class T>
std::vector<double> slot(FieldRef<T> field, std::int64_t i, int first, int count) {
  std::vector<double> v(count);
  for (int k = 0; k < count; ++k) v[k] = field(i, first + k);
  return v;
}

// the first ncon contacts of every instance, [instance][contact][...]: geom ids and names,
// distance, point, frame (rows normal, tangent 1, tangent 2) and force in that frame
template <class T>
void add_contacts(const Model& model, Batch<T>& b, nlohmann::json& out) {
  auto name = [&](int g) { return g >= 0 && g < model.ngeom ? model.geom_name[g] : std::string(); };
  nlohmann::json ncon = nlohmann::json::array(), geom = nlohmann::json::array(),
                 geom_name = nlohmann::json::array(), dist = nlohmann::json::array(),
                 pos = nlohmann::json::array(), frame = nlohmann::json::array(),
                 force = nlohmann::json::array();
  for (std::int64_t i = 0; i < b.size(); ++i) {
    const int n = std::clamp(static_cast<int>(std::lround(b.ncon()(i, 0))), 0, b.sizes().nconmax);
    ncon.push_back(n);
    nlohmann::json g = nlohmann::json::array(), gn = nlohmann::json::array(),
                   d = nlohmann::json::array(), p = nlohmann::json::array(),
                   f = nlohmann::json::array(), w = nlohmann::json::array();
    for (int c = 0; c < n; ++c) {
      const int g1 = static_cast<int>(std::lround(b.contact_geom()(i, 2 * c)));
      const int g2 = static_cast<int>(std::lround(b.contact_geom()(i, 2 * c + 1)));
      g.push_back(nlohmann::json::array({g1, g2}));
      gn.push_back(nlohmann::json::array({name(g1), name(g2)}));
      d.push_back(static_cast<double>(b.contact_dist()(i, c)));
      p.push_back(slot(b.contact_pos(), i, 3 * c, 3));
      f.push_back(slot(b.contact_frame(), i, 9 * c, 9));
      w.push_back(slot(b.contact_force(), i, 6 * c, 6));
    }
    geom.push_back(std::move(g));
    geom_name.push_back(std::move(gn));
    dist.push_back(std::move(d));
    pos.push_back(std::move(p));
    frame.push_back(std::move(f));
    force.push_back(std::move(w));
  }
  out["ncon"] = std::move(ncon);
  out["contact_geom"] = std::move(geom);
  out["contact_geom_name"] = std::move(geom_name);
  out["contact_dist"] = std::move(dist);
  out["contact_pos"] = std::move(pos);
  out["contact_frame"] = std::move(frame);
  out["contact_force"] = std::move(force);
}

}  // namespace

template <class T>
std::string dynamics_json(const Model& model, const States& states,
                          std::vector<std::string>* warnings) {
  const std::int64_t n = static_cast<std::int64_t>(states.qpos.size());
  Simulator<T> sim(model, n);
  Batch<T>& b = sim.batch();
  for (std::int64_t i = 0; i < n; ++i) {
    b.qpos().set(i, std::vector<T>(states.qpos[i].begin(), states.qpos[i].end()));
    b.qvel().set(i, std::vector<T>(states.qvel[i].begin(), states.qvel[i].end()));
    if (!states.ctrl.empty())
      b.ctrl().set(i, std::vector<T>(states.ctrl[i].begin(), states.ctrl[i].end()));
    if (!states.act.empty())
      b.act().set(i, std::vector<T>(states.act[i].begin(), states.act[i].end()));
  }
  sim.forward();
  for (const InstanceFailure& f : sim.failures()) {
    if (f.status & kStatusStopping) {
      throw std::runtime_error(
          fmt::format("state {}: {}{}", f.instance, describe_status(f.status),
                      f.detail.empty() ? std::string() : fmt::format(" ({})", f.detail)));
    }
    if (warnings)
      warnings->push_back(fmt::format("state {}: {}", f.instance, describe_status(f.status)));
  }
  const int nv = model.nv;
  nlohmann::json out{{"nq", model.nq}, {"nv", nv}};
  nlohmann::json mass = nlohmann::json::array();
  for (std::int64_t i = 0; i < n; ++i) {
    std::vector<double> dense(static_cast<std::size_t>(nv) * nv);
    for (int r = 0; r < nv; ++r) {
      for (int c = 0; c <= r; ++c)
        dense[r * nv + c] = dense[c * nv + r] = b.qM()(i, r * (r + 1) / 2 + c);
    }
    mass.push_back(dense);
  }
  out["M"] = std::move(mass);
  out["bias"] = per_instance(b.qfrc_bias());
  out["qacc"] = per_instance(b.qacc());
  out["qacc_smooth"] = per_instance(b.qacc_smooth());
  out["qfrc_constraint"] = per_instance(b.qfrc_constraint());
  out["efc_nactive"] = per_instance_count(b.efc_nactive());
  out["solver_niter"] = per_instance_count(b.solver_niter());
  add_contacts(model, b, out);
  if (model.ndrive > 0) out["drive_force"] = per_instance(b.drive_force());
  if (model.nsensor > 0) out["sensordata"] = per_instance(b.sensordata());
  if (model.na > 0) {
    out["act_dot"] = per_instance(b.act_dot());
    out["actuator_force"] = per_instance(b.actuator_force());
  }
  return out.dump();
}

template std::string dynamics_json<float>(const Model&, const States&, std::vector<std::string>*);
template std::string dynamics_json<double>(const Model&, const States&, std::vector<std::string>*);

}  // namespace zwang::cli
