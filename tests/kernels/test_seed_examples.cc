// Seed 001's worked examples (eq. 70, eq. 91), motion in a driven frame, and the hard rows
// (drives, knife edge, rolling sphere, hard connect and joint equalities), each against a
// reference written here: the seed's ODE under our own RK4, inertial forces put in by hand,
// closed forms, conservation laws, and Gauss's function with A computed here.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <numbers>
#include <random>
#include <string>

#include "kernels/status.h"
#include "test_util.h"
#include "zwang/builder.hpp"
#include "zwang/simulator.hpp"

namespace zwang::test {
namespace {

constexpr double kPi = std::numbers::pi;
constexpr double kG = 9.81;
// one thread: the runs step a few instances thousands of times, one step() call each
const SimulatorOptions kOneThread{.threads = 1};

using Ode = std::function<Eigen::VectorXd(double, const Eigen::VectorXd&)>;

// classical RK4 for ẏ = f(t, y): y(t + h) in `sub` steps of h / sub
Eigen::VectorXd rk4(const Ode& f, double t, Eigen::VectorXd y, double h, int sub) {
  const double s = h / sub;
  for (int i = 0; i < sub; ++i) {
    const double ti = t + i * s;
    const Eigen::VectorXd k1 = f(ti, y);
    const Eigen::VectorXd k2 = f(ti + s / 2, y + s / 2 * k1);
    const Eigen::VectorXd k3 = f(ti + s / 2, y + s / 2 * k2);
    const Eigen::VectorXd k4 = f(ti + s, y + s * k3);
    y += s / 6 * (k1 + 2 * k2 + 2 * k3 + k4);
  }
  return y;
}

// q*(t) = q0 + v0 t + A sin(ω t + φ) and its derivatives, from the spec's numbers
struct Motion {
  double q, v, a;
};
Motion drive_motion(const DriveSpec& d, double t) {
  const double s = std::sin(d.omega * t + d.phase), c = std::cos(d.omega * t + d.phase);
  return {d.q0 + d.v0 * t + d.amplitude * s, d.v0 + d.amplitude * d.omega * c,
          -d.amplitude * d.omega * d.omega * s};
}

// the acceleration a drive's hard row imposes off its path (drift correction by solref
// (τ, ζ), τ at least 2 h):  q̈ = q̈* − B (q̇ − q̇*) − K (q − q*),  B = 2 / τ,  K = 1 / (τ ζ)²
double drive_acc(const DriveSpec& d, double t, double q, double v, double dt) {
  const double tau = std::max(d.solref[0], 2 * dt), zeta = d.solref[1];
  const Motion m = drive_motion(d, t);
  return m.a - 2 / tau * (v - m.v) - (q - m.q) / (tau * tau * zeta * zeta);
}

Inertia6 diagonal(double xx, double yy, double zz) {
  return {xx, yy, zz, 0, 0, 0};
}

JointSpec slide(const std::string& name, const Vec3d& axis, double stiffness = 0) {
  return {.name = name, .type = JointType::kSlide, .axis = axis, .stiffness = stiffness};
}
JointSpec hinge(const std::string& name, const Vec3d& axis) {
  return {.name = name, .type = JointType::kHinge, .axis = axis};
}

double qpos_of(Simulator<double>& sim, const std::string& joint, int i = 0) {
  return sim.batch().qpos()(i, sim.model().jnt_qposadr[sim.model().id(ObjType::kJoint, joint)]);
}
double qvel_of(Simulator<double>& sim, const std::string& joint, int i = 0) {
  return sim.batch().qvel()(i, sim.model().jnt_dofadr[sim.model().id(ObjType::kJoint, joint)]);
}
double qacc_of(Simulator<double>& sim, const std::string& joint, int i = 0) {
  return sim.batch().qacc()(i, sim.model().jnt_dofadr[sim.model().id(ObjType::kJoint, joint)]);
}
void set_joint(Simulator<double>& sim, const std::string& joint, double q, double v, int i = 0) {
  const Model& m = sim.model();
  sim.batch().qpos()(i, m.jnt_qposadr[m.id(ObjType::kJoint, joint)]) = q;
  sim.batch().qvel()(i, m.jnt_dofadr[m.id(ObjType::kJoint, joint)]) = v;
}

// ---------------------------------------------------------------------------------------------
// Example 1 (eq. 70).  In the vertical x–z plane the block's point O moves on a circle of
// radius l0, O = l0 (sin θ, −cos θ) (θ from the downward vertical), and the pendulum's COM is
// C = O + R (sin φ, −cos φ).  Lagrange, or Gauss with eq. (68):
//   m (ρ² + R²) φ̈ + m R (cos φ, sin φ)·Ö + m g R sin φ = 0,
//   Ö = l0 θ̈ (cos θ, sin θ) + l0 θ̇² (−sin θ, cos θ),
//   (cos φ, sin φ)·Ö = l0 θ̈ cos(φ − θ) + l0 θ̇² sin(φ − θ)          => eq. (70).
// A hinge about −y turns (0, 0, −1) into (sin φ, 0, −cos φ), so φ is that hinge's angle.
struct Example1 {
  double l0 = 0.5, mass = 1.3, r = 0.4, rho = 0.15;
  double phi_acc(double phi, double th, double thd, double thdd) const {
    const double lever = l0 * r * (thd * thd * std::sin(phi - th) + thdd * std::cos(phi - th));
    return -(lever + kG * r * std::sin(phi)) / (rho * rho + r * r);
  }
  BodySpec pendulum(const std::string& parent) const {
    return {.name = "pendulum",
            .parent = parent,
            .mass = mass,
            .com = {0, 0, -r},
            .inertia = diagonal(0.03, mass * rho * rho, 0.02)};
  }
};

// the block on two slide joints driven on the circle, θ = Ω t:
//   x = l0 sin(Ω t),  z = −l0 cos(Ω t) = l0 sin(Ω t − π/2)
// drive forces from the momentum of block and pendulum at zwang's state, with Ö the drives'
// accelerations (drive_acc) and φ̈ from the pendulum's equation above:
//   F_x = m_b ẍ_O + m C̈_x,   F_z = m_b z̈_O + m C̈_z + (m_b + m) g
TEST(SeedExamples, Eq70PendulumOnBlockTranslatedOnCircleBySlides) {
  const Example1 ex;
  const double omega = 2.0, block_mass = 2.0, dt = 1e-3, duration = 5.0;
  ModelBuilder b;
  b.set_integrator(Integrator::kRK4).set_timestep(dt);
  b.add_body({.name = "block", .mass = block_mass, .inertia = diagonal(0.1, 0.1, 0.1)});
  b.add_joint("block", slide("bx", {1, 0, 0}));
  b.add_joint("block", slide("bz", {0, 0, 1}));
  b.add_body(ex.pendulum("block"));
  b.add_joint("pendulum", hinge("phi", {0, -1, 0}));
  const DriveSpec dx{.joint = "bx", .amplitude = ex.l0, .omega = omega};
  const DriveSpec dz{.joint = "bz", .amplitude = ex.l0, .omega = omega, .phase = -kPi / 2};
  b.add_drive(dx);
  b.add_drive(dz);
  const Model model = b.build();

  Simulator<double> sim(model, 1, kOneThread);
  const double phi0 = 0.3, phid0 = -0.5;
  set_joint(sim, "bx", drive_motion(dx, 0).q, drive_motion(dx, 0).v);
  set_joint(sim, "bz", drive_motion(dz, 0).q, drive_motion(dz, 0).v);
  set_joint(sim, "phi", phi0, phid0);

  const Ode f = [&](double t, const Eigen::VectorXd& y) {
    return Eigen::Vector2d(y[1], ex.phi_acc(y[0], omega * t, omega, 0)).eval();
  };
  Eigen::VectorXd y = Eigen::Vector2d(phi0, phid0);
  const int steps = static_cast<int>(std::lround(duration / dt));
  double err_phi = 0, err_drive = 0, err_force = 0, force_scale = 0;
  for (int k = 1; k <= steps; ++k) {
    sim.step(1);
    y = rk4(f, (k - 1) * dt, y, dt, 4);
    const double t = sim.batch().time()[0];
    ASSERT_NEAR(t, k * dt, 1e-12);
    err_phi = std::max(err_phi, std::abs(qpos_of(sim, "phi") - y[0]));
    err_drive = std::max({err_drive, std::abs(qpos_of(sim, "bx") - drive_motion(dx, t).q),
                          std::abs(qpos_of(sim, "bz") - drive_motion(dz, t).q)});
    if (k % 50 == 0) {
      sim.forward();
      const double phi = qpos_of(sim, "phi"), phid = qvel_of(sim, "phi");
      const double ax = drive_acc(dx, t, qpos_of(sim, "bx"), qvel_of(sim, "bx"), dt);
      const double az = drive_acc(dz, t, qpos_of(sim, "bz"), qvel_of(sim, "bz"), dt);
      const double phidd =
          -(ex.r * (std::cos(phi) * ax + std::sin(phi) * az) + kG * ex.r * std::sin(phi)) /
          (ex.rho * ex.rho + ex.r * ex.r);
      const double cx = ax + ex.r * (phidd * std::cos(phi) - phid * phid * std::sin(phi));
      const double cz = az + ex.r * (phidd * std::sin(phi) + phid * phid * std::cos(phi));
      const double fx = block_mass * ax + ex.mass * cx;
      const double fz = block_mass * az + ex.mass * cz + (block_mass + ex.mass) * kG;
      const Eigen::VectorXd force = get(sim.batch().drive_force(), 0);
      err_force = std::max({err_force, std::abs(force[0] - fx), std::abs(force[1] - fz)});
      force_scale = std::max({force_scale, std::abs(fx), std::abs(fz)});
    }
  }
  EXPECT_TRUE(sim.failures().empty());
  EXPECT_LT(err_phi, 1e-8);
  EXPECT_LT(err_drive, 1e-9);
  EXPECT_LT(err_force, 1e-11 * force_scale);
  std::printf(
      "eq. 70 (slides): max |φ − φ_ref| %.2e, drive coordinate %.2e, drive force %.2e "
      "(of %.1f N)\n",
      err_phi, err_drive, err_force, force_scale);
}

// circular translation with a non-uniform θ(t) = v0 t + A sin(w t), so that eq. (70)'s θ̈ term
// acts: an arm on a driven hinge at the circle's centre carries the block's hinge at its end,
// driven at −θ(t) so that the block only translates.  At zwang's state, with the drives'
// accelerations (drive_acc): the block turns by β = θ + θ_c (0 on the path) about its COM, its
// hinge point O, so its drive supplies I_b β̈; the pendulum's absolute angle Φ = β + φ obeys
// the equation above with Ö; the arm's drive supplies (angular momentum about the origin, −y)
//   τ = dL/dt + g Σ m_k x_k,   L = Σ_k [m_k (x_k ż_k − z_k ẋ_k) + I_k ψ̇_k]
TEST(SeedExamples, Eq70PendulumOnBlockTranslatedOnCircleByArm) {
  const Example1 ex;
  const double arm_mass = 0.7, arm_inertia = 0.02, block_mass = 2.0, block_inertia = 0.1;
  const double dt = 1e-3, duration = 5.0;
  ModelBuilder b;
  b.set_integrator(Integrator::kRK4).set_timestep(dt);
  b.add_body({.name = "arm",
              .mass = arm_mass,
              .com = {0, 0, -ex.l0 / 2},
              .inertia = diagonal(0.02, arm_inertia, 0.01)});
  b.add_joint("arm", hinge("theta", {0, -1, 0}));
  b.add_body({.name = "block",
              .parent = "arm",
              .pos = {0, 0, -ex.l0},
              .mass = block_mass,
              .inertia = diagonal(0.1, block_inertia, 0.1)});
  b.add_joint("block", hinge("counter", {0, -1, 0}));
  b.add_body(ex.pendulum("block"));
  b.add_joint("pendulum", hinge("phi", {0, -1, 0}));
  const DriveSpec arm{.joint = "theta", .v0 = 0.8, .amplitude = 0.5, .omega = 2.5};
  const DriveSpec counter{.joint = "counter", .v0 = -0.8, .amplitude = -0.5, .omega = 2.5};
  b.add_drive(arm);
  b.add_drive(counter);
  const Model model = b.build();

  Simulator<double> sim(model, 1, kOneThread);
  const double phi0 = -0.4, phid0 = 1.0;
  set_joint(sim, "theta", drive_motion(arm, 0).q, drive_motion(arm, 0).v);
  set_joint(sim, "counter", drive_motion(counter, 0).q, drive_motion(counter, 0).v);
  set_joint(sim, "phi", phi0, phid0);

  const Ode f = [&](double t, const Eigen::VectorXd& y) {
    const Motion th = drive_motion(arm, t);
    return Eigen::Vector2d(y[1], ex.phi_acc(y[0], th.q, th.v, th.a)).eval();
  };
  Eigen::VectorXd y = Eigen::Vector2d(phi0, phid0);
  const int steps = static_cast<int>(std::lround(duration / dt));
  double err_phi = 0, err_drive = 0, err_arm = 0, err_block = 0, torque_scale = 0;
  for (int k = 1; k <= steps; ++k) {
    sim.step(1);
    y = rk4(f, (k - 1) * dt, y, dt, 4);
    const double t = sim.batch().time()[0];
    err_phi = std::max(err_phi, std::abs(qpos_of(sim, "phi") - y[0]));
    err_drive = std::max({err_drive, std::abs(qpos_of(sim, "theta") - drive_motion(arm, t).q),
                          std::abs(qpos_of(sim, "counter") - drive_motion(counter, t).q)});
    if (k % 50 == 0) {
      sim.forward();
      const double th = qpos_of(sim, "theta"), thd = qvel_of(sim, "theta");
      const double thdd = drive_acc(arm, t, th, thd, dt);
      const double bdd =
          thdd + drive_acc(counter, t, qpos_of(sim, "counter"), qvel_of(sim, "counter"), dt);
      const double phi = th + qpos_of(sim, "counter") + qpos_of(sim, "phi");
      const double phid = thd + qvel_of(sim, "counter") + qvel_of(sim, "phi");
      // point at distance d along the direction (sin a, −cos a): position, acceleration
      auto swing = [](double d, double a, double ad, double add) {
        const Eigen::Vector2d u(std::sin(a), -std::cos(a)), n(std::cos(a), std::sin(a));
        return std::pair<Eigen::Vector2d, Eigen::Vector2d>(d * u, d * (add * n - ad * ad * u));
      };
      const auto [ra, aa] = swing(ex.l0 / 2, th, thd, thdd);
      const auto [ro, ao] = swing(ex.l0, th, thd, thdd);
      const double phidd =
          -(ex.r * (std::cos(phi) * ao[0] + std::sin(phi) * ao[1]) + kG * ex.r * std::sin(phi)) /
          (ex.rho * ex.rho + ex.r * ex.r);
      const auto [rc_rel, ac_rel] = swing(ex.r, phi, phid, phidd);
      const Eigen::Vector2d rc = ro + rc_rel, ac = ao + ac_rel;
      auto moment = [](const Eigen::Vector2d& r, const Eigen::Vector2d& a) {
        return r[0] * a[1] - r[1] * a[0];
      };
      const double ldot = arm_mass * moment(ra, aa) + arm_inertia * thdd +
                          block_mass * moment(ro, ao) + block_inertia * bdd +
                          ex.mass * moment(rc, ac) + ex.mass * ex.rho * ex.rho * phidd;
      const double tau = ldot + kG * (arm_mass * ra[0] + block_mass * ro[0] + ex.mass * rc[0]);
      const Eigen::VectorXd force = get(sim.batch().drive_force(), 0);
      err_arm = std::max(err_arm, std::abs(force[0] - tau));
      err_block = std::max(err_block, std::abs(force[1] - block_inertia * bdd));
      torque_scale = std::max(torque_scale, std::abs(tau));
    }
  }
  EXPECT_TRUE(sim.failures().empty());
  EXPECT_LT(err_phi, 1e-8);
  EXPECT_LT(err_drive, 1e-9);
  EXPECT_LT(err_arm, 1e-11 * torque_scale);
  EXPECT_LT(err_block, 1e-11 * torque_scale);
  std::printf(
      "eq. 70 (arm, θ̈ ≠ 0): max |φ − φ_ref| %.2e, drive coordinates %.2e, arm torque "
      "%.2e, block torque %.2e (of %.1f N m)\n",
      err_phi, err_drive, err_arm, err_block, torque_scale);
}

// eq. (70) at random states and times, one forward() each: φ̈ of zwang against the equation
TEST(SeedExamples, Eq70AccelerationAtRandomStates) {
  const Example1 ex;
  const double omega = 1.7;
  ModelBuilder b;
  b.add_body({.name = "block", .mass = 2.0, .inertia = diagonal(0.1, 0.1, 0.1)});
  b.add_joint("block", slide("bx", {1, 0, 0}));
  b.add_joint("block", slide("bz", {0, 0, 1}));
  b.add_body(ex.pendulum("block"));
  b.add_joint("pendulum", hinge("phi", {0, -1, 0}));
  const DriveSpec dx{.joint = "bx", .amplitude = ex.l0, .omega = omega, .phase = 0.4};
  const DriveSpec dz{.joint = "bz", .amplitude = ex.l0, .omega = omega, .phase = 0.4 - kPi / 2};
  b.add_drive(dx);
  b.add_drive(dz);
  const int n = 40;
  Simulator<double> sim(b.build(), n, kOneThread);
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> phi(n), phid(n);
  for (int i = 0; i < n; ++i) {
    const double t = 5 * (u(rng) + 1);
    sim.batch().time()[i] = t;
    set_joint(sim, "bx", drive_motion(dx, t).q, drive_motion(dx, t).v, i);
    set_joint(sim, "bz", drive_motion(dz, t).q, drive_motion(dz, t).v, i);
    phi[i] = kPi * u(rng);
    phid[i] = 3 * u(rng);
    set_joint(sim, "phi", phi[i], phid[i], i);
  }
  sim.forward();
  double err = 0;
  for (int i = 0; i < n; ++i) {
    const double t = sim.batch().time()[i];
    const double expected = ex.phi_acc(phi[i], omega * t + 0.4, omega, 0);
    EXPECT_NEAR(qacc_of(sim, "phi", i), expected, 1e-10 * (1 + std::abs(expected)))
        << "instance " << i;
    EXPECT_NEAR(qacc_of(sim, "bx", i), drive_motion(dx, t).a, 1e-10) << "instance " << i;
    err = std::max(err, std::abs(qacc_of(sim, "phi", i) - expected));
  }
  std::printf("eq. 70 at %d random states: max |φ̈ − φ̈_ref| %.2e\n", n, err);
}

// ---------------------------------------------------------------------------------------------
// Example 2 (eq. 91).  A frame turns about the vertical z axis, its hinge driven at ω t.  In
// the frame, A = (0, 0, l cos θ) slides on Oz and B = (l sin θ, 0, 0) on Ox; a spring k pulls B
// back to O.  The closed chain is cut into two trees that each carry half of the rod:
//   frame → P (massless, slide z: A) → rod1 (hinge −y at A, θ1, mass m/2)
//   frame → S (massless, slides x, y: B, stiffness k on x) → rod2 (hinge −y at B, θ2, m/2)
// and closed by two hard equalities: a connect of rod1's end B to rod2's origin, and the joint
// equality θ1 = θ2; welded together the halves are one rod of mass m, COM at l/2, and the spring
// is exactly the slide's stiffness: F = −k x_B.  (One tree would need z_A = l cos θ, which a
// polynomial joint equality cannot express, and a slider leaf must carry mass.)  S's y slide
// makes the connect's three rows independent; without it (`redundant`) both ends stay in the
// frame's x–z plane by construction and the connect's frame-y row is 0 on the closed chain.
// For a rod with inertia I_t (transverse) and J_a (axial) about its COM, Lagrange gives
//   J θ̈ = [ω² (J − J_a) − k l²] sin θ cos θ + ½ m g l sin θ,   J = m l²/4 + I_t,
// since the rod's inertia about Oz is I_z = J sin²θ + J_a cos²θ; a thin rod, I_t = m l²/12,
// J_a = 0, gives eq. (91): θ̈ − (ω² − 3k/m) sin θ cos θ − (3g / 2l) sin θ = 0.
// The drive supplies dL_z/dt, L_z = ψ̇ (I_f + I_z) (the relative motion is in the frame's x–z
// plane, the spring is radial):  τ = ψ̈ (I_f + I_z) + 2 ψ̇ (J − J_a) sin θ cos θ θ̇.
struct Example2 {
  double m = 1.0, l = 1.0, k = 10.0, omega = 2.0, frame_inertia = 0.8;
  double it = 1.0 / 12, ja = 0;  // × m l²
  double j() const { return m * l * l * (0.25 + it); }
  double theta_acc(double th) const {
    const double jj = j();
    return ((omega * omega * (jj - ja * m * l * l) - k * l * l) * std::sin(th) * std::cos(th) +
            0.5 * m * kG * l * std::sin(th)) /
           jj;
  }
  double torque(double th, double thd, double psid, double psidd) const {
    const double s = std::sin(th), c = std::cos(th), ja_abs = ja * m * l * l;
    return psidd * (frame_inertia + j() * s * s + ja_abs * c * c) +
           2 * psid * (j() - ja_abs) * s * c * thd;
  }
  // each half: (I_t, I_t, J_a) / 2 with the rod along the body z axis
  Inertia6 half_inertia() const {
    const double ml2 = m * l * l;
    return diagonal(it * ml2 / 2, it * ml2 / 2, ja * ml2 / 2);
  }
  DriveSpec drive() const { return {.joint = "spin", .v0 = omega}; }
};

Model example2_model(const Example2& ex, double dt, bool redundant = false) {
  ModelBuilder b;
  b.set_integrator(Integrator::kRK4).set_timestep(dt);
  b.add_body({.name = "frame", .mass = 3.0, .inertia = diagonal(0.5, 0.5, ex.frame_inertia)});
  b.add_joint("frame", hinge("spin", {0, 0, 1}));
  b.add_body({.name = "P", .parent = "frame", .pos = {0, 0, ex.l}});
  b.add_joint("P", slide("za", {0, 0, 1}));
  b.add_body({.name = "rod1",
              .parent = "P",
              .mass = ex.m / 2,
              .com = {0, 0, -ex.l / 2},
              .inertia = ex.half_inertia()});
  b.add_joint("rod1", hinge("th1", {0, -1, 0}));
  b.add_body({.name = "S", .parent = "frame"});
  b.add_joint("S", slide("xb", {1, 0, 0}, ex.k));
  if (!redundant) b.add_joint("S", slide("yb", {0, 1, 0}));
  b.add_body({.name = "rod2",
              .parent = "S",
              .mass = ex.m / 2,
              .com = {0, 0, ex.l / 2},
              .inertia = ex.half_inertia()});
  b.add_joint("rod2", hinge("th2", {0, -1, 0}));
  b.add_equality({.name = "closure",
                  .type = EqualityType::kConnect,
                  .obj1 = "rod1",
                  .obj2 = "rod2",
                  .anchor = {0, 0, -ex.l},
                  .hard = true});
  b.add_equality({.name = "same_angle",
                  .type = EqualityType::kJoint,
                  .obj1 = "th1",
                  .obj2 = "th2",
                  .hard = true});
  b.add_drive(ex.drive());
  return b.build();
}

// the consistent state of instance i at angle θ, rate θ̇, frame angle ψ (on the drive's path
// at time ψ / ω)
void set_example2_state(Simulator<double>& sim, const Example2& ex, double th, double thd,
                        double psi, int i) {
  set_joint(sim, "spin", psi, ex.omega, i);
  set_joint(sim, "za", ex.l * std::cos(th) - ex.l, -ex.l * std::sin(th) * thd, i);
  set_joint(sim, "th1", th, thd, i);
  set_joint(sim, "xb", ex.l * std::sin(th), ex.l * std::cos(th) * thd, i);
  set_joint(sim, "th2", th, thd, i);
  sim.batch().time()[i] = psi / ex.omega;
}

// the largest errors of a run of Example 2 against its reference, per instance
struct Example2Run {
  double theta[2] = {0, 0}, torque[2] = {0, 0}, torque_scale[2] = {0, 0};
  double closure = 0, drive = 0, theta_min = 1e9;
};

// instance i has the rod `rods[i]` (inertia parameters set per instance) and is compared with
// the equation of `refs[i]`, both from θ0 at rest, for `duration` s
Example2Run run_example2(const Model& model, const Example2* rods[2], const Example2* refs[2],
                         double theta0, double duration) {
  const double dt = model.timestep;
  Simulator<double> sim(model, 2, kOneThread);
  Eigen::VectorXd y[2];
  Ode f[2];
  for (int i = 0; i < 2; ++i) {
    std::vector<double> inertia = sim.batch().body_inertia().get(i);
    const Inertia6 half = rods[i]->half_inertia();
    for (const char* rod : {"rod1", "rod2"}) {
      std::copy(half.begin(), half.end(), inertia.begin() + 6 * model.id(ObjType::kBody, rod));
    }
    sim.batch().body_inertia().set(i, inertia);
    set_example2_state(sim, *rods[i], theta0, 0, 0, i);
    y[i] = Eigen::Vector2d(theta0, 0);
    f[i] = [ex = refs[i]](double, const Eigen::VectorXd& s) {
      return Eigen::Vector2d(s[1], ex->theta_acc(s[0])).eval();
    };
  }
  const DriveSpec drive = rods[0]->drive();
  const double l = rods[0]->l;
  const int steps = static_cast<int>(std::lround(duration / dt));
  Example2Run e;
  for (int k = 1; k <= steps; ++k) {
    sim.step(1);
    for (int i = 0; i < 2; ++i) {
      y[i] = rk4(f[i], (k - 1) * dt, y[i], dt, 4);
      const double th = qpos_of(sim, "th1", i);
      e.theta[i] = std::max(e.theta[i], std::abs(th - y[i][0]));
      e.drive =
          std::max(e.drive, std::abs(qpos_of(sim, "spin", i) - drive_motion(drive, k * dt).q));
      // the chain stays closed: z_A = l cos θ, x_B = l sin θ, θ2 = θ1
      e.closure = std::max({e.closure, std::abs(qpos_of(sim, "za", i) + l - l * std::cos(th)),
                            std::abs(qpos_of(sim, "xb", i) - l * std::sin(th)),
                            std::abs(qpos_of(sim, "th2", i) - th)});
      e.theta_min = std::min(e.theta_min, y[i][0]);
    }
    if (k % 50 == 0) {
      sim.forward();
      for (int i = 0; i < 2; ++i) {
        const double psid = qvel_of(sim, "spin", i);
        const double psidd = drive_acc(drive, k * dt, qpos_of(sim, "spin", i), psid, dt);
        const double tau =
            rods[i]->torque(qpos_of(sim, "th1", i), qvel_of(sim, "th1", i), psid, psidd);
        e.torque[i] = std::max(e.torque[i], std::abs(sim.batch().drive_force()(i, 0) - tau));
        e.torque_scale[i] = std::max(e.torque_scale[i], std::abs(tau));
      }
    }
  }
  EXPECT_TRUE(sim.failures().empty()) << sim.failures()[0].message();
  return e;
}

// instance 0: a thin rod (J_a = 1e-10 m l², below the test's resolution, as the builder wants a
// positive definite inertia) against eq. (91) itself; instance 1: a thick rod (radius l/10)
// against the same equation with its I_t and J_a, from per-instance inertia parameters
TEST(SeedExamples, Eq91RodOnRotatingAxesWithSpring) {
  Example2 thin;
  thin.ja = 1e-10;
  Example2 thick = thin;
  const double radius = 0.1;  // × l
  thick.it = 1.0 / 12 + radius * radius / 4;
  thick.ja = radius * radius / 2;
  Example2 eq91 = thin;  // the seed's coefficients exactly
  eq91.ja = 0;
  const Example2* rods[2] = {&thin, &thick};
  const Example2* refs[2] = {&eq91, &thick};
  const Example2Run e = run_example2(example2_model(thin, 1e-3), rods, refs, 0.6, 5.0);
  EXPECT_LT(e.theta_min, -0.5);  // it swings through θ = 0 to the other side
  EXPECT_LT(e.theta[0], 1e-6) << "thin rod, eq. (91)";
  EXPECT_LT(e.theta[1], 1e-6) << "thick rod";
  for (int i = 0; i < 2; ++i) EXPECT_LT(e.torque[i], 1e-8 * e.torque_scale[i]) << "instance " << i;
  EXPECT_LT(e.drive, 1e-9);
  EXPECT_LT(e.closure, 1e-9);
  std::printf(
      "eq. 91: max |θ − θ_ref| thin %.2e, thick %.2e; closure %.2e; drive angle %.2e; drive "
      "torque %.2e, %.2e (of %.2f, %.2f N m)\n",
      e.theta[0], e.theta[1], e.closure, e.drive, e.torque[0], e.torque[1], e.torque_scale[0],
      e.torque_scale[1]);
}

// the same run with the planar model whose connect has a redundant row (A is rank-deficient by
// one on the closed chain), as the solver allows ("S⁺ drops dependent rows")
TEST(SeedExamples, Eq91WithRedundantConnectRow) {
  Example2 thin;
  thin.ja = 1e-10;
  Example2 eq91 = thin;
  eq91.ja = 0;
  const Example2* rods[2] = {&thin, &thin};
  const Example2* refs[2] = {&eq91, &eq91};
  const Example2Run e = run_example2(example2_model(thin, 1e-3, true), rods, refs, 0.6, 5.0);
  EXPECT_LT(e.theta[0], 1e-6);
  EXPECT_LT(e.torque[0], 1e-8 * e.torque_scale[0]);
  EXPECT_LT(e.drive, 1e-9);
  EXPECT_LT(e.closure, 1e-9);
  std::printf(
      "eq. 91, redundant connect row: max |θ − θ_ref| %.2e; closure %.2e; drive angle %.2e; "
      "drive torque %.2e (of %.2f N m)\n",
      e.theta[0], e.closure, e.drive, e.torque[0], e.torque_scale[0]);
}

// The model is symmetric about the vertical axis, so q̈ cannot depend on the frame angle ψ.  With
// the redundant connect and the chain opened by δ along the frame's x (as drift leaves it within
// a step), the connect's frame-y row is δ ψ̇-sized and parallel to the drive's row: a dependent
// pair, whatever ψ is.
TEST(SeedExamples, HardRowsInvariantUnderFrameRotation) {
  Example2 thin;
  thin.ja = 1e-10;
  const Model model = example2_model(thin, 1e-3, true);
  const std::vector<double> angles{0.0, 0.3, 1.2, 1.566, kPi / 2 - 1e-4, 2.5, kPi, 4.7};
  const int n = static_cast<int>(angles.size());
  double worst = 0;
  for (double delta : {0.0, 1e-8, 1e-7, 1e-6}) {
    Simulator<double> sim(model, n, kOneThread);
    for (int i = 0; i < n; ++i) {
      set_example2_state(sim, thin, -0.34, -1.4, angles[i], i);
      set_joint(sim, "xb", qpos_of(sim, "xb", i) + delta, qvel_of(sim, "xb", i), i);
    }
    sim.forward();
    const Eigen::VectorXd base = get(sim.batch().qacc(), 0);
    for (int i = 0; i < n; ++i) {
      const Eigen::VectorXd acc = get(sim.batch().qacc(), i);
      const double err = (acc - base).cwiseAbs().maxCoeff();
      worst = std::max(worst, err);
      EXPECT_LT(err, (1e-9 + 1e3 * delta) * (1 + base.cwiseAbs().maxCoeff()))
          << "δ " << delta << ", ψ " << angles[i] << ": q̈ " << acc.transpose() << " vs "
          << base.transpose() << " at ψ = 0";
      EXPECT_NEAR(qacc_of(sim, "spin", i), 0, 1e-9 + 1e3 * delta)
          << "δ " << delta << ", ψ " << angles[i];
    }
  }
  std::printf("redundant connect: max |q̈(ψ) − q̈(0)| %.2e\n", worst);
}

// eq. (91) at random consistent states, one forward() each
TEST(SeedExamples, Eq91AccelerationAtRandomStates) {
  Example2 ex;
  ex.ja = 1e-10;
  Example2 eq91 = ex;
  eq91.ja = 0;
  const int n = 40;
  Simulator<double> sim(example2_model(ex, 1e-3), n, kOneThread);
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> th(n), thd(n);
  for (int i = 0; i < n; ++i) {
    th[i] = 1.4 * u(rng);
    thd[i] = 3 * u(rng);
    set_example2_state(sim, ex, th[i], thd[i], 3 * (u(rng) + 1), i);
  }
  sim.forward();
  double err = 0;
  for (int i = 0; i < n; ++i) {
    const double expected = eq91.theta_acc(th[i]);
    const double got = qacc_of(sim, "th1", i);
    EXPECT_NEAR(got, expected, 1e-8 * (1 + std::abs(expected))) << "instance " << i;
    EXPECT_NEAR(qacc_of(sim, "th2", i), got, 1e-9) << "instance " << i;
    // z̈_A = −l (θ̈ sin θ + θ̇² cos θ),  ẍ_B = l (θ̈ cos θ − θ̇² sin θ),  ÿ_B = ψ̈ = 0
    const double s = std::sin(th[i]), c = std::cos(th[i]);
    EXPECT_NEAR(qacc_of(sim, "za", i), -ex.l * (got * s + thd[i] * thd[i] * c), 1e-9);
    EXPECT_NEAR(qacc_of(sim, "xb", i), ex.l * (got * c - thd[i] * thd[i] * s), 1e-9);
    EXPECT_NEAR(qacc_of(sim, "yb", i), 0, 1e-9);
    EXPECT_NEAR(qacc_of(sim, "spin", i), 0, 1e-9);
    err = std::max(err, std::abs(got - expected));
  }
  std::printf("eq. 91 at %d random states: max |θ̈ − θ̈_ref| %.2e\n", n, err);
}

// ---------------------------------------------------------------------------------------------
// A driven frame against explicit inertial forces.  A particle on two spring-loaded slides
// (x, y) of a carrier that turns about z with Ω(t) = θ̇*(t), Ω not constant.  In the carrier's
// coordinates (seed eq. 1):
//   m r̈ = F − m Ω̇ × r − m Ω × (Ω × r) − 2 m Ω × ṙ
//   ẍ = −(k_x/m) x + Ω² x + Ω̇ y + 2 Ω ẏ,   ÿ = −(k_y/m) y + Ω² y − Ω̇ x − 2 Ω ẋ
// The drive torque is dL_z/dt, L_z = (I_c + I_p) Ω + m (x² + y²) Ω + m (x ẏ − y ẋ):
//   τ = (I_c + I_p + m r²) Ω̇ + 2 m Ω (x ẋ + y ẏ) + m (x ÿ − y ẍ)
TEST(SeedExamples, DrivenFrameEqualsExplicitInertialForces) {
  const double m = 0.8, kx = 7.2, ky = 12.8, ic = 0.5, ip = 0.004, dt = 1e-3, duration = 5.0;
  ModelBuilder b;
  b.set_integrator(Integrator::kRK4).set_timestep(dt);
  b.add_body({.name = "carrier", .mass = 2.0, .inertia = diagonal(0.3, 0.3, ic)});
  b.add_joint("carrier", hinge("spin", {0, 0, 1}));
  b.add_body({.name = "particle", .parent = "carrier", .mass = m, .inertia = diagonal(ip, ip, ip)});
  b.add_joint("particle", slide("px", {1, 0, 0}, kx));
  b.add_joint("particle", slide("py", {0, 1, 0}, ky));
  const DriveSpec spin{.joint = "spin", .q0 = 0.2, .v0 = 1.5, .amplitude = 0.3, .omega = 2.0};
  b.add_drive(spin);
  Simulator<double> sim(b.build(), 1, kOneThread);
  const Eigen::Vector4d y0(0.3, -0.1, 0.2, 0.5);  // x, y, ẋ, ẏ
  set_joint(sim, "spin", drive_motion(spin, 0).q, drive_motion(spin, 0).v);
  set_joint(sim, "px", y0[0], y0[2]);
  set_joint(sim, "py", y0[1], y0[3]);

  // (ẍ, ÿ) at (x, y, ẋ, ẏ) for the carrier's Ω, Ω̇
  auto accel = [&](double w, double wd, const Eigen::VectorXd& s) {
    return Eigen::Vector2d(-kx / m * s[0] + w * w * s[0] + wd * s[1] + 2 * w * s[3],
                           -ky / m * s[1] + w * w * s[1] - wd * s[0] - 2 * w * s[2]);
  };
  const Ode f = [&](double t, const Eigen::VectorXd& s) {
    Eigen::VectorXd d(4);
    d << s[2], s[3], accel(drive_motion(spin, t).v, drive_motion(spin, t).a, s);
    return d;
  };
  Eigen::VectorXd y = y0;
  const int steps = static_cast<int>(std::lround(duration / dt));
  double err = 0, err_tau = 0, tau_scale = 0, err_drive = 0;
  for (int k = 1; k <= steps; ++k) {
    sim.step(1);
    y = rk4(f, (k - 1) * dt, y, dt, 4);
    const double t = sim.batch().time()[0];
    err = std::max({err, std::abs(qpos_of(sim, "px") - y[0]), std::abs(qpos_of(sim, "py") - y[1]),
                    std::abs(qvel_of(sim, "px") - y[2]), std::abs(qvel_of(sim, "py") - y[3])});
    err_drive = std::max(err_drive, std::abs(qpos_of(sim, "spin") - drive_motion(spin, t).q));
    if (k % 50 == 0) {
      sim.forward();
      // at zwang's state, Ω̇ the drive's acceleration off its path (drive_acc)
      const Eigen::Vector4d x(qpos_of(sim, "px"), qpos_of(sim, "py"), qvel_of(sim, "px"),
                              qvel_of(sim, "py"));
      const double w = qvel_of(sim, "spin");
      const double wd = drive_acc(spin, t, qpos_of(sim, "spin"), w, dt);
      const Eigen::Vector2d a = accel(w, wd, x);
      const double r2 = x[0] * x[0] + x[1] * x[1];
      const double tau = (ic + ip + m * r2) * wd + 2 * m * w * (x[0] * x[2] + x[1] * x[3]) +
                         m * (x[0] * a[1] - x[1] * a[0]);
      err_tau = std::max(err_tau, std::abs(sim.batch().drive_force()(0, 0) - tau));
      tau_scale = std::max(tau_scale, std::abs(tau));
    }
  }
  EXPECT_TRUE(sim.failures().empty());
  EXPECT_LT(err, 1e-8);
  EXPECT_LT(err_drive, 1e-9);
  EXPECT_LT(err_tau, 1e-10 * tau_scale);
  std::printf(
      "driven frame vs inertial forces: max state error %.2e, drive angle %.2e, drive "
      "torque %.2e (of %.2f N m)\n",
      err, err_drive, err_tau, tau_scale);
}

// ---------------------------------------------------------------------------------------------
// Chaplygin sleigh: a planar body (COM at its origin, slides x, y and hinge z) with a knife
// edge at distance a behind the COM, P = C − a e_x, blocking the body-y velocity of P.
// With v = v_P · e_x and ω = ψ̇ (Appell, or Newton with the knife force λ e_y at P):
//   v̇ = a ω²,   (I + m a²) ω̇ = −m a v ω,   ẋ_C = v e_x + a ω e_y
// Kinetic energy ½ m v² + ½ (I + m a²) ω² is conserved; v → √(2E/m) and ω → 0: a straight line.
struct Sleigh {
  double m = 2.0, inertia = 0.1, a = 0.4;
  Model model(double dt) const {
    ModelBuilder b;
    b.set_integrator(Integrator::kRK4).set_timestep(dt);
    b.add_body({.name = "sleigh", .mass = m, .inertia = diagonal(0.05, 0.07, inertia)});
    b.add_joint("sleigh", slide("x", {1, 0, 0}));
    b.add_joint("sleigh", slide("y", {0, 1, 0}));
    b.add_joint("sleigh", hinge("yaw", {0, 0, 1}));
    b.add_nonholonomic(
        {.name = "knife", .body = "sleigh", .point = {-a, 0, 0}, .direction = {0, 1, 0}});
    return b.build();
  }
};

TEST(SeedExamples, ChaplyginSleighKnifeEdge) {
  const Sleigh s;
  const double dt = 1e-3, duration = 20.0, psi0 = 0.3, v0 = 0.2, w0 = 2.0;
  Simulator<double> sim(s.model(dt), 1, kOneThread);
  // COM velocity v e_x + a ω e_y, in the world
  const Eigen::Vector2d ex(std::cos(psi0), std::sin(psi0)), ey(-std::sin(psi0), std::cos(psi0));
  const Eigen::Vector2d vc = v0 * ex + s.a * w0 * ey;
  set_joint(sim, "x", 0.1, vc[0]);
  set_joint(sim, "y", -0.2, vc[1]);
  set_joint(sim, "yaw", psi0, w0);

  const double reduced = s.inertia + s.m * s.a * s.a;
  const double energy0 = 0.5 * s.m * v0 * v0 + 0.5 * reduced * w0 * w0;
  // (x, y, ψ, v, ω)
  const Ode f = [&](double, const Eigen::VectorXd& q) {
    Eigen::VectorXd d(5);
    const double c = std::cos(q[2]), sn = std::sin(q[2]);
    d << q[3] * c - s.a * q[4] * sn, q[3] * sn + s.a * q[4] * c, q[4], s.a * q[4] * q[4],
        -s.m * s.a * q[3] * q[4] / reduced;
    return d;
  };
  Eigen::VectorXd y(5);
  y << 0.1, -0.2, psi0, v0, w0;
  const int steps = static_cast<int>(std::lround(duration / dt));
  double residual = 0, err_energy = 0, err_ref = 0;
  for (int k = 1; k <= steps; ++k) {
    sim.step(1);
    y = rk4(f, (k - 1) * dt, y, dt, 2);
    const double psi = qpos_of(sim, "yaw"), w = qvel_of(sim, "yaw");
    const Eigen::Vector2d v(qvel_of(sim, "x"), qvel_of(sim, "y"));
    const Eigen::Vector2d e1(std::cos(psi), std::sin(psi)), e2(-std::sin(psi), std::cos(psi));
    // knife point velocity v_C + ω e_z × (−a e1) = v_C − a ω e2, along e2
    residual = std::max(residual, std::abs((v - s.a * w * e2).dot(e2)));
    const double energy = 0.5 * s.m * v.squaredNorm() + 0.5 * s.inertia * w * w;
    err_energy = std::max(err_energy, std::abs(energy - energy0) / energy0);
    err_ref =
        std::max({err_ref, std::abs(qpos_of(sim, "x") - y[0]), std::abs(qpos_of(sim, "y") - y[1]),
                  std::abs(psi - y[2]), std::abs(v.dot(e1) - y[3]), std::abs(w - y[4])});
  }
  EXPECT_TRUE(sim.failures().empty());
  EXPECT_LT(residual, 1e-9);
  EXPECT_LT(err_energy, 1e-8);
  EXPECT_LT(err_ref, 1e-8);
  // the asymptote: no turning, the COM moving along the body axis at √(2E/m)
  const double psi = qpos_of(sim, "yaw"), w = qvel_of(sim, "yaw");
  const Eigen::Vector2d v(qvel_of(sim, "x"), qvel_of(sim, "y"));
  const Eigen::Vector2d e1(std::cos(psi), std::sin(psi));
  EXPECT_LT(std::abs(w), 1e-6 * w0);
  EXPECT_NEAR(v.dot(e1), std::sqrt(2 * energy0 / s.m), 1e-8);
  EXPECT_NEAR(v.norm(), v.dot(e1), 1e-8);
  std::printf(
      "Chaplygin sleigh: knife residual %.2e, energy %.2e, vs reduced ODE %.2e; after "
      "%.0f s ω = %.2e, speed %.9f (√(2E/m) = %.9f)\n",
      residual, err_energy, err_ref, duration, w, v.norm(), std::sqrt(2 * energy0 / s.m));
}

// ---------------------------------------------------------------------------------------------
// Rolling sphere: the contact point c = o − ρ e_z has zero velocity, v_o + ω × (−ρ e_z) = 0.
// Free joint: qvel = (v_o in the world, ω in the body frame).
struct SphereState {
  Eigen::Vector3d pos, vel, omega_world;
  Eigen::Quaterniond quat;
};

SphereState sphere_state(Simulator<double>& sim, int i = 0) {
  const Eigen::VectorXd q = get(sim.batch().qpos(), i), v = get(sim.batch().qvel(), i);
  SphereState s;
  s.pos = q.head<3>();
  s.quat = Eigen::Quaterniond(q[3], q[4], q[5], q[6]).normalized();
  s.vel = v.head<3>();
  s.omega_world = s.quat.toRotationMatrix() * v.segment<3>(3);
  return s;
}

// a rolling state: ω_world given, v_o = ρ ω × e_z
void set_rolling(Simulator<double>& sim, const Eigen::Vector3d& pos, const Eigen::Quaterniond& q,
                 const Eigen::Vector3d& omega_world, double radius, int i = 0) {
  Eigen::VectorXd qpos(7), qvel(6);
  qpos << pos, q.w(), q.x(), q.y(), q.z();
  qvel << radius * omega_world.cross(Eigen::Vector3d::UnitZ()),
      q.toRotationMatrix().transpose() * omega_world;
  set(sim.batch().qpos(), i, qpos);
  set(sim.batch().qvel(), i, qvel);
}

Model rolling_sphere(double mass, const Inertia6& inertia, const Vec3d& com, double radius,
                     double height, const Vec3d& gravity, double dt) {
  ModelBuilder b;
  b.set_integrator(Integrator::kRK4).set_timestep(dt).set_gravity(gravity);
  b.add_body({.name = "ball", .mass = mass, .com = com, .inertia = inertia});
  b.add_joint("ball", {.name = "free", .type = JointType::kFree});
  b.add_nonholonomic({.name = "rolling",
                      .type = NonholonomicType::kRollingSphere,
                      .body = "ball",
                      .radius = radius,
                      .height = height});
  return b.build();
}

// on a plane with gravity (g sin α, 0, −g cos α), a uniform sphere's centre accelerates along
// x at g sin α / (1 + I / (m ρ²)): 5/7 g sin α solid (I = 2/5 m ρ²), 3/5 g sin α hollow
// (I = 2/3 m ρ²); across the slope and in the spin about the normal it keeps its velocity
// (no torque about the normal).  α = 0 is the horizontal plane: constant velocity.  The sphere
// reaches 60 rad/s; the errors left are RK4's (they fall 16× per halved step), small at 0.5 ms.
TEST(SeedExamples, RollingSphereClosedForms) {
  const double mass = 1.5, radius = 0.1, height = 0.05, dt = 5e-4, duration = 3.0;
  for (double alpha : {0.0, 0.3}) {
    for (double shape : {2.0 / 5, 2.0 / 3}) {
      const double moment = shape * mass * radius * radius;
      const Vec3d gravity{kG * std::sin(alpha), 0, -kG * std::cos(alpha)};
      Simulator<double> sim(rolling_sphere(mass, diagonal(moment, moment, moment), {0, 0, 0},
                                           radius, height, gravity, dt),
                            1, kOneThread);
      const Eigen::Vector3d p0(0.2, -0.1, radius + height), w0(-2.0, 4.0, 3.0);
      const Eigen::Quaterniond q0 = Eigen::Quaterniond(0.9, 0.2, -0.3, 0.1).normalized();
      set_rolling(sim, p0, q0, w0, radius);
      const Eigen::Vector3d v0 = radius * w0.cross(Eigen::Vector3d::UnitZ());
      const double acc = kG * std::sin(alpha) / (1 + shape);
      const Eigen::Vector3d g(gravity[0], gravity[1], gravity[2]);
      auto energy = [&](const SphereState& s) {
        return 0.5 * mass * s.vel.squaredNorm() + 0.5 * moment * s.omega_world.squaredNorm() -
               mass * g.dot(s.pos);
      };
      const double e0 = energy(sphere_state(sim));
      const int steps = static_cast<int>(std::lround(duration / dt));
      double slip = 0, err_pos = 0, err_energy = 0, err_spin = 0;
      for (int k = 1; k <= steps; ++k) {
        sim.step(1);
        const double t = k * dt;
        const SphereState s = sphere_state(sim);
        slip = std::max(slip, (s.vel + s.omega_world.cross(-radius * Eigen::Vector3d::UnitZ()))
                                  .cwiseAbs()
                                  .maxCoeff());
        const Eigen::Vector3d expected = p0 + v0 * t + 0.5 * acc * t * t * Eigen::Vector3d::UnitX();
        err_pos = std::max(err_pos, (s.pos - expected).cwiseAbs().maxCoeff());
        err_energy = std::max(err_energy, std::abs(energy(s) - e0) / std::abs(e0));
        err_spin = std::max(err_spin, std::abs(s.omega_world.z() - w0.z()));
      }
      const std::string what = "α " + std::to_string(alpha) + ", I/mρ² " + std::to_string(shape);
      EXPECT_TRUE(sim.failures().empty()) << what;
      EXPECT_LT(slip, 1e-9) << what;
      EXPECT_LT(err_pos, 1e-9) << what;
      EXPECT_LT(err_energy, 1e-9) << what;
      EXPECT_LT(err_spin, 5e-9) << what;
      std::printf(
          "rolling sphere α = %.1f, I = %.3f m ρ²: contact velocity %.2e, |x − x0 − v0 t "
          "− ½ a t²| %.2e (a = %.4f), energy %.2e, spin %.2e\n",
          alpha, shape, slip, err_pos, acc, err_energy, err_spin);
    }
  }
}

// an eccentric sphere (COM off the centre, a full inertia tensor) rolling on z = 0: no closed
// form, but the contact point stays at rest and the energy is conserved
TEST(SeedExamples, RollingEccentricSphereConservesEnergy) {
  const double mass = 1.5, radius = 0.1, dt = 5e-4, duration = 5.0;
  const Inertia6 inertia{0.004, 0.005, 0.006, 0.0003, -0.0002, 0.0001};
  const Vec3d com{0.02, -0.01, -0.03};
  Simulator<double> sim(rolling_sphere(mass, inertia, com, radius, 0, {0, 0, -kG}, dt), 1,
                        kOneThread);
  set_rolling(sim, {0, 0, radius}, Eigen::Quaterniond(0.8, 0.3, 0.4, -0.2).normalized(),
              {1.5, -2.0, 4.0}, radius);
  Eigen::Matrix3d ib;
  ib << inertia[0], inertia[3], inertia[4], inertia[3], inertia[1], inertia[5], inertia[4],
      inertia[5], inertia[2];
  const Eigen::Vector3d c(com[0], com[1], com[2]);
  auto energy = [&](const SphereState& s) {
    const Eigen::Matrix3d r = s.quat.toRotationMatrix();
    const Eigen::Vector3d vc = s.vel + s.omega_world.cross(r * c);
    return 0.5 * mass * vc.squaredNorm() +
           0.5 * s.omega_world.dot(r * ib * r.transpose() * s.omega_world) +
           mass * kG * (s.pos + r * c).z();
  };
  const double e0 = energy(sphere_state(sim));
  double slip = 0, err_energy = 0, err_height = 0;
  const int steps = static_cast<int>(std::lround(duration / dt));
  for (int k = 1; k <= steps; ++k) {
    sim.step(1);
    const SphereState s = sphere_state(sim);
    slip = std::max(
        slip,
        (s.vel + s.omega_world.cross(-radius * Eigen::Vector3d::UnitZ())).cwiseAbs().maxCoeff());
    err_energy = std::max(err_energy, std::abs(energy(s) - e0) / std::abs(e0));
    err_height = std::max(err_height, std::abs(s.pos.z() - radius));
  }
  EXPECT_TRUE(sim.failures().empty());
  EXPECT_LT(slip, 1e-9);
  EXPECT_LT(err_height, 1e-9);
  EXPECT_LT(err_energy, 1e-8);
  std::printf("eccentric rolling sphere: contact velocity %.2e, height %.2e, energy %.2e\n", slip,
              err_height, err_energy);
}

// ---------------------------------------------------------------------------------------------
// Gauss's principle with hard rows A q̈ = b: zwang's q̈ minimises Z(x) = ½ (x − x_s)ᵀ H (x − x_s)
// over x = q̈ + δ, A δ = 0.  So the gradient H (q̈ − x_s) is orthogonal to the null space N of
// A, and Z(q̈ + δ) − Z(q̈) = ½ δᵀ H δ > 0.  A comes from velocity expressions c(q, q̇) written
// here, by finite differences in q̇ (each is linear in q̇).
using VelocityExpr = std::function<Eigen::VectorXd(const Eigen::VectorXd&, const Eigen::VectorXd&)>;

Eigen::MatrixXd velocity_jacobian(const VelocityExpr& c, const Eigen::VectorXd& q,
                                  const Eigen::VectorXd& v) {
  const double eps = 1;
  const int rows = static_cast<int>(c(q, v).size());
  Eigen::MatrixXd a(rows, v.size());
  for (int j = 0; j < v.size(); ++j) {
    Eigen::VectorXd vp = v, vm = v;
    vp[j] += eps;
    vm[j] -= eps;
    a.col(j) = (c(q, vp) - c(q, vm)) / (2 * eps);
  }
  return a;
}

Eigen::MatrixXd null_space(const Eigen::MatrixXd& a) {
  const Eigen::JacobiSVD<Eigen::MatrixXd> svd(a, Eigen::ComputeFullV);
  const Eigen::VectorXd sv = svd.singularValues();
  int rank = 0;
  for (int k = 0; k < sv.size(); ++k) rank += sv[k] > 1e-8 * sv[0] ? 1 : 0;
  return svd.matrixV().rightCols(a.cols() - rank);
}

void expect_gauss_minimum(Simulator<double>& sim, int i, const Eigen::MatrixXd& a,
                          std::mt19937& rng, const std::string& what, double& worst) {
  const int nv = sim.model().nv;
  const Eigen::MatrixXd h = unpack(get(sim.batch().qM(), i), nv);
  const Eigen::VectorXd x = get(sim.batch().qacc(), i), xs = get(sim.batch().qacc_smooth(), i);
  const Eigen::MatrixXd n = null_space(a);
  ASSERT_GT(n.cols(), 0) << what;
  auto z = [&](const Eigen::VectorXd& y) { return 0.5 * (y - xs).dot(h * (y - xs)); };
  const Eigen::VectorXd grad = h * (x - xs);
  const double scale = h.norm() * std::max(1.0, x.norm() + xs.norm());
  const double orth = (n.transpose() * grad).norm() / scale;
  worst = std::max(worst, orth);
  EXPECT_LT(orth, 1e-10) << what;
  std::normal_distribution<double> normal(0, 1);
  const double z0 = z(x);
  for (int k = 0; k < 10; ++k) {
    const Eigen::VectorXd coef =
        Eigen::VectorXd::NullaryExpr(n.cols(), [&] { return normal(rng); });
    const Eigen::VectorXd delta = (k < 5 ? 1e-3 : 1.0) * n * coef;
    // Z(q̈ + δ) − Z(q̈) = δᵀ H (q̈ − x_s) + ½ δᵀ H δ: the linear term vanishes
    const double quad = 0.5 * delta.dot(h * delta), lin = delta.dot(grad);
    EXPECT_GT(lin + quad, 0) << what;
    EXPECT_LT(std::abs(lin), 1e-6 * quad + 1e-10 * delta.norm() * scale) << what;
    if (k >= 5) {
      EXPECT_GT(z(x + delta), z0) << what;
    }
  }
}

// the sleigh carrying a rotor on a driven hinge (z) and a pendulum on the rotor (hinge x), with
// a knife edge along a slanted direction: c = (knife velocity · e, q̇_rotor − θ̇*(t))
TEST(SeedExamples, GaussPrincipleWithDriveAndKnifeEdge) {
  const Vec3d point{-0.35, 0.05, 0}, dir{0.2, 1, 0};
  ModelBuilder b;
  b.add_body({.name = "sleigh", .mass = 3.0, .inertia = diagonal(0.1, 0.15, 0.2)});
  b.add_joint("sleigh", slide("x", {1, 0, 0}));
  b.add_joint("sleigh", slide("y", {0, 1, 0}));
  b.add_joint("sleigh", hinge("yaw", {0, 0, 1}));
  b.add_body({.name = "rotor",
              .parent = "sleigh",
              .pos = {0.2, 0.1, 0.1},
              .mass = 0.5,
              .com = {0.15, 0, 0},
              .inertia = diagonal(0.01, 0.02, 0.02)});
  b.add_joint("rotor", hinge("rotor", {0, 0, 1}));
  b.add_body({.name = "bob",
              .parent = "rotor",
              .pos = {0.3, 0, 0},
              .mass = 0.4,
              .com = {0, 0, -0.25},
              .inertia = diagonal(0.005, 0.005, 0.002)});
  b.add_joint("bob", hinge("swing", {1, 0, 0}));
  b.add_nonholonomic({.name = "knife", .body = "sleigh", .point = point, .direction = dir});
  const DriveSpec drive{
      .joint = "rotor", .q0 = 0.3, .v0 = 1.2, .amplitude = 0.4, .omega = 3.0, .phase = 0.2};
  b.add_drive(drive);
  const Model model = b.build();
  ASSERT_EQ(model.nv, 5);  // x y yaw rotor swing, in this order
  const double dn = std::hypot(dir[0], dir[1]);
  // the knife point's velocity along its blocked direction, from (x, y, ψ) and their rates
  auto knife = [&](const Eigen::VectorXd& q, const Eigen::VectorXd& v) {
    const Eigen::Rotation2Dd r(q[2]);
    const Eigen::Vector2d p = r * Eigen::Vector2d(point[0], point[1]);
    const Eigen::Vector2d e = r * Eigen::Vector2d(dir[0] / dn, dir[1] / dn);
    return (Eigen::Vector2d(v[0], v[1]) + v[2] * Eigen::Vector2d(-p[1], p[0])).dot(e);
  };
  const int n = 20;
  Simulator<double> sim(model, n, kOneThread);
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> times(n);
  for (int i = 0; i < n; ++i) times[i] = sim.batch().time()[i] = 4 * (u(rng) + 1);

  // random states
  set_random_states(sim, rng, 2.0);
  sim.forward();
  double worst = 0;
  for (int i = 0; i < n; ++i) {
    const Eigen::VectorXd q = get(sim.batch().qpos(), i), v = get(sim.batch().qvel(), i);
    const double t = times[i];
    const VelocityExpr c = [&](const Eigen::VectorXd& qq, const Eigen::VectorXd& vv) {
      return Eigen::Vector2d(knife(qq, vv), vv[3] - drive_motion(drive, t).v).eval();
    };
    expect_gauss_minimum(sim, i, velocity_jacobian(c, q, v), rng, "state " + std::to_string(i),
                         worst);
  }

  // consistent states (on the drive's path, knife velocity 0): the rows hold at acceleration
  // level, q̈_rotor = θ̈*(t) and d/dt c = 0 by central differences along (q̇, q̈)
  double worst_rate = 0;
  for (int i = 0; i < n; ++i) {
    Eigen::VectorXd q = get(sim.batch().qpos(), i), v = get(sim.batch().qvel(), i);
    const Motion target = drive_motion(drive, times[i]);
    q[3] = target.q;
    v[3] = target.v;
    const Eigen::RowVectorXd row = velocity_jacobian(
        [&](const Eigen::VectorXd& qq, const Eigen::VectorXd& vv) {
          return Eigen::VectorXd::Constant(1, knife(qq, vv));
        },
        q, v);
    v -= row.transpose() * (row.dot(v) / row.squaredNorm());
    ASSERT_LT(std::abs(knife(q, v)), 1e-12);
    set(sim.batch().qpos(), i, q);
    set(sim.batch().qvel(), i, v);
  }
  sim.forward();
  for (int i = 0; i < n; ++i) {
    const Eigen::VectorXd q = get(sim.batch().qpos(), i), v = get(sim.batch().qvel(), i);
    const Eigen::VectorXd acc = get(sim.batch().qacc(), i);
    EXPECT_NEAR(acc[3], drive_motion(drive, times[i]).a, 1e-10) << "state " << i;
    const double eps = 1e-5;
    const double rate =
        (knife(q + eps * v, v + eps * acc) - knife(q - eps * v, v - eps * acc)) / (2 * eps);
    worst_rate = std::max(worst_rate, std::abs(rate));
    EXPECT_LT(std::abs(rate), 1e-8 * std::max(1.0, acc.norm())) << "state " << i;
  }
  std::printf(
      "Gauss, drive + knife edge: max |Nᵀ H (q̈ − q̈_s)| / scale %.2e; max |dc/dt| of the "
      "knife %.2e\n",
      worst, worst_rate);
}

// the rolling sphere (eccentric, full inertia): c = v_o + (R ω_b) × (−ρ e_z)
TEST(SeedExamples, GaussPrincipleWithRollingSphere) {
  const double radius = 0.12;
  const Inertia6 inertia{0.004, 0.005, 0.006, 0.0003, -0.0002, 0.0001};
  const Model model =
      rolling_sphere(1.5, inertia, {0.02, -0.01, -0.03}, radius, 0.0, {0.5, -0.3, -kG}, 1e-3);
  auto contact = [&](const Eigen::VectorXd& q, const Eigen::VectorXd& v) {
    const Eigen::Matrix3d r =
        Eigen::Quaterniond(q[3], q[4], q[5], q[6]).normalized().toRotationMatrix();
    return (v.head<3>() + (r * v.segment<3>(3)).cross(-radius * Eigen::Vector3d::UnitZ())).eval();
  };
  const int n = 20;
  Simulator<double> sim(model, n, kOneThread);
  std::mt19937 rng(9);
  set_random_states(sim, rng, 2.0);
  sim.forward();
  double worst = 0;
  for (int i = 0; i < n; ++i) {
    const Eigen::VectorXd q = get(sim.batch().qpos(), i), v = get(sim.batch().qvel(), i);
    expect_gauss_minimum(sim, i, velocity_jacobian(contact, q, v), rng,
                         "state " + std::to_string(i), worst);
  }

  // rolling states on the plane: d/dt c = 0 along (q̇, q̈), quaternion moved by exp(½ ε ω_b)
  std::uniform_real_distribution<double> u(-1, 1);
  for (int i = 0; i < n; ++i) {
    const Eigen::VectorXd q = get(sim.batch().qpos(), i);
    const Eigen::Quaterniond quat(q[3], q[4], q[5], q[6]);
    set_rolling(sim, {q[0], q[1], radius}, quat.normalized(),
                3 * Eigen::Vector3d(u(rng), u(rng), u(rng)), radius, i);
  }
  sim.forward();
  double worst_rate = 0;
  for (int i = 0; i < n; ++i) {
    const Eigen::VectorXd q = get(sim.batch().qpos(), i), v = get(sim.batch().qvel(), i);
    const Eigen::VectorXd acc = get(sim.batch().qacc(), i);
    ASSERT_LT(contact(q, v).norm(), 1e-12);
    const double eps = 1e-5;
    auto moved = [&](double s) {
      Eigen::VectorXd out = q;
      out.head<3>() += s * v.head<3>();
      const Eigen::Vector3d w = v.segment<3>(3);
      const Eigen::Quaterniond dq(Eigen::AngleAxisd(s * w.norm(), w.normalized()));
      const Eigen::Quaterniond r = Eigen::Quaterniond(q[3], q[4], q[5], q[6]) * dq;
      out.segment<4>(3) << r.w(), r.x(), r.y(), r.z();
      return out;
    };
    const Eigen::Vector3d rate =
        (contact(moved(eps), v + eps * acc) - contact(moved(-eps), v - eps * acc)) / (2 * eps);
    worst_rate = std::max(worst_rate, rate.norm());
    EXPECT_LT(rate.norm(), 1e-7 * std::max(1.0, acc.norm())) << "state " << i;
  }
  std::printf("Gauss, rolling sphere: max |Nᵀ H (q̈ − q̈_s)| / scale %.2e; max |dc/dt| %.2e\n", worst,
              worst_rate);
}

// Example 2's models: hard connect, hard joint equality and a drive.  The closure in the world,
// g = R_z(ψ) L with L = (l sin θ1 − x_B, −y_B, l + z_A − l cos θ1) (rod1's end B minus rod2's
// origin), θ1 − θ2 and ψ, differentiated by hand:
//   ∂g/∂ψ = e_z × R L,  ∂g/∂z_A = R e_z,  ∂g/∂θ1 = R l (cos θ1, 0, sin θ1),
//   ∂g/∂x_B = −R e_x,  ∂g/∂y_B = −R e_y  (no y_B in the redundant model)
// Without y_B the closure's frame-y row is L_x times the drive's row: on the closed chain (L = 0,
// L̇ = 0) it is empty and holds, so the redundant model is checked there; with the chain open
// along x it asks the frame for an acceleration the drive does not give, a contradiction that
// zwang reports (kStatusHardConflict) instead of dropping the row.
TEST(SeedExamples, GaussPrincipleWithHardEqualities) {
  Example2 ex;
  ex.ja = 1e-10;
  for (bool redundant : {false, true}) {
    const Model model = example2_model(ex, 1e-3, redundant);
    const int n = 20, nv = model.nv;
    Simulator<double> sim(model, n, kOneThread);
    std::mt19937 rng(3);
    std::uniform_real_distribution<double> u(-1, 1);
    auto dof = [&](const char* joint) {
      return model.jnt_dofadr[model.id(ObjType::kJoint, joint)];
    };
    const int ipsi = dof("spin"), iza = dof("za"), ith1 = dof("th1"), ixb = dof("xb");
    const int ith2 = dof("th2"), iyb = redundant ? -1 : dof("yb");
    std::vector<double> open(n);
    for (int i = 0; i < n; ++i) {
      Eigen::VectorXd q(nv), v(nv);
      for (int k = 0; k < nv; ++k) {
        q[k] = u(rng);
        v[k] = 2 * u(rng);
      }
      open[i] = ex.l * std::sin(q[ith1]) - q[ixb];
      set(sim.batch().qpos(), i, q);
      set(sim.batch().qvel(), i, v);
      sim.batch().time()[i] = 2 * (u(rng) + 1);
    }
    sim.forward();
    if (redundant) {
      // open along x: every such state contradicts, naming the closure and the drive
      int contradicting = 0;
      for (const InstanceFailure& f : sim.failures()) {
        EXPECT_EQ(f.status, kStatusHardConflict) << f.message();
        EXPECT_NE(f.detail.find("equality 'closure'"), std::string::npos) << f.detail;
        EXPECT_NE(f.detail.find("the drive of joint 'spin'"), std::string::npos) << f.detail;
        ++contradicting;
      }
      int wide = 0;
      for (int i = 0; i < n; ++i) {
        if (std::abs(open[i]) < 0.3) continue;
        ++wide;
        EXPECT_EQ(sim.batch().status()[i], kStatusHardConflict) << "L_x " << open[i];
      }
      EXPECT_GE(wide, 5);
      EXPECT_GE(contradicting, wide);
      // closed: z_A, x_B and θ2 from θ1, and their rates from θ̇1
      for (int i = 0; i < n; ++i) {
        Eigen::VectorXd q = get(sim.batch().qpos(), i), v = get(sim.batch().qvel(), i);
        q[iza] = ex.l * std::cos(q[ith1]) - ex.l;
        q[ixb] = ex.l * std::sin(q[ith1]);
        q[ith2] = q[ith1];
        v[iza] = -ex.l * std::sin(q[ith1]) * v[ith1];
        v[ixb] = ex.l * std::cos(q[ith1]) * v[ith1];
        v[ith2] = v[ith1];
        set(sim.batch().qpos(), i, q);
        set(sim.batch().qvel(), i, v);
      }
      for (int& status : sim.batch().status()) status = 0;
      sim.forward();
      ASSERT_TRUE(sim.failures().empty()) << sim.failures()[0].message();
    }
    double worst = 0;
    for (int i = 0; i < n; ++i) {
      const Eigen::VectorXd q = get(sim.batch().qpos(), i);
      const Eigen::Matrix3d r =
          Eigen::AngleAxisd(q[ipsi], Eigen::Vector3d::UnitZ()).toRotationMatrix();
      const double th = q[ith1];
      const Eigen::Vector3d local(ex.l * std::sin(th) - q[ixb], redundant ? 0.0 : -q[iyb],
                                  ex.l + q[iza] - ex.l * std::cos(th));
      Eigen::MatrixXd a = Eigen::MatrixXd::Zero(5, nv);
      a.block<3, 1>(0, ipsi) = Eigen::Vector3d::UnitZ().cross(r * local);
      a.block<3, 1>(0, iza) = r.col(2);
      a.block<3, 1>(0, ith1) = r * Eigen::Vector3d(ex.l * std::cos(th), 0, ex.l * std::sin(th));
      a.block<3, 1>(0, ixb) = -r.col(0);
      if (!redundant) a.block<3, 1>(0, iyb) = -r.col(1);
      a(3, ith1) = 1;
      a(3, ith2) = -1;
      a(4, ipsi) = 1;
      expect_gauss_minimum(sim, i, a, rng,
                           (redundant ? "redundant, state " : "state ") + std::to_string(i), worst);
    }
    std::printf(
        "Gauss, hard connect + joint equality + drive%s: max |Nᵀ H (q̈ − q̈_s)| / scale %.2e\n",
        redundant ? " (redundant connect row)" : "", worst);
  }
}

}  // namespace
}  // namespace zwang::test
