// Per-instance status bits.  A kernel that meets a failure sets a bit and returns; the
// backend stops advancing that instance and reports it.
#pragma once

namespace zwang {

enum StatusBit : int {
  kStatusBadState = 1 << 0,         // non-finite qpos, qvel, ctrl, act or time at a step's start
  kStatusFactorization = 1 << 1,    // non-positive or non-finite pivot in the Cholesky of H
  kStatusDiverged = 1 << 2,         // non-finite acceleration, velocity or position after a step
  kStatusBadParameters = 1 << 3,    // a parameter outside the rule of kernels/check_parameters.h
  kStatusNotConverged = 1 << 4,     // the constraint solver stopped at its iteration cap (a
                                    // warning: the instance goes on with the last iterate)
  kStatusContactOverflow = 1 << 5,  // more contacts than Model::nconmax slots; the step is undone
  kStatusHardConflict = 1 << 6,     // hard rows that contradict one another: a dependent row the
                                    // others leave violated; the step is undone
};

// the bits that stop an instance
inline constexpr int kStatusStopping = ~kStatusNotConverged;

}  // namespace zwang
