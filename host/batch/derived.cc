// MuJoCo's ximat, cinert, cvel, site_xpos and site_xmat, and the frames of merged bodies, from a
// batch's kinematics.
#include "zwang/derived.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <omp.h>

#include <Eigen/Eigenvalues>
#include <cmath>
#include <iterator>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "kernels/forward_kinematics.h"
#include "kernels/instance.h"
#include "kernels/math_vec.h"

namespace zwang {
namespace {

// the body each body hangs from just below the world (MuJoCo's body_rootid); the world's is 0
std::vector<int> root_ids(const Model& m) {
  std::vector<int> root(m.nbody, 0);
  for (int b = 1; b < m.nbody; ++b)
    root[b] = m.body_parentid[b] == 0 ? b : root[m.body_parentid[b]];
  return root;
}

// principal axes of a body-frame inertia tensor (xx yy zz xy xz yz) as the columns of a
// rotation, in decreasing moment; each of the first two columns has its largest component
// positive, the third completes a right-handed frame
Eigen::Matrix3d principal_axes(const Eigen::Matrix<double, 6, 1>& i) {
  Eigen::Matrix3d a;
  a << i[0], i[3], i[4], i[3], i[1], i[5], i[4], i[5], i[2];
  // already diagonal in decreasing order (the common case): the body frame itself, exactly
  if (i[3] == 0 && i[4] == 0 && i[5] == 0 && i[0] >= i[1] && i[1] >= i[2]) {
    return Eigen::Matrix3d::Identity();
  }
  const Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> eig(a);
  Eigen::Matrix3d p;
  for (int c = 0; c < 2; ++c) {
    Eigen::Vector3d v = eig.eigenvectors().col(2 - c);
    Eigen::Index k = 0;
    v.cwiseAbs().maxCoeff(&k);
    p.col(c) = v[k] < 0 ? -v : v;
  }
  p.col(2) = p.col(0).cross(p.col(1));
  return p;
}

// a derived quantity's name, values per entity, and the count of entities in the model
struct DerivedInfo {
  const char* name;
  int width;
  int Model::*count;
};

// by Derived value
constexpr DerivedInfo kDerivedInfo[] = {
    {"ximat", 9, &Model::nbody},        {"cinert", 10, &Model::nbody},
    {"cvel", 6, &Model::nbody},         {"site_xpos", 3, &Model::nsite},
    {"site_xmat", 9, &Model::nsite},    {"fused_xpos", 3, &Model::nfused},
    {"fused_xquat", 4, &Model::nfused}, {"fused_xmat", 9, &Model::nfused},
    {"fused_xipos", 3, &Model::nfused}, {"fused_vel", 6, &Model::nfused},
};
static_assert(std::size(kDerivedInfo) == std::size(kAllDerived));
// the table is indexed by value: kAllDerived holds the values 0, 1, ... in the table's order
static_assert([] {
  for (std::size_t i = 0; i < std::size(kAllDerived); ++i) {
    if (static_cast<std::size_t>(kAllDerived[i]) != i) return false;
  }
  return true;
}());

const DerivedInfo& info(Derived what) {
  const int w = static_cast<int>(what);
  if (w < 0 || w >= static_cast<int>(std::size(kDerivedInfo))) {
    throw std::invalid_argument("unknown derived quantity");
  }
  return kDerivedInfo[w];
}

}  // namespace

int derived_count(const Model& model, Derived what) {
  return model.*info(what).count;
}

int derived_width(Derived what) {
  return info(what).width;
}

int derived_size(const Model& model, Derived what) {
  return derived_count(model, what) * derived_width(what);
}

const char* derived_name(Derived what) {
  return info(what).name;
}

std::vector<FieldId> derived_fields(Derived what) {
  switch (what) {
    case Derived::kXimat:
    case Derived::kSiteXmat:
      return {FieldId::xquat};
    case Derived::kCinert:
      return {FieldId::xquat, FieldId::xipos, FieldId::subtree_com};
    case Derived::kCvel:
      return {FieldId::subtree_com, FieldId::cvel};
    case Derived::kFusedVel:
      return {FieldId::xpos, FieldId::xquat, FieldId::cvel};
    case Derived::kSiteXpos:
    case Derived::kFusedXpos:
    case Derived::kFusedXipos:
      return {FieldId::xpos, FieldId::xquat};
    case Derived::kFusedXquat:
    case Derived::kFusedXmat:
      return {FieldId::xquat};
  }
  throw std::invalid_argument("unknown derived quantity");
}

template <class T>
void derive(const Model& model, Batch<T>& batch, Derived what, std::span<T> out, int threads) {
  const int width = derived_size(model, what);
  const std::int64_t n = batch.size(), ld = batch.padded_size();
  if (out.size() != static_cast<std::size_t>(n) * width) {
    throw std::invalid_argument(fmt::format(
        "derive: the output has {} values, {} instances need {}", out.size(), n, n * width));
  }
  // nothing to compute: no fields are read
  if (width == 0) return;
  std::vector<std::string> missing;
  for (const FieldId f : derived_fields(what)) {
    if (!batch.kept(f)) missing.emplace_back(field_name(f));
  }
  if (!missing.empty()) {
    std::vector<std::string> needs;
    for (const FieldId f : derived_fields(what)) needs.emplace_back(field_name(f));
    throw OutputNotKept(fmt::format(
        "{} is computed from {}; this simulator does not keep {} current: list {} in its "
        "outputs when creating it",
        derived_name(what), fmt::join(needs, ", "), fmt::join(missing, ", "),
        missing.size() == 1 ? "it" : "them"));
  }
  if (threads < 0)
    throw std::invalid_argument(fmt::format("threads must be non-negative (got {})", threads));
  const std::vector<int> root = root_ids(model);
  const Layout& l = batch.layout();
  // read only: through the const arenas, which a sync hook does not mark changed
  const T* data = std::as_const(batch).data_arena();
  const T* param = std::as_const(batch).param_arena();
  const int nbody = model.nbody;
  // one instance's rows as accessors: element j of a field at base[j * ld]
  const auto row = [&](const T* arena, int offset, std::int64_t i) {
    return Row<T>{const_cast<T*>(arena) + offset * ld + i, ld};
  };

#pragma omp parallel for num_threads(threads > 0 ? threads : omp_get_max_threads()) schedule(static)
  for (std::int64_t i = 0; i < n; ++i) {
    T* o = out.data() + i * width;
    const Row<T> xpos = row(data, l.xpos, i), xquat = row(data, l.xquat, i);
    const Row<T> xipos = row(data, l.xipos, i), com = row(data, l.subtree_com, i);
    const Row<T> cvel = row(data, l.cvel, i);
    const Row<T> mass = row(param, l.body_mass, i), inertia = row(param, l.body_inertia, i);
    const auto body_rotation = [&](int b) { return to_mat(normalized(load_quat(xquat, 4 * b))); };
    // point k of `points`, given in the frame of body b, in the world
    const auto point_of = [&](int b, const std::vector<double>& points, int k) {
      const double* p = points.data() + 3 * k;
      return frame_point(load3(xpos, 3 * b), body_rotation(b), Vec3<T>{T(p[0]), T(p[1]), T(p[2])});
    };
    // frame k of `quats`, fixed in body b, in the world
    const auto quat_of = [&](int b, const std::vector<double>& quats, int k) {
      const double* q = quats.data() + 4 * k;
      return normalized(frame_quat(normalized(load_quat(xquat, 4 * b)),
                                   Quat<T>{T(q[0]), T(q[1]), T(q[2]), T(q[3])}));
    };
    const auto fused_point = [&](int f, const std::vector<double>& points) {
      return point_of(model.fused_bodyid[f], points, f);
    };
    switch (what) {
      case Derived::kXimat:
        for (int b = 0; b < nbody; ++b) {
          Eigen::Matrix<double, 6, 1> tensor;
          for (int k = 0; k < 6; ++k) tensor[k] = static_cast<double>(inertia[6 * b + k]);
          const Eigen::Matrix3d p = principal_axes(tensor);
          const Mat3<T> r = body_rotation(b);
          // ximat = R_b P_b
          for (int rr = 0; rr < 3; ++rr) {
            for (int c = 0; c < 3; ++c) {
              double v = 0;
              for (int k = 0; k < 3; ++k) v += static_cast<double>(r.m[3 * rr + k]) * p(k, c);
              o[9 * b + 3 * rr + c] = static_cast<T>(v);
            }
          }
        }
        break;
      case Derived::kCinert:
        for (int b = 0; b < nbody; ++b) {
          // I_c = R I Rᵀ + m (|d|² E − d dᵀ), d = xipos − subtree_com[root]
          const T m = mass[b];
          const Sym3<T> iw = rotate(body_rotation(b), load_sym(inertia, 6 * b));
          const Vec3<T> d = load3(xipos, 3 * b) - load3(com, 3 * root[b]);
          T* c = o + 10 * b;
          c[0] = iw.xx + m * (d.y * d.y + d.z * d.z);
          c[1] = iw.yy + m * (d.x * d.x + d.z * d.z);
          c[2] = iw.zz + m * (d.x * d.x + d.y * d.y);
          c[3] = iw.xy - m * d.x * d.y;
          c[4] = iw.xz - m * d.x * d.z;
          c[5] = iw.yz - m * d.y * d.z;
          c[6] = m * d.x;
          c[7] = m * d.y;
          c[8] = m * d.z;
          c[9] = m;
        }
        break;
      case Derived::kCvel:
        for (int b = 0; b < nbody; ++b) {
          // [ω; v_O + ω × c]: the Plücker vector at the world origin moved to c
          const Vec3<T> v0 = load3(cvel, 6 * b), w = load3(cvel, 6 * b + 3);
          const Vec3<T> v = v0 + cross(w, load3(com, 3 * root[b]));
          store3(o, 6 * b, w);
          store3(o, 6 * b + 3, v);
        }
        break;
      case Derived::kSiteXpos:
      case Derived::kSiteXmat:
        for (int s = 0; s < model.nsite; ++s) {
          const int b = model.site_bodyid[s];
          if (what == Derived::kSiteXpos) {
            store3(o, 3 * s, point_of(b, model.site_pos, s));
          } else {
            store_mat(o, 9 * s, to_mat(quat_of(b, model.site_quat, s)));
          }
        }
        break;
      case Derived::kFusedXpos:
      case Derived::kFusedXipos:
        for (int f = 0; f < model.nfused; ++f) {
          store3(o, 3 * f,
                 fused_point(f, what == Derived::kFusedXpos ? model.fused_pos : model.fused_ipos));
        }
        break;
      case Derived::kFusedXquat:
      case Derived::kFusedXmat:
        for (int f = 0; f < model.nfused; ++f) {
          const Quat<T> q = quat_of(model.fused_bodyid[f], model.fused_quat, f);
          if (what == Derived::kFusedXmat) {
            store_mat(o, 9 * f, to_mat(q));
          } else {
            store_quat(o, 4 * f, q);
          }
        }
        break;
      case Derived::kFusedVel:
        for (int f = 0; f < model.nfused; ++f) {
          // [ω; v_O + ω × p], p the frame origin: the body's Plücker velocity moved to p
          const int b = model.fused_bodyid[f];
          const Vec3<T> v0 = load3(cvel, 6 * b), w = load3(cvel, 6 * b + 3);
          store3(o, 6 * f, w);
          store3(o, 6 * f + 3, v0 + cross(w, fused_point(f, model.fused_pos)));
        }
        break;
    }
  }
}

template void derive(const Model&, Batch<float>&, Derived, std::span<float>, int);
template void derive(const Model&, Batch<double>&, Derived, std::span<double>, int);

}  // namespace zwang
