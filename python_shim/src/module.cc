// The zwang Python module: its exceptions, load(), cuda_status() and constants; the classes are
// bound in model.cc and simulator.cc.
#include <nanobind/stl/filesystem.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <filesystem>
#include <system_error>

#include "bindings.hpp"
#include "zwang/loaders.hpp"
#include "zwang/randomize.hpp"
#include "zwang/simulator.hpp"

namespace zwang::python {
namespace {

PyModel load(const std::filesystem::path& path, bool floating_base,
             const std::optional<std::string>& contact_margin, bool balance_inertia,
             bool fuse_static, const std::optional<std::string>& wrap_rules,
             const std::string& rules) {
  if (rules != "4.0" && rules != "2.2.2") {
    throw nb::value_error(("rules must be '4.0' or '2.2.2', not '" + rules + "'").c_str());
  }
  if (contact_margin && *contact_margin != "max" && *contact_margin != "sum") {
    throw nb::value_error(
        ("contact_margin must be 'max' or 'sum', not '" + *contact_margin + "'").c_str());
  }
  if (wrap_rules && *wrap_rules != "4.0" && *wrap_rules != "2.2.2") {
    throw nb::value_error(
        ("wrap_rules must be '4.0' or '2.2.2', not '" + *wrap_rules + "'").c_str());
  }
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    nb::object error = nb::module_::import_("builtins").attr("FileNotFoundError");
    // errno 2 (ENOENT): FileNotFoundError(errno, strerror, filename)
    PyErr_SetObject(error.ptr(),
                    nb::make_tuple(2, "No such file or directory", path.string()).ptr());
    throw nb::python_error();
  }
  LoadOptions options{.floating_base = floating_base,
                      .balance_inertia = balance_inertia,
                      .fuse_static = fuse_static,
                      .rules = rules == "2.2.2" ? Rules::kMujoco2 : Rules::kMujoco4};
  if (contact_margin) {
    options.contact_margin = *contact_margin == "sum" ? ContactMargin::kSum : ContactMargin::kMax;
  }
  if (wrap_rules) {
    options.wrap_rules = *wrap_rules == "2.2.2" ? WrapRules::kMujoco2 : WrapRules::kMujoco4;
  }
  LoadResult r = load_model(path, options);
  return PyModel{std::move(r.model), std::move(r.warnings),
                 std::filesystem::absolute(path, ec).string(),
                 LoadArguments{floating_base, balance_inertia, fuse_static, contact_margin,
                               wrap_rules, rules}};
}

// a Distribution in zwang.sweep's tuple form: 0.5, ("uniform", lo, hi), ("choice", [v, ...]),
// ("scale", ...)
nb::object distribution_tuple(const Distribution& d) {
  using Kind = Distribution::Kind;
  nb::object value;
  switch (d.kind) {
    case Kind::kUniform:
      value = nb::make_tuple("uniform", d.args[0], d.args[1]);
      break;
    case Kind::kNormal:
      value = nb::make_tuple("normal", d.args[0], d.args[1]);
      break;
    case Kind::kLogNormal:
      value = nb::make_tuple("lognormal", d.args[0], d.args[1]);
      break;
    case Kind::kChoice:
      value = nb::make_tuple("choice", nb::cast(d.args));
      break;
    default:
      value = nb::float_(d.args[0]);
  }
  return d.scale ? nb::object(nb::make_tuple("scale", value)) : value;
}

nb::tuple selection_tuple(const ParamSelection& s) {
  return nb::make_tuple(s.field, nb::tuple(nb::cast(s.index)));
}

nb::tuple param_name(const std::string& text) {
  return selection_tuple(parse_param_name(text));
}

nb::object distribution(const std::string& text) {
  return distribution_tuple(parse_distribution(text));
}

nb::list randomization(const std::string& spec) {
  nb::list out;
  for (const RandomTerm& t : parse_randomization(spec)) {
    nb::list selections;
    for (const ParamSelection& s : t.selections) selections.append(selection_tuple(s));
    out.append(nb::make_tuple(t.name, selections, distribution_tuple(t.distribution)));
  }
  return out;
}

}  // namespace

void bind_module(nb::module_& m) {
  nb::exception<ModelError>(m, "ModelError", PyExc_RuntimeError);
  // an AttributeError, so that hasattr() and getattr(sim, name, default) treat an output the
  // simulator does not keep as absent; a RuntimeError as well, as the C++ std::logic_error was
  static PyObject* not_kept = [] {
    PyObject* bases = PyTuple_Pack(2, PyExc_AttributeError, PyExc_RuntimeError);
    PyObject* type = PyErr_NewException("zwang.OutputNotKeptError", bases, nullptr);
    Py_DECREF(bases);
    return type;
  }();
  m.attr("OutputNotKeptError") = nb::borrow(not_kept);
  nb::register_exception_translator(
      [](const std::exception_ptr& p, void*) {
        try {
          std::rethrow_exception(p);
        } catch (const OutputNotKept& e) {
          PyErr_SetString(not_kept, e.what());
        }
      },
      nullptr);

  m.def(
      "cuda_status",
      []() {
        const CudaStatus c = cuda_status();
        return nb::make_tuple(c.devices, c.reason);
      },
      "(devices, reason): the CUDA devices this build of zwang can use, and why there are none "
      "when there are none (a build without CUDA, no device, no driver).");
  m.def("parse_param_name", &param_name, nb::arg("name"),
        "``'body_ipos[2, 0]'`` -> ``('body_ipos', (2, 0))``: a parameter name of "
        "zwang.PARAM_FIELDS and its index, as ``zwang run --randomize`` reads it; ValueError "
        "naming the parameters for an unknown name.");
  m.def("parse_distribution", &distribution, nb::arg("text"),
        "``'scale(uniform(0.8, 1.2))'`` -> ``('scale', ('uniform', 0.8, 1.2))``; ``'0.8:1.2'`` "
        "is the same; ``'normal(0, 1)'``, ``'lognormal(0, 1)'``, ``'choice(1, 2)'``, ``'0.5'``: "
        "the value grammar of ``zwang run --randomize``, in zwang.sweep's tuple form.");
  m.def("parse_randomization", &randomization, nb::arg("spec"),
        "``'body_mass+body_inertia=0.8:1.2, dof_damping[0]=uniform(0, 0.2)'`` -> a list of "
        "``(name, [(field, index), ...], distribution)``, one per term: the grammar of ``zwang "
        "run --randomize`` (docs/sweeps.md).");
  m.def("load", &load, nb::arg("path"), nb::arg("floating_base") = false,
        nb::arg("contact_margin") = nb::none(), nb::arg("balance_inertia") = false,
        nb::arg("fuse_static") = false, nb::arg("wrap_rules") = nb::none(),
        nb::arg("rules") = "4.0",
        "Loads a model: MJCF (MuJoCo's XML) or, for a ``.urdf`` file, URDF.\n\n"
        "``rules``: which MuJoCo the file is read as where MuJoCo 2.2.2 and 4.0 give it\n"
        "different meanings: ``'4.0'`` (the version today's files are written for) or\n"
        "``'2.2.2'``; ``contact_margin`` and ``wrap_rules`` set one rule apart from it.\n"
        "``floating_base`` (URDF only) puts a free joint between the world and the root link.\n"
        "``contact_margin``: how the margins and gaps of two geoms combine into their contact's:\n"
        "``'max'`` the larger (MuJoCo 2.2.2 to 3.4), ``'sum'`` their sum (MuJoCo 3.5 and later,\n"
        "so MuJoCo 4.0 and Gymnasium's environments on it); ``None``: by ``rules``.\n"
        "``balance_inertia`` (URDF only): a link inertia that is no rigid body's becomes the\n"
        "balanced one of MuJoCo's ``balanceinertia`` (a warning names each link), instead of\n"
        "being used as given with a warning.\n"
        "``fuse_static`` (URDF only): each link on a fixed joint merged into the link above it,\n"
        "as MuJoCo's URDF importer does (in MJCF: ``<compiler fusestatic=\"true\">``).\n"
        "``wrap_rules``: how a spatial tendon passes a sphere or cylinder that has a side site:\n"
        "``'4.0'`` as MuJoCo 4.0 (it winds about the geom as the side site does), ``'2.2.2'`` as\n"
        "MuJoCo 2.2.2; ``None``: by ``rules``.\n"
        "Raises FileNotFoundError for a missing file and zwang.ModelError (a RuntimeError) with\n"
        "the file, line and reason for a file zwang cannot read; ``Model.warnings`` lists what\n"
        "the loader ignored.");

  m.attr("JNT_FREE") = static_cast<int>(JointType::kFree);
  m.attr("JNT_BALL") = static_cast<int>(JointType::kBall);
  m.attr("JNT_SLIDE") = static_cast<int>(JointType::kSlide);
  m.attr("JNT_HINGE") = static_cast<int>(JointType::kHinge);
}

}  // namespace zwang::python

NB_MODULE(_zwang, m) {
  m.doc() =
      "zwang: thousands of instances of one rigid multibody system stepped at once, on every CPU "
      "core or a GPU.";
  zwang::python::bind_module(m);
  zwang::python::bind_model(m);
  zwang::python::bind_simulator(m);
}
