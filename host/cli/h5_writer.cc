#include "host/cli/h5_writer.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>

namespace zwang::cli {
namespace {

constexpr int kHdf5Error = -1;            // a failure HDF5 reports without an OS error
constexpr std::size_t kStatusBytes = 12;  // "interrupted" and its NUL

// errno as a failed HDF5 call left it: its sec2 driver reports the failed system call there
int last_error() {
  return errno != 0 ? errno : kHdf5Error;
}

std::string error_text(int error) {
  return error == kHdf5Error ? "the HDF5 library reported an error" : std::strerror(error);
}

int descriptor(hid_t file) {
  int* fd = nullptr;
  if (H5Fget_vfd_handle(file, H5P_DEFAULT, reinterpret_cast<void**>(&fd)) < 0 || fd == nullptr)
    return -1;
  return *fd;
}

bool regular_file(int fd) {
  struct stat st;
  return fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
}

// Bytes [from, to) of the file allocated on disk: 0, or the error that says there is no room.
// Other errors mean the filesystem cannot allocate ahead, and the writes go on without it.
int allocate(int fd, hsize_t from, hsize_t to) {
  if (to <= from || !regular_file(fd)) return 0;
  int error = 0;
  do {
    error = posix_fallocate(fd, static_cast<off_t>(from), static_cast<off_t>(to - from));
  } while (error == EINTR);
  return error == EFBIG || error == ENOSPC || error == EDQUOT || error == EIO ? error : 0;
}

// Everything HDF5 holds reaches the file: 0, or the error. What HDF5 allocated since the last
// flush, which ended the file at `*flushed_end`, is allocated on disk first, so that no room
// stops the flush before it starts rather than halfway, where its first writes could point at
// metadata its later writes fail to put on disk.
int flush_to_disk(hid_t file, hsize_t* flushed_end) {
  hsize_t end = 0;
  errno = 0;
  if (H5Fget_filesize(file, &end) < 0) return last_error();
  if (const int error = allocate(descriptor(file), *flushed_end, end); error != 0) return error;
  errno = 0;
  if (H5Fflush(file, H5F_SCOPE_GLOBAL) < 0) return last_error();
  *flushed_end = end;
  return 0;
}

// HDF5 cannot drop what it holds in memory, and writing that after a failed write could leave
// the file pointing at data that never reached the disk. Its descriptor is pointed at an empty
// in-memory file instead, so that closing writes nothing to the file, which stays as last
// flushed. (Past a file-size limit even that close can fail; the program's main then keeps
// HDF5's exit handler from closing the file once more.)
void discard_writes(hid_t file) {
  const int fd = descriptor(file);
  if (fd < 0) return;
  const int scratch = memfd_create("zwang-discarded", MFD_CLOEXEC);
  if (scratch < 0) return;
  dup2(scratch, fd);
  ::close(scratch);
}

herr_t write_status(hid_t file, const std::string& status) {
  char text[kStatusBytes] = {};
  status.copy(text, kStatusBytes - 1);
  const hid_t type = H5Tcopy(H5T_C_S1);
  H5Tset_size(type, kStatusBytes);
  const hid_t space = H5Screate(H5S_SCALAR);
  const hid_t attr = H5Aexists(file, "status") > 0
                         ? H5Aopen(file, "status", H5P_DEFAULT)
                         : H5Acreate2(file, "status", type, space, H5P_DEFAULT, H5P_DEFAULT);
  const herr_t result = attr < 0 ? -1 : H5Awrite(attr, type, text);
  if (attr >= 0) H5Aclose(attr);
  H5Sclose(space);
  H5Tclose(type);
  return result;
}

// `status` and `records` are created once and then rewritten in place, which needs no room
herr_t write_records(hid_t file, std::int64_t records) {
  const hid_t space = H5Screate(H5S_SCALAR);
  const hid_t attr = H5Aexists(file, "records") > 0 ? H5Aopen(file, "records", H5P_DEFAULT)
                                                    : H5Acreate2(file, "records", H5T_STD_I64LE,
                                                                 space, H5P_DEFAULT, H5P_DEFAULT);
  const herr_t result = attr < 0 ? -1 : H5Awrite(attr, H5T_NATIVE_INT64, &records);
  if (attr >= 0) H5Aclose(attr);
  H5Sclose(space);
  return result;
}

// the file as it was last flushed, reopened with `status` "failed"; false if that fails as well
bool mark_failed(const std::string& path) {
  const hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  H5Pset_fapl_sec2(fapl);
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDWR, fapl);
  H5Pclose(fapl);
  if (file < 0) return false;
  hsize_t flushed_end = 0;
  const bool written = write_status(file, "failed") >= 0 && flush_to_disk(file, &flushed_end) == 0;
  if (!written) discard_writes(file);
  return H5Fclose(file) >= 0 && written;
}

}  // namespace

H5File::H5File(const std::string& path) : path_(path) {
  std::error_code ignored;
  if (std::filesystem::is_directory(path, ignored))
    throw std::runtime_error(path + ": is a directory");
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);  // errors become exceptions, not stderr dumps
  // new space always at the end of the file, never in space freed earlier: what a record adds
  // then lies past everything the previous flush left (see make_room)
  const hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
  H5Pset_file_space_strategy(fcpl, H5F_FSPACE_STRATEGY_NONE, false, 1);
  const hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  H5Pset_fapl_sec2(fapl);  // a file descriptor, for allocate and discard_writes
  const bool existed = std::filesystem::exists(path, ignored);
  errno = 0;
  file_ = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, fcpl, fapl);
  const int error = last_error();
  H5Pclose(fapl);
  H5Pclose(fcpl);
  if (file_ < 0) {
    // HDF5 may have created the file before the write that failed (a full disk): not left empty
    if (!existed && std::filesystem::is_regular_file(path, ignored)) {
      std::filesystem::remove(path, ignored);
    }
    throw std::runtime_error(fmt::format("{}: cannot create: {}", path, error_text(error)));
  }
  if (write_status(file_, "running") < 0 || write_records(file_, 0) < 0)
    fail("creating the file", kHdf5Error, false);
  commit("creating the file");
}

H5File::~H5File() {
  if (file_ < 0) return;
  try {
    close("failed");
  } catch (const std::exception&) {
    // the destructor runs while an exception unwinds, which the caller reports
  }
}

herr_t H5File::close_handles() {
  // room made but not used goes (below the end, HDF5 has allocated all of it)
  const int fd = descriptor(file_);
  if (committed_ && regular_file(fd))
    static_cast<void>(ftruncate(fd, static_cast<off_t>(flushed_end_)));
  for (Series& s : series_) H5Dclose(s.dataset);
  series_.clear();
  const herr_t closed = H5Fclose(file_);
  file_ = -1;
  return closed;
}

void H5File::fail(const std::string& what, int error, bool flushed) {
  // after a flush (room refused) nothing is pending and the file closes as it is, marked
  // "failed"; otherwise what HDF5 holds is dropped and the file as last flushed is reopened
  bool marked = flushed && write_status(file_, "failed") >= 0 &&
                flush_to_disk(file_, &flushed_end_) == 0 && close_handles() >= 0;
  if (!marked) {
    if (file_ >= 0) {
      discard_writes(file_);
      for (Series& s : series_) H5Dclose(s.dataset);
      series_.clear();
      H5Fclose(file_);
      file_ = -1;
    }
    marked = committed_ && mark_failed(path_);
  }
  std::string kept = "nothing was written";
  std::error_code ignored;
  if (committed_) {
    const std::string records = records_ == 0 ? "holds no record"
                                              : fmt::format("keeps the {} record{} written before",
                                                            records_, records_ == 1 ? "" : "s");
    kept = fmt::format("the file {}, with status \"{}\"", records, marked ? "failed" : "running");
  } else if (std::filesystem::is_regular_file(path_, ignored)) {
    std::filesystem::remove(path_, ignored);
  }
  throw std::runtime_error(
      fmt::format("{}: {} failed: {}; {}", path_, what, error_text(error), kept));
}

void H5File::commit(const std::string& what) {
  const int error = flush_to_disk(file_, &flushed_end_);
  if (error != 0) fail(what, error, false);
  committed_ = true;
}

void H5File::make_room(hsize_t bytes, const std::string& what) {
  commit(what);
  const int error = allocate(descriptor(file_), flushed_end_, flushed_end_ + bytes + kMetadataRoom);
  if (error != 0) fail(what, error, true);
}

void H5File::close(const std::string& status) {
  if (file_ < 0) throw std::logic_error("H5File: closed twice");
  if (write_status(file_, status) < 0) fail("writing the status", kHdf5Error, false);
  commit("closing the file");
  errno = 0;
  const herr_t closed = close_handles();
  if (closed < 0) {
    throw std::runtime_error(
        fmt::format("{}: closing failed: {}", path_, error_text(last_error())));
  }
}

void H5File::create_series(const std::string& name, const std::vector<hsize_t>& shape,
                           int float_bytes) {
  create_typed_series(name, shape, float_bytes == 4 ? H5T_IEEE_F32LE : H5T_IEEE_F64LE);
}

void H5File::create_int_series(const std::string& name, const std::vector<hsize_t>& shape) {
  create_typed_series(name, shape, H5T_STD_I32LE);
}

void H5File::create_typed_series(const std::string& name, const std::vector<hsize_t>& shape,
                                 hid_t type) {
  make_room(0, fmt::format("creating '{}'", name));
  // an empty axis (ctrl without actuators) may grow too, as a chunk cannot be empty
  std::vector<hsize_t> dims{0}, max{H5S_UNLIMITED}, chunk{1};
  hsize_t bytes = H5Tget_size(type);
  for (hsize_t d : shape) {
    dims.push_back(d);
    max.push_back(d == 0 ? H5S_UNLIMITED : d);
    chunk.push_back(d == 0 ? 1 : d);
    bytes *= d;
  }
  const hid_t space = H5Screate_simple(static_cast<int>(dims.size()), dims.data(), max.data());
  const hid_t props = H5Pcreate(H5P_DATASET_CREATE);
  H5Pset_chunk(props, static_cast<int>(chunk.size()), chunk.data());
  // no chunk cache: a record goes to the file as it is appended, into the room made for it,
  // rather than when the cache is flushed
  const hid_t access = H5Pcreate(H5P_DATASET_ACCESS);
  H5Pset_chunk_cache(access, H5D_CHUNK_CACHE_NSLOTS_DEFAULT, 0, H5D_CHUNK_CACHE_W0_DEFAULT);
  errno = 0;
  const hid_t dataset = H5Dcreate2(file_, name.c_str(), type, space, H5P_DEFAULT, props, access);
  const int error = last_error();
  H5Pclose(access);
  H5Pclose(props);
  H5Sclose(space);
  if (dataset < 0) fail(fmt::format("creating '{}'", name), error, false);
  series_.push_back({name, shape, dataset, type, 0});
  record_bytes_ += bytes;
}

H5File::Series& H5File::series(const std::string& name) {
  for (Series& s : series_) {
    if (s.name == name) return s;
  }
  throw std::logic_error("no series " + name);
}

void H5File::append_raw(const std::string& name, const void* values, hid_t memory_type) {
  if (!in_record_) make_room(record_bytes_, fmt::format("writing record {}", records_));
  in_record_ = true;
  Series& s = series(name);
  std::vector<hsize_t> dims{s.records + 1}, start{s.records}, count{1};
  for (hsize_t d : s.shape) {
    dims.push_back(d);
    start.push_back(0);
    count.push_back(d);
  }
  errno = 0;
  herr_t status = H5Dset_extent(s.dataset, dims.data());
  int error = last_error();
  const bool empty = std::find(s.shape.begin(), s.shape.end(), 0) != s.shape.end();
  if (status >= 0 && !empty) {
    const hid_t file_space = H5Dget_space(s.dataset);
    H5Sselect_hyperslab(file_space, H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr);
    const hid_t memory_space =
        H5Screate_simple(static_cast<int>(count.size()), count.data(), nullptr);
    errno = 0;
    status = H5Dwrite(s.dataset, memory_type, memory_space, file_space, H5P_DEFAULT, values);
    error = last_error();
    H5Sclose(memory_space);
    H5Sclose(file_space);
  }
  if (status < 0) fail(fmt::format("writing record {} of '{}'", s.records, name), error, false);
  ++s.records;
}

void H5File::append(const std::string& name, const double* values) {
  append_raw(name, values, H5T_NATIVE_DOUBLE);
}
void H5File::append(const std::string& name, const float* values) {
  append_raw(name, values, H5T_NATIVE_FLOAT);
}
void H5File::append(const std::string& name, const int* values) {
  append_raw(name, values, H5T_NATIVE_INT);
}

void H5File::end_record() {
  if (write_records(file_, records_ + 1) < 0)
    fail(fmt::format("writing record {}", records_), kHdf5Error, false);
  commit(fmt::format("writing record {}", records_));
  ++records_;
  in_record_ = false;
}

void H5File::create_group(const std::string& name) {
  make_room(0, fmt::format("creating group '{}'", name));
  errno = 0;
  const hid_t group = H5Gcreate2(file_, name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (group < 0) fail(fmt::format("creating group '{}'", name), last_error(), false);
  H5Gclose(group);
}

void H5File::write_raw(const std::string& name, const std::vector<hsize_t>& shape, hid_t file_type,
                       hid_t memory_type, const void* values) {
  hsize_t bytes = H5Tget_size(file_type);
  for (hsize_t d : shape) bytes *= d;
  make_room(bytes, fmt::format("writing '{}'", name));
  const hid_t space = H5Screate_simple(static_cast<int>(shape.size()), shape.data(), nullptr);
  errno = 0;
  const hid_t dataset =
      H5Dcreate2(file_, name.c_str(), file_type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  herr_t status =
      dataset < 0 ? -1 : H5Dwrite(dataset, memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values);
  const int error = last_error();
  if (dataset >= 0) H5Dclose(dataset);
  H5Sclose(space);
  if (status < 0) fail(fmt::format("writing '{}'", name), error, false);
}

void H5File::overwrite(const std::string& name, const std::vector<int>& values) {
  errno = 0;
  const hid_t dataset = H5Dopen2(file_, name.c_str(), H5P_DEFAULT);
  const hid_t space = dataset < 0 ? -1 : H5Dget_space(dataset);
  const bool fits =
      space >= 0 && H5Sget_simple_extent_npoints(space) == static_cast<hssize_t>(values.size());
  const herr_t status =
      fits ? H5Dwrite(dataset, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) : -1;
  const int error = last_error();
  if (space >= 0) H5Sclose(space);
  if (dataset >= 0) H5Dclose(dataset);
  if (status < 0) fail(fmt::format("rewriting '{}'", name), error, false);
}

void H5File::write(const std::string& name, const std::vector<hsize_t>& shape,
                   const std::vector<double>& values) {
  write_raw(name, shape, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, values.data());
}

void H5File::write(const std::string& name, const std::vector<hsize_t>& shape,
                   const std::vector<int>& values) {
  write_raw(name, shape, H5T_STD_I32LE, H5T_NATIVE_INT, values.data());
}

void H5File::attribute(const std::string& name, const std::string& value) {
  make_room(value.size(), fmt::format("writing attribute '{}'", name));
  const hid_t type = H5Tcopy(H5T_C_S1);
  H5Tset_size(type, value.empty() ? 1 : value.size());
  const hid_t space = H5Screate(H5S_SCALAR);
  errno = 0;
  const hid_t attr = H5Acreate2(file_, name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT);
  const herr_t status = attr < 0 ? -1 : H5Awrite(attr, type, value.empty() ? "" : value.c_str());
  const int error = last_error();
  if (attr >= 0) H5Aclose(attr);
  H5Sclose(space);
  H5Tclose(type);
  if (status < 0) fail(fmt::format("writing attribute '{}'", name), error, false);
}

void H5File::scalar_attribute(const std::string& name, hid_t file_type, hid_t memory_type,
                              const void* value) {
  make_room(H5Tget_size(file_type), fmt::format("writing attribute '{}'", name));
  const hid_t space = H5Screate(H5S_SCALAR);
  errno = 0;
  const hid_t attr = H5Acreate2(file_, name.c_str(), file_type, space, H5P_DEFAULT, H5P_DEFAULT);
  H5Sclose(space);
  const herr_t status = attr < 0 ? -1 : H5Awrite(attr, memory_type, value);
  const int error = last_error();
  if (attr >= 0) H5Aclose(attr);
  if (status < 0) fail(fmt::format("writing attribute '{}'", name), error, false);
}

void H5File::attribute(const std::string& name, double value) {
  scalar_attribute(name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &value);
}

void H5File::attribute(const std::string& name, std::int64_t value) {
  scalar_attribute(name, H5T_STD_I64LE, H5T_NATIVE_INT64, &value);
}

void H5File::attribute(const std::string& name, std::uint64_t value) {
  scalar_attribute(name, H5T_STD_U64LE, H5T_NATIVE_UINT64, &value);
}

void H5File::attribute(const std::string& name, const std::vector<std::string>& values) {
  std::vector<const char*> pointers;
  hsize_t bytes = 0;
  for (const std::string& v : values) {
    pointers.push_back(v.c_str());
    bytes += v.size() + 16;  // and its global-heap object header
  }
  make_room(bytes, fmt::format("writing attribute '{}'", name));
  const hid_t type = H5Tcopy(H5T_C_S1);
  H5Tset_size(type, H5T_VARIABLE);
  const hsize_t n = values.size();
  const hid_t space = n == 0 ? H5Screate(H5S_NULL) : H5Screate_simple(1, &n, nullptr);
  errno = 0;
  const hid_t attr = H5Acreate2(file_, name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT);
  const herr_t status = attr < 0 ? -1 : n == 0 ? 0 : H5Awrite(attr, type, pointers.data());
  const int error = last_error();
  if (attr >= 0) H5Aclose(attr);
  H5Sclose(space);
  H5Tclose(type);
  if (status < 0) fail(fmt::format("writing attribute '{}'", name), error, false);
}

}  // namespace zwang::cli
