// Contacts against closed forms: a box at rest on a plane carries its weight; a block on an
// incline sticks below the friction angle and slides above it with g (sin α − μ cos α); a
// dropped sphere penetrates and rebounds as its solref's spring-damper predicts; an instance
// with more contacts than slots is flagged, alone.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <memory>
#include <numbers>
#include <string>
#include <utility>
#include <vector>

#include "kernels/status.h"
#include "zwang/builder.hpp"
#include "zwang/model.hpp"
#include "zwang/simulator.hpp"

namespace zwang::test {
namespace {

constexpr double kG = 9.81;

struct BoxOnPlane {
  double tilt = 0;  // plane rotated about the world y axis (rad)
  double mu = 1;    // sliding friction of both geoms
  Cone cone = Cone::kPyramidal;
  double half = 0.1;  // box half-size (m)
  double mass = 1;    // (kg)
  double dt = 0.001;  // (s)
  SolRef solref = kDefaultSolRef;
  bool translate_only = false;  // three slide joints instead of a free joint: no rocking
};

// a free box resting on the plane (its lower face on it), the plane through the origin
Model box_on_plane(const BoxOnPlane& c) {
  ModelBuilder b;
  b.set_timestep(c.dt).set_cone(c.cone);
  const double s = std::sin(c.tilt / 2), co = std::cos(c.tilt / 2);
  b.add_geom({.name = "floor",
              .type = GeomType::kPlane,
              .size = {5, 5, 0.1},
              .quat = {co, 0, s, 0},
              .friction = {c.mu, 0.005, 0.0001},
              .solref = c.solref});
  // the box centre a half-size above the plane along its normal (sin α, 0, cos α)
  const double n[3] = {std::sin(c.tilt), 0, std::cos(c.tilt)};
  const double i = c.mass * (2 * c.half) * (2 * c.half) / 6;
  b.add_body({.name = "box",
              .pos = {c.half * n[0], 0, c.half * n[2]},
              .quat = {co, 0, s, 0},
              .mass = c.mass,
              .inertia = {i, i, i, 0, 0, 0}});
  if (c.translate_only) {
    for (int k = 0; k < 3; ++k) {
      b.add_joint("box", {.name = std::string(1, "xyz"[k]),
                          .type = JointType::kSlide,
                          .axis = {double(k == 0), double(k == 1), double(k == 2)}});
    }
  } else {
    b.add_joint("box", {.name = "free", .type = JointType::kFree});
  }
  b.add_geom({.name = "box",
              .body = "box",
              .type = GeomType::kBox,
              .size = {c.half, c.half, c.half},
              .friction = {c.mu, 0.005, 0.0001},
              .solref = c.solref});
  return b.build();
}

double normal_force(Batch<double>& batch) {
  double sum = 0;
  for (int c = 0; c < static_cast<int>(batch.ncon()(0, 0)); ++c) {
    sum += batch.contact_force()(0, 6 * c);
  }
  return sum;
}

// At rest the contacts carry the weight: Σ f_n = m g (qacc = 0 leaves only J^T f = −bias).
TEST(Contact, BoxAtRestOnAPlaneCarriesItsWeight) {
  // friction 0 too: as MuJoCo, a contact's friction is at least 1e-5 (a pyramid edge's R is
  // 2 μ² R₀, which μ = 0 would make 0)
  for (const auto& [cone, mu] :
       {std::pair{Cone::kPyramidal, 1.0}, std::pair{Cone::kElliptic, 1.0},
        std::pair{Cone::kPyramidal, 0.0}, std::pair{Cone::kElliptic, 0.0}}) {
    const Model model = box_on_plane({.mu = mu, .cone = cone, .mass = 2});
    Simulator<double> sim(model, 1, {.threads = 1});
    sim.step(3000);
    ASSERT_TRUE(sim.failures().empty()) << sim.failures()[0].message();
    Batch<double>& batch = sim.batch();
    EXPECT_EQ(batch.ncon()(0, 0), 4) << "a box face on a plane touches at its four corners";
    double speed = 0;
    for (int k = 0; k < 6; ++k) speed = std::max(speed, std::abs(batch.qvel()(0, k)));
    EXPECT_LT(speed, 1e-9);
    EXPECT_NEAR(normal_force(batch), 2 * kG, 1e-6 * 2 * kG);
    // resting, not sinking: the box is at most a few mm into the plane
    EXPECT_NEAR(batch.qpos()(0, 2), 0.1, 2e-3);
  }
}

// Distance slid along the incline in `seconds` after a short settling, from rest on it.
struct Slide {
  double distance, acceleration;
};
Slide slide(const BoxOnPlane& c, double seconds) {
  const Model model = box_on_plane(c);
  Simulator<double> sim(model, 1, {.threads = 1});
  const int settle = static_cast<int>(0.2 / c.dt);
  sim.step(settle);
  // the first slide joint's axis is the box's x axis: down the slope
  auto along = [&] {
    Batch<double>& b = sim.batch();
    return std::array<double, 2>{b.qpos()(0, 0), b.qvel()(0, 0)};
  };
  const auto start = along();
  const int n = static_cast<int>(seconds / c.dt);
  sim.step(n);
  EXPECT_TRUE(sim.failures().empty());
  const auto end = along();
  return {end[0] - start[0], (end[1] - start[1]) / (n * c.dt)};
}

TEST(Contact, BlockOnAnInclineSticksBelowTheFrictionAngle) {
  const double mu = 0.5;
  for (Cone cone : {Cone::kPyramidal, Cone::kElliptic}) {
    const double alpha = 0.8 * std::atan(mu);
    const Slide s = slide({.tilt = alpha, .mu = mu, .cone = cone, .translate_only = true}, 1.0);
    // a soft contact creeps (friction rows have R > 0 and aref = −B v: a steady creep at
    // v = f R / B, MuJoCo's too), far slower than sliding would be
    const double free_slide = 0.5 * kG * std::sin(alpha);
    EXPECT_LT(std::abs(s.distance), 1e-2 * free_slide) << "cone " << static_cast<int>(cone);
  }
}

TEST(Contact, BlockOnAnInclineSlidesAboveTheFrictionAngle) {
  const double mu = 0.3;
  for (Cone cone : {Cone::kPyramidal, Cone::kElliptic}) {
    const double alpha = 1.5 * std::atan(mu);
    // The mean over 10 s: a sliding box hops on soft contacts (the friction rows' reference
    // −B v_t pushes along the normal too; MuJoCo 2.2.2 hops the same, to every digit).  While
    // it slides f_t = μ f_n and over time the normal impulse is m g cos α t; at each landing
    // the soft contact sticks briefly (force inside the cone), which leaves the mean within 1 %.
    const Slide s = slide({.tilt = alpha, .mu = mu, .cone = cone, .translate_only = true}, 10);
    const double expected = kG * (std::sin(alpha) - mu * std::cos(alpha));
    EXPECT_NEAR(s.acceleration, expected, 1e-2 * expected) << "cone " << static_cast<int>(cone);
  }
}

// A box on a plane touches at four corners; with two contact slots the instances where it
// touches are flagged and keep their state, and an instance where it is in the air goes on.
TEST(Contact, OverflowFlagsExactlyTheInstancesWithTooManyContacts) {
  ModelBuilder b;
  b.set_max_contacts(2);
  b.add_geom({.name = "floor", .type = GeomType::kPlane, .size = {1, 1, 0.1}});
  b.add_body(
      {.name = "box", .pos = {0, 0, 0.099}, .mass = 1, .inertia = {0.01, 0.01, 0.01, 0, 0, 0}});
  b.add_joint("box", {.name = "free", .type = JointType::kFree});
  b.add_geom({.name = "box", .body = "box", .type = GeomType::kBox, .size = {0.1, 0.1, 0.1}});
  const Model model = b.build();
  ASSERT_EQ(model.sizes().nconmax, 2);
  Simulator<double> sim(model, 3, {.threads = 1});
  sim.batch().qpos()(1, 2) = 1.0;  // in the air
  const std::vector<double> before{sim.batch().qpos()(0, 2), sim.batch().qpos()(2, 2)};
  sim.step(5);
  const std::vector<InstanceFailure> failures = sim.failures();
  ASSERT_EQ(failures.size(), 2u);
  EXPECT_EQ(failures[0].instance, 0);
  EXPECT_EQ(failures[1].instance, 2);
  for (const InstanceFailure& f : failures) {
    EXPECT_EQ(f.status, kStatusContactOverflow);
    EXPECT_NE(f.message().find("contact overflow"), std::string::npos) << f.message();
  }
  EXPECT_EQ(sim.batch().qpos()(0, 2), before[0]);
  EXPECT_EQ(sim.batch().qpos()(2, 2), before[1]);
  EXPECT_LT(sim.batch().qpos()(1, 2), 1.0) << "the instance in the air falls";
  EXPECT_EQ(sim.batch().ncon()(1, 0), 0);
}

// A free sphere (radius 0.1 m, 1 kg) hits a plane at v₀ with a
// frictionless contact of constant impedance d (solimp dmin = dmax = d) and solref (τ, ζ).
// Its normal acceleration is MuJoCo's a = (1 − d) a₀ + d aref, with a₀ = −g,
// aref = −b ẋ − k d x, b = 2 / (d τ), k = 1 / (d τ ζ)² (R = (1 − d)/d · 1/m is exact for
// a free body: invweight0 is 1/m), so while the contact pushes
//   ẍ + (2 / τ) ẋ + x / (τ ζ)² = −(1 − d) g,
// a damped oscillator of frequency 1/(τ ζ) and damping ratio ζ about x* = −(1 − d) g τ² ζ².
// The contact lets go when it would pull (ẍ < −g); the sphere then flies.  The deepest
// penetration and the apex of the rebound come from the closed form.
TEST(Contact, DroppedSphereFollowsItsSolref) {
  const double tau = 0.02, zeta = 0.3, dimp = 0.9, v0 = 1.0, r = 0.1, dt = 1e-5;
  ModelBuilder b;
  b.set_timestep(dt);
  // both geoms with the same solref and solimp, which their contact mixes
  b.add_geom({.name = "floor",
              .type = GeomType::kPlane,
              .size = {1, 1, 0.1},
              .condim = 1,
              .solref = {tau, zeta},
              .solimp = {dimp, dimp, 0.001, 0.5, 2}});
  b.add_body({.name = "ball", .pos = {0, 0, r}, .mass = 1, .inertia = {4e-3, 4e-3, 4e-3, 0, 0, 0}});
  b.add_joint("ball", {.name = "free", .type = JointType::kFree});
  b.add_geom({.name = "ball",
              .body = "ball",
              .type = GeomType::kSphere,
              .size = {r, 0, 0},
              .condim = 1,
              .solref = {tau, zeta},
              .solimp = {dimp, dimp, 0.001, 0.5, 2}});
  Simulator<double> sim(b.build(), 1, {.threads = 1});
  sim.batch().qvel()(0, 2) = -v0;

  // closed form: y = x − x*, y(0) = −x*, ẏ(0) = −v₀
  const double w = 1 / (tau * zeta), wd = w * std::sqrt(1 - zeta * zeta);
  const double xs = -(1 - dimp) * kG / (w * w);
  const double y0 = -xs, c = (-v0 + zeta * w * y0) / wd;
  auto x_of = [&](double t) {
    return xs + std::exp(-zeta * w * t) * (y0 * std::cos(wd * t) + c * std::sin(wd * t));
  };
  auto v_of = [&](double t, double h = 1e-7) { return (x_of(t + h) - x_of(t - h)) / (2 * h); };
  auto a_of = [&](double t, double h = 1e-5) {
    return (x_of(t + h) - 2 * x_of(t) + x_of(t - h)) / (h * h);
  };
  double deepest = 0, t = 0;
  for (; t < 1 && a_of(t + 1e-6) >= -kG; t += 1e-6) deepest = std::min(deepest, x_of(t));
  const double x_release = x_of(t), v_release = v_of(t);
  ASSERT_GT(v_release, 0) << "the contact lets go while the sphere moves up";
  const double apex = x_release + v_release * v_release / (2 * kG);

  double sim_deepest = 0, sim_apex = -1;
  for (int s = 0; s < static_cast<int>(0.5 / dt); ++s) {
    sim.step();
    const double x = sim.batch().qpos()(0, 2) - r, v = sim.batch().qvel()(0, 2);
    sim_deepest = std::min(sim_deepest, x);
    if (v > 0) sim_apex = std::max(sim_apex, x);
    if (sim_apex > 0 && v < 0) break;
  }
  ASSERT_TRUE(sim.failures().empty());
  EXPECT_NEAR(sim_deepest, deepest, 1e-3 * std::abs(deepest));
  EXPECT_NEAR(sim_apex, apex, 2e-3 * apex);
}

// MuJoCo 3.5 and later add the two geoms' margins and gaps, earlier releases take the larger:
// a ball 25 mm above a floor, margins 10 and 20 mm, gaps 1 and 2 mm.  Under the larger margin
// (20 mm) there is no contact; under the sum (30 mm, gap 3 mm) there is one, which pushes
// exactly as the contact of a floor whose own margin and gap are 30 and 3 mm under either rule.
TEST(Contact, MarginsAndGapsCombineByTheModelsRule) {
  const double r = 0.1, h = 0.025;
  auto ball_over_floor = [&](ContactMargin rule, double floor_margin, double floor_gap,
                             double ball_margin, double ball_gap) {
    ModelBuilder b;
    b.set_contact_margin(rule);
    b.add_geom({.name = "floor",
                .type = GeomType::kPlane,
                .size = {1, 1, 0.1},
                .condim = 1,
                .margin = floor_margin,
                .gap = floor_gap});
    b.add_body({.name = "ball", .pos = {0, 0, r + h}, .mass = 1, .inertia = {4e-3, 4e-3, 4e-3}});
    b.add_joint("ball", {.name = "free", .type = JointType::kFree});
    b.add_geom({.name = "ball",
                .body = "ball",
                .type = GeomType::kSphere,
                .size = {r, 0, 0},
                .condim = 1,
                .margin = ball_margin,
                .gap = ball_gap});
    auto sim = std::make_unique<Simulator<double>>(b.build(), 1, SimulatorOptions{.threads = 1});
    sim->forward();
    return sim;
  };
  const auto larger = ball_over_floor(ContactMargin::kMax, 0.02, 0.002, 0.01, 0.001);
  const auto sum = ball_over_floor(ContactMargin::kSum, 0.02, 0.002, 0.01, 0.001);
  const auto one_sided = ball_over_floor(ContactMargin::kMax, 0.03, 0.003, 0, 0);
  EXPECT_EQ(larger->batch().ncon()(0, 0), 0);
  EXPECT_NEAR(larger->batch().qacc()(0, 2), -kG, 1e-12);
  ASSERT_EQ(sum->batch().ncon()(0, 0), 1);
  EXPECT_NEAR(sum->batch().contact_dist()(0, 0), h, 1e-15);
  EXPECT_GT(sum->batch().qacc()(0, 2), -kG) << "the contact pushes up";
  ASSERT_EQ(one_sided->batch().ncon()(0, 0), 1);
  EXPECT_EQ(sum->batch().qacc()(0, 2), one_sided->batch().qacc()(0, 2));
  EXPECT_EQ(sum->batch().qfrc_constraint()(0, 2), one_sided->batch().qfrc_constraint()(0, 2));
}

}  // namespace
}  // namespace zwang::test
