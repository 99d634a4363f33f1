// Per-instance parameter draws and initial states (include/zwang/randomize.hpp).
#include "zwang/randomize.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <map>
#include <numeric>
#include <random>
#include <stdexcept>
#include <utility>

#include "zwang/examples.hpp"
#include "zwang/simulator.hpp"

namespace zwang {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// the pieces of `s` between the commas outside parentheses and brackets
std::vector<std::string_view> split_top(std::string_view s) {
  std::vector<std::string_view> parts;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t k = 0; k < s.size(); ++k) {
    if (s[k] == '(' || s[k] == '[') ++depth;
    if (s[k] == ')' || s[k] == ']') --depth;
    if (s[k] == ',' && depth == 0) {
      parts.push_back(trim(s.substr(start, k - start)));
      start = k + 1;
    }
  }
  parts.push_back(trim(s.substr(start)));
  return parts;
}

// "body_mass + body_inertia" → its selections
std::vector<std::string_view> split_plus(std::string_view s) {
  std::vector<std::string_view> parts;
  for (std::size_t start = 0;;) {
    const std::size_t plus = s.find('+', start);
    parts.push_back(trim(s.substr(start, plus - start)));
    if (plus == std::string_view::npos) return parts;
    start = plus + 1;
  }
}

template <class N>
bool parse_number(std::string_view s, N* out) {
  s = trim(s);
  const auto [end, error] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return !s.empty() && error == std::errc() && end == s.data() + s.size();
}

// `name(a, b, ...)` → name and the text between the parentheses; false if `s` is not a call
bool split_call(std::string_view s, std::string_view* name, std::string_view* inner) {
  const std::size_t open = s.find('(');
  if (open == std::string_view::npos || s.back() != ')') return false;
  *name = trim(s.substr(0, open));
  *inner = s.substr(open + 1, s.size() - open - 2);
  return true;
}

Distribution parse_draw(std::string_view text) {
  using Kind = Distribution::Kind;
  Distribution d;
  double value = 0;
  if (parse_number(text, &value)) {
    d.args = {value};
  } else if (std::string_view name, inner; split_call(text, &name, &inner)) {
    const struct {
      std::string_view name;
      Kind kind;
      int args;  // -1: one or more
    } kKinds[] = {{"uniform", Kind::kUniform, 2},
                  {"normal", Kind::kNormal, 2},
                  {"lognormal", Kind::kLogNormal, 2},
                  {"choice", Kind::kChoice, -1}};
    const auto* k = std::find_if(std::begin(kKinds), std::end(kKinds),
                                 [&](const auto& c) { return c.name == name; });
    if (k == std::end(kKinds)) {
      throw std::invalid_argument(fmt::format(
          "unknown distribution '{}' (uniform, normal, lognormal, choice, scale)", name));
    }
    d.kind = k->kind;
    for (std::string_view a : split_top(inner)) {
      if (!parse_number(a, &value)) {
        throw std::invalid_argument(fmt::format("'{}' is not a number in '{}'", a, text));
      }
      d.args.push_back(value);
    }
    if (k->args > 0 && static_cast<int>(d.args.size()) != k->args) {
      throw std::invalid_argument(
          fmt::format("{} takes {} numbers, not {}", name, k->args, d.args.size()));
    }
  } else {
    throw std::invalid_argument(
        fmt::format("'{}' is neither a number, LOW:HIGH, nor uniform(lo, hi), normal(mean, std), "
                    "lognormal(mean, std), choice(v, ...) or scale(...)",
                    text));
  }
  if (!std::all_of(d.args.begin(), d.args.end(), [](double a) { return std::isfinite(a); })) {
    throw std::invalid_argument(fmt::format("'{}' has a number that is not finite", text));
  }
  if (d.kind == Kind::kUniform && !(d.args[0] <= d.args[1])) {
    throw std::invalid_argument(fmt::format("'{}' needs lo <= hi", text));
  }
  if ((d.kind == Kind::kNormal || d.kind == Kind::kLogNormal) && !(d.args[1] >= 0)) {
    throw std::invalid_argument(fmt::format("'{}' needs std >= 0", text));
  }
  return d;
}

// the per-instance shape of a parameter field: `rows` of `cols` values, one row per object of
// `count` ("nbody"), or a fixed width (gravity: count "", rows 3, cols 1)
struct ParamShape {
  int rows = 0, cols = 1;
  std::string_view count;
};

ParamShape param_shape(FieldId f, const Sizes& sizes) {
  const std::vector<int> shape = field_shape(f, sizes);
  return {shape.empty() ? 1 : shape[0], shape.size() == 2 ? shape[1] : 1, field_count(f)};
}

// the element offsets within an instance's values that `sel` names; the world (row 0 of a field
// of the bodies) has no parameters to draw and is left out
std::vector<int> selected(const ParamSelection& sel, const ParamShape& shape,
                          const std::string& name) {
  const bool rows = !shape.count.empty();
  const int first = shape.count == "nbody" ? 1 : 0;
  auto check = [&](int i, int lo, int n, std::string_view what, std::string_view has) {
    if (i < lo || i >= n) {
      throw std::invalid_argument(fmt::format("'{}': {} {} is not in [{}, {}) ({}){}", name, what,
                                              i, lo, n, has,
                                              i == 0 && lo == 1 ? "; body 0 is the world" : ""));
    }
  };
  const std::string per_instance =
      rows ? fmt::format("{} has {} rows per instance, {} = {}", sel.field, shape.rows, shape.count,
                         shape.rows)
           : fmt::format("{} has {} values per instance", sel.field, shape.rows);
  std::vector<int> out;
  if (sel.index.empty()) {
    for (int e = first * shape.cols; e < shape.rows * shape.cols; ++e) out.push_back(e);
  } else if (sel.index.size() == 1) {
    check(sel.index[0], first, shape.rows, "index", per_instance);
    for (int c = 0; c < shape.cols; ++c) out.push_back(sel.index[0] * shape.cols + c);
  } else {
    if (shape.cols == 1) {
      throw std::invalid_argument(
          fmt::format("'{}': {} has one value per row; give one index", name, sel.field));
    }
    check(sel.index[0], first, shape.rows, "row", per_instance);
    check(sel.index[1], 0, shape.cols, "column",
          fmt::format("{} has {} values per row", sel.field, shape.cols));
    out.push_back(sel.index[0] * shape.cols + sel.index[1]);
  }
  return out;
}

// "body_ipos[2, 0]"
std::string selection_name(const ParamSelection& sel) {
  return sel.index.empty() ? sel.field
                           : fmt::format("{}[{}]", sel.field, fmt::join(sel.index, ", "));
}

// the generator of `name` under `seed`: seeded by both, independent of every other name
std::mt19937_64 generator(std::uint64_t seed, std::string_view name) {
  std::uint64_t h = 14695981039346656037ull;  // FNV-1a
  for (char c : name) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  std::seed_seq seq{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32),
                    static_cast<std::uint32_t>(h), static_cast<std::uint32_t>(h >> 32)};
  return std::mt19937_64(seq);
}

template <class Gen>
double draw(const Distribution& d, Gen& gen) {
  using Kind = Distribution::Kind;
  switch (d.kind) {
    case Kind::kUniform:
      return std::uniform_real_distribution<double>(d.args[0], d.args[1])(gen);
    // a std of 0 is the mean itself (the standard distributions need std > 0)
    case Kind::kNormal:
      return d.args[1] > 0 ? std::normal_distribution<double>(d.args[0], d.args[1])(gen)
                           : d.args[0];
    case Kind::kLogNormal:
      return d.args[1] > 0 ? std::lognormal_distribution<double>(d.args[0], d.args[1])(gen)
                           : std::exp(d.args[0]);
    case Kind::kChoice:
      return d.args[std::uniform_int_distribution<std::size_t>(0, d.args.size() - 1)(gen)];
    default:
      return d.args[0];
  }
}

}  // namespace

std::vector<std::string> param_field_names() {
  return {
#define ZW_X(name, count) #name,
      ZW_PARAM_FIELDS(ZW_X)
#undef ZW_X
  };
}

ParamSelection parse_param_name(std::string_view text) {
  text = trim(text);
  ParamSelection sel;
  const std::size_t open = text.find('[');
  sel.field = std::string(trim(text.substr(0, open)));
  const std::vector<std::string> known = param_field_names();
  if (std::find(known.begin(), known.end(), sel.field) == known.end()) {
    throw std::invalid_argument(fmt::format("unknown parameter '{}' (the parameters: {})",
                                            sel.field, fmt::join(known, ", ")));
  }
  if (open == std::string_view::npos) return sel;
  if (text.back() != ']') {
    throw std::invalid_argument(fmt::format("'{}': expected NAME, NAME[i] or NAME[i, j]", text));
  }
  for (std::string_view part : split_top(text.substr(open + 1, text.size() - open - 2))) {
    int i = 0;
    if (!parse_number(part, &i) || sel.index.size() == 2) {
      throw std::invalid_argument(fmt::format("'{}': expected NAME, NAME[i] or NAME[i, j]", text));
    }
    sel.index.push_back(i);
  }
  return sel;
}

Distribution parse_distribution(std::string_view text) {
  text = trim(text);
  if (std::string_view name, inner; split_call(text, &name, &inner) && name == "scale") {
    if (std::string_view again, rest; split_call(trim(inner), &again, &rest) && again == "scale")
      throw std::invalid_argument(fmt::format("'{}' scales twice", text));
    // scale(LOW:HIGH) is LOW:HIGH, which scales already
    Distribution d = parse_distribution(inner);
    d.scale = true;
    return d;
  }
  const std::size_t colon = text.find(':');
  if (colon != std::string_view::npos && text.find('(') == std::string_view::npos) {
    Distribution d{Distribution::Kind::kUniform, {0, 0}, true};
    if (!parse_number(text.substr(0, colon), &d.args[0]) ||
        !parse_number(text.substr(colon + 1), &d.args[1])) {
      throw std::invalid_argument(fmt::format("'{}' needs two numbers LOW:HIGH", text));
    }
    // a factor below 0 would turn a mass or a stiffness negative
    if (!(0 <= d.args[0] && d.args[0] <= d.args[1] && std::isfinite(d.args[1]))) {
      throw std::invalid_argument(fmt::format("'{}' needs 0 <= LOW <= HIGH, both finite", text));
    }
    return d;
  }
  return parse_draw(text);
}

std::vector<RandomTerm> parse_randomization(std::string_view spec) {
  std::vector<RandomTerm> terms;
  for (std::string_view item : split_top(spec)) {
    if (item.empty()) continue;  // "a=1," and "a=1,,b=2" as a=1 and b=2
    const std::size_t eq = item.find('=');
    if (eq == std::string_view::npos) {
      throw std::invalid_argument(fmt::format("'{}' is not NAME=VALUE", item));
    }
    RandomTerm t;
    try {
      for (std::string_view part : split_plus(item.substr(0, eq)))
        t.selections.push_back(parse_param_name(part));
      t.distribution = parse_distribution(item.substr(eq + 1));
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(fmt::format("'{}': {}", item, e.what()));
    }
    // one name, and so one generator, for every spelling of the same selections: in the order
    // of the parameter fields, then of the indices
    const std::vector<std::string> fields = param_field_names();
    auto rank = [&](const ParamSelection& a) {
      return std::pair(std::find(fields.begin(), fields.end(), a.field) - fields.begin(), a.index);
    };
    std::sort(t.selections.begin(), t.selections.end(),
              [&](const ParamSelection& a, const ParamSelection& b) { return rank(a) < rank(b); });
    std::vector<std::string> names;
    for (const ParamSelection& sel : t.selections) names.push_back(selection_name(sel));
    t.name = fmt::format("{}", fmt::join(names, "+"));
    terms.push_back(std::move(t));
  }
  return terms;
}

namespace {

// what one term draws in each instance: `rows` draws, each written to elements[s][r] of field
// s (a term of one selection: one row per selected element)
struct Targets {
  std::vector<FieldId> fields;
  std::vector<std::vector<std::vector<int>>> elements;  // [selection][row] → offsets
  std::size_t rows = 0;
};

template <class T>
Targets targets(const Batch<T>& batch, const RandomTerm& t) {
  Targets out;
  std::string_view count;
  std::vector<int> index;
  for (const ParamSelection& sel : t.selections) {
    const FieldId f = field_id(sel.field);
    const FieldRef<const T> values = batch.field(f);
    const ParamShape shape = param_shape(f, batch.sizes());
    if (values.width() == 0) {
      throw std::invalid_argument(
          fmt::format("'{}' has nothing to draw: the model has {} = 0", t.name, shape.count));
    }
    const std::vector<int> all = selected(sel, shape, t.name);
    std::vector<std::vector<int>>& rows = out.elements.emplace_back();
    if (t.selections.size() == 1) {
      for (int e : all) rows.push_back({e});
    } else {
      if (shape.count.empty() || sel.index.size() > 1 ||
          (!out.fields.empty() && (shape.count != count || sel.index != index))) {
        throw std::invalid_argument(fmt::format(
            "'{}': selections joined by '+' share one draw per object, so they must be rows of "
            "the same objects (whole fields or the same row); {} is not",
            t.name, selection_name(sel)));
      }
      count = shape.count;
      index = sel.index;
      for (std::size_t k = 0; k < all.size(); k += static_cast<std::size_t>(shape.cols))
        rows.emplace_back(all.begin() + k, all.begin() + k + shape.cols);
    }
    out.fields.push_back(f);
    out.rows = rows.size();
  }
  if (t.distribution.scale) {
    bool nonzero = false;
    for (std::size_t s = 0; s < out.fields.size(); ++s) {
      const FieldRef<const T> values = batch.field(out.fields[s]);
      for (const std::vector<int>& row : out.elements[s]) {
        for (int e : row) {
          for (std::int64_t i = 0; i < values.instances() && !nonzero; ++i)
            nonzero = values(i, e) != 0;
        }
      }
    }
    if (!nonzero) {
      throw std::invalid_argument(
          fmt::format("'{}' has nothing to scale: every selected value is 0", t.name));
    }
  }
  return out;
}

}  // namespace

template <class T>
void randomize(Batch<T>& batch, std::span<const RandomTerm> terms, std::uint64_t seed,
               std::int64_t first) {
  if (first < 0) throw std::invalid_argument(fmt::format("randomize: first {} < 0", first));
  std::vector<Targets> all;
  for (const RandomTerm& t : terms) all.push_back(targets(std::as_const(batch), t));
  // an element drawn twice would be overwritten or scaled twice, and its value would depend on
  // the order of the terms
  std::map<std::pair<FieldId, int>, std::size_t> owner;
  for (std::size_t k = 0; k < terms.size(); ++k) {
    for (std::size_t s = 0; s < all[k].fields.size(); ++s) {
      for (const std::vector<int>& row : all[k].elements[s]) {
        for (int e : row) {
          const auto [it, fresh] = owner.emplace(std::pair(all[k].fields[s], e), k);
          if (fresh) continue;
          const std::string_view field = field_name(all[k].fields[s]);
          throw std::invalid_argument(
              it->second == k
                  ? fmt::format("'{}' selects {} twice", terms[k].name, field)
                  : fmt::format("'{}' and '{}' both draw {}; give each element one value",
                                terms[it->second].name, terms[k].name, field));
        }
      }
    }
  }
  for (std::size_t k = 0; k < terms.size(); ++k) {
    const Distribution& d = terms[k].distribution;
    const Targets& to = all[k];
    std::vector<FieldRef<T>> values;
    for (FieldId f : to.fields) values.push_back(batch.field(f));
    std::mt19937_64 gen = generator(seed, terms[k].name);
    // a distribution may take a varying number of the generator's numbers per draw
    for (std::int64_t i = 0; i < first * static_cast<std::int64_t>(to.rows); ++i) draw(d, gen);
    for (std::int64_t i = 0; i < batch.size(); ++i) {
      for (std::size_t r = 0; r < to.rows; ++r) {
        const double x = draw(d, gen);
        for (std::size_t s = 0; s < values.size(); ++s) {
          for (int e : to.elements[s][r])
            values[s](i, e) = static_cast<T>(d.scale ? values[s](i, e) * x : x);
        }
      }
    }
  }
}

int keyframe_index(const Model& model, std::string_view key) {
  const int named = model.id(ObjType::kKey, key);
  if (named >= 0) return named;
  int index = -1;
  if (parse_number(key, &index) && index >= 0 && index < model.nkey) return index;
  std::vector<std::string> keys;
  for (int k = 0; k < model.nkey; ++k) {
    keys.push_back(model.key_name[k].empty() ? fmt::format("{} (unnamed)", k)
                                             : fmt::format("'{}'", model.key_name[k]));
  }
  throw std::invalid_argument(
      model.nkey == 0
          ? fmt::format("no keyframe '{}': the model has no keyframes", key)
          : fmt::format("no keyframe '{}' (the model's: {})", key, fmt::join(keys, ", ")));
}

template <class T>
void scatter_states(Simulator<T>& sim, std::string_view key, double noise, std::uint64_t seed,
                    std::int64_t first) {
  if (first < 0) throw std::invalid_argument(fmt::format("scatter_states: first {} < 0", first));
  const Model& m = sim.model();
  std::vector<std::int64_t> all(static_cast<std::size_t>(sim.size()));
  std::iota(all.begin(), all.end(), std::int64_t{0});
  const int k = key.empty() ? -1 : keyframe_index(m, key);
  if (k < 0) {
    sim.reset(all);
  } else {
    sim.reset_keyframe(all, k);
  }
  if (!(noise > 0)) return;
  const std::span<const double> base =
      k < 0 ? std::span<const double>(m.qpos0)
            : std::span<const double>(m.key_qpos).subspan(static_cast<std::size_t>(k) * m.nq, m.nq);
  std::mt19937_64 gen = generator(seed, "qpos");
  for (std::int64_t i = 0; i < first; ++i) examples::perturbed_qpos(m, base, noise, gen);
  const FieldRef<T> qpos = sim.batch().qpos();
  for (std::int64_t i = 0; i < sim.size(); ++i) {
    const std::vector<double> q = examples::perturbed_qpos(m, base, noise, gen);
    qpos.set(i, std::vector<T>(q.begin(), q.end()));
  }
}

template void randomize(Batch<float>&, std::span<const RandomTerm>, std::uint64_t, std::int64_t);
template void randomize(Batch<double>&, std::span<const RandomTerm>, std::uint64_t, std::int64_t);
template void scatter_states(Simulator<float>&, std::string_view, double, std::uint64_t,
                             std::int64_t);
template void scatter_states(Simulator<double>&, std::string_view, double, std::uint64_t,
                             std::int64_t);

}  // namespace zwang
