// `zwang dynamics`: H, qfrc_bias, q̈, constraint forces and contacts at given states, as JSON.
#include <cstdio>
#include <string>
#include <vector>

#include "host/cli/cli_common.hpp"
#include "host/cli/commands.hpp"

namespace zwang::cli {
namespace {

void print_warnings(const OpenedModel& opened) {
  for (const std::string& w : opened.warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
}

}  // namespace

int run_dynamics(const std::string& spec, const LoadOptions& load, const std::string& input,
                 const std::string& output, const std::string& precision, const ModelEdits& edits) {
  OpenedModel opened = open_model(spec, load);
  apply_model_edits(opened.model, edits);
  print_warnings(opened);
  const States states = parse_states(read_file(input), opened.model);
  std::vector<std::string> warnings;
  const std::string json = precision == "f32"
                               ? dynamics_json<float>(opened.model, states, &warnings)
                               : dynamics_json<double>(opened.model, states, &warnings);
  for (const std::string& w : warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
  write_file(output, json + '\n');
  std::fprintf(stderr, "%zu states of %s -> %s\n", states.qpos.size(), opened.source.c_str(),
               output.c_str());
  return 0;
}

}  // namespace zwang::cli
