// The hard rows that contradict one another in one instance of a batch, named: the instance
// solved again on the host in double (host/model/hard_rows.hpp).
#pragma once

#include <cstdint>
#include <string>

#include "zwang/batch.hpp"
#include "zwang/model.hpp"

namespace zwang {

// hard_conflict_clauses() at instance i's state, inputs, parameters and time, with the
// tolerances of the instance's scalar type; empty when the rows hold there.
template <class T>
std::string hard_conflict(const Model& model, const Batch<T>& batch, std::int64_t i);

}  // namespace zwang
