// What `zwang run -o` and `zwang dynamics -o` leave behind when the disk refuses a write or the
// run is interrupted, and the constraint and contact outputs they write: the program is run as a
// separate process and its files are read back through the HDF5 C API and the JSON parser.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <hdf5.h>
#include <omp.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <csignal>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <thread>
#include <tuple>

#include "cli_process.h"
#include "host/cli/cli_common.hpp"
#include "host/cli/commands.hpp"
#include "host/cli/h5_writer.hpp"
#include "zwang/examples.hpp"
#include "zwang/randomize.hpp"
#include "zwang/simulator.hpp"

extern char** environ;

namespace zwang::test {
namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// qpos of instance `i` after `steps` steps of the chain from the initial states of `seed`, as
// `zwang run chain --seed SEED` starts them
std::vector<double> chain_qpos(std::int64_t instances, std::uint64_t seed, int steps,
                               std::int64_t i) {
  Simulator<double> sim(examples::chain(), instances);
  scatter_states(sim, "", 0.01, seed);
  sim.step(steps);
  return sim.batch().qpos().get(i);
}

// the records a trajectory of the chain kept: as many in every series as `records` says, the
// attribute `status`, the instances' status as of the last record, every record but the last
// `record_every` steps apart, and in the last of them (at its own time: an interrupted run
// records where it stopped) the state a separate run of the same instances reaches after as
// many steps
void expect_kept_records(const std::string& path, const char* status, std::int64_t instances,
                         std::uint64_t seed, int record_every, long long* records_out) {
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(file, 0) << path << " does not open";
  EXPECT_EQ(string_attribute(file, "status"), status);
  const long long records = integer_attribute(file, "records");
  *records_out = records;
  EXPECT_GE(records, 1);
  std::vector<hsize_t> dims;
  const std::vector<double> qpos = dataset(file, "qpos", &dims);
  EXPECT_EQ(dims, (std::vector<hsize_t>{static_cast<hsize_t>(records),
                                        static_cast<hsize_t>(instances), 8}));
  const std::vector<double> time = dataset(file, "time", &dims);
  EXPECT_EQ(dims,
            (std::vector<hsize_t>{static_cast<hsize_t>(records), static_cast<hsize_t>(instances)}));
  const std::vector<double> instance_status = dataset(file, "status", &dims);
  EXPECT_EQ(dims, (std::vector<hsize_t>{static_cast<hsize_t>(instances)}));
  EXPECT_EQ(instance_status, std::vector<double>(instances, 0.0));
  const double dt = examples::chain().timestep;
  const std::int64_t i = instances / 2;
  if (records >= 1 && qpos.size() == static_cast<std::size_t>(records * instances * 8) &&
      time.size() == static_cast<std::size_t>(records * instances)) {
    for (long long r = 0; r + 1 < records; ++r) {
      EXPECT_EQ(std::lround(time[r * instances + i] / dt), r * record_every) << "record " << r;
    }
    const long long last = std::lround(time[(records - 1) * instances + i] / dt);
    EXPECT_GT(last, (records - 2) * record_every);
    EXPECT_LE(last, (records - 1) * record_every);
    const std::vector<double> expected = chain_qpos(instances, seed, static_cast<int>(last), i);
    for (int k = 0; k < 8; ++k)
      EXPECT_EQ(qpos[((records - 1) * instances + i) * 8 + k], expected[k]) << "coordinate " << k;
  }
  H5Fclose(file);
}

// a file-size limit reached in the middle of a run: a message naming the file and the error,
// exit status 1, and a file that holds every record written before, marked "failed"; SIGXFSZ
// is the default action (the program is killed) or ignored by the parent
TEST(CliOutput, FileSizeLimitEndsTheRunCleanlyAndKeepsEarlierRecords) {
  for (const char* xfsz : {"", "trap '' XFSZ; "}) {
    SCOPED_TRACE(*xfsz ? "SIGXFSZ ignored by the parent" : "SIGXFSZ as inherited");
    const TempDir dir("size_limit");
    const std::string out = dir / "traj.h5";
    const ProgramResult r =
        run_shell(std::string(xfsz) + "ulimit -f 8192; exec " + ZWANG_CLI +
                  " run chain -n 500 -t 4000 --record-every 10 --seed 4 --no-progress -o " + out);
    EXPECT_EQ(r.signal, 0) << r.output;
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find(out), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("File too large"), std::string::npos) << r.output;
    long long records = 0;
    expect_kept_records(out, "failed", 500, 4, 10, &records);
    EXPECT_LT(records, 401) << "the limit was not reached";
  }
}

// bytes of the file, 0 while there is none; the file itself is not opened while the program
// writes it, which HDF5's file locks would refuse (and an open that fails in the middle of a
// flush leaks inside HDF5)
std::uintmax_t file_bytes(const std::string& path) {
  std::error_code missing;
  const std::uintmax_t bytes = std::filesystem::file_size(path, missing);
  return missing ? 0 : bytes;
}

class CliInterrupt : public testing::TestWithParam<std::tuple<int, int>> {};

const char* signal_name(int signo) {
  return signo == SIGINT ? "SIGINT" : signo == SIGTERM ? "SIGTERM" : "SIGHUP";
}

// SIGINT, SIGTERM or SIGHUP while `zwang run -o` writes: it stops within a call of the engine,
// records where it stopped, keeps what it wrote, marks the file "interrupted", says how many
// records it kept and exits with 128+signo.  With a record every 20 steps, and with one record
// only at the end of 2·10⁹ steps (which the run would reach in weeks).
TEST_P(CliInterrupt, KeepsTheRecordsAndMarksTheFile) {
  const auto [signo, record_every] = GetParam();
  const TempDir dir(std::string("interrupt_") + signal_name(signo) + std::to_string(record_every));
  const std::string out = dir / "traj.h5", log = dir / "log.txt";
  std::vector<std::string> args{ZWANG_CLI,
                                "run",
                                "chain",
                                "-n",
                                "200",
                                "-t",
                                "2000000000",
                                "--record-every",
                                std::to_string(record_every),
                                "--seed",
                                "6",
                                "--no-progress",
                                "-o",
                                out};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 2, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 2, 1);
  // as from a terminal: a test run in the background would pass SIGINT on ignored
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGTERM);
  sigaddset(&defaults, SIGHUP);
  posix_spawnattr_setsigdefault(&attributes, &defaults);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGDEF);
  pid_t pid = 0;
  ASSERT_EQ(posix_spawn(&pid, ZWANG_CLI, &actions, &attributes, argv.data(), environ), 0);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);

  // 2 MB: the parameters and the first record (0.25 MB), and some 60 records of 29 kB; with
  // one record at the end, the first record and a second of stepping
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  const auto started = std::chrono::steady_clock::now();
  int status = 0;
  bool exited = false;
  while ((record_every == 20
              ? file_bytes(out) < 2'000'000
              : file_bytes(out) < 200'000 ||
                    std::chrono::steady_clock::now() - started < std::chrono::seconds(1)) &&
         std::chrono::steady_clock::now() < deadline) {
    if (waitpid(pid, &status, WNOHANG) == pid) {
      exited = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_FALSE(exited) << "ended before the signal:\n" << read_text(log);
  kill(pid, signo);
  // within a call of the engine (a quarter of a second) and the last record
  const auto stop_deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (waitpid(pid, &status, WNOHANG) != pid) {
    if (std::chrono::steady_clock::now() > stop_deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      FAIL() << "still running 20 s after the signal:\n" << read_text(log);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  const std::string output = read_text(log);
  ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << WTERMSIG(status) << "\n" << output;
  EXPECT_EQ(WEXITSTATUS(status), 128 + signo) << output;

  long long records = 0;
  expect_kept_records(out, "interrupted", 200, 6, record_every, &records);
  EXPECT_GE(records, record_every == 20 ? 3 : 2);
  EXPECT_NE(output.find(std::string("interrupted by ") + signal_name(signo)), std::string::npos)
      << output;
  EXPECT_NE(output.find(std::to_string(records) + " records"), std::string::npos) << output;

  // h5py, where it is installed, opens the file too
  if (run_shell("exec python3 -c 'import h5py'").exit_code == 0) {
    const ProgramResult py = run_shell(
        "exec python3 -c 'import h5py, sys; f = h5py.File(sys.argv[1], \"r\"); "
        "print(f.attrs[\"status\"].decode(), f[\"qpos\"].shape[0])' " +
        out);
    EXPECT_EQ(py.output, "interrupted " + std::to_string(records) + "\n");
  }
}

INSTANTIATE_TEST_SUITE_P(Signals, CliInterrupt,
                         testing::Values(std::tuple{SIGINT, 20}, std::tuple{SIGTERM, 20},
                                         std::tuple{SIGHUP, 20}, std::tuple{SIGINT, 2000000000}),
                         [](const testing::TestParamInfo<std::tuple<int, int>>& p) {
                           return std::string(signal_name(std::get<0>(p.param))) +
                                  (std::get<1>(p.param) == 20 ? "" : "_OneRecordAtTheEnd");
                         });

// an existing trajectory is replaced only with --overwrite: without it the run is refused
// before it starts and the file keeps its bytes
TEST(CliOutput, RunReplacesAnExistingTrajectoryOnlyWhenAsked) {
  const TempDir dir("overwrite");
  const std::string out = dir / "traj.h5";
  ASSERT_EQ(run_zwang("run chain -n 3 -t 20 --no-progress -o " + out).exit_code, 0);
  const std::string before = read_text(out);
  const ProgramResult again = run_zwang("run chain -n 5 -t 10 --no-progress -o " + out);
  EXPECT_EQ(again.exit_code, 1) << again.output;
  EXPECT_NE(again.output.find("-o " + out + ": the file exists; give --overwrite to replace it"),
            std::string::npos)
      << again.output;
  EXPECT_EQ(again.output.find("instance-steps/s"), std::string::npos) << "it did not run";
  EXPECT_TRUE(read_text(out) == before) << "the file changed";
  ASSERT_EQ(run_zwang("run chain -n 5 -t 10 --no-progress --overwrite -o " + out).exit_code, 0);
  const hid_t file = H5Fopen(out.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(file, 0);
  EXPECT_EQ(integer_attribute(file, "instances"), 5);
  EXPECT_EQ(integer_attribute(file, "records"), 2);
  H5Fclose(file);
}

// no room for the file at all (a file-size limit of 0, set in a child process): an error naming
// the file, and no empty file left behind. The OpenMP runtime is started before the fork: LLVM's
// registers each process in a file of /dev/shm, and one started under the limit dies leaving that
// file empty, which crashes any later process that is given the same pid.
TEST(CliOutput, FileThatCannotBeCreatedIsNotLeftEmpty) {
  const TempDir dir("no_room");
  const std::string out = dir / "traj.h5";
  ASSERT_GT(omp_get_num_procs(), 0);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    std::signal(SIGXFSZ, SIG_IGN);
    const rlimit none{0, 0};
    setrlimit(RLIMIT_FSIZE, &none);
    try {
      cli::H5File file(out);
    } catch (const std::runtime_error& e) {
      _exit(std::string(e.what()).starts_with(out + ": ") ? 3 : 4);
    }
    _exit(5);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 3) << "4: a message without the file; 5: no error";
  EXPECT_FALSE(std::filesystem::exists(out));
}

// a run that ends normally: "complete", every record, a ctrl dataset even without actuators,
// and a seed past 2⁶³ as it was given
TEST(CliOutput, FinishedTrajectoryIsMarkedComplete) {
  const TempDir dir("complete");
  cli::RunOptions o;
  o.instances = 3;
  o.steps = 30;
  o.record_every = 10;
  o.seed = 0x8000000000000005u;
  o.out = dir / "traj.h5";
  o.no_progress = true;
  ASSERT_EQ(cli::run_rollout("chain", {}, o), 0);
  const hid_t file = H5Fopen(o.out.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(file, 0);
  EXPECT_EQ(string_attribute(file, "status"), "complete");
  EXPECT_EQ(integer_attribute(file, "records"), 4);
  std::vector<hsize_t> dims;
  dataset(file, "ctrl", &dims);
  EXPECT_EQ(dims, (std::vector<hsize_t>{4, 3, 0}));
  unsigned long long seed = 0;
  const hid_t attr = H5Aopen(file, "seed", H5P_DEFAULT);
  H5Aread(attr, H5T_NATIVE_ULLONG, &seed);
  H5Aclose(attr);
  EXPECT_EQ(seed, 0x8000000000000005u);
  H5Fclose(file);
}

// states of the chain whose JSON answer is far larger than a few kilobytes
std::string chain_states(int count) {
  nlohmann::json in{{"qpos", nlohmann::json::array()}, {"qvel", nlohmann::json::array()}};
  for (int s = 0; s < count; ++s) {
    in["qpos"].push_back(std::vector<double>(8, 0.01 * s));
    in["qvel"].push_back(std::vector<double>(8, 0.0));
  }
  return in.dump();
}

// a device that is full: an error naming it and the OS error, no success line
TEST(CliOutput, DynamicsReportsAFullDevice) {
  const TempDir dir("dynamics_full");
  std::ofstream(dir / "states.json") << chain_states(2);
  const ProgramResult r = run_zwang("dynamics chain -i " + dir / "states.json" + " -o /dev/full");
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("/dev/full"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("No space left on device"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("->"), std::string::npos) << r.output;
}

// a file-size limit: the target keeps its previous contents, or is not created, and no partial
// file is left next to it; without the limit the target is the whole answer
TEST(CliOutput, DynamicsTargetIsCompleteOrUntouched) {
  const TempDir dir("dynamics_limit");
  std::ofstream(dir / "states.json") << chain_states(300);
  std::ofstream(dir / "old.json") << "previous\n";
  for (const char* target : {"old.json", "new.json"}) {
    SCOPED_TRACE(target);
    const ProgramResult r =
        run_shell("ulimit -f 16; exec " + std::string(ZWANG_CLI) + " dynamics chain -i " +
                  dir / "states.json" + " -o " + dir / target);
    EXPECT_EQ(r.signal, 0) << r.output;
    EXPECT_NE(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find(dir / target), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("File too large"), std::string::npos) << r.output;
  }
  EXPECT_EQ(read_text(dir / "old.json"), "previous\n");
  std::vector<std::string> left;
  for (const auto& e : std::filesystem::directory_iterator(dir.path()))
    left.push_back(e.path().filename().string());
  std::sort(left.begin(), left.end());
  EXPECT_EQ(left, (std::vector<std::string>{"old.json", "states.json"}));

  const ProgramResult ok =
      run_zwang("dynamics chain -i " + dir / "states.json" + " -o " + dir / "old.json");
  ASSERT_EQ(ok.exit_code, 0) << ok.output;
  const nlohmann::json answer = nlohmann::json::parse(read_text(dir / "old.json"));
  EXPECT_EQ(answer["M"].size(), 300u);
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()),
                          std::filesystem::directory_iterator()),
            2);
}

// an arm on a hinge limited to [-0.5, 0.5] rad, about y, its COM 0.5 m out along x
constexpr const char* kLimitedArm = R"(<mujoco>
  <worldbody>
    <body name="arm">
      <joint name="hinge" type="hinge" axis="0 1 0" limited="true" range="-0.5 0.5"/>
      <inertial pos="0.5 0 0" mass="1" diaginertia="0.01 0.02 0.02"/>
    </body>
  </worldbody>
</mujoco>
)";

// `zwang dynamics MODEL ARGS` on `states`, the answer parsed
nlohmann::json dynamics_answer(const TempDir& dir, const std::string& model,
                               const std::string& states, const std::string& args) {
  std::ofstream(dir / "states.json") << states;
  const ProgramResult r = run_zwang("dynamics " + model + " -i " + dir / "states.json" + " -o " +
                                    dir / "out.json " + args);
  EXPECT_EQ(r.exit_code, 0) << args << "\n" << r.output;
  return r.exit_code == 0 ? nlohmann::json::parse(read_text(dir / "out.json")) : nlohmann::json();
}

// every key of `zwang dynamics` has one entry per state of its width, and the constraint force
// is what separates the two accelerations: H (q̈ − q̈_smooth) = qfrc_constraint
TEST(CliOutput, DynamicsWritesConstraintOutputs) {
  const TempDir dir("dynamics_constraints");
  const Model m = examples::cart_pole();
  const std::string states = R"({"qpos": [[0, 0.3], [0.1, -0.2], [0, 0]],
                                 "qvel": [[0, 0], [1, 2], [0, -1]], "ctrl": [[0], [1], [-1]]})";
  const nlohmann::json out =
      dynamics_answer(dir, "cart_pole", states, "--drive hinge=0.1,0,0.5,3,0");
  ASSERT_TRUE(out.is_object());
  for (const auto& [key, width] :
       std::vector<std::pair<std::string, int>>{{"M", m.nv * m.nv},
                                                {"bias", m.nv},
                                                {"qacc", m.nv},
                                                {"qacc_smooth", m.nv},
                                                {"qfrc_constraint", m.nv},
                                                {"drive_force", 1}}) {
    ASSERT_TRUE(out.contains(key)) << key;
    ASSERT_EQ(out[key].size(), 3u) << key;
    for (const auto& row : out[key]) EXPECT_EQ(row.size(), static_cast<std::size_t>(width)) << key;
  }
  for (const char* key : {"efc_nactive", "solver_niter"}) {
    ASSERT_EQ(out[key].size(), 3u) << key;
    for (const auto& count : out[key]) EXPECT_TRUE(count.is_number_integer()) << key;
  }
  for (int s = 0; s < 3; ++s) {
    EXPECT_EQ(out["efc_nactive"][s], 1) << "state " << s;  // the drive's hard row
    const std::vector<double> mass = out["M"][s], a = out["qacc"][s], a0 = out["qacc_smooth"][s],
                              f = out["qfrc_constraint"][s];
    for (int r = 0; r < m.nv; ++r) {
      double h_da = 0;
      for (int c = 0; c < m.nv; ++c) h_da += mass[r * m.nv + c] * (a[c] - a0[c]);
      EXPECT_NEAR(h_da, f[r], 1e-9 * (1 + std::abs(f[r]))) << "state " << s << ", dof " << r;
    }
    // the drive acts on the hinge alone
    EXPECT_EQ(f[0], 0.0) << "state " << s;
    EXPECT_EQ(out["drive_force"][s][0], f[1]) << "state " << s;
  }
  // no drive, no constraint: no drive_force, and the two accelerations agree
  const nlohmann::json free = dynamics_answer(dir, "cart_pole", states, "");
  ASSERT_TRUE(free.is_object());
  EXPECT_FALSE(free.contains("drive_force"));
  EXPECT_EQ(free["qacc"], free["qacc_smooth"]);
  EXPECT_EQ(free["efc_nactive"], nlohmann::json({0, 0, 0}));
}

// a hinge pushed past its limit: the limit row acts, and --disable limit (or constraint) leaves
// q̈ = q̈_smooth
TEST(CliOutput, DisableLimitLeavesTheSmoothAcceleration) {
  const TempDir dir("dynamics_limit");
  std::ofstream(dir / "arm.xml") << kLimitedArm;
  const std::string states = R"({"qpos": [[0.8], [-0.7], [0.6]], "qvel": [[0], [0], [1]]})";
  const nlohmann::json on = dynamics_answer(dir, dir / "arm.xml", states, "");
  ASSERT_TRUE(on.is_object());
  for (int s = 0; s < 3; ++s) {
    EXPECT_EQ(on["efc_nactive"][s], 1) << "state " << s;
    EXPECT_GT(std::abs(on["qacc"][s][0].get<double>() - on["qacc_smooth"][s][0].get<double>()), 1)
        << "state " << s;
    EXPECT_NE(on["qfrc_constraint"][s][0], 0.0) << "state " << s;
  }
  // past the upper limit the row pushes down, past the lower one up
  EXPECT_LT(on["qfrc_constraint"][0][0], 0.0);
  EXPECT_GT(on["qfrc_constraint"][1][0], 0.0);
  for (const char* flag : {"--disable limit", "--disable equality,limit", "--disable constraint"}) {
    const nlohmann::json off = dynamics_answer(dir, dir / "arm.xml", states, flag);
    ASSERT_TRUE(off.is_object()) << flag;
    EXPECT_EQ(off["qacc"], off["qacc_smooth"]) << flag;
    EXPECT_EQ(off["qacc_smooth"], on["qacc_smooth"]) << flag;
    EXPECT_EQ(off["qfrc_constraint"], nlohmann::json({{0.0}, {0.0}, {0.0}})) << flag;
    EXPECT_EQ(off["efc_nactive"], nlohmann::json({0, 0, 0})) << flag;
  }
}

// a constraint solve that reaches the iteration cap is a warning naming the state, not an error:
// two limited hinges with friction loss, both beyond their limits, need more than one Newton
// iteration
TEST(CliOutput, DynamicsAnswersAStateAtTheIterationCap) {
  const TempDir dir("dynamics_cap");
  std::ofstream(dir / "arms.xml") << R"(<mujoco>
  <option iterations="1"/>
  <default><joint type="hinge" axis="0 1 0" limited="true" range="-0.3 0.4" frictionloss="5"/>
  </default>
  <worldbody>
    <body name="upper">
      <joint name="shoulder"/>
      <geom type="capsule" fromto="0 0 0 0 0 -1" size="0.05" mass="1"/>
      <body name="lower" pos="0 0 -1">
        <joint name="elbow"/>
        <geom type="capsule" fromto="0 0 0 0 0 -1" size="0.05" mass="1"/>
      </body>
    </body>
  </worldbody>
</mujoco>
)";
  const Model m = cli::open_model(dir / "arms.xml").model;
  const cli::States states =
      cli::parse_states(R"({"qpos": [[0, 0], [0.6, -0.6]], "qvel": [[0, 0], [3, -3]]})", m);
  std::vector<std::string> warnings;
  const nlohmann::json out =
      nlohmann::json::parse(cli::dynamics_json<double>(m, states, &warnings));
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0].rfind("state 1: not converged", 0), 0u) << warnings[0];
  EXPECT_EQ(out["solver_niter"][1], 1);
  EXPECT_EQ(out["efc_nactive"][1], 4) << "two limits and two friction rows";
}

// `run --drive` keeps the drive's numbers in parameters/drive_prm, [instance][5 per drive], the
// driven joints' names, and the active rows and solver iterations of every record
TEST(CliOutput, RunRecordsTheDriveParameters) {
  const TempDir dir("run_drive");
  const std::string out = dir / "traj.h5";
  const ProgramResult r = run_zwang(
      "run cart_pole -n 3 -t 20 --record-every 10 --no-progress --disable limit "
      "--drive hinge=0.1,0,0.5,3,-1 -o " +
      out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const hid_t file = H5Fopen(out.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(file, 0);
  std::vector<hsize_t> dims;
  const std::vector<double> prm = dataset(file, "parameters/drive_prm", &dims);
  ASSERT_EQ(dims, (std::vector<hsize_t>{3, 5}));
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(std::vector<double>(prm.begin() + 5 * i, prm.begin() + 5 * i + 5),
              (std::vector<double>{0.1, 0, 0.5, 3, -1}))
        << "instance " << i;
  }
  EXPECT_EQ(integer_attribute(file, "disableflags"), kDisableLimit);
  const std::vector<double> nactive = dataset(file, "efc_nactive", &dims);
  ASSERT_EQ(dims, (std::vector<hsize_t>{3, 3}));
  EXPECT_EQ(nactive.back(), 1);
  dataset(file, "solver_niter", &dims);
  EXPECT_EQ(dims, (std::vector<hsize_t>{3, 3}));
  H5Fclose(file);

  // without drives the dataset is there, with no elements
  const ProgramResult plain =
      run_zwang("run cart_pole -n 3 -t 1 --no-progress --overwrite -o " + out);
  ASSERT_EQ(plain.exit_code, 0) << plain.output;
  const hid_t again = H5Fopen(out.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(again, 0);
  dataset(again, "parameters/drive_prm", &dims);
  EXPECT_EQ(dims, (std::vector<hsize_t>{3, 0}));
  H5Fclose(again);
}

// what the MJCF file sets and what the options add: --disable ORs into <option><flag>, and
// --drive replaces the numbers of a <custom> drive:JOINT, keeping its place
TEST(CliOutput, OptionsAddToTheFilesFlagsAndDrives) {
  const TempDir dir("run_mjcf_drive");
  std::ofstream(dir / "arm.xml") << R"(<mujoco>
  <option><flag equality="disable"/></option>
  <custom><numeric name="drive:shoulder" data="0 0 0.2 1 0"/></custom>
  <worldbody>
    <body name="upper">
      <joint name="shoulder" type="hinge" axis="0 1 0"/>
      <inertial pos="0.5 0 0" mass="1" diaginertia="0.01 0.02 0.02"/>
      <body name="lower" pos="1 0 0">
        <joint name="elbow" type="hinge" axis="0 1 0"/>
        <inertial pos="0.5 0 0" mass="1" diaginertia="0.01 0.02 0.02"/>
      </body>
    </body>
  </worldbody>
</mujoco>
)";
  const std::string out = dir / "traj.h5";
  const ProgramResult r = run_zwang("run " + dir / "arm.xml" +
                                    " -n 2 -t 10 --no-progress --disable limit --drive "
                                    "elbow=0,0,0,0,0 --drive shoulder=0.1,0,0.5,3,-1 -o " +
                                    out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const hid_t file = H5Fopen(out.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(file, 0);
  EXPECT_EQ(integer_attribute(file, "disableflags"), kDisableEquality | kDisableLimit);
  std::vector<hsize_t> dims;
  const std::vector<double> prm = dataset(file, "parameters/drive_prm", &dims);
  ASSERT_EQ(dims, (std::vector<hsize_t>{2, 10}));
  EXPECT_EQ(std::vector<double>(prm.begin() + 10, prm.end()),
            (std::vector<double>{0.1, 0, 0.5, 3, -1, 0, 0, 0, 0, 0}));
  H5Fclose(file);
}

// `run --keyframe` starts every instance from the keyframe: the first record holds its qpos,
// qvel, ctrl and time, exactly, unless --init-noise is given
TEST(CliOutput, RunStartsFromTheKeyframe) {
  const TempDir dir("run_keyframe");
  std::ofstream(dir / "arm.xml") << R"(<mujoco>
  <worldbody>
    <body name="upper">
      <joint name="shoulder" type="hinge" axis="0 1 0"/>
      <inertial pos="0.5 0 0" mass="1" diaginertia="0.01 0.02 0.02"/>
      <body name="lower" pos="1 0 0">
        <joint name="elbow" type="hinge" axis="0 1 0"/>
        <inertial pos="0.5 0 0" mass="1" diaginertia="0.01 0.02 0.02"/>
      </body>
    </body>
  </worldbody>
  <actuator><motor joint="elbow"/></actuator>
  <keyframe>
    <key name="up" time="3" qpos="0.5 -0.25" qvel="1 2" ctrl="0.75"/>
    <key qpos="-1 1"/>
  </keyframe>
</mujoco>
)";
  const std::string out = dir / "traj.h5";
  for (const std::string key : {"up", "1"}) {
    const ProgramResult r = run_zwang("run " + dir / "arm.xml" + " -n 3 -t 2 --record-every 1 " +
                                      "--no-progress --overwrite --keyframe " + key + " -o " + out);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const hid_t file = H5Fopen(out.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    ASSERT_GE(file, 0);
    EXPECT_EQ(string_attribute(file, "keyframe"), key);
    std::vector<hsize_t> dims;
    const std::vector<double> qpos = dataset(file, "qpos", &dims),
                              qvel = dataset(file, "qvel", &dims),
                              ctrl = dataset(file, "ctrl", &dims),
                              time = dataset(file, "time", &dims);
    const bool up = key == "up";
    const std::vector<double> want_qpos =
                                  up ? std::vector<double>{0.5, -0.25} : std::vector<double>{-1, 1},
                              want_qvel =
                                  up ? std::vector<double>{1, 2} : std::vector<double>{0, 0};
    for (int i = 0; i < 3; ++i) {
      EXPECT_EQ(std::vector<double>(qpos.begin() + 2 * i, qpos.begin() + 2 * i + 2), want_qpos);
      EXPECT_EQ(std::vector<double>(qvel.begin() + 2 * i, qvel.begin() + 2 * i + 2), want_qvel);
      EXPECT_EQ(ctrl[i], up ? 0.75 : 0);
      EXPECT_EQ(time[i], up ? 3 : 0);
    }
    H5Fclose(file);
  }
  const ProgramResult noisy = run_zwang("run " + dir / "arm.xml" +
                                        " -n 2 -t 0 --no-progress --keyframe up --init-noise 0.1 "
                                        "--overwrite -o " +
                                        out);
  ASSERT_EQ(noisy.exit_code, 0) << noisy.output;
  const hid_t file = H5Fopen(out.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(file, 0);
  std::vector<hsize_t> dims;
  const std::vector<double> qpos = dataset(file, "qpos", &dims);
  EXPECT_NE(qpos[0], 0.5);
  EXPECT_NEAR(qpos[0], 0.5, 0.1);
  H5Fclose(file);
  const ProgramResult bad =
      run_zwang("run " + dir / "arm.xml" + " -n 2 -t 1 --no-progress --keyframe down");
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.output.find("--keyframe: no keyframe 'down' (the model's: 'up', 1 (unnamed))"),
            std::string::npos)
      << bad.output;
}

// a free sphere of radius 0.1 over the plane z = 0: geom 0 the plane, geom 1 the sphere
constexpr const char* kSphereOnPlane = R"(<mujoco>
  <worldbody>
    <geom name="floor" type="plane" size="1 1 .1"/>
    <body name="ball" pos="0 0 0.09">
      <freejoint name="free"/>
      <geom name="sphere" type="sphere" size="0.1"/>
    </body>
  </worldbody>
</mujoco>
)";

std::array<double, 3> cross(const std::array<double, 3>& a, const std::array<double, 3>& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}

// sphere (centre c, radius r) on the plane z = 0, for MuJoCo's plane–sphere contact:
//   dist = c_z − r,   pos = c − (r + dist/2) e_z = (c_x, c_y, dist/2),   normal e_z
// and the contact force on the sphere (geom2) is the whole constraint force on its free joint:
//   qfrc_constraint = [F; Rᵀ ((pos − c) × F)],   F = frameᵀ force[0:3]
TEST(CliOutput, DynamicsReportsContacts) {
  const TempDir dir("dynamics_contacts");
  std::ofstream(dir / "ball.xml") << kSphereOnPlane;
  constexpr double r = 0.1;
  // at rest 0.01 deep; sliding and spinning 0.02 deep, turned 120° about (1, 1, 1); in the air
  const std::string states = R"({"qpos": [[0, 0, 0.09, 1, 0, 0, 0],
                                          [0.3, -0.2, 0.08, 0.5, 0.5, 0.5, 0.5],
                                          [0, 0, 0.5, 1, 0, 0, 0]],
                                 "qvel": [[0, 0, 0, 0, 0, 0], [1, 0.5, 0, 0, 0, 2],
                                          [0, 0, 0, 0, 0, 0]]})";
  const nlohmann::json in = nlohmann::json::parse(states);
  const nlohmann::json out = dynamics_answer(dir, dir / "ball.xml", states, "");
  ASSERT_TRUE(out.is_object());
  EXPECT_EQ(out["ncon"], nlohmann::json({1, 1, 0}));
  for (const char* key : {"contact_geom", "contact_geom_name", "contact_dist", "contact_pos",
                          "contact_frame", "contact_force"}) {
    ASSERT_EQ(out[key].size(), 3u) << key;
    for (int s = 0; s < 3; ++s) ASSERT_EQ(out[key][s].size(), s < 2 ? 1u : 0u) << key << " " << s;
  }
  for (int s = 0; s < 2; ++s) {
    SCOPED_TRACE("state " + std::to_string(s));
    const std::vector<double> q = in["qpos"][s];
    EXPECT_EQ(out["contact_geom"][s][0], nlohmann::json({0, 1}));
    EXPECT_EQ(out["contact_geom_name"][s][0], nlohmann::json::array({"floor", "sphere"}));
    const double dist = out["contact_dist"][s][0];
    EXPECT_NEAR(dist, q[2] - r, 1e-12);
    const std::vector<double> pos = out["contact_pos"][s][0], frame = out["contact_frame"][s][0],
                              force = out["contact_force"][s][0], qfrc = out["qfrc_constraint"][s];
    ASSERT_EQ(pos.size(), 3u);
    ASSERT_EQ(frame.size(), 9u);
    ASSERT_EQ(force.size(), 6u);
    EXPECT_NEAR(pos[0], q[0], 1e-12);
    EXPECT_NEAR(pos[1], q[1], 1e-12);
    EXPECT_NEAR(pos[2], (q[2] - r) / 2, 1e-12);
    // rows normal, tangent 1, tangent 2: orthonormal and right-handed, the normal e_z
    const std::array<double, 3> n{frame[0], frame[1], frame[2]}, t1{frame[3], frame[4], frame[5]},
        t2{frame[6], frame[7], frame[8]};
    EXPECT_NEAR(n[0], 0, 1e-12);
    EXPECT_NEAR(n[1], 0, 1e-12);
    EXPECT_NEAR(n[2], 1, 1e-12);
    for (int a = 0; a < 3; ++a) {
      for (int b = 0; b < 3; ++b) {
        double dot = 0;
        for (int k = 0; k < 3; ++k) dot += frame[3 * a + k] * frame[3 * b + k];
        EXPECT_NEAR(dot, a == b ? 1 : 0, 1e-12) << "rows " << a << ", " << b;
      }
    }
    const std::array<double, 3> n_t1 = cross(n, t1);
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(t2[k], n_t1[k], 1e-12);
    // the plane pushes: a positive normal force; condim 3 has no torsion or rolling
    EXPECT_GT(force[0], 0);
    EXPECT_EQ(std::vector<double>(force.begin() + 3, force.end()), std::vector<double>(3, 0.0));
    std::array<double, 3> f{};
    for (int k = 0; k < 3; ++k) f[k] = force[0] * n[k] + force[1] * t1[k] + force[2] * t2[k];
    const double scale = 1e-9 * force[0];
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(qfrc[k], f[k], scale) << "force " << k;
    // the torque about the centre, in the body frame: column k of R is body axis k in the world
    const std::array<double, 3> arm{pos[0] - q[0], pos[1] - q[1], pos[2] - q[2]};
    const std::array<double, 3> tau = cross(arm, f);
    const double w = q[3], x = q[4], y = q[5], z = q[6];
    const double rot[9] = {
        1 - 2 * (y * y + z * z), 2 * (x * y - w * z),     2 * (x * z + w * y),
        2 * (x * y + w * z),     1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
        2 * (x * z - w * y),     2 * (y * z + w * x),     1 - 2 * (x * x + y * y)};
    for (int k = 0; k < 3; ++k) {
      const double body = rot[k] * tau[0] + rot[3 + k] * tau[1] + rot[6 + k] * tau[2];
      EXPECT_NEAR(qfrc[3 + k], body, scale) << "torque " << k;
    }
    // friction opposes the contact point's sliding: v + R ω × (pos − c)
    const std::vector<double> v = in["qvel"][s];
    const std::array<double, 3> omega{rot[0] * v[3] + rot[1] * v[4] + rot[2] * v[5],
                                      rot[3] * v[3] + rot[4] * v[4] + rot[5] * v[5],
                                      rot[6] * v[3] + rot[7] * v[4] + rot[8] * v[5]};
    const std::array<double, 3> spin = cross(omega, arm);
    const double power = (v[0] + spin[0]) * f[0] + (v[1] + spin[1]) * f[1];
    if (s == 1) {
      EXPECT_LT(power, 0);
    }
  }
  // at rest the pyramid's edges push alike: no friction force
  EXPECT_NEAR(out["contact_force"][0][0][1].get<double>(), 0, 1e-9);
  EXPECT_NEAR(out["contact_force"][0][0][2].get<double>(), 0, 1e-9);
  // in the air nothing acts
  EXPECT_EQ(out["qacc"][2], out["qacc_smooth"][2]);

  // --disable contact (or constraint): no contacts, and q̈ = q̈_smooth
  for (const char* flag : {"--disable contact", "--disable constraint"}) {
    const nlohmann::json off = dynamics_answer(dir, dir / "ball.xml", states, flag);
    ASSERT_TRUE(off.is_object()) << flag;
    EXPECT_EQ(off["ncon"], nlohmann::json({0, 0, 0})) << flag;
    for (const char* key : {"contact_geom", "contact_geom_name", "contact_dist", "contact_pos",
                            "contact_frame", "contact_force"}) {
      ASSERT_EQ(off[key].size(), 3u) << flag << " " << key;
      for (const auto& contacts : off[key]) EXPECT_TRUE(contacts.empty()) << flag << " " << key;
    }
    EXPECT_EQ(off["efc_nactive"], nlohmann::json({0, 0, 0})) << flag;
    EXPECT_EQ(off["qacc"], off["qacc_smooth"]) << flag;
    EXPECT_EQ(off["qacc_smooth"], out["qacc_smooth"]) << flag;
  }
}

// `run` records the contacts of every instance at every record, the first at the initial state:
// the sphere, 0.01 deep at the start, settles on the plane and stays in contact; with
// --disable contact there are none
TEST(CliOutput, RunRecordsTheContacts) {
  const TempDir dir("run_contacts");
  std::ofstream(dir / "ball.xml") << kSphereOnPlane;
  const std::string out = dir / "traj.h5";
  for (const bool contacts : {true, false}) {
    SCOPED_TRACE(contacts ? "contacts on" : "--disable contact");
    const ProgramResult r = run_zwang(
        "run " + dir / "ball.xml" + " -n 3 -t 40 --record-every 10 --no-progress --overwrite -o " +
        out + (contacts ? "" : " --disable contact"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const hid_t file = H5Fopen(out.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    ASSERT_GE(file, 0);
    EXPECT_EQ(integer_attribute(file, "ngeom"), 2);
    if (contacts) {
      EXPECT_GE(integer_attribute(file, "nconmax"), 1);
    }
    std::vector<hsize_t> dims;
    const std::vector<double> ncon = dataset(file, "ncon", &dims);
    EXPECT_EQ(dims, (std::vector<hsize_t>{5, 3}));
    EXPECT_EQ(ncon, std::vector<double>(5 * 3, contacts ? 1.0 : 0.0));
    H5Fclose(file);
  }
}

}  // namespace
}  // namespace zwang::test
