#include "cli_common.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "zwang/examples.hpp"

namespace zwang::cli {

OpenedModel open_model(const std::string& spec, bool floating_base) {
  const std::vector<std::string> names = examples::names();
  if (std::find(names.begin(), names.end(), spec) != names.end()) {
    if (floating_base) throw ModelError("--floating-base applies to URDF files only");
    return {examples::by_name(spec), "built-in example " + spec, {}};
  }
  if (!std::filesystem::exists(spec)) {
    throw ModelError(fmt::format("{}: no such file, and not a built-in example ({})", spec,
                                 fmt::join(names, ", ")));
  }
  LoadResult r = load_model(spec, {.floating_base = floating_base});
  return {std::move(r.model), spec, std::move(r.warnings)};
}

std::vector<std::string> randomize_parameters() {
  return {"mass", "inertia", "damping", "armature", "stiffness", "gain", "gear", "gravity"};
}

std::vector<RandomizeTerm> parse_randomize(const std::string& spec) {
  std::vector<RandomizeTerm> terms;
  if (spec.empty()) return terms;
  const std::vector<std::string> known = randomize_parameters();
  std::stringstream in(spec);
  std::string item;
  while (std::getline(in, item, ',')) {
    const auto eq = item.find('='), colon = item.find(':');
    if (eq == std::string::npos || colon == std::string::npos || colon < eq) {
      throw std::invalid_argument(fmt::format("--randomize: '{}' is not NAME=LOW:HIGH", item));
    }
    RandomizeTerm t{item.substr(0, eq)};
    if (std::find(known.begin(), known.end(), t.parameter) == known.end()) {
      throw std::invalid_argument(fmt::format("--randomize: unknown parameter '{}' (known: {})",
                                              t.parameter, fmt::join(known, ", ")));
    }
    try {
      std::size_t used_low = 0, used_high = 0;
      const std::string low = item.substr(eq + 1, colon - eq - 1), high = item.substr(colon + 1);
      t.low = std::stod(low, &used_low);
      t.high = std::stod(high, &used_high);
      if (used_low != low.size() || used_high != high.size())
        throw std::invalid_argument("trailing characters");
    } catch (const std::logic_error&) {
      throw std::invalid_argument(
          fmt::format("--randomize: '{}' needs two numbers LOW:HIGH", item));
    }
    if (!(t.low <= t.high) || !(t.low >= 0) || !std::isfinite(t.high)) {
      throw std::invalid_argument(fmt::format("--randomize: '{}' needs 0 <= LOW <= HIGH", item));
    }
    terms.push_back(t);
  }
  return terms;
}

namespace {

// multiplies every element of `field` of every instance by its own factor; `group` elements
// share one factor (a body's mass and its six inertia values, an actuator's gain and bias)
template <class T>
void scale(FieldRef<T> field, int group, double low, double high, std::mt19937_64& rng,
           std::vector<std::vector<double>>* factors = nullptr) {
  std::uniform_real_distribution<double> u(low, high);
  const int n = field.width() / group;
  for (std::int64_t i = 0; i < field.instances(); ++i) {
    for (int e = 0; e < n; ++e) {
      const double f = factors ? (*factors)[i][e] : u(rng);
      for (int k = 0; k < group; ++k)
        field(i, e * group + k) = static_cast<T>(field(i, e * group + k) * f);
    }
  }
}

}  // namespace

template <class T>
void apply_randomize(Simulator<T>& sim, const std::vector<RandomizeTerm>& terms,
                     std::mt19937_64& rng) {
  Batch<T>& b = sim.batch();
  for (const RandomizeTerm& t : terms) {
    if (t.parameter == "mass") {
      // mass and inertia scale together: the same body, denser
      std::uniform_real_distribution<double> u(t.low, t.high);
      std::vector<std::vector<double>> factors(b.size(), std::vector<double>(sim.model().nbody));
      for (auto& row : factors) {
        for (double& f : row) f = u(rng);
      }
      scale(b.body_mass(), 1, t.low, t.high, rng, &factors);
      scale(b.body_inertia(), 6, t.low, t.high, rng, &factors);
    } else if (t.parameter == "inertia") {
      scale(b.body_inertia(), 6, t.low, t.high, rng);
    } else if (t.parameter == "damping") {
      scale(b.dof_damping(), 1, t.low, t.high, rng);
    } else if (t.parameter == "armature") {
      scale(b.dof_armature(), 1, t.low, t.high, rng);
    } else if (t.parameter == "stiffness") {
      scale(b.jnt_stiffness(), 1, t.low, t.high, rng);
    } else if (t.parameter == "gain") {
      std::uniform_real_distribution<double> u(t.low, t.high);
      std::vector<std::vector<double>> factors(b.size(), std::vector<double>(sim.model().nu));
      for (auto& row : factors) {
        for (double& f : row) f = u(rng);
      }
      scale(b.actuator_gainprm(), 1, t.low, t.high, rng, &factors);
      scale(b.actuator_biasprm(), 3, t.low, t.high, rng, &factors);
    } else if (t.parameter == "gear") {
      scale(b.actuator_gear(), 1, t.low, t.high, rng);
    } else if (t.parameter == "gravity") {
      scale(b.gravity(), 3, t.low, t.high, rng);
    }
  }
}

template <class T>
void scatter_initial_state(Simulator<T>& sim, double noise, std::mt19937_64& rng) {
  for (std::int64_t i = 0; i < sim.size(); ++i) {
    const std::vector<double> q = examples::perturbed_qpos0(sim.model(), noise, rng);
    sim.batch().qpos().set(i, std::vector<T>(q.begin(), q.end()));
  }
}

namespace {

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
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(json_text);
  } catch (const nlohmann::json::exception& e) {
    throw std::invalid_argument(fmt::format("states: not valid JSON: {}", e.what()));
  }
  if (!doc.is_object())
    throw std::invalid_argument("states: expected an object with \"qpos\" and \"qvel\"");
  States s;
  s.qpos = rows(doc, "qpos", model.nq, 0, false);
  if (s.qpos.empty()) throw std::invalid_argument("states: \"qpos\" holds no state");
  s.qvel = rows(doc, "qvel", model.nv, s.qpos.size(), false);
  s.ctrl = rows(doc, "ctrl", model.nu, s.qpos.size(), true);
  return s;
}

template <class T>
std::string dynamics_json(const Model& model, const States& states) {
  const std::int64_t n = static_cast<std::int64_t>(states.qpos.size());
  Simulator<T> sim(model, n);
  Batch<T>& b = sim.batch();
  for (std::int64_t i = 0; i < n; ++i) {
    b.qpos().set(i, std::vector<T>(states.qpos[i].begin(), states.qpos[i].end()));
    b.qvel().set(i, std::vector<T>(states.qvel[i].begin(), states.qvel[i].end()));
    if (!states.ctrl.empty())
      b.ctrl().set(i, std::vector<T>(states.ctrl[i].begin(), states.ctrl[i].end()));
  }
  sim.forward();
  const std::vector<InstanceFailure> failures = sim.failures();
  if (!failures.empty()) {
    throw std::runtime_error(fmt::format("state {}: {}", failures.front().instance,
                                         describe_status(failures.front().status)));
  }
  const int nv = model.nv;
  nlohmann::json out{{"nq", model.nq}, {"nv", nv}};
  nlohmann::json mass = nlohmann::json::array(), bias = nlohmann::json::array(),
                 qacc = nlohmann::json::array();
  for (std::int64_t i = 0; i < n; ++i) {
    std::vector<double> dense(static_cast<std::size_t>(nv) * nv);
    for (int r = 0; r < nv; ++r) {
      for (int c = 0; c <= r; ++c)
        dense[r * nv + c] = dense[c * nv + r] = b.qM()(i, r * (r + 1) / 2 + c);
    }
    mass.push_back(dense);
    const std::vector<T> h = b.qfrc_bias().get(i), a = b.qacc().get(i);
    bias.push_back(std::vector<double>(h.begin(), h.end()));
    qacc.push_back(std::vector<double>(a.begin(), a.end()));
  }
  out["M"] = std::move(mass);
  out["bias"] = std::move(bias);
  out["qacc"] = std::move(qacc);
  return out.dump();
}

template void apply_randomize(Simulator<float>&, const std::vector<RandomizeTerm>&,
                              std::mt19937_64&);
template void apply_randomize(Simulator<double>&, const std::vector<RandomizeTerm>&,
                              std::mt19937_64&);
template void scatter_initial_state(Simulator<float>&, double, std::mt19937_64&);
template void scatter_initial_state(Simulator<double>&, double, std::mt19937_64&);
template std::string dynamics_json<float>(const Model&, const States&);
template std::string dynamics_json<double>(const Model&, const States&);

}  // namespace zwang::cli
