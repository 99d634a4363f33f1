// Per-instance parameters drawn from distributions, and the instances' initial states: the
// grammar and the parameter names that `zwang run --randomize` and zwang.sweep share.
//
//   SPEC  := TERM (',' TERM)*        a comma inside parentheses or brackets belongs to its term
//   TERM  := SEL ('+' SEL)* '=' VALUE
//   SEL   := NAME ['[' i [',' j] ']']
//   VALUE := number | DIST | 'scale(' (number | DIST) ')' | LOW ':' HIGH
//   DIST  := 'uniform(' lo ',' hi ')' | 'normal(' mean ',' std ')'
//          | 'lognormal(' mean ',' std ')' | 'choice(' v (',' v)* ')'
//
// NAME is a parameter field of the Batch (param_field_names(): body_mass, dof_damping, ..., the
// ZW_PARAM_FIELDS of kernels/layout.h, Python's zwang.PARAM_FIELDS). A bare name selects every
// element of the field; [i] one row of its per-instance shape (body_ipos[2]: body 2's centre of
// mass, 3 values) or one element of a one-row-per-object field (dof_damping[0]); [i, j] one
// element. Every selected element of every instance gets its own draw; scale(...) multiplies the
// instance's value by the draw instead of replacing it; LOW:HIGH is scale(uniform(LOW, HIGH)),
// 0 <= LOW <= HIGH; a std of 0 draws the mean.
// lognormal's mean and std are those of the logarithm. Selections joined by '+' share their
// draws, one per object and instance: they must be rows of the same objects (each a whole field
// or the same row), as in body_mass+body_inertia=0.8:1.2 (each body denser or lighter: its mass
// and inertia by one factor) or actuator_gainprm+actuator_biasprm=0.5:2 (a position servo's kp
// in gain and bias alike, so that it still pulls towards its control).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "zwang/batch.hpp"
#include "zwang/model.hpp"

namespace zwang {

template <class T>
class Simulator;

// the elements of a parameter field a term draws: `index` empty (all), {i} or {i, j}
struct ParamSelection {
  std::string field;
  std::vector<int> index;
};

struct Distribution {
  enum class Kind { kConstant, kUniform, kNormal, kLogNormal, kChoice };
  Kind kind = Kind::kConstant;
  // constant: the value; uniform: lo, hi; normal and lognormal: mean, std; choice: the values
  std::vector<double> args;
  bool scale = false;  // the draw multiplies the instance's value
};

struct RandomTerm {
  std::string name;  // the selections as written back: "body_ipos[2, 0]", "body_mass+body_inertia"
  std::vector<ParamSelection> selections;
  Distribution distribution;
};

// The names of the parameter fields, in the order of kernels/layout.h.
std::vector<std::string> param_field_names();

// "body_ipos[2, 0]" → {"body_ipos", {2, 0}}; std::invalid_argument for a name that is not a
// parameter field (listing them) or a malformed index.
ParamSelection parse_param_name(std::string_view text);
// "scale(uniform(0.8, 1.2))", "normal(0, 0.1)", "0.5", "0.8:1.2"; std::invalid_argument naming
// what is wrong (unknown distribution, wrong number of arguments, lo > hi, std < 0, not finite).
Distribution parse_distribution(std::string_view text);
// A SPEC (empty terms are skipped); std::invalid_argument naming the term at fault. A term's
// name lists its selections in the order of the parameter fields, then of the indices, so that
// body_inertia+body_mass and body_mass+body_inertia are one term and draw alike.
std::vector<RandomTerm> parse_randomization(std::string_view spec);

// Draws every term for every instance of the batch. Term t draws from a generator of its own,
// seeded by `seed` and t's name, so its values depend on these two only (not on the order of the
// terms or on the other terms); the same seed gives the same values on every run of one build.
// Every term is checked against the model before any is applied: std::invalid_argument for an
// index past the field's shape, a field the model has no elements of, selections joined by '+'
// that are not rows of the same objects, an element that two terms (or one term twice) select,
// or a scale() of values that are all 0 in every instance. The world (body 0) has no parameters
// to draw: a whole field of the bodies selects bodies 1 and up, and body_mass[0] is an error.
// `first`: the batch's instance i is instance first + i of a larger run (a shard of it), and
// draws what that instance draws there (the draws of the instances before it are made and
// dropped).
template <class T>
void randomize(Batch<T>& batch, std::span<const RandomTerm> terms, std::uint64_t seed,
               std::int64_t first = 0);

// The keyframe named `key`, else the index `key` spells; std::invalid_argument naming the model's
// keyframes when there is neither.
int keyframe_index(const Model& model, std::string_view key);

// Every instance at keyframe `key` (as keyframe_index reads it; "" for the model's default
// state: qpos0, at rest) with each hinge and slide coordinate moved by its own draw from
// U(−noise, noise), from a generator seeded by `seed` and the name "qpos"; `first` as in
// randomize().
template <class T>
void scatter_states(Simulator<T>& sim, std::string_view key, double noise, std::uint64_t seed,
                    std::int64_t first = 0);

}  // namespace zwang
