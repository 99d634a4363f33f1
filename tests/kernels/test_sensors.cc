// Sensors against MuJoCo 2.2.2: the same MJCF compiled by both, the sensors' sizes, addresses
// and objects, then sensordata at random states, controls, times and applied wrenches after
// zwang's forward() and MuJoCo's mj_forward (every sensor type zwang computes, on hinge, slide,
// ball and free joints, in world and reference frames, with cutoffs), and after one step of
// each integrator (the state the step started from, as mj_step leaves sensordata).  Limit
// sensors with MuJoCo's constraint solver on.  The loader's warnings and errors, the builder's
// and Model::validate's checks.
//
// Tolerance: |zwang − MuJoCo| ≤ 1e-12 max(1, max |MuJoCo|) per sensor in float64 (the same
// formulas in other frames: rounding), 1e-10 where the constraint solvers meet (limit sensors,
// as tests/kernels/test_constraints.cc), 2e-4 in float32.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <mujoco/mujoco.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "mujoco_util.h"
#include "sensor_models.h"
#include "zwang/builder.hpp"
#include "zwang/loaders.hpp"
#include "zwang/model.hpp"
#include "zwang/simulator.hpp"

namespace zwang::test {
namespace {

constexpr double kTol = 1e-12;
constexpr int kStates = 16;

void expect_same_sensors(const Model& z, const mjModel* m) {
  ASSERT_EQ(z.nsensor, m->nsensor);
  ASSERT_EQ(z.nsensordata, m->nsensordata);
  for (int s = 0; s < z.nsensor; ++s) {
    const std::string where = fmt::format("sensor {} '{}'", s, z.sensor_name[s]);
    if (const char* name = mj_id2name(m, mjOBJ_SENSOR, s)) {
      EXPECT_EQ(z.sensor_name[s], name);
    }
    EXPECT_EQ(z.sensor_adr[s], m->sensor_adr[s]) << where;
    EXPECT_EQ(z.sensor_dim[s], m->sensor_dim[s]) << where;
    EXPECT_EQ(static_cast<int>(z.sensor_datatype[s]), m->sensor_datatype[s]) << where;
    EXPECT_DOUBLE_EQ(z.sensor_cutoff[s], m->sensor_cutoff[s]) << where;
    EXPECT_DOUBLE_EQ(z.sensor_noise[s], m->sensor_noise[s]) << where;
    EXPECT_EQ(static_cast<int>(z.sensor_type[s]), m->sensor_type[s]) << where;
    if (z.sensor_type[s] == SensorType::kUser) continue;
    EXPECT_EQ(z.sensor_objid[s], m->sensor_objid[s]) << where;
    EXPECT_EQ(z.sensor_refid[s], m->sensor_refid[s]) << where;
    if (z.sensor_objtype[s] != ObjType::kUnknown) {
      EXPECT_EQ(static_cast<int>(z.sensor_objtype[s]), m->sensor_objtype[s]) << where;
    }
  }
}

struct Inputs {
  std::vector<State> states;
  std::vector<double> time;
  std::vector<std::vector<double>> xfrc;
};

// random states (mujoco_util.h), times in [0, 1) and wrenches N(0, 1) on every body but the world
Inputs random_inputs(const Model& z, std::uint64_t seed) {
  Inputs in{random_states(z, kStates, seed), {}, {}};
  std::mt19937_64 rng(seed + 1);
  std::uniform_real_distribution<double> unit(0, 1);
  std::normal_distribution<double> normal(0, 1);
  for (int i = 0; i < kStates; ++i) {
    in.time.push_back(unit(rng));
    std::vector<double> w(6 * z.nbody, 0.0);
    for (int k = 6; k < 6 * z.nbody; ++k) w[k] = normal(rng);
    in.xfrc.push_back(std::move(w));
  }
  return in;
}

template <class T>
std::unique_ptr<Simulator<T>> make_simulator(const Model& z, const Inputs& in) {
  auto sim = std::make_unique<Simulator<T>>(z, kStates);
  Batch<T>& b = sim->batch();
  for (int i = 0; i < kStates; ++i) {
    const State& s = in.states[i];
    b.qpos().set(i, std::vector<T>(s.qpos.begin(), s.qpos.end()));
    b.qvel().set(i, std::vector<T>(s.qvel.begin(), s.qvel.end()));
    b.ctrl().set(i, std::vector<T>(s.ctrl.begin(), s.ctrl.end()));
    b.xfrc_applied().set(i, std::vector<T>(in.xfrc[i].begin(), in.xfrc[i].end()));
    b.time()[i] = in.time[i];
    b.sensordata().set(i, std::vector<T>(z.nsensordata, std::numeric_limits<T>::quiet_NaN()));
  }
  return sim;
}

void set_inputs(const mjModel* m, mjData* d, const Inputs& in, int i) {
  set_state(m, d, in.states[i]);
  d->time = in.time[i];
  std::copy(in.xfrc[i].begin(), in.xfrc[i].end(), d->xfrc_applied);
}

// every sensor but the user's (which zwang never writes) of instance i
template <class T>
void compare_sensors(Comparison& cmp, const std::string& stage, const Model& z, mjData* d,
                     const Batch<T>& b, int i, double tol) {
  const std::vector<T> got = b.sensordata().get(i);
  const std::vector<double> data(got.begin(), got.end());
  for (int s = 0; s < z.nsensor; ++s) {
    if (z.sensor_type[s] == SensorType::kUser) continue;
    SCOPED_TRACE(fmt::format("sensor {} '{}'", s, z.sensor_name[s]));
    const auto first = data.begin() + z.sensor_adr[s];
    const std::vector<double> zw(first, first + z.sensor_dim[s]);
    const std::string quantity = fmt::format("{} {}", stage, to_string(z.sensor_type[s]));
    cmp.check(quantity, i, zw, view(d->sensordata + z.sensor_adr[s], z.sensor_dim[s]), tol);
  }
}

TEST(Sensors, EveryTypeAgainstMuJoCo) {
  const LoadResult loaded = load_mjcf_string(kSensorModel, "sensors.xml", {}, kMujoco2);
  const Model& z = loaded.model;
  std::string error;
  const MjModelPtr m = load_mujoco_string(kSensorModel, "sensors.xml", &error);
  ASSERT_TRUE(m) << error;
  ASSERT_NO_FATAL_FAILURE(expect_same_tree(z, m.get()));
  ASSERT_NO_FATAL_FAILURE(expect_same_sensors(z, m.get()));
  EXPECT_EQ(z.magnetic, (Vec3d{0.1, -0.4, 0.3}));
  // the user sensor is the only warning
  ASSERT_EQ(loaded.warnings.size(), 1u);
  EXPECT_NE(loaded.warnings[0].find("user sensor"), std::string::npos) << loaded.warnings[0];

  const Inputs in = random_inputs(z, 3);
  const auto sim = make_simulator<double>(z, in);
  sim->forward();
  ASSERT_TRUE(sim->failures().empty());
  const MjDataPtr d(mj_makeData(m.get()));
  Comparison cmp("sensors forward");
  int clamped = 0;
  for (int i = 0; i < kStates; ++i) {
    set_inputs(m.get(), d.get(), in, i);
    mj_forward(m.get(), d.get());
    ASSERT_NO_FATAL_FAILURE(
        compare_sensors(cmp, "forward", z, d.get(), std::as_const(sim->batch()), i, kTol));
    const int clock = z.sensor_adr[z.id(ObjType::kSensor, "clock")];
    clamped += d->sensordata[clock] == 0.8 && in.time[i] > 0.8;
  }
  // the clock's cutoff acted on some states
  EXPECT_GT(clamped, 0);
}

// with gravity off the accelerometers and the force sensors lose −g (MuJoCo's world acceleration
// is then 0); with sensors off sensordata is left as it was
TEST(Sensors, GravityAndSensorFlagsAsMuJoCo) {
  std::string xml = kSensorModel;
  const std::string flag = "<flag contact=\"disable\"/>";
  ASSERT_NE(xml.find(flag), std::string::npos);
  xml.replace(xml.find(flag), flag.size(), "<flag contact=\"disable\" gravity=\"disable\"/>");
  const Model z = load_mjcf_string(xml, "sensors_nogravity.xml", {}, kMujoco2).model;
  std::string error;
  const MjModelPtr m = load_mujoco_string(xml, "sensors_nogravity.xml", &error);
  ASSERT_TRUE(m) << error;
  ASSERT_NE(m->opt.disableflags & mjDSBL_GRAVITY, 0);
  const Inputs in = random_inputs(z, 5);
  const auto sim = make_simulator<double>(z, in);
  sim->forward();
  ASSERT_TRUE(sim->failures().empty());
  const MjDataPtr d(mj_makeData(m.get()));
  Comparison cmp("sensors without gravity");
  for (int i = 0; i < kStates; ++i) {
    set_inputs(m.get(), d.get(), in, i);
    mj_forward(m.get(), d.get());
    ASSERT_NO_FATAL_FAILURE(
        compare_sensors(cmp, "forward", z, d.get(), std::as_const(sim->batch()), i, kTol));
  }

  const std::string gravity_off = "gravity=\"disable\"";
  xml.replace(xml.find(gravity_off), gravity_off.size(), "sensor=\"disable\"");
  const Model off = load_mjcf_string(xml, "sensors_off.xml", {}, kMujoco2).model;
  const auto quiet = make_simulator<double>(off, in);
  for (int i = 0; i < kStates; ++i) {
    quiet->batch().sensordata().set(i, std::vector<double>(off.nsensordata, 7.0));
  }
  quiet->forward();
  quiet->step(2);
  ASSERT_TRUE(quiet->failures().empty());
  for (int i = 0; i < kStates; ++i) {
    for (const double v : quiet->batch().sensordata().get(i)) EXPECT_EQ(v, 7.0) << "instance " << i;
  }
}

// after step() the sensors describe the state the step started from, as after MuJoCo's mj_step
// (Euler: mj_forward's sensors before the update; RK4: its first stage's)
TEST(Sensors, AfterAStepAsMuJoCosStep) {
  for (const bool rk4 : {false, true}) {
    LoadResult loaded = load_mjcf_string(kSensorModel, "sensors.xml", {}, kMujoco2);
    Model& z = loaded.model;
    std::string error;
    const MjModelPtr m = load_mujoco_string(kSensorModel, "sensors.xml", &error);
    ASSERT_TRUE(m) << error;
    if (rk4) {
      z.integrator = Integrator::kRK4;
      m->opt.integrator = mjINT_RK4;
    }
    const Inputs in = random_inputs(z, 4);
    const auto sim = make_simulator<double>(z, in);
    sim->step(1);
    ASSERT_TRUE(sim->failures().empty());
    const MjDataPtr d(mj_makeData(m.get()));
    Comparison cmp(rk4 ? "sensors RK4 step" : "sensors Euler step");
    for (int i = 0; i < kStates; ++i) {
      set_inputs(m.get(), d.get(), in, i);
      mj_step(m.get(), d.get());
      ASSERT_NO_FATAL_FAILURE(
          compare_sensors(cmp, "step", z, d.get(), std::as_const(sim->batch()), i, kTol));
      EXPECT_EQ(sim->batch().time()[i], d->time);
    }
  }
}

TEST(Sensors, Float32) {
  const Model z = load_mjcf_string(kSensorModel, "sensors.xml", {}, kMujoco2).model;
  std::string error;
  const MjModelPtr m = load_mujoco_string(kSensorModel, "sensors.xml", &error);
  ASSERT_TRUE(m) << error;
  const Inputs in = random_inputs(z, 5);
  const auto sim = make_simulator<float>(z, in);
  sim->forward();
  const MjDataPtr d(mj_makeData(m.get()));
  Comparison cmp("sensors float32");
  for (int i = 0; i < kStates; ++i) {
    set_inputs(m.get(), d.get(), in, i);
    mj_forward(m.get(), d.get());
    ASSERT_NO_FATAL_FAILURE(
        compare_sensors(cmp, "forward", z, d.get(), std::as_const(sim->batch()), i, 2e-4));
  }
}

// jointlimitpos, jointlimitvel, jointlimitfrc and a clamped actuator force with MuJoCo's
// constraint solver, at states beyond the limits and inside them
TEST(Sensors, JointLimitsAgainstMuJoCo) {
  Model z = load_mjcf_string(kLimitSensorModel, "limits.xml", {}, kMujoco2).model;
  z.tolerance = 1e-13;
  std::string error;
  const MjModelPtr m = load_mujoco_string(kLimitSensorModel, "limits.xml", &error);
  ASSERT_TRUE(m) << error;
  m->opt.disableflags &= ~mjDSBL_CONSTRAINT;
  m->opt.solver = mjSOL_NEWTON;
  m->opt.iterations = 1000;
  m->opt.tolerance = 1e-15;
  ASSERT_NO_FATAL_FAILURE(expect_same_sensors(z, m.get()));
  // hinge angles over ±π and slides over ±0.3: most beyond the limits
  const Inputs in = random_inputs(z, 6);
  const auto sim = make_simulator<double>(z, in);
  sim->forward();
  for (const auto& f : sim->failures()) ADD_FAILURE() << f.message();
  const MjDataPtr d(mj_makeData(m.get()));
  Comparison cmp("limit sensors");
  int active = 0, inactive = 0;
  for (int i = 0; i < kStates; ++i) {
    set_inputs(m.get(), d.get(), in, i);
    mj_forward(m.get(), d.get());
    ASSERT_NO_FATAL_FAILURE(
        compare_sensors(cmp, "forward", z, d.get(), std::as_const(sim->batch()), i, 1e-10));
    for (int s = 0; s < 9; s += 3) (d->sensordata[s] != 0 ? active : inactive)++;
  }
  EXPECT_GT(active, 0);
  EXPECT_GT(inactive, 0);
}

// tests/sensor_models.h's touch sensors at states of a MuJoCo rollout of the bodies falling and
// settling, both constraint solvers tight
TEST(Sensors, TouchAgainstMuJoCo) {
  Model z = load_mjcf_string(kTouchModel, "touch.xml", {}, kMujoco2).model;
  z.tolerance = 1e-13;
  z.iterations = 200;
  std::string error;
  const MjModelPtr m = load_mujoco_string(kTouchModel, "touch.xml", &error);
  ASSERT_TRUE(m) << error;
  m->opt.disableflags &= ~mjDSBL_CONSTRAINT;
  m->opt.solver = mjSOL_NEWTON;
  m->opt.iterations = 1000;
  m->opt.tolerance = 1e-15;
  ASSERT_NO_FATAL_FAILURE(expect_same_sensors(z, m.get()));
  for (int s = 0; s < z.nsite; ++s) {
    EXPECT_EQ(z.site_type[s], m->site_type[s]) << s;
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(z.site_size[3 * s + k], m->site_size[3 * s + k], 1e-15);
  }
  // the bodies fall, the ball onto the box, and settle
  const MjDataPtr d(mj_makeData(m.get()));
  Inputs in;
  for (int step = 1; step <= 400; ++step) {
    mj_step(m.get(), d.get());
    if (step % 25 == 0) {
      in.states.push_back({std::vector<double>(d->qpos, d->qpos + m->nq),
                           std::vector<double>(d->qvel, d->qvel + m->nv),
                           {}});
      in.time.push_back(d->time);
      in.xfrc.push_back(std::vector<double>(6 * z.nbody, 0.0));
    }
  }
  const int n = static_cast<int>(in.states.size());
  auto sim = std::make_unique<Simulator<double>>(z, n);
  for (int i = 0; i < n; ++i) {
    sim->batch().qpos().set(i, in.states[i].qpos);
    sim->batch().qvel().set(i, in.states[i].qvel);
  }
  sim->forward();
  for (const auto& f : sim->failures()) ADD_FAILURE() << f.message();
  Comparison cmp("touch");
  std::vector<int> touched(z.nsensor, 0);
  for (int i = 0; i < n; ++i) {
    set_inputs(m.get(), d.get(), in, i);
    mj_forward(m.get(), d.get());
    ASSERT_EQ(sim->batch().ncon()(i, 0), d->ncon) << "state " << i;
    ASSERT_NO_FATAL_FAILURE(
        compare_sensors(cmp, "forward", z, d.get(), std::as_const(sim->batch()), i, 1e-9));
    for (int s = 0; s < z.nsensor; ++s) touched[s] += d->sensordata[s] > 0;
  }
  // every zone but `away` (above the bottom face) counted some contact, `away` none
  for (int s = 0; s < z.nsensor; ++s) {
    if (z.sensor_objid[s] == z.id(ObjType::kSite, "away")) {
      EXPECT_EQ(touched[s], 0);
    } else {
      EXPECT_GT(touched[s], 0) << z.sensor_name[s] << " site " << z.sensor_objid[s];
    }
  }
}

// tests/sensor_models.h's rangefinders at random poses of their body and of the hinge
TEST(Sensors, RangefinderAgainstMuJoCo) {
  const Model z = load_mjcf_string(kRangefinderModel, "rangefinder.xml", {}, kMujoco2).model;
  std::string error;
  const MjModelPtr m = load_mujoco_string(kRangefinderModel, "rangefinder.xml", &error);
  ASSERT_TRUE(m) << error;
  ASSERT_NO_FATAL_FAILURE(expect_same_sensors(z, m.get()));
  ASSERT_EQ(z.ngeom, m->ngeom);
  constexpr int kPoses = 64;
  Inputs in{random_states(z, kPoses, 11), std::vector<double>(kPoses, 0.0),
            std::vector<std::vector<double>>(kPoses, std::vector<double>(6 * z.nbody, 0.0))};
  Simulator<double> sim(z, kPoses);
  for (int i = 0; i < kPoses; ++i) {
    sim.batch().qpos().set(i, in.states[i].qpos);
    sim.batch().qvel().set(i, in.states[i].qvel);
  }
  sim.forward();
  ASSERT_TRUE(sim.failures().empty());
  const MjDataPtr d(mj_makeData(m.get()));
  Comparison cmp("rangefinder");
  std::vector<int> seen(m->ngeom, 0);
  int misses = 0;
  for (int i = 0; i < kPoses; ++i) {
    set_inputs(m.get(), d.get(), in, i);
    mj_forward(m.get(), d.get());
    ASSERT_NO_FATAL_FAILURE(
        compare_sensors(cmp, "forward", z, d.get(), std::as_const(sim.batch()), i, kTol));
    // which geom each ray met, as MuJoCo's mj_ray says
    for (int s = 0; s < z.nsensor; ++s) {
      const int site = z.sensor_objid[s];
      const double* x = d->site_xmat + 9 * site;
      const double vec[3] = {x[2], x[5], x[8]};
      int geom = -1;
      mj_ray(m.get(), d.get(), d->site_xpos + 3 * site, vec, nullptr, 1, m->site_bodyid[site],
             &geom);
      (geom < 0 ? misses : seen[geom])++;
    }
  }
  // every visible geom of another body was met, the invisible ones never, and some rays missed
  for (int g = 0; g < m->ngeom; ++g) {
    const std::string name =
        mj_id2name(m.get(), mjOBJ_GEOM, g) ? mj_id2name(m.get(), mjOBJ_GEOM, g) : "";
    if (name == "ghost" || name == "window" ||
        m->geom_bodyid[g] == z.id(ObjType::kBody, "scanner")) {
      EXPECT_EQ(seen[g], 0) << "geom " << g << " " << name;
    } else {
      EXPECT_GT(seen[g], 0) << "geom " << g << " " << name;
    }
  }
  EXPECT_GT(misses, 0);
}

// a positive user sensor clamped by its cutoff (MuJoCo clamps after its callback); a real one
// on both sides
TEST(Sensors, CutoffOfUserValues) {
  const char* xml = R"(<mujoco><worldbody><body><joint/><geom size="0.1"/></body></worldbody>
    <sensor>
      <user objtype="body" objname="world" dim="2" needstage="pos" datatype="positive" cutoff="1"/>
      <user objtype="body" objname="world" dim="1" needstage="pos" datatype="real" cutoff="1"/>
    </sensor></mujoco>)";
  const Model z = load_mjcf_string(xml, "user.xml", {}, kMujoco2).model;
  ASSERT_EQ(z.nsensordata, 3);
  Simulator<double> sim(z, 2);
  sim.batch().sensordata().set(0, std::vector<double>{3, -3, -3});
  sim.batch().sensordata().set(1, std::vector<double>{0.5, 0.25, 2});
  sim.forward();
  EXPECT_EQ(sim.batch().sensordata().get(0), (std::vector<double>{1, -3, -1}));
  EXPECT_EQ(sim.batch().sensordata().get(1), (std::vector<double>{0.5, 0.25, 1}));
}

std::string load_error(const std::string& sensors, const std::string& extra = "") {
  const std::string xml = fmt::format(
      R"(<mujoco><worldbody><body name="b"><joint name="h"/><joint name="s" type="slide"/>
      <geom name="g" size="0.1"/><site name="site"/>
      <body name="c"><joint name="ball" type="ball"/><geom size="0.1"/></body></body>
      </worldbody>{}<sensor>{}</sensor></mujoco>)",
      extra, sensors);
  try {
    load_mjcf_string(xml, "bad.xml", {}, kMujoco2);
  } catch (const ModelError& e) {
    return e.what();
  }
  return "no error";
}

std::vector<std::string> load_warnings(const std::string& sensors, Model* out = nullptr) {
  const std::string xml = fmt::format(
      R"(<mujoco><worldbody><body name="b"><joint name="h"/><geom name="g" size="0.1"/>
      <site name="site"/><camera name="cam"/></body></worldbody>
      <tendon><fixed name="t" limited="true" range="-1 1"><joint joint="h" coef="1"/></fixed>
      </tendon><sensor>{}</sensor></mujoco>)",
      sensors);
  LoadResult r = load_mjcf_string(xml, "warn.xml", {}, kMujoco2);
  if (out) *out = r.model;
  return r.warnings;
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(Sensors, LoaderErrorsNameTheLine) {
  EXPECT_TRUE(has(load_error("\n<jointpos joint=\"ball\"/>"), "bad.xml:5"));
  EXPECT_TRUE(has(load_error("<jointpos joint=\"ball\"/>"), "needs a hinge or a slide"));
  EXPECT_TRUE(has(load_error("<ballquat joint=\"h\"/>"), "needs a ball joint"));
  EXPECT_TRUE(has(load_error("<jointlimitpos joint=\"h\"/>"), "is not limited"));
  EXPECT_TRUE(has(load_error("<gyro site=\"nosite\"/>"), "no site named 'nosite'"));
  EXPECT_TRUE(has(load_error("<gyro/>"), "needs the attribute 'site'"));
  EXPECT_TRUE(has(load_error("<framepos objname=\"b\"/>"), "needs the attribute 'objtype'"));
  EXPECT_TRUE(has(load_error("<framepos objtype=\"joint\" objname=\"h\"/>"), "is not one of"));
  EXPECT_TRUE(has(load_error("<framepos objtype=\"geom\" objname=\"b\"/>"), "no geom named 'b'"));
  EXPECT_TRUE(has(load_error("<framepos objtype=\"site\" objname=\"site\" refname=\"b\"/>"),
                  "reftype is missing"));
  EXPECT_TRUE(has(load_error("<framequat objtype=\"site\" objname=\"site\" cutoff=\"1\"/>"),
                  "cutoff does not apply"));
  EXPECT_TRUE(has(load_error("<clock cutoff=\"-1\"/>"), "cutoff must be finite and >= 0"));
  EXPECT_TRUE(has(load_error("<clock noise=\"-1\"/>"), "noise must be finite and >= 0"));
  EXPECT_TRUE(has(load_error("<clock name=\"x\"/><clock name=\"x\"/>"), "exists already"));
  EXPECT_TRUE(has(load_error("<camprojection site=\"site\"/>"), "not a sensor of MuJoCo 2.2.2"));
  EXPECT_TRUE(has(load_error("<user objtype=\"body\" objname=\"b\" dim=\"2\" needstage=\"pos\" "
                             "datatype=\"axis\"/>"),
                  "datatype axis needs dim 3"));
  EXPECT_TRUE(has(load_error("", "<option magnetic=\"0 1\"/>"), "attribute 'magnetic'"));
}

TEST(Sensors, SensorsZwangDoesNotComputeKeepTheirPlace) {
  Model z;
  const std::vector<std::string> w = load_warnings(
      "<touch site=\"site\"/><rangefinder site=\"site\"/><rangefinder site=\"site\"/>"
      "<framepos objtype=\"camera\" objname=\"cam\"/>"
      "<framequat objtype=\"body\" objname=\"b\"/>"
      "<framepos objtype=\"site\" objname=\"site\" reftype=\"body\" refname=\"b\"/>"
      "<framepos objtype=\"body\" objname=\"b\"/><clock/>",
      &z);
  std::string all;
  for (const std::string& s : w) all += s + "\n";
  EXPECT_FALSE(has(all, "touch")) << all;
  EXPECT_FALSE(has(all, "rangefinder")) << all;
  EXPECT_TRUE(has(all, "cameras are not part of zwang's models")) << all;
  EXPECT_TRUE(has(all, "principal axes of inertia")) << all;
  EXPECT_TRUE(has(all, "its 4 values in sensordata stay 0")) << all;
  EXPECT_TRUE(has(all, "warn.xml:4")) << all;
  ASSERT_EQ(z.nsensor, 8);
  // MuJoCo's sizes and addresses: touch 1, rangefinder 1, rangefinder 1, framepos 3,
  // framequat 4, framepos 3, framepos 3, clock 1
  EXPECT_EQ(z.sensor_adr, (std::vector<int>{0, 1, 2, 3, 6, 10, 13, 16}));
  EXPECT_EQ(z.nsensordata, 17);
  // touch and rangefinder are computed (0 without contacts, −1 without geoms in the way)
  EXPECT_EQ(z.sensor_type[0], SensorType::kTouch);
  EXPECT_EQ(z.sensor_type[1], SensorType::kRangefinder);
  EXPECT_EQ(z.sensor_type[2], SensorType::kRangefinder);
  for (int s = 3; s < 6; ++s) EXPECT_EQ(z.sensor_type[s], SensorType::kUser);
  EXPECT_EQ(z.sensor_type[6], SensorType::kFramePos);
  EXPECT_EQ(z.sensor_type[7], SensorType::kClock);
  EXPECT_EQ(z.sensor_datatype[0], SensorDataType::kPositive);
  EXPECT_EQ(z.sensor_datatype[4], SensorDataType::kQuaternion);
  // the placeholders stay 0, the others are computed
  Simulator<double> sim(z, 1);
  sim.batch().time()[0] = 0.25;
  sim.forward();
  const std::vector<double> v = sim.batch().sensordata().get(0);
  // the rangefinders' rays meet nothing but their own body's geom, which they pass through
  EXPECT_EQ(v[1], -1.0);
  EXPECT_EQ(v[2], -1.0);
  for (int k = 0; k < 13; ++k) {
    if (k != 1 && k != 2) {
      EXPECT_EQ(v[k], 0.0) << k;
    }
  }
  EXPECT_EQ(v[16], 0.25);
}

// a geom's material must exist; rangefinders in a model with mesh geoms are told that the rays
// meet the hulls
TEST(Sensors, RangefinderMaterialsAndMeshes) {
  const char* unknown = R"(<mujoco><worldbody>
    <geom size="0.1" material="nope"/></worldbody></mujoco>)";
  EXPECT_THROW(
      {
        try {
          load_mjcf_string(unknown, "material.xml", {}, kMujoco2);
        } catch (const ModelError& e) {
          EXPECT_TRUE(has(e.what(), "material.xml:2")) << e.what();
          EXPECT_TRUE(has(e.what(), "material 'nope' is not defined")) << e.what();
          throw;
        }
      },
      ModelError);
  const char* meshes = R"(<mujoco><asset><mesh name="t" vertex="0 0 0 1 0 0 0 1 0 0 0 1"/>
    </asset><worldbody><geom type="mesh" mesh="t"/><body><freejoint/><geom size="0.1"/>
    <site name="s"/></body></worldbody>
    <sensor><rangefinder site="s"/></sensor></mujoco>)";
  const LoadResult r = load_mjcf_string(meshes, "meshes.xml", {}, kMujoco2);
  std::string all;
  for (const std::string& w : r.warnings) all += w + "\n";
  EXPECT_TRUE(
      has(all, "meshes.xml:4: rangefinder rays meet the model's 1 mesh geom as convex hulls"))
      << all;
}

TEST(Sensors, BuilderAndValidate) {
  ModelBuilder b;
  b.add_body({.name = "a", .mass = 1, .inertia = {0.1, 0.1, 0.1, 0, 0, 0}});
  b.add_joint("a", {.name = "h"});
  b.add_site({.name = "s", .body = "a"});
  // a touch sensor's zone: a sphere, capsule, ellipsoid, cylinder or box of positive size
  EXPECT_THROW(b.add_site({.name = "p", .body = "a", .type = GeomType::kPlane}), ModelError);
  EXPECT_THROW(b.add_site({.name = "p", .body = "a", .size = {0, 1, 1}}), ModelError);
  EXPECT_THROW(b.add_site({.name = "p", .body = "a", .size = {0.1, NAN, 1}}), ModelError);
  // a frame sensor of a camera: not computed, refused
  EXPECT_THROW(b.add_sensor({.name = "x",
                             .type = SensorType::kFramePos,
                             .objtype = ObjType::kCamera,
                             .objname = "s"}),
               ModelError);
  EXPECT_THROW(b.add_sensor({.name = "x", .type = SensorType::kGyro, .objname = "nosite"}),
               ModelError);
  EXPECT_THROW(
      b.add_sensor(
          {.name = "x", .type = SensorType::kGyro, .objtype = ObjType::kJoint, .objname = "h"}),
      ModelError);
  EXPECT_THROW(b.add_sensor({.name = "x",
                             .type = SensorType::kFrameLinAcc,
                             .objtype = ObjType::kSite,
                             .objname = "s",
                             .reftype = ObjType::kXBody,
                             .refname = "a"}),
               ModelError);
  EXPECT_THROW(b.add_sensor({.name = "x", .type = SensorType::kClock, .objname = "s"}), ModelError);
  b.add_sensor({.name = "", .type = SensorType::kGyro, .objname = "s"});
  b.add_sensor({.name = "q", .type = SensorType::kJointPos, .objname = "h", .cutoff = 0.1});
  b.add_sensor({.name = "",
                .type = SensorType::kFrameQuat,
                .objtype = ObjType::kSite,
                .objname = "s",
                .reftype = ObjType::kXBody,
                .refname = "world"});
  Model m = b.build();
  EXPECT_EQ(m.nsensor, 3);
  EXPECT_EQ(m.sensor_name[0], "sensor0");
  EXPECT_EQ(m.id(ObjType::kSensor, "q"), 1);
  EXPECT_EQ(m.sensor_adr, (std::vector<int>{0, 3, 4}));
  EXPECT_EQ(m.nsensordata, 8);
  EXPECT_EQ(m.sizes().nsensordata, 8);
  EXPECT_EQ(m.sensor_objtype[0], ObjType::kSite);
  EXPECT_EQ(m.sensor_refid[2], 0);
  m.validate();
  Model bad = m;
  bad.sensor_adr[2] = 5;
  EXPECT_THROW(bad.validate(), ModelError);
  bad = m;
  bad.sensor_objid[1] = 3;
  EXPECT_THROW(bad.validate(), ModelError);
  bad = m;
  bad.sensor_dim[0] = 4;
  EXPECT_THROW(bad.validate(), ModelError);
  bad = m;
  bad.sensor_type[0] = SensorType::kRangefinder;
  EXPECT_THROW(bad.validate(), ModelError);
  bad = m;
  bad.sensor_cutoff.pop_back();
  EXPECT_THROW(bad.validate(), ModelError);
  bad = m;
  bad.nsensordata = 9;
  EXPECT_THROW(bad.validate(), ModelError);
  bad = m;
  bad.sensor_refid[2] = 7;
  EXPECT_THROW(bad.validate(), ModelError);
}

}  // namespace
}  // namespace zwang::test
