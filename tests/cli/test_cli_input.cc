// What the command-line tool refuses, and how it says so: option values out of range, parameters
// a model lacks, states files with misplaced numbers or keys, directories given as files, and
// --disable and --drive values.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>

#include "cli_process.h"
#include "host/cli/cli_common.hpp"
#include "test_util.h"
#include "zwang/builder.hpp"
#include "zwang/examples.hpp"
#include "zwang/randomize.hpp"

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

// a --randomize parameter the model has nothing of is an error naming it, before any step
TEST(CliInput, RandomizeNamesParametersTheModelLacks) {
  const ProgramResult r =
      run_zwang("run chain -n 2 -t 1 --no-progress --randomize actuator_gainprm=0.5:2");
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("--randomize: 'actuator_gainprm' has nothing to draw: the model has "
                          "nu = 0"),
            std::string::npos)
      << r.output;
}

// drive_prm=0.5:2 scales each of the five numbers of each drive by its own factor
TEST(CliInput, RandomizeScalesTheDriveNumbers) {
  ModelBuilder b;
  b.add_body({.name = "arm", .mass = 1, .com = {0, 0, -0.5}, .inertia = {0.1, 0.1, 0.01, 0, 0, 0}});
  b.add_joint("arm", {.name = "hinge", .axis = {0, 1, 0}});
  b.add_drive({.joint = "hinge", .q0 = 0.1, .v0 = 0.2, .amplitude = 0.3, .omega = 4, .phase = 0.5});
  const Model model = b.build();
  Simulator<double> sim(model, 3);
  randomize(sim.batch(), parse_randomization("drive_prm=0.5:2"), 2);
  std::set<double> factors;
  for (std::int64_t i = 0; i < 3; ++i) {
    for (int k = 0; k < 5; ++k) {
      const double f = sim.batch().drive_prm()(i, k) / model.drive_prm[k];
      EXPECT_GE(f, 0.5);
      EXPECT_LE(f, 2);
      factors.insert(f);
    }
  }
  EXPECT_EQ(factors.size(), 15u) << "one factor per number and instance";
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
            "states: unknown key \"qacc\" (known: qpos, qvel, ctrl, act)");
  EXPECT_EQ(error(R"({"qpos": [[0, 1]], "qvel": [[0, 0]], "ctrl": [[0]], "Ctrl": [[0]]})"),
            "states: unknown key \"Ctrl\" (known: qpos, qvel, ctrl, act)");
  EXPECT_EQ(error(R"({"qpos": [[0, 1]], )").rfind("states: not valid JSON", 0), 0u);
  // tiny numbers are numbers, rounded to the nearest double
  const cli::States s = cli::parse_states(R"({"qpos": [[1e-400, 1]], "qvel": [[0, 0]]})", m);
  EXPECT_EQ(s.qpos[0][0], 0.0);
}

// --disable: MuJoCo's flag names in comma lists, repeatable, ORed into the model's own flags
TEST(CliInput, DisableTakesMujocoFlagNames) {
  EXPECT_EQ(cli::parse_disable({}), 0);
  EXPECT_EQ(cli::parse_disable({"constraint"}), kDisableConstraint);
  EXPECT_EQ(cli::parse_disable({"limit,equality", "frictionloss"}),
            kDisableLimit | kDisableEquality | kDisableFrictionloss);
  EXPECT_EQ(cli::parse_disable({"contact", "contact"}), kDisableContact);
  const std::string valid = "(valid: constraint, equality, frictionloss, limit, contact)";
  auto error = [](std::vector<std::string> lists) {
    return error_of<std::invalid_argument>([&] { cli::parse_disable(lists); });
  };
  EXPECT_EQ(error({"limit,limits"}), "--disable: unknown flag 'limits' in 'limit,limits' " + valid);
  EXPECT_EQ(error({"limit", "Limit"}), "--disable: unknown flag 'Limit' in 'Limit' " + valid);
  EXPECT_EQ(error({"limit,"}), "--disable: an empty name in 'limit,' " + valid);
  EXPECT_EQ(error({""}), "--disable: an empty name in '' " + valid);

  Model m = examples::cart_pole();
  m.disableflags = kDisableEquality;  // as from <option><flag equality="disable"/>
  cli::apply_model_edits(m, {.disable = {"limit"}});
  EXPECT_EQ(m.disableflags, kDisableEquality | kDisableLimit);

  const ProgramResult ok =
      run_zwang("run -n 2 -t 1 --no-progress --disable limit,equality --disable contact cart_pole");
  EXPECT_EQ(ok.exit_code, 0) << ok.output;
  EXPECT_NE(ok.output.find("built-in example cart_pole"), std::string::npos) << ok.output;
  const ProgramResult bad = run_zwang("run chain -n 2 -t 1 --no-progress --disable limit,bogus");
  EXPECT_NE(bad.exit_code, 0) << bad.output;
  EXPECT_NE(bad.output.find("--disable: unknown flag 'bogus'"), std::string::npos) << bad.output;
  EXPECT_NE(bad.output.find(valid), std::string::npos) << bad.output;
}

// --drive JOINT=q0,v0,amplitude,omega,phase: five finite numbers after a joint's name
TEST(CliInput, DriveValuesAreFiveNumbers) {
  const cli::DriveOption d = cli::parse_drive("hinge=0.1,-2,0.5,3e0,+1");
  EXPECT_EQ(d.joint, "hinge");
  EXPECT_EQ(d.prm, (std::array<double, 5>{0.1, -2, 0.5, 3, 1}));
  EXPECT_EQ(cli::parse_drive(" arm = 0, 0, 1, 2, 3 ").prm, (std::array<double, 5>{0, 0, 1, 2, 3}));
  auto error = [](const char* text) {
    return error_of<std::invalid_argument>([&] { cli::parse_drive(text); });
  };
  EXPECT_EQ(error("hinge"), "--drive: 'hinge' is not JOINT=q0,v0,amplitude,omega,phase");
  EXPECT_EQ(error("=0,0,0,0,0"), "--drive: '=0,0,0,0,0' is not JOINT=q0,v0,amplitude,omega,phase");
  EXPECT_EQ(error("hinge=0,0,1,2"),
            "--drive: 'hinge=0,0,1,2' has 4 numbers; JOINT=q0,v0,amplitude,omega,phase needs 5");
  EXPECT_EQ(error("hinge=0,0,1,2,3,"),
            "--drive: 'hinge=0,0,1,2,3,' has 6 numbers; JOINT=q0,v0,amplitude,omega,phase needs 5");
  EXPECT_EQ(error("hinge="),
            "--drive: 'hinge=' has 1 number; JOINT=q0,v0,amplitude,omega,phase needs 5");
  EXPECT_EQ(error("hinge=0,0,1,2x,3"),
            "--drive: 'hinge=0,0,1,2x,3': omega '2x' is not a finite number");
  EXPECT_EQ(error("hinge=0,,1,2,3"), "--drive: 'hinge=0,,1,2,3': v0 '' is not a finite number");
  EXPECT_EQ(error("hinge=0,0,inf,2,3"),
            "--drive: 'hinge=0,0,inf,2,3': amplitude 'inf' is not a finite number");
  EXPECT_EQ(error("hinge=0,0,1,2,1e999"),
            "--drive: 'hinge=0,0,1,2,1e999': phase '1e999' is not a finite number");
}

// the joint of a --drive exists, is a hinge or a slide, and is named once; the program says so
TEST(CliInput, DriveJointsAreHingesAndSlidesNamedOnce) {
  auto error = [](Model m, std::vector<std::string> drives) {
    return error_of<std::invalid_argument>([&] { cli::apply_model_edits(m, {.drive = drives}); });
  };
  EXPECT_EQ(error(examples::cart_pole(), {"pole=0,0,0,0,0"}),
            "--drive: no joint 'pole' in the model");
  EXPECT_EQ(error(examples::ball_chain(), {"joint1=0,0,0,0,0"}),
            "--drive: joint 'joint1' is a ball joint; drives act on hinge and slide joints");
  EXPECT_EQ(
      error(examples::floating_base(), {examples::floating_base().jnt_name[0] + "=0,0,0,0,0"}),
      "--drive: joint '" + examples::floating_base().jnt_name[0] +
          "' is a free joint; drives act on hinge and slide joints");
  EXPECT_EQ(error(examples::cart_pole(), {"hinge=0,0,0,0,0", "hinge=1,0,0,0,0"}),
            "--drive: joint 'hinge' is given twice");

  Model m = examples::cart_pole();
  cli::apply_model_edits(m, {.drive = {"hinge=0.1,0,0.5,3,0", "slider=0,1,0,0,0"}});
  EXPECT_EQ(m.ndrive, 2);
  EXPECT_EQ(m.drive_jnt,
            (std::vector<int>{m.id(ObjType::kJoint, "hinge"), m.id(ObjType::kJoint, "slider")}));
  EXPECT_EQ(m.drive_prm, (std::vector<double>{0.1, 0, 0.5, 3, 0, 0, 1, 0, 0, 0}));
  EXPECT_EQ(m.drive_solref, (std::vector<double>{0.02, 1, 0.02, 1}));

  for (const auto& [args, message] : std::vector<std::pair<std::string, std::string>>{
           {"--drive hinge=0,0,1", "--drive: 'hinge=0,0,1' has 3 numbers"},
           {"--drive pole=0,0,0,0,0", "--drive: no joint 'pole' in the model"},
           {"--drive hinge=0,0,0,0,0 --drive hinge=0,0,0,0,1", "given twice"}}) {
    const ProgramResult r = run_zwang("run cart_pole -n 2 -t 1 --no-progress " + args);
    EXPECT_NE(r.exit_code, 0) << args << "\n" << r.output;
    EXPECT_NE(r.output.find(message), std::string::npos) << args << "\n" << r.output;
  }
  const ProgramResult ok = run_zwang(
      "run -n 2 -t 1 --no-progress --drive hinge=0,0,0.1,1,0 --drive slider=0,0,0,0,0 "
      "cart_pole");
  EXPECT_EQ(ok.exit_code, 0) << ok.output;
  EXPECT_NE(ok.output.find("built-in example cart_pole"), std::string::npos) << ok.output;
  const ProgramResult ball =
      run_zwang("run ball_chain -n 2 -t 1 --no-progress --drive joint0=0,0,0,0,0");
  EXPECT_NE(ball.exit_code, 0) << ball.output;
  EXPECT_NE(ball.output.find("'joint0' is a ball joint"), std::string::npos) << ball.output;
}

// a joint the model drives already (MJCF <custom><numeric name="drive:JOINT">) takes the
// numbers of --drive and keeps its solref
TEST(CliInput, DriveReplacesTheNumbersOfTheModelsDrive) {
  ModelBuilder b;
  b.add_body(
      {.name = "arm", .mass = 1, .com = {0.5, 0, 0}, .inertia = {0.01, 0.01, 0.01, 0, 0, 0}});
  b.add_joint("arm", {.name = "hinge", .axis = {0, 1, 0}});
  b.add_body({.name = "hand",
              .parent = "arm",
              .pos = {1, 0, 0},
              .mass = 1,
              .inertia = {0.01, 0.01, 0.01, 0, 0, 0}});
  b.add_joint("hand", {.name = "slide", .type = JointType::kSlide, .axis = {1, 0, 0}});
  b.add_drive({.joint = "hinge",
               .q0 = 1,
               .v0 = 2,
               .amplitude = 3,
               .omega = 4,
               .phase = 5,
               .solref = {0.05, 0.5}});
  Model m = b.build();
  cli::apply_model_edits(m, {.drive = {"slide=0,0,0.1,1,0", "hinge=0.5,0,0,0,0"}});
  EXPECT_EQ(m.ndrive, 2);
  EXPECT_EQ(m.drive_jnt,
            (std::vector<int>{m.id(ObjType::kJoint, "hinge"), m.id(ObjType::kJoint, "slide")}));
  EXPECT_EQ(m.drive_prm, (std::vector<double>{0.5, 0, 0, 0, 0, 0, 0, 0.1, 1, 0}));
  EXPECT_EQ(m.drive_solref, (std::vector<double>{0.05, 0.5, 0.02, 1}));
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

// A contact bound or a keyframe count from a file is refused within a gigabyte of data (the
// data-segment limit, which counts the heap and anonymous mappings but not the libraries mapped,
// CUDA's among them): nothing of its size is allocated first (2·10⁹ contacts once allocated
// 1.7 GB).  Sanitizers map terabytes of shadow memory of their own, so this runs in the plain
// build only.
TEST(CliInput, HugeCountsAreRefusedWithinAGigabyte) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "under AddressSanitizer, whose shadow memory needs more address space";
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  GTEST_SKIP() << "under AddressSanitizer, whose shadow memory needs more address space";
#endif
#endif
  const TempDir dir("huge_counts");
  const std::string body =
      "<worldbody>\n<geom type=\"plane\" size=\"1 1 0.1\"/>\n<body pos=\"0 0 1\">"
      "<freejoint/><geom size=\"0.1\"/></body>\n</worldbody>\n</mujoco>\n";
  std::ofstream(dir / "contacts.xml") << "<mujoco>\n<size nconmax=\"2000000000\"/>\n" + body;
  std::ofstream(dir / "keys.xml") << "<mujoco>\n<size nkey=\"10000000\"/>\n" + body;
  for (const char* file : {"contacts.xml", "keys.xml"}) {
    const ProgramResult r =
        run_shell(std::string("ulimit -d 1048576; exec ") + ZWANG_CLI + " info " + dir / file);
    EXPECT_EQ(r.signal, 0) << r.output;
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_EQ(r.output.find("bad_alloc"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find(std::string(file) + ":2: "), std::string::npos) << r.output;
  }
}

}  // namespace
}  // namespace zwang::test
