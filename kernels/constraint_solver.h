// (qM, qfrc_smooth, efc rows) => (qacc_smooth, qacc, efc_force, qfrc_constraint, solver stats)
//                                                                  seed 000, seed 002, DESIGN §1
// Gauss's principle with soft rows (MuJoCo's primal problem) and hard rows A:
//   min_x  ½ (x − x_s)ᵀ H (x − x_s) + Σ_soft s_r(J_r x − aref_r)   s.t.  A x = aref_A
//   s_r(z) = ½ D z²                      equality; limit while z < 0 (else 0)
//          = ½ D z² for |z| < R f,  f |z| − ½ R f² beyond      friction loss f
// The soft part is strictly convex (R > 0), so the minimiser is unique: MuJoCo's qacc.
//
// 1. x₀ = x_s − Y S⁺ (A x_s − aref_A), Y = H⁻¹ Aᵀ, S = A Y: the Gauss projection (exact when
//    there are no soft rows).  S⁺ keeps the rows of a Cholesky factor pivoted on the largest
//    diagonal and drops the dependent ones (a pivot below 1e-9 of the row's own diagonal,
//    1e-4 in float), so a redundant A is fine; a dropped row that x leaves violated
//    contradicts the kept ones: kStatusHardConflict, and the solve fails.
// 2. Newton: Hessian G = H + Σ_quadratic D_r J_rᵀ J_r, step d = −G⁻¹(g + Aᵀν) with A d = 0,
//    exact line search on the piecewise-quadratic φ(α); converged when the scaled projected
//    gradient ‖g + Aᵀν‖ or the scaled decrease of the cost is below the tolerance (scale
//    1 / (nv · mean diag H), MuJoCo's two criteria); not converged at the iteration cap.  With
//    an iteration cap of 0 there is no step and the soft rows carry no force (MuJoCo's meaning).
// 3. Forces: soft f_r = −s_r′; hard λ from (A H⁻¹ Aᵀ) λ = A H⁻¹ (H (x − x_s) − J_softᵀ f).
// 4. Euler with damping: q̈ = (H + h diag(b))⁻¹ (τ − h + Jᵀ f), MuJoCo's implicit damping.
#pragma once

#include <cmath>

#include "kernels/from_pack.h"
#include "kernels/group.h"
#include "kernels/group_chol.h"
#include "kernels/hd.h"
#include "kernels/implicit.h"
#include "kernels/instance.h"
#include "kernels/math_chol.h"
#include "kernels/model_view.h"
#include "kernels/row_dofs.h"
#include "kernels/status.h"

namespace zwang {

// y = A x for a symmetric A stored as the packed lower triangle with the pattern of `tree`
template <class T, class A, class X, class Y>
ZW_HD void tree_symv(A a, TreeRows tree, X x, Y y, int n) {
  for (int i = 0; i < n; ++i) y[i] = T(0);
  for (int k = 0; k < n; ++k) {
    const int row = packed_index(k, 0);
    const int* anc = tree.ancestors(k);
    T yk = a[row + k] * x[k];
    // the nearest ancestor first
    for (int t = tree.nancestors(k) - 1; t >= 0; --t) {
      const int j = anc[t];
      yk += a[row + j] * x[j];
      y[j] += a[row + j] * x[k];
    }
    y[k] += yk;
  }
}

// P S Pᵀ = L Lᵀ over the independent rows of a symmetric positive semidefinite n x n S
// (row-major, full, in place).  Pivots on the largest remaining diagonal, so that a row that is
// nearly a combination of others, scaled down, cannot displace one that is not; a row is
// dependent, and dropped, when its pivot is below tol times its own diagonal in S (a test
// independent of the rows' units), or when that diagonal is below tol² of the largest (an empty
// row).  perm[k] is the k-th row eliminated, −1 past the rank; state[i] is S_ii until row i is
// eliminated (then −1) or dropped (−2).  L's entry (p, q), q eliminated before p, is at S[p][q].
template <class T, class S, class P>
ZW_HD void semidefinite_factor(S s, P perm, P state, int n, T tol) {
  T scale = T(0);
  for (int i = 0; i < n; ++i) {
    scale = fmax(scale, s[i * n + i]);
    state[i] = s[i * n + i];
    perm[i] = T(-1);
  }
  int rank = 0;
  for (int k = 0; k < n; ++k) {
    int p = -1;
    T best = T(0);
    for (int i = 0; i < n; ++i) {
      if (state[i] >= T(0) && (p < 0 || s[i * n + i] > best)) {
        p = i;
        best = s[i * n + i];
      }
    }
    if (p < 0) break;
    const bool keep = best > tol * state[p] && state[p] > tol * tol * scale && best > T(0);
    if (!keep) {
      state[p] = T(-2);
      continue;
    }
    perm[rank++] = T(p);
    state[p] = T(-1);
    const T lpp = vsqrt(best);
    s[p * n + p] = lpp;
    // column p of L, then the Schur complement of the rows left
    for (int i = 0; i < n; ++i) {
      if (state[i] >= T(0)) s[i * n + p] /= lpp;
    }
    for (int i = 0; i < n; ++i) {
      if (!(state[i] >= T(0))) continue;
      for (int c = 0; c < n; ++c) {
        if (state[c] >= T(0)) s[i * n + c] -= s[i * n + p] * s[c * n + p];
      }
    }
  }
}

// x = S⁺ x with the factor above: the kept rows solved, the dropped ones 0
template <class T, class S, class P, class X>
ZW_HD void semidefinite_solve(S l, P perm, P state, X x, int n) {
  int rank = 0;
  while (rank < n && perm[rank] >= T(0)) ++rank;
  for (int i = 0; i < n; ++i) x[i] = state[i] == T(-1) ? x[i] : T(0);
  // L y = P x, then Lᵀ z = y, in elimination order
  for (int k = 0; k < rank; ++k) {
    const int p = static_cast<int>(perm[k]);
    T v = x[p];
    for (int j = 0; j < k; ++j) {
      const int q = static_cast<int>(perm[j]);
      v -= l[p * n + q] * x[q];
    }
    x[p] = v / l[p * n + p];
  }
  for (int k = rank - 1; k >= 0; --k) {
    const int p = static_cast<int>(perm[k]);
    T v = x[p];
    for (int j = k + 1; j < rank; ++j) {
      const int q = static_cast<int>(perm[j]);
      v -= l[q * n + p] * x[q];
    }
    x[p] = v / l[p * n + p];
  }
}

// −s′(z) and s″(z) of a soft row
template <class T>
ZW_HD ZW_INLINE T row_force(int kind, T z, T D, T R, T floss, T& weight) {
  const bool friction = kind == kEfcFriction;
  const bool below = friction && z <= -R * floss;
  const bool above = friction && z >= R * floss;
  const bool slack = (kind == kEfcLimit || kind == kEfcContact) && z >= T(0);
  // an elliptic cone's rows are handled together, by EllipticCone
  const bool cone = kind == kEfcElliptic;
  const bool quadratic = !below && !above && !slack && !cone;
  weight = quadratic ? D : T(0);
  return below ? floss : (above ? -floss : (slack || cone ? T(0) : -D * z));
}

// The cost of one elliptic contact (MuJoCo's primal cone) on its rows' z = J x − aref:
// with U = (μ z₀, μ_j z_j), N = U₀, T = ‖U_(1..)‖,
//   N ≥ μ T           no force (top)
//   μ N + T ≤ 0       ½ Σ D_j z_j² (bottom)
//   else              ½ D_m (N − μ T)², D_m = D₀ / (μ² (1 + μ²)) (middle)
// A frictionless contact (dim 1) is an inequality row.  z_j = jar_j + α jv_j.
template <class T>
struct EllipticCone {
  int dim;
  T mu;
  const T* fr;  // friction of rows 1 .. dim − 1: fr[j − 1]
  T u[6];
  T n, t;
  int zone;  // 0 top, 1 bottom, 2 middle

  ZW_HD T scale(int j) const { return j == 0 ? mu : fr[j - 1]; }

  // u[k] by selects: a runtime index into u would put it in local memory on a GPU
  ZW_HD T uat(int k) const {
    return k == 0 ? u[0] : k == 1 ? u[1] : k == 2 ? u[2] : k == 3 ? u[3] : k == 4 ? u[4] : u[5];
  }

  ZW_HD EllipticCone(int dim_, T mu_, const T* fr_, Row<T> jar, Row<T> jv, T alpha, int r0)
      : dim(dim_), mu(mu_), fr(fr_) {
    T t2 = T(0);
    for (int j = 0; j < 6; ++j) {
      const T z = j < dim ? jar[r0 + j] + alpha * jv[r0 + j] : T(0);
      u[j] = j < dim ? (dim == 1 ? z : scale(j) * z) : T(0);
      t2 += j > 0 ? u[j] * u[j] : T(0);
    }
    n = u[0];
    t = vsqrt(t2);
    const bool top = dim == 1 ? n >= T(0) : (n >= mu * t || (t <= T(0) && n >= T(0)));
    const bool bottom = dim == 1 ? n < T(0) : (mu * n + t <= T(0) || (t <= T(0) && n < T(0)));
    zone = top ? 0 : (bottom ? 1 : 2);
  }

  ZW_HD T middle_d(Row<T> D, int r0) const { return D[r0] / (mu * mu * (T(1) + mu * mu)); }

  // −∂s/∂z_j
  ZW_HD T force(int j, Row<T> D, int r0) const {
    const T z = dim == 1 ? u[0] : uat(j) / scale(j);
    if (zone == 0) return T(0);
    if (zone == 1) return -D[r0 + j] * z;
    const T dm = middle_d(D, r0), g = n - mu * t;
    return j == 0 ? -dm * g * mu : dm * g * mu / t * uat(j) * scale(j);
  }

  // ∂²s/∂z_a∂z_b
  ZW_HD T hessian(int a, int b, Row<T> D, int r0) const {
    if (zone == 0) return T(0);
    if (zone == 1) return a == b ? D[r0 + a] : T(0);
    const T dm = middle_d(D, r0);
    // ∂²s/∂U² = D_m (∇g ∇gᵀ + g ∇²g), g = N − μ T, then scaled by diag(μ, μ_j) on both sides
    T h;
    if (a == 0 && b == 0) {
      h = T(1);
    } else if (a == 0 || b == 0) {
      h = -mu * uat(a + b) / t;
    } else {
      h = mu * n * uat(a) * uat(b) / (t * t * t) + (a == b ? mu * mu - mu * n / t : T(0));
    }
    return dm * h * scale(a) * scale(b);
  }

  // φ′ and φ″ of this cone's cost along α (z_j = jar_j + α jv_j)
  ZW_HD void line(Row<T> jv, Row<T> D, int r0, T& g, T& h) const {
    g = h = T(0);
    if (zone == 0) return;
    if (zone == 1) {
      for (int j = 0; j < dim; ++j) {
        const T z = dim == 1 ? u[0] : uat(j) / scale(j);
        g += D[r0 + j] * z * jv[r0 + j];
        h += D[r0 + j] * jv[r0 + j] * jv[r0 + j];
      }
      return;
    }
    // s = ½ D_m G², G = N − μ T:  s′ = D_m G G′,  s″ = D_m (G′² + G G″)
    const T dm = middle_d(D, r0), gg = n - mu * t;
    T tp = T(0), upup = T(0);
    for (int j = 1; j < dim; ++j) {
      const T up = scale(j) * jv[r0 + j];
      tp += uat(j) * up;
      upup += up * up;
    }
    tp /= t;
    const T tpp = (upup - tp * tp) / t;
    const T gp = mu * jv[r0] - mu * tp, gpp = -mu * tpp;
    g = dm * gg * gp;
    h = dm * (gp * gp + gg * gpp);
  }
};

// A dependent hard row that the others leave violated by more than this fraction of the largest
// hard row's terms contradicts them (ConstraintSolver::hard_consistent).  Rows that are only
// redundant leave much less: rounding, about ε times the condition of the kept rows' factor
// (which the pivot test bounds by its inverse drop tolerance: 1e-7 in double, 1e-3 in float), and
// the drift correction of violations the others are correcting (a row that depends on the others
// only through a violation e is e-sized, and so is its residual).  Contradictory equalities or
// drives leave the drift correction of a violation that no step removes, of the order of the
// rows' own terms.
template <class T>
ZW_HD ZW_INLINE constexpr T hard_conflict_tolerance() {
  return T(sizeof(T) == 4 ? 1e-2 : 1e-3);
}

// semidefinite_factor drops a row whose pivot is below this fraction of its own diagonal
template <class T>
ZW_HD ZW_INLINE constexpr T hard_drop_tolerance() {
  return T(sizeof(T) == 4 ? 1e-4 : 1e-9);
}

// A dropped hard row holds when satisfying it would change q̈ by at most this many times the
// change the projection made (ConstraintSolver::hard_consistent)
template <class T>
ZW_HD ZW_INLINE constexpr T hard_reach() {
  return T(1000);
}

// The pattern of the Newton Hessian in one solve: its entries and its rows
// (ZW_SCHEDULE_INTS: hess_* for the plan's efc_tree, dense_* when a contact couples two branches)
struct HessianPattern {
  const int* row;
  const int* col;
  const int* adr;
  int nentry;
  ZW_HD TreeRows tree() const { return {adr, col}; }
};

// The solver's steps on a lane group (kernels/group.h): the rows and the dofs are items, the
// Hessian's entries are items, the Cholesky factors are kernels/group_chol.h's, and each element
// is computed by the operations, in the order, of one lane.  The hard rows' projection and the
// triangular solves run on one lane.
template <class T>
struct ConstraintSolver {
  const ModelView<T>& m;
  const Instance<T>& d;
  int nv, nefc, nh;  // nefc: the row slots in use (the contact slots up to ncon)
  int ncon;          // contacts, elliptic cones when m.cone is elliptic
  HessianPattern hess;
  Row<T> M;   // H
  Row<T> xs;  // q̈_s

  ZW_HD int cone_row(int c) const { return m.contact_efcadr + c * m.s.ncon_rows; }
  ZW_HD bool has_cones() const { return m.cone == Cone::kElliptic && ncon > 0; }
  ZW_HD int ncones() const { return has_cones() ? ncon : 0; }
  ZW_HD EllipticCone<T> cone(int c, Row<T> jv, T alpha) const {
    const int pair = static_cast<int>(d.contact_pair()[c]);
    return EllipticCone<T>(m.collision_dim[pair], d.contact_mu()[c],
                           m.collision_friction + 5 * pair, d.efc_jar(), jv, alpha, cone_row(c));
  }
  ZW_HD int cone_dim(int c) const { return m.collision_dim[static_cast<int>(d.contact_pair()[c])]; }

  ZW_HD Row<T> jac(int r) const { return d.efc_J() + r * nv; }

  // J_r x over the row's dofs (kernels/row_dofs.h)
  ZW_HD T row_dot(int r, Row<T> x) const {
    const Row<T> j = jac(r);
    const RowDofs dofs = row_dofs(m, d, r);
    T s = T(0);
    for (int i = dofs.lo; i < dofs.hi; ++i) s += j[i] * x[i];
    return s;
  }

  // y += c J_rᵀ
  ZW_HD void add_row(int r, T c, Row<T> y) const {
    const Row<T> j = jac(r);
    const RowDofs dofs = row_dofs(m, d, r);
    for (int i = dofs.lo; i < dofs.hi; ++i) y[i] += c * j[i];
  }

  // the coefficient of row r in Σ_r c_r J_rᵀ below: sign f_r, f = efc_force, an elliptic cone's
  // rows 0 (they join after the others, by cone)
  ZW_HD T row_coefficient(int r, T sign) const {
    return sign * (m.efc_kind[r] == kEfcElliptic ? T(0) : d.efc_force()[r]);
  }

  // y = start + sign Σ_r f_r J_rᵀ (start 0 when null): the soft rows in order (rows with D = 0
  // left out when `active`), then each elliptic cone's rows.  One lane adds row by row, a group
  // a dof per item; each element sees the same additions in the same order.
  template <class Grp>
  ZW_HD void rows_into(Grp& g, Row<T> y, const Row<T>* start, T sign, bool active) const {
    const Row<T> force = d.efc_force(), D = d.efc_D();
    if constexpr (Grp::size == 1) {
      g.one([&]() ZW_ITEM {
        for (int i = 0; i < nv; ++i) y[i] = start ? (*start)[i] : T(0);
        for (int r = nh; r < nefc; ++r) {
          if (!(active && D[r] == T(0))) add_row(r, row_coefficient(r, sign), y);
        }
        for (int c = 0; c < ncones(); ++c) {
          for (int j = 0; j < cone_dim(c); ++j) {
            add_row(cone_row(c) + j, sign * force[cone_row(c) + j], y);
          }
        }
      });
    } else {
      g.each(nv, [&](int i) ZW_ITEM {
        T v = start ? (*start)[i] : T(0);
        for (int r = nh; r < nefc; ++r) {
          if (!(active && D[r] == T(0))) v += row_coefficient(r, sign) * jac(r)[i];
        }
        for (int c = 0; c < ncones(); ++c) {
          const int r0 = cone_row(c);
          for (int j = 0; j < cone_dim(c); ++j) v += sign * force[r0 + j] * jac(r0 + j)[i];
        }
        y[i] = v;
      });
    }
  }

  // Y_r = G⁻¹ A_rᵀ, S = A Y factored, for the factor `l` of G with pattern `tree`
  ZW_HD void hard_factor(Row<T> l, TreeRows tree) const {
    const Row<T> y = d.efc_Y(), s = d.efc_S();
    for (int r = 0; r < nh; ++r) {
      const Row<T> yr = y + r * nv, j = jac(r);
      for (int i = 0; i < nv; ++i) yr[i] = j[i];
      cholesky_solve<T>(l, tree, yr, nv);
    }
    for (int a = 0; a < nh; ++a) {
      for (int b = 0; b <= a; ++b) s[a * nh + b] = s[b * nh + a] = row_dot(a, y + b * nv);
    }
    semidefinite_factor<T>(s, d.efc_perm(), d.efc_pstate(), nh, hard_drop_tolerance<T>());
  }

  // whether the rows the factor dropped hold at x (after hard_project(x, true)).  A dropped row
  // p holds when its residual r_p = A_p x − aref_p is rounding, |r_p| ≤ tol (1 + max_r terms_r)
  // with terms_r = Σ_i (|A_ri x_i| + |A_ri x_s,i|) + |aref_r| (the sizes of what the projection
  // subtracts, which its rounding is relative to), or when satisfying it too would take no
  // larger a change of q̈ than the projection made already: the least ‖Δx‖_H that moves A_p x
  // by r_p and keeps the rows kept is |r_p| / √σ_p, σ_p the Schur complement of p's diagonal in
  // A H⁻¹ Aᵀ (its pivot when dropped), so p holds when |r_p| ≤ hard_reach √σ_p ‖x − x_s‖_H.  A
  // row only nearly dependent (a redundant loop off its manifold, rows that float rounding
  // cannot tell apart) passes; one exactly dependent (σ_p rounding) and violated beyond rounding
  // contradicts the rows kept, and so does an empty row (σ_p = 0) that asks for anything.
  ZW_HD bool hard_consistent(Row<T> x) const {
    const Row<T> aref = d.efc_aref(), state = d.efc_pstate(), s = d.efc_S();
    const Row<T> dx = d.efc_dir(), hdx = d.efc_tmp();
    T scale = T(0);
    for (int r = 0; r < nh; ++r) {
      const Row<T> j = jac(r);
      T terms = fabs(aref[r]);
      for (int i = 0; i < nv; ++i) terms += fabs(j[i] * x[i]) + fabs(j[i] * xs[i]);
      scale = fmax(scale, terms);
    }
    const T floor = hard_conflict_tolerance<T>() * (T(1) + scale);
    T change = T(-1);  // ‖x − x_s‖_H, once a row needs it
    bool holds = true;
    for (int p = 0; p < nh; ++p) {
      if (!(state[p] == T(-2))) continue;
      const T residual = fabs(row_dot(p, x) - aref[p]);
      if (!(residual > floor)) continue;
      if (change < T(0)) {
        for (int i = 0; i < nv; ++i) dx[i] = x[i] - xs[i];
        tree_symv<T>(M, dof_rows(m), dx, hdx, nv);
        T e = T(0);
        for (int i = 0; i < nv; ++i) e += dx[i] * hdx[i];
        change = vsqrt(fmax(e, T(0)));
      }
      holds = holds && !(residual > hard_reach<T>() * vsqrt(fmax(s[p * nh + p], T(0))) * change);
    }
    return holds;
  }

  // v −= Y S⁺ (A v − rhs) with rhs = aref (project = true) or 0; μ keeps S⁺ (A v − rhs)
  ZW_HD void hard_project(Row<T> v, bool with_aref) const {
    const Row<T> mu = d.efc_mu(), aref = d.efc_aref(), y = d.efc_Y();
    for (int r = 0; r < nh; ++r) mu[r] = row_dot(r, v) - (with_aref ? aref[r] : T(0));
    semidefinite_solve<T>(d.efc_S(), d.efc_perm(), d.efc_pstate(), mu, nh);
    for (int r = 0; r < nh; ++r) {
      const Row<T> yr = y + r * nv;
      for (int i = 0; i < nv; ++i) v[i] -= mu[r] * yr[i];
    }
  }

  // jar = J x − aref over the soft rows, their forces (efc_force) and weights s″ (efc_weight);
  // grad = H (x − x_s) − Σ J_rᵀ f_r; tmp = H (x − x_s), which is +0 where x is x_s itself
  // (`at_smooth`: H's product with +0 adds only zeros to +0, H being finite once factored; a
  // non-finite x_s leaves the rows' jar and the gradient non-finite all the same)
  template <class Grp>
  ZW_HD void gradient(Grp& g, Row<T> x, bool at_smooth = false) const {
    const Row<T> grad = d.efc_grad(), tmp = d.efc_tmp(), dir = d.efc_dir();
    const Row<T> jar = d.efc_jar(), aref = d.efc_aref(), D = d.efc_D(), R = d.efc_R();
    const Row<T> force = d.efc_force(), weight = d.efc_weight();
    g.one([&]() ZW_ITEM {
      for (int i = 0; i < nv; ++i) dir[i] = x[i] - xs[i];
      if (at_smooth) {
        for (int i = 0; i < nv; ++i) tmp[i] = T(0);
      } else {
        tree_symv<T>(M, dof_rows(m), dir, tmp, nv);
      }
    });
    g.each(nefc - nh, [&](int k) ZW_ITEM {
      const int r = nh + k;
      // an inactive limit row (D = 0) has no force at any jar
      if (D[r] == T(0)) {
        jar[r] = weight[r] = T(0);
        return;
      }
      jar[r] = row_dot(r, x) - aref[r];
      T w;
      force[r] = row_force(m.efc_kind[r], jar[r], D[r], R[r], m.efc_frictionloss[r], w);
      weight[r] = w;
    });
    if (has_cones()) {
      g.each(ncon, [&](int c) ZW_ITEM {
        const EllipticCone<T> k = cone(c, jar, T(0));
        for (int j = 0; j < k.dim; ++j) force[cone_row(c) + j] = k.force(j, D, cone_row(c));
      });
    }
    rows_into(g, grad, &tmp, T(-1), true);
  }

  // f(c, a, b) for each term c J_aᵀ J_b of Σ D_r J_rᵀ J_r over the quadratic rows (their weights
  // efc_weight, in row order), then of each elliptic cone's Σ_ab h_ab J_aᵀ J_b (middle or bottom
  // zone, in cone order); a and b are row slots, of one contact where they differ
  template <class F>
  ZW_HD ZW_INLINE void hessian_terms(F&& f) const {
    const Row<T> weight = d.efc_weight(), D = d.efc_D(), jar = d.efc_jar();
    for (int r = nh; r < nefc; ++r) {
      if (weight[r] != T(0)) f(weight[r], r, r);
    }
    for (int c = 0; c < ncones(); ++c) {
      const EllipticCone<T> k = cone(c, jar, T(0));
      if (k.zone == 0) continue;
      const int r0 = cone_row(c);
      for (int a = 0; a < k.dim; ++a) {
        for (int b = 0; b < k.dim; ++b) {
          const T hab = k.hessian(a, b, D, r0);
          if (hab != T(0)) f(hab, r0 + a, r0 + b);
        }
      }
    }
  }

  // G = H + the terms above in efc_HnL, for its factor (ConstraintSolve::factor).  One lane adds
  // term by term over the packed triangle, over the rows p of the rows' dofs (a and b of one term
  // have the same); a group takes an entry of the pattern per item, the terms in the same order
  // (the factor reads no other entry).  A term c J_aᵀ J_b skips the rows p where c J_ap is 0.
  template <class Grp>
  ZW_HD void newton_matrix(Grp& g) const {
    const Row<T> l = d.efc_HnL(), qM = M;
    if constexpr (Grp::size == 1) {
      g.one([&]() ZW_ITEM {
        for (int i = 0; i < m.s.nM; ++i) l[i] = qM[i];
        hessian_terms([&](T c, int ra, int rb) ZW_ITEM {
          const Row<T> a = jac(ra), b = jac(rb);
          const RowDofs dofs = row_dofs(m, d, ra);
          for (int p = dofs.lo; p < dofs.hi; ++p) {
            const T cp = c * a[p];
            if (cp == T(0)) continue;
            // every column up to p: an entry of H left of the range may be −0, which adding
            // cp · (+0) turns into +0
            const int row = packed_index(p, 0);
            for (int q = 0; q <= p; ++q) l[row + q] += cp * b[q];
          }
        });
      });
    } else {
      g.each(hess.nentry, [&](int e) ZW_ITEM {
        const int p = hess.row[e], q = hess.col[e], at = packed_index(p, 0) + q;
        T v = qM[at];
        hessian_terms([&](T c, int ra, int rb) ZW_ITEM {
          const T cp = c * jac(ra)[p];
          if (cp != T(0)) v += cp * jac(rb)[q];
        });
        l[at] = v;
      });
    }
  }

  // φ′(α) and φ″(α) along dir: quad = (dᵀ H (x − x_s), dᵀ H d).  A row with D = 0 (jar = jv =
  // 0) adds ±0 to sums that are never −0, and is skipped.
  template <class Grp>
  ZW_HD TwoSums<T> line_derivatives(Grp& g, T alpha, TwoSums<T> quad) const {
    const Row<T> jar = d.efc_jar(), jv = d.efc_jv(), D = d.efc_D(), R = d.efc_R();
    const TwoSums<T> rows = g.sum(
        nefc - nh,
        [&](int k) ZW_ITEM {
          const int r = nh + k;
          if (D[r] == T(0)) return TwoSums<T>(T(0), T(0));
          T w;
          const T f = row_force(m.efc_kind[r], jar[r] + alpha * jv[r], D[r], R[r],
                                m.efc_frictionloss[r], w);
          return TwoSums<T>(-(f * jv[r]), w * jv[r] * jv[r]);
        },
        TwoSums<T>(quad.a + alpha * quad.b, quad.b));
    if (ncones() == 0) return rows;
    return g.sum(
        ncones(),
        [&](int c) ZW_ITEM {
          // the cone at jar + α jv: its own zone along the line
          const int pair = static_cast<int>(d.contact_pair()[c]);
          const EllipticCone<T> k(m.collision_dim[pair], d.contact_mu()[c],
                                  m.collision_friction + 5 * pair, jar, jv, alpha, cone_row(c));
          TwoSums<T> s;
          k.line(jv, D, cone_row(c), s.a, s.b);
          return s;
        },
        rows);
  }

  // the exact minimiser of φ along dir (Hd = H dir computed already): Newton on φ′ (piecewise
  // linear, increasing), kept inside the bracket [lo, hi] of its sign change
  template <class Grp>
  ZW_HD T line_search(Grp& g, T& decrease) const {
    const Row<T> dir = d.efc_dir(), hd = d.efc_Hd(), tmp = d.efc_tmp(), jv = d.efc_jv();
    const Row<T> D = d.efc_D();
    const TwoSums<T> quad = g.template sum<TwoSums<T>>(
        nv, [&](int i) ZW_ITEM { return TwoSums<T>(dir[i] * tmp[i], dir[i] * hd[i]); });
    g.each(nefc - nh, [&](int k) ZW_ITEM {
      const int r = nh + k;
      jv[r] = D[r] == T(0) ? T(0) : row_dot(r, dir);
    });
    const TwoSums<T> d0 = line_derivatives(g, T(0), quad);
    const T g0 = d0.a, h0 = d0.b;
    decrease = T(0);
    if (!(g0 < T(0)) || !(h0 > T(0))) return T(0);
    const T tol = T(sizeof(T) == 4 ? 1e-6 : 1e-13) * -g0;
    T lo = T(0), hi = T(-1), alpha = -g0 / h0;
    for (int it = 0; it < 64; ++it) {
      const TwoSums<T> da = line_derivatives(g, alpha, quad);
      if (!(T(vfabs(da.a)) > tol)) break;
      if (da.a < T(0)) {
        lo = alpha;
      } else {
        hi = alpha;
      }
      T next = alpha - da.a / da.b;
      const bool bracketed = hi > T(0);
      if (!(next > lo) || (bracketed && !(next < hi))) {
        next = bracketed ? T(0.5) * (lo + hi) : T(2) * alpha;
      }
      alpha = next;
    }
    // φ(0) − φ(α) = −½ α φ′(0) for a quadratic φ: Newton's decrease
    decrease = T(-0.5) * alpha * g0;
    return alpha;
  }

  template <class Grp>
  ZW_HD T grad_scale(Grp& g) const {
    const T trace = g.template sum<T>(nv, [&](int i) ZW_ITEM { return M[packed_index(i, i)]; });
    const T mean = trace / T(nv > 0 ? nv : 1);
    return T(1) / (mean * T(nv > 1 ? nv : 1));
  }

  // a value one lane left in `at`, on every lane (read through a collective)
  template <class Grp>
  ZW_HD static T shared(Grp& g, const Row<T> at) {
    return g.template sum<T>(1, [&](int) ZW_ITEM { return at[0]; });
  }
};

// Lᵀ L = a, a copy of H = qM in the tree's pattern (one lane copies the whole packed triangle, a
// group the pattern's entries, which are all the factor and its solves read), with the step's
// implicit term when damping_dt > 0 (kernels/implicit.h); false, with kStatusFactorization, when
// a pivot is not positive
template <class T, class Grp>
ZW_HD bool factor_mass(const ModelView<T>& m, const Instance<T>& d, Row<T> a, T damping_dt, Grp& g,
                       Row<T> qM) {
  if constexpr (Grp::size == 1) {
    g.one([&]() ZW_ITEM {
      for (int e = 0; e < m.s.nM; ++e) a[e] = qM[e];
    });
  } else {
    g.each(m.nentry, [&](int e) ZW_ITEM {
      const int at = packed_index(m.entry_row[e], m.entry_col[e]);
      a[at] = qM[at];
    });
  }
  if (damping_dt > T(0)) g.one([&]() ZW_ITEM { add_implicit_term(m, d, a, damping_dt); });
  if (cholesky_factor<T>(g, a, dof_rows(m), m.s.nv) == m.s.nv) {
    return true;
  }
  g.one([&]() ZW_ITEM { *d.status |= kStatusFactorization; });
  return false;
}

// The constrained q̈ at the current rows, in steps, so that a caller can interleave several
// instances' Newton iterations (the SIMD packs factor their lanes' Newton Hessians together,
// kernels/pipeline.h, constrain_lanes): begin(), then while iterate() the factor of the Newton
// Hessian it assembled in efc_HnL (factor(), or a factor with the same bits; when it fails,
// factor_failed() ends the solve) and advance(), then end().  constraint_solve() below runs them
// in that order for one instance.  `pack`: the lane of a SIMD pack (FromPack;
// implicit's LU is factored here still).
template <class T, class Grp>
struct ConstraintSolve {
  // begin()'s outcomes, and iterate_values()'s
  enum : int { kFailed = -1, kDone = 0, kNewton = 1, kIterated = 2 };

  const ModelView<T>& m;
  const Instance<T>& d;
  T damping_dt;
  const FromPack<T>* pack;
  int nv, nh, ncon, nefc;
  HessianPattern hess;
  // H, q̈_s, q̈ and Jᵀ f in the scratch while the solve reads and writes them where it works
  // there (solve_in_scratch()): H copied in, the others written out after, or on a failure
  static constexpr bool scratch = solve_in_scratch<Grp>();
  Row<T> M, xs, x, qfrc;
  ConstraintSolver<T> cs;
  Row<T> hl, smooth, grad, dir, force;
  // iterations 0 (MuJoCo's meaning): the solver does not run, the soft rows carry no force and
  // q̈ stays the projection of q̈_s
  bool solve;
  T scale = T(0);
  int iter = 0;
  T residual = T(0), tolerance;
  bool stalled = false;
  // whether the rows' jar, forces and weights and grad are those at x (the loop stopped at its
  // residual test, before x moved); tmp is not, with hard rows (it holds H (x − x_s) + Aᵀν)
  bool current = false;

  ZW_HD ZW_INLINE ConstraintSolve(const ModelView<T>& m_, const Instance<T>& d_, T damping_dt_,
                                  const FromPack<T>* pack_)
      : m(m_),
        d(d_),
        damping_dt(damping_dt_),
        pack(pack_),
        nv(m_.s.nv),
        nh(m_.s.nhard),
        ncon(m_.s.nconmax > 0 ? static_cast<int>(d_.ncon()[0]) : 0),
        nefc(m_.s.nefc - (m_.s.nconmax - ncon) * m_.s.ncon_rows),
        hess(pattern(m_, d_, ncon)),
        M(scratch ? d_.efc_M() : d_.qM()),
        xs(scratch ? d_.efc_xs() : d_.qacc_smooth()),
        x(scratch ? d_.efc_x() : d_.qacc()),
        qfrc(scratch ? d_.efc_qfrc() : d_.qfrc_constraint()),
        cs{m_, d_, nv, nefc, nh, ncon, hess, M, xs},
        hl(pack_ ? pack_->h : d_.efc_HL()),
        smooth(d_.qfrc_smooth()),
        grad(d_.efc_grad()),
        dir(d_.efc_dir()),
        force(d_.efc_force()),
        solve(m_.iterations > 0),
        tolerance(m_.tolerance) {}

  // the model's pattern, dense when an active contact couples two branches of the tree
  ZW_HD ZW_INLINE static HessianPattern pattern(const ModelView<T>& m, const Instance<T>& d,
                                                int ncon) {
    bool couples = false;
    for (int c = 0; c < ncon; ++c) {
      const int pair = static_cast<int>(d.contact_pair()[c]);
      couples = couples || (m.collision_couples[pair] &&
                            d.efc_D()[m.contact_efcadr + c * m.s.ncon_rows] > T(0));
    }
    return couples ? HessianPattern{m.dense_row, m.dense_col, m.dense_adr, m.s.nM}
                   : HessianPattern{m.hess_row, m.hess_col, m.hess_adr, m.nhess};
  }

  // whether the pattern is the dense one
  ZW_HD ZW_INLINE bool dense() const { return hess.adr == m.dense_adr; }

  // the outputs of the scratch copies: q̈, and Jᵀ f once the forces are known
  ZW_HD ZW_INLINE void write_out(Grp& g, bool forces) const {
    if (!scratch) return;
    g.each(nv, [&](int i) ZW_ITEM {
      d.qacc()[i] = x[i];
      if (forces) d.qfrc_constraint()[i] = qfrc[i];
    });
  }

  // whether Newton runs on the soft rows
  ZW_HD ZW_INLINE bool newton() const { return nefc > nh && solve; }

  // q̈_s and the Gauss projection onto the hard rows: kNewton, or kDone (nothing moves: the
  // solve is complete, end() is not called), or kFailed (kStatusFactorization or
  // kStatusHardConflict)
  ZW_HD ZW_INLINE int begin(Grp& g) {
    // slots past the contacts found carry no force
    if (!pack) g.each(m.s.nefc - nefc, [&](int k) ZW_ITEM { force[nefc + k] = T(0); });
    if (nv == 0) {
      // nothing moves: no row can act
      g.one([&]() ZW_ITEM {
        for (int r = 0; r < nefc; ++r) force[r] = T(0);
        for (int i = 0; i < m.s.ndrive; ++i) d.drive_force()[i] = T(0);
        d.efc_nactive()[0] = d.solver_niter()[0] = d.solver_residual()[0] = T(0);
      });
      return kDone;
    }
    if (scratch) {
      g.one([&]() ZW_ITEM {
        const Row<T> qM = pack ? pack->qM : d.qM();
        for (int e = 0; e < m.s.nM; ++e) M[e] = qM[e];
      });
    }
    if (pack) {
      if (pack->h_failed) {
        g.one([&]() ZW_ITEM { *d.status |= kStatusFactorization; });
        return kFailed;
      }
      g.one([&]() ZW_ITEM {
        for (int i = 0; i < nv; ++i) x[i] = xs[i] = pack->xs[i];
      });
    } else {
      if (!factor_mass(m, d, hl, T(0), g, M)) return kFailed;
      g.one([&]() ZW_ITEM {
        for (int i = 0; i < nv; ++i) xs[i] = smooth[i];
        cholesky_solve<T>(hl, dof_rows(m), xs, nv);
        for (int i = 0; i < nv; ++i) x[i] = xs[i];
      });
    }
    if (scratch) g.each(nv, [&](int i) ZW_ITEM { d.qacc_smooth()[i] = xs[i]; });

    // 1. the Gauss projection onto the hard rows, which must not contradict one another
    if (nh > 0) {
      const int holds = g.uniform([&]() ZW_ITEM {
        cs.hard_factor(hl, dof_rows(m));
        cs.hard_project(x, true);
        if (cs.hard_consistent(x)) return 1;
        *d.status |= kStatusHardConflict;
        return 0;
      });
      if (!holds) {
        write_out(g, false);
        return kFailed;
      }
    }
    scale = cs.grad_scale(g);
    return kNewton;
  }

  // 2. Newton on the soft rows, in the null space of the hard ones.  The first half of an
  // iteration: the gradient at x and the residual test; true when the iteration goes on, with
  // the Newton Hessian assembled in efc_HnL for factor()
  ZW_HD ZW_INLINE bool iterate(Grp& g) {
    if (!newton()) return false;
    // the first iterate is q̈_s itself unless the hard rows moved it
    cs.gradient(g, x, iter == 0 && nh == 0);
    // the tolerance, or what rounding allows: the gradient is a difference of terms as large
    // as H (x − x_s), the constraint forces, known to a few ε each
    const Row<T> tmp = d.efc_tmp();
    const TwoSums<T> norms = g.template sum<TwoSums<T>>(
        nv, [&](int i) ZW_ITEM { return TwoSums<T>(tmp[i] * tmp[i], grad[i] * grad[i]); });
    const T eps = T(sizeof(T) == 4 ? 1.2e-7 : 2.3e-16);
    tolerance = fmax(m.tolerance, T(16) * eps * (T(1) + scale * vsqrt(norms.a)));
    // without hard rows the gradient is the residual: no factor when it is small already
    if (nh == 0) {
      residual = scale * vsqrt(norms.b);
      current = !(residual > tolerance) || iter >= m.iterations;
      if (current) return false;
    }
    cs.newton_matrix(g);
    return true;
  }

  // the factor of the Newton Hessian that iterate() assembled, in place; false when a pivot is
  // not positive and finite (then factor_failed())
  ZW_HD ZW_INLINE bool factor(Grp& g) const {
    return cholesky_factor<T>(g, d.efc_HnL(), hess.tree(), nv) == nv;
  }

  // With dual numbers whose model has its values' view (ModelView::values): Newton's iterations
  // on the values alone, in place (values_of()), since implicit_tangents() gives the converged
  // x its tangents whatever they were; the values are those that iterating on the dual numbers
  // computes, bit for bit, without the tangents' work.  kIterated when they ran (x's values and
  // iter, residual and stalled are the value solve's), kFailed when a factor failed (its status
  // bit set), kNewton where the dual numbers iterate themselves.
  ZW_HD ZW_INLINE int iterate_values(Grp& g) {
    if constexpr (kTangents<T>) {
      if (m.values == nullptr || pack != nullptr || !newton()) return kNewton;
      using V = ValueOf<T>;
      const Instance<V> values = values_of(d);
      ConstraintSolve<V, Grp> s(*m.values, values, damping_dt.v, nullptr);
      // begin() again on the values: the same factor of H and the same q̈_s, which its
      // iterations start from
      if (s.begin(g) != s.kNewton) return kFailed;
      const bool factored = s.iterations(g);
      iter = s.iter;
      residual = T(s.residual);
      tolerance = T(s.tolerance);
      stalled = s.stalled;
      current = false;
      return factored ? kIterated : kFailed;
    } else {
      (void)g;
      return kNewton;
    }
  }

  // 2. in full: iterate(), factor() and advance() until the solve stops; false when a factor
  // failed (then factor_failed())
  ZW_HD ZW_INLINE bool iterations(Grp& g) {
    while (iterate(g)) {
      if (!factor(g)) return false;
      if (!advance(g)) break;
    }
    return true;
  }

  ZW_HD ZW_INLINE bool factor_failed(Grp& g) const {
    g.one([&]() ZW_ITEM { *d.status |= kStatusFactorization; });
    write_out(g, false);
    return false;
  }

  // d = −G⁻¹ g with the Newton Hessian factored, in the null space of the hard rows (whose
  // factor with G it leaves in cs)
  ZW_HD ZW_INLINE void newton_direction() const {
    for (int i = 0; i < nv; ++i) dir[i] = -grad[i];
    cholesky_solve<T>(d.efc_HnL(), hess.tree(), dir, nv);
    if (nh > 0) {
      cs.hard_factor(d.efc_HnL(), hess.tree());
      cs.hard_project(dir, false);
    }
  }

  // the second half, with the Newton Hessian factored: the direction, the exact line search
  // and the step; true when the next iteration is due
  ZW_HD ZW_INLINE bool advance(Grp& g) {
    g.one([&]() ZW_ITEM {
      newton_direction();
      if (nh > 0) {
        // projected gradient g + Aᵀν = −G d; the line search takes the Lagrangian's slope,
        // (H (x − x_s) + Aᵀν)·d, since A d = 0 holds only to rounding and λ may be large
        const Row<T> mu = d.efc_mu(), hd = d.efc_Hd();
        for (int i = 0; i < nv; ++i) hd[i] = grad[i];
        for (int r = 0; r < nh; ++r) {
          cs.add_row(r, mu[r], hd);
          cs.add_row(r, mu[r], d.efc_tmp());
        }
        T norm2 = T(0);
        for (int i = 0; i < nv; ++i) norm2 += hd[i] * hd[i];
        const T projected = scale * vsqrt(norm2);
        d.solver_residual()[0] = projected;
        if (!(projected > tolerance) || iter >= m.iterations) return;
      }
      // H d, for the line search
      tree_symv<T>(M, dof_rows(m), dir, d.efc_Hd(), nv);
    });
    if (nh > 0) {
      residual = cs.shared(g, d.solver_residual());
      current = !(residual > tolerance) || iter >= m.iterations;
      if (current) return false;
    }
    T decrease;
    const T alpha = cs.line_search(g, decrease);
    g.each(nv, [&](int i) ZW_ITEM { x[i] += alpha * dir[i]; });
    // back onto A x = b, which the step keeps only to rounding
    if (nh > 0) g.one([&]() ZW_ITEM { cs.hard_project(x, true); });
    ++iter;
    // converged as MuJoCo's Newton: the scaled cost no longer decreases
    if (!(scale * decrease > tolerance)) {
      stalled = true;
      return false;
    }
    return true;
  }

  // With dual numbers (kernels/dual.h): the tangents of the converged x by the implicit
  // function theorem, ẋ = −G⁻¹ ∂g/∂p ṗ (in the null space of the hard rows, and back onto
  // A ẋ + Ȧ x = ȧref), whatever the iterations carried: one Newton step at x, on the soft rows'
  // final pieces, taken on the tangents alone, so that the values stay those of the double solve.
  // (The iterations' tangents are this only when their last step had unit length on the final
  // pieces; a step the line search shortened, or one that stopped at the optimum of its line,
  // leaves them short.)
  ZW_HD ZW_INLINE void implicit_tangents(Grp& g) {
    if constexpr (kTangents<T>) {
      if (!newton()) return;
      cs.gradient(g, x);
      cs.newton_matrix(g);
      // without the factor x has no tangents of its own: the derivatives are not known
      if (!factor(g)) {
        g.one([&]() ZW_ITEM { *d.status |= kStatusFactorization; });
        return;
      }
      g.one([&]() ZW_ITEM {
        newton_direction();
        const Row<T> y = d.efc_Hd();
        for (int i = 0; i < nv; ++i) {
          y[i] = x[i];
          for (int k = 0; k < T::kWidth; ++k) y[i].d[k] += dir[i].d[k];
        }
        if (nh > 0) cs.hard_project(y, true);
        for (int i = 0; i < nv; ++i) {
          for (int k = 0; k < T::kWidth; ++k) x[i].d[k] = y[i].d[k];
        }
      });
      current = false;
    }
  }

  // 3. the forces and 4. the implicit step; false on a failure (kStatusFactorization,
  // kStatusHardConflict)
  ZW_HD ZW_INLINE bool end(Grp& g) {
    if (newton() && !(residual <= tolerance) && !stalled) {
      g.one([&]() ZW_ITEM { *d.status |= kStatusNotConverged; });
    }
    implicit_tangents(g);
    // 3. forces: soft from their rows, hard from (A H⁻¹ Aᵀ) λ = A H⁻¹ (H (x − x_s) − J_softᵀ f)
    if (!current) cs.gradient(g, x);
    {
      const Row<T> jar = d.efc_jar(), D = d.efc_D(), R = d.efc_R();
      g.each(nefc - nh, [&](int k) ZW_ITEM {
        const int r = nh + k;
        T w;
        const T f = row_force(m.efc_kind[r], jar[r], D[r], R[r], m.efc_frictionloss[r], w);
        force[r] = solve ? f : T(0);
      });
      if (cs.has_cones()) {
        g.each(ncon, [&](int c) ZW_ITEM {
          const EllipticCone<T> k = cs.cone(c, jar, T(0));
          const int r0 = cs.cone_row(c);
          for (int j = 0; j < k.dim; ++j) force[r0 + j] = solve ? k.force(j, D, r0) : T(0);
        });
      }
      cs.rows_into(g, qfrc, nullptr, T(1), false);
    }
    const Row<T> D = d.efc_D();
    const int nactive = nh + static_cast<int>(g.template sum<T>(nefc - nh, [&](int k) ZW_ITEM {
                          return D[nh + k] > T(0) ? T(1) : T(0);
                        }));
    g.one([&]() ZW_ITEM {
      if (nh > 0) {
        // without a solve the soft rows carry no force: grad is H (x − x_s) alone
        if (!solve) {
          for (int i = 0; i < nv; ++i) grad[i] = d.efc_tmp()[i];
        }
        cs.hard_factor(hl, dof_rows(m));
        const Row<T> mu = d.efc_mu(), y = d.efc_Y();
        for (int r = 0; r < nh; ++r) {
          const Row<T> yr = y + r * nv;
          T s = T(0);
          for (int i = 0; i < nv; ++i) s += yr[i] * grad[i];
          mu[r] = s;
        }
        semidefinite_solve<T>(d.efc_S(), d.efc_perm(), d.efc_pstate(), mu, nh);
        for (int r = 0; r < nh; ++r) {
          force[r] = mu[r];
          cs.add_row(r, mu[r], qfrc);
        }
      }
      d.efc_nactive()[0] = T(nactive);
      d.solver_niter()[0] = T(iter);
      d.solver_residual()[0] = residual;
    });

    // 4. the implicit step: Euler's damping, implicitfast's H − h D and free bodies
    //    (kernels/implicit.h); the hard rows then hold again by their projection in the metric of
    //    its factor, whose multipliers add to their forces.  implicit's unsymmetric H − h D is
    //    factored by an LU in efc_HnL and efc_HL (H's factor is no longer read); a model with
    //    hard rows cannot choose it (no metric to project in)
    if (damping_dt > T(0) && m.integrator == Integrator::kImplicit) {
      const int solved = g.uniform([&]() ZW_ITEM {
        const Row<T> lo = d.efc_HnL(), up = d.efc_HL();
        implicit_matrix(m, d, lo, up, damping_dt);
        MaskOf<T> failed(false);
        if (lu_factor<T>(lo, up, dof_rows(m), nv, &failed) < nv || any_lane<T>(failed)) {
          *d.status |= kStatusFactorization;
          return 0;
        }
        for (int i = 0; i < nv; ++i) x[i] = smooth[i] + qfrc[i];
        lu_solve<T>(lo, up, dof_rows(m), x, nv);
        return 1;
      });
      if (!solved) {
        write_out(g, true);
        return false;
      }
    } else if (damping_dt > T(0)) {
      const bool factored = pack && pack->damped.p != nullptr;
      const Row<T> l = factored ? pack->damped : d.efc_HnL();
      if (factored ? pack->damped_failed : !factor_mass(m, d, l, damping_dt, g, M)) {
        if (factored) g.one([&]() ZW_ITEM { *d.status |= kStatusFactorization; });
        write_out(g, true);
        return false;
      }
      // the pack solves for the lane afterwards (FromPack::deferred)
      const bool deferred = factored && pack->deferred != nullptr && nh == 0;
      if (deferred) g.one([&]() ZW_ITEM { *pack->deferred = 1; });
      const int holds = deferred ? 1 : g.uniform([&]() ZW_ITEM {
        for (int i = 0; i < nv; ++i) x[i] = smooth[i] + qfrc[i];
        cholesky_solve<T>(l, dof_rows(m), x, nv);
        free_body_solve(m, d, x, smooth, qfrc, true, damping_dt);
        if (nh > 0) {
          cs.hard_factor(l, dof_rows(m));
          cs.hard_project(x, true);
          // the rows this metric's factor drops must hold as well
          if (!cs.hard_consistent(x)) {
            *d.status |= kStatusHardConflict;
            return 0;
          }
          const Row<T> mu = d.efc_mu();
          for (int r = 0; r < nh; ++r) {
            force[r] -= mu[r];
            cs.add_row(r, -mu[r], qfrc);
          }
        }
        return 1;
      });
      if (!holds) {
        write_out(g, true);
        return false;
      }
    }
    write_out(g, true);
    g.each(m.s.ndrive, [&](int i) ZW_ITEM { d.drive_force()[i] = force[m.drive_efcadr[i]]; });
    return true;
  }
};

// the constrained q̈ at the current rows, on a lane group; false (kStatusFactorization) when H or
// the Newton Hessian cannot be factored (efc_force is then not meaningful).  Not inlined on a
// GPU, so that its registers are its own.
template <class T, class Grp>
ZW_HD ZW_NOINLINE bool constraint_solve(const ModelView<T>& m, const Instance<T>& d, T damping_dt,
                                        Grp& g, const FromPack<T>* pack = nullptr) {
  ConstraintSolve<T, Grp> s(m, d, damping_dt, pack);
  const int begun = s.begin(g);
  if (begun != s.kNewton) return begun == s.kDone;
  const int values = s.iterate_values(g);
  if (values == s.kFailed || (values == s.kNewton && !s.iterations(g))) return s.factor_failed(g);
  return s.end(g);
}

template <class T>
ZW_HD bool constraint_solve(const ModelView<T>& m, const Instance<T>& d, T damping_dt) {
  Solo g;
  return constraint_solve(m, d, damping_dt, g);
}

}  // namespace zwang
