// What the command-line tool refuses, and how it says so: option values out of range, parameters
// a model lacks, states files with misplaced numbers or keys, and directories given as files.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>

#include "cli_common.hpp"
#include "cli_process.h"
#include "test_util.h"
#include "zwang/examples.hpp"

namespace zwang::test {
namespace {

// values outside an option's range: a non-zero exit and a message naming the option with bounds
// a person can read (no run of 20 digits, such as the 309 of the largest double, besides the
// value given)
TEST(CliInput, OptionRangesAreCheckedWithReadableBounds) {
  const std::regex long_number("[0-9]{20}");
  const std::vector<std::pair<std::string, std::string>> cases{
      {"-n 0", "--instances"},
      {"-n -5", "--instances"},
      {"-n abc", "--instances"},
      {"-t -1", "--steps"},
      {"-t 99999999999", "--steps"},
      {"--threads -1", "--threads"},
      {"--record-every 0", "--record-every"},
      {"--init-noise 1e308", "--init-noise"},
      {"--init-noise 3.2", "--init-noise"},
      {"--init-noise -0.1", "--init-noise"},
      {"--init-noise nan", "--init-noise"},
      {"--seed -1", "--seed"},
      {"--seed 1.5", "--seed"},
      {"--seed 18446744073709551616", "--seed"},
  };
  for (const auto& [args, option] : cases) {
    const ProgramResult r = run_zwang("run chain -n 2 -t 1 --no-progress " + args);
    EXPECT_NE(r.exit_code, 0) << args << "\n" << r.output;
    EXPECT_NE(r.output.find(option), std::string::npos) << args << "\n" << r.output;
    std::string message = r.output;
    const std::string value = args.substr(args.find(' ') + 1);
    for (std::size_t at; (at = message.find(value)) != std::string::npos;)
      message.erase(at, value.size());
    EXPECT_FALSE(std::regex_search(message, long_number)) << args << "\n" << r.output;
  }
  // the bound of --init-noise is half a turn
  EXPECT_NE(run_zwang("run chain --init-noise 1e308").output.find("3.14159"), std::string::npos);
  for (const char* args : {"--seed 18446744073709551615", "--init-noise 3.14159", "--seed 0"}) {
    const ProgramResult r = run_zwang(std::string("run chain -n 2 -t 1 --no-progress ") + args);
    EXPECT_EQ(r.exit_code, 0) << args << "\n" << r.output;
  }
}

// a --randomize parameter the model has nothing of, or only zeros of, is an error naming it
TEST(CliInput, RandomizeNamesParametersTheModelLacks) {
  const Model chain = examples::chain();  // no actuators, no damping, no stiffness
  Simulator<double> sim(chain, 2);
  std::mt19937_64 rng(1);
  EXPECT_EQ(error_of<std::exception>(
                [&] { cli::apply_randomize(sim, cli::parse_randomize("gain=0.5:2"), rng); }),
            "--randomize: 'gain' has nothing to scale: the model has no actuators");
  EXPECT_EQ(error_of<std::exception>([&] {
              cli::apply_randomize(sim, cli::parse_randomize("mass=0.9:1.1,gear=0.5:2"), rng);
            }),
            "--randomize: 'gear' has nothing to scale: the model has no actuators");
  EXPECT_EQ(error_of<std::exception>(
                [&] { cli::apply_randomize(sim, cli::parse_randomize("stiffness=0.5:2"), rng); }),
            "--randomize: 'stiffness' has nothing to scale: every joint stiffness of the model "
            "is 0");
  // nothing was scaled before the error
  EXPECT_EQ(sim.batch().body_mass()(0, 1), chain.body_mass[1]);

  const ProgramResult r = run_zwang("run chain -n 2 -t 1 --no-progress --randomize gain=0.5:2");
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("the model has no actuators"), std::string::npos) << r.output;
}

TEST(CliInput, StatesJsonNamesTheFieldOfEveryError) {
  const Model m = examples::cart_pole();  // nq 2, nv 2, nu 1
  auto error = [&](const char* json) {
    return error_of<std::exception>([&] { cli::parse_states(json, m); });
  };
  EXPECT_EQ(error(R"({"qpos": [[0, 1]], "qvel": [[0, 0]], "ctrl": [[1e400]]})"),
            "states: ctrl[0][0] is out of range: 1e400");
  EXPECT_EQ(error(R"({"qpos": [[0, 1], [2, -1e999]], "qvel": [[0, 0], [0, 0]]})"),
            "states: qpos[1][1] is out of range: -1e999");
  EXPECT_EQ(error(R"({"qpos": [[0, 1]], "qvel": [[0, 0]], "qpos": [[2, 3]]})"),
            "states: key \"qpos\" appears twice");
  EXPECT_EQ(error(R"({"qpos": [[0, 1]], "qvel": [[0, 0]], "qacc": [[0, 0]]})"),
            "states: unknown key \"qacc\" (known: qpos, qvel, ctrl)");
  EXPECT_EQ(error(R"({"qpos": [[0, 1]], "qvel": [[0, 0]], "ctrl": [[0]], "Ctrl": [[0]]})"),
            "states: unknown key \"Ctrl\" (known: qpos, qvel, ctrl)");
  EXPECT_EQ(error(R"({"qpos": [[0, 1]], )").rfind("states: not valid JSON", 0), 0u);
  // tiny numbers are numbers, rounded to the nearest double
  const cli::States s = cli::parse_states(R"({"qpos": [[1e-400, 1]], "qvel": [[0, 0]]})", m);
  EXPECT_EQ(s.qpos[0][0], 0.0);
}

// a directory where a file is expected is called a directory (a model by the loaders)
TEST(CliInput, DirectoriesAreNotFiles) {
  const TempDir dir("directories");
  std::filesystem::create_directory(dir.path() / "sub");
  std::ofstream(dir / "states.json") << R"({"qpos": [[0, 0]], "qvel": [[0, 0]]})";
  const std::string sub = dir / "sub";
  for (const std::string& args :
       {"dynamics cart_pole -i " + sub + " -o " + dir / "out.json",
        "dynamics cart_pole -i " + dir / "states.json" + " -o " + sub,
        "run cart_pole -n 2 -t 1 --no-progress -o " + sub, "info " + sub}) {
    const ProgramResult r = run_zwang(args);
    EXPECT_NE(r.exit_code, 0) << args << "\n" << r.output;
    EXPECT_NE(r.output.find(sub + ": "), std::string::npos) << args << "\n" << r.output;
    EXPECT_NE(r.output.find("is a directory"), std::string::npos) << args << "\n" << r.output;
  }
  EXPECT_FALSE(std::filesystem::exists(dir / "out.json"));
}

// a device that never ends is read up to the bound, not until memory runs out
TEST(CliInput, InputsAreReadUpToABound) {
  EXPECT_EQ(error_of<std::runtime_error>([] { cli::read_file("/dev/zero", 1 << 20); }),
            "/dev/zero: more than 1048576 bytes, larger than an input may be");
  EXPECT_EQ(cli::read_file("/dev/null", 1 << 20), "");
}

}  // namespace
}  // namespace zwang::test
