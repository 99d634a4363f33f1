// (xpos, xquat, xmat, xipos, cvel, cdof, body_mass, body_inertia, density, viscosity, wind)
//     => qfrc_passive += the fluid forces;  their velocity derivative (implicitfast)
//
// A body with a geom of the ellipsoid model (body_fluidshape) feels, at each such geom g, the
// forces of the ellipsoid of g's semi-axes s in g's frame at g's velocity relative to the medium
// (ω, v), MuJoCo's model: added mass (p = ρ m_a ⊙ v, L = ρ I_a ⊙ ω from geom_fluid's per-density
// coefficients;  t += p × v + L × ω, f += p × ω), Magnus lift ρ c_M V ω × v, Kutta lift Γ × v
// (Γ = c_K ρ cos α A (n × v), A the area shown along v, n its normal), drag −(3π δ μ + ρ |v|
// (c_b A + c_s (A_max − A))) v and torque −(π δ³ μ + ρ |M|) ω, δ = ⅔ Σ s_i, M_i = ω_i (c_a I_i +
// c_s (I_max − I_i)); all scaled by g's interaction coefficient.  Every other body feels its
// inertia box's, MuJoCo's inertia-box model: a body b with mass m > 0 moves through the medium as
// the uniform box of its principal moments (A₀, A₁, A₂ about the axes R = R_b R(iquat)),
//   s_i = √(6 max(A_j + A_k − A_i, 10⁻¹⁵) / m)  (i, j, k a cycle),
// at its COM velocity in that frame relative to the medium, ω = Rᵀ ω_b and v = Rᵀ (v_b − wind):
//   viscous (Stokes drag of the sphere of diameter δ = (s₀ + s₁ + s₂)/3)
//     t = −π δ³ μ ω,                         f = −3π δ μ v
//   quadratic (pressure drag of the box's faces)
//     t_i −= ρ s_i (s_j⁴ + s_k⁴) |ω_i| ω_i / 64,   f_i −= ½ ρ s_j s_k |v_i| v_i
// applied at the COM through the Jacobian: τ += J_bᵀ [R f; R t].  Each term is a function of one
// velocity component, so B = ∂[t; f]/∂[ω; v] is diagonal, B = diag(∂t_i/∂ω_i, ∂f_i/∂v_i), and the
// forces' velocity derivative is D = Σ_b J_bᵀ B J_b, J_b = [Rᵀ J_ang; Rᵀ J_lin] at the COM
// (kernels/implicit.h); the ellipsoid model's B, a full 6×6 at each geom, comes from its forces
// by forward-mode derivatives (Tangent), the same function differentiated.  Where the density and
// the viscosity are both zero (in a pack: in every lane) nothing is computed; a massless body feels
// no force, as in MuJoCo.
#pragma once

#include "kernels/forward_kinematics.h"
#include "kernels/hd.h"
#include "kernels/instance.h"
#include "kernels/lanes.h"
#include "kernels/math_vec.h"
#include "kernels/model_view.h"

namespace zwang {

// the inertia box of body b and its velocity relative to the medium, in its principal frame
template <class T>
struct FluidBox {
  Mat3<T> r;      // principal axes, world (columns)
  Vec3<T> size;   // s_i
  Vec3<T> w, v;   // Rᵀ ω, Rᵀ (v_COM − wind)
  MaskOf<T> has;  // m ≥ 10⁻¹⁵
};

template <class T>
ZW_HD ZW_INLINE FluidBox<T> fluid_box(const ModelView<T>& m, const Instance<T>& d, int b) {
  const T mass = d.body_mass()[b];
  const auto iq = m.body_iquat + 4 * b;
  const Quat<T> local{T(iq[0]), T(iq[1]), T(iq[2]), T(iq[3])};
  const Mat3<T> rq = to_mat(local);
  const Sym3<T> inertia = load_sym(d.body_inertia(), 6 * b);
  // principal moments: the diagonal of R(iquat)ᵀ I R(iquat)
  const Vec3<T> c0 = column(rq, 0), c1 = column(rq, 1), c2 = column(rq, 2);
  const T a0 = dot(c0, mul(inertia, c0)), a1 = dot(c1, mul(inertia, c1));
  const T a2 = dot(c2, mul(inertia, c2));
  FluidBox<T> out;
  out.has = !(mass < T(1e-15));
  const T mb = vselect(out.has, mass, T(1));
  const auto side = [&](T moment) ZW_ITEM {
    return vsqrt(vselect(moment > T(1e-15), moment, T(1e-15)) / mb * T(6));
  };
  out.size = {side(a1 + a2 - a0), side(a0 + a2 - a1), side(a0 + a1 - a2)};
  out.r = to_mat(mul(load_quat(d.xquat(), 4 * b), local));
  const Vec3<T> w = load3(d.cvel(), 6 * b + 3);
  const Vec3<T> vcom = load3(d.cvel(), 6 * b) + cross(w, load3(d.xipos(), 3 * b));
  out.w = mul_transposed(out.r, w);
  out.v = mul_transposed(out.r, vcom - load3(d.wind(), 0));
  return out;
}

template <class T>
ZW_HD ZW_INLINE T larger(T a, T b) {
  return vselect(a > b, a, b);
}
template <class T>
ZW_HD ZW_INLINE T smaller(T a, T b) {
  return vselect(a < b, a, b);
}

template <class T>
ZW_HD ZW_INLINE T pow4(T x) {
  const T x2 = x * x;
  return x2 * x2;
}

// the coefficients of the inertia box's forces: t_i = −(ct_i + qt_i |ω_i|) ω_i, f_i = −(cf_i +
// qf_i |v_i|) v_i
template <class T>
struct FluidCoef {
  T ct, cf;        // viscous: π δ³ μ, 3π δ μ
  Vec3<T> qt, qf;  // quadratic: ρ s_i (s_j⁴ + s_k⁴) / 64, ½ ρ s_j s_k
};

template <class T>
ZW_HD ZW_INLINE FluidCoef<T> fluid_coef(const FluidBox<T>& box, T density, T viscosity) {
  const Vec3<T> s = box.size;
  const T diam = (s.x + s.y + s.z) / T(3);
  const T pi = T(3.14159265358979323846);
  FluidCoef<T> c;
  c.ct = pi * diam * diam * diam * viscosity;
  c.cf = T(3) * pi * diam * viscosity;
  const T q = density / T(64);
  c.qt = {q * s.x * (pow4(s.y) + pow4(s.z)), q * s.y * (pow4(s.x) + pow4(s.z)),
          q * s.z * (pow4(s.x) + pow4(s.y))};
  const T h = T(0.5) * density;
  c.qf = {h * s.y * s.z, h * s.x * s.z, h * s.x * s.y};
  return c;
}

// whether some lane has a medium
template <class T>
ZW_HD ZW_INLINE bool fluid_on(const Instance<T>& d) {
  return any_lane<T>(may_be_positive(d.density()[0]) || may_be_positive(d.viscosity()[0]));
}

// qfrc += J_bᵀ [f; t] for the force f and torque t at point p of body b, world
template <class T>
ZW_HD ZW_INLINE void apply_wrench(const ModelView<T>& m, const Instance<T>& d, int b,
                                  const Vec3<T>& p, const Vec3<T>& f, const Vec3<T>& t,
                                  Row<T> qfrc) {
  const Row<T> cdof = d.cdof();
  const Vec3<T> tc = cross(p, f) + t;
  const int adr = m.body_treeadr[b];
  for (int k = 0; k < m.body_treenum[b]; ++k) {
    const int j = m.tree_dof[adr + k];
    qfrc[j] += dot(load3(cdof, 6 * j), f) + dot(load3(cdof, 6 * j + 3), tc);
  }
}

// geom g's ellipsoid: its semi-axes s (MuJoCo's per type) and its geom_fluid row
template <class T>
struct FluidEllipsoid {
  T s[3];
  T prm[12];
};

template <class T>
ZW_HD ZW_INLINE FluidEllipsoid<T> fluid_ellipsoid(const ModelView<T>& m, int g) {
  const auto fl = m.geom_fluid + 12 * g;
  const auto sz = m.geom_size + 3 * g;
  const int type = m.geom_type[g];
  const bool round =
      type == GeomType::kSphere || type == GeomType::kCapsule || type == GeomType::kCylinder;
  FluidEllipsoid<T> e;
  e.s[0] = T(sz[0]);
  e.s[1] = round ? T(sz[0]) : T(sz[1]);
  e.s[2] = type == GeomType::kSphere    ? T(sz[0])
           : type == GeomType::kCapsule ? T(sz[1]) + T(sz[0])
                                        : (type == GeomType::kCylinder ? T(sz[1]) : T(sz[2]));
  for (int k = 0; k < 12; ++k) e.prm[k] = T(fl[k]);
  return e;
}

// the ellipsoid model's local torque t and force f at local angular and linear velocity w, v
// (before the interaction coefficient); S is T, or Tangent<T> for its velocity derivative
template <class S, class T>
ZW_HD void ellipsoid_fluid(const FluidEllipsoid<T>& e, const Vec3<S>& w, const Vec3<S>& v,
                           S density, S viscosity, Vec3<S>& t, Vec3<S>& f) {
  const S pi = S(3.14159265358979323846);
  const S s0 = S(e.s[0]), s1 = S(e.s[1]), s2 = S(e.s[2]);
  const S blunt = S(e.prm[1]), slender = S(e.prm[2]), angular = S(e.prm[3]), kutta = S(e.prm[4]);
  const S magnus = S(e.prm[5]);
  const Vec3<S> vm{S(e.prm[6]), S(e.prm[7]), S(e.prm[8])},
      vi{S(e.prm[9]), S(e.prm[10]), S(e.prm[11])};
  // added mass: the medium's momenta p = ρ m_v ⊙ v, L = ρ I_v ⊙ ω;  t = p × v + L × ω, f = p × ω
  const Vec3<S> p{density * vm.x * v.x, density * vm.y * v.y, density * vm.z * v.z};
  const Vec3<S> l{density * vi.x * w.x, density * vi.y * w.y, density * vi.z * w.z};
  t = cross(p, v) + cross(l, w);
  f = cross(p, w);
  // Magnus lift  ρ c_M V (ω × v)
  const S volume = S(4) / S(3) * pi * s0 * s1 * s2;
  const S dmax = larger(larger(s0, s1), s2), dmin = smaller(smaller(s0, s1), s2);
  const S dmid = s0 + s1 + s2 - dmax - dmin;
  const S amax = pi * dmax * dmid;
  const Vec3<S> fm = (magnus * density * volume) * cross(w, v);
  // the area the ellipsoid shows along v, A = π √(Σ (s_j s_k)⁴ v_i² / Σ (s_j s_k v_i)²), and the
  // Kutta–Joukowski lift (Γ × v), Γ = c_K ρ cos α A (n × v), n the (unnormalised) normal of that
  // section, cos α = Σ (s_j s_k v_i)² / (|v| Σ (s_j s_k)⁴ v_i²)
  const S a12 = s1 * s2, a20 = s2 * s0, a01 = s0 * s1;
  const S den = pow4(a12) * v.x * v.x + pow4(a20) * v.y * v.y + pow4(a01) * v.z * v.z;
  const S num = a12 * a12 * v.x * v.x + a20 * a20 * v.y * v.y + a01 * a01 * v.z * v.z;
  const S tiny = S(1e-15);
  const S aproj = pi * vsqrt(den / larger(tiny, num));
  const Vec3<S> n{a12 * a12 * v.x, a20 * a20 * v.y, a01 * a01 * v.z};
  const S speed = vsqrt(dot(v, v));
  const S cos_alpha = num / larger(tiny, speed * den);
  const Vec3<S> circ = (kutta * density * cos_alpha * aproj) * cross(n, v);
  const Vec3<S> fk = cross(circ, v);
  // drag: Stokes (the sphere of diameter δ = ⅔ Σ s_i) plus quadratic, blunt across the shown
  // area and slender across the rest of the largest section; the angular drag's quadratic part
  // from the moments I_i = 8π/15 s_i max(s_j, s_k)⁴ against the largest, 8π/15 s_mid s_max⁴
  const S diam = S(2) / S(3) * (s0 + s1 + s2);
  const S imax = S(8) / S(15) * pi * dmid * pow4(dmax);
  const S i0 = S(8) / S(15) * pi * s0 * pow4(larger(s1, s2));
  const S i1 = S(8) / S(15) * pi * s1 * pow4(larger(s2, s0));
  const S i2 = S(8) / S(15) * pi * s2 * pow4(larger(s0, s1));
  const Vec3<S> mom{w.x * (angular * i0 + slender * (imax - i0)),
                    w.y * (angular * i1 + slender * (imax - i1)),
                    w.z * (angular * i2 + slender * (imax - i2))};
  const S drag_lin =
      viscosity * S(3) * pi * diam + density * speed * (aproj * blunt + slender * (amax - aproj));
  const S drag_ang = viscosity * pi * diam * diam * diam + density * vsqrt(dot(mom, mom));
  t += (-drag_ang) * w;
  f += fm + fk - drag_lin * v;
}

// a value and its derivative along one direction (forward mode): the ellipsoid model's velocity
// derivative is its forces' Jacobian, column by column; masks and selects by the value
template <class T>
struct Tangent {
  T v, d;
  Tangent() = default;
  ZW_HD ZW_INLINE Tangent(T value, T slope) : v(value), d(slope) {}
  // a constant
  template <class U>
  ZW_HD ZW_INLINE Tangent(U c) : v(T(c)), d(T(0)) {}
};
template <class T>
ZW_HD ZW_INLINE Tangent<T> operator+(const Tangent<T>& a, const Tangent<T>& b) {
  return {a.v + b.v, a.d + b.d};
}
template <class T>
ZW_HD ZW_INLINE Tangent<T> operator-(const Tangent<T>& a, const Tangent<T>& b) {
  return {a.v - b.v, a.d - b.d};
}
template <class T>
ZW_HD ZW_INLINE Tangent<T> operator-(const Tangent<T>& a) {
  return {-a.v, -a.d};
}
template <class T>
ZW_HD ZW_INLINE Tangent<T> operator*(const Tangent<T>& a, const Tangent<T>& b) {
  return {a.v * b.v, a.d * b.v + a.v * b.d};
}
template <class T>
ZW_HD ZW_INLINE Tangent<T> operator/(const Tangent<T>& a, const Tangent<T>& b) {
  const T q = a.v / b.v;
  return {q, (a.d - q * b.d) / b.v};
}
template <class T>
ZW_HD ZW_INLINE Tangent<T>& operator+=(Tangent<T>& a, const Tangent<T>& b) {
  return a = a + b;
}
template <class T>
ZW_HD ZW_INLINE MaskOf<T> operator<(const Tangent<T>& a, const Tangent<T>& b) {
  return a.v < b.v;
}
template <class T>
ZW_HD ZW_INLINE MaskOf<T> operator>(const Tangent<T>& a, const Tangent<T>& b) {
  return a.v > b.v;
}

template <class T>
struct Lanes<Tangent<T>> {
  using Mask = MaskOf<T>;
  using Scalar = ScalarOf<T>;
  static constexpr int width = Lanes<T>::width;
  ZW_HD ZW_INLINE static Tangent<T> select(Mask m, const Tangent<T>& a, const Tangent<T>& b) {
    return {vselect(m, a.v, b.v), vselect(m, a.d, b.d)};
  }
  ZW_HD ZW_INLINE static bool any(Mask m) { return any_lane<T>(m); }
  ZW_HD ZW_INLINE static bool all(Mask m) { return all_lanes<T>(m); }
  // √x, of slope 0 at 0 (where the model's norms are 0, as MuJoCo's guarded derivatives)
  ZW_HD ZW_INLINE static Tangent<T> sqrt(const Tangent<T>& x) {
    const T r = vsqrt(x.v);
    const MaskOf<T> positive = r > T(0);
    return {r, vselect(positive, x.d / (T(2) * vselect(positive, r, T(1))), T(0))};
  }
};

// B = ∂[t; f]/∂[ω; v] of the ellipsoid model at (w, v), column k by the derivative along e_k
template <class T>
ZW_HD void ellipsoid_fluid_jacobian(const FluidEllipsoid<T>& e, const Vec3<T>& w, const Vec3<T>& v,
                                    T density, T viscosity, T (&b)[6][6]) {
  using S = Tangent<T>;
  for (int k = 0; k < 6; ++k) {
    const auto seed = [&](T x, int i) ZW_ITEM { return S(x, T(k == i ? 1 : 0)); };
    const Vec3<S> ws{seed(w.x, 0), seed(w.y, 1), seed(w.z, 2)};
    const Vec3<S> vs{seed(v.x, 3), seed(v.y, 4), seed(v.z, 5)};
    Vec3<S> t, f;
    ellipsoid_fluid<S>(e, ws, vs, S(density), S(viscosity), t, f);
    b[0][k] = t.x.d;
    b[1][k] = t.y.d;
    b[2][k] = t.z.d;
    b[3][k] = f.x.d;
    b[4][k] = f.y.d;
    b[5][k] = f.z.d;
  }
}

// geom g's centre p, frame R and velocity relative to the medium there, in that frame: w = Rᵀ ω_b,
// v = Rᵀ (v_b(p) − wind)
template <class T>
ZW_HD ZW_INLINE void fluid_geom_motion(const ModelView<T>& m, const Instance<T>& d, int g,
                                       Vec3<T>& p, Mat3<T>& r, Vec3<T>& w, Vec3<T>& v) {
  const int b = m.geom_bodyid[g];
  geom_frame(m, d, g, p, r);
  const Vec3<T> wb = load3(d.cvel(), 6 * b + 3);
  const Vec3<T> vp = load3(d.cvel(), 6 * b) + cross(wb, p);
  w = mul_transposed(r, wb);
  v = mul_transposed(r, vp - load3(d.wind(), 0));
}

// qfrc += Σ_b J_bᵀ [R f; R t]
template <class T>
ZW_HD void fluid_forces(const ModelView<T>& m, const Instance<T>& d, Row<T> qfrc) {
  if (!fluid_on(d)) return;
  const T density = d.density()[0], viscosity = d.viscosity()[0];
  const Vec3<T> zero{T(0), T(0), T(0)};
  // the ellipsoid model, per geom: at the geom's centre, in its frame
  for (int g = 0; g < m.s.ngeom; ++g) {
    if (!m.geom_fluidshape[g]) continue;
    const T coef = T(m.geom_fluid[12 * g]);
    const int b = m.geom_bodyid[g];
    const MaskOf<T> has = !(d.body_mass()[b] < T(1e-15));
    if (!any_lane<T>(has)) continue;
    Vec3<T> p, w, v, t, f;
    Mat3<T> r;
    fluid_geom_motion(m, d, g, p, r, w, v);
    ellipsoid_fluid<T>(fluid_ellipsoid(m, g), w, v, density, viscosity, t, f);
    apply_wrench(m, d, b, p, vselect(has, coef * mul(r, f), zero),
                 vselect(has, coef * mul(r, t), zero), qfrc);
  }
  // the inertia box of each other body
  for (int b = 1; b < m.s.nbody; ++b) {
    if (m.body_fluidshape[b] != 0) continue;
    const FluidBox<T> box = fluid_box(m, d, b);
    if (!any_lane<T>(box.has)) continue;
    const FluidCoef<T> c = fluid_coef(box, density, viscosity);
    const Vec3<T> w = box.w, v = box.v;
    const Vec3<T> lt{-(c.ct + c.qt.x * vabs(w.x)) * w.x, -(c.ct + c.qt.y * vabs(w.y)) * w.y,
                     -(c.ct + c.qt.z * vabs(w.z)) * w.z};
    const Vec3<T> lf{-(c.cf + c.qf.x * vabs(v.x)) * v.x, -(c.cf + c.qf.y * vabs(v.y)) * v.y,
                     -(c.cf + c.qf.z * vabs(v.z)) * v.z};
    apply_wrench(m, d, b, load3(d.xipos(), 3 * b), vselect(box.has, mul(box.r, lf), zero),
                 vselect(box.has, mul(box.r, lt), zero), qfrc);
  }
}

// whether the passive forces include the fluid's: not with all passive forces off (MuJoCo
// 2.2's passive flag, or MuJoCo 3's spring and damper flags both)
ZW_HD ZW_INLINE bool fluid_enabled(int disableflags) {
  return !(disableflags & kDisablePassive) &&
         (disableflags & (kDisableSpring | kDisableDamper)) != (kDisableSpring | kDisableDamper);
}

// the terms of −h D for the fluid forces on bodies [first, last): block(b, p, R, B, c) adds
// c Jᵀ B J, J = [Rᵀ J_ang; Rᵀ J_lin] the Jacobian of body b at the point p in the frame R, B the
// forces' derivative ∂[t; f]/∂[ω; v] there.  MuJoCo's implicitfast makes the ellipsoid model's B
// symmetric, ½ (B + Bᵀ), except on a free body that moves its tree alone (`symmetric` false),
// whose 6×6 system is solved by an LU; the inertia box's B is diagonal.
template <class T, class Block>
ZW_HD void fluid_implicit_terms(const ModelView<T>& m, const Instance<T>& d, T h, int first,
                                int last, bool symmetric, const Block& block) {
  if (!fluid_on(d)) return;
  const T density = d.density()[0], viscosity = d.viscosity()[0];
  T bm[6][6];
  for (int g = 0; g < m.s.ngeom; ++g) {
    const int b = m.geom_bodyid[g];
    if (!m.geom_fluidshape[g] || b < first || b >= last) continue;
    const MaskOf<T> has = !(d.body_mass()[b] < T(1e-15));
    if (!any_lane<T>(has)) continue;
    Vec3<T> p, w, v;
    Mat3<T> r;
    fluid_geom_motion(m, d, g, p, r, w, v);
    const FluidEllipsoid<T> e = fluid_ellipsoid(m, g);
    ellipsoid_fluid_jacobian(e, w, v, density, viscosity, bm);
    // a massless body's lanes get none (selected, so that nothing of theirs reaches the matrix)
    for (int i = 0; i < 6; ++i) {
      for (int k = 0; k < 6; ++k) bm[i][k] = vselect(has, e.prm[0] * bm[i][k], T(0));
    }
    for (int i = 0; symmetric && i < 6; ++i) {
      for (int k = 0; k < i; ++k) bm[i][k] = bm[k][i] = T(0.5) * (bm[i][k] + bm[k][i]);
    }
    block(b, p, r, bm, -h);
  }
  for (int b = first > 1 ? first : 1; b < last; ++b) {
    if (m.body_fluidshape[b] != 0) continue;
    const FluidBox<T> box = fluid_box(m, d, b);
    if (!any_lane<T>(box.has)) continue;
    const FluidCoef<T> c = fluid_coef(box, density, viscosity);
    // ∂(−(c + q|x|) x)/∂x = −(c + 2 q |x|)
    const T w[3] = {box.w.x, box.w.y, box.w.z}, v[3] = {box.v.x, box.v.y, box.v.z};
    const T qt[3] = {c.qt.x, c.qt.y, c.qt.z}, qf[3] = {c.qf.x, c.qf.y, c.qf.z};
    for (int i = 0; i < 6; ++i) {
      for (int k = 0; k < 6; ++k) bm[i][k] = T(0);
    }
    for (int i = 0; i < 3; ++i) {
      bm[i][i] = vselect(box.has, -(c.ct + T(2) * qt[i] * vabs(w[i])), T(0));
      bm[3 + i][3 + i] = vselect(box.has, -(c.cf + T(2) * qf[i] * vabs(v[i])), T(0));
    }
    block(b, load3(d.xipos(), 3 * b), box.r, bm, -h);
  }
}

// the 6 local velocity components [Rᵀ S_ang; Rᵀ (S_lin + S_ang × p)] of a dof's axis S (cdof,
// Plücker at the world origin) at the point p in the frame R: a column of fluid_implicit_terms' J
template <class T>
ZW_HD ZW_INLINE void fluid_local_axis(const Instance<T>& d, int dof, const Vec3<T>& p,
                                      const Mat3<T>& r, T (&out)[6]) {
  const Vec3<T> ang = load3(d.cdof(), 6 * dof + 3);
  const Vec3<T> lin = load3(d.cdof(), 6 * dof) + cross(ang, p);
  const Vec3<T> a = mul_transposed(r, ang), l = mul_transposed(r, lin);
  out[0] = a.x;
  out[1] = a.y;
  out[2] = a.z;
  out[3] = l.x;
  out[4] = l.y;
  out[5] = l.z;
}

}  // namespace zwang
