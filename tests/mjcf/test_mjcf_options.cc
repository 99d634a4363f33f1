// <option><flag>, body gravcomp, mocap bodies and keyframes from MJCF, against MuJoCo 2.2.2 on
// the same text:
//   - MuJoCo 2.2.2's flags (gravity, passive, actuation, clampctrl, refsafe, filterparent) on a
//     finger like dm_control's: H, qfrc_bias, passive and actuator forces, q̈ of mj_forward and
//     one Euler and one RK4 step, to 1e-9 (every body's inertia is copied as written);
//   - MuJoCo 3's spring, damper and eulerdamp, which 2.2.2 does not read: against 2.2.2 with the
//     stiffnesses or dampings zeroed, and eulerdamp's explicit step against q̇ + h q̈ of 2.2.2;
//   - gravcomp (MuJoCo 2.3, which 2.2.2 does not read): qfrc_passive = c (bias with gravity −
//     bias without), a closed form (python_shim/tests/test_mjcf_options.py compares MuJoCo 4.0);
//   - mocap bodies posed per instance: kinematics to 1e-12, and with a weld and a connect to the
//     mocap body and contacts with its geoms, the constrained q̈ to 1e-10 (both solvers run to
//     their tolerances, as in test_constraints.cc);
//   - keyframes: every field after Simulator::reset_keyframe equals mjData's after
//     mj_resetDataKeyframe;
// and the messages of what zwang refuses or warns about.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>
#include <mujoco/mujoco.h>

#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "mujoco_util.h"
#include "zwang/loaders.hpp"
#include "zwang/model.hpp"
#include "zwang/simulator.hpp"

namespace zwang::test {
namespace {

constexpr double kExact = 1e-9;
constexpr double kSolver = 1e-10;
constexpr int kStates = 12;

// dm_control's finger: two actuated hinges with springs, damping and armature, a free spinner
// with damping; one geom per body (MuJoCo copies their inertias as written); `flags` goes into
// <flag>
std::string finger(std::string_view flags, std::string_view extra_option = "") {
  return fmt::format(R"(<mujoco model="finger">
  <compiler angle="radian"/>
  <option timestep="0.01" {}><flag {}/></option>
  <default>
    <joint type="hinge" axis="0 -1 0" damping="0.05" armature="0.01" stiffness="0.2"/>
    <motor ctrllimited="true" ctrlrange="-1 1"/>
  </default>
  <worldbody>
    <body name="proximal" pos="-0.2 0 0.4">
      <joint name="proximal" limited="true" range="-2.1 1.2" springref="0.3"/>
      <geom type="capsule" fromto="0 0 0 0 0 -0.17" size="0.04"/>
      <body name="distal" pos="0 0 -0.18">
        <joint name="distal" limited="true" range="-2 2" damping="0.1"/>
        <geom type="capsule" fromto="0 0 0 0.01 0 -0.16" size="0.03"/>
      </body>
    </body>
    <body name="spinner" pos="0.2 0 0.4">
      <joint name="hinge" damping="0.5" stiffness="0"/>
      <geom type="box" size="0.2 0.02 0.03" pos="0.1 0 0.02"/>
    </body>
  </worldbody>
  <actuator>
    <motor name="proximal" joint="proximal" gear="3"/>
    <motor name="distal" joint="distal" gear="1.5"/>
    <position name="servo" joint="hinge" kp="2" ctrlrange="-0.5 0.5"/>
  </actuator>
</mujoco>
)",
                     extra_option, flags);
}

struct Pair {
  Model z;
  MjModelPtr m;
};

// the model by both, the smooth dynamics only (load_mujoco_string disables MuJoCo's constraints)
Pair load_both(const std::string& xml) {
  Pair p{zwang::load_mjcf_string(xml, "flags.xml", {}, kMujoco2).model, nullptr};
  p.z.disableflags |= kDisableConstraint;
  std::string error;
  p.m = load_mujoco_string(xml, "flags.xml", &error);
  EXPECT_TRUE(p.m) << error;
  return p;
}

// mj_forward's H, qfrc_bias, passive and actuator forces, actuator_force and q̈, and one step of
// each integrator, at seeded random states (controls beyond the ctrlranges)
void expect_matches(const std::string& label, const Model& model, mjModel* m) {
  ASSERT_NO_FATAL_FAILURE(expect_same_tree(model, m));
  const int nv = m->nv, nu = m->nu;
  const std::vector<State> states = random_states(model, kStates, 21);
  const MjDataPtr d(mj_makeData(m));
  Comparison cmp(label);
  {
    const auto sim = simulator(model, states);
    sim->forward();
    for (const auto& f : sim->failures()) ADD_FAILURE() << label << ": " << f.message();
    std::vector<double> dense(static_cast<std::size_t>(nv) * nv);
    auto& b = sim->batch();
    for (int s = 0; s < kStates; ++s) {
      set_state(m, d.get(), states[s]);
      mj_forward(m, d.get());
      mj_fullM(m, dense.data(), d->qM);
      cmp.check("qM", s, unpack(b.qM().get(s), nv), dense, kExact);
      cmp.check("qfrc_bias", s, b.qfrc_bias().get(s), view(d->qfrc_bias, nv), kExact);
      cmp.check("qfrc_passive", s, b.qfrc_passive().get(s), view(d->qfrc_passive, nv), kExact);
      cmp.check("qfrc_actuator", s, b.qfrc_actuator().get(s), view(d->qfrc_actuator, nv), kExact);
      cmp.check("actuator_force", s, b.actuator_force().get(s), view(d->actuator_force, nu),
                kExact);
      cmp.check("qacc", s, b.qacc().get(s), view(d->qacc, nv), kExact);
    }
  }
  for (const Integrator integrator : {Integrator::kEuler, Integrator::kRK4}) {
    Model stepped = model;
    stepped.integrator = integrator;
    m->opt.integrator = integrator == Integrator::kRK4 ? mjINT_RK4 : mjINT_EULER;
    const auto sim = simulator(stepped, states);
    sim->step(1);
    const std::string step = integrator == Integrator::kRK4 ? "rk4_" : "euler_";
    for (int s = 0; s < kStates; ++s) {
      set_state(m, d.get(), states[s]);
      mj_step(m, d.get());
      cmp.check(step + "qpos", s, sim->batch().qpos().get(s), view(d->qpos, m->nq), kExact);
      cmp.check(step + "qvel", s, sim->batch().qvel().get(s), view(d->qvel, nv), kExact);
    }
  }
  m->opt.integrator = mjINT_EULER;
}

// ---------------------------------------------------------------------------------------------
// MuJoCo 2.2.2's flags

TEST(MjcfFlags, FingerMatchesMujocoWithEachFlag) {
  for (const char* flags :
       {"", "gravity=\"disable\"", "passive=\"disable\"", "actuation=\"disable\"",
        "clampctrl=\"disable\"",
        "gravity=\"disable\" passive=\"disable\" clampctrl=\"disable\" warmstart=\"disable\"",
        "gravity=\"enable\" passive=\"enable\" actuation=\"enable\" clampctrl=\"enable\""}) {
    const Pair p = load_both(finger(flags));
    ASSERT_TRUE(p.m);
    // the bits are MuJoCo 2.2.2's
    EXPECT_EQ(p.z.disableflags & ~kDisableConstraint, p.m->opt.disableflags & ~mjDSBL_CONSTRAINT)
        << flags;
    expect_matches(fmt::format("finger <flag {}>", flags), p.z, p.m.get());
  }
}

// gravity off: the bias is MuJoCo's without gravity, whatever the instance's gravity parameter
TEST(MjcfFlags, GravityDisabledIgnoresTheGravityParameter) {
  const Model model =
      zwang::load_mjcf_string(finger("gravity=\"disable\""), "g.xml", {}, kMujoco2).model;
  EXPECT_EQ(model.gravity, (Vec3d{0, 0, -9.81}));
  Simulator<double> sim(model, 2);
  sim.batch().gravity().set(1, std::vector<double>{3, -2, 40});
  sim.batch().qvel().fill(std::vector<double>{0.3, -0.2, 1});
  sim.forward();
  EXPECT_EQ(sim.batch().qfrc_bias().get(0), sim.batch().qfrc_bias().get(1));
  EXPECT_EQ(sim.batch().qacc().get(0), sim.batch().qacc().get(1));
}

// MuJoCo 3's spring and damper flags split 2.2.2's passive; eulerdamp keeps the damping force
// but makes the Euler step explicit.  2.2.2 reads none of them: it gets the same text without the
// flag and its stiffnesses or dampings zeroed.
TEST(MjcfFlags, SpringDamperAndEulerdampOfMujoco3) {
  const Pair plain = load_both(finger(""));
  ASSERT_TRUE(plain.m);
  struct Variant {
    const char* flags;
    bool springs, dampers;
  };
  for (const Variant v :
       {Variant{"spring=\"disable\"", false, true}, Variant{"damper=\"disable\"", true, false},
        Variant{"spring=\"disable\" damper=\"disable\"", false, false}}) {
    Model z = zwang::load_mjcf_string(finger(v.flags), "f.xml", {}, kMujoco2).model;
    z.disableflags |= kDisableConstraint;
    std::string error;
    MjModelPtr m = load_mujoco_string(finger(""), "f.xml", &error);
    ASSERT_TRUE(m) << error;
    if (!v.springs) mju_zero(m->jnt_stiffness, m->njnt);
    if (!v.dampers) mju_zero(m->dof_damping, m->nv);
    expect_matches(fmt::format("finger <flag {}>", v.flags), z, m.get());
  }

  // eulerdamp: q̇⁺ = q̇ + h q̈ with q̈ of mj_forward (damping explicit), q⁺ = q + h q̇⁺ (hinges)
  Model z = zwang::load_mjcf_string(finger("eulerdamp=\"disable\""), "f.xml", {}, kMujoco2).model;
  z.disableflags |= kDisableConstraint;
  EXPECT_EQ(z.disableflags, kDisableEulerdamp | kDisableConstraint);
  const std::vector<State> states = random_states(z, kStates, 22);
  const auto sim = simulator(z, states);
  sim->step(1);
  const mjModel* m = plain.m.get();
  const MjDataPtr d(mj_makeData(m));
  Comparison cmp("finger eulerdamp");
  for (int s = 0; s < kStates; ++s) {
    set_state(m, d.get(), states[s]);
    mj_forward(m, d.get());
    std::vector<double> qvel(m->nv), qpos(m->nq);
    for (int i = 0; i < m->nv; ++i) qvel[i] = d->qvel[i] + m->opt.timestep * d->qacc[i];
    for (int i = 0; i < m->nq; ++i) qpos[i] = d->qpos[i] + m->opt.timestep * qvel[i];
    cmp.check("qvel", s, sim->batch().qvel().get(s), qvel, kExact);
    cmp.check("qpos", s, sim->batch().qpos().get(s), qpos, kExact);
  }
}

// MuJoCo with every constraint but what `keep` names, its Newton solver run to the end
void tighten(mjModel* m, Model& z) {
  m->opt.disableflags &= ~mjDSBL_CONSTRAINT;
  m->opt.solver = mjSOL_NEWTON;
  m->opt.iterations = 1000;
  m->opt.tolerance = 1e-15;
  z.iterations = 100;
  z.tolerance = 1e-13;
}

// q̈ with the constraints on, against MuJoCo's, at `states`
void expect_constrained_qacc(const std::string& label, const Model& z, const mjModel* m,
                             const std::vector<State>& states) {
  const auto sim = simulator(z, states);
  sim->forward();
  for (const auto& f : sim->failures()) ADD_FAILURE() << label << ": " << f.message();
  const MjDataPtr d(mj_makeData(m));
  Comparison cmp(label);
  for (std::size_t s = 0; s < states.size(); ++s) {
    set_state(m, d.get(), states[s]);
    mj_forward(m, d.get());
    cmp.check("qacc", static_cast<int>(s), sim->batch().qacc().get(s), view(d->qacc, m->nv),
              kSolver);
  }
}

// refsafe off keeps a limit's time constant below 2 h: the limit rows differ from refsafe's
TEST(MjcfFlags, RefsafeDisabledKeepsShortTimeConstants) {
  std::vector<double> qacc[2];
  for (const bool refsafe : {true, false}) {
    const std::string xml = fmt::format(R"(<mujoco>
  <option timestep="0.01"><flag {} contact="disable"/></option>
  <worldbody>
    <body>
      <joint name="j" axis="0 1 0" limited="true" range="-0.2 0.2" solreflimit="0.005 1"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.05"/>
    </body>
  </worldbody>
</mujoco>
)",
                                        refsafe ? "" : "refsafe=\"disable\"");
    Pair p = load_both(xml);
    ASSERT_TRUE(p.m);
    tighten(p.m.get(), p.z);
    p.z.disableflags &= ~kDisableConstraint;
    std::vector<State> states(5);
    for (int s = 0; s < 5; ++s) states[s] = {{0.21 + 0.01 * s}, {0.5 - 0.3 * s}, {}};
    expect_constrained_qacc(fmt::format("limit, refsafe {}", refsafe ? "on" : "off"), p.z,
                            p.m.get(), states);
    const auto sim = simulator(p.z, states);
    sim->forward();
    qacc[refsafe ? 0 : 1] = sim->batch().qacc().get(0);
  }
  EXPECT_GT(std::abs(qacc[0][0] - qacc[1][0]), 1e-3 * std::abs(qacc[0][0]));
}

// filterparent off: a body and its parent collide, as MuJoCo's contacts say
TEST(MjcfFlags, FilterparentDisabledLetsParentAndChildCollide) {
  for (const bool filter : {true, false}) {
    const std::string xml = fmt::format(R"(<mujoco>
  <option gravity="0 0 0"><flag {}/></option>
  <worldbody>
    <body name="parent">
      <joint type="slide" axis="0 0 1"/>
      <geom type="sphere" size="0.2"/>
      <body name="child" pos="0 0 0.3">
        <joint axis="0 1 0"/>
        <geom type="sphere" size="0.15"/>
      </body>
    </body>
  </worldbody>
</mujoco>
)",
                                        filter ? "" : "filterparent=\"disable\"");
    Pair p = load_both(xml);
    ASSERT_TRUE(p.m);
    tighten(p.m.get(), p.z);
    p.z.disableflags &= ~kDisableConstraint;
    const std::vector<State> states = {{{0, 0.1}, {0.2, -0.5}, {}}, {{0.1, -0.3}, {0, 1}, {}}};
    const auto sim = simulator(p.z, states);
    sim->forward();
    const MjDataPtr d(mj_makeData(p.m.get()));
    for (std::size_t s = 0; s < states.size(); ++s) {
      set_state(p.m.get(), d.get(), states[s]);
      mj_forward(p.m.get(), d.get());
      EXPECT_EQ(d->ncon, filter ? 0 : 1);
      EXPECT_EQ(sim->batch().ncon()(s, 0), d->ncon) << "filterparent " << filter;
    }
    expect_constrained_qacc(fmt::format("parent and child, filterparent {}", filter), p.z,
                            p.m.get(), states);
  }
}

// ---------------------------------------------------------------------------------------------
// gravcomp

// −c m g at each COM through its Jacobian (body c, welded to b, has no stored columns): c times
// the gravity part of qfrc_bias, which is the bias with gravity less the bias without
TEST(MjcfGravcomp, PassiveForceCancelsTheCompensatedWeight) {
  const std::string body = R"(
    <body name="a" pos="0 0 1" gravcomp="{0}">
      <joint axis="0 1 0" damping="0"/>
      <geom type="capsule" fromto="0 0 0 0.4 0 0.1" size="0.05"/>
      <body name="b" pos="0.4 0 0.1" gravcomp="{1}">
        <joint axis="1 0 0"/>
        <joint type="slide" axis="0 0 1"/>
        <geom type="box" size="0.1 0.05 0.2" pos="0.1 0 0"/>
        <body name="c" pos="0.2 0 -0.1" gravcomp="{1}"><geom size="0.05" pos="0.05 0 0"/></body>
      </body>
    </body>
    <body name="free" pos="1 0 0" gravcomp="{2}"><freejoint/><geom size="0.1"/></body>)";
  const auto model = [&](double a, double b, double f, std::string_view flags = "") {
    return zwang::load_mjcf_string(
               fmt::format("<mujoco><option><flag {}/></option><worldbody>{}</worldbody></mujoco>",
                           flags, fmt::format(fmt::runtime(body), a, b, f)),
               "gravcomp.xml", {}, kMujoco2)
        .model;
  };
  const Model plain = model(0, 0, 0), comp = model(1, 0.5, 0.25);
  EXPECT_EQ(comp.body_gravcomp, (std::vector<double>{0, 1, 0.5, 0.5, 0.25}));
  Model weightless = plain;
  weightless.gravity = {0, 0, 0};
  const std::vector<State> states = random_states(plain, kStates, 23);
  const auto run = [&](const Model& m) {
    auto sim = simulator(m, states);
    sim->forward();
    return sim;
  };
  const auto with = run(plain), without = run(weightless), compensated = run(comp);
  for (const double c : {1.0, 0.5, 0.25}) {
    Model one = plain;
    std::fill(one.body_gravcomp.begin(), one.body_gravcomp.end(), c);
    const auto sim = run(one);
    for (int s = 0; s < kStates; ++s) {
      const std::vector<double> a = with->batch().qfrc_bias().get(s),
                                b = without->batch().qfrc_bias().get(s),
                                passive = sim->batch().qfrc_passive().get(s);
      for (int i = 0; i < plain.nv; ++i) {
        EXPECT_NEAR(passive[i], c * (a[i] - b[i]), 1e-12 * (1 + std::abs(a[i])))
            << "gravcomp " << c << " state " << s << " dof " << i;
      }
    }
  }
  // body by body: the free body alone carries a quarter, its dofs are its own
  for (int s = 0; s < kStates; ++s) {
    const std::vector<double> a = with->batch().qfrc_bias().get(s),
                              b = without->batch().qfrc_bias().get(s),
                              passive = compensated->batch().qfrc_passive().get(s);
    for (int i = 3; i < 9; ++i) EXPECT_NEAR(passive[i], 0.25 * (a[i] - b[i]), 1e-12) << i;
  }
  // no gravity, no compensation; no passive forces (MuJoCo 2.2's flag), none either
  for (const char* flags :
       {"gravity=\"disable\"", "passive=\"disable\"", "spring=\"disable\" damper=\"disable\""}) {
    const auto sim = run(model(1, 1, 1, flags));
    for (int s = 0; s < kStates; ++s) {
      EXPECT_EQ(sim->batch().qfrc_passive().get(s), std::vector<double>(plain.nv, 0.0)) << flags;
    }
  }
  const auto damped = run(model(1, 1, 1, "damper=\"disable\""));
  EXPECT_EQ(damped->batch().qfrc_passive().get(0),
            run(model(1, 1, 1))->batch().qfrc_passive().get(0));
}

// ---------------------------------------------------------------------------------------------
// mocap bodies

// a mocap hand welded to a free box, a mocap anchor connected to a pendulum, and a mocap paddle
// whose sphere touches the free box
const char* kMocap = R"(<mujoco>
  <option timestep="0.005"><flag contact="{}"/></option>
  <worldbody>
    <geom name="floor" type="plane" size="2 2 0.1"/>
    <body name="hand" mocap="true" pos="0 0 1" quat="1 0.2 0 0">
      <geom type="sphere" size="0.05" contype="0" conaffinity="0"/>
    </body>
    <body name="box" pos="0 0 0.8">
      <freejoint/>
      <geom type="box" size="0.1 0.1 0.1"/>
    </body>
    <body name="anchor" mocap="true" pos="1 0 1">
      <geom type="sphere" size="0.02" contype="0" conaffinity="0"/>
    </body>
    <body name="pendulum" pos="1 0 1">
      <joint axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0 0 -0.5" size="0.03"/>
    </body>
    <body name="paddle" mocap="true" pos="0.18 0 0.8">
      <geom type="sphere" size="0.1"/>
    </body>
  </worldbody>
  <equality>
    <weld body1="hand" body2="box" solref="0.02 1"/>
    <connect body1="anchor" body2="pendulum" anchor="0 0 0"/>
  </equality>
</mujoco>
)";

struct MocapPose {
  std::vector<double> pos, quat;  // nmocap x 3, nmocap x 4
};

// instance s moves every mocap body by its own offset and turn
std::vector<MocapPose> mocap_poses(const Model& z, int count) {
  std::vector<MocapPose> out;
  for (int s = 0; s < count; ++s) {
    MocapPose p{mocap_pos0(z), mocap_quat0(z)};
    for (int k = 0; k < z.nmocap; ++k) {
      p.pos[3 * k] += 0.02 * s;
      p.pos[3 * k + 2] -= 0.01 * s * (k + 1);
      const double half = 0.05 * s, w = std::cos(half), z_ = std::sin(half);
      const double* q = p.quat.data() + 4 * k;
      const double r[4] = {w * q[0] - z_ * q[3], w * q[1] - z_ * q[2], w * q[2] + z_ * q[1],
                           w * q[3] + z_ * q[0]};
      // an unnormalised quaternion: both normalise it
      for (int c = 0; c < 4; ++c) p.quat[4 * k + c] = 1.5 * r[c];
    }
    out.push_back(p);
  }
  return out;
}

TEST(MjcfMocap, PosedPerInstanceAsMujoco) {
  for (const bool contacts : {false, true}) {
    const std::string xml = fmt::format(fmt::runtime(kMocap), contacts ? "enable" : "disable");
    Pair p = load_both(xml);
    ASSERT_TRUE(p.m);
    ASSERT_EQ(p.z.nmocap, 3);
    ASSERT_EQ(p.m->nmocap, 3);
    for (int b = 0; b < p.z.nbody; ++b) EXPECT_EQ(p.z.body_mocapid[b], p.m->body_mocapid[b]);
    tighten(p.m.get(), p.z);
    p.z.disableflags &= ~kDisableConstraint;
    std::vector<State> states = random_states(p.z, kStates, 24);
    for (State& s : states) {
      // the box near the hand and the paddle, moving slowly
      s.qpos[0] = 0.05 * s.qvel[0];
      s.qpos[1] = 0.05 * s.qvel[1];
      s.qpos[2] = 0.8 + 0.02 * s.qvel[2];
      for (double& v : s.qvel) v *= 0.3;
    }
    const std::vector<MocapPose> poses = mocap_poses(p.z, kStates);
    const auto sim = simulator(p.z, states);
    for (int s = 0; s < kStates; ++s) {
      sim->batch().mocap_pos().set(s, poses[s].pos);
      sim->batch().mocap_quat().set(s, poses[s].quat);
    }
    sim->forward();
    for (const auto& f : sim->failures()) ADD_FAILURE() << f.message();
    const MjDataPtr d(mj_makeData(p.m.get()));
    const int nv = p.m->nv, nbody = p.m->nbody;
    Comparison cmp(fmt::format("mocap, contacts {}", contacts));
    int touching = 0;
    for (int s = 0; s < kStates; ++s) {
      set_state(p.m.get(), d.get(), states[s]);
      std::copy(poses[s].pos.begin(), poses[s].pos.end(), d->mocap_pos);
      std::copy(poses[s].quat.begin(), poses[s].quat.end(), d->mocap_quat);
      mj_forward(p.m.get(), d.get());
      cmp.check("xpos", s, sim->batch().xpos().get(s), view(d->xpos, 3 * nbody), 1e-12);
      cmp.check("xquat", s, align_quats(sim->batch().xquat().get(s), view(d->xquat, 4 * nbody)),
                view(d->xquat, 4 * nbody), 1e-12);
      cmp.check("qacc", s, sim->batch().qacc().get(s), view(d->qacc, nv), kSolver);
      EXPECT_EQ(sim->batch().ncon()(s, 0), d->ncon) << "state " << s;
      touching += d->ncon > 0;
    }
    if (contacts) {
      EXPECT_GT(touching, 0);
    }
    // the mocap fields are inputs: forward() leaves them as they were set
    EXPECT_EQ(sim->batch().mocap_quat().get(3), poses[3].quat);
  }
}

TEST(MjcfMocap, DefaultsResetAndMassOutsideH) {
  const Model z =
      zwang::load_mjcf_string(fmt::format(fmt::runtime(kMocap), "enable"), "m.xml", {}, kMujoco2)
          .model;
  Simulator<double> sim(z, 3);
  const std::vector<double> pos0 = mocap_pos0(z), quat0 = mocap_quat0(z);
  EXPECT_EQ(pos0, (std::vector<double>{0, 0, 1, 1, 0, 1, 0.18, 0, 0.8}));
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(sim.batch().mocap_pos().get(i), pos0);
    EXPECT_EQ(sim.batch().mocap_quat().get(i), quat0);
  }
  sim.batch().mocap_pos().set(1, std::vector<double>(9, 3.0));
  const std::vector<std::int64_t> one{1};
  sim.reset(one);
  EXPECT_EQ(sim.batch().mocap_pos().get(1), pos0);
  // a heavier hand changes nothing of H
  Model heavy = z;
  heavy.body_mass[z.id(ObjType::kBody, "hand")] *= 100;
  Simulator<double> other(heavy, 1);
  sim.forward();
  other.forward();
  EXPECT_EQ(sim.batch().qM().get(0), other.batch().qM().get(0));
}

// ---------------------------------------------------------------------------------------------
// keyframes

const char* kKeyed = R"(<mujoco>
  <size nkey="5"/>
  <worldbody>
    <body name="target" mocap="true" pos="0.5 0 1"><geom size="0.05" contype="0"/></body>
    <body name="free" pos="0 0 1"><freejoint/><geom size="0.1"/>
      <body pos="0 0 -0.3"><joint type="ball"/><geom type="capsule" size="0.03 0.1"/>
        <body pos="0 0 -0.3"><joint name="h" axis="0 1 0" ref="0.3"/><geom size="0.05"/></body>
      </body>
    </body>
    <body name="cart"><joint name="s" type="slide" axis="1 0 0"/><geom type="box" size="0.1 0.1 0.1"/></body>
  </worldbody>
  <actuator><motor joint="h"/><position joint="s" kp="3"/></actuator>
  <keyframe>
    <key name="home" time="1.5" qpos="0 0 1 1 0 0 0 1 0 0 0 0.3 0.1"
         qvel="0.1 0.2 0.3 0.4 0.5 0.6 0.7 0.8 0.9 1 1.1" ctrl="0.5 -0.25"
         mpos="1 2 3" mquat="2 0 0 2"/>
    <key name="partial" qpos="0.1 0 1.2 2 0 0 0 0 3 0 4 -0.2 0.4"/>
    <key qvel="0 0 0 0 0 0 0 0 0 0 -1" ctrl="1 1"/>
  </keyframe>
</mujoco>
)";

TEST(MjcfKeyframes, ResetMatchesMujocoResetDataKeyframe) {
  const Model z = zwang::load_mjcf_string(kKeyed, "keys.xml", {}, kMujoco2).model;
  std::string error;
  const MjModelPtr m = load_mujoco_string(kKeyed, "keys.xml", &error);
  ASSERT_TRUE(m) << error;
  ASSERT_EQ(z.nkey, m->nkey);
  ASSERT_EQ(z.nkey, 5);
  EXPECT_EQ(z.key_name, (std::vector<std::string>{"home", "partial", "", "", ""}));
  EXPECT_EQ(z.id(ObjType::kKey, "partial"), 1);
  const MjDataPtr d(mj_makeData(m.get()));
  Simulator<double> sim(z, z.nkey + 1);
  for (int k = 0; k < z.nkey; ++k) {
    // dirty the instance first: the reset clears it
    sim.batch().qvel().fill(std::vector<double>(z.nv, 7.0));
    sim.batch().mocap_pos().fill(std::vector<double>(3, 7.0));
    const std::vector<std::int64_t> at{k};
    sim.reset_keyframe(at, k);
    mj_resetDataKeyframe(m.get(), d.get(), k);
    const auto& b = sim.batch();
    EXPECT_EQ(b.time()[k], d->time) << "key " << k;
    EXPECT_EQ(b.qpos().get(k), std::vector<double>(d->qpos, d->qpos + m->nq)) << "key " << k;
    EXPECT_EQ(b.qvel().get(k), std::vector<double>(d->qvel, d->qvel + m->nv)) << "key " << k;
    EXPECT_EQ(b.ctrl().get(k), std::vector<double>(d->ctrl, d->ctrl + m->nu)) << "key " << k;
    EXPECT_EQ(b.mocap_pos().get(k), std::vector<double>(d->mocap_pos, d->mocap_pos + 3))
        << "key " << k;
    EXPECT_EQ(b.mocap_quat().get(k), std::vector<double>(d->mocap_quat, d->mocap_quat + 4))
        << "key " << k;
  }
  // by name, several instances at once; the last instance stays where it was
  const std::vector<std::int64_t> both{0, 2};
  sim.reset_keyframe(both, "partial");
  EXPECT_EQ(sim.batch().qpos().get(2), sim.batch().qpos().get(1));
  EXPECT_EQ(sim.batch().qpos().get(z.nkey), z.qpos0);
  EXPECT_THROW(sim.reset_keyframe(both, "nope"), std::invalid_argument);
  EXPECT_THROW(sim.reset_keyframe(both, 5), std::out_of_range);
}

// ---------------------------------------------------------------------------------------------
// errors and warnings

std::string load_error(std::string_view xml) {
  return error_of([&] { zwang::load_mjcf_string(xml, "bad.xml", {}, kMujoco2); });
}

std::string body(std::string_view inside, std::string_view after = "") {
  return fmt::format(
      "<mujoco>\n<worldbody>\n<body name=\"b\">\n<joint/>\n<geom size=\"0.1\"/>\n{}\n</body>\n"
      "</worldbody>\n{}\n</mujoco>\n",
      inside, after);
}

TEST(MjcfOptionErrors, MessagesNameFileAndLine) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"<mujoco>\n<option>\n<flag gravity=\"disable\" springdamper=\"disable\"/>\n</option>\n"
       "</mujoco>\n",
       "bad.xml:3: <flag> has no flag 'springdamper' (MuJoCo's flags: constraint equality ..."},
      {"<mujoco>\n<option><flag gravity=\"off\"/></option>\n</mujoco>\n",
       "bad.xml:2: <flag> attribute 'gravity': 'off' is not one of 'disable', 'enable'"},
      {"<mujoco>\n<option><flag override=\"enable\"/></option>\n</mujoco>\n",
       "bad.xml:2: flag override is not supported: contacts would keep their geoms' margin, "
       "solref and solimp instead of o_margin, o_solref and o_solimp"},
      {body("<composite type=\"grid\" count=\"2 2 1\"/>"),
       "bad.xml:6: element <composite> is not supported: it generates bodies and joints (expand "
       "it into bodies, joints and geoms, e.g. by saving the model from MuJoCo)"},
      {body("", "<worldbody><frame pos=\"1 0 0\"><body/></frame></worldbody>"),
       "bad.xml:9: element <frame> is not supported: it places the bodies, joints, geoms and "
       "sites inside it ..."},
      {body("<body>\n<flexcomp type=\"grid\"/>\n</body>"),
       "bad.xml:7: element <flexcomp> is not supported: it generates bodies and joints ..."},
      {body("", "<actuator>\n<plugin plugin=\"x\"/>\n</actuator>"),
       "bad.xml:10: element <plugin> in <actuator> is not supported: it would add an actuator "
       "that zwang leaves out, and change nu"},
      // mocap bodies: children of the world without joints
      {"<mujoco>\n<worldbody>\n<body mocap=\"true\">\n<joint/>\n<geom size=\"1\"/>\n</body>\n"
       "</worldbody>\n</mujoco>\n",
       "bad.xml:4: joint 'joint0': the unnamed body at bad.xml:3 is a mocap body, whose pose each "
       "instance sets; it has no joints"},
      {body("<body name=\"m\" mocap=\"true\"/>"),
       "bad.xml:6: body 'm': a mocap body must be a child of the world (its parent is 'b')"},
      // keyframes: the key and its line
      {body("", "<keyframe>\n<key/>\n<key name=\"k\" qpos=\"1 2\"/>\n</keyframe>"),
       "bad.xml:11: keyframe 'k': qpos has 2 values, the model needs nq = 1"},
      {body("", "<keyframe>\n<key ctrl=\"1\"/>\n</keyframe>"),
       "bad.xml:10: keyframe 0: ctrl has 1 value, the model needs nu = 0"},
      {body("", "<keyframe>\n<key act=\"1\"/>\n</keyframe>"),
       "bad.xml:10: keyframe 0: act has 1 value, the model needs na = 0"},
      {body("", "<keyframe>\n<key name=\"k\"/>\n<key name=\"k\"/>\n</keyframe>"),
       "bad.xml:11: keyframe 'k': a keyframe of that name exists already"},
      // an unnamed body is named by its place
      {"<mujoco>\n<worldbody>\n<body>\n<joint/>\n</body>\n</worldbody>\n</mujoco>\n",
       "bad.xml:3: unnamed body: mass must be positive (got 0): the body has joints and nothing "
       "below it carries mass"},
  };
  for (const auto& [xml, expected] : cases) {
    const std::string error = load_error(xml);
    if (expected.ends_with("...")) {
      EXPECT_TRUE(error.starts_with(expected.substr(0, expected.size() - 3))) << error;
    } else {
      EXPECT_EQ(error, expected) << xml;
    }
  }
}

// a failed load shows what the loader had left out before it failed
TEST(MjcfOptionErrors, WarningsComeWithTheError) {
  const std::string error = load_error(
      "<mujoco>\n<option iterations=\"0\"/>\n<worldbody>\n<body>\n<joint/>\n<camera/>\n"
      "<foo/>\n</body>\n</worldbody>\n</mujoco>\n");
  EXPECT_EQ(error,
            "bad.xml:4: unnamed body: mass must be positive (got 0): the body has joints and "
            "nothing below it carries mass\nwarnings before the error:\n"
            "  bad.xml:2: iterations 0: the constraint solver does not run, so limits, contacts, "
            "friction loss and soft equalities carry no force (MuJoCo's meaning); hard rows still "
            "hold\n"
            "  bad.xml:7: element <foo> is not supported; ignored");
}

// repeated warnings of one kind are one line with their count and the last place
TEST(MjcfOptionWarnings, OneLinePerKind) {
  std::string xml = "<mujoco>\n<worldbody>\n";
  for (int i = 0; i < 5; ++i)
    xml += "<body><joint springdamper=\"1 1\"/><geom size=\"0.1\"/></body>\n";
  xml += "</worldbody>\n<option><flag energy=\"enable\" sleep=\"enable\"/></option>\n</mujoco>\n";
  const std::vector<std::string> w = zwang::load_mjcf_string(xml, "w.xml", {}, kMujoco2).warnings;
  const std::vector<std::string> expected = {
      "w.xml:9: flag energy: zwang records no energy in its outputs (mjData.energy has no "
      "counterpart)",
      "w.xml:9: flag sleep: zwang keeps every body awake; MuJoCo would freeze bodies at rest",
      "w.xml:3: attribute 'springdamper' of <joint> is not supported; ignored (5 places, the "
      "last at w.xml:7)"};
  EXPECT_EQ(w, expected) << fmt::format("{}", fmt::join(w, "\n"));
  // flags that change nothing zwang computes are accepted without a word
  EXPECT_EQ(zwang::load_mjcf_string(body("",
                                         "<option><flag warmstart=\"disable\" "
                                         "midphase=\"disable\" island=\"disable\" "
                                         "autoreset=\"disable\" invdiscrete=\"enable\" "
                                         "sensor=\"disable\"/></option>"),
                                    "w.xml", {}, kMujoco2)
                .warnings,
            std::vector<std::string>{});
}

}  // namespace
}  // namespace zwang::test
