// A rollout trajectory in HDF5: datasets that grow by one record at a time, and the model's
// metadata as attributes.
#pragma once

#include <hdf5.h>

#include <cstdint>
#include <string>
#include <vector>

namespace zwang::cli {

class H5File {
 public:
  explicit H5File(const std::string& path);  // created or truncated; std::runtime_error on failure
  ~H5File();
  H5File(const H5File&) = delete;
  H5File& operator=(const H5File&) = delete;

  // \brief A dataset of records, each `shape` (row-major), growing along its first axis.
  // `float_bytes` is 4 or 8.
  void create_series(const std::string& name, const std::vector<hsize_t>& shape, int float_bytes);
  // \brief Appends one record of the series.
  void append(const std::string& name, const double* values);
  void append(const std::string& name, const float* values);

  // \brief A fixed dataset (row-major `shape`).
  void write(const std::string& name, const std::vector<hsize_t>& shape,
             const std::vector<double>& values);
  void write(const std::string& name, const std::vector<hsize_t>& shape,
             const std::vector<int>& values);
  void create_group(const std::string& name);

  void attribute(const std::string& name, const std::string& value);
  void attribute(const std::string& name, double value);
  void attribute(const std::string& name, std::int64_t value);
  void attribute(const std::string& name, const std::vector<std::string>& values);

 private:
  struct Series {
    std::string name;
    std::vector<hsize_t> shape;
    hid_t dataset;
    hid_t type;
    hsize_t records;
  };
  Series& series(const std::string& name);
  void append_raw(const std::string& name, const void* values, hid_t memory_type);
  void scalar_attribute(const std::string& name, hid_t file_type, hid_t memory_type,
                        const void* value);
  void write_raw(const std::string& name, const std::vector<hsize_t>& shape, hid_t file_type,
                 hid_t memory_type, const void* values);
  hid_t file_;
  std::vector<Series> series_;
};

}  // namespace zwang::cli
