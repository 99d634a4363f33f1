// (height field, convex geom, margin) => contacts (dist, pos, frame)
//
// MuJoCo 4.0's height-field collision (mjc_ConvexHField) for a sphere, capsule, ellipsoid,
// cylinder, box or mesh: the height field as triangular prisms, each against the geom by the GJK
// and EPA of kernels/narrowphase_ccd.h, one contact per prism.  In the height field's frame (the
// geom's pose there: p = R_hᵀ (p_g − p_h), R = R_hᵀ R_g):
//   box      the geom's extent along the frame's axes, from its support points inflated by
//            margin/2 (x_min ... z_max); none when it misses the field's box [−s₀, s₀] ×
//            [−s₁, s₁] × [−s₃, s₂] by more than the margin
//   cells    columns c_min = ⌊(x_min − margin/2 + s₀) / (2 s₀) · (ncol − 1)⌋ to
//            c_max = ⌈(x_max + margin/2 + s₀) / (2 s₀) · (ncol − 1)⌉, rows likewise along y,
//            clamped to the grid (the cells within the margin of the geom's box)
//   prisms   cell (c − 1 .. c, r .. r + 1): the prism over the corners (c − 1, r + 1), (c − 1, r),
//            (c, r + 1), then the one over (c − 1, r), (c, r + 1), (c, r), rows r outermost; the
//            corner (c, r) at x = 2 s₀ c / (ncol − 1) − s₀, y = 2 s₁ r / (nrow − 1) − s₁, its
//            top at s₂ e(r, c), its bottom at −s₃; each inflated by margin/2 as the geom is
//   contact  each prism's, as kernels/narrowphase_ccd.h gives it (dist = margin − depth), in the
//            world: pos = R_h p + p_h, normal R_h n, frame by mju_makeFrame with no hint
// in that order, at most kMaxContacts (MuJoCo's mjMAXCONPAIR) per pair.  A prism whose top is
// well below the geom (by more than 1.5 margins) is skipped: it cannot touch.  The prisms are built
// one at a time; the cells visited are bounded by the grid.
//
// Included by kernels/narrowphase.h after kernels/narrowphase_ccd.h; never on its own.
#pragma once

#include <cmath>

#include "kernels/hd.h"
#include "kernels/math_vec.h"

namespace zwang {
namespace hfield {

// MuJoCo's mjMAXCONPAIR
constexpr int kMaxContacts = 50;

// a contact found in the height field's frame, passed on in the world's
template <class T, class Emit>
struct ToWorld {
  const GeomPose<T>& h;
  Emit& emit;
  ZW_HD void operator()(const ContactGeo<T>& c) const {
    const Vec3<T> n = mul(h.mat, Vec3<T>{c.frame.m[0], c.frame.m[1], c.frame.m[2]});
    emit(ContactGeo<T>{c.dist, mul(h.mat, c.pos) + h.pos,
                       primitive::make_frame(n, Vec3<T>{T(0), T(0), T(0)})});
  }
};

// the height field g1 against geom g2 of type t2 (sphere .. mesh)
template <class T, class Emit>
ZW_HD int collide(int t2, const GeomPose<T>& g1, const GeomPose<T>& g2, T margin, Emit& emit) {
  // a mesh without a hull collides with nothing
  if (t2 == GeomType::kMesh && g2.mesh.nvert == 0) return 0;
  const HFieldGrid<T>& f = g1.hfield;
  const T s0 = f.size[0], s1 = f.size[1], s2 = f.size[2], s3 = f.size[3];
  // geom 2 in the height field's frame
  GeomPose<T> local = g2;
  local.pos = mul_transposed(g1.mat, g2.pos - g1.pos);
  for (int j = 0; j < 3; ++j) {
    const Vec3<T> col = mul_transposed(g1.mat, column(g2.mat, j));
    local.mat.m[j] = col.x;
    local.mat.m[3 + j] = col.y;
    local.mat.m[6 + j] = col.z;
  }
  const T half = T(0.5) * margin;
  const ccd::Shape<T> geom{t2, &local, half, ccd::kWhole};
  // its box, inflated by margin/2
  int index;
  const Vec3<T> ex{T(1), T(0), T(0)}, ey{T(0), T(1), T(0)}, ez{T(0), T(0), T(1)};
  const T hi[3] = {ccd::support(geom, ex, index).x, ccd::support(geom, ey, index).y,
                   ccd::support(geom, ez, index).z};
  const T lo[3] = {ccd::support(geom, T(-1) * ex, index).x, ccd::support(geom, T(-1) * ey, index).y,
                   ccd::support(geom, T(-1) * ez, index).z};
  const int last_col = f.ncol - 1, last_row = f.nrow - 1;
  const T dx = T(2) * s0 / T(last_col), dy = T(2) * s1 / T(last_row);
  // (written so that a pose or a grid that is not finite has no contact)
  const bool near = lo[0] - margin <= s0 && hi[0] + margin >= -s0 && lo[1] - margin <= s1 &&
                    hi[1] + margin >= -s1 && lo[2] - margin <= s2 && hi[2] + margin >= -s3 &&
                    dx < T(3.4e38) && dy < T(3.4e38);
  if (!near) return 0;
  // the grid line at or below (up: at or above) v, clamped to the grid (NaN to 0)
  const auto cell = [](T v, T s, int last, bool up) {
    const T x = (v + s) / (T(2) * s) * T(last);
    const T k = up ? T(vceil(x)) : T(vfloor(x));
    return !(k >= T(0)) ? 0 : (k > T(last) ? last : static_cast<int>(k));
  };
  const int cmin = cell(lo[0] - half, s0, last_col, false);
  const int cmax = cell(hi[0] + half, s0, last_col, true);
  const int rmin = cell(lo[1] - half, s1, last_row, false);
  const int rmax = cell(hi[1] + half, s1, last_row, true);

  // the prism's corners, the newest last; the bottom ones at −s₃
  Vec3<T> prism[6];
  GeomPose<T> centre{};
  for (int i = 0; i < 3; ++i) prism[i].z = -s3;
  const auto push = [&](int r, int c) {
    prism[0] = prism[1];
    prism[1] = prism[2];
    prism[3] = prism[4];
    prism[4] = prism[5];
    const T x = dx * T(c) - s0, y = dy * T(r) - s1;
    prism[2] = {x, y, -s3};
    prism[5] = {x, y, f.elevation(r, c) * s2};
  };
  ToWorld<T, Emit> to_world{g1, emit};
  int count = 0;
  for (int r = rmin; r < rmax && count < kMaxContacts; ++r) {
    push(r + 1, cmin);
    push(r, cmin);
    for (int c = cmin + 1; c <= cmax && count < kMaxContacts; ++c) {
      for (int i = 0; i < 2 && count < kMaxContacts; ++i) {
        push(r + 1 - i, c);
        // below the geom (lo[2], itself lowered by margin/2) by more than the margin: apart
        if (prism[3].z + margin < lo[2] && prism[4].z + margin < lo[2] &&
            prism[5].z + margin < lo[2]) {
          continue;
        }
        Vec3<T> sum = prism[0];
        for (int k = 1; k < 6; ++k) sum = sum + prism[k];
        centre.pos = T(1.0 / 6.0) * sum;
        count += ccd::collide(GeomType::kHfield, t2, centre, local, margin, to_world, prism);
      }
    }
  }
  return count;
}

}  // namespace hfield
}  // namespace zwang
