// (xpos, xquat, xmat, cdof, cvel, qvel)
//     => (geom_xpos, geom_xmat, ncon, contact_*, efc rows of the contacts)    seed 002, DESIGN §1
// and, after the solve, (efc_force) => (contact_force, subtree_com, cfrc_ext).
//
// Collision: every geom pair of the plan (host/model/constraint_plan.cc) that passes the bounding-
// sphere test goes through the narrow phase (kernels/narrowphase.h); contacts fill the slots
// 0 .. ncon − 1 in pair order.  More contacts than slots set kStatusContactOverflow.
//
// Rows (MuJoCo 2.2): with the frame (n, t₁, t₂) of a contact between bodies b₁ and b₂ at p,
// J_lin = frame (J_p(b₂, p) − J_p(b₁, p)) and J_rot = frame (J_ω(b₂) − J_ω(b₁)); the rows of
// condim k are the first k of (J_lin, J_rot).  Impedance from the distance, margin = margin − gap;
// Â from tran, the bodies' translational invweight0 sum (MuJoCo's rotational Â of the other
// rows is overwritten by the friction rules below):
//   frictionless  one inequality row J_n, R from Â = tran
//   pyramidal     edges J_n ± μ_j J_j (j < condim − 1), each an inequality, all with
//                 R = 2 μ² R₀, μ = μ₁ √(1 / impratio), R₀ the first edge's
//   elliptic      the rows J_n, J_j with R₀ from tran, R₁ = R₀ / impratio, R_j μ_j² = R₁ μ₁²,
//                 one cone per contact: ‖(μ_j f_j)‖ ≤ μ f_n for the regularised μ = μ₁ √(R₁ / R₀)
//   aref = −B J q̇ − K d (dist − margin) on the normal and edge rows, −B J q̇ on the friction rows.
// A contact at distance ≥ margin − gap is reported but has no force (MuJoCo's gap).
#pragma once

#include <cmath>

#include "kernels/constraint_rows.h"
#include "kernels/forward_kinematics.h"
#include "kernels/from_pack.h"
#include "kernels/group.h"
#include "kernels/hd.h"
#include "kernels/instance.h"
#include "kernels/math_vec.h"
#include "kernels/model_view.h"
#include "kernels/narrowphase.h"
#include "kernels/status.h"

namespace zwang {

// geom frames in the world: x_g = x_b + R_b p_g, q_g = q_b ⊗ q_local; a geom per item
template <class T, class Grp>
ZW_HD void geom_poses(const ModelView<T>& m, const Instance<T>& d, Grp& grp) {
  const Row<T> gpos = d.geom_xpos(), gmat = d.geom_xmat();
  grp.each(m.s.ngeom, [&](int g) ZW_ITEM {
    Vec3<T> x;
    Mat3<T> r;
    geom_frame(m, d, g, x, r);
    store3(gpos, 3 * g, x);
    store_mat(gmat, 9 * g, r);
  });
}

template <class T>
ZW_HD void geom_poses(const ModelView<T>& m, const Instance<T>& d) {
  Solo g;
  geom_poses(m, d, g);
}

template <class T>
ZW_HD ZW_INLINE Vec3<T> frame_row(const Mat3<T>& a, int k) {
  return {a.m[3 * k], a.m[3 * k + 1], a.m[3 * k + 2]};
}

template <class T>
ZW_HD ZW_INLINE GeomPose<T> geom_pose(const ModelView<T>& m, const Instance<T>& d, int g) {
  GeomPose<T> p{load3(d.geom_xpos(), 3 * g),
                load_mat(d.geom_xmat(), 9 * g),
                {m.geom_size[3 * g], m.geom_size[3 * g + 1], m.geom_size[3 * g + 2]}};
  const int mesh = m.geom_type[g] == GeomType::kMesh ? m.geom_dataid[g] : -1;
  if (mesh >= 0) {
    const int vertadr = m.mesh_vertadr[mesh], polyadr = m.mesh_polyadr[mesh];
    p.mesh = {m.mesh_vert + 3 * vertadr,
              m.mesh_vertnum[mesh],
              m.mesh_polyvertadr + polyadr,
              m.mesh_polyvertnum + polyadr,
              m.mesh_polyvert,
              m.mesh_polynormal + 3 * polyadr,
              m.mesh_polymapadr + vertadr,
              m.mesh_polymapnum + vertadr,
              m.mesh_polymap};
  }
  const int field = m.geom_type[g] == GeomType::kHfield ? m.geom_dataid[g] : -1;
  if (field >= 0) {
    p.hfield.data = m.hfield_data + m.hfield_adr[field];
    p.hfield.nrow = m.hfield_nrow[field];
    p.hfield.ncol = m.hfield_ncol[field];
    for (int k = 0; k < 4; ++k) p.hfield.size[k] = m.hfield_size[4 * field + k];
  }
  return p;
}

// contact slot k empty: no geoms (−1), no contact
template <class T>
ZW_HD ZW_INLINE void clear_contact_slot(const Instance<T>& d, int k) {
  d.contact_geom()[2 * k] = d.contact_geom()[2 * k + 1] = T(-1);
  d.contact_dist()[k] = T(0);
  for (int j = 0; j < 3; ++j) d.contact_pos()[3 * k + j] = T(0);
  for (int j = 0; j < 9; ++j) d.contact_frame()[9 * k + j] = T(0);
}

// writes each contact of pair `pair` into the next slot; counts past the last slot
template <class T>
struct ContactWriter {
  const Instance<T>& d;
  int nconmax, pair, g1, g2;
  int* n;
  ZW_HD void operator()(const ContactGeo<T>& c) const {
    const int k = *n;
    *n = k + 1;
    if (k >= nconmax) return;
    d.contact_geom()[2 * k] = T(g1);
    d.contact_geom()[2 * k + 1] = T(g2);
    d.contact_dist()[k] = c.dist;
    store3(d.contact_pos(), 3 * k, c.pos);
    store_mat(d.contact_frame(), 9 * k, c.frame);
    d.contact_pair()[k] = T(pair);
  }
};

// whether geom pair c goes on to its narrow phase: not when the bounding spheres are apart, or
// geom2's sphere is above a plane geom1 (its z axis the normal); from the geoms' centres alone,
// before their poses are gathered, since most pairs end here.  On a pack, each lane's answer.
template <class T>
ZW_HD ZW_INLINE MaskOf<T> pair_near(const ModelView<T>& m, const Instance<T>& d, int c) {
  const int g1 = m.collision_geom1[c], g2 = m.collision_geom2[c];
  const T margin = m.collision_margin[c];
  const Row<T> gpos = d.geom_xpos(), gmat = d.geom_xmat();
  const Vec3<T> between = load3(gpos, 3 * g2) - load3(gpos, 3 * g1);
  const T r1 = m.geom_rbound[g1], r2 = m.geom_rbound[g2];
  MaskOf<T> apart = r1 > T(0) && r2 > T(0) && norm(between) > r1 + r2 + margin;
  if (m.geom_type[g1] == GeomType::kPlane) {
    const Vec3<T> n1{gmat[9 * g1 + 2], gmat[9 * g1 + 5], gmat[9 * g1 + 8]};
    apart = apart || (r2 > T(0) && dot(between, n1) > margin + r2);
  }
  return !apart;
}

// the contacts at the current positions; false (kStatusContactOverflow) when they do not fit.
// On a lane group a geom pair per item, each pair's contacts to the slots after those of the
// pairs before it (Grp::emit), so that the slots are in pair order on any group.  The lane of a
// SIMD pack (`pack`) takes the geoms' poses and the pairs' bounding tests from it, and leaves the
// slots past its contacts to it (FromPack).
// Not inlined on a GPU: box–box's candidate array and the pair functions' registers stay here.
template <class T, class Grp>
ZW_HD ZW_NOINLINE bool collision(const ModelView<T>& m, const Instance<T>& d, Grp& grp,
                                 const FromPack<T>* pack = nullptr) {
  if (!pack) geom_poses(m, d, grp);
  const int nconmax = m.s.nconmax;
  // pair c's contacts from slot `first` on (none written unless `write`): how many it found
  const int found = grp.emit(m.ncollision, [&](int c, int first, bool write) ZW_ITEM {
    if (!(pack ? pack->near[c] != T(0) : pair_near(m, d, c))) return 0;
    const int g1 = m.collision_geom1[c], g2 = m.collision_geom2[c];
    const int t1 = m.geom_type[g1], t2 = m.geom_type[g2];
    const T margin = m.collision_margin[c];
    const GeomPose<T> p1 = geom_pose(m, d, g1), p2 = geom_pose(m, d, g2);
    int n = first;
    collide(t1, t2, p1, p2, margin, ContactWriter<T>{d, write ? nconmax : 0, c, g1, g2, &n},
            m.rules);
    return n - first;
  });
  const bool overflow = found > nconmax;
  const int ncon = overflow ? nconmax : found;
  // the slots past the contacts found: no geoms (−1), no contact
  grp.each(pack ? 0 : nconmax - ncon, [&](int i) ZW_ITEM { clear_contact_slot(d, ncon + i); });
  grp.one([&]() ZW_ITEM {
    d.ncon()[0] = T(ncon);
    *d.status |= overflow ? kStatusContactOverflow : 0;
  });
  return !overflow;
}

template <class T>
ZW_HD ZW_NOINLINE bool collision(const ModelView<T>& m, const Instance<T>& d) {
  Solo g;
  return collision(m, d, g);
}

// contacts found this step
template <class T>
ZW_HD ZW_INLINE int contact_count(const ModelView<T>& m, const Instance<T>& d) {
  return m.s.nconmax > 0 ? static_cast<int>(d.ncon()[0]) : 0;
}

// rows of condim `dim`: pyramidal 2 (dim − 1), elliptic dim, frictionless 1
template <class T>
ZW_HD ZW_INLINE int contact_rows_of(const ModelView<T>& m, int dim) {
  return dim == 1 ? 1 : (m.cone == Cone::kElliptic ? dim : 2 * (dim - 1));
}

// the rows of contact c: its block of ncon_rows rows from contact_efcadr, and contact_mu[c]
template <class T>
ZW_HD ZW_INLINE void contact_row_block(const ModelView<T>& m, const Instance<T>& d,
                                       const RowSetup<T>& rs, int c) {
  const T eps = T(SolverLimits<T>::kMinVal);
  const Row<T> R = d.efc_R(), D = d.efc_D(), aref = d.efc_aref(), pos = d.efc_pos();
  const int r0 = m.contact_efcadr + c * m.s.ncon_rows;
  const int pair = static_cast<int>(d.contact_pair()[c]);
  const int g1 = m.collision_geom1[pair], g2 = m.collision_geom2[pair];
  const int b1 = m.geom_bodyid[g1], b2 = m.geom_bodyid[g2];
  const int dim = m.collision_dim[pair];
  const T* fr = m.collision_friction + 5 * pair;
  const T* solref = m.collision_solref + 2 * pair;
  const T* solimp = m.collision_solimp + 5 * pair;
  const T margin = m.collision_margin[pair] - m.collision_gap[pair];
  const T dist = d.contact_dist()[c];
  const Vec3<T> p = load3(d.contact_pos(), 3 * c);
  const Mat3<T> frame = load_mat(d.contact_frame(), 9 * c);
  // no force in the gap, nor between bodies that cannot move
  const bool active = dist < margin && m.body_treenum[b1] + m.body_treenum[b2] > 0;
  const int nrows = contact_rows_of(m, dim);
  const bool elliptic = m.cone == Cone::kElliptic && dim > 1;
  const bool pyramid = m.cone != Cone::kElliptic && dim > 1;

  // the frame rows of the relative Jacobian: k < 3 translation along frame row k,
  // k ≥ 3 rotation about frame row k − 3; body 2 minus body 1
  const int nframe = elliptic ? dim : (pyramid ? dim : 1);
  for (int k = 0; k < m.s.ncon_rows; ++k) rs.clear(r0 + k);
  for (int k = 0; k < nframe; ++k) {
    const int row = pyramid ? r0 + (k == 0 ? 0 : 2 * (k - 1) + 1) : r0 + k;
    const Vec3<T> axis = frame_row(frame, k % 3);
    if (k < 3) {
      add_point_jacobian(m, d, rs.jac(row), b2, p, axis);
      add_point_jacobian(m, d, rs.jac(row), b1, p, T(-1) * axis);
    } else {
      add_angular_jacobian(m, d, rs.jac(row), b2, axis);
      add_angular_jacobian(m, d, rs.jac(row), b1, T(-1) * axis);
    }
  }
  if (pyramid) {
    // edges 2j, 2j + 1 = J_n ± μ_j J_(j+1), with J_n in row r0 and J_(j+1) in row 2j + 1;
    // the last pair first, so that row r0 keeps J_n until its own pair
    const Row<T> normal = rs.jac(r0);
    const RowDofs dofs = row_dofs(m, d, r0);
    for (int j = dim - 2; j >= 0; --j) {
      const Row<T> plus = rs.jac(r0 + 2 * j), minus = rs.jac(r0 + 2 * j + 1);
      const T mu = fr[j];
      for (int i = dofs.lo; i < dofs.hi; ++i) {
        const T jn = normal[i], jt = minus[i];
        plus[i] = jn + mu * jt;
        minus[i] = jn - mu * jt;
      }
    }
  }

  const T tran = m.body_invweight0[2 * b1] + m.body_invweight0[2 * b2];
  const T imp = impedance(solimp, dist, margin);
  const T dmax = clamp_imp(solimp[1]);
  T kk, bb;
  reference_gains(solref, dmax, refsafe_step(m), kk, bb);
  const T ratio = (T(1) - imp) / imp;
  // R₀ of the first row: Â = tran (frictionless, elliptic) or tran (1 + μ₁²) (pyramid edge)
  const T r_first = fmax(eps, ratio * (pyramid ? tran + fr[0] * fr[0] * tran : tran));
  const T r_second = r_first / fmax(eps, m.impratio);
  const T mu = fr[0] * vsqrt(r_second / r_first);
  d.contact_mu()[c] = mu;
  for (int k = 0; k < nrows; ++k) {
    const int r = r0 + k;
    T rr = r_first;
    if (pyramid) rr = T(2) * mu * mu * r_first;
    if (elliptic && k == 1) rr = r_second;
    if (elliptic && k > 1) rr = r_second * fr[0] * fr[0] / (fr[k - 1] * fr[k - 1]);
    const bool friction_row = elliptic && k > 0;
    pos[r] = friction_row ? T(0) : dist;
    R[r] = rr;
    D[r] = active ? T(1) / rr : T(0);
    aref[r] = -bb * rs.velocity(r) - (friction_row ? T(0) : kk * imp * (dist - margin));
  }
  for (int k = nrows; k < m.s.ncon_rows; ++k) {
    pos[r0 + k] = aref[r0 + k] = T(0);
    R[r0 + k] = T(1);
    D[r0 + k] = T(0);
  }
}

// the rows of every contact found, a contact per item: each writes its own block (one lane: in
// contact order)
template <class T, class Grp>
ZW_HD ZW_NOINLINE void contact_rows(const ModelView<T>& m, const Instance<T>& d, Grp& g) {
  const RowSetup<T> rs{m, d, row_qvel(m, d, g)};
  g.each(contact_count(m, d), [&](int c) ZW_ITEM { contact_row_block(m, d, rs, c); });
}

// contact forces in their frames (MuJoCo's mj_contactForce): pyramidal f_n = Σ edges,
// f_j = μ_j (f_2j − f_2j+1); elliptic and frictionless the rows' forces.  The slots past the
// contacts get 0 unless `clear_unused` is false (a SIMD pack clears them afterwards).
template <class T>
ZW_HD void contact_forces(const ModelView<T>& m, const Instance<T>& d, bool clear_unused = true) {
  const int ncon = contact_count(m, d);
  const Row<T> out = d.contact_force(), force = d.efc_force();
  for (int c = 0; c < (clear_unused ? m.s.nconmax : ncon); ++c) {
    for (int k = 0; k < 6; ++k) out[6 * c + k] = T(0);
  }
  for (int c = 0; c < ncon; ++c) {
    const int r0 = m.contact_efcadr + c * m.s.ncon_rows;
    const int pair = static_cast<int>(d.contact_pair()[c]);
    const int dim = m.collision_dim[pair];
    const T* fr = m.collision_friction + 5 * pair;
    if (m.cone == Cone::kElliptic || dim == 1) {
      for (int k = 0; k < dim; ++k) out[6 * c + k] = force[r0 + k];
      continue;
    }
    T fn = T(0);
    for (int k = 0; k < 2 * (dim - 1); ++k) fn += force[r0 + k];
    out[6 * c] = fn;
    for (int j = 0; j < dim - 1; ++j) {
      out[6 * c + 1 + j] = (force[r0 + 2 * j] - force[r0 + 2 * j + 1]) * fr[j];
    }
  }
}

// the constraint forces' share of cfrc_ext, about the subtree centres of mass already in
// subtree_com
template <class T>
ZW_HD void constraint_wrenches(const ModelView<T>& m, const Instance<T>& d) {
  const Row<T> com = d.subtree_com(), cfrc = d.cfrc_ext();
  // connect and weld equalities (MuJoCo 2.2's rule): the rows' world force f (and, for a weld,
  // torque) on body1 at its anchor, −f on body2 at its anchor
  const Row<T> force = d.efc_force();
  for (int e = 0; e < m.neq; ++e) {
    const int r = m.eq_efcadr[e];
    if (r < 0 || (m.eq_type[e] != EqualityType::kConnect && m.eq_type[e] != EqualityType::kWeld))
      continue;
    const bool weld = m.eq_type[e] == EqualityType::kWeld;
    const T* data = m.eq_data + 11 * e;
    const Vec3<T> f = load3(force, r);
    const Vec3<T> tau = weld ? load3(force, r + 3) : Vec3<T>{T(0), T(0), T(0)};
    for (int side = 0; side < 2; ++side) {
      const int b = side == 0 ? m.eq_obj1id[e] : m.eq_obj2id[e];
      if (b == 0) continue;
      // connect: anchor1 = data[0:3], anchor2 = data[3:6]; weld: anchor1 = data[3:6], anchor2 =
      // data[0:3]
      const int at = (side == 0) == weld ? 3 : 0;
      const Vec3<T> p = body_point(d, b, Vec3<T>{data[at], data[at + 1], data[at + 2]});
      int root = b;
      while (m.body_parentid[root] > 0) root = m.body_parentid[root];
      const T sign = side == 0 ? T(1) : T(-1);
      const Vec3<T> arm = p - load3(com, 3 * root);
      store3(cfrc, 6 * b, load3(cfrc, 6 * b) + sign * (tau + cross(arm, f)));
      store3(cfrc, 6 * b + 3, load3(cfrc, 6 * b + 3) + sign * f);
    }
  }
  const int ncon = contact_count(m, d);
  const Row<T> lf = d.contact_force();
  for (int c = 0; c < ncon; ++c) {
    const int g1 = static_cast<int>(d.contact_geom()[2 * c]);
    const int g2 = static_cast<int>(d.contact_geom()[2 * c + 1]);
    const Mat3<T> fr = load_mat(d.contact_frame(), 9 * c);
    const Vec3<T> p = load3(d.contact_pos(), 3 * c);
    // world force and torque on body 2: frameᵀ (f_local, τ_local)
    const Vec3<T> fl = load3(lf, 6 * c), tl = load3(lf, 6 * c + 3);
    const Vec3<T> f = fl.x * frame_row(fr, 0) + fl.y * frame_row(fr, 1) + fl.z * frame_row(fr, 2);
    const Vec3<T> tau = tl.x * frame_row(fr, 0) + tl.y * frame_row(fr, 1) + tl.z * frame_row(fr, 2);
    for (int side = 0; side < 2; ++side) {
      const int b = m.geom_bodyid[side == 0 ? g1 : g2];
      if (b == 0) continue;
      int root = b;
      while (m.body_parentid[root] > 0) root = m.body_parentid[root];
      const T sign = side == 0 ? T(-1) : T(1);
      const Vec3<T> arm = p - load3(com, 3 * root);
      store3(cfrc, 6 * b, load3(cfrc, 6 * b) + sign * (tau + cross(arm, f)));
      store3(cfrc, 6 * b + 3, load3(cfrc, 6 * b + 3) + sign * f);
    }
  }
}

// subtree_com (the centre of mass of each body's subtree) and cfrc_ext, MuJoCo's
// mj_rnePostConstraint: applied wrenches, connect and weld forces and contact forces on each
// body, as (torque, force) about the subtree centre of mass of the body's tree root
template <class T>
ZW_HD void external_wrenches(const ModelView<T>& m, const Instance<T>& d) {
  const int nb = m.s.nbody;
  const Row<T> com = d.subtree_com(), cfrc = d.cfrc_ext(), xipos = d.xipos(), mass = d.body_mass();
  // Σ m x and Σ m over each subtree; the masses held in cfrc_ext until it is computed
  for (int b = 0; b < nb; ++b) {
    store3(com, 3 * b, mass[b] * load3(xipos, 3 * b));
    cfrc[6 * b] = mass[b];
  }
  for (int b = nb - 1; b > 0; --b) {
    const int p = m.body_parentid[b];
    store3(com, 3 * p, load3(com, 3 * p) + load3(com, 3 * b));
    cfrc[6 * p] += cfrc[6 * b];
  }
  for (int b = 0; b < nb; ++b) {
    const T mb = cfrc[6 * b];
    const MaskOf<T> massive = mb > T(0);
    const T inv = T(1) / vselect(massive, mb, T(1));
    store3(com, 3 * b, vselect(massive, inv * load3(com, 3 * b), load3(xipos, 3 * b)));
  }
  const Row<T> xfrc = d.xfrc_applied();
  for (int b = 0; b < nb; ++b) {
    int root = b;
    while (root > 0 && m.body_parentid[root] > 0) root = m.body_parentid[root];
    const Vec3<T> f = load3(xfrc, 6 * b), tau = load3(xfrc, 6 * b + 3);
    const Vec3<T> arm = load3(xipos, 3 * b) - load3(com, 3 * root);
    const bool world = b == 0;
    store3(cfrc, 6 * b, world ? Vec3<T>{T(0), T(0), T(0)} : tau + cross(arm, f));
    store3(cfrc, 6 * b + 3, world ? Vec3<T>{T(0), T(0), T(0)} : f);
  }
  // packs have no constraint rows (kernels/pipeline.h)
  if constexpr (kOneLane<T>) constraint_wrenches(m, d);
}

}  // namespace zwang
