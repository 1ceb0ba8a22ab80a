// Ring reduce-scatter: the first half of ring all-reduce (Patarasuk & Yuan 2009; NCCL's ring,
// src/device/reduce_scatter.h).
#pragma once

#include <memory>

#include "algorithms/registry.hpp"

namespace collsim::algo {

/// The input of S bytes is cut into N parts (split_even). In step s = 1..N-1, rank r sends part
/// (r - s) mod N to rank (r + 1) mod N, which adds it into its own copy. Part p thus starts at
/// rank p+1 and travels once round the ring, gathering every rank's contribution, and its last hop
/// (step N-1, from rank p-1) adds it into rank p's own copy, so rank p ends with the sum of part p
/// and never sends it. N-1 steps; rank r sends every part but its own, S - |part r| bytes, so the
/// busiest rank sends S - floor(S/N) = ceil((N-1)/N · S) bytes ((N-1)/N · S when N divides S).
/// N = 1 gives an empty schedule.
sched::Schedule build_ring_reduce_scatter(const Request& request);

/// The same schedule on demand, O(N) memory (make_ring_stream).
std::unique_ptr<sched::OpStream> stream_ring_reduce_scatter(const Request& request);

}  // namespace collsim::algo
