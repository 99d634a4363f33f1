// zwang: the command-line tool.
//   zwang info [MODEL]                       what a model holds
//   zwang export [MODEL] [-o OUT.xml]         the model as MJCF, every value explicit
//   zwang dynamics [MODEL] -i IN -o OUT      H, qfrc_bias, q̈, constraint forces, contacts at states
//   zwang run [MODEL] [-n N] [-t T] ...      a batched rollout, throughput, trajectory in HDF5
//   zwang bench [MODEL...] [--csv F] ...     throughput beside MuJoCo 4.0, 2.2.2 and Pinocchio
//   zwang merge OUT.h5 SHARD.h5...            the shards of one run (run --shard K/N) joined
//   zwang view [MODEL] [--trajectory RUN.h5]  a model or a trajectory in the browser (Python)
//   zwang render RUN.h5 -o run.mp4 ...        a video of a trajectory (Python)
// MODEL is an MJCF (.xml) or URDF (.urdf) file or a built-in example; default the 8-link chain.
#include <fmt/format.h>
#include <hdf5.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <charconv>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <limits>
#include <string_view>
#include <type_traits>
#include <vector>

#include "host/cli/bench.hpp"
#include "host/cli/cli_common.hpp"
#include "host/cli/commands.hpp"
#include "zwang/examples.hpp"

// An integer of type I from `low` to the largest I. CLI11's range validators print their bounds
// as doubles, 309 digits for the largest, and its unsigned conversion takes -1 for 2⁶⁴ − 1.
template <class I>
CLI::Validator integer_from(I low) {
  std::string range;  // as --help shows it after the type
  if constexpr (sizeof(I) < 8) {
    range = fmt::format("{} to {}", low, std::numeric_limits<I>::max());
  } else if constexpr (std::is_signed_v<I>) {
    range = fmt::format(">= {}", low);
  } else {
    range = fmt::format("{} to 2^64-1", low);
  }
  const std::string wanted =
      fmt::format("an integer {}{}", sizeof(I) < 8 || !std::is_signed_v<I> ? "from " : "", range);
  return CLI::Validator(
      [low, wanted](std::string& text) -> std::string {
        I value{};
        const char* end = text.data() + text.size();
        const auto [stop, error] = std::from_chars(text.data(), end, value);
        if (error != std::errc() || stop != end || value < low)
          return fmt::format("must be {}: {}", wanted, text);
        return "";
      },
      range);
}

// a number in [low, high]: finite, as NaN compares false
CLI::Validator number_in(double low, double high) {
  const std::string range = fmt::format("{:g} to {:g}", low, high);
  return CLI::Validator(
      [low, high, range](std::string& text) -> std::string {
        double value = 0;
        const char* end = text.data() + text.size();
        const auto [stop, error] = std::from_chars(text.data(), end, value);
        if (error != std::errc() || stop != end || !(value >= low && value <= high))
          return fmt::format("must be a number from {}: {}", range, text);
        return "";
      },
      range);
}

// `zwang view ARGS` is `PYTHON -m zwang.viewer ARGS` and `zwang render ARGS` is
// `PYTHON -m zwang.video ARGS` (they are the Python package's), with PYTHON from ZWANG_PYTHON,
// else python3 on the PATH; returns only when that cannot start
static int run_python(const char* module, int argc, char** argv) {
  const char* python = std::getenv("ZWANG_PYTHON");
  if (python == nullptr || *python == 0) python = "python3";
  std::vector<char*> args{const_cast<char*>(python), const_cast<char*>("-m"),
                          const_cast<char*>(module)};
  for (int i = 2; i < argc; ++i) args.push_back(argv[i]);
  args.push_back(nullptr);
  execvp(python, args.data());
  std::fprintf(stderr,
               "zwang %s: cannot start %s (%s); it runs zwang's Python package with the viewer "
               "extra (pip install 'zwang[viewer]'), set ZWANG_PYTHON to its interpreter\n",
               argv[1], python, std::strerror(errno));
  return 1;
}

int main(int argc, char** argv) {
  using namespace zwang::cli;
  if (argc >= 2 && std::string_view(argv[1]) == "view")
    return run_python("zwang.viewer", argc, argv);
  if (argc >= 2 && std::string_view(argv[1]) == "render")
    return run_python("zwang.video", argc, argv);
  // past a file-size limit, write() then fails with EFBIG, which is reported with what was kept,
  // instead of the signal ending the program in the middle of a file
  std::signal(SIGXFSZ, SIG_IGN);
  // HDF5's exit handler would close once more a file whose close failed after a failed write,
  // and crash; the tool closes its files itself
  H5dont_atexit();
  CLI::App app{"zwang: batched rigid multibody dynamics by Gauss's principle of least constraint"};
  app.require_subcommand(1);
  const std::string models =
      fmt::format("MJCF (.xml) or URDF (.urdf) file, or a built-in example: {}",
                  fmt::join(zwang::examples::names(), ", "));

  std::string spec = kDefaultModel;
  zwang::LoadOptions load;
  std::string rules = "4.0";
  std::string contact_margin;
  std::string wrap_rules;
  const auto add_rules = [&](CLI::App* cmd) {
    cmd->add_option("--rules", rules,
                    "which MuJoCo a model file is read as where MuJoCo 2.2.2 and 4.0 differ "
                    "(contact margins and pairs, connect and weld rows, tendon wrapping): 4.0 or "
                    "2.2.2")
        ->check(CLI::IsMember({"4.0", "2.2.2"}))
        ->capture_default_str();
  };
  auto add_model = [&](CLI::App* cmd) {
    cmd->add_option("model", spec, models)->capture_default_str();
    cmd->add_flag("--floating-base", load.floating_base,
                  "URDF: a free joint between the world and the root link");
    cmd->add_flag("--balance-inertia", load.balance_inertia,
                  "URDF: a moving link's inertia that is no rigid body's becomes MuJoCo's "
                  "balanced one (balanceinertia) instead of being used as given");
    cmd->add_flag("--fuse-static", load.fuse_static,
                  "URDF: each link on a fixed joint merged into the link above it, as MuJoCo's "
                  "importer does (in MJCF: <compiler fusestatic=\"true\">)");
    add_rules(cmd);
    cmd->add_option("--contact-margin", contact_margin,
                    "max: a geom pair's contact takes the larger margin and gap (MuJoCo 2.2.2 to "
                    "3.4); sum: their sum (MuJoCo 3.5 and later); default: by --rules")
        ->check(CLI::IsMember({"max", "sum"}));
    cmd->add_option("--wrap-rules", wrap_rules,
                    "how a spatial tendon passes a sphere or cylinder with a side site: as MuJoCo "
                    "4.0 or as MuJoCo 2.2.2; default: by --rules")
        ->check(CLI::IsMember({"4.0", "2.2.2"}));
  };
  // --disable and --drive, on `dynamics` and `run`
  ModelEdits edits;
  auto add_edits = [&](CLI::App* cmd, const char* when) {
    cmd->add_option("--disable", edits.disable,
                    fmt::format("constraints to switch off, MuJoCo's flag names as a comma list: "
                                "{}; repeatable; added to the model's <option><flag> (drives "
                                "stay on)",
                                fmt::join(disable_flag_names(), ", ")))
        ->type_name("LIST")
        ->allow_extra_args(false);
    cmd->add_option("--drive", edits.drive,
                    fmt::format("JOINT=q0,v0,A,omega,phase: the hinge or slide JOINT follows q0 + "
                                "v0 t + A sin(omega t + phase) (rad or m, s{}); repeatable; "
                                "replaces the numbers of a drive the model has already (MJCF "
                                "<custom><numeric name=\"drive:JOINT\">)",
                                when))
        ->type_name("SPEC")
        ->allow_extra_args(false);
  };

  CLI::App* info = app.add_subcommand(
      "info", "Bodies, joints, sizes, actuators, total mass and warnings of a model");
  add_model(info);

  CLI::App* exp = app.add_subcommand(
      "export",
      "The model as MJCF that zwang reads back as the same model and MuJoCo can draw (every "
      "value explicit; meshes as their convex hulls)");
  add_model(exp);
  std::string export_out;
  bool export_overwrite = false;
  exp->add_option("-o,--output", export_out, "the MJCF file; standard output when not given");
  exp->add_flag("--overwrite", export_overwrite, "replace the output file when it exists");

  CLI::App* dyn = app.add_subcommand(
      "dynamics",
      "Mass matrix, bias forces, accelerations, constraint forces and contacts at a batch of "
      "states");
  add_model(dyn);
  std::string input, output, precision = "f64";
  dyn->add_option(
         "-i,--input", input,
         "JSON {\"qpos\": [[...]], \"qvel\": [[...]], \"ctrl\": [[...]], \"act\": [[...]]} "
         "(ctrl and act optional, zero when absent)")
      ->required();
  dyn->add_option("-o,--output", output,
                  "JSON {\"nq\", \"nv\", \"M\", \"bias\", \"qacc\" (constrained), "
                  "\"qacc_smooth\", \"qfrc_constraint\", \"efc_nactive\", \"solver_niter\", "
                  "\"ncon\", \"drive_force\" (with drives), \"act_dot\" and \"actuator_force\" "
                  "(with activations), and per state its ncon contacts: "
                  "\"contact_geom\" [[g1, g2]], \"contact_geom_name\", \"contact_dist\", "
                  "\"contact_pos\" [[3]], \"contact_frame\" [[9]] (rows normal, tangents), "
                  "\"contact_force\" [[6]] (in the contact frame)}")
      ->required();
  dyn->add_option("--precision", precision, "f64 or f32")
      ->check(CLI::IsMember({"f64", "f32"}))
      ->capture_default_str();
  add_edits(dyn, "; the states are at t = 0");

  CLI::App* run =
      app.add_subcommand("run", "A batched rollout: throughput, and the trajectory in HDF5");
  add_model(run);
  RunOptions ro;
  run->add_option("-n,--instances", ro.instances, "instances stepped together")
      ->check(integer_from<std::int64_t>(1))
      ->capture_default_str();
  run->add_option("-t,--steps", ro.steps, "steps of each instance")
      ->check(integer_from(0))
      ->capture_default_str();
  run->add_option("--backend", ro.backend, "cpu, cuda or auto (cuda when a device exists)")
      ->check(CLI::IsMember({"cpu", "cuda", "auto"}))
      ->capture_default_str();
  run->add_option("--device", ro.device,
                  "the CUDA device (ordinal) of --backend cuda, e.g. the rank's GPU of an MPI or "
                  "SLURM job; the CPU backend ignores it")
      ->check(integer_from(0))
      ->capture_default_str();
  run->add_option("--precision", ro.precision, "f64 or f32")
      ->check(CLI::IsMember({"f64", "f32"}))
      ->capture_default_str();
  run->add_option("--threads", ro.threads, "CPU threads, 0 for every core")
      ->check(integer_from(0))
      ->capture_default_str();
  run->add_option("--cpu-simd", ro.cpu_simd,
                  "CPU: instances per SIMD register: auto (the widest this CPU has), scalar (one "
                  "at a time), avx2 or avx512")
      ->check(CLI::IsMember({"auto", "scalar", "avx2", "avx512"}))
      ->capture_default_str();
  run->add_option("--seed", ro.seed, "seed of initial states, parameters and random controls")
      ->check(integer_from<std::uint64_t>(0))
      ->capture_default_str();
  run->add_option("--randomize", ro.randomize,
                  "per-instance parameters: e.g. body_mass=0.8:1.2 (a factor per element, "
                  "uniform), dof_damping[0]=uniform(0,0.2), gravity[2]=normal(-9.81,0.1); the "
                  "names of zwang.PARAM_FIELDS (docs/cli.md)");
  run->add_option(
         "--ctrl", ro.ctrl,
         "zero (with --keyframe: the keyframe's, held), or random: uniform in each ctrlrange "
         "([-1, 1] if none), redrawn every record")
      ->check(CLI::IsMember({"zero", "random"}))
      ->capture_default_str();
  run->add_option("--init-noise", ro.init_noise,
                  "initial hinge/slide offsets, uniform in ±noise (rad or m, at most π)")
      ->check(number_in(0, kMaxInitNoise))
      ->capture_default_str();
  run->add_option("--keyframe", ro.keyframe,
                  "start every instance from this keyframe of the model (a name, or an index): "
                  "its time, qpos, qvel, ctrl and mocap poses; --init-noise then defaults to 0");
  run->add_option("-o,--out", ro.out,
                  "trajectory file (HDF5): qpos, qvel, ctrl, active constraint rows, solver "
                  "iterations and contacts (ncon) per record and instance");
  run->add_flag("--overwrite", ro.overwrite,
                "replace the trajectory file when it exists (without it, an existing file is an "
                "error, so that a rerun cannot lose a finished trajectory)");
  run->add_option("--record-every", ro.record_every, "steps between records")
      ->check(integer_from(1))
      ->capture_default_str();
  run->add_flag("--no-progress", ro.no_progress, "no progress bar even on a terminal");
  run->add_option("--shard", ro.shard,
                  "K/N: run only the K-th (0 <= K < N) of N even slices of the instances, with "
                  "the draws (--randomize, --init-noise, --ctrl random) those instances have in "
                  "the whole run; `zwang merge` joins the shards' trajectories")
      ->type_name("K/N");
  add_edits(run, "");

  CLI::App* bench = app.add_subcommand(
      "bench",
      "Instance-steps per second of every zwang configuration beside MuJoCo 4.0, MuJoCo 2.2.2 "
      "and Pinocchio: same models, states, options and threads, the engines alternating round "
      "by round; a table, a CSV and a plot");
  BenchOptions bo;
  bench->add_option("models", bo.models,
                    "MJCF files (stepped, beside MuJoCo) and URDF files (forward dynamics, beside "
                    "Pinocchio's aba, constraints off); default: MuJoCo's humanoid.xml, "
                    "Gymnasium's ant.xml and humanoid.xml, the Panda arm's panda.urdf, those "
                    "found");
  bench->add_flag("--floating-base", load.floating_base,
                  "URDF: a free joint between the world and the root link");
  add_rules(bench);
  bench
      ->add_option("--contact-margin", contact_margin,
                   "max or sum: how two geoms' margins combine in zwang (sum is MuJoCo 4.0's "
                   "rule; 2.2.2 always takes the larger); default: by --rules")
      ->check(CLI::IsMember({"max", "sum"}));
  bench->add_option("-n,--instances", bo.instances, "instance counts, a comma list")
      ->delimiter(',')
      ->check(integer_from<std::int64_t>(1))
      ->capture_default_str();
  bench
      ->add_option("--steps-per-call", bo.steps_per_call,
                   "steps per call, a comma list: zwang's step(n), and MuJoCo's n mj_step "
                   "of each instance within one OpenMP loop; forward dynamics runs one per call")
      ->delimiter(',')
      ->check(integer_from(1))
      ->capture_default_str();
  bench->add_option("--threads", bo.threads, "CPU thread counts, 0 for every core; a comma list")
      ->delimiter(',')
      ->check(integer_from(0))
      ->capture_default_str();
  bench->add_option("--precision", bo.precisions, "zwang's precisions: f64, f32")
      ->delimiter(',')
      ->check(CLI::IsMember({"f64", "f32"}))
      ->capture_default_str();
  bench
      ->add_option("--backends", bo.backends,
                   "zwang's backends, those available run: cpu-scalar, cpu-simd (AVX2 or "
                   "AVX-512), cuda (beside the peers' largest thread count)")
      ->delimiter(',')
      ->check(CLI::IsMember({"cpu-scalar", "cpu-simd", "cuda"}))
      ->capture_default_str();
  bench
      ->add_option("--peers", bo.peers,
                   "peers to load, plugins zwang_peer_NAME.so beside the executable or in "
                   "$ZWANG_PEER_DIR: mujoco4, mujoco2, pinocchio; none for zwang only")
      ->delimiter(',')
      ->check(CLI::IsMember({"mujoco4", "mujoco2", "pinocchio", "none"}))
      ->capture_default_str();
  bench->add_option("--rounds", bo.rounds, "alternating rounds; the median is reported")
      ->check(integer_from(1))
      ->capture_default_str();
  bench
      ->add_option("--min-time", bo.min_time,
                   "seconds the fastest engine takes per measurement; the calls per measurement "
                   "follow, the same for every engine")
      ->check(number_in(0, 3600))
      ->capture_default_str();
  bench
      ->add_option("--init-noise", bo.init_noise,
                   "initial hinge/slide offsets, uniform in ±noise (rad or m), at rest")
      ->check(number_in(0, kMaxInitNoise))
      ->capture_default_str();
  bench->add_option("--seed", bo.seed, "seed of the initial states")
      ->check(integer_from<std::uint64_t>(0))
      ->capture_default_str();
  bench
      ->add_option("--disable", bo.disable,
                   fmt::format("constraints to switch off on every side, MuJoCo's flag names as "
                               "a comma list: {}; repeatable",
                               fmt::join(disable_flag_names(), ", ")))
      ->type_name("LIST")
      ->allow_extra_args(false);
  bench
      ->add_option("--outputs", bo.outputs,
                   "outputs zwang keeps current after each call: all (as MuJoCo's mjData), none "
                   "(the state only), or field names as a comma list (xpos,cfrc_ext); the "
                   "peers always compute all")
      ->delimiter(',')
      ->capture_default_str();
  bench->add_option("--csv", bo.csv,
                    "the table as CSV: model, nv, mode, instances, threads, steps_per_call, "
                    "backend, precision, zwang, one column per peer, zwang_over_PEER");
  bench->add_option("--plot", bo.plot,
                    "PNG: steps/s against instances, log-log, one line per engine and "
                    "configuration (python3 with matplotlib)");

  std::string merge_out;
  std::vector<std::string> merge_in;
  bool merge_overwrite = false;
  CLI::App* merge = app.add_subcommand(
      "merge",
      "The trajectories of the shards of one run (zwang run --shard K/N) joined into the file of "
      "the whole run; refuses missing, duplicate or foreign shards");
  merge->add_option("out", merge_out, "the joined trajectory (HDF5)")->required();
  merge->add_option("shards", merge_in, "the shards' trajectories, all N of them")
      ->required()
      ->expected(1, -1);
  merge->add_flag("--overwrite", merge_overwrite, "replace the output file when it exists");

  // listed for --help; run_python() takes them before parsing
  app.add_subcommand("view",
                     "A model, or the records of a trajectory, in the browser (zwang's Python "
                     "package: `zwang view --help`)")
      ->prefix_command();
  app.add_subcommand("render",
                     "A video of a trajectory's instances, MP4 or GIF (zwang's Python package: "
                     "`zwang render --help`)")
      ->prefix_command();

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  try {
    load.rules = rules == "2.2.2" ? zwang::Rules::kMujoco2 : zwang::Rules::kMujoco4;
    if (!contact_margin.empty()) {
      load.contact_margin =
          contact_margin == "sum" ? zwang::ContactMargin::kSum : zwang::ContactMargin::kMax;
    }
    if (!wrap_rules.empty()) {
      load.wrap_rules =
          wrap_rules == "2.2.2" ? zwang::WrapRules::kMujoco2 : zwang::WrapRules::kMujoco4;
    }
    if (*merge) return run_merge(merge_out, merge_in, merge_overwrite);
    if (*info) return run_info(spec, load);
    if (*exp) return run_export(spec, load, export_out, export_overwrite);
    if (*dyn) return run_dynamics(spec, load, input, output, precision, edits);
    if (*bench) {
      std::erase(bo.peers, "none");
      return run_bench(bo, load);
    }
    ro.disable = edits.disable;
    ro.drive = edits.drive;
    // a keyframe is where the instances start: no noise unless asked for
    if (!ro.keyframe.empty() && run->count("--init-noise") == 0) ro.init_noise = 0;
    return run_rollout(spec, load, ro);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "zwang: %s\n", e.what());
    return 1;
  }
}
