// The URDF loader against Pinocchio (PyPI's pin 4.1.0, which scripts/setup.sh installs), run
// through python3 and urdf/pinocchio_dynamics.py: H, qfrc_bias and q̈ at random states of
//  - the robots of tests/data/urdf, the lenient cases among them (inertias that are no rigid
//    body's, rounding noise, massless links, pybullet's mass-0 base), which Pinocchio takes as
//    the file gives them and zwang must too;
//  - every URDF file of example-robot-data (installed with pin by scripts/setup.sh), or of the
//    directory ZWANG_URDF_SURVEY_DIR names: each file Pinocchio loads, with a mass matrix that
//    is not singular, zwang loads with the same dynamics.
// Both have a fixed base (the root link welded) and no constraint rows; q̈ gets zwang's passive
// forces (joint damping) as Pinocchio's τ.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <Eigen/Dense>
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "data_dir.h"
#include "test_util.h"
#include "urdf/urdf_files.h"
#include "zwang/loaders.hpp"
#include "zwang/simulator.hpp"

namespace zwang::test {
namespace {

using nlohmann::json;

// stdout of a shell command, and whether it exited with 0
std::optional<std::string> shell_output(const std::string& command) {
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return std::nullopt;
  std::string out;
  std::array<char, 65536> buffer;
  while (const std::size_t got = std::fread(buffer.data(), 1, buffer.size(), pipe)) {
    out.append(buffer.data(), got);
  }
  if (pclose(pipe) != 0) return std::nullopt;
  return out;
}

bool pinocchio_importable() {
  static const bool ok = shell_output("python3 -c 'import pinocchio' 2>/dev/null").has_value();
  return ok;
}

constexpr const char* kNoPinocchio =
    "python3 cannot import pinocchio (PyPI's pin 4.1.0; scripts/setup.sh installs it)";

// zwang's side of one robot: the model, the states, and H, qfrc_bias, q̈ there
struct ZwangDynamics {
  std::vector<Eigen::VectorXd> q, v, tau, bias, qacc;
  std::vector<Eigen::MatrixXd> mass;
};

ZwangDynamics zwang_dynamics(Model m, int states, unsigned seed) {
  m.disableflags |= kDisableConstraint;
  std::mt19937 rng(seed);
  Simulator<double> sim(m, states);
  set_random_states(sim, rng);
  sim.forward();
  ZwangDynamics z;
  auto& b = sim.batch();
  for (int i = 0; i < states; ++i) {
    z.q.push_back(get(b.qpos(), i));
    z.v.push_back(get(b.qvel(), i));
    z.tau.push_back(get(b.qfrc_passive(), i));
    z.bias.push_back(get(b.qfrc_bias(), i));
    z.qacc.push_back(get(b.qacc(), i));
    z.mass.push_back(unpack(get(b.qM(), i), m.nv));
  }
  return z;
}

// what pinocchio_dynamics.py is asked for one robot; no model: Pinocchio's own checks alone
json request(const std::filesystem::path& file, const Model* m, const ZwangDynamics* z) {
  json r{{"file", file.string()}, {"joints", nullptr}};
  if (m == nullptr) return r;
  r["joints"] = m->jnt_name;
  r["states"] = json::array();
  for (std::size_t i = 0; i < z->q.size(); ++i) {
    auto list = [](const Eigen::VectorXd& x) { return std::vector<double>(x.begin(), x.end()); };
    r["states"].push_back({{"q", list(z->q[i])}, {"v", list(z->v[i])}, {"tau", list(z->tau[i])}});
  }
  return r;
}

// Pinocchio's answers, one per robot asked; empty with `error` set when the script failed
std::vector<json> ask_pinocchio(const std::vector<json>& robots, std::string* error) {
  const std::filesystem::path file =
      std::filesystem::temp_directory_path() / fmt::format("zwang_pinocchio_{}.json", ::getpid());
  std::ofstream(file) << json{{"robots", robots}}.dump();
  const std::string script = (tests_dir() / "urdf" / "pinocchio_dynamics.py").string();
  const auto out =
      shell_output(fmt::format("python3 '{}' '{}' 2>/dev/null", script, file.string()));
  std::filesystem::remove(file);
  if (!out) {
    *error = "pinocchio_dynamics.py failed";
    return {};
  }
  const json answer = json::parse(*out);
  std::cout << "[ info     ] Pinocchio " << answer["pinocchio"].get<std::string>() << "\n";
  return answer["robots"].get<std::vector<json>>();
}

Eigen::VectorXd vector_of(const json& values) {
  Eigen::VectorXd x(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    x[static_cast<Eigen::Index>(i)] = values[i].is_null() ? std::nan("") : values[i].get<double>();
  }
  return x;
}

// max |a − b| over `scale`, infinite where either is not finite
double scaled_error(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b, double scale) {
  if (b.size() == 0) return 0;
  if (!a.allFinite() || !b.allFinite()) return std::numeric_limits<double>::infinity();
  return (a - b).cwiseAbs().maxCoeff() / (scale > 0 ? scale : 1.0);
}

// Each quantity to 1e-9 of its size (measured: 1e-14 and below): H of max |H| (a hand's H is
// 1e-5), qfrc_bias of the larger of max |h| and max |H| max |q̇|² (the size of its velocity
// terms, where gravity does nothing: r2d2's wheels).  q̈ = H⁻¹(τ − h) carries H's condition
// number (iCub's fingers), so it is checked by its normwise backward error: the residual of
// Pinocchio's own equation of motion, H_pin q̈ + h_pin − τ, over |H_pin| |q̈| + the size of
// h_pin + |τ|.
constexpr double kTolerance = 1e-9;

struct Errors {
  double mass = 0, bias = 0, residual = 0;
  bool within() const { return mass <= kTolerance && bias <= kTolerance && residual <= kTolerance; }
};

Errors compare(const ZwangDynamics& z, const json& pin) {
  Errors e;
  const auto& states = pin["states"];
  for (std::size_t i = 0; i < z.q.size(); ++i) {
    const Eigen::Index nv = z.q[i].size();
    if (nv == 0) continue;
    const Eigen::VectorXd flat = vector_of(states[i]["M"]);
    const Eigen::MatrixXd mass = Eigen::Map<const Eigen::MatrixXd>(flat.data(), nv, nv);
    const Eigen::VectorXd bias = vector_of(states[i]["bias"]);
    const double mass_size = mass.cwiseAbs().maxCoeff();
    const double speed = z.v[i].cwiseAbs().maxCoeff();
    const double bias_size = std::max(bias.cwiseAbs().maxCoeff(), mass_size * speed * speed);
    e.mass = std::max(e.mass, scaled_error(z.mass[i], mass, mass_size));
    e.bias = std::max(e.bias, scaled_error(z.bias[i], bias, bias_size));
    // normwise: |H_pin q̈ + h_pin − τ| / (|H_pin| |q̈| + size of h + |τ|), max norms
    const Eigen::VectorXd residual = mass * z.qacc[i] + bias - z.tau[i];
    const double terms =
        mass_size * z.qacc[i].cwiseAbs().maxCoeff() + bias_size + z.tau[i].cwiseAbs().maxCoeff();
    e.residual = std::max(e.residual, scaled_error(residual, Eigen::VectorXd::Zero(nv), terms));
  }
  return e;
}

// ---------------------------------------------------------------------------------------------
// the robots of tests/data/urdf

TEST(UrdfPinocchio, RobotsOfTheTests) {
  if (!pinocchio_importable()) GTEST_SKIP() << kNoPinocchio;
  const std::vector<std::string> robots = {
      "serial_arm",           "mobile_base",       "tree",
      "pybullet_base",        "rounding_noise",    "triangle_inequality",
      "massless_fixed_chain", "massless_universal"};
  std::vector<json> asked;
  std::vector<ZwangDynamics> ours;
  for (const std::string& robot : robots) {
    const Model m = load_urdf(urdf_file(robot)).model;
    ours.push_back(zwang_dynamics(m, 10, 5));
    asked.push_back(request(urdf_file(robot), &m, &ours.back()));
  }
  std::string error;
  const std::vector<json> answers = ask_pinocchio(asked, &error);
  ASSERT_EQ(answers.size(), robots.size()) << error;
  for (std::size_t r = 0; r < robots.size(); ++r) {
    ASSERT_TRUE(answers[r]["ok"].get<bool>())
        << robots[r] << ": " << answers[r]["error"].get<std::string>();
    const Errors e = compare(ours[r], answers[r]);
    std::cout << fmt::format("[ info     ] {}: H {:.2g}, qfrc_bias {:.2g}, q̈ residual {:.2g}\n",
                             robots[r], e.mass, e.bias, e.residual);
    EXPECT_LE(e.mass, kTolerance) << robots[r];
    EXPECT_LE(e.bias, kTolerance) << robots[r];
    EXPECT_LE(e.residual, kTolerance) << robots[r];
  }
}

// ---------------------------------------------------------------------------------------------
// a survey of real files

// example-robot-data's robots directory, from the cmeel prefix its PyPI package installs into
std::filesystem::path survey_dir() {
  if (const char* dir = std::getenv("ZWANG_URDF_SURVEY_DIR")) return dir;
  const auto out = shell_output(
      "python3 -c 'import cmeel, os; print(os.path.dirname(os.path.dirname(cmeel.__file__)))' "
      "2>/dev/null");
  if (!out) return {};
  std::string site = *out;
  while (!site.empty() && (site.back() == '\n' || site.back() == '\r')) site.pop_back();
  return std::filesystem::path(site) / "cmeel.prefix/share/example-robot-data/robots";
}

TEST(UrdfPinocchio, SurveyOfRealFiles) {
  if (!pinocchio_importable()) GTEST_SKIP() << kNoPinocchio;
  const std::filesystem::path dir = survey_dir();
  if (dir.empty() || !std::filesystem::is_directory(dir)) {
    GTEST_SKIP() << "no example-robot-data robots at '" << dir.string()
                 << "' (PyPI's example-robot-data 6.0.0; scripts/setup.sh installs it)";
  }
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    if (e.is_regular_file() && e.path().extension() == ".urdf") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  ASSERT_FALSE(files.empty()) << dir;

  // zwang's load of each, and its dynamics at 3 random states where it loads
  std::vector<std::optional<ZwangDynamics>> ours(files.size());
  std::vector<std::string> refusal(files.size());
  std::vector<json> asked;
  for (std::size_t f = 0; f < files.size(); ++f) {
    try {
      const Model m = load_urdf(files[f]).model;
      ours[f] = zwang_dynamics(m, 3, 7 + static_cast<unsigned>(f));
      asked.push_back(request(files[f], &m, &*ours[f]));
    } catch (const ModelError& e) {
      refusal[f] = e.what();
      asked.push_back(request(files[f], nullptr, nullptr));
    }
  }
  std::string error;
  const std::vector<json> answers = ask_pinocchio(asked, &error);
  ASSERT_EQ(answers.size(), files.size()) << error;

  int loaded = 0, pin_loaded = 0, agree = 0, pin_singular = 0;
  double worst = 0;
  std::string report;
  for (std::size_t f = 0; f < files.size(); ++f) {
    const std::string name = std::filesystem::relative(files[f], dir).string();
    const json& a = answers[f];
    const bool pin_ok = a["ok"].get<bool>();
    pin_loaded += pin_ok;
    if (ours[f]) {
      ++loaded;
      if (!pin_ok) {
        report += fmt::format("  {}: zwang loads it, Pinocchio does not ({})\n", name,
                              a["error"].get<std::string>());
        continue;
      }
      const Errors e = compare(*ours[f], a);
      agree += e.within();
      worst = std::max({worst, e.mass, e.bias, e.residual});
      EXPECT_TRUE(e.within()) << name << ": H " << e.mass << ", qfrc_bias " << e.bias
                              << ", q̈ residual " << e.residual;
      continue;
    }
    if (!pin_ok) {
      report += fmt::format("  {}: refused by both (zwang: {})\n", name, refusal[f]);
      continue;
    }
    // zwang refuses only what has no dynamics: a mass matrix singular in Pinocchio too
    const bool singular = a["singular"].get<bool>();
    pin_singular += singular;
    report += fmt::format(
        "  {}: zwang refuses it ({}); Pinocchio loads it, its H {}\n", name, refusal[f],
        singular
            ? fmt::format("singular (q̈ {})", a["aba_finite"].get<bool>() ? "finite" : "not finite")
            : "regular");
    EXPECT_TRUE(singular) << name
                          << ": zwang refuses a file with a regular mass matrix: " << refusal[f];
  }
  std::cout << fmt::format(
                   "[ info     ] {}: {} URDF files; zwang loads {}, Pinocchio {}; of those both "
                   "load, {} agree (H, qfrc_bias, q̈ at 3 random states; largest relative "
                   "difference {:.2g}); zwang refuses {} whose mass matrix is singular in "
                   "Pinocchio\n",
                   dir.string(), files.size(), loaded, pin_loaded, agree, worst, pin_singular)
            << report;
  RecordProperty("files", static_cast<int>(files.size()));
  RecordProperty("zwang_loads", loaded);
  RecordProperty("pinocchio_loads", pin_loaded);
  RecordProperty("agree", agree);
}

}  // namespace
}  // namespace zwang::test
