// Per-instance parameter draws and initial states (zwang/randomize.hpp): the grammar, the
// distributions against their closed-form moments, the selections, reproducibility, and the
// keyframes the instances start from.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <stdexcept>

#include "test_util.h"
#include "zwang/builder.hpp"
#include "zwang/examples.hpp"
#include "zwang/randomize.hpp"
#include "zwang/simulator.hpp"

namespace zwang::test {
namespace {

using Kind = Distribution::Kind;

// the message of randomize()'s error for `spec`
std::string draw_error(Batch<double>& b, const std::string& spec) {
  return error_of<std::invalid_argument>([&] { randomize(b, parse_randomization(spec), 1); });
}

std::string parse_error(const std::string& spec) {
  return error_of<std::invalid_argument>([&] { parse_randomization(spec); });
}

TEST(Randomize, GrammarIsParsedAndChecked) {
  const std::vector<RandomTerm> t = parse_randomization(
      "body_mass=0.8:1.2, dof_damping[0]=uniform(0, 0.2),body_ipos[2, 1]=scale(normal(1, 0.1)),"
      "gravity[2]=choice(-9.81, -1.62), jnt_stiffness=lognormal(0,0.5), qpos_spring[1]=0.25");
  ASSERT_EQ(t.size(), 6u);
  EXPECT_EQ(t[0].name, "body_mass");
  EXPECT_TRUE(t[0].selections[0].index.empty());
  EXPECT_EQ(t[0].distribution.kind, Kind::kUniform);
  EXPECT_TRUE(t[0].distribution.scale);
  EXPECT_EQ(t[0].distribution.args, (std::vector<double>{0.8, 1.2}));
  EXPECT_EQ(t[1].name, "dof_damping[0]");
  EXPECT_FALSE(t[1].distribution.scale);
  EXPECT_EQ(t[2].name, "body_ipos[2, 1]");
  EXPECT_EQ(t[2].selections[0].index, (std::vector<int>{2, 1}));
  EXPECT_EQ(t[2].distribution.kind, Kind::kNormal);
  EXPECT_TRUE(t[2].distribution.scale);
  EXPECT_EQ(t[3].distribution.args, (std::vector<double>{-9.81, -1.62}));
  EXPECT_EQ(t[4].distribution.kind, Kind::kLogNormal);
  EXPECT_EQ(t[5].distribution.kind, Kind::kConstant);
  EXPECT_EQ(t[5].distribution.args, (std::vector<double>{0.25}));
  EXPECT_TRUE(parse_randomization(" ").empty());
  // empty terms are skipped; scale(LOW:HIGH) is LOW:HIGH; the selections of a term are named in
  // the order of the fields, whatever the spelling
  const std::vector<RandomTerm> u =
      parse_randomization("body_inertia+body_mass=scale(0.5:2),, gravity=1,");
  ASSERT_EQ(u.size(), 2u);
  EXPECT_EQ(u[0].name, "body_mass+body_inertia");
  EXPECT_EQ(u[0].distribution.args, (std::vector<double>{0.5, 2}));
  EXPECT_TRUE(u[0].distribution.scale);
  EXPECT_EQ(u[1].name, "gravity");

  EXPECT_EQ(parse_error("mass=0.8:1.2")
                .rfind("'mass=0.8:1.2': unknown parameter 'mass' (the "
                       "parameters: body_mass, body_ipos, body_inertia,",
                       0),
            0u)
      << parse_error("mass=0.8:1.2");
  EXPECT_EQ(parse_error("body_mass=1.2:0.8"),
            "'body_mass=1.2:0.8': '1.2:0.8' needs 0 <= LOW <= HIGH, both finite");
  EXPECT_EQ(parse_error("body_mass=-1:2"),
            "'body_mass=-1:2': '-1:2' needs 0 <= LOW <= HIGH, both finite");
  EXPECT_EQ(parse_error("body_mass=a:b"), "'body_mass=a:b': 'a:b' needs two numbers LOW:HIGH");
  EXPECT_EQ(parse_error("body_mass"), "'body_mass' is not NAME=VALUE");
  EXPECT_EQ(parse_error("gravity=gauss(0, 1)"),
            "'gravity=gauss(0, 1)': unknown distribution 'gauss' (uniform, normal, lognormal, "
            "choice, scale)");
  EXPECT_EQ(parse_error("gravity=uniform(0)"),
            "'gravity=uniform(0)': uniform takes 2 numbers, not 1");
  EXPECT_EQ(parse_error("gravity=uniform(1, 0)"),
            "'gravity=uniform(1, 0)': 'uniform(1, 0)' needs lo <= hi");
  EXPECT_EQ(parse_error("gravity=normal(0, -1)"),
            "'gravity=normal(0, -1)': 'normal(0, -1)' needs std >= 0");
  EXPECT_EQ(parse_error("gravity=normal(0, x)"),
            "'gravity=normal(0, x)': 'x' is not a number in 'normal(0, x)'");
  EXPECT_EQ(parse_error("gravity=scale(scale(1))"),
            "'gravity=scale(scale(1))': 'scale(scale(1))' scales twice");
  EXPECT_EQ(parse_error("body_ipos[1, 2, 0]=1"),
            "'body_ipos[1, 2, 0]=1': 'body_ipos[1, 2, 0]': expected NAME, NAME[i] or NAME[i, j]");
  EXPECT_EQ(parse_error("gravity=inf"), "'gravity=inf': 'inf' has a number that is not finite");
}

// scale(uniform) multiplies each selected element of each instance by its own factor in the
// range; the elements not selected keep the model's values
TEST(Randomize, ScaleDrawsAFactorPerElementAndInstance) {
  const Model m = examples::chain({.damping = 0.5, .actuators = true});
  const int n = 400;
  Batch<double> b(m, n);
  randomize(b, parse_randomization("body_mass=0.8:1.2,body_ipos[2]=uniform(-1, 1)"), 3);
  double lowest = 10, highest = 0;
  std::set<double> factors;
  for (std::int64_t i = 0; i < n; ++i) {
    for (int k = 1; k < m.nbody; ++k) {
      const double f = b.body_mass()(i, k) / m.body_mass[k];
      EXPECT_GE(f, 0.8);
      EXPECT_LE(f, 1.2);
      lowest = std::min(lowest, f);
      highest = std::max(highest, f);
      factors.insert(f);
      for (int c = 0; c < 6; ++c)
        EXPECT_EQ(b.body_inertia()(i, 6 * k + c), m.body_inertia[6 * k + c]);
      for (int c = 0; c < 3; ++c) {
        const double x = b.body_ipos()(i, 3 * k + c);
        if (k == 2) {
          EXPECT_GE(x, -1);
          EXPECT_LE(x, 1);
        } else {
          EXPECT_EQ(x, m.body_ipos[3 * k + c]);
        }
      }
    }
    for (int d = 0; d < m.nv; ++d) EXPECT_EQ(b.dof_damping()(i, d), m.dof_damping[d]);
  }
  EXPECT_LT(lowest, 0.81);
  EXPECT_GT(highest, 1.19);
  EXPECT_EQ(factors.size(), static_cast<std::size_t>(n * (m.nbody - 1)));
}

// selections joined by '+' share one draw per object: a body's mass and inertia by one factor,
// a position servo's gain and bias alike
TEST(Randomize, JoinedSelectionsShareADrawPerObject) {
  const Model m = examples::chain({.actuators = true});
  const int n = 50;
  Batch<double> b(m, n);
  randomize(b,
            parse_randomization("body_mass + body_inertia=0.5:2,"
                                "actuator_gainprm[1]+actuator_biasprm[1]=scale(uniform(2, 3))"),
            8);
  std::set<double> factors;
  for (std::int64_t i = 0; i < n; ++i) {
    for (int k = 1; k < m.nbody; ++k) {
      const double f = b.body_mass()(i, k) / m.body_mass[k];
      factors.insert(f);
      for (int c = 0; c < 3; ++c)
        EXPECT_NEAR(b.body_inertia()(i, 6 * k + c) / m.body_inertia[6 * k + c], f, 1e-15);
    }
    const double kp = b.actuator_gainprm()(i, 3);
    EXPECT_GE(kp / m.actuator_gainprm[3], 2);
    EXPECT_LE(kp / m.actuator_gainprm[3], 3);
    EXPECT_NEAR(b.actuator_biasprm()(i, 3 + 1), -kp, 1e-12 * kp);
    EXPECT_EQ(b.actuator_gainprm()(i, 0), m.actuator_gainprm[0]);
  }
  EXPECT_EQ(factors.size(), static_cast<std::size_t>(n * (m.nbody - 1)));
  EXPECT_EQ(draw_error(b, "body_mass+dof_damping=1"),
            "'body_mass+dof_damping': selections joined by '+' share one draw per object, so they "
            "must be rows of the same objects (whole fields or the same row); dof_damping is not");
  EXPECT_EQ(draw_error(b, "body_mass[1]+body_ipos[2]=1"),
            "'body_mass[1]+body_ipos[2]': selections joined by '+' share one draw per object, so "
            "they must be rows of the same objects (whole fields or the same row); body_ipos[2] "
            "is not");
  EXPECT_EQ(draw_error(b, "gravity+body_mass=1"),
            "'body_mass+gravity': selections joined by '+' share one draw per object, so they "
            "must be rows of the same objects (whole fields or the same row); gravity is not");
}

// sample moments of 20 000 draws against the distributions' own: within 5 standard errors
TEST(Randomize, DrawsHaveTheDistributionsMoments) {
  const Model m = examples::chain({.links = 1, .slides = false});
  const int n = 20000;
  Batch<double> b(m, n);
  randomize(b,
            parse_randomization("gravity[0]=normal(2, 0.5),gravity[1]=lognormal(0.1, 0.3),"
                                "gravity[2]=choice(-1, 0.5, 4),body_mass[1]=uniform(1, 3)"),
            11);
  auto moments = [&](auto value) {
    double sum = 0, sum2 = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      sum += value(i);
      sum2 += value(i) * value(i);
    }
    const double mean = sum / n;
    return std::pair{mean, std::sqrt(sum2 / n - mean * mean)};
  };
  const auto [mean0, std0] = moments([&](std::int64_t i) { return b.gravity()(i, 0); });
  EXPECT_NEAR(mean0, 2, 5 * 0.5 / std::sqrt(n));
  EXPECT_NEAR(std0, 0.5, 5 * 0.5 / std::sqrt(2.0 * n));
  const auto [mean1, std1] = moments([&](std::int64_t i) { return std::log(b.gravity()(i, 1)); });
  EXPECT_NEAR(mean1, 0.1, 5 * 0.3 / std::sqrt(n));
  EXPECT_NEAR(std1, 0.3, 5 * 0.3 / std::sqrt(2.0 * n));
  std::map<double, int> seen;
  for (std::int64_t i = 0; i < n; ++i) ++seen[b.gravity()(i, 2)];
  ASSERT_EQ(seen.size(), 3u);
  for (const auto& [value, count] : seen) {
    EXPECT_TRUE(value == -1 || value == 0.5 || value == 4) << value;
    // binomial(n, 1/3): standard deviation √(n · 2/9)
    EXPECT_NEAR(count, n / 3.0, 5 * std::sqrt(n * 2.0 / 9));
  }
  const auto [mean3, std3] = moments([&](std::int64_t i) { return b.body_mass()(i, 1); });
  EXPECT_NEAR(mean3, 2, 5 * (2 / std::sqrt(12.0)) / std::sqrt(n));
  EXPECT_NEAR(std3, 2 / std::sqrt(12.0), 0.01);
}

// a std of 0 draws the mean; a float batch takes the draws rounded to float; the world's mass is
// no parameter
TEST(Randomize, DegenerateDrawsAndFloatBatches) {
  const Model m = examples::chain();
  Batch<float> b(m, 8);
  randomize(b,
            parse_randomization("gravity[2]=normal(-3.5, 0),body_mass=lognormal(0.25, 0),"
                                "dof_armature=uniform(0.1, 0.3)"),
            2);
  for (std::int64_t i = 0; i < 8; ++i) {
    EXPECT_EQ(b.gravity()(i, 2), -3.5f);
    EXPECT_EQ(b.body_mass()(i, 0), 0.0f);
    for (int k = 1; k < m.nbody; ++k)
      EXPECT_EQ(b.body_mass()(i, k), static_cast<float>(std::exp(0.25)));
    for (int d = 0; d < m.nv; ++d) {
      EXPECT_GE(b.dof_armature()(i, d), 0.1f);
      EXPECT_LE(b.dof_armature()(i, d), 0.3f);
    }
  }
}

// a term's values depend on the seed and its own name only
TEST(Randomize, TermsAreReproducibleAndIndependent) {
  const Model m = examples::chain({.damping = 0.5});
  auto damping = [&](const std::string& spec, std::uint64_t seed) {
    Batch<double> b(m, 16);
    randomize(b, parse_randomization(spec), seed);
    std::vector<double> out;
    for (std::int64_t i = 0; i < 16; ++i) out.push_back(b.dof_damping()(i, 3));
    return out;
  };
  const std::vector<double> alone = damping("dof_damping=uniform(0, 1)", 5);
  EXPECT_EQ(damping("dof_damping=uniform(0, 1)", 5), alone);
  EXPECT_EQ(damping("body_mass=0.5:2,dof_damping=uniform(0, 1),gravity=normal(0, 1)", 5), alone);
  EXPECT_NE(damping("dof_damping=uniform(0, 1)", 6), alone);
  EXPECT_EQ(std::set<double>(alone.begin(), alone.end()).size(), alone.size());
}

// the model's counts bound the selections; nothing is drawn when a term is at fault
TEST(Randomize, SelectionsAreCheckedAgainstTheModel) {
  const Model m = examples::chain();  // 8 joints, no actuators, no damping
  Batch<double> b(m, 2);
  EXPECT_EQ(draw_error(b, "body_mass=0.5:2,dof_damping[8]=1"),
            "'dof_damping[8]': index 8 is not in [0, 8) (dof_damping has 8 rows per instance, "
            "nv = 8)");
  EXPECT_EQ(draw_error(b, "body_ipos[1, 3]=0"),
            "'body_ipos[1, 3]': column 3 is not in [0, 3) (body_ipos has 3 values per row)");
  EXPECT_EQ(draw_error(b, "body_mass[0]=1"),
            "'body_mass[0]': index 0 is not in [1, 9) (body_mass has 9 rows per instance, nbody = "
            "9); body 0 is the world");
  // an element drawn by two terms, or twice by one
  EXPECT_EQ(draw_error(b, "body_mass=0.5:2,body_mass[3]=1"),
            "'body_mass' and 'body_mass[3]' both draw body_mass; give each element one value");
  EXPECT_EQ(draw_error(b, "gravity=2:2,gravity=1"),
            "'gravity' and 'gravity' both draw gravity; give each element one value");
  EXPECT_EQ(draw_error(b, "body_mass+body_mass=0.5:2"),
            "'body_mass+body_mass' selects body_mass twice");
  EXPECT_EQ(draw_error(b, "gravity[3]=0"),
            "'gravity[3]': index 3 is not in [0, 3) (gravity has 3 values per instance)");
  EXPECT_EQ(draw_error(b, "dof_damping[1, 0]=1"),
            "'dof_damping[1, 0]': dof_damping has one value per row; give one index");
  EXPECT_EQ(draw_error(b, "actuator_gear=0.5:2"),
            "'actuator_gear' has nothing to draw: the model has nu = 0");
  EXPECT_EQ(draw_error(b, "dof_damping=0.5:2"),
            "'dof_damping' has nothing to scale: every selected value is 0");
  // the first term was not drawn before the second failed
  EXPECT_EQ(b.body_mass()(0, 1), m.body_mass[1]);
}

Model keyed_model() {
  ModelBuilder b;
  b.add_body({.name = "base", .mass = 1, .inertia = {0.1, 0.1, 0.1, 0, 0, 0}});
  b.add_joint("base", {.name = "free", .type = JointType::kFree});
  b.add_body({.name = "arm",
              .parent = "base",
              .mass = 1,
              .com = {0, 0, -0.5},
              .inertia = {0.1, 0.1, 0.01, 0, 0, 0}});
  b.add_joint("arm", {.name = "hinge", .axis = {0, 1, 0}});
  KeyframeSpec up, second;
  up.name = "up";
  up.time = 2;
  up.qpos = {1, 2, 3, 1, 0, 0, 0, 0.5};
  second.qpos = {0, 0, 1, 0, 1, 0, 0, -0.5};
  second.qvel = {0, 0, 0, 0, 0, 0, 3};
  b.add_keyframe(up);
  b.add_keyframe(second);
  return b.build();
}

// instances start at a keyframe, by name or index, the hinge moved by at most the noise and
// every other coordinate the keyframe's
TEST(Randomize, ScatteredStatesStartAtTheKeyframe) {
  const Model m = keyed_model();
  Simulator<double> sim(m, 50);
  scatter_states(sim, "1", 0.1, 4);
  std::set<double> hinge;
  for (std::int64_t i = 0; i < 50; ++i) {
    const std::vector<double> q = sim.batch().qpos().get(i);
    for (int k = 0; k < 7; ++k) EXPECT_EQ(q[k], m.key_qpos[m.nq + k]);
    EXPECT_LE(std::abs(q[7] + 0.5), 0.1);
    hinge.insert(q[7]);
    EXPECT_EQ(sim.batch().qvel()(i, 6), 3);
  }
  EXPECT_EQ(hinge.size(), 50u);
  scatter_states(sim, "up", 0, 4);
  EXPECT_EQ(sim.batch().qpos().get(7),
            std::vector<double>(m.key_qpos.begin(), m.key_qpos.begin() + m.nq));
  EXPECT_EQ(sim.batch().time()[7], 2);
  scatter_states(sim, "", 0, 4);
  EXPECT_EQ(sim.batch().qpos().get(3), m.qpos0);
  EXPECT_EQ(sim.batch().time()[7], 0);
  EXPECT_EQ(error_of<std::invalid_argument>([&] { scatter_states(sim, "down", 0, 1); }),
            "no keyframe 'down' (the model's: 'up', 1 (unnamed))");
  EXPECT_EQ(error_of<std::invalid_argument>([&] { keyframe_index(m, "2"); }),
            "no keyframe '2' (the model's: 'up', 1 (unnamed))");
  EXPECT_EQ(error_of<std::invalid_argument>([&] { keyframe_index(examples::chain(), "x"); }),
            "no keyframe 'x': the model has no keyframes");
}

}  // namespace
}  // namespace zwang::test
