// step_jacobians: the kernels' step on Dual<double, kDirections>, one pass (of every step asked
// for) per kDirections columns of [A B E; C D F], the instances spread over threads.

#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>
#include <vector>

#include "host/model/arrays.hpp"
#include "kernels/dual.h"
#include "kernels/pipeline.h"
#include "zwang/derivatives.hpp"

namespace zwang {
namespace {

// tangent directions per pass: the step's cost grows by about this many value operations per
// operation, and a pass's fixed cost (the value part) is shared by them
constexpr int kDirections = 8;
using D = Dual<double, kDirections>;

// q ⊗ (0, v)
std::array<double, 4> mul_pure(const double* q, const double* v) {
  return {-(q[1] * v[0] + q[2] * v[1] + q[3] * v[2]), q[0] * v[0] + q[2] * v[2] - q[3] * v[1],
          q[0] * v[1] + q[3] * v[0] - q[1] * v[2], q[0] * v[2] + q[1] * v[1] - q[2] * v[0]};
}

// One instance's arenas in dual numbers, and the values of position_outputs()'s data rows once a
// pass has computed them (kernels/model_view.h)
struct Scratch {
  std::vector<D> data, param, work;
  std::vector<double> positions;
  double time = 0;
  int status = 0;
  Instance<D> instance(const ModelView<D>& m) {
    return {{data.data(), 1}, {param.data(), 1}, {work.data(), 1}, &m.lay, &time, &status};
  }
};

class Differentiator {
 public:
  // param_rows: the parameter arena's row of each of E's columns
  Differentiator(const Model& model, std::vector<int> param_rows, int steps, StepJacobians& out)
      : model_(model),
        arrays_(model),
        reals_(arrays_.reals().begin(), arrays_.reals().end()),
        m_(arrays_.view_as<D>(arrays_.ints().data(), reals_.data())),
        values_(arrays_.view()),
        param_rows_(std::move(param_rows)),
        steps_(steps),
        out_(out) {
    // the constraint solver's Newton iterations run on the values in double
    m_.values = &values_;
    given_ = m_;
    given_.positions_given = true;
  }
  Differentiator(const Differentiator&) = delete;
  Differentiator& operator=(const Differentiator&) = delete;

  // the batch's arenas, read once before the threads start (a device copy's host mirror is
  // brought up to date by those reads)
  template <class T>
  struct Source {
    const T* data;
    const T* param;
    const double* time;
    const int* status;
    std::int64_t ld;
  };

  template <class T>
  void run(const Source<T>& from, std::int64_t row, std::int64_t i, Scratch& s) const {
    const Layout& lay = m_.lay;
    const std::int64_t ld = from.ld;
    const int ncol = out_.nx + out_.nu + out_.np;
    // the work rows are scratch that every stage writes before it reads (as the CPU backends'
    // per-thread rows, reused from instance to instance); the parameters are only read, and a
    // pass's seeds in them are cleared after it
    s.data.resize(std::max(lay.data_rows, 1));
    s.param.resize(std::max(lay.param_rows, 1));
    s.work.resize(std::max(lay.work_rows, 1));
    for (int r = 0; r < lay.param_rows; ++r) {
      s.param[r] = D(static_cast<double>(from.param[r * ld + i]));
    }
    const auto load = [&] {
      for (int r = 0; r < lay.data_rows; ++r) {
        s.data[r] = D(static_cast<double>(from.data[r * ld + i]));
      }
      s.time = from.time[i];
      s.status = 0;
    };
    // an instance that has stopped does not step: its state as it is, NaN blocks
    const int stopped = from.status[i] & ~kStatusNotConverged;
    if (stopped) {
      load();
      keep_values(s, row);
      out_.status[row] = from.status[i];
      poison(row);
      return;
    }
    // A pass seeded in qvel, act and ctrl alone leaves the positions' tangents 0: in one step
    // that evaluates the positions once, at its start, it takes their stages' outputs from the
    // first pass that ran them without a failure, as MuJoCo's finite differences skip the
    // position stages for those columns
    const bool once = steps_ == 1 && model_.integrator != Integrator::kRK4;
    bool known = false;
    int status = 0;
    for (int first = 0; first < ncol; first += kDirections) {
      load();
      const int count = std::min(kDirections, ncol - first);
      const bool given = once && known && first >= model_.nv && first + count <= out_.nx + out_.nu;
      if (given) give_positions(s);
      for (int k = 0; k < count; ++k) seed(s, first + k, k);
      const ModelView<D>& m = given ? given_ : m_;
      const Instance<D> d = s.instance(m);
      for (int n = 0; n < steps_ && !(s.status & ~kStatusNotConverged); ++n) step(m, d);
      if (once && !known && !(s.status & ~kStatusNotConverged)) {
        keep_positions(s);
        known = true;
      }
      status |= s.status;
      for (int k = 0; k < count; ++k) read(s, row, first + k, k);
      for (int k = 0; k < count; ++k) {
        const int c = first + k - out_.nx - out_.nu;
        if (c >= 0) s.param[param_rows_[c]] = D(s.param[param_rows_[c]].v);
      }
    }
    // every pass computes the same values: the last pass's, which has given positions where
    // the last columns are qvel's, act's or ctrl's, so that a comparison of the values with
    // step() covers such a pass as well
    if (ncol > 0) keep_values(s, row);
    out_.status[row] = status;
    if (status & ~kStatusNotConverged) poison(row);
  }

 private:
  // the values of position_outputs()'s data rows after a pass that computed them
  void keep_positions(Scratch& s) const {
    s.positions.clear();
    position_outputs(m_, [&](bool data, int first, int rows) {
      if (!data) return;
      for (int r = first; r < first + rows; ++r) s.positions.push_back(s.data[r].v);
    });
  }

  // position_outputs()'s rows with their values and no tangents: the data rows from
  // keep_positions(), the work rows as every pass left them (each computes the same values)
  void give_positions(Scratch& s) const {
    std::size_t at = 0;
    position_outputs(m_, [&](bool data, int first, int rows) {
      for (int r = first; r < first + rows; ++r) {
        if (data) {
          s.data[r] = D(s.positions[at++]);
        } else {
          s.work[r] = D(s.work[r].v);
        }
      }
    });
  }

  // the tangent of input column c in direction k: x's, then ctrl's, then the parameters'
  void seed(Scratch& s, int c, int k) const {
    const Layout& lay = m_.lay;
    const int nv = model_.nv, nx = out_.nx;
    if (c >= nx + out_.nu) {
      s.param[param_rows_[c - nx - out_.nu]].d[k] = 1;
    } else if (c >= nx) {
      s.data[lay.ctrl + (c - nx)].d[k] = 1;
    } else if (c >= 2 * nv) {
      s.data[lay.act + (c - 2 * nv)].d[k] = 1;
    } else if (c >= nv) {
      s.data[lay.qvel + (c - nv)].d[k] = 1;
    } else {
      // dof c: its coordinate, or the rotation q ⊗ exp(δ e / 2), whose derivative is ½ q ⊗ (0, e)
      const int j = model_.dof_jntid[c];
      const int qa = model_.jnt_qposadr[j], r = c - model_.jnt_dofadr[j];
      const JointType type = model_.jnt_type[j];
      if (type == JointType::kHinge || type == JointType::kSlide ||
          (type == JointType::kFree && r < 3)) {
        s.data[lay.qpos + qa + r].d[k] = 1;
        return;
      }
      const int qr = qa + (type == JointType::kFree ? 3 : 0);
      const int axis = type == JointType::kFree ? r - 3 : r;
      double q[4], e[3] = {0, 0, 0};
      for (int a = 0; a < 4; ++a) q[a] = s.data[lay.qpos + qr + a].v;
      e[axis] = 0.5;
      const std::array<double, 4> dq = mul_pure(q, e);
      for (int a = 0; a < 4; ++a) s.data[lay.qpos + qr + a].d[k] = dq[a];
    }
  }

  // column c of the blocks from direction k
  void read(const Scratch& s, std::int64_t row, int c, int k) const {
    const Layout& lay = m_.lay;
    const int nx = out_.nx, nu = out_.nu;
    const int ns = out_.nsensordata, np = out_.np;
    // the block of the column, its width and the column within it
    const int block = c < nx ? 0 : c < nx + nu ? 1 : 2;
    const int width = block == 0 ? nx : block == 1 ? nu : np;
    const int col = block == 0 ? c : block == 1 ? c - nx : c - nx - nu;
    std::vector<double>& upper = block == 0 ? out_.A : block == 1 ? out_.B : out_.E;
    std::vector<double>& lower = block == 0 ? out_.C : block == 1 ? out_.D : out_.F;
    // no state rows (a model without dofs): A, B and E are empty
    if (nx > 0) read_state(s, upper.data() + (row * nx) * width + col, width, k);
    // sensordata's rows (none: C, D and F are empty, and no address into them is formed)
    if (ns == 0) return;
    double* bottom = &lower[(row * ns) * width + col];
    for (int r = 0; r < ns; ++r) bottom[r * width] = s.data[lay.sensordata + r].d[k];
  }

  // x⁺'s tangent from direction k into a column of stride `width`
  void read_state(const Scratch& s, double* top, int width, int k) const {
    const Layout& lay = m_.lay;
    const int nv = model_.nv, na = model_.na;
    // qpos rows: the tangent of each joint's coordinates after the step
    for (int j = 0; j < model_.njnt; ++j) {
      const int qa = model_.jnt_qposadr[j], da = model_.jnt_dofadr[j];
      const JointType type = model_.jnt_type[j];
      int linear = type == JointType::kFree ? 3 : type == JointType::kBall ? 0 : 1;
      for (int r = 0; r < linear; ++r) top[(da + r) * width] = s.data[lay.qpos + qa + r].d[k];
      if (type != JointType::kFree && type != JointType::kBall) continue;
      // 2 vec(q̄ ⊗ dq) = 2 (q₀ dq_v − dq₀ q_v − q_v × dq_v): the body-frame rotation vector of
      // the change
      const int qr = qa + linear, dr = da + linear;
      double q[4], dq[4];
      for (int a = 0; a < 4; ++a) {
        q[a] = s.data[lay.qpos + qr + a].v;
        dq[a] = s.data[lay.qpos + qr + a].d[k];
      }
      const double cross[3] = {q[2] * dq[3] - q[3] * dq[2], q[3] * dq[1] - q[1] * dq[3],
                               q[1] * dq[2] - q[2] * dq[1]};
      for (int a = 0; a < 3; ++a) {
        top[(dr + a) * width] = 2 * (q[0] * dq[1 + a] - dq[0] * q[1 + a] - cross[a]);
      }
    }
    for (int r = 0; r < nv; ++r) top[(nv + r) * width] = s.data[lay.qvel + r].d[k];
    for (int r = 0; r < na; ++r) top[(2 * nv + r) * width] = s.data[lay.act + r].d[k];
  }

  void keep_values(const Scratch& s, std::int64_t row) const {
    const Layout& lay = m_.lay;
    const auto copy = [&](std::vector<double>& to, int from, int count) {
      for (int r = 0; r < count; ++r) to[row * count + r] = s.data[from + r].v;
    };
    copy(out_.qpos, lay.qpos, model_.nq);
    copy(out_.qvel, lay.qvel, model_.nv);
    copy(out_.act, lay.act, model_.na);
    copy(out_.sensordata, lay.sensordata, model_.nsensordata);
  }

  void poison(std::int64_t row) const {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const auto fill = [&](std::vector<double>& v, std::int64_t size) {
      std::fill_n(v.begin() + row * size, size, nan);
    };
    const std::int64_t nx = out_.nx, nu = out_.nu, ns = out_.nsensordata, np = out_.np;
    fill(out_.A, nx * nx);
    fill(out_.B, nx * nu);
    fill(out_.C, ns * nx);
    fill(out_.D, ns * nu);
    fill(out_.E, nx * np);
    fill(out_.F, ns * np);
  }

  const Model& model_;
  ModelArrays<double> arrays_;
  std::vector<D> reals_;
  ModelView<D> m_;
  ModelView<double> values_;  // the model that m_.values points to
  ModelView<D> given_;        // m_ with positions_given
  std::vector<int> param_rows_;
  int steps_;
  StepJacobians& out_;
};

}  // namespace

template <class T>
StepJacobians step_jacobians(const Model& model, const Batch<T>& batch,
                             std::span<const std::int64_t> instances, int threads,
                             std::span<const FieldId> params, int steps) {
  if (steps < 1) {
    throw std::invalid_argument(fmt::format("step_jacobians: steps is {}, not 1 or more", steps));
  }
  for (std::int64_t i : instances) {
    if (i < 0 || i >= batch.size()) {
      throw std::out_of_range(fmt::format("instance {} is not in [0, {})", i, batch.size()));
    }
  }
  std::vector<int> param_rows;
  for (std::size_t k = 0; k < params.size(); ++k) {
    const FieldRows rows = field_rows(params[k], batch.layout(), batch.sizes());
    if (rows.arena != ArenaId::kParam) {
      throw std::invalid_argument(
          fmt::format("step_jacobians: {} is not a parameter", field_name(params[k])));
    }
    if (std::find(params.begin(), params.begin() + k, params[k]) != params.begin() + k) {
      throw std::invalid_argument(
          fmt::format("step_jacobians: the parameter {} is listed twice", field_name(params[k])));
    }
    for (int r = 0; r < rows.rows; ++r) param_rows.push_back(rows.row + r);
  }
  StepJacobians out;
  out.n = static_cast<std::int64_t>(instances.size());
  out.nx = 2 * model.nv + model.na;
  out.nu = model.nu;
  out.nsensordata = model.nsensordata;
  out.np = static_cast<int>(param_rows.size());
  const auto sized = [&](std::int64_t per) {
    return std::vector<double>(static_cast<std::size_t>(out.n * per));
  };
  out.A = sized(std::int64_t{out.nx} * out.nx);
  out.B = sized(std::int64_t{out.nx} * out.nu);
  out.C = sized(std::int64_t{out.nsensordata} * out.nx);
  out.D = sized(std::int64_t{out.nsensordata} * out.nu);
  out.E = sized(std::int64_t{out.nx} * out.np);
  out.F = sized(std::int64_t{out.nsensordata} * out.np);
  out.qpos = sized(model.nq);
  out.qvel = sized(model.nv);
  out.act = sized(model.na);
  out.sensordata = sized(model.nsensordata);
  out.status.assign(static_cast<std::size_t>(out.n), 0);
  if (out.n == 0) return out;
  const Differentiator diff(model, std::move(param_rows), steps, out);
  const Differentiator::Source<T> from{batch.data_arena(), batch.param_arena(), batch.time().data(),
                                       batch.status().data(), batch.padded_size()};
  const int nthreads = threads > 0 ? threads : omp_get_max_threads();
#pragma omp parallel num_threads(nthreads)
  {
    Scratch s;
#pragma omp for schedule(dynamic)
    for (std::int64_t row = 0; row < out.n; ++row) diff.run(from, row, instances[row], s);
  }
  return out;
}

template StepJacobians step_jacobians<double>(const Model&, const Batch<double>&,
                                              std::span<const std::int64_t>, int,
                                              std::span<const FieldId>, int);
template StepJacobians step_jacobians<float>(const Model&, const Batch<float>&,
                                             std::span<const std::int64_t>, int,
                                             std::span<const FieldId>, int);

}  // namespace zwang
