// The command-line tool: --randomize, states in JSON, the HDF5 trajectory, and `zwang dynamics`
// on MuJoCo's humanoid.xml and its contacts on a pile of free bodies against MuJoCo; sensordata
// of `zwang dynamics` and `zwang run` against MuJoCo's.
#include <gtest/gtest.h>
#include <hdf5.h>
#include <mujoco/mujoco.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <set>

#include "actuator_models.h"
#include "cli_process.h"
#include "data_dir.h"
#include "host/cli/cli_common.hpp"
#include "host/cli/commands.hpp"
#include "mujoco_util.h"
#include "reference/rnea.h"
#include "sensor_models.h"
#include "test_util.h"
#include "zwang/loaders.hpp"
#include "zwang/randomize.hpp"

namespace zwang::test {
namespace {

// --randomize is the library's grammar (tests/batch/test_randomize.cc); its errors name the
// option
TEST(Cli, RandomizeErrorsNameTheOption) {
  const ProgramResult r = run_zwang("run chain -n 2 -t 1 --no-progress --randomize mass=0.9:1.1");
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("--randomize: 'mass=0.9:1.1': unknown parameter 'mass' (the parameters: "
                          "body_mass, "),
            std::string::npos)
      << r.output;
  const ProgramResult key = run_zwang("run chain -n 2 -t 1 --no-progress --keyframe up");
  EXPECT_NE(key.exit_code, 0) << key.output;
  EXPECT_NE(key.output.find("--keyframe: no keyframe 'up': the model has no keyframes"),
            std::string::npos)
      << key.output;
}

TEST(Cli, StatesJsonIsCheckedByFieldAndIndex) {
  const Model m = examples::cart_pole();  // nq 2, nv 2, nu 1
  const cli::States s =
      cli::parse_states(R"({"qpos": [[0, 1], [2, 3]], "qvel": [[0, 0], [1, 1]]})", m);
  EXPECT_EQ(s.qpos.size(), 2u);
  EXPECT_TRUE(s.ctrl.empty());
  EXPECT_EQ(error_of<std::exception>([&] { cli::parse_states(R"({"qpos": [[0, 1]]})", m); }),
            "states: \"qvel\" is missing");
  EXPECT_EQ(error_of<std::exception>([&] {
              cli::parse_states(R"({"qpos": [[0, 1], [2]], "qvel": [[0, 0], [1, 1]]})", m);
            }),
            "states: qpos[1] must be a list of 2 numbers");
  EXPECT_EQ(error_of<std::exception>(
                [&] { cli::parse_states(R"({"qpos": [[0, 1]], "qvel": [[0, "a"]]})", m); }),
            "states: qvel[0][1] is not a number");
  EXPECT_EQ(error_of<std::exception>(
                [&] { cli::parse_states(R"({"qpos": [[0, 1]], "qvel": [[0, 0], [1, 1]]})", m); }),
            "states: \"qvel\" has 2 states, \"qpos\" has 1");
  EXPECT_EQ(error_of<std::exception>([&] {
              cli::parse_states(R"({"qpos": [[0, 1]], "qvel": [[0, 0]], "ctrl": [[1e999]]})", m);
            }),
            "states: ctrl[0][0] is out of range: 1e999");
  EXPECT_EQ(error_of<std::exception>([&] {
              cli::parse_states(R"({"qpos": [[0, 1]], )", m);
            }).rfind("states: not valid JSON", 0),
            0u);
}

// the JSON of `zwang dynamics` against the Eigen reference
TEST(Cli, DynamicsJsonMatchesReference) {
  const Model m = examples::floating_base();
  std::mt19937 rng(5);
  cli::States s;
  for (int i = 0; i < 4; ++i) {
    const RandomState r = random_state(m, rng);
    s.qpos.emplace_back(r.qpos.data(), r.qpos.data() + m.nq);
    s.qvel.emplace_back(r.qvel.data(), r.qvel.data() + m.nv);
  }
  const nlohmann::json out = nlohmann::json::parse(cli::dynamics_json<double>(m, s));
  EXPECT_EQ(out["nq"], m.nq);
  EXPECT_EQ(out["nv"], m.nv);
  const reference::Rnea ref(m);
  for (int i = 0; i < 4; ++i) {
    const Eigen::VectorXd q = Eigen::Map<const Eigen::VectorXd>(s.qpos[i].data(), m.nq);
    const Eigen::VectorXd qd = Eigen::Map<const Eigen::VectorXd>(s.qvel[i].data(), m.nv);
    const std::vector<double> mass = out["M"][i], bias = out["bias"][i], qacc = out["qacc"][i];
    const Eigen::MatrixXd h = ref.mass_matrix(q);
    EXPECT_LT(relative_error(Eigen::Map<const Eigen::MatrixXd>(mass.data(), m.nv, m.nv), h), 1e-10);
    EXPECT_LT(relative_error(Eigen::Map<const Eigen::VectorXd>(bias.data(), m.nv), ref.bias(q, qd)),
              1e-10);
    EXPECT_LT(relative_error(Eigen::Map<const Eigen::VectorXd>(qacc.data(), m.nv),
                             ref.forward_dynamics(q, qd, Eigen::VectorXd())),
              1e-9);
  }
}

// the file holds every record of every instance: the first at the initial state, the last
// where a separate run of the same instances ends
TEST(Cli, RolloutWritesTheTrajectoryToHdf5) {
  const TempDir dir("rollout");
  const std::filesystem::path out = dir / "rollout.h5";
  cli::RunOptions o;
  o.instances = 5;
  o.steps = 30;
  o.record_every = 10;
  o.seed = 9;
  o.randomize = "body_mass=0.9:1.1";
  o.out = out.string();
  o.no_progress = true;
  ASSERT_EQ(cli::run_rollout("cart_pole", {}, o), 0);

  // the same instances stepped here
  const Model m = examples::cart_pole();
  Simulator<double> sim(m, 5);
  scatter_states(sim, "", o.init_noise, 9);
  const std::vector<double> q0 = sim.batch().qpos().get(3);
  randomize(sim.batch(), parse_randomization(o.randomize), 9);
  sim.step(30);

  const hid_t file = H5Fopen(out.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(file, 0);
  std::vector<hsize_t> dims;
  const std::vector<double> qpos = dataset(file, "qpos", &dims);
  ASSERT_EQ(dims, (std::vector<hsize_t>{4, 5, 2}));
  EXPECT_EQ(qpos[3 * 2 + 0], q0[0]);
  EXPECT_EQ(qpos[3 * 2 + 1], q0[1]);
  const std::vector<double> last = sim.batch().qpos().get(3);
  EXPECT_EQ(qpos[(3 * 5 + 3) * 2 + 0], last[0]);
  EXPECT_EQ(qpos[(3 * 5 + 3) * 2 + 1], last[1]);
  const std::vector<double> mass = dataset(file, "parameters/body_mass", &dims);
  ASSERT_EQ(dims, (std::vector<hsize_t>{5, 3}));
  EXPECT_EQ(mass[3 * 3 + 1], sim.batch().body_mass()(3, 1));
  const std::vector<double> time = dataset(file, "time", &dims);
  EXPECT_NEAR(time[3 * 5 + 4], 30 * m.timestep, 1e-12);
  EXPECT_GT(H5Aexists(file, "joint_names"), 0);
  EXPECT_GT(H5Aexists(file, "timestep"), 0);
  H5Fclose(file);
  std::filesystem::remove(out);
}

// `zwang dynamics` (the program) on MuJoCo's humanoid.xml against MuJoCo's mj_forward
TEST(Cli, DynamicsOfHumanoidMatchesMujoco) {
  const char* humanoid = "/usr/share/mujoco/model/humanoid/humanoid.xml";
  std::string error;
  const MjModelPtr m = load_mujoco(humanoid, &error);
  ASSERT_TRUE(m) << error;
  const MjDataPtr d(mj_makeData(m.get()));
  std::mt19937 rng(8);
  std::normal_distribution<double> normal(0, 1);
  std::uniform_real_distribution<double> unit(-1, 1);
  nlohmann::json in{{"qpos", nlohmann::json::array()},
                    {"qvel", nlohmann::json::array()},
                    {"ctrl", nlohmann::json::array()}};
  constexpr int kStates = 20;
  for (int s = 0; s < kStates; ++s) {
    std::vector<double> q(m->qpos0, m->qpos0 + m->nq), v(m->nv), u(m->nu);
    Eigen::Vector4d quat(normal(rng), normal(rng), normal(rng), normal(rng));
    quat.normalize();
    for (int k = 0; k < 4; ++k) q[3 + k] = quat[k];
    for (int k = 7; k < m->nq; ++k) q[k] += 0.5 * unit(rng);
    for (double& x : v) x = normal(rng);
    for (double& x : u) x = unit(rng);
    in["qpos"].push_back(q);
    in["qvel"].push_back(v);
    in["ctrl"].push_back(u);
  }
  const TempDir tmp("dynamics_json");
  const std::filesystem::path dir = tmp.path();
  const std::filesystem::path input = dir / "zwang_test_states.json",
                              output = dir / "zwang_test_dynamics.json";
  std::ofstream(input) << in.dump();
  // load_mujoco switches MuJoCo's constraints off (mjDSBL_CONSTRAINT), and the states put joints
  // past their limits: zwang's limit rows go off the same way
  const std::string command = std::string(ZWANG_CLI) + " dynamics " + humanoid + " -i " +
                              input.string() + " -o " + output.string() +
                              " --disable constraint 2>/dev/null";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  std::ifstream f(output);
  const nlohmann::json out = nlohmann::json::parse(f);
  ASSERT_EQ(out["nv"], m->nv);
  std::vector<double> dense(m->nv * m->nv);
  double worst = 0;
  for (int s = 0; s < kStates; ++s) {
    mj_resetData(m.get(), d.get());
    for (int k = 0; k < m->nq; ++k) d->qpos[k] = in["qpos"][s][k];
    for (int k = 0; k < m->nv; ++k) d->qvel[k] = in["qvel"][s][k];
    for (int k = 0; k < m->nu; ++k) d->ctrl[k] = in["ctrl"][s][k];
    mj_forward(m.get(), d.get());
    mj_fullM(m.get(), dense.data(), d->qM);
    const std::vector<double> mass = out["M"][s], bias = out["bias"][s], qacc = out["qacc"][s];
    const double e_m =
        relative_error(Eigen::Map<const Eigen::VectorXd>(mass.data(), mass.size()),
                       Eigen::Map<const Eigen::VectorXd>(dense.data(), dense.size()));
    const double e_b = relative_error(Eigen::Map<const Eigen::VectorXd>(bias.data(), m->nv),
                                      Eigen::Map<const Eigen::VectorXd>(d->qfrc_bias, m->nv));
    const double e_a = relative_error(Eigen::Map<const Eigen::VectorXd>(qacc.data(), m->nv),
                                      Eigen::Map<const Eigen::VectorXd>(d->qacc, m->nv));
    // humanoid.xml derives inertias from several geoms per body, which MuJoCo diagonalises with
    // an eigen-solver that stops near 1e-7 relative
    EXPECT_LT(e_m, 1e-6) << "state " << s;
    EXPECT_LT(e_b, 1e-6) << "state " << s;
    EXPECT_LT(e_a, 1e-6) << "state " << s;
    worst = std::max({worst, e_m, e_b, e_a});
  }
  std::printf("zwang dynamics on humanoid.xml: largest relative error against MuJoCo %.2e\n",
              worst);
  std::filesystem::remove(input);
  std::filesystem::remove(output);
}

// free bodies over a plane, which touch it and each other at the states below: plane–sphere,
// plane–capsule, plane–box, sphere–sphere, sphere–capsule, sphere–box and capsule–box pairs
constexpr const char* kPile = R"(<mujoco>
  <worldbody>
    <geom name="floor" type="plane" size="2 2 .1"/>
    <body name="a"><freejoint/><geom name="ball_a" type="sphere" size="0.1"/></body>
    <body name="b"><freejoint/><geom name="ball_b" type="sphere" size="0.07"/></body>
    <body name="c"><freejoint/><geom name="rod" type="capsule" size="0.04 0.1"/></body>
    <body name="d"><freejoint/><geom type="box" size="0.08 0.06 0.05"/></body>
  </worldbody>
</mujoco>
)";

// the contacts of `zwang dynamics` against MuJoCo's d->contact and mj_contactForce after
// mj_forward with contacts on: the same count, and per geom pair the same contacts in the same
// order with their geom names, distance, point, frame and force
TEST(Cli, DynamicsContactsMatchMujoco) {
  const TempDir dir("dynamics_contacts_mujoco");
  std::ofstream(dir / "pile.xml") << kPile;
  std::string error;
  const MjModelPtr m = load_mujoco(dir / "pile.xml", &error);
  ASSERT_TRUE(m) << error;
  m->opt.disableflags &= ~mjDSBL_CONSTRAINT;
  const MjDataPtr d(mj_makeData(m.get()));
  // each body's centre over a 0.24 m square about the origin, 0.02 to 0.12 m up, turned at random
  std::mt19937 rng(21);
  std::normal_distribution<double> normal(0, 1);
  std::uniform_real_distribution<double> across(-0.12, 0.12), up(0.02, 0.12);
  nlohmann::json in{{"qpos", nlohmann::json::array()}, {"qvel", nlohmann::json::array()}};
  constexpr int kStates = 20;
  for (int s = 0; s < kStates; ++s) {
    std::vector<double> q(m->nq), v(m->nv);
    for (int b = 0; b < 4; ++b) {
      double* qb = q.data() + 7 * b;
      qb[0] = across(rng);
      qb[1] = across(rng);
      qb[2] = up(rng);
      Eigen::Vector4d quat(normal(rng), normal(rng), normal(rng), normal(rng));
      quat.normalize();
      for (int k = 0; k < 4; ++k) qb[3 + k] = quat[k];
    }
    for (double& x : v) x = normal(rng);
    in["qpos"].push_back(q);
    in["qvel"].push_back(v);
  }
  std::ofstream(dir / "states.json") << in.dump();
  // compared with MuJoCo 2.2.2: read as it reads the file
  const ProgramResult r = run_zwang("dynamics " + dir / "pile.xml" + " --rules 2.2.2 -i " +
                                    dir / "states.json" + " -o " + dir / "out.json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::ifstream f(dir / "out.json");
  const nlohmann::json out = nlohmann::json::parse(f);

  int total = 0;
  double worst_geometry = 0, worst_force = 0;
  std::set<std::pair<int, int>> pairs;
  for (int s = 0; s < kStates; ++s) {
    SCOPED_TRACE("state " + std::to_string(s));
    mj_resetData(m.get(), d.get());
    for (int k = 0; k < m->nq; ++k) d->qpos[k] = in["qpos"][s][k];
    for (int k = 0; k < m->nv; ++k) d->qvel[k] = in["qvel"][s][k];
    mj_forward(m.get(), d.get());
    ASSERT_EQ(out["ncon"][s], d->ncon);
    total += d->ncon;
    // MuJoCo's contacts of each geom pair, in order
    std::map<std::pair<int, int>, std::vector<int>> mj;
    for (int c = 0; c < d->ncon; ++c) mj[{d->contact[c].geom1, d->contact[c].geom2}].push_back(c);
    std::map<std::pair<int, int>, std::size_t> seen;
    for (int c = 0; c < d->ncon; ++c) {
      const std::pair<int, int> pair{out["contact_geom"][s][c][0], out["contact_geom"][s][c][1]};
      const std::size_t k = seen[pair]++;
      ASSERT_LT(k, mj[pair].size()) << "geoms " << pair.first << ", " << pair.second;
      const mjContact& con = d->contact[mj[pair][k]];
      pairs.insert(pair);
      for (int g = 0; g < 2; ++g) {
        const char* name = mj_id2name(m.get(), mjOBJ_GEOM, g == 0 ? con.geom1 : con.geom2);
        EXPECT_EQ(out["contact_geom_name"][s][c][g], name != nullptr ? name : "");
      }
      const double dist = out["contact_dist"][s][c];
      const std::vector<double> pos = out["contact_pos"][s][c], frame = out["contact_frame"][s][c],
                                force = out["contact_force"][s][c];
      double geometry = std::abs(dist - con.dist);
      for (int e = 0; e < 3; ++e) geometry = std::max(geometry, std::abs(pos[e] - con.pos[e]));
      for (int e = 0; e < 9; ++e) geometry = std::max(geometry, std::abs(frame[e] - con.frame[e]));
      mjtNum mj_force[6];
      mj_contactForce(m.get(), d.get(), mj[pair][k], mj_force);
      double scale = 1, miss = 0;
      for (int e = 0; e < 6; ++e) {
        scale = std::max(scale, std::abs(mj_force[e]));
        miss = std::max(miss, std::abs(force[e] - mj_force[e]));
      }
      EXPECT_LT(geometry, 1e-9) << "contact " << c;
      EXPECT_LT(miss / scale, 1e-9) << "contact " << c;
      worst_geometry = std::max(worst_geometry, geometry);
      worst_force = std::max(worst_force, miss / scale);
    }
  }
  // the states exercise many contacts and pairs
  EXPECT_GE(total, 2 * kStates);
  EXPECT_GE(pairs.size(), 5u);
  std::printf(
      "zwang dynamics, %d contacts of %zu geom pairs: largest error against MuJoCo %.2e in "
      "dist, pos and frame, %.2e relative in force\n",
      total, pairs.size(), worst_geometry, worst_force);
}

// sensordata of `zwang dynamics` (time 0) and of the first record of `zwang run` (its initial
// state) against MuJoCo's mj_forward; the file's sensor names, types, addresses and sizes
TEST(Cli, SensorsOfDynamicsAndRunMatchMujoco) {
  const TempDir tmp("sensors");
  const std::filesystem::path dir = tmp.path();
  const std::filesystem::path xml = dir / "zwang_test_sensors.xml",
                              input = dir / "zwang_test_sensor_states.json",
                              output = dir / "zwang_test_sensor_dynamics.json",
                              h5 = dir / "zwang_test_sensors.h5";
  std::ofstream(xml) << kSensorModel;
  const Model z = load_mjcf(xml, kMujoco2).model;
  std::string error;
  const MjModelPtr m = load_mujoco(xml, &error);
  ASSERT_TRUE(m) << error;
  const MjDataPtr d(mj_makeData(m.get()));
  auto expect_mujocos = [&](const std::vector<double>& q, const std::vector<double>& v,
                            const std::vector<double>& u, double t, const std::vector<double>& got,
                            const std::string& where) {
    mj_resetData(m.get(), d.get());
    std::copy(q.begin(), q.end(), d->qpos);
    std::copy(v.begin(), v.end(), d->qvel);
    std::copy(u.begin(), u.end(), d->ctrl);
    d->time = t;
    mj_forward(m.get(), d.get());
    ASSERT_EQ(static_cast<int>(got.size()), m->nsensordata) << where;
    double scale = 1;
    for (int k = 0; k < m->nsensordata; ++k) scale = std::max(scale, std::abs(d->sensordata[k]));
    for (int s = 0; s < z.nsensor; ++s) {
      if (z.sensor_type[s] == SensorType::kUser) continue;
      for (int k = z.sensor_adr[s]; k < z.sensor_adr[s] + z.sensor_dim[s]; ++k) {
        EXPECT_NEAR(got[k], d->sensordata[k], 1e-12 * scale) << where << ", sensor " << s;
      }
    }
  };

  const std::vector<State> states = random_states(z, 4, 12);
  nlohmann::json in{{"qpos", nlohmann::json::array()},
                    {"qvel", nlohmann::json::array()},
                    {"ctrl", nlohmann::json::array()}};
  for (const State& s : states) {
    in["qpos"].push_back(s.qpos);
    in["qvel"].push_back(s.qvel);
    in["ctrl"].push_back(s.ctrl);
  }
  std::ofstream(input) << in.dump();
  const ProgramResult dyn = run_zwang("dynamics " + xml.string() + " --rules 2.2.2 -i " +
                                      input.string() + " -o " + output.string());
  ASSERT_EQ(dyn.exit_code, 0) << dyn.output;
  const nlohmann::json out = nlohmann::json::parse(std::ifstream(output));
  for (int s = 0; s < 4; ++s) {
    expect_mujocos(states[s].qpos, states[s].qvel, states[s].ctrl, 0.0, out["sensordata"][s],
                   "dynamics state " + std::to_string(s));
  }

  const ProgramResult run = run_zwang(
      "run " + xml.string() +
      " --rules 2.2.2 -n 3 -t 20 --record-every 10 --ctrl random --no-progress -o " + h5.string());
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const hid_t file = H5Fopen(h5.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(file, 0);
  std::vector<hsize_t> dims;
  const std::vector<double> data = dataset(file, "sensordata", &dims);
  ASSERT_EQ(dims, (std::vector<hsize_t>{3, 3, static_cast<hsize_t>(z.nsensordata)}));
  const std::vector<double> qpos = dataset(file, "qpos", &dims),
                            qvel = dataset(file, "qvel", &dims),
                            ctrl = dataset(file, "ctrl", &dims),
                            time = dataset(file, "time", &dims);
  const std::vector<double> adr = dataset(file, "sensor_adr", &dims);
  ASSERT_EQ(dims, (std::vector<hsize_t>{static_cast<hsize_t>(z.nsensor)}));
  EXPECT_EQ(adr[5], z.sensor_adr[5]);
  dataset(file, "sensor_dim", &dims);
  EXPECT_EQ(dims, (std::vector<hsize_t>{static_cast<hsize_t>(z.nsensor)}));
  EXPECT_GT(H5Aexists(file, "sensor_names"), 0);
  EXPECT_GT(H5Aexists(file, "sensor_types"), 0);
  H5Fclose(file);
  auto row = [](const std::vector<double>& v, int i, int width) {
    return std::vector<double>(v.begin() + i * width, v.begin() + (i + 1) * width);
  };
  for (int i = 0; i < 3; ++i) {
    expect_mujocos(row(qpos, i, z.nq), row(qvel, i, z.nv), row(ctrl, i, z.nu), time[i],
                   row(data, i, z.nsensordata), "run record 0, instance " + std::to_string(i));
  }
  for (const auto& f : {xml, input, output, h5}) std::filesystem::remove(f);
}

// activations: zwang dynamics takes act and answers act_dot and actuator_force as MuJoCo's
// mj_forward; zwang run records act
TEST(Cli, ActivationsOfDynamicsAndRun) {
  const TempDir tmp("activations");
  const std::filesystem::path dir = tmp.path();
  const std::filesystem::path xml = dir / "zwang_test_act.xml",
                              input = dir / "zwang_test_act_states.json",
                              output = dir / "zwang_test_act_dynamics.json",
                              h5 = dir / "zwang_test_act.h5";
  std::ofstream(xml) << kActuatorDynamicsModel;
  const Model z = load_mjcf(xml, kMujoco2).model;
  ASSERT_EQ(z.na, 4);
  std::string error;
  const MjModelPtr m = load_mujoco(xml, &error);
  ASSERT_TRUE(m) << error;
  const MjDataPtr d(mj_makeData(m.get()));
  const std::vector<State> states = random_states(z, 3, 5);
  nlohmann::json in{{"qpos", nlohmann::json::array()},
                    {"qvel", nlohmann::json::array()},
                    {"ctrl", nlohmann::json::array()},
                    {"act", nlohmann::json::array()}};
  for (std::size_t s = 0; s < states.size(); ++s) {
    in["qpos"].push_back(states[s].qpos);
    in["qvel"].push_back(states[s].qvel);
    in["ctrl"].push_back(states[s].ctrl);
    in["act"].push_back(std::vector<double>{0.3 * s, -0.2, 0.7, 1.0 - s});
  }
  std::ofstream(input) << in.dump();
  const ProgramResult dyn = run_zwang("dynamics " + xml.string() + " --rules 2.2.2 -i " +
                                      input.string() + " -o " + output.string());
  ASSERT_EQ(dyn.exit_code, 0) << dyn.output;
  const nlohmann::json out = nlohmann::json::parse(std::ifstream(output));
  for (std::size_t s = 0; s < states.size(); ++s) {
    mj_resetData(m.get(), d.get());
    std::copy(states[s].qpos.begin(), states[s].qpos.end(), d->qpos);
    std::copy(states[s].qvel.begin(), states[s].qvel.end(), d->qvel);
    std::copy(states[s].ctrl.begin(), states[s].ctrl.end(), d->ctrl);
    const std::vector<double> act = in["act"][s];
    std::copy(act.begin(), act.end(), d->act);
    mj_forward(m.get(), d.get());
    const std::vector<double> act_dot = out["act_dot"][s], force = out["actuator_force"][s],
                              qacc = out["qacc"][s];
    for (int k = 0; k < z.na; ++k) EXPECT_NEAR(act_dot[k], d->act_dot[k], 1e-10) << s;
    for (int k = 0; k < z.nu; ++k) EXPECT_NEAR(force[k], d->actuator_force[k], 1e-10) << s;
    for (int k = 0; k < z.nv; ++k) EXPECT_NEAR(qacc[k], d->qacc[k], 1e-9) << s;
  }
  in["act"][0] = std::vector<double>{1, 2};
  std::ofstream(input) << in.dump();
  const ProgramResult bad = run_zwang("dynamics " + xml.string() + " --rules 2.2.2 -i " +
                                      input.string() + " -o " + output.string());
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.output.find("act[0] must be a list of 4 numbers"), std::string::npos) << bad.output;

  const ProgramResult run = run_zwang(
      "run " + xml.string() +
      " --rules 2.2.2 -n 3 -t 20 --record-every 10 --ctrl random --no-progress -o " + h5.string());
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const hid_t file = H5Fopen(h5.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(file, 0);
  std::vector<hsize_t> dims;
  const std::vector<double> act = dataset(file, "act", &dims);
  ASSERT_EQ(dims, (std::vector<hsize_t>{3, 3, 4}));
  H5Fclose(file);
  // the start is act = 0; the integrator's activation (act 0) stays in its actrange
  for (int i = 0; i < 3; ++i) EXPECT_EQ(act[4 * i], 0.0);
  for (std::size_t k = 0; k < act.size(); k += 4) {
    EXPECT_GE(act[k], -0.5);
    EXPECT_LE(act[k], 0.8);
  }
  EXPECT_NE(act[4 * 3 + 1], 0.0);
  for (const auto& f : {xml, input, output, h5}) std::filesystem::remove(f);
}

// `zwang info` lists the bodies that <compiler fusestatic> merged, each with the body that took it
// (tests/data/models/fused_static.xml: the pillar into the world, the hand into its arm)
TEST(Cli, InfoListsMergedBodies) {
  const std::filesystem::path file = data_dir() / "models" / "fused_static.xml";
  const ProgramResult r = run_zwang("info " + file.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::size_t at = r.output.find("merged bodies");
  ASSERT_NE(at, std::string::npos) << r.output;
  const std::string listed = r.output.substr(at, r.output.find("\njoints", at) - at);
  for (const char* row :
       {"0    pillar                   world", "4    hand                     arm"}) {
    EXPECT_NE(listed.find(row), std::string::npos) << row << " in\n" << listed;
  }
  EXPECT_EQ(run_zwang("info chain").output.find("merged bodies"), std::string::npos);
}

}  // namespace
}  // namespace zwang::test
