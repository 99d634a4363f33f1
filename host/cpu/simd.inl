// The SIMD CPU backend's work for the instruction set this file is compiled for: the kernels/
// pipeline on packs of instances (host/cpu/simd_pack.hpp), one instance per lane of a native
// register.  In the interleaved batch a row of a pack is `width` consecutive values, one aligned
// register (kernels/layout.h, ArenaAllocator), and consecutive rows are a padded row apart.
//
// Each pack runs in a tile, a copy of its data rows in the thread's scratch, where its rows are
// consecutive: a call copies in the state and the inputs (input_rows(), and sensordata), runs
// all its steps there, and copies back the state and the outputs.  In place, the few thousand
// rows a step visits, each several times, lie a padded row apart, and a step ran slower than
// the copies cost (humanoid.xml, float64 on AVX2, one thread, rows an odd number of lines
// apart: in place, 0.74x the tile's steps per second in step(50) at 64 instances, 0.81x at
// 1024, and 0.85–1.05x in step(1); bench/README.md, "Measured again, 2026-11-27").
// The parameters, only read, stay where they are for a full pack.  Where the batch's rows
// exceed the last-level cache (PackRun::stream), the outputs go back with non-temporal stores,
// one cache line per row of a 64-byte pack: they would not stay cached until they are next read,
// and on their way out they would evict the state and parameters the next call reads
// (humanoid.xml on AVX-512, one thread, every output kept, step(1): 20 % faster with 4096
// float64 instances, 25 % with 8192 float32 and 16384 float64; Gymnasium Humanoid's outputs,
// 8192 float64: 4 %).  The next pack's rows that go back this way are not prefetched.
// The missing lanes of the last pack repeat its first instance and are never copied back; in a
// step, an instance that was stopped before the call is not copied back (the pack's arithmetic
// runs on every lane, and that instance must come out untouched, exactly as the scalar backend
// leaves it).  With constraint rows each lane's collisions, rows and solver run one instance at
// a time (run_pack()).
//
// Everything here is in an unnamed namespace or depends on the pack type, whose ABI tag names the
// instruction set: nothing compiled here is shared with another translation unit.
#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>

#include "host/cpu/simd.hpp"
#include "host/cpu/simd_pack.hpp"
#include "kernels/pipeline.h"

namespace zwang {
namespace {

template <class S>
ModelView<Pack<S>> pack_view(const ModelView<S>& v) {
  ModelView<Pack<S>> p;
  p.s = v.s;
  p.lay = v.lay;
  p.timestep = v.timestep;
  p.integrator = v.integrator;
  p.neq = v.neq;
  p.nnhc = v.nnhc;
  p.iterations = v.iterations;
  p.tolerance = Pack<S>(v.tolerance);
  p.cone = v.cone;
  p.impratio = Pack<S>(v.impratio);
  p.ncollision = v.ncollision;
  p.contact_efcadr = v.contact_efcadr;
  p.disableflags = v.disableflags;
  p.wrap_rules = v.wrap_rules;
  p.rules = v.rules;
  p.nlevel = v.nlevel;
  p.nentry = v.nentry;
  p.nhess = v.nhess;
  p.check_parameters = v.check_parameters;
#define ZW_X(name) p.name = v.name;
  ZW_MODEL_ARRAYS(ZW_VIEW_INT)
  ZW_PLAN_INTS(ZW_X)
  ZW_SCHEDULE_INTS(ZW_X)
#undef ZW_X
#define ZW_X(name) p.name = {v.name};
  ZW_MODEL_ARRAYS(ZW_VIEW_REAL)
  ZW_X(magnetic)
  ZW_PLAN_REALS(ZW_X)
#undef ZW_X
  return p;
}

template <class S>
constexpr int kWidth = Pack<S>::width;
static_assert(kWidth<float> <= kMaxPackWidth && kWidth<double> <= kMaxPackWidth);

// The work rows that smooth() leaves for a lane's constrain() (run_pack below), as row ranges:
// xmat, cdof, cacc; body_Iw, body_n and, where `crb` (implicitfast's free joints read it),
// crb_inertia; qfrc_smooth; ten_J
struct RowRange {
  int first, end;
};
inline std::array<RowRange, 4> lane_rows(const Layout& lay, const Sizes& s, bool crb) {
  return {{{lay.xmat, lay.body_J},
           {lay.body_Iw, crb ? lay.crb_wrench : lay.crb_inertia},
           {lay.qfrc_smooth, lay.step_qpos},
           {lay.ten_J, lay.ten_J + s.ntendon * s.nv}}};
}
inline int lane_row_count(const Layout& lay, const Sizes& s, bool crb) {
  int n = 0;
  for (const RowRange& r : lane_rows(lay, s, crb)) n += r.end - r.first;
  return n;
}
// and H, a data row the lane's solve copies
inline RowRange lane_h(const Layout& lay, const Sizes& s) {
  return {lay.qM, lay.qM + s.nM};
}

// a thread's scratch: work rows, data and parameter tiles, lanes' time and status, then the work
// rows of each lane's instance (constrain() of a lane: all the work rows, a pack's width of copies,
// since the lanes' solves are under way together), then a pack per geom pair (its lanes'
// bounding tests, pack_collision_bounds), then the rows of lane_rows() and lane_h() of each
// lane, one lane's after another, then a pack per entry of the Newton Hessian (factor_lanes)
template <class S>
std::size_t lane_work_offset(const Layout& lay) {
  const std::size_t rows = std::max(lay.work_rows, 1) + lay.data_rows + lay.param_rows;
  const std::size_t bytes = rows * sizeof(Pack<S>) + kWidth<S> * (sizeof(double) + sizeof(int));
  return (bytes + 63) / 64 * 64;
}

// from one lane's work rows to the next's
template <class S>
std::size_t lane_work_stride(const Layout& lay) {
  return (std::max(lay.work_rows, 1) * sizeof(S) + 63) / 64 * 64;
}

template <class S>
std::size_t near_offset(const Layout& lay) {
  return lane_work_offset<S>(lay) + kWidth<S> * lane_work_stride<S>(lay);
}

template <class S>
std::size_t lanes_offset(const Layout& lay, int ncollision) {
  return (near_offset<S>(lay) + std::max(ncollision, 1) * sizeof(Pack<S>) + 63) / 64 * 64;
}

template <class S>
std::size_t lanes_bytes(const Layout& lay, const Sizes& s) {
  const RowRange h = lane_h(lay, s);
  return std::size_t(kWidth<S>) * (lane_row_count(lay, s, true) + h.end - h.first) * sizeof(S);
}

template <class S>
std::size_t factor_offset(const Layout& lay, const Sizes& s, int ncollision) {
  return (lanes_offset<S>(lay, ncollision) + lanes_bytes<S>(lay, s) + 63) / 64 * 64;
}

template <class S>
std::size_t scratch_bytes(const Layout& lay, const Sizes& s, int ncollision) {
  const std::size_t end =
      factor_offset<S>(lay, s, ncollision) + std::max(s.nM, 1) * sizeof(Pack<S>);
  return (end + 63) / 64 * 64;
}

// LaneFactor for a pack, in `context`, a pack per entry: each lane's matrix into its lane, the
// factor on the pack, and back.  The other lanes factor what they hold, zeros (the scratch starts
// zeroed: pivots failing, then 1) or a matrix an earlier call left, and are not read.
template <class S>
void factor_lanes(void* context, TreeRows tree, int n, const int* lanes, const Row<S>* a, int count,
                  bool* failed) {
  constexpr int w = kWidth<S>;
  Pack<S>* tile = static_cast<Pack<S>*>(context);
  S* t = reinterpret_cast<S*>(tile);
  const int nm = n * (n + 1) / 2;
  for (int j = 0; j < count; ++j) {
    const S* from = a[j].p;
    for (int e = 0; e < nm; ++e) t[std::size_t(e) * w + lanes[j]] = from[e];
  }
  MaskOf<Pack<S>> bad(false);
  cholesky_factor<Pack<S>>(tile, tree, n, &bad);
  int flags[w] = {};
  Lanes<Pack<S>>::set_bits(flags, bad, 1);
  for (int j = 0; j < count; ++j) {
    S* to = a[j].p;
    for (int e = 0; e < nm; ++e) to[e] = t[std::size_t(e) * w + lanes[j]];
    failed[j] = flags[lanes[j]] != 0;
  }
}

// rows [0, rows) of lanes [0, count) from an arena (stride ld) into a tile (stride width); the
// lanes past count repeat lane 0.  A full pack's row is one copy of a fixed size (one register).
template <class S>
void gather(const S* arena, std::int64_t ld, int rows, int count, S* tile) {
  constexpr int w = kWidth<S>;
  if (count == w) {
    for (int r = 0; r < rows; ++r)
      std::memcpy(tile + std::size_t(r) * w, arena + r * ld, sizeof(S) * w);
    return;
  }
  for (int r = 0; r < rows; ++r) {
    S* line = tile + std::size_t(r) * w;
    std::memcpy(line, arena + r * ld, sizeof(S) * count);
    for (int k = count; k < w; ++k) line[k] = line[0];
  }
}

// whether the outputs can go back past the caches: on AVX-512, where a pack's row is one whole
// cache line and the arena's rows start on lines
template <class S>
bool can_stream([[maybe_unused]] const S* arena, [[maybe_unused]] std::int64_t ld) {
#if defined(__AVX512F__)
  return sizeof(S) * kWidth<S> == 64 && reinterpret_cast<std::uintptr_t>(arena) % 64 == 0 &&
         ld * sizeof(S) % 64 == 0;
#else
  return false;
#endif
}

// rows [begin, end) of a full pack back into the arena past the caches (where can_stream())
template <class S>
void stream_rows([[maybe_unused]] const S* tile, [[maybe_unused]] int begin,
                 [[maybe_unused]] int end, [[maybe_unused]] S* arena,
                 [[maybe_unused]] std::int64_t ld) {
#if defined(__AVX512F__)
  if constexpr (sizeof(S) * kWidth<S> == 64) {
    for (int r = begin; r < end; ++r) {
      _mm512_stream_si512(reinterpret_cast<__m512i*>(arena + r * ld),
                          _mm512_load_si512(tile + std::size_t(r) * kWidth<S>));
    }
  }
#endif
}

// rows [begin, end) of the lanes of `keep` back into the arena; `stream`: a full pack's past the
// caches (can_stream() must hold)
template <class S>
void scatter(const S* tile, int begin, int end, int count, const bool* keep, S* arena,
             std::int64_t ld, bool stream = false) {
  constexpr int w = kWidth<S>;
  const bool all = std::all_of(keep, keep + count, [](bool k) { return k; });
  if (stream && all && count == w) {
    stream_rows(tile, begin, end, arena, ld);
    return;
  }
  if (all && count == w) {
    for (int r = begin; r < end; ++r)
      std::memcpy(arena + r * ld, tile + std::size_t(r) * w, sizeof(S) * w);
    return;
  }
  for (int r = begin; r < end; ++r) {
    const S* line = tile + std::size_t(r) * w;
    S* out = arena + r * ld;
    if (all) {
      std::memcpy(out, line, sizeof(S) * count);
    } else {
      for (int k = 0; k < count; ++k) {
        if (keep[k]) out[k] = line[k];
      }
    }
  }
}

// lane k of a pack's rows as one instance: its values are `width` apart
template <class S>
Arena<S> lane_arena(const Arena<Pack<S>>& a, int k) {
  return {reinterpret_cast<S*>(a.base) + k, a.ld * kWidth<S>};
}

// With constraint rows, constrain() runs on each lane that has not stopped, one instance at a
// time but the lanes' Newton iterations in step (constrain_lanes, factor_lanes).  Its data rows
// are in the tile (run() below), so a lane's data is one value in each of a few thousand
// consecutive cache lines (its parameters, in a full pack, one value in each padded row of the
// batch); the work rows that smooth() leaves for constrain() (xmat, cdof, cacc, ten_J and
// qfrc_smooth, body_Iw for implicit's Coriolis derivative, and implicitfast's crb_inertia:
// kernels/constraint_rows.h, contacts.h, constraint_solver.h and implicit.h read no others:
// lane_rows()) are copied into the lane's own work rows in `lane_work` (lane_work_stride() apart),
// one instance's work rows in the scalar layout, where the rows and the solver's scratch (nefc·nv
// values and more, visited in every iteration) are contiguous; they go through `lanes` by lane
// first, so that each pack row is read once for the pack.  The sensors of such a model run there
// too, after constrain(), since some read the rows (kernels/sensors.h: body_Iw and body_n are the
// other work rows they read).
template <class S>
void run_pack(const PackRun<S>& job, const ModelView<Pack<S>>& view, const Instance<Pack<S>>& d,
              std::byte* lane_work, Pack<S>* near, S* lanes, Pack<S>* factor_tile) {
  const std::size_t lane_stride = lane_work_stride<S>(*d.lay);
  const auto rows = [&job, &view, lane_work, lane_stride, near, lanes, factor_tile](
                        const Instance<Pack<S>>& p, int stage,
                        const PackFactors<Pack<S>>& factors) {
    pack_collision_bounds(view, p, Row<Pack<S>>{near, 1});
    // the rows of lane_rows() and lane_h() by lane: a pack row (one cache line at most) is read
    // once here, where the lanes one after another would each read a value from every line
    const bool crb = job.view->integrator == Integrator::kImplicitFast;
    const std::array<RowRange, 4> ranges = lane_rows(*p.lay, job.view->s, crb);
    const RowRange h = lane_h(*p.lay, job.view->s);
    const int nwork = lane_row_count(*p.lay, job.view->s, crb);
    const int count = nwork + h.end - h.first;
    {
      S* out = lanes;
      const auto by_lane = [&](const Arena<Pack<S>>& from, RowRange range) {
        for (int r = range.first; r < range.end; ++r, ++out) {
          const S* v = reinterpret_cast<const S*>(from.base + std::size_t(r) * from.ld);
          for (int k = 0; k < kWidth<S>; ++k) out[std::size_t(k) * count] = v[k];
        }
      };
      for (const RowRange& range : ranges) by_lane(p.work, range);
      by_lane(p.data, h);
    }
    // Euler's damped step on the pack, after the lanes, where no hard row or sensor needs it in
    // the lane (FromPack::deferred)
    const bool defer = factors.damped && view.s.nhard == 0 && view.s.nsensor == 0;
    int deferred[kWidth<S>] = {};
    Instance<S> one[kWidth<S>];
    FromPack<S> from_pack[kWidth<S>];
    int live = 0;
    for (int k = 0; k < kWidth<S>; ++k) {
      if ((p.status[k] & kStatusStopping) != 0) continue;
      const Arena<S> work = lane_arena(p.work, k);
      S* own = reinterpret_cast<S*>(lane_work + k * lane_stride);
      // the bounding tests and H's factors stay in the pack's rows, read there by the lane
      from_pack[live] = {{reinterpret_cast<S*>(near) + k, kWidth<S>},
                         work.row(p.lay->efc_HL),
                         work.row(p.lay->efc_grad),
                         factors.damped ? work.row(p.lay->qLD) : Row<S>{nullptr, 0},
                         static_cast<bool>(factors.h_failed[k]),
                         static_cast<bool>(factors.damped_failed[k]),
                         defer ? deferred + k : nullptr,
                         {lanes + std::size_t(k) * count + nwork, 1},
                         k};
      const S* in = lanes + std::size_t(k) * count;
      for (const RowRange& range : ranges) {
        std::memcpy(own + range.first, in, sizeof(S) * (range.end - range.first));
        in += range.end - range.first;
      }
      one[live++] = {lane_arena(p.data, k), lane_arena(p.param, k), {own, 1}, p.lay, p.time + k,
                     p.status + k};
    }
    job.constrain(*job.view, one, from_pack, live, stage,
                  LaneFactor<S>{&factor_lanes<S>, factor_tile, kWidth<S> / 2});
    pack_damped_solve(view, p, Lanes<Pack<S>>::flagged(deferred, 1));
  };
  if (job.steps == 0) {
    forward_lanes(view, d, rows);
    return;
  }
  for (int s = 0; s < job.steps && !all_lanes<Pack<S>>(stopped(d)); ++s) {
    step_lanes(view, d, rows, s == 0);
  }
}

template <class S>
void run(const PackRun<S>& job) {
  using P = Pack<S>;
  constexpr int w = kWidth<S>;
  const ModelView<P> view = pack_view(*job.view);
  const Layout& lay = view.lay;
  const std::size_t stride = scratch_bytes<S>(lay, job.view->s, job.view->ncollision);
  const std::int64_t packs = (job.n + w - 1) / w;
  // the parameters are only read: a full pack reads its rows where they are, one aligned register
  // each, when the arena's rows are a whole number of packs apart
  const bool param_in_place =
      job.ld % w == 0 && reinterpret_cast<std::uintptr_t>(job.param) % alignof(P) == 0;
  const int inputs = input_rows(lay);
  const bool stream = job.stream && can_stream(job.data, job.ld);
#pragma omp parallel for num_threads(job.threads) schedule(static)
  for (std::int64_t k = 0; k < packs; ++k) {
    const std::int64_t first = k * w;
    const int count = static_cast<int>(std::min<std::int64_t>(w, job.n - first));
    std::byte* own = job.scratch + stride * omp_get_thread_num();
    P* work = reinterpret_cast<P*>(own);
    std::byte* lane_work = own + lane_work_offset<S>(lay);
    P* near = reinterpret_cast<P*>(own + near_offset<S>(lay));
    S* lanes = reinterpret_cast<S*>(own + lanes_offset<S>(lay, job.view->ncollision));
    P* factor_tile =
        reinterpret_cast<P*>(own + factor_offset<S>(lay, job.view->s, job.view->ncollision));
    // the next pack's rows, a register (at most a cache line) each, while this one computes: the
    // hardware prefetchers do not follow a stride of a padded row.  Where rows start on cache
    // lines (ld a multiple of 64 bytes: from 32 instances on), only when the next pack begins
    // new lines: two AVX2 packs (32 bytes) share each line of a row.
    if (job.prefetch && k + 1 < packs &&
        (job.ld * sizeof(S) % 64 != 0 || (first + w) * sizeof(S) % 64 == 0)) {
      for (int r = 0; r < inputs; ++r) __builtin_prefetch(job.data + first + w + r * job.ld, 1, 2);
      // outputs that go back past the caches are not brought in, except sensordata, which is
      // read
      if (!stream) {
        for (int o = 0; o < job.noutputs; ++o) {
          for (int r = job.outputs[o].first; r < job.outputs[o].second; ++r)
            __builtin_prefetch(job.data + first + w + r * job.ld, 1, 2);
        }
      } else if (job.sensordata) {
        for (int r = lay.sensordata; r < lay.data_rows; ++r)
          __builtin_prefetch(job.data + first + w + r * job.ld, 1, 2);
      }
      for (int r = 0; r < lay.param_rows; ++r)
        __builtin_prefetch(job.param + first + w + r * job.ld, 0, 2);
    }
    S* data = reinterpret_cast<S*>(work + std::max(lay.work_rows, 1));
    S* param = data + std::size_t(lay.data_rows) * w;
    double* time = reinterpret_cast<double*>(param + std::size_t(lay.param_rows) * w);
    int* status = reinterpret_cast<int*>(time + w);
    gather(job.data + first, job.ld, inputs, count, data);
    if (job.sensordata && lay.data_rows > lay.sensordata) {
      gather(job.data + first + std::int64_t(lay.sensordata) * job.ld, job.ld,
             lay.data_rows - lay.sensordata, count, data + std::size_t(lay.sensordata) * w);
    }
    const bool full = count == w && param_in_place;
    if (!full) gather(job.param + first, job.ld, lay.param_rows, count, param);
    bool keep[w];
    int before[w];
    for (int i = 0; i < w; ++i) {
      const int src = i < count ? i : 0;
      time[i] = job.time[first + src];
      before[i] = job.status[first + src];
      // a step leaves stopped instances alone; forward() recomputes every one, and its bits join
      // the earlier ones afterwards, so that those of this evaluation are known
      keep[i] = i < count && (job.steps == 0 || (before[i] & kStatusStopping) == 0);
      status[i] = job.steps == 0 ? 0 : before[i];
      if (i >= count) status[i] |= kStatusBadState;
    }
    run_pack(job, view,
             Instance<P>{{reinterpret_cast<P*>(data), 1},
                         full ? Arena<P>{reinterpret_cast<P*>(job.param + first), job.ld / w}
                              : Arena<P>{reinterpret_cast<P*>(param), 1},
                         {work, 1},
                         &view.lay,
                         time,
                         status},
             lane_work, near, lanes, factor_tile);
    // what a call writes: the state, and the kept outputs of the instances that have not stopped
    // in it (those of an instance that stops are left as they were: its tile rows may hold
    // another instance's values from an earlier pack); never the inputs ctrl, xfrc_applied and
    // mocap_*
    bool outputs[w];
    for (int i = 0; i < w; ++i) {
      outputs[i] = keep[i] && (status[i] & kStatusStopping) == 0;
      if (job.steps == 0) status[i] |= before[i];
    }
    S* out = job.data + first;
    scatter(data, lay.qpos, lay.ctrl, count, keep, out, job.ld);
    scatter(data, lay.act, lay.xfrc_applied, count, keep, out, job.ld);
    for (int o = 0; o < job.noutputs; ++o)
      scatter(data, job.outputs[o].first, job.outputs[o].second, count, outputs, out, job.ld,
              stream);
    // streamed stores are weakly ordered: the fence orders them before the stores that follow,
    // the end of the loop's release of the rows to the calling thread among them
    if (stream) _mm_sfence();
    for (int i = 0; i < count; ++i) {
      if (!keep[i]) continue;
      job.time[first + i] = time[i];
      job.status[first + i] = status[i];
    }
  }
}

}  // namespace

template <class S>
PackIsa<S> ZW_PACK_ISA_FUNCTION() {
  return {ZW_PACK_ISA_NAME, kWidth<S>, &scratch_bytes<S>, &run<S>};
}

template PackIsa<float> ZW_PACK_ISA_FUNCTION();
template PackIsa<double> ZW_PACK_ISA_FUNCTION();

}  // namespace zwang
