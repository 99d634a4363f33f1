// Hard rows that contradict one another (kStatusHardConflict), named: the solve of one instance
// at its state, again on the host in double, and for each row the pivoted factor dropped and
// left violated, the kept rows it is a combination of.
#pragma once

#include <cstdint>
#include <string>

#include "zwang/batch.hpp"
#include "zwang/model.hpp"

namespace zwang {

// \brief "equality 'e2' contradicts equality 'e1' (violated by 2.5e+03)", one clause per
// dropped row that the kept rows leave violated at instance i's state and time; empty when the
// rows hold there.  The tolerance is that of the instance's scalar type.
template <class T>
std::string hard_conflict(const Model& model, const Batch<T>& batch, std::int64_t i);

// \brief ModelError "model: hard constraints contradict one another at the default state ..."
// when they do at qpos0, at rest, at time 0, with the model's parameters.
void check_hard_rows(const Model& model);

}  // namespace zwang
