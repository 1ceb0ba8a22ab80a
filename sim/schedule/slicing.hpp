// Slicing: every chunk of a schedule moves as a pipeline of slices, so a rank can forward slice k
// while it still receives slice k+1 (NCCL moves each chunk in slices of a few buffer steps;
// src/include/collectives.h, ALLREDUCE_SLICESTEPS).
#pragma once

#include "sim/schedule/schedule.hpp"

namespace collsim::sched {

/// `schedule` with every chunk cut into slices of `slice` bytes (the last one shorter; a chunk of
/// at most `slice` bytes, or an empty one, stays whole) and every op into one op per slice, same
/// ranks, step, combine and channel. Slice j of an op waits for slice j of each op it waited for
/// when both cut their chunks alike, else for every slice of it (the same hazards, slice by slice).
/// Preconditions: slice >= 1. Throws std::length_error when the result has 2^32 or more ops or chunks.
Schedule slice_schedule(const Schedule& schedule, Bytes slice);

}  // namespace collsim::sched
