// `zwang merge OUT SHARD...`: the trajectories of `zwang run --shard K/N` joined into the file the
// whole run writes.  The shards must be all N slices of one run: the same model (its hash), the
// same options and draws, every shard complete with the same records; anything else is refused,
// naming the file.  OUT is written beside itself and renamed into place once complete, so that a
// failed merge leaves no partial file (and the shards are only read).
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <hdf5.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "host/cli/commands.hpp"

namespace zwang::cli {
namespace {

// the datasets of a trajectory: [record][instance]..., [instance]..., or the same in every shard
const std::vector<std::string> kSeries = {
    "qpos", "qvel", "ctrl", "act", "time", "efc_nactive", "ncon", "sensordata", "solver_niter"};
const std::vector<std::string> kPerInstance = {"status"};
const std::vector<std::string> kShared = {"sensor_adr", "sensor_dim"};

// the attributes that say which run a file is of: every shard of one run has the same
const std::vector<std::string> kRunAttributes = {
    "model",     "model_hash",   "nq",           "nv",          "nu",         "na",
    "nbody",     "ngeom",        "nconmax",      "timestep",    "integrator", "precision",
    "instances", "steps",        "record_every", "seed",        "randomize",  "ctrl",
    "keyframe",  "disableflags", "init_noise",   "drive_joints"};

// an HDF5 handle, closed once
struct Closer {
  Closer(herr_t (*c)(hid_t), hid_t i) : close(c), id(i) {}
  Closer(const Closer&) = delete;
  Closer& operator=(const Closer&) = delete;
  herr_t (*close)(hid_t);
  hid_t id;
  ~Closer() {
    if (id >= 0) close(id);
  }
};

// an attribute's value in words: a string, a number (integers exactly, reals to 17 digits) or
// a list of strings joined by ", "; "" when the object has no such attribute
std::string attribute_text(hid_t object, const std::string& name) {
  if (H5Aexists(object, name.c_str()) <= 0) return "";
  const Closer attr{H5Aclose, H5Aopen(object, name.c_str(), H5P_DEFAULT)};
  const Closer type{H5Tclose, H5Aget_type(attr.id)};
  const Closer space{H5Sclose, H5Aget_space(attr.id)};
  const hssize_t n = std::max<hssize_t>(H5Sget_simple_extent_npoints(space.id), 0);
  switch (H5Tget_class(type.id)) {
    case H5T_STRING: {
      if (H5Tis_variable_str(type.id) > 0) {
        std::vector<char*> values(static_cast<std::size_t>(n));
        const Closer mem{H5Tclose, H5Tcopy(H5T_C_S1)};
        H5Tset_size(mem.id, H5T_VARIABLE);
        if (n > 0 && H5Aread(attr.id, mem.id, values.data()) < 0) return "";
        std::string out;
        for (std::size_t k = 0; k < values.size(); ++k)
          out += (k ? ", " : "") + std::string(values[k] != nullptr ? values[k] : "");
        if (n > 0) H5Dvlen_reclaim(mem.id, space.id, H5P_DEFAULT, values.data());
        return out;
      }
      // one fixed-length string (a file of another writer may hold others: not one of ours)
      if (n != 1) return "";
      std::string value(H5Tget_size(type.id), '\0');
      if (H5Aread(attr.id, type.id, value.data()) < 0) return "";
      return value.substr(0, value.find('\0'));
    }
    case H5T_INTEGER: {
      if (n != 1) return "";
      if (H5Tget_sign(type.id) == H5T_SGN_NONE) {
        unsigned long long v = 0;
        H5Aread(attr.id, H5T_NATIVE_ULLONG, &v);
        return fmt::format("{}", v);
      }
      long long v = 0;
      H5Aread(attr.id, H5T_NATIVE_LLONG, &v);
      return fmt::format("{}", v);
    }
    case H5T_FLOAT: {
      if (n != 1) return "";
      double v = 0;
      H5Aread(attr.id, H5T_NATIVE_DOUBLE, &v);
      return fmt::format("{:.17g}", v);
    }
    default:
      return "";
  }
}

// a scalar integer attribute; std::runtime_error naming the file when it is missing or not one
long long attribute_int(hid_t file, const std::string& path, const std::string& name) {
  const std::string text = attribute_text(file, name);
  try {
    std::size_t used = 0;
    const long long v = std::stoll(text, &used);
    if (used == text.size()) return v;
  } catch (const std::exception&) {
  }
  throw std::runtime_error(fmt::format("{}: no integer attribute '{}'", path, name));
}

struct Shard {
  std::string path;
  std::unique_ptr<Closer> file;
  long long k = 0, n = 0, first = 0, count = 0, records = 0;
};

Shard open_shard(const std::string& path) {
  Shard s;
  s.path = path;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    throw std::runtime_error(fmt::format("{}: no such file", path));
  }
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (file < 0) throw std::runtime_error(fmt::format("{}: not an HDF5 file", path));
  s.file = std::make_unique<Closer>(H5Fclose, file);
  const std::string shard = attribute_text(file, "shard");
  if (shard.empty()) {
    throw std::runtime_error(fmt::format(
        "{}: not a trajectory of `zwang run` that says which shard it is (no 'shard' attribute)",
        path));
  }
  if (std::sscanf(shard.c_str(), "%lld/%lld", &s.k, &s.n) != 2 || s.n < 1 || s.k < 0 ||
      s.k >= s.n) {
    throw std::runtime_error(fmt::format("{}: its shard attribute '{}' is not K/N", path, shard));
  }
  s.first = attribute_int(file, path, "first");
  s.count = attribute_int(file, path, "count");
  s.records = attribute_int(file, path, "records");
  const std::string status = attribute_text(file, "status");
  if (status != "complete") {
    throw std::runtime_error(
        fmt::format("{}: shard {} is not complete (status '{}' after {} records); run it again",
                    path, shard, status, s.records));
  }
  return s;
}

// every root attribute of `from` onto `to` as it is, but those in `skip`
void copy_attributes(hid_t from, hid_t to, const std::vector<std::string>& skip) {
  struct Context {
    hid_t to;
    const std::vector<std::string>* skip;
    bool failed = false;
  } context{to, &skip};
  hsize_t at = 0;
  H5Aiterate2(
      from, H5_INDEX_CRT_ORDER, H5_ITER_NATIVE, &at,
      [](hid_t object, const char* name, const H5A_info_t*, void* data) -> herr_t {
        auto* c = static_cast<Context*>(data);
        if (std::find(c->skip->begin(), c->skip->end(), name) != c->skip->end()) return 0;
        const Closer attr{H5Aclose, H5Aopen(object, name, H5P_DEFAULT)};
        const Closer type{H5Tclose, H5Aget_type(attr.id)};
        const Closer space{H5Sclose, H5Aget_space(attr.id)};
        const Closer mem{H5Tclose, H5Tget_native_type(type.id, H5T_DIR_ASCEND)};
        const hssize_t n = std::max<hssize_t>(H5Sget_simple_extent_npoints(space.id), 0);
        std::vector<unsigned char> buffer(static_cast<std::size_t>(n) * H5Tget_size(mem.id) + 1);
        const Closer out{H5Aclose,
                         H5Acreate2(c->to, name, type.id, space.id, H5P_DEFAULT, H5P_DEFAULT)};
        if (out.id < 0 || (n > 0 && (H5Aread(attr.id, mem.id, buffer.data()) < 0 ||
                                     H5Awrite(out.id, mem.id, buffer.data()) < 0))) {
          c->failed = true;
          return -1;
        }
        if (n > 0 && H5Tdetect_class(mem.id, H5T_VLEN) > 0) {
          H5Dvlen_reclaim(mem.id, space.id, H5P_DEFAULT, buffer.data());
        } else if (n > 0 && H5Tis_variable_str(mem.id) > 0) {
          H5Dvlen_reclaim(mem.id, space.id, H5P_DEFAULT, buffer.data());
        }
        return 0;
      },
      &context);
  if (context.failed) throw std::runtime_error("copying the attributes failed");
}

void write_string(hid_t object, const std::string& name, const std::string& value) {
  const Closer type{H5Tclose, H5Tcopy(H5T_C_S1)};
  H5Tset_size(type.id, std::max<std::size_t>(value.size(), 1));
  const Closer space{H5Sclose, H5Screate(H5S_SCALAR)};
  const Closer attr{H5Aclose,
                    H5Acreate2(object, name.c_str(), type.id, space.id, H5P_DEFAULT, H5P_DEFAULT)};
  if (attr.id < 0 || H5Awrite(attr.id, type.id, value.c_str()) < 0)
    throw std::runtime_error(fmt::format("writing attribute '{}' failed", name));
}

void write_int(hid_t object, const std::string& name, long long value) {
  const Closer space{H5Sclose, H5Screate(H5S_SCALAR)};
  const Closer attr{H5Aclose, H5Acreate2(object, name.c_str(), H5T_STD_I64LE, space.id, H5P_DEFAULT,
                                         H5P_DEFAULT)};
  if (attr.id < 0 || H5Awrite(attr.id, H5T_NATIVE_LLONG, &value) < 0)
    throw std::runtime_error(fmt::format("writing attribute '{}' failed", name));
}

// the names of the datasets of a group (`prefix` + name)
std::vector<std::string> datasets(hid_t group, const std::string& prefix) {
  std::vector<std::string> names;
  hsize_t n = 0;
  H5Gget_num_objs(group, &n);
  for (hsize_t k = 0; k < n; ++k) {
    char name[256];
    H5Gget_objname_by_idx(group, k, name, sizeof name);
    if (H5Gget_objtype_by_idx(group, k) == H5G_DATASET) names.push_back(prefix + name);
  }
  return names;
}

// dataset `name` of every shard into `out`, along its instance axis (1 for a series, 0 for the
// per-instance ones), record by record; a dataset the same in every shard is copied once
void join(const std::vector<const Shard*>& shards, hid_t out, const std::string& name,
          long long total) {
  const bool series = std::find(kSeries.begin(), kSeries.end(), name) != kSeries.end();
  const bool shared = std::find(kShared.begin(), kShared.end(), name) != kShared.end();
  const bool per_instance =
      name.starts_with("parameters/") ||
      std::find(kPerInstance.begin(), kPerInstance.end(), name) != kPerInstance.end();
  if (!series && !shared && !per_instance) {
    throw std::runtime_error(
        fmt::format("{}: unknown dataset '{}' (a newer zwang's file?)", shards[0]->path, name));
  }
  const Closer in0{H5Dclose, H5Dopen2(shards[0]->file->id, name.c_str(), H5P_DEFAULT)};
  const Closer type{H5Tclose, H5Dget_type(in0.id)};
  const Closer mem{H5Tclose, H5Tget_native_type(type.id, H5T_DIR_ASCEND)};
  const Closer space0{H5Sclose, H5Dget_space(in0.id)};
  const int rank = H5Sget_simple_extent_ndims(space0.id);
  std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
  H5Sget_simple_extent_dims(space0.id, dims.data(), nullptr);
  const int axis = series ? 1 : 0;
  std::vector<hsize_t> full = dims;
  if (!shared) full[axis] = static_cast<hsize_t>(total);
  const Closer fspace{H5Sclose, H5Screate_simple(rank, full.data(), nullptr)};
  const Closer dset{H5Dclose, H5Dcreate2(out, name.c_str(), type.id, fspace.id, H5P_DEFAULT,
                                         H5P_DEFAULT, H5P_DEFAULT)};
  if (dset.id < 0) throw std::runtime_error(fmt::format("creating dataset '{}' failed", name));
  const std::size_t element = H5Tget_size(mem.id);
  for (const Shard* shard : shards) {
    const Shard& s = *shard;
    const Closer in{H5Dclose, H5Dopen2(s.file->id, name.c_str(), H5P_DEFAULT)};
    if (in.id < 0) throw std::runtime_error(fmt::format("{}: no dataset '{}'", s.path, name));
    const Closer space{H5Sclose, H5Dget_space(in.id)};
    std::vector<hsize_t> have(static_cast<std::size_t>(rank));
    if (H5Sget_simple_extent_ndims(space.id) != rank) {
      throw std::runtime_error(fmt::format("{}: dataset '{}' has another shape", s.path, name));
    }
    H5Sget_simple_extent_dims(space.id, have.data(), nullptr);
    std::vector<hsize_t> want = dims;
    if (!shared) want[axis] = static_cast<hsize_t>(s.count);
    if (have != want) {
      throw std::runtime_error(fmt::format("{}: dataset '{}' has another shape", s.path, name));
    }
    if (shared) {
      if (shard != shards[0]) continue;
      std::vector<unsigned char> buffer(H5Sget_simple_extent_npoints(space.id) * element + 1);
      if (H5Dread(in.id, mem.id, H5S_ALL, H5S_ALL, H5P_DEFAULT, buffer.data()) < 0 ||
          H5Dwrite(dset.id, mem.id, H5S_ALL, H5S_ALL, H5P_DEFAULT, buffer.data()) < 0)
        throw std::runtime_error(fmt::format("{}: copying '{}' failed", s.path, name));
      continue;
    }
    // one record (a series) or the whole dataset at a time
    const hsize_t blocks = series ? have[0] : 1;
    std::vector<hsize_t> count = have, from(rank, 0), to(rank, 0);
    if (series) count[0] = 1;
    hsize_t n = 1;
    for (hsize_t c : count) n *= c;
    std::vector<unsigned char> buffer(n * element + 1);
    const Closer mspace{H5Sclose, H5Screate_simple(rank, count.data(), nullptr)};
    const Closer ospace{H5Sclose, H5Dget_space(dset.id)};
    for (hsize_t b = 0; b < blocks; ++b) {
      from[0] = to[0] = b;
      if (!series) from[0] = to[0] = 0;
      to[axis] = static_cast<hsize_t>(s.first);
      H5Sselect_hyperslab(space.id, H5S_SELECT_SET, from.data(), nullptr, count.data(), nullptr);
      H5Sselect_hyperslab(ospace.id, H5S_SELECT_SET, to.data(), nullptr, count.data(), nullptr);
      if (H5Dread(in.id, mem.id, mspace.id, space.id, H5P_DEFAULT, buffer.data()) < 0 ||
          H5Dwrite(dset.id, mem.id, mspace.id, ospace.id, H5P_DEFAULT, buffer.data()) < 0)
        throw std::runtime_error(fmt::format("{}: copying '{}' failed", s.path, name));
    }
  }
}

}  // namespace

int run_merge(const std::string& out, const std::vector<std::string>& paths, bool overwrite) {
  std::error_code ec;
  if (!overwrite && std::filesystem::exists(out, ec)) {
    throw std::invalid_argument(
        fmt::format("{}: the file exists; give --overwrite to replace it, or another file", out));
  }
  // HDF5's own messages would repeat what the errors below say
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  std::vector<Shard> shards;
  for (const std::string& p : paths) {
    if (std::filesystem::exists(out, ec) && std::filesystem::equivalent(p, out, ec)) {
      throw std::invalid_argument(fmt::format("{} is both a shard and the output", p));
    }
    shards.push_back(open_shard(p));
  }
  const Shard& a = shards.front();
  std::map<long long, const Shard*> by_index;
  for (const Shard& s : shards) {
    if (s.n != a.n) {
      throw std::runtime_error(fmt::format("{} is one of {} shards, {} one of {}: not one run",
                                           s.path, s.n, a.path, a.n));
    }
    // the backend's kind (cpu or cuda): threads and SIMD width give the CPU's bits alike
    const auto kind = [](const std::string& b) { return b.substr(0, b.find(' ')); };
    if (kind(attribute_text(s.file->id, "backend")) !=
        kind(attribute_text(a.file->id, "backend"))) {
      throw std::runtime_error(fmt::format("{} ran on {}, {} on {}: not one run", s.path,
                                           attribute_text(s.file->id, "backend"), a.path,
                                           attribute_text(a.file->id, "backend")));
    }
    for (const std::string& name : kRunAttributes) {
      const std::string mine = attribute_text(s.file->id, name);
      const std::string theirs = attribute_text(a.file->id, name);
      if (mine != theirs) {
        throw std::runtime_error(
            fmt::format("{} is not a shard of the run of {}: its {} is '{}', not '{}'", s.path,
                        a.path, name, mine, theirs));
      }
    }
    if (s.records != a.records) {
      throw std::runtime_error(
          fmt::format("{} has {} records, {} has {}", s.path, s.records, a.path, a.records));
    }
    const auto [it, fresh] = by_index.emplace(s.k, &s);
    if (!fresh) {
      throw std::runtime_error(
          fmt::format("{} and {} are both shard {}/{}", it->second->path, s.path, s.k, s.n));
    }
  }
  std::vector<std::string> missing;
  for (long long k = 0; k < a.n; ++k) {
    if (!by_index.contains(k)) missing.push_back(fmt::format("{}/{}", k, a.n));
  }
  if (!missing.empty()) {
    throw std::runtime_error(fmt::format("shard{} {} of the run missing",
                                         missing.size() > 1 ? "s" : "", fmt::join(missing, ", ")));
  }
  // in slice order, each starting where the one before ends
  std::vector<const Shard*> ordered;
  const long long total = attribute_int(a.file->id, a.path, "instances");
  long long next = 0;
  for (const auto& [k, s] : by_index) {
    ordered.push_back(s);
    if (s->first != next) {
      throw std::runtime_error(fmt::format("{}: shard {}/{} starts at instance {}, not {}", s->path,
                                           k, a.n, s->first, next));
    }
    next += s->count;
  }
  if (next != total) {
    throw std::runtime_error(fmt::format("the shards hold {} instances, the run {}", next, total));
  }

  const std::string partial = out + ".partial";
  const hid_t file = H5Fcreate(partial.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  if (file < 0) throw std::runtime_error(fmt::format("{}: cannot create it", partial));
  try {
    Closer f{H5Fclose, file};
    copy_attributes(ordered[0]->file->id, file, {"shard", "first", "count"});
    write_string(file, "shard", "0/1");
    write_int(file, "first", 0);
    write_int(file, "count", total);
    std::vector<std::string> names = datasets(ordered[0]->file->id, "");
    {
      const Closer group{H5Gclose, H5Gopen2(ordered[0]->file->id, "parameters", H5P_DEFAULT)};
      if (group.id >= 0) {
        const Closer made{H5Gclose,
                          H5Gcreate2(file, "parameters", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)};
        for (const std::string& p : datasets(group.id, "parameters/")) names.push_back(p);
      }
    }
    for (const std::string& name : names) join(ordered, file, name, total);
    f.id = -1;
    if (H5Fclose(file) < 0) throw std::runtime_error("writing the file failed");
    std::filesystem::rename(partial, out);
  } catch (const std::exception& e) {
    std::filesystem::remove(partial, ec);
    throw std::runtime_error(fmt::format("{}: {}", out, e.what()));
  }
  std::printf("%s: %lld instances from %zu shards, %lld records\n", out.c_str(), total,
              ordered.size(), a.records);
  return 0;
}

}  // namespace zwang::cli
