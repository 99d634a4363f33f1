// Simulator: the batch's fields as writable NumPy views without copies (views.hpp), the derived
// quantities of MuJoCo's mjData as copies, and the calls that step, evaluate and reset
// instances. Every view holds a reference to the Simulator, which outlives it.
#include "zwang/simulator.hpp"

#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "bindings.hpp"
#include "field_docs.h"
#include "kernels/layout.h"
#include "kernels/math_chol.h"
#include "kernels/status.h"
#include "views.hpp"
#include "zwang/derivatives.hpp"
#include "zwang/derived.hpp"
#include "zwang/randomize.hpp"

namespace zwang::python {
namespace {

using namespace nb::literals;

// the scalar of a Simulator<T>
template <class S>
struct ScalarOf;
template <class T>
struct ScalarOf<Simulator<T>> {
  using type = T;
};
#define ZW_SCALAR(sim) typename ScalarOf<std::remove_reference_t<decltype(sim)>>::type

// ---------------------------------------------------------------------------------------------
// the simulator, in either precision

// the fields a Python `outputs` list asks for: data fields by name, and the quantities computed
// from them (cinert, cvel, ..., mass_matrix) by theirs; None: every output
std::optional<std::vector<FieldId>> output_fields(nb::handle outputs) {
  if (outputs.is_none()) return std::nullopt;
  if (nb::isinstance<nb::str>(outputs) || !nb::hasattr(outputs, "__iter__")) {
    throw std::invalid_argument("outputs must be None or a list of field names (got " +
                                nb::cast<std::string>(nb::repr(outputs)) + ")");
  }
  std::vector<FieldId> out;
  for (nb::handle item : outputs) {
    if (!nb::isinstance<nb::str>(item)) {
      throw std::invalid_argument("outputs: expected field names, got " +
                                  nb::cast<std::string>(nb::repr(item)));
    }
    const std::string name = nb::cast<std::string>(item);
    const auto derived = std::find_if(std::begin(kAllDerived), std::end(kAllDerived),
                                      [&](Derived d) { return name == derived_name(d); });
    if (derived != std::end(kAllDerived)) {
      for (const FieldId f : derived_fields(*derived)) out.push_back(f);
    } else if (name == "mass_matrix") {
      out.push_back(FieldId::qM);
    } else if (name == "bias") {
      out.push_back(FieldId::qfrc_bias);
    } else {
      try {
        out.push_back(field_id(name));
      } catch (const std::invalid_argument&) {
        throw std::invalid_argument("outputs: no field or derived quantity is named '" + name +
                                    "'");
      }
    }
  }
  return out;
}

// SimulatorOptions::cuda_group from 'auto' or 1, 16, 32
CudaGroup cuda_group_of(nb::handle value) {
  if (nb::isinstance<nb::str>(value) && nb::cast<std::string>(value) == "auto") {
    return CudaGroup::kAuto;
  }
  if (nb::isinstance<nb::int_>(value) && !nb::isinstance<nb::bool_>(value)) {
    switch (nb::cast<long long>(value)) {
      case 1:
        return CudaGroup::kOne;
      case 16:
        return CudaGroup::k16;
      case 32:
        return CudaGroup::k32;
      default:
        break;
    }
  }
  throw std::invalid_argument("cuda_group must be 'auto', 1, 16 or 32 (got " +
                              nb::cast<std::string>(nb::repr(value)) + ")");
}

class PySimulator {
 public:
  PySimulator(const PyModel& model, std::int64_t instances, const std::string& backend,
              const std::string& precision, int threads, const std::string& cpu_simd,
              nb::handle outputs, nb::handle cuda_group, int device)
      : model_(model), precision_(precision), threads_(threads) {
    SimulatorOptions options;
    if (device < 0) {
      throw std::invalid_argument("device must be a CUDA device ordinal >= 0 (got " +
                                  std::to_string(device) + ")");
    }
    options.device = device;
    options.outputs = output_fields(outputs);
    options.cuda_group = cuda_group_of(cuda_group);
    if (backend == "cpu") {
      options.backend = Backend::kCpu;
    } else if (backend == "cuda") {
      options.backend = Backend::kCuda;
    } else if (backend == "auto") {
      options.backend = Backend::kAuto;
    } else {
      throw std::invalid_argument("backend must be 'cpu', 'cuda' or 'auto' (got '" + backend +
                                  "')");
    }
    options.threads = threads;
    if (cpu_simd == "auto") {
      options.cpu_simd = CpuSimd::kAuto;
    } else if (cpu_simd == "scalar") {
      options.cpu_simd = CpuSimd::kScalar;
    } else if (cpu_simd == "avx2") {
      options.cpu_simd = CpuSimd::kAvx2;
    } else if (cpu_simd == "avx512") {
      options.cpu_simd = CpuSimd::kAvx512;
    } else {
      throw std::invalid_argument("cpu_simd must be 'auto', 'scalar', 'avx2' or 'avx512' (got '" +
                                  cpu_simd + "')");
    }
    if (precision == "f64") {
      sim_ = std::make_unique<Simulator<double>>(model_.model, instances, options);
    } else if (precision == "f32") {
      sim_ = std::make_unique<Simulator<float>>(model_.model, instances, options);
    } else {
      throw std::invalid_argument("precision must be 'f64' or 'f32' (got '" + precision + "')");
    }
  }

  template <class F>
  decltype(auto) visit(F&& f) {
    return std::visit([&](auto& s) -> decltype(auto) { return f(*s); }, sim_);
  }

  const PyModel& model() const { return model_; }
  const std::string& precision() const { return precision_; }
  std::int64_t instances() {
    return visit([](auto& s) { return s.size(); });
  }
  std::mutex& mutex() { return mutex_; }
  int threads() const { return threads_; }

 private:
  PyModel model_;
  std::string precision_;
  int threads_;
  std::variant<std::unique_ptr<Simulator<double>>, std::unique_ptr<Simulator<float>>> sim_;
  std::mutex mutex_;  // one call into the simulator at a time
};

PySimulator& sim_of(nb::handle self) {
  return nb::cast<PySimulator&>(self);
}

nb::object field_view(nb::handle owner, PySimulator& s, const FieldInfo& f) {
  // under the simulator's lock: step() runs without the GIL, and on CUDA the accessor may
  // download the field and changes the residency's flags
  std::lock_guard<std::mutex> lock(s.mutex());
  return s.visit([&](auto& sim) {
    using T = ZW_SCALAR(sim);
    auto& b = sim.batch();
    // through the batch's accessor: with the CUDA backend it downloads the field if the device
    // is newer and marks it changed, since the view may be written
    const FieldRef<T> field = b.field(field_id(f.name));
    const std::vector<std::size_t> shape = per_instance_shape(f.name, b.sizes());
    return strided_view(owner, field.data(), nb::dtype<T>(), b.size(), b.padded_size(), shape);
  });
}

// a (k,) or (n, k) float64 array from a Python value, one row per listed instance; ValueError
// naming the argument and the shape otherwise, or the instance of a non-finite row
std::vector<double> rows_for(nb::handle value, const char* name, int k,
                             const std::vector<std::int64_t>& instances) {
  nb::module_ np = nb::module_::import_("numpy");
  nb::object a = np.attr("ascontiguousarray")(value, "dtype"_a = np.attr("float64"));
  const nb::tuple shape = nb::cast<nb::tuple>(a.attr("shape"));
  const std::size_t n = instances.size();
  const std::string got = nb::cast<std::string>(nb::str(shape));
  const bool one = shape.size() == 1 && nb::cast<std::size_t>(shape[0]) == std::size_t(k);
  const bool each = shape.size() == 2 && nb::cast<std::size_t>(shape[0]) == n &&
                    nb::cast<std::size_t>(shape[1]) == std::size_t(k);
  if (!one && !each) {
    throw std::invalid_argument("reset: " + std::string(name) + " has shape " + got +
                                ", expected (" + std::to_string(k) + ",) or (" + std::to_string(n) +
                                ", " + std::to_string(k) + ")");
  }
  const auto flat =
      nb::cast<nb::ndarray<const double, nb::c_contig, nb::device::cpu>>(a.attr("reshape")(-1));
  std::vector<double> out(n * k);
  for (std::size_t r = 0; r < n; ++r) {
    for (int j = 0; j < k; ++j) {
      const double v = flat.data()[(one ? 0 : r) * k + j];
      if (!std::isfinite(v)) {
        throw std::invalid_argument("reset: " + std::string(name) + " of instance " +
                                    std::to_string(instances[r]) + " is not finite");
      }
      out[r * k + j] = v;
    }
  }
  return out;
}

std::vector<std::int64_t> instance_list(PySimulator& s, nb::handle instances) {
  const std::int64_t n = s.instances();
  std::vector<std::int64_t> out;
  if (instances.is_none()) {
    for (std::int64_t i = 0; i < n; ++i) out.push_back(i);
    return out;
  }
  nb::module_ np = nb::module_::import_("numpy");
  nb::object a = np.attr("asarray")(instances);
  const std::string kind = nb::cast<std::string>(a.attr("dtype").attr("kind"));
  if (kind != "i" && kind != "u" && nb::cast<std::size_t>(a.attr("size")) > 0) {
    throw std::invalid_argument("reset: instances must be integers (got dtype " +
                                nb::cast<std::string>(a.attr("dtype").attr("name")) + ")");
  }
  nb::object flat = np.attr("ravel")(a).attr("astype")(np.attr("int64"));
  for (nb::handle v : flat) {
    const std::int64_t i = nb::cast<std::int64_t>(v);
    if (i < 0 || i >= n) {
      throw std::out_of_range("reset: instance " + std::to_string(i) + " is not in [0, " +
                              std::to_string(n) + ")");
    }
    out.push_back(i);
  }
  return out;
}

// the index of the keyframe a Python value names: a name (KeyError if none has it) or an index
// (IndexError outside [0, nkey))
int keyframe_of(const Model& m, nb::handle keyframe) {
  if (nb::isinstance<nb::str>(keyframe)) {
    const std::string name = nb::cast<std::string>(keyframe);
    const int k = m.id(ObjType::kKey, name);
    if (k < 0) throw nb::key_error(("reset: no keyframe named '" + name + "'").c_str());
    return k;
  }
  if (!nb::isinstance<nb::int_>(keyframe)) {
    throw std::invalid_argument("reset: keyframe must be a name or an index");
  }
  const std::int64_t k = nb::cast<std::int64_t>(keyframe);
  if (k < 0 || k >= m.nkey) {
    throw std::out_of_range("reset: keyframe " + std::to_string(k) + " is not in [0, " +
                            std::to_string(m.nkey) + ")");
  }
  return static_cast<int>(k);
}

void reset(PySimulator& s, nb::handle instances, nb::handle qpos, nb::handle qvel,
           nb::handle keyframe, nb::handle act) {
  const std::vector<std::int64_t> list = instance_list(s, instances);
  const Model& m = s.model().model;
  const int key = keyframe.is_none() ? -1 : keyframe_of(m, keyframe);
  const std::vector<double> q =
      qpos.is_none() ? std::vector<double>{} : rows_for(qpos, "qpos", m.nq, list);
  const std::vector<double> v =
      qvel.is_none() ? std::vector<double>{} : rows_for(qvel, "qvel", m.nv, list);
  const std::vector<double> a =
      act.is_none() ? std::vector<double>{} : rows_for(act, "act", m.na, list);
  std::lock_guard<std::mutex> lock(s.mutex());
  s.visit([&](auto& sim) {
    using T = ZW_SCALAR(sim);
    if (key >= 0) {
      sim.reset_keyframe(list, key);
    } else {
      sim.reset(list);
    }
    auto& b = sim.batch();
    const auto write = [&](auto field, const std::vector<double>& values, int k) {
      if (values.empty() || k == 0) return;
      const bool one = values.size() == static_cast<std::size_t>(k);
      for (std::size_t r = 0; r < list.size(); ++r) {
        for (int j = 0; j < k; ++j)
          field(list[r], j) = static_cast<T>(values[(one ? 0 : r) * k + j]);
      }
    };
    write(b.qpos(), q, m.nq);
    write(b.qvel(), v, m.nv);
    write(b.act(), a, m.na);
  });
}

nb::object derived_array(PySimulator& s, Derived what) {
  const Model& m = s.model().model;
  const auto count = static_cast<std::size_t>(derived_count(m, what));
  const auto width = static_cast<std::size_t>(derived_width(what));
  std::lock_guard<std::mutex> lock(s.mutex());
  return s.visit([&](auto& sim) {
    using T = ZW_SCALAR(sim);
    std::vector<T> out(static_cast<std::size_t>(sim.size()) * count * width);
    derive<T>(m, sim.batch(), what, out, s.threads());
    return owned(std::move(out), {static_cast<std::size_t>(sim.size()), count, width});
  });
}

// the device copy of a field as an ndarray on the CUDA device, which Python sees through the
// DLPack protocol; the owner keeps the simulator alive
nb::object device_field(nb::handle self, const std::string& name) {
  PySimulator& s = sim_of(self);
  std::lock_guard<std::mutex> lock(s.mutex());
  return s.visit([&](auto& sim) {
    const FieldId id = field_id(name);
    if (sim.device_fields().empty()) {
      throw std::runtime_error("device_field('" + name + "'): the " + sim.backend() +
                               " backend has no device copy (use backend='cuda')");
    }
    sim.upload_host_edits();
    sim.synchronize();
    const DeviceField f = sim.device_field(id);
    std::vector<std::size_t> shape(f.shape.begin(), f.shape.end());
    // the per-instance shape of the NumPy view, (N, nbody, 3) rather than (N, 3 nbody)
    if (id != FieldId::time && id != FieldId::status) {
      const auto& b = std::as_const(sim.batch());
      const std::vector<std::size_t> per = per_instance_shape(name, b.sizes());
      shape.assign(1, static_cast<std::size_t>(sim.size()));
      shape.insert(shape.end(), per.begin(), per.end());
    }
    std::vector<std::int64_t> strides{1};
    std::int64_t step = f.shape.size() > 1 ? f.strides[1] : 1;
    std::vector<std::int64_t> tail(shape.size() - 1);
    for (std::size_t k = tail.size(); k-- > 0;) {
      tail[k] = step;
      step *= static_cast<std::int64_t>(shape[k + 1]);
    }
    strides.insert(strides.end(), tail.begin(), tail.end());
    const nb::dlpack::dtype dtype = f.dtype == DeviceField::DType::kFloat32   ? nb::dtype<float>()
                                    : f.dtype == DeviceField::DType::kFloat64 ? nb::dtype<double>()
                                                                              : nb::dtype<int>();
    return nb::cast(nb::ndarray<>(f.data, shape.size(), shape.data(), self, strides.data(), dtype,
                                  nb::device::cuda::value, f.device),
                    nb::rv_policy::automatic);
  });
}

nb::object mass_matrix(PySimulator& s) {
  std::lock_guard<std::mutex> lock(s.mutex());
  return s.visit([&](auto& sim) {
    using T = ZW_SCALAR(sim);
    auto& b = sim.batch();
    const std::int64_t n = b.size();
    const int nv = s.model().model.nv;
    if (!b.kept(FieldId::qM)) {
      throw OutputNotKept(
          "mass_matrix() reads qM, which this simulator does not keep current: list "
          "'mass_matrix' in its outputs when creating it");
    }
    const auto qm = std::as_const(b).qM();
    std::vector<T> out(static_cast<std::size_t>(n) * nv * nv);
    // H_rc = H_cr = qM[r (r + 1) / 2 + c], c <= r
    for (std::int64_t i = 0; i < n; ++i) {
      T* h = out.data() + i * nv * nv;
      for (int r = 0; r < nv; ++r) {
        for (int c = 0; c <= r; ++c) h[r * nv + c] = h[c * nv + r] = qm(i, packed_index(r, c));
      }
    }
    return owned(std::move(out), {static_cast<std::size_t>(n), static_cast<std::size_t>(nv),
                                  static_cast<std::size_t>(nv)});
  });
}

StepJacobians jacobians_of(PySimulator& s, const std::vector<std::int64_t>& list,
                           const std::vector<FieldId>& params, int steps) {
  nb::gil_scoped_release release;
  std::lock_guard<std::mutex> lock(s.mutex());
  return s.visit([&](auto& sim) {
    return step_jacobians(s.model().model, std::as_const(sim.batch()), list, s.threads(), params,
                          steps);
  });
}

// a parameter field by its name; `who` and the valid names in the error
FieldId param_field(const std::string& name, const std::string& who) {
  std::string names;
  for (const FieldInfo& f : kParamFields) {
    if (name == f.name) return field_id(name);
    names += (names.empty() ? "" : ", ") + std::string(f.name);
  }
  throw std::invalid_argument(who + ": '" + name + "' is not a parameter (" + names + ")");
}

// a parameter field's values per instance
int param_size(const Model& m, FieldId f) {
  int size = 1;
  for (int d : field_shape(f, m.sizes())) size *= d;
  return size;
}

nb::dict step_jacobians_of(PySimulator& s, nb::handle instances,
                           const std::vector<std::string>& params, int steps) {
  std::vector<FieldId> fields;
  for (const std::string& name : params) fields.push_back(param_field(name, "step_jacobians"));
  const std::vector<std::int64_t> list = instance_list(s, instances);
  StepJacobians j = jacobians_of(s, list, fields, steps);
  const Model& m = s.model().model;
  const auto z = [](auto n) { return static_cast<std::size_t>(n); };
  const std::size_t k = list.size(), nx = z(j.nx), nu = z(j.nu), ns = z(j.nsensordata);
  const std::size_t np = z(j.np);
  nb::dict out;
  out["A"] = owned(std::move(j.A), {k, nx, nx});
  out["B"] = owned(std::move(j.B), {k, nx, nu});
  out["C"] = owned(std::move(j.C), {k, ns, nx});
  out["D"] = owned(std::move(j.D), {k, ns, nu});
  out["E"] = owned(std::move(j.E), {k, nx, np});
  out["F"] = owned(std::move(j.F), {k, ns, np});
  out["qpos"] = owned(std::move(j.qpos), {k, z(m.nq)});
  out["qvel"] = owned(std::move(j.qvel), {k, z(m.nv)});
  out["act"] = owned(std::move(j.act), {k, z(m.na)});
  out["sensordata"] = owned(std::move(j.sensordata), {k, z(m.nsensordata)});
  out["status"] = owned(std::move(j.status), {k});
  return out;
}

// the rows (of) and columns (wrt) of [A B E; C D F] that name, as (first, count): x's qpos
// tangent, qvel and act, then ctrl past x's columns, then the parameters of `params` (in its
// order) past ctrl's; sensordata past x's rows
std::pair<int, int> block(const Model& m, const std::string& name, bool column,
                          const std::vector<FieldId>& params) {
  const int nv = m.nv, nx = 2 * m.nv + m.na;
  if (name == "qpos") return {0, nv};
  if (name == "qvel") return {nv, nv};
  if (name == "act") return {2 * nv, m.na};
  if (column && name == "ctrl") return {nx, m.nu};
  if (column && name.starts_with("params.")) {
    const FieldId f = param_field(name.substr(7), "derivatives");
    int first = nx + m.nu;
    for (FieldId p : params) {
      if (p == f) return {first, param_size(m, f)};
      first += param_size(m, p);
    }
  }
  if (!column && name == "sensordata") return {nx, m.nsensordata};
  throw std::invalid_argument(
      "derivatives: " + std::string(column ? "wrt" : "of") + " names " +
      (column ? "'qpos', 'qvel', 'act', 'ctrl' and 'params.NAME' (a parameter field)"
              : "'qpos', 'qvel', 'act' and 'sensordata'") +
      ", not '" + name + "'");
}

nb::object derivatives(PySimulator& s, const std::vector<std::string>& wrt,
                       const std::vector<std::string>& of, nb::handle instances, int steps) {
  if (steps < 1) {
    throw std::invalid_argument("derivatives: steps is " + std::to_string(steps) +
                                ", not 1 or more");
  }
  const Model& m = s.model().model;
  // the parameter fields among wrt, each once
  std::vector<FieldId> params;
  for (const auto& name : wrt) {
    if (!name.starts_with("params.")) continue;
    const FieldId f = param_field(name.substr(7), "derivatives");
    if (std::find(params.begin(), params.end(), f) == params.end()) params.push_back(f);
  }
  std::vector<std::pair<int, int>> rows, cols;
  int nrow = 0, ncol = 0;
  for (const auto& name : of) nrow += rows.emplace_back(block(m, name, false, params)).second;
  for (const auto& name : wrt) ncol += cols.emplace_back(block(m, name, true, params)).second;
  const std::vector<std::int64_t> list = instance_list(s, instances);
  const StepJacobians j = jacobians_of(s, list, params, steps);
  const int nx = j.nx, nu = j.nu, ns = j.nsensordata, np = j.np;
  // entry (r, c) of [A B E; C D F] of instance i
  const auto entry = [&](std::size_t i, int r, int c) {
    if (c >= nx + nu) {
      const int p = c - nx - nu;
      return r < nx ? j.E[(i * nx + r) * np + p] : j.F[(i * ns + r - nx) * np + p];
    }
    if (r < nx) return c < nx ? j.A[(i * nx + r) * nx + c] : j.B[(i * nx + r) * nu + c - nx];
    return c < nx ? j.C[(i * ns + r - nx) * nx + c] : j.D[(i * ns + r - nx) * nu + c - nx];
  };
  std::vector<double> out(list.size() * nrow * ncol);
  for (std::size_t i = 0; i < list.size(); ++i) {
    double* o = out.data() + i * nrow * ncol;
    int r0 = 0;
    for (const auto& [rfirst, rcount] : rows) {
      for (int r = 0; r < rcount; ++r, ++r0) {
        int c0 = 0;
        for (const auto& [cfirst, ccount] : cols) {
          for (int c = 0; c < ccount; ++c, ++c0)
            o[r0 * ncol + c0] = entry(i, rfirst + r, cfirst + c);
        }
      }
    }
  }
  return owned(std::move(out),
               {list.size(), static_cast<std::size_t>(nrow), static_cast<std::size_t>(ncol)});
}

// the per-instance parameters of a simulator, as attributes
struct Params {
  nb::object sim;
};

// a docstring that lives as long as the module
const char* keep(std::string doc) {
  static std::deque<std::string> docs;
  return docs.emplace_back(std::move(doc)).c_str();
}

std::string field_doc(const char* name, bool param) {
  std::string doc = "(";
  doc += param ? "parameter" : "batch field";
  doc += ", writable view, no copy) ";
  for (const auto& [n, d] : kFieldDocs) {
    if (std::string_view(n) == name) doc += d;
  }
  return doc;
}

}  // namespace

void bind_simulator(nb::module_& m) {
  nb::class_<InstanceFailure>(m, "InstanceFailure", "An instance that stopped, and why.")
      .def_ro("instance", &InstanceFailure::instance, "index of the instance")
      .def_ro("status", &InstanceFailure::status, "StatusBit flags (zwang.STATUS_*)")
      .def_ro("detail", &InstanceFailure::detail,
              "the cause beyond the flags (the contradicting hard constraints), or ''")
      .def_prop_ro("message", &InstanceFailure::message, "what the flags mean, in words")
      .def("__repr__",
           [](const InstanceFailure& f) { return "<zwang.InstanceFailure " + f.message() + ">"; });

  m.attr("STATUS_BAD_STATE") = static_cast<int>(kStatusBadState);
  m.attr("STATUS_FACTORIZATION") = static_cast<int>(kStatusFactorization);
  m.attr("STATUS_DIVERGED") = static_cast<int>(kStatusDiverged);
  m.attr("STATUS_BAD_PARAMETERS") = static_cast<int>(kStatusBadParameters);
  m.attr("STATUS_NOT_CONVERGED") = static_cast<int>(kStatusNotConverged);
  m.attr("STATUS_CONTACT_OVERFLOW") = static_cast<int>(kStatusContactOverflow);
  m.attr("STATUS_HARD_CONFLICT") = static_cast<int>(kStatusHardConflict);

  nb::list data_fields, param_fields;
  for (const FieldInfo& f : kDataFields) {
    if (!hidden(f.name)) data_fields.append(f.name);
  }
  for (const FieldInfo& f : kParamFields) param_fields.append(f.name);
  m.attr("DATA_FIELDS") = nb::tuple(data_fields);
  m.attr("PARAM_FIELDS") = nb::tuple(param_fields);

  nb::class_<Params> params(
      m, "Params",
      "The per-instance parameters of a Simulator as writable NumPy views without copies, "
      "shape (instances, ...) as the fields of the Simulator. A write changes the next step.");
  for (const FieldInfo& f : kParamFields) {
    params.def_prop_rw(
        f.name,
        [&f](nb::handle self) {
          const Params& p = nb::cast<const Params&>(self);
          return field_view(p.sim, sim_of(p.sim), f);
        },
        [&f](nb::handle self, nb::handle value) {
          const Params& p = nb::cast<const Params&>(self);
          nb::object view = field_view(p.sim, sim_of(p.sim), f);
          view[nb::ellipsis()] = value;
        },
        keep(field_doc(f.name, true)));
  }

  nb::class_<PySimulator> sim(
      m, "Simulator", nb::is_weak_referenceable(),
      "N instances of one model, stepped together on the CPU (OpenMP) or a GPU.\n\n"
      "State, outputs and parameters are NumPy views of the batch without copies, shape\n"
      "(instances, ...): a write through a view changes what the next step() or forward()\n"
      "reads. Each view keeps the Simulator alive. With the CUDA backend the device holds the\n"
      "state: reading an attribute downloads that field (if a call changed it) into the host\n"
      "mirror and returns a view of it, and the next call uploads it (it may have been\n"
      "written). Such a view is valid until the next step(), forward() or reset(): read the\n"
      "attribute again after one.\n\n"
      "After step(), the outputs (qacc, xpos, cfrc_ext, ...) and the derived quantities\n"
      "(cinert, cvel, ximat, site_xpos, site_xmat, fused_*) hold the state of the step's last\n"
      "evaluation, as MuJoCo's mj_step leaves its mjData: under Euler, the state before the\n"
      "step; under RK4, its last stage x0 + h k3. sensordata holds the sensors of the state\n"
      "the step started from, as mj_step leaves MuJoCo's (its first evaluation). forward()\n"
      "recomputes all of them at the current state.");
  sim.def(nb::init<const PyModel&, std::int64_t, const std::string&, const std::string&, int,
                   const std::string&, nb::handle, nb::handle, int>(),
          nb::arg("model"), nb::arg("instances") = 1, nb::arg("backend") = "cpu",
          nb::arg("precision") = "f64", nb::arg("threads") = 0, nb::arg("cpu_simd") = "auto",
          nb::arg("outputs").none() = nb::none(), nb::arg("cuda_group").none() = "auto",
          nb::arg("device") = 0,
          "``instances`` copies of ``model`` at its default state. ``backend``: 'cpu', 'cuda' or "
          "'auto' (CUDA when a device exists); ``precision``: 'f64' or 'f32'; ``threads``: CPU "
          "threads, 0 for every core; ``cpu_simd``: 'auto' (packs of instances in the widest "
          "SIMD registers this CPU has), 'scalar' (one instance at a time), 'avx2' or 'avx512' "
          "(bit-identical results either way); ``outputs``: None (every output current after "
          "each call, as MuJoCo's mjData) or the outputs to keep current, by name: data fields "
          "('qacc', 'xpos', 'cfrc_ext', 'sensordata', ...) and derived quantities ('cinert', "
          "'cvel', 'ximat', 'site_xpos', 'site_xmat', 'fused_xpos', ..., 'mass_matrix', 'bias'). "
          "qpos, qvel, act, the "
          "inputs, time and status are always current; reading another output raises "
          "zwang.OutputNotKeptError (an AttributeError and a RuntimeError). With SIMD packs, fewer "
          "outputs make step(1) calls cheaper (docs/backends.md, "
          "'Outputs'). ``cuda_group``: lanes per instance on the GPU, 'auto' (one thread per "
          "instance for now), 1, 16 or 32 (a lane group of a warp per instance, for batches of a "
          "few thousand; docs/backends.md, 'Lane groups'); the CPU backend ignores it. "
          "``device``: the CUDA device (ordinal) the simulator's state and kernels are on, "
          "RuntimeError naming the devices there are when it does not exist; one process per "
          "GPU (torchrun, mpiexec) gives each its own. The CPU backend ignores it. "
          "ValueError for a bad argument or an instruction set this CPU lacks, "
          "RuntimeError when CUDA is asked for and cannot be used.")
      .def_prop_ro(
          "model", [](nb::handle self) -> const PyModel& { return sim_of(self).model(); },
          nb::rv_policy::reference_internal, "the model (read-only)")
      .def_prop_ro("instances", &PySimulator::instances, "number of instances N")
      .def_prop_ro(
          "outputs",
          [](PySimulator& s) {
            return s.visit([](auto& x) {
              std::vector<std::string> names;
              for (const FieldId f : x.batch().outputs()) names.emplace_back(field_name(f));
              return names;
            });
          },
          "names of the output fields kept current (every one unless ``outputs`` was given)")
      .def_prop_ro(
          "parameters_exposed",
          [](PySimulator& s) {
            std::lock_guard<std::mutex> lock(s.mutex());
            return s.visit([](auto& x) { return x.batch().parameters_exposed(); });
          },
          "whether a writable view of the parameters (``params``) was ever handed out; until then "
          "every instance holds the model's values, and the CPU backends skip the per-call check "
          "of the parameters")
      .def_prop_ro("precision", &PySimulator::precision, "'f64' or 'f32'")
      .def_prop_ro(
          "dtype",
          [](nb::handle self) {
            return nb::module_::import_("numpy").attr(
                sim_of(self).precision() == "f64" ? "float64" : "float32");
          },
          "NumPy dtype of the views")
      .def_prop_ro(
          "backend", [](PySimulator& s) { return s.visit([](auto& x) { return x.backend(); }); },
          "the backend in words, e.g. 'cpu (2 threads)'")
      .def_prop_ro(
          "nq", [](PySimulator& s) { return s.model().model.nq; }, "model.nq")
      .def_prop_ro(
          "nv", [](PySimulator& s) { return s.model().model.nv; }, "model.nv")
      .def_prop_ro(
          "nu", [](PySimulator& s) { return s.model().model.nu; }, "model.nu")
      .def_prop_ro(
          "nbody", [](PySimulator& s) { return s.model().model.nbody; }, "model.nbody")
      .def_prop_ro(
          "nsite", [](PySimulator& s) { return s.model().model.nsite; }, "model.nsite")
      .def_prop_ro(
          "nfused", [](PySimulator& s) { return s.model().model.nfused; }, "model.nfused")
      .def(
          "step",
          [](PySimulator& s, int n) {
            std::lock_guard<std::mutex> lock(s.mutex());
            s.visit([&](auto& x) { x.step(n); });
          },
          nb::arg("n") = 1, nb::call_guard<nb::gil_scoped_release>(),
          "n steps of the model's integrator for every instance whose status is clear. The GIL "
          "is released meanwhile. An instance that fails gets a status bit and keeps its state "
          "from before the failing step (see failures()).")
      .def(
          "forward",
          [](PySimulator& s) {
            std::lock_guard<std::mutex> lock(s.mutex());
            s.visit([](auto& x) { x.forward(); });
          },
          nb::call_guard<nb::gil_scoped_release>(),
          "Recomputes the outputs (mass matrix, forces, contacts, qacc, kinematics, cfrc_ext; "
          "those kept, see ``outputs``) at the current state and time of every instance, without "
          "advancing it. The GIL is released meanwhile.")
      .def(
          "randomize",
          [](PySimulator& s, const std::string& spec, std::uint64_t seed, std::int64_t first) {
            if (first < 0) throw nb::value_error("randomize: first must be at least 0");
            const std::vector<RandomTerm> terms = parse_randomization(spec);
            std::lock_guard<std::mutex> lock(s.mutex());
            s.visit([&](auto& sim) { randomize(sim.batch(), terms, seed, first); });
          },
          nb::arg("spec"), nb::arg("seed") = 0, nb::arg("first") = 0,
          "Draws parameters for every instance as ``zwang run --randomize SPEC --seed SEED`` "
          "does, the same values: ``sim.randomize('body_mass+body_inertia=0.8:1.2, "
          "dof_damping[0]=uniform(0, 0.2)', seed=7)`` (grammar: docs/sweeps.md). Each term draws "
          "from a generator of its own, seeded by ``seed`` and the term's name. ValueError naming "
          "the term at fault (an unknown name, an index past the parameter's shape); nothing is "
          "drawn then. ``first``: these instances are instances first, first + 1, ... of a "
          "larger batch (a chunk of a sweep, a shard of a run) and draw what those draw there.")
      .def("reset", &reset, nb::arg("instances") = nb::none(), nb::arg("qpos") = nb::none(),
           nb::arg("qvel") = nb::none(), nb::arg("keyframe") = nb::none(),
           nb::arg("act") = nb::none(),
           "Puts instances (None: all; an int or a sequence of ints) back to the model's default "
           "state: qpos0, zero qvel and ctrl, the mocap bodies at their model poses, outputs "
           "cleared, time 0, status cleared (parameters are kept); with ``keyframe`` (a name or "
           "an index of Model.key_names) to that keyframe instead: its time, qpos, qvel, ctrl, "
           "act and mocap poses, as MuJoCo's mj_resetDataKeyframe. Then sets qpos, qvel and act "
           "where given, each (nq,) for every listed instance or (k, nq) one row per listed "
           "instance (nv for qvel, na for act: the activations, zero otherwise). ValueError for a "
           "wrong shape or a non-finite value (naming the "
           "instance), IndexError for an instance or keyframe index out of range, KeyError for "
           "an unknown keyframe name; nothing changes then.")
      .def("device_field", &device_field, nb::arg("name"),
           "The device copy of a field (CUDA backend): an array that implements __dlpack__ and\n"
           "__dlpack_device__, so that torch.from_dlpack(sim.device_field('qpos')), cupy or\n"
           "jax.dlpack share the device memory without a copy. Shape (N, ...) as the NumPy\n"
           "view, strides (1, padded N) elements, dtype of the precision; 'time' is float64,\n"
           "'status' int32. Pending host edits are uploaded and zwang's stream is synchronised\n"
           "first, so the values are those of the last call; the memory stays valid for the\n"
           "simulator's lifetime. After writing through it, call mark_device_written(name)\n"
           "before the next host read of it or the next step(), forward() or reset() (a host\n"
           "read marks the field changed on the host, and the next call would upload the host\n"
           "copy over the device's), and finish the writes (e.g. torch.cuda.synchronize())\n"
           "before that call, or enqueue them on cuda_stream, where the call's work follows\n"
           "them. RuntimeError on the CPU backend.")
      .def(
          "mark_device_written",
          [](PySimulator& s, const std::string& name) {
            std::lock_guard<std::mutex> lock(s.mutex());
            s.visit([&](auto& x) { x.mark_device_written(field_id(name)); });
          },
          nb::arg("name"),
          "Tells the simulator that the device copy of a field was written by other code: the "
          "host view then downloads it when read (CUDA backend; nothing on the CPU).")
      .def(
          "synchronize",
          [](PySimulator& s) {
            std::lock_guard<std::mutex> lock(s.mutex());
            s.visit([](auto& x) { x.synchronize(); });
          },
          nb::call_guard<nb::gil_scoped_release>(),
          "Waits for the work enqueued on the device (CUDA: step() and forward() return once "
          "enqueued); nothing on the CPU.")
      .def_prop_ro(
          "cuda_stream",
          [](PySimulator& s) {
            return reinterpret_cast<std::uintptr_t>(
                s.visit([](auto& x) { return x.cuda_stream(); }));
          },
          "the cudaStream_t of the CUDA backend's work, as an integer (0 on the CPU)")
      .def(
          "failures",
          [](PySimulator& s) {
            std::lock_guard<std::mutex> lock(s.mutex());
            return s.visit([](auto& x) { return x.failures(); });
          },
          "Every instance with a status bit set, in increasing order, as InstanceFailure "
          "(instance, status, message).")
      .def("step_jacobians", &step_jacobians_of, nb::arg("instances") = nb::none(),
           nb::arg("params") = std::vector<std::string>{}, nb::arg("steps") = 1,
           "The Jacobians of one step from each listed instance's current state (None: every "
           "instance), exact to rounding (the step run on dual numbers), in MuJoCo's "
           "mjd_transitionFD layout: x = (qpos tangent, qvel, act), nx = 2 nv + na, a ball or "
           "free joint's rotation perturbed as q ⊗ exp(δ / 2); a dict of A = ∂x⁺/∂x (k, nx, "
           "nx), B = ∂x⁺/∂ctrl (k, nx, nu), C = ∂sensordata/∂x (k, nsensordata, nx), D = "
           "∂sensordata/∂ctrl, E = ∂x⁺/∂p (k, nx, np) and F = ∂sensordata/∂p (k, nsensordata, "
           "np) for the parameter fields `params` names (every element of each, in that order: "
           "'body_mass', 'dof_damping', ...; the model's own derived constants, such as the "
           "constraints' invweight0, held fixed as the step holds them), the step's results "
           "qpos, qvel, act and sensordata (for an f64 simulator the values step() would give), "
           "and status (where a stop bit is set, before or by the step, that instance's blocks "
           "are NaN). steps=k: the Jacobians of k steps, the controls held, x⁺ the state after "
           "the last and sensordata as the last evaluates it (NaN blocks where any step stops "
           "the instance). The simulator is not changed. In float64, also for an f32 simulator. "
           "The GIL is released meanwhile. ValueError for a name that is not a parameter field, "
           "one listed twice, or steps < 1.")
      .def("derivatives", &derivatives,
           nb::arg("wrt") = std::vector<std::string>{"qpos", "qvel", "act", "ctrl"},
           nb::arg("of") = std::vector<std::string>{"qpos", "qvel", "act", "sensordata"},
           nb::arg("instances") = nb::none(), nb::arg("steps") = 1,
           "The Jacobian of one step (of `steps` steps, the controls held), (k, rows, columns): "
           "rows the outputs `of` names in its "
           "order ('qpos' as nv tangent coordinates, 'qvel', 'act', 'sensordata'), columns the "
           "inputs `wrt` names ('qpos' tangent, 'qvel', 'act', 'ctrl', and 'params.NAME': every "
           "element of a parameter field, as in Simulator.params); the blocks of "
           "step_jacobians() arranged. ValueError for another name, or steps < 1.")
      .def("mass_matrix", &mass_matrix,
           "The joint-space mass matrix H (armature included) of every instance, dense and "
           "symmetric, (N, nv, nv): a copy, from the packed lower triangle the last forward() or "
           "step() computed.")
      .def(
          "bias",
          [](nb::handle self) {
            nb::object view = field_view(self, sim_of(self), data_field("qfrc_bias"));
            return view.attr("copy")();
          },
          "qfrc_bias (Coriolis, centrifugal and gravity forces, MuJoCo's), (N, nv): a copy.")
      .def_prop_ro(
          "params", [](nb::handle self) { return Params{nb::borrow(self)}; },
          "the per-instance parameters (Params): body_mass, body_inertia, dof_damping, ...")
      .def_prop_rw(
          "time",
          [](nb::handle self) {
            PySimulator& s = sim_of(self);
            std::lock_guard<std::mutex> lock(s.mutex());
            return s.visit([&](auto& x) {
              return strided_view(self, x.batch().time().data(), nb::dtype<double>(), x.size(), 1,
                                  {});
            });
          },
          [](nb::handle self, nb::handle value) {
            nb::object view = self.attr("time");
            view[nb::ellipsis()] = value;
          },
          "simulated time of each instance (N,), float64 (s); writable view")
      .def_prop_ro(
          "status",
          [](nb::handle self) {
            PySimulator& s = sim_of(self);
            std::lock_guard<std::mutex> lock(s.mutex());
            return s.visit([&](auto& x) {
              return strided_view(self, x.batch().status().data(), nb::dtype<int>(), x.size(), 1,
                                  {});
            });
          },
          "StatusBit flags of each instance (N,), int32 (zwang.STATUS_*); writable view: 0 "
          "lets a stopped instance go on");

  for (const FieldInfo& f : kDataFields) {
    if (hidden(f.name)) continue;
    sim.def_prop_rw(
        f.name, [&f](nb::handle self) { return field_view(self, sim_of(self), f); },
        [&f](nb::handle self, nb::handle value) {
          nb::object view = field_view(self, sim_of(self), f);
          view[nb::ellipsis()] = value;
        },
        keep(field_doc(f.name, false)));
  }

  const char* derived_docs[] = {
      "(copy) orientation of each body's principal axes of inertia, row-major (N, nbody, 9): "
      "columns in decreasing principal moment, right-handed; MuJoCo's ximat up to the signs of "
      "two columns, and up to a rotation about an axis where two moments are equal",
      "(copy) MuJoCo's cinert (N, nbody, 10): inertia about the subtree centre of mass of the "
      "body's root, world axes, Ixx Iyy Izz Ixy Ixz Iyz, then m (xipos - c) and m",
      "(copy) MuJoCo's cvel (N, nbody, 6): angular velocity, then the linear velocity of the "
      "body point at the subtree centre of mass of the body's root, world axes",
      "(copy) site positions, world (N, nsite, 3)",
      "(copy) site orientations, row-major (N, nsite, 9)",
      "(copy) frame origins of the bodies merged at load (Model.fused_names), world (N, nfused, "
      "3): MuJoCo's xpos of those bodies in a model loaded without merging",
      "(copy) frame orientations of the merged bodies, w x y z (N, nfused, 4): MuJoCo's xquat",
      "(copy) frame orientations of the merged bodies, row-major (N, nfused, 9): MuJoCo's xmat",
      "(copy) centres of mass of the merged bodies, world (N, nfused, 3): MuJoCo's xipos",
      "(copy) velocities of the merged bodies' frames, world axes (N, nfused, 6): angular "
      "velocity, then the linear velocity of the frame origin (MuJoCo's mj_objectVelocity of "
      "the body, unmerged, as an mjOBJ_XBODY, world axes)"};
  static_assert(std::size(derived_docs) == std::size(kAllDerived));
  for (std::size_t k = 0; k < std::size(kAllDerived); ++k) {
    const Derived what = kAllDerived[k];
    sim.def_prop_ro(
        derived_name(what), [what](PySimulator& s) { return derived_array(s, what); },
        keep(std::string(derived_docs[k]) +
             ". Computed from the kinematics of the last evaluation (see the class docstring)."));
  }
}

}  // namespace zwang::python
