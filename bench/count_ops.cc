// FLOPs and memory traffic of one instance-step, counted by running the kernels/ pipeline on
// the CPU with an instrumented scalar.  `Counted` wraps a double and tallies
//   flops   +, −, ×, ÷ (an FMA on the GPU is two of these; negation is free)
//   math    conversions to double: each std::sqrt, sin, cos, atan2 argument and isfinite check
//   loads   reads of an arena element (an operand, copy or conversion whose address lies in
//           the instance's data, param or work arena)
//   stores  writes of an arena element
// and marks which arena elements a step reads and writes at least once.  The shared model
// arrays are not counted as traffic: every instance reads the same ones.  Printed per call,
// bytes in float32 (float64: twice as many):
//   B all      every access goes to memory (no cache at all)
//   B touched  each element read once and written once per call (scratch included)
//   B state    the same for state, outputs and parameters only (scratch kept on chip)
//   build/bench/count_ops        (the table in bench/README.md)
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "host/model/arrays.hpp"
#include "kernels/pipeline.h"
#include "zwang/batch.hpp"
#include "zwang/examples.hpp"

// a named namespace: operators the kernels happen not to use are not "unused functions"
namespace count_ops {

struct Tally {
  long flops = 0, math = 0, loads = 0, stores = 0;
};

inline Tally tally;

// the arena the counted elements live in, and which of them a step read and wrote
struct Tracked {
  const void* begin = nullptr;
  const void* end = nullptr;
  std::vector<char> read, written;
};
inline Tracked tracked;

struct Counted;
void on_load(const Counted* p);
void on_store(const Counted* p);

struct Counted {
  double v = 0;
  Counted() = default;
  Counted(double x) : v(x) {}  // NOLINT: literals such as T(0.5)
  Counted(const Counted& o) : v(o.v) { on_load(&o); }
  Counted& operator=(const Counted& o) {
    on_load(&o);
    v = o.v;
    on_store(this);
    return *this;
  }
  operator double() const {  // NOLINT: std::sqrt, std::isfinite, ... take doubles
    on_load(this);
    ++tally.math;
    return v;
  }
#define ZW_COMPOUND(op)                       \
  Counted& operator op##=(const Counted& o) { \
    on_load(&o);                              \
    on_load(this);                            \
    v op## = o.v;                             \
    ++tally.flops;                            \
    on_store(this);                           \
    return *this;                             \
  }
  ZW_COMPOUND(+)
  ZW_COMPOUND(-)
  ZW_COMPOUND(*)
  ZW_COMPOUND(/)
#undef ZW_COMPOUND
};

std::ptrdiff_t arena_index(const Counted* p) {
  if (p < tracked.begin || p >= tracked.end) return -1;
  return p - static_cast<const Counted*>(tracked.begin);
}
void on_load(const Counted* p) {
  const std::ptrdiff_t k = arena_index(p);
  if (k < 0) return;
  ++tally.loads;
  tracked.read[k] = 1;
}
void on_store(const Counted* p) {
  const std::ptrdiff_t k = arena_index(p);
  if (k < 0) return;
  ++tally.stores;
  tracked.written[k] = 1;
}

// a result of std::sqrt, sin, ... is a double: mixed forms keep overloads unambiguous
#define ZW_BINARY(op)                                       \
  Counted operator op(const Counted& a, const Counted& b) { \
    on_load(&a);                                            \
    on_load(&b);                                            \
    ++tally.flops;                                          \
    Counted r;                                              \
    r.v = a.v op b.v;                                       \
    return r;                                               \
  }                                                         \
  Counted operator op(const Counted& a, double b) {         \
    return a op Counted(b);                                 \
  }                                                         \
  Counted operator op(double a, const Counted& b) {         \
    return Counted(a) op b;                                 \
  }
ZW_BINARY(+)
ZW_BINARY(-)
ZW_BINARY(*)
ZW_BINARY(/)
#undef ZW_BINARY
#define ZW_COMPARE(op)                                   \
  bool operator op(const Counted& a, const Counted& b) { \
    on_load(&a);                                         \
    on_load(&b);                                         \
    return a.v op b.v;                                   \
  }
ZW_COMPARE(<)
ZW_COMPARE(>)
ZW_COMPARE(<=)
ZW_COMPARE(>=)
ZW_COMPARE(==)
ZW_COMPARE(!=)
#undef ZW_COMPARE
Counted operator-(const Counted& a) {
  on_load(&a);
  Counted r;
  r.v = -a.v;
  return r;
}

}  // namespace count_ops

namespace {

using count_ops::Counted;
using count_ops::Tally;
using zwang::Instance;
using zwang::Model;
using zwang::ModelView;

struct Count {
  Tally t;
  long footprint = 0;   // distinct elements read plus distinct elements written, all arenas
  long compulsory = 0;  // the same for the data and param arenas only (no scratch)
};

// one instance of `model` in counted arenas (ld = 1), at a random state
struct CountedInstance {
  explicit CountedInstance(const Model& model) : arrays(model), batch(model, 1) {
    std::mt19937 rng(7);
    std::normal_distribution<double> normal(0, 0.3);
    std::vector<double> q(model.qpos0), v(model.nv);
    for (int j = 0; j < model.njnt; ++j) {
      if (model.jnt_type[j] == zwang::JointType::kHinge) q[model.jnt_qposadr[j]] += normal(rng);
    }
    for (double& x : v) x = normal(rng);
    batch.qpos().set(0, q);
    batch.qvel().set(0, v);
    const zwang::Layout& l = batch.layout();
    const std::int64_t ld = batch.padded_size();
    arena.resize(l.data_rows + l.param_rows + l.work_rows);
    for (int r = 0; r < l.data_rows; ++r) arena[r].v = batch.data_arena()[r * ld];
    for (int r = 0; r < l.param_rows; ++r) arena[l.data_rows + r].v = batch.param_arena()[r * ld];
    reals.assign(arrays.reals().begin(), arrays.reals().end());
    view = arrays.view_as<Counted>(arrays.ints().data(), reals.data());
  }

  Instance<Counted> instance() {
    const zwang::Layout& l = view.lay;
    return {{arena.data(), 1},
            {arena.data() + l.data_rows, 1},
            {arena.data() + l.data_rows + l.param_rows, 1},
            &view.lay,
            &time,
            &status};
  }

  template <class F>
  Count count(F run) {
    count_ops::tracked = {arena.data(), arena.data() + arena.size(),
                          std::vector<char>(arena.size(), 0), std::vector<char>(arena.size(), 0)};
    count_ops::tally = {};
    run(instance());
    Count c{count_ops::tally};
    const std::size_t scratch = view.lay.data_rows + view.lay.param_rows;
    for (std::size_t k = 0; k < arena.size(); ++k) {
      const long touched = count_ops::tracked.read[k] + count_ops::tracked.written[k];
      c.footprint += touched;
      if (k < scratch) c.compulsory += touched;
    }
    count_ops::tracked = {};
    return c;
  }

  zwang::ModelArrays<double> arrays;
  zwang::Batch<double> batch;
  std::vector<Counted> reals, arena;
  ModelView<Counted> view{};
  double time = 0;
  int status = 0;
};

// bytes in float32; float64 doubles them
void print(const char* model, const char* what, int nv, const Count& c) {
  std::printf("%-16s %-8s %3d %9ld %6ld %10ld %10ld %10ld %10ld\n", model, what, nv, c.t.flops,
              c.t.math, c.t.loads + c.t.stores, 4 * (c.t.loads + c.t.stores), 4 * c.footprint,
              4 * c.compulsory);
}

}  // namespace

int main() {
  std::printf("%-16s %-8s %3s %9s %6s %10s %10s %10s %10s\n", "model", "call", "nv", "flops",
              "math", "accesses", "B all", "B touched", "B state");
  std::vector<std::pair<std::string, Model>> models;
  for (const std::string& name : zwang::examples::names()) {
    models.emplace_back(name, zwang::examples::by_name(name));
  }
  for (int links : {8, 16, 32, 64}) {
    models.emplace_back(
        "rod_chain" + std::to_string(links),
        zwang::examples::rod_chain(
            {.links = links, .length = 0.3, .planar = false, .damping = 0.05, .armature = 0.01}));
  }
  for (auto& [name, model] : models) {
    for (zwang::Integrator integrator : {zwang::Integrator::kEuler, zwang::Integrator::kRK4}) {
      model.integrator = integrator;
      CountedInstance ci(model);
      const ModelView<Counted>& m = ci.view;
      const Count forward = ci.count([&](Instance<Counted> d) { zwang::forward(m, d); });
      const Count step = ci.count([&](Instance<Counted> d) { zwang::step(m, d); });
      if (integrator == zwang::Integrator::kEuler)
        print(name.c_str(), "forward", model.nv, forward);
      print(name.c_str(), integrator == zwang::Integrator::kEuler ? "Euler" : "RK4", model.nv,
            step);
      if (ci.status != 0) std::printf("  (status %d: the counted step failed)\n", ci.status);
    }
  }
  return 0;
}
