// A rollout trajectory in HDF5: datasets that grow by one record at a time, and the model's
// metadata as attributes.
//
// The file is readable whatever happens to the run: every record is flushed once written, the
// root attributes `status` ("running", "complete", "interrupted" or "failed") and `records` say
// how far it got, and a write the disk refuses leaves the file as it was after the last record.
#pragma once

#include <hdf5.h>

#include <cstdint>
#include <string>
#include <vector>

namespace zwang::cli {

class H5File {
 public:
  // created or truncated, with `status` "running" and `records` 0; std::runtime_error naming the
  // file and the OS error on failure, which leaves no file where there was none
  explicit H5File(const std::string& path);
  // closes as "failed" when close() was not called: an exception ended the run
  ~H5File();
  H5File(const H5File&) = delete;
  H5File& operator=(const H5File&) = delete;

  // A dataset of records, each `shape` (row-major), growing along its first axis.
  // `float_bytes` is 4 or 8. A record may be empty (a zero in `shape`).
  void create_series(const std::string& name, const std::vector<hsize_t>& shape, int float_bytes);
  // The same, of 32-bit integers.
  void create_int_series(const std::string& name, const std::vector<hsize_t>& shape);
  // Appends one record of the series.
  void append(const std::string& name, const double* values);
  void append(const std::string& name, const float* values);
  void append(const std::string& name, const int* values);
  // Ends a record: `records` counts it and everything written so far reaches the file.
  void end_record();
  std::int64_t records() const { return records_; }

  // A fixed dataset (row-major `shape`).
  void write(const std::string& name, const std::vector<hsize_t>& shape,
             const std::vector<double>& values);
  void write(const std::string& name, const std::vector<hsize_t>& shape,
             const std::vector<int>& values);
  void create_group(const std::string& name);
  // New values of a fixed integer dataset written before, in place (its storage exists,
  // so this needs no room on disk); they reach the file with the next end_record() or close().
  void overwrite(const std::string& name, const std::vector<int>& values);

  void attribute(const std::string& name, const std::string& value);
  void attribute(const std::string& name, double value);
  void attribute(const std::string& name, std::int64_t value);
  void attribute(const std::string& name, std::uint64_t value);
  void attribute(const std::string& name, const std::vector<std::string>& values);

  // Sets `status` ("complete", "interrupted" or "failed"), flushes and closes.
  void close(const std::string& status);

  // Every failure throws std::runtime_error naming the file, what failed and the OS error; the
  // file then holds what the last record left, with `status` "failed".

 private:
  struct Series {
    std::string name;
    std::vector<hsize_t> shape;
    hid_t dataset;
    hid_t type;
    hsize_t records;
  };
  Series& series(const std::string& name);
  void create_typed_series(const std::string& name, const std::vector<hsize_t>& shape, hid_t type);
  void append_raw(const std::string& name, const void* values, hid_t memory_type);
  void scalar_attribute(const std::string& name, hid_t file_type, hid_t memory_type,
                        const void* value);
  void write_raw(const std::string& name, const std::vector<hsize_t>& shape, hid_t file_type,
                 hid_t memory_type, const void* values);
  // everything so far onto the disk (`what` names the step for an error)
  void commit(const std::string& what);
  // Room on disk for `bytes` more and kMetadataRoom of HDF5's own past the end, made after a
  // commit: where there is none, nothing is pending and the file closes cleanly as "failed".
  void make_room(hsize_t bytes, const std::string& what);
  herr_t close_handles();
  // closes the file, marked "failed" where possible, and throws; `flushed`: nothing is pending
  [[noreturn]] void fail(const std::string& what, int error, bool flushed);

  // HDF5's metadata of one step: at most a new node at each level of each series' chunk index,
  // 27 kB measured for four series three levels deep, and object headers
  static constexpr hsize_t kMetadataRoom = 64 * 1024;

  std::string path_;
  hid_t file_ = -1;
  std::vector<Series> series_;
  hsize_t record_bytes_ = 0;  // one record of every series
  std::int64_t records_ = 0;  // records in the file as last flushed
  bool in_record_ = false;    // a record is being appended
  bool committed_ = false;    // whether a flush ever succeeded
  hsize_t flushed_end_ = 0;   // HDF5's end of the file at the last flush
};

}  // namespace zwang::cli
