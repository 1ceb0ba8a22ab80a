// Ring all-gather: the second half of ring all-reduce (Patarasuk & Yuan 2009; NCCL's ring,
// src/device/all_gather.h).
#pragma once

#include <memory>

#include "algorithms/registry.hpp"

namespace collsim::algo {

/// The output of S bytes is cut into N parts (split_even); rank p starts with part p. In step
/// s = 1..N-1, rank r sends part (r - s + 1) mod N to rank (r + 1) mod N, which stores it: step 1
/// sends the rank's own part, and each later step forwards the part received in the step before.
/// N-1 steps; rank r sends every part but part r+1 (the one its successor holds from the start),
/// S - |part r+1| bytes, so the busiest rank sends S - floor(S/N) = ceil((N-1)/N · S) bytes
/// ((N-1)/N · S when N divides S). N = 1 gives an empty schedule.
sched::Schedule build_ring_allgather(const Request& request);

/// The same schedule on demand, O(N) memory (make_ring_stream).
std::unique_ptr<sched::OpStream> stream_ring_allgather(const Request& request);

}  // namespace collsim::algo
