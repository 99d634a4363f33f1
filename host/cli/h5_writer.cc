#include "h5_writer.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace zwang::cli {
namespace {

void check(herr_t status, const char* what, const std::string& name) {
  if (status < 0) throw std::runtime_error(fmt::format("HDF5: {} '{}' failed", what, name));
}

hid_t check_id(hid_t id, const char* what, const std::string& name) {
  if (id < 0) throw std::runtime_error(fmt::format("HDF5: {} '{}' failed", what, name));
  return id;
}

}  // namespace

H5File::H5File(const std::string& path) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);  // errors become exceptions, not stderr dumps
  file_ = check_id(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT),
                   "creating file", path);
}

H5File::~H5File() {
  for (Series& s : series_) H5Dclose(s.dataset);
  H5Fclose(file_);
}

void H5File::create_series(const std::string& name, const std::vector<hsize_t>& shape,
                           int float_bytes) {
  std::vector<hsize_t> dims{0}, max{H5S_UNLIMITED}, chunk{1};
  for (hsize_t d : shape) {
    dims.push_back(d);
    max.push_back(d);
    chunk.push_back(d == 0 ? 1 : d);
  }
  const hid_t space = check_id(
      H5Screate_simple(static_cast<int>(dims.size()), dims.data(), max.data()), "dataspace", name);
  const hid_t props = H5Pcreate(H5P_DATASET_CREATE);
  H5Pset_chunk(props, static_cast<int>(chunk.size()), chunk.data());
  const hid_t type = float_bytes == 4 ? H5T_IEEE_F32LE : H5T_IEEE_F64LE;
  const hid_t dataset =
      check_id(H5Dcreate2(file_, name.c_str(), type, space, H5P_DEFAULT, props, H5P_DEFAULT),
               "creating dataset", name);
  H5Pclose(props);
  H5Sclose(space);
  series_.push_back({name, shape, dataset, type, 0});
}

H5File::Series& H5File::series(const std::string& name) {
  for (Series& s : series_) {
    if (s.name == name) return s;
  }
  throw std::logic_error("no series " + name);
}

void H5File::append_raw(const std::string& name, const void* values, hid_t memory_type) {
  Series& s = series(name);
  std::vector<hsize_t> dims{s.records + 1}, start{s.records}, count{1};
  for (hsize_t d : s.shape) {
    dims.push_back(d);
    start.push_back(0);
    count.push_back(d);
  }
  check(H5Dset_extent(s.dataset, dims.data()), "extending", name);
  const hid_t file_space = H5Dget_space(s.dataset);
  H5Sselect_hyperslab(file_space, H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr);
  const hid_t memory_space =
      H5Screate_simple(static_cast<int>(count.size()), count.data(), nullptr);
  const herr_t status =
      H5Dwrite(s.dataset, memory_type, memory_space, file_space, H5P_DEFAULT, values);
  H5Sclose(memory_space);
  H5Sclose(file_space);
  check(status, "writing", name);
  ++s.records;
}

void H5File::append(const std::string& name, const double* values) {
  append_raw(name, values, H5T_NATIVE_DOUBLE);
}
void H5File::append(const std::string& name, const float* values) {
  append_raw(name, values, H5T_NATIVE_FLOAT);
}

void H5File::create_group(const std::string& name) {
  H5Gclose(check_id(H5Gcreate2(file_, name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                    "creating group", name));
}

void H5File::write_raw(const std::string& name, const std::vector<hsize_t>& shape, hid_t file_type,
                       hid_t memory_type, const void* values) {
  const hid_t space = H5Screate_simple(static_cast<int>(shape.size()), shape.data(), nullptr);
  const hid_t dataset = check_id(
      H5Dcreate2(file_, name.c_str(), file_type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
      "creating dataset", name);
  const herr_t status = H5Dwrite(dataset, memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values);
  H5Dclose(dataset);
  H5Sclose(space);
  check(status, "writing", name);
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
  const hid_t type = H5Tcopy(H5T_C_S1);
  H5Tset_size(type, value.empty() ? 1 : value.size());
  const hid_t space = H5Screate(H5S_SCALAR);
  const hid_t attr = check_id(
      H5Acreate2(file_, name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT), "attribute", name);
  const herr_t status = H5Awrite(attr, type, value.empty() ? "" : value.c_str());
  H5Aclose(attr);
  H5Sclose(space);
  H5Tclose(type);
  check(status, "writing attribute", name);
}

void H5File::scalar_attribute(const std::string& name, hid_t file_type, hid_t memory_type,
                              const void* value) {
  const hid_t space = H5Screate(H5S_SCALAR);
  const hid_t attr =
      check_id(H5Acreate2(file_, name.c_str(), file_type, space, H5P_DEFAULT, H5P_DEFAULT),
               "attribute", name);
  const herr_t status = H5Awrite(attr, memory_type, value);
  H5Aclose(attr);
  H5Sclose(space);
  check(status, "writing attribute", name);
}

void H5File::attribute(const std::string& name, double value) {
  scalar_attribute(name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &value);
}

void H5File::attribute(const std::string& name, std::int64_t value) {
  scalar_attribute(name, H5T_STD_I64LE, H5T_NATIVE_INT64, &value);
}

void H5File::attribute(const std::string& name, const std::vector<std::string>& values) {
  std::vector<const char*> pointers;
  for (const std::string& v : values) pointers.push_back(v.c_str());
  const hid_t type = H5Tcopy(H5T_C_S1);
  H5Tset_size(type, H5T_VARIABLE);
  const hsize_t n = values.size();
  const hid_t space = n == 0 ? H5Screate(H5S_NULL) : H5Screate_simple(1, &n, nullptr);
  const hid_t attr = check_id(
      H5Acreate2(file_, name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT), "attribute", name);
  const herr_t status = n == 0 ? 0 : H5Awrite(attr, type, pointers.data());
  H5Aclose(attr);
  H5Sclose(space);
  H5Tclose(type);
  check(status, "writing attribute", name);
}

}  // namespace zwang::cli
