// `zwang bench` as a separate process, with counts so small that it measures nothing: the CSV's
// columns, each ratio the quotient of its row's two rates, every peer whose plugin was built
// present, a peer whose plugin is missing named and skipped, and the CSV written when the
// plotter is missing.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <sstream>

#include "cli_process.h"
#include "data_dir.h"
#include "host/cli/cli_common.hpp"

namespace zwang::test {
namespace {

namespace fs = std::filesystem;

fs::path test_dir() {
  return data_dir();
}

// the CSV's header
constexpr const char* kHeader =
    "model,nv,mode,instances,threads,steps_per_call,backend,precision,zwang,mujoco4,mujoco2,"
    "pinocchio,zwang_over_mujoco4,zwang_over_mujoco2,zwang_over_pinocchio";

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream s(line);
  std::string field;
  while (std::getline(s, field, ',')) out.push_back(field);
  if (!line.empty() && line.back() == ',') out.push_back("");
  return out;
}

const std::vector<std::string> kColumns = split(kHeader);

// the CSV as rows of column name -> field, the header checked
std::vector<std::map<std::string, std::string>> read_csv(const std::string& file) {
  std::stringstream text(cli::read_file(file));
  std::string line;
  std::getline(text, line);
  EXPECT_EQ(split(line), kColumns);
  std::vector<std::map<std::string, std::string>> rows;
  while (std::getline(text, line)) {
    const std::vector<std::string> fields = split(line);
    EXPECT_EQ(fields.size(), kColumns.size()) << line;
    std::map<std::string, std::string> row;
    for (std::size_t j = 0; j < std::min(fields.size(), kColumns.size()); ++j)
      row[kColumns[j]] = fields[j];
    rows.push_back(row);
  }
  return rows;
}

// the arguments of a bench that takes a fraction of a second: a 4-dof MJCF chain stepped, a
// 5-dof URDF arm's forward dynamics, scalar CPU only
std::string tiny_bench(const std::string& csv) {
  return fmt::format(
      "bench {} {} -n 4,8 --steps-per-call 1,2 --threads 1 --rounds 1 --min-time 0 "
      "--backends cpu-scalar --csv {}",
      (test_dir() / "models/chain.xml").string(), (test_dir() / "urdf/serial_arm.urdf").string(),
      csv);
}

// the peers whose plugins sit beside the program, as `zwang bench` finds them
bool plugin_built(const std::string& peer) {
  return fs::exists(fs::path(ZWANG_CLI).parent_path() / ("zwang_peer_" + peer + ".so"));
}

TEST(CliBench, CsvHasEveryConfigurationAndRatiosAreQuotients) {
  const TempDir dir("bench");
  const ProgramResult r = run_zwang(tiny_bench(dir / "bench.csv"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto rows = read_csv(dir / "bench.csv");
  // chain: 2 counts x 2 steps per call x 2 precisions; the arm: 2 counts x 2 precisions
  ASSERT_EQ(rows.size(), 12u) << r.output;
  int step_rows = 0;
  for (const auto& row : rows) {
    const bool step = row.at("mode") == "step";
    step_rows += step;
    EXPECT_EQ(row.at("model"), step ? "chain.xml" : "serial_arm.urdf");
    EXPECT_EQ(row.at("nv"), step ? "4" : "5");
    EXPECT_EQ(row.at("threads"), "1");
    EXPECT_EQ(row.at("backend"), "cpu-scalar");
    if (!step) {
      EXPECT_EQ(row.at("steps_per_call"), "1");
    }
    const double zwang = std::stod(row.at("zwang"));
    EXPECT_GT(zwang, 0);
    for (const char* peer : {"mujoco4", "mujoco2", "pinocchio"}) {
      const std::string& rate = row.at(peer);
      const std::string& ratio = row.at(std::string("zwang_over_") + peer);
      // MuJoCo steps the MJCF chain, Pinocchio takes the URDF arm
      const bool expected = plugin_built(peer) && step == (std::string(peer) != "pinocchio");
      EXPECT_EQ(!rate.empty(), expected) << peer << " in " << row.at("model");
      EXPECT_EQ(rate.empty(), ratio.empty()) << peer;
      if (rate.empty()) continue;
      EXPECT_GT(std::stod(rate), 0);
      EXPECT_NEAR(std::stod(ratio), zwang / std::stod(rate), 1e-14 * std::stod(ratio)) << peer;
    }
  }
  EXPECT_EQ(step_rows, 8);
  // the table names every peer it measured
  for (const auto& [peer, label] : {std::pair{"mujoco4", "MuJoCo 4.0"},
                                    {"mujoco2", "MuJoCo 2.2.2"},
                                    {"pinocchio", "Pinocchio"}}) {
    if (plugin_built(peer)) {
      EXPECT_NE(r.output.find(label), std::string::npos) << r.output;
    }
  }
}

TEST(CliBench, MissingPeersAreNamedAndSkipped) {
  const TempDir dir("bench_missing");
  const ProgramResult r = run_shell("ZWANG_PEER_DIR=" + (dir / "none") + " exec " + ZWANG_CLI +
                                    " " + tiny_bench(dir / "bench.csv"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* peer : {"mujoco4", "mujoco2", "pinocchio"}) {
    EXPECT_NE(
        r.output.find(fmt::format("skipped: no plugin {}/zwang_peer_{}.so", dir / "none", peer)),
        std::string::npos)
        << r.output;
  }
  const auto rows = read_csv(dir / "bench.csv");
  ASSERT_EQ(rows.size(), 12u);
  for (const auto& row : rows) {
    for (const char* peer : {"mujoco4", "mujoco2", "pinocchio"}) EXPECT_EQ(row.at(peer), "");
  }
}

// a count whose batch would not fit in this machine's memory is skipped with the figures, and
// the bench goes on with the others; a peer's mjData per instance is refused the same way
TEST(CliBench, WhatDoesNotFitInMemoryIsSkipped) {
  const TempDir dir("bench_memory");
  const ProgramResult r = run_zwang(fmt::format(
      "bench {} -n 4,1000000000000 --steps-per-call 1 --threads 1 --rounds 1 --min-time 0 "
      "--backends cpu-scalar --csv {}",
      (test_dir() / "models/chain.xml").string(), dir / "bench.csv"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("1000000000000 instances skipped: their float32 batch alone needs more "
                          "than 80% of the"),
            std::string::npos)
      << r.output;
  const auto rows = read_csv(dir / "bench.csv");
  ASSERT_EQ(rows.size(), 2u);  // float64 and float32
  for (const auto& row : rows) EXPECT_EQ(row.at("instances"), "4");
}

TEST(CliBench, CsvIsWrittenWithoutAPlotter) {
  const TempDir dir("bench_plot");
  const ProgramResult r =
      run_shell("PATH=" + (dir / "none") + " exec " + ZWANG_CLI + " " +
                tiny_bench(dir / "bench.csv") + " --peers none --plot " + (dir / "bench.png"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("no plot: python3 is not on the PATH"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir / "bench.png"));
  EXPECT_EQ(read_csv(dir / "bench.csv").size(), 12u);
}

// an output that cannot be written is an error before the rounds (which may take hours), with
// the option and the OS's reason, never a traceback and exit status 0
TEST(CliBench, UnwritableOutputsAreRefusedBeforeTheRounds) {
  const TempDir dir("bench_unwritable");
  for (const std::string option : {"--plot", "--csv"}) {
    const std::string target = dir / "missing/out";
    const ProgramResult r = run_zwang(option == "--csv" ? tiny_bench(target) + " --peers none"
                                                        : tiny_bench(dir / "bench.csv") +
                                                              " --peers none --plot " + target);
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find(option + " " + target + ": cannot write: No such file or directory"),
              std::string::npos)
        << r.output;
    EXPECT_EQ(r.output.find("Traceback"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("instance-steps per second"), std::string::npos) << "no rounds ran";
    EXPECT_FALSE(fs::exists(dir / "bench.csv"));
  }
}

TEST(CliBench, OutputsKeptAreNamedInTheNotes) {
  const ProgramResult r = run_zwang(
      "bench chain -n 8 --steps-per-call 1 --threads 1 --rounds 1 --min-time 0 --peers none "
      "--backends cpu-scalar,cpu-simd --precision f64 --outputs xpos,cvel");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("zwang keeps only these outputs current: xpos,cvel"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("cpu-scalar"), std::string::npos) << r.output;
}

TEST(CliBench, BadListsAreRefused) {
  for (const char* args :
       {"-n 0", "--steps-per-call 0", "--peers mujoco9", "--backends gpu", "--rounds 0",
        "--precision f16", "--outputs xpso", "--outputs body_mass"}) {
    const ProgramResult r = run_zwang(std::string("bench chain ") + args);
    EXPECT_NE(r.exit_code, 0) << args;
  }
}

}  // namespace
}  // namespace zwang::test
