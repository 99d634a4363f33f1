// Pieces of the command-line tool that tests can call: opening a model by file or built-in
// name, model edits, and batches of states in JSON.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "zwang/loaders.hpp"
#include "zwang/model.hpp"
#include "zwang/simulator.hpp"

namespace zwang::cli {

// A model and where it came from.
struct OpenedModel {
  Model model;
  std::string source;  // the file, or "built-in example NAME"
  std::vector<std::string> warnings;
};

// `spec` is a path to an MJCF (.xml) or URDF (.urdf) file or the name of a built-in
// example (zwang::examples::names()); the default built-in is the 8-link chain.
OpenedModel open_model(const std::string& spec, const LoadOptions& load = {});
inline constexpr const char* kDefaultModel = "chain";

// MuJoCo's names of the flags --disable takes, in DisableBit order: constraint,
// equality, frictionloss, limit, contact.
std::vector<std::string> disable_flag_names();
// The DisableBit flags of --disable values, each a comma-separated list of names;
// std::invalid_argument names an unknown or empty name and lists the valid ones.
int parse_disable(const std::vector<std::string>& lists);

// One --drive: the hinge or slide `joint` follows
// q(t) = q0 + v0 t + amplitude sin(omega t + phase).
struct DriveOption {
  std::string joint;
  std::array<double, 5> prm{};  // q0 v0 amplitude omega phase (rad or m, s)
};
// "JOINT=q0,v0,amplitude,omega,phase"; std::invalid_argument names the malformed value.
DriveOption parse_drive(const std::string& text);
// Drives joints of `model`: a joint the model drives already gets the new numbers (its
// solref stays), any other hinge or slide a new drive with the default solref.
// std::invalid_argument names the option and the joint for an unknown joint, a joint that is not
// a hinge or a slide, or a joint given twice.
void apply_drives(Model& model, const std::vector<DriveOption>& drives);

// --disable and --drive of `dynamics` and `run`, applied to a loaded model.
struct ModelEdits {
  std::vector<std::string> disable{};  // comma-separated flag names
  std::vector<std::string> drive{};    // JOINT=q0,v0,amplitude,omega,phase
};
// ORs the --disable flags into model.disableflags, adds the drives, validates the model.
void apply_model_edits(Model& model, const ModelEdits& edits);

// States for `zwang dynamics`: {"qpos": [[...], ...], "qvel": [[...], ...], "ctrl": ...}.
struct States {
  std::vector<std::vector<double>> qpos, qvel, ctrl;  // ctrl empty: zero controls
  std::vector<std::vector<double>> act;               // empty: zero activations
};
// std::invalid_argument names the field and state index of a bad shape or value, and
// any unknown or repeated key.
States parse_states(const std::string& json_text, const Model& model);

// The contents of a file, a pipe or a device, read up to `max_bytes` (so /dev/zero ends);
// std::runtime_error names it and the OS error, or the bound.
inline constexpr std::size_t kMaxInputBytes = std::size_t{1} << 30;
std::string read_file(const std::string& path, std::size_t max_bytes = kMaxInputBytes);
// `text` into `path`, which ends complete or untouched: a regular file is written beside
// it and renamed onto it, a device or a pipe directly. std::runtime_error names the file and
// the OS error.
void write_file(const std::string& path, const std::string& text);
// std::runtime_error "OPTION PATH: cannot write: ..." unless `path` can be written (a file
// it creates to find out is removed again), so that a run learns it before its work, not after.
void check_writable(const std::string& path, const std::string& option);

// {"nq", "nv", "M": [[nv*nv row-major]], "bias": [[nv]], "qacc": [[nv]],
// "qacc_smooth": [[nv]], "qfrc_constraint": [[nv]], "efc_nactive": [...], "solver_niter": [...],
// "ncon": [...]} at the states (time 0), the first ncon contacts of each state as
// "contact_geom": [[[geom1, geom2], ...]], "contact_geom_name": [[[name1, name2], ...]],
// "contact_dist": [[...]], "contact_pos": [[[3], ...]], "contact_frame": [[[9], ...]] (rows
// normal, tangent 1, tangent 2) and "contact_force": [[[6], ...]] (on geom2, in the contact
// frame), and "drive_force": [[ndrive]] when the model drives joints.
// std::runtime_error names the first state that fails; a state whose constraint solve reached
// the iteration cap is answered and named in `warnings`.
template <class T>
std::string dynamics_json(const Model& model, const States& states,
                          std::vector<std::string>* warnings = nullptr);

}  // namespace zwang::cli
