// The models on which two backends must agree instance by instance: the built-in examples, a
// spatial rod chain, MuJoCo's humanoid.xml with and without its contacts and limits, a four-bar
// closed by soft and by hard rows, every sensor type, tendons, actuator dynamics, fluid forces,
// mesh objects on a floor; each again under RK4, eleven of them under implicitfast and six under
// implicit.  Shared by test_simd.cc (SIMD against scalar) and test_cuda.cc (CUDA against CPU).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "actuator_models.h"
#include "data_dir.h"
#include "sensor_models.h"
#include "tendon_models.h"
#include "test_util.h"
#include "zwang/examples.hpp"
#include "zwang/loaders.hpp"
#include "zwang/model.hpp"
#include "zwang/simulator.hpp"

namespace zwang::test {

inline std::filesystem::path model_cases_dir() {
  return data_dir();
}

// MuJoCo's humanoid.xml from Debian's libmujoco-samples, or the file ZWANG_HUMANOID_XML names
// (a GPU machine without the package gets it with the bundle of scripts/gpu_bundle.sh)
inline std::filesystem::path humanoid_xml() {
  const char* file = std::getenv("ZWANG_HUMANOID_XML");
  return file != nullptr ? std::filesystem::path(file)
                         : std::filesystem::path("/usr/share/mujoco/model/humanoid/humanoid.xml");
}

inline std::string read_model_text(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

struct ModelCase {
  std::string name;
  Model model;
};

// fluid forces: inertia boxes (a massless body among them) and, on the first tree and a free
// body, the ellipsoid model; {ellipsoid} is fluidshape's value
inline constexpr const char* kFluidModel = R"(<mujoco model="fluid">
  <option density="800" viscosity="0.3" wind="0.5 -0.2 0.1"/>
  <default><geom contype="0" conaffinity="0"/></default>
  <worldbody>
    <body name="fish" pos="0 0 1">
      <freejoint/>
      <geom type="ellipsoid" size="0.3 0.1 0.05" fluidshape="{ellipsoid}"/>
      <body name="fin" pos="0.1 0.1 0">
        <joint axis="1 0 0" damping="0.01"/>
        <geom type="capsule" fromto="0 0 0 0 0.2 0" size="0.02" fluidshape="{ellipsoid}"
              fluidcoef="0.6 0.2 1.6 0.8 1.3"/>
      </body>
    </body>
    <body name="rod" pos="1 0 1">
      <joint axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0.6 0.1 0" size="0.05"/>
      <body name="plate" pos="0.6 0.1 0">
        <joint type="ball"/>
        <geom type="box" size="0.2 0.1 0.02" pos="0.2 0 0" euler="10 20 30"/>
        <body name="ghost" pos="0.1 0 0"><site name="s"/></body>
      </body>
    </body>
    <body name="float" pos="-1 0 1" euler="10 20 30">
      <freejoint/>
      <geom type="box" size="0.1 0.05 0.02" fluidshape="{ellipsoid}"/>
    </body>
  </worldbody>
</mujoco>)";

// mesh objects over a tilted floor (plane–mesh contacts): a box, a wedge and an irregular gem,
// each on a slide and two hinges, so that the random states put about a third of them on the
// floor; and a probe of a sphere, a capsule, a box and a mesh over a mesh slab (GJK, EPA and the
// multi-contact step)
inline constexpr const char* kMeshObjects = R"(<mujoco model="mesh_objects">
  <asset>
    <mesh name="box" vertex="-0.1 -0.08 -0.05  0.1 -0.08 -0.05  -0.1 0.08 -0.05  0.1 0.08 -0.05
                              -0.1 -0.08 0.05  0.1 -0.08 0.05  -0.1 0.08 0.05  0.1 0.08 0.05"/>
    <mesh name="wedge" inertia="legacy"
          vertex="0 0 0  0.2 0 0  0 0.1 0  0 0 0.08  0.2 0 0.08  0 0.1 0.08"/>
    <mesh name="slab" vertex="-0.25 -0.2 -0.05  0.25 -0.2 -0.05  -0.25 0.2 -0.05  0.25 0.2 -0.05
                               -0.25 -0.2 0.05  0.25 -0.2 0.05  -0.25 0.2 0.05  0.25 0.2 0.05"/>
    <mesh name="gem" inertia="legacy"
          vertex="0.07 0.01 -0.02  -0.05 0.04 0.03  0.02 -0.06 0.04  -0.03 -0.02 -0.05
                  0.01 0.05 -0.04  0.06 -0.03 0.02  -0.07 -0.01 0.0  0.0 0.02 0.06
                  0.03 0.03 0.03  -0.02 -0.05 -0.02"/>
  </asset>
  <worldbody>
    <geom name="floor" type="plane" size="2 2 0.1" euler="5 -4 0"/>
    <body name="box" pos="-0.4 0 0.3">
      <joint type="slide" axis="0 0 1"/><joint axis="1 0 0"/><joint axis="0 1 0"/>
      <geom type="mesh" mesh="box"/>
    </body>
    <body name="wedge" pos="0 0 0.3">
      <joint type="slide" axis="0 0 1"/><joint axis="1 0 0"/><joint axis="0 1 0"/>
      <geom type="mesh" mesh="wedge" margin="0.01"/>
    </body>
    <body name="gem" pos="0.4 0 0.3">
      <joint type="slide" axis="0 0 1"/><joint axis="1 0 0"/><joint axis="0 1 0"/>
      <geom type="mesh" mesh="gem" condim="6"/>
    </body>
    <geom name="slab" type="mesh" mesh="slab" pos="0.9 0 0.05"/>
    <body name="probe" pos="0.9 0 0.35">
      <joint type="slide" axis="0 0 1"/><joint axis="1 0 0"/><joint axis="0 1 0"/>
      <geom type="sphere" size="0.04" pos="-0.12 0 0"/>
      <geom type="capsule" fromto="-0.05 -0.1 0 -0.05 0.1 0" size="0.03"/>
      <geom type="box" size="0.03 0.05 0.04" pos="0.04 0 0"/>
      <geom type="mesh" mesh="box" pos="0.14 0 0" euler="0 0 30"/>
    </body>
  </worldbody>
</mujoco>)";

// objects over a tilted, bumpy height field (its prisms against every geom type): a sphere and
// a capsule body, and a body of an ellipsoid, a cylinder, a box and a mesh, each on a slide and two
// hinges, so that the random states put some of them into the field; the last body's rangefinders
// see the field and a mesh rock
inline constexpr const char* kHfieldTerrain = R"(<mujoco model="hfield_terrain">
  <asset>
    <hfield name="bumps" nrow="5" ncol="6" size="0.6 0.5 0.12 0.05"
            elevation="0 0.3 0.8 0.2 0.5 0.1  0.4 1 0.6 0.3 0 0.2  0.2 0.5 0.9 0.7 0.3 0.6
                       0.1 0 0.4 0.8 1 0.5  0.6 0.3 0.2 0 0.4 0.9"/>
    <mesh name="gem" vertex="0.05 0.01 -0.02  -0.04 0.03 0.02  0.01 -0.05 0.03  -0.02 -0.02 -0.04
                             0.01 0.04 -0.03  0.04 -0.02 0.02  0 0.01 0.05"/>
  </asset>
  <worldbody>
    <geom name="terrain" type="hfield" hfield="bumps" euler="4 -3 10"/>
    <body name="ball" pos="-0.3 0 0.2">
      <joint type="slide" axis="0 0 1"/><joint axis="1 0 0"/><joint axis="0 1 0"/>
      <geom type="sphere" size="0.05"/>
    </body>
    <body name="pill" pos="0 0.2 0.2">
      <joint type="slide" axis="0 0 1"/><joint axis="1 0 0"/><joint axis="0 1 0"/>
      <geom type="capsule" size="0.03 0.07" euler="80 0 0" margin="0.005"/>
    </body>
    <body name="cluster" pos="0.25 -0.1 0.25">
      <joint type="slide" axis="0 0 1"/><joint axis="1 0 0"/><joint axis="0 1 0"/>
      <geom type="ellipsoid" size="0.04 0.03 0.05" pos="-0.1 0 0"/>
      <geom type="cylinder" size="0.03 0.04" pos="0 0.1 0"/>
      <geom type="box" size="0.04 0.03 0.03" pos="0.1 0 0" condim="6"/>
      <geom type="mesh" mesh="gem" pos="0 -0.1 0" margin="0.01"/>
      <site name="down" pos="0 0 0.05" euler="180 0 0"/>
      <site name="slant" pos="0 0 0.05" euler="150 20 0"/>
      <site name="sideways" pos="0 0 0.05" euler="0 95 0"/>
    </body>
    <geom name="rock" type="mesh" mesh="gem" pos="0.2 0.3 0.15"/>
  </worldbody>
  <sensor>
    <rangefinder site="down"/><rangefinder site="slant"/><rangefinder site="sideways"/>
  </sensor>
</mujoco>)";

inline Model fluid_model(bool ellipsoid) {
  std::string text = kFluidModel;
  for (std::size_t at; (at = text.find("{ellipsoid}")) != std::string::npos;)
    text.replace(at, 11, ellipsoid ? "ellipsoid" : "none");
  return load_mjcf_string(text, "fluid.xml").model;
}

inline std::vector<ModelCase> model_cases() {
  std::vector<ModelCase> out;
  for (Example& e : all_examples()) out.push_back({e.name, std::move(e.model)});
  out.push_back({"rod_chain_spatial", examples::rod_chain({.planar = false, .damping = 0.1})});
  if (std::filesystem::exists(humanoid_xml())) {
    // with its contacts and joint limits, and without
    Model humanoid = load_mjcf(humanoid_xml()).model;
    out.push_back({"humanoid_contacts", humanoid});
    humanoid.disableflags |= kDisableConstraint | kDisableContact;
    humanoid.validate();
    out.push_back({"humanoid", humanoid});
  }
  // a soft connect equality, and the same closed as hard rows beside a drive and friction loss
  const std::filesystem::path four_bar = model_cases_dir() / "models" / "four_bar.xml";
  out.push_back({"four_bar", load_mjcf(four_bar).model});
  std::string hard = read_model_text(four_bar);
  hard.replace(hard.find("</mujoco>"), 9,
               "<custom><numeric name=\"hard:closure\" data=\"1\"/>"
               "<numeric name=\"drive:rocker\" data=\"0 0.5 0.2 3 0\"/></custom></mujoco>");
  hard.replace(hard.find("damping=\"0.05\""), 14, "damping=\"0.05\" frictionloss=\"0.1\"");
  out.push_back({"four_bar_hard", load_mjcf_string(hard, "four_bar_hard.xml").model});
  // every sensor type zwang computes (kernels/sensors.h)
  out.push_back({"sensors", load_mjcf_string(kSensorModel, "sensors.xml").model});
  // the same with the hinge's limit (±115°) in play for about a third of the instances: the
  // sensors then run after the constraint rows (on the CPU's SIMD backend, one lane at a time),
  // the force, torque and subtree sensors on the bodies' rotated inertias
  std::string limited = kSensorModel;
  const std::string hinge = "<joint name=\"hinge\" axis=\"0 1 0\"";
  limited.replace(limited.find(hinge), hinge.size(),
                  hinge + " limited=\"true\" range=\"-115 115\"");
  out.push_back({"sensors_limited", load_mjcf_string(limited, "sensors_limited.xml").model});
  // sensors of joint limits, which read the constraint rows
  out.push_back({"limit_sensors", load_mjcf_string(kLimitSensorModel, "limit_sensors.xml").model});
  // touch sensors, which read the contacts
  out.push_back({"touch", load_mjcf_string(kTouchModel, "touch.xml").model});
  // rangefinders, rays against every primitive
  out.push_back({"rangefinder", load_mjcf_string(kRangefinderModel, "rangefinder.xml").model});
  // tendons: fixed and spatial with springs, dampers and actuators (smooth dynamics); tendon
  // limits, friction and equalities (constraint rows)
  out.push_back({"fixed_tendons", load_mjcf_string(kFixedTendons, "fixed_tendons.xml").model});
  Model spatial = load_mjcf_string(kSpatialTendons, "spatial_tendons.xml").model;
  spatial.disableflags |= kDisableConstraint | kDisableContact;
  spatial.validate();
  out.push_back({"spatial_tendons", std::move(spatial)});
  // spatial tendons around spheres and cylinders (geom wrapping)
  Model wrap = load_mjcf_string(kWrapTendons, "wrap_tendons.xml").model;
  wrap.disableflags |= kDisableConstraint | kDisableContact;
  wrap.validate();
  out.push_back({"wrap_tendons", std::move(wrap)});
  // the same by MuJoCo 2.2.2's rules (side sites: half-plane, projected inside test, z-Newton)
  Model wrap2 = load_mjcf_string(kWrapTendons, "wrap_tendons.xml", {},
                                 LoadOptions{.wrap_rules = WrapRules::kMujoco2})
                    .model;
  wrap2.disableflags |= kDisableConstraint | kDisableContact;
  wrap2.validate();
  out.push_back({"wrap_tendons_mujoco2", std::move(wrap2)});
  out.push_back({"tendon_limits", load_mjcf_string(kTendonLimits, "tendon_limits.xml").model});
  out.push_back(
      {"tendon_force_range", load_mjcf_string(kTendonForceRange, "tendon_force_range.xml").model});
  out.push_back({"ball_in_cup", load_mjcf_string(kBallInCup, "ball_in_cup.xml").model});
  out.push_back(
      {"tendon_equality", load_mjcf_string(kTendonEquality, "tendon_equality.xml").model});
  // activations: integrator (clamped to actrange), filter, cylinder, affine gain and bias
  out.push_back({"actuator_dynamics", load_mjcf_string(kActuatorDynamicsModel, "act.xml").model});
  out.push_back({"muscles", load_mjcf_string(kMuscleModel, "muscles.xml").model});
  out.push_back(
      {"tendon_actuators", load_mjcf_string(kTendonActuatorModel, "tendon_actuators.xml").model});
  out.push_back({"filterexact", load_mjcf_string(kFilterExactModel, "filterexact.xml").model});
  out.push_back({"fluid", fluid_model(true)});
  out.push_back({"mesh_objects", load_mjcf_string(kMeshObjects, "mesh_objects.xml").model});
  out.push_back({"hfield_terrain", load_mjcf_string(kHfieldTerrain, "hfield_terrain.xml").model});
  {
    // without contacts: the SIMD packs run the rangefinders, lane by lane only where they must
    Model m = load_mjcf_string(kHfieldTerrain, "hfield_terrain.xml").model;
    m.disableflags |= kDisableContact;
    m.validate();
    out.push_back({"hfield_rays", std::move(m)});
  }
  // every case again with RK4 (the built-in examples and humanoid.xml use Euler)
  const std::size_t euler = out.size();
  for (std::size_t i = 0; i < euler; ++i) {
    Model m = out[i].model;
    m.integrator = Integrator::kRK4;
    m.validate();
    out.push_back({out[i].name + "_rk4", std::move(m)});
  }
  // implicitfast on the cases with free joints, contacts, hard rows, tendon dampers and actuators
  // whose force depends on the velocity
  for (const std::string name : {"floating_base", "chain8_damped_actuated", "humanoid_contacts",
                                 "four_bar_hard", "fixed_tendons", "spatial_tendons", "ball_in_cup",
                                 "actuator_dynamics", "muscles", "tendon_actuators"}) {
    const auto it = std::find_if(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(euler),
                                 [&](const ModelCase& c) { return c.name == name; });
    if (it == out.begin() + static_cast<std::ptrdiff_t>(euler)) continue;
    Model m = it->model;
    m.integrator = Integrator::kImplicitFast;
    m.validate();
    out.push_back({name + "_implicitfast", std::move(m)});
  }
  // both models' velocity derivatives (the ellipsoid model's B made symmetric on the fish, whose
  // free joint has a joint below it, and whole on the float, a free body with its own LU), and
  // the inertia boxes alone
  for (const bool ellipsoid : {true, false}) {
    Model m = fluid_model(ellipsoid);
    m.integrator = Integrator::kImplicitFast;
    m.validate();
    out.push_back({ellipsoid ? "fluid_implicitfast" : "fluid_boxes_implicitfast", std::move(m)});
  }
  // implicit: the Coriolis derivative and the LU on free and ball joints, contacts, tendon
  // dampers, muscles and the ellipsoid model's unsymmetric B
  for (const std::string name : {"floating_base", "chain8_damped_actuated", "humanoid_contacts",
                                 "spatial_tendons", "muscles"}) {
    const auto it = std::find_if(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(euler),
                                 [&](const ModelCase& c) { return c.name == name; });
    if (it == out.begin() + static_cast<std::ptrdiff_t>(euler)) continue;
    Model m = it->model;
    m.integrator = Integrator::kImplicit;
    m.validate();
    out.push_back({name + "_implicit", std::move(m)});
  }
  {
    Model m = fluid_model(true);
    m.integrator = Integrator::kImplicit;
    m.validate();
    out.push_back({"fluid_implicit", std::move(m)});
  }
  return out;
}

// the same random states, controls, activations and external wrenches in two simulators
template <class T>
void set_same_states(Simulator<T>& a, Simulator<T>& b, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> normal(0, 1);
  const Model& m = a.model();
  for (std::int64_t i = 0; i < a.size(); ++i) {
    const RandomState s = random_state(m, rng, 0.5);
    Eigen::VectorXd xfrc(6 * m.nbody), act(m.na);
    for (Eigen::Index k = 0; k < xfrc.size(); ++k) xfrc[k] = i % 3 == 0 ? 0.0 : normal(rng);
    for (Eigen::Index k = 0; k < act.size(); ++k) act[k] = normal(rng);
    for (Simulator<T>* sim : {&a, &b}) {
      set(sim->batch().act(), i, act);
      set(sim->batch().qpos(), i, s.qpos);
      set(sim->batch().qvel(), i, s.qvel);
      set(sim->batch().ctrl(), i, s.ctrl);
      set(sim->batch().xfrc_applied(), i, xfrc);
    }
  }
}

inline std::vector<FieldId> data_fields() {
  return {
#define ZW_X(name, count) FieldId::name,
      ZW_DATA_FIELDS(ZW_X)
#undef ZW_X
  };
}

}  // namespace zwang::test
