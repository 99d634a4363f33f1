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
//
// With --group, an Euler step stage by stage on a lane group (kernels/group.h) of G = 1, 4, 8,
// 16, 32 lanes, emulated (kernels/group_emu.h), for the chain and the model files named after
// it (MJCF or URDF): kinematics, velocities (and Jacobian columns), the mass matrix (body terms,
// assemble), the collision and the constraint solver on the group; the other stages on one lane
// of it. Per stage its warp-operations (and barriers where it has more than one), then per
// instance-step:
//   W          warp-operations: per phase the busiest lane's counted operations (flops + math +
//              accesses), plus the uniform code around the phases, which every lane runs; times
//              G / 32, the groups that share a warp.  Integer and control instructions are not
//              counted: W is a lower bound, for comparing designs.
//   barriers   collectives (each, one, sum, ...): a synchronisation of the group each
//   build/bench/count_ops --group /usr/share/mujoco/model/humanoid/humanoid.xml
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "host/model/arrays.hpp"
#include "kernels/group_emu.h"
#include "kernels/pipeline.h"
#include "zwang/batch.hpp"
#include "zwang/examples.hpp"
#include "zwang/loaders.hpp"

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

long operations(const Tally& t) {
  return t.flops + t.math + t.loads + t.stores;
}

// the work of a group's phases: each lane's operations in the current phase, the uniform
// operations between phases, and the busiest lane's sum over the phases
class LaneWork {
 public:
  explicit LaneWork(int lanes) : lane_(static_cast<std::size_t>(lanes), 0) {}

  template <int G>
  void listen(zwang::Emu<G>& g) {
    g.set_probe([this](int lane) { switch_to(lane); }, [this] { end_phase(); },
                [this] { end_slot(); });
  }
  // warp-operations of what ran since the last call, and the barriers
  std::pair<long, long> take() {
    switch_to(-1);
    const std::pair<long, long> out{critical_ + uniform_, barriers_};
    critical_ = uniform_ = barriers_ = 0;
    return out;
  }

 private:
  void switch_to(int lane) {
    const long now = operations(count_ops::tally);
    (current_ < 0 ? uniform_ : lane_[static_cast<std::size_t>(current_)]) += now - mark_;
    mark_ = now;
    current_ = lane;
  }
  // the lanes ran in step up to here: the busiest one's operations join the critical path
  void end_slot() {
    switch_to(-1);
    long busiest = 0;
    for (long& l : lane_) {
      busiest = std::max(busiest, l);
      l = 0;
    }
    critical_ += busiest;
  }
  void end_phase() {
    end_slot();
    ++barriers_;
  }

  std::vector<long> lane_;
  int current_ = -1;
  long mark_ = 0, uniform_ = 0, critical_ = 0, barriers_ = 0;
};

long operations(const Count& c) {
  return operations(c.t);
}

// An Euler step stage by stage on Emu<G>, each stage on the group as step() runs it there, or on
// one lane of it: a row of the table.
// The step is step()'s sequence, stage by stage; its operations must add up to step()'s.
template <int G>
void print_group(const std::string& name, const Model& model) {
  CountedInstance solo(model), grouped(model);
  const long whole =
      operations(solo.count([&](Instance<Counted> d) { zwang::step(solo.view, d); }));
  const ModelView<Counted>& m = grouped.view;
  zwang::Emu<G> g;
  LaneWork work(G);
  work.listen(g);
  // each stage on one lane: its counted operations
  const auto lane = [&](auto&& stage) {
    work.take();
    g.one(stage);
    return work.take();
  };
  std::vector<std::pair<long, long>> stages;
  bool sequence_ok = true;
  grouped.count([&](Instance<Counted> d) {
    const Counted damping_dt = zwang::step_damping_dt(m);
    int phase = zwang::kPhaseIdle;
    stages.push_back(lane([&] { phase = zwang::step_begin(m, d); }));
    work.take();
    zwang::forward_kinematics(m, d, g);
    stages.push_back(work.take());
    zwang::body_jacobians(m, d, g);
    stages.push_back(work.take());
    zwang::body_terms(m, d, g);
    zwang::assemble(m, d, g);
    stages.push_back(work.take());
    // the tendons read only the poses, and only the forces read the tendons
    stages.push_back(lane([&] {
      zwang::tendons(m, d);
      zwang::generalized_forces(m, d);
    }));
    stages.push_back(lane([&] { phase = zwang::solve_in_place(m, d, damping_dt, phase); }));
    // constrain(), as pipeline.h runs it for a model with rows, then the end of step_end()
    const bool rows = m.s.nefc > 0 && phase == zwang::kPhaseSolve;
    bool ok = true;
    work.take();
    if (rows && m.ncollision == 0) {
      g.one([&] {
        if (m.s.ngeom > 0) zwang::geom_poses(m, d);
        d.ncon()[0] = Counted(0);
      });
    }
    if (rows && m.ncollision > 0) ok = zwang::collision(m, d, g);
    stages.push_back(work.take());
    work.take();
    if (rows && ok) {
      zwang::constraint_rows(m, d, *d.time, g);
      zwang::contact_rows(m, d, g);
    }
    stages.push_back(work.take());
    work.take();
    if (rows && ok) ok = zwang::constraint_solve(m, d, damping_dt, g);
    stages.push_back(work.take());
    stages.push_back(lane([&] {
      if (rows && ok) {
        zwang::contact_forces(m, d);
        zwang::external_wrenches(m, d);
      }
      if (!rows) phase = zwang::constrain(m, d, damping_dt, *d.time, phase);
      if (!ok) phase = zwang::kPhaseFailed;
      sequence_ok = phase == zwang::kPhaseSolve;
      if (!sequence_ok) return;
      zwang::sensors(m, d);
      zwang::euler_update(m, d);
      zwang::step_finish(m, d);
    }));
  });
  long total = 0, barriers = 0;
  for (const auto& [w, b] : stages) {
    total += w;
    barriers += b;
  }
  std::printf("%-16s %2d", name.c_str(), G);
  for (std::size_t k = 0; k < stages.size(); ++k) {
    if ((k >= 1 && k <= 3) || (k >= 6 && k <= 8)) {
      std::printf(" %7ld/%-3ld", stages[k].first, stages[k].second);
    } else {
      std::printf(" %7ld", stages[k].first);
    }
  }
  std::printf(" %9ld %8ld\n", total * G / 32, barriers);
  if (!sequence_ok) std::printf("  (the counted step failed)\n");
  // on one lane every operation is on the critical path: the stages are the whole step
  if (G == 1 && total != whole) {
    std::printf("  (the stages count %ld operations, step() %ld)\n", total, whole);
  }
}

int print_groups(int argc, char** argv) {
  std::printf("%-16s %2s %7s %11s %11s %11s %7s %7s %11s %7s %11s %7s %9s %8s\n", "model", "G",
              "begin", "kinematics", "velocities", "mass", "forces", "solve", "collide", "rows",
              "solver", "finish", "W", "barriers");
  std::vector<std::pair<std::string, Model>> models;
  models.emplace_back("chain", zwang::examples::chain());
  for (int i = 2; i < argc; ++i) {
    try {
      std::string name = std::filesystem::path(argv[i]).stem().string();
      for (const auto& [seen, model] : models) {
        if (seen == name) name += "#" + std::to_string(i - 1);
      }
      models.emplace_back(name, zwang::load_model(argv[i]).model);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "count_ops: %s\n", e.what());
      return 1;
    }
  }
  for (const auto& [name, model] : models) {
    print_group<1>(name, model);
    print_group<4>(name, model);
    print_group<8>(name, model);
    print_group<16>(name, model);
    print_group<32>(name, model);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "--group") return print_groups(argc, argv);
  if (argc > 1) {
    std::fprintf(stderr, "usage: count_ops [--group [MODEL_FILE...]]\n");
    return 2;
  }
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
