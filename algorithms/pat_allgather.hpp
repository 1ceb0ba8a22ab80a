// PAT all-gather (NCCL's Parallel Aggregated Trees, NCCL 2.23+, its algorithm for all-gather and
// reduce-scatter with one GPU per node: src/include/collectives.h PatAGAlgorithm; ncclPatEnable in
// src/graph/tuning.cc). PAT is a Bruck-style log-depth exchange (Bruck et al. 1997, "Efficient
// algorithms for all-to-all communications in multiport message-passing systems", IEEE TPDS 8(11)):
// at distance d = 1, 2, 4, ... each rank forwards everything it has gathered so far to the rank d
// before it. NCCL aggregates the steps' pieces through a bounded buffer and pipelines them; collsim
// moves each step's parts whole.
#pragma once

#include "algorithms/registry.hpp"

namespace collsim::algo {

/// The output of S bytes is cut into N parts (split_even), one chunk each; rank p starts with part
/// p. In step k = 1..ceil(log2 N), with d = 2^(k-1) and c = min(d, N - d), rank r sends parts r,
/// r+1, .., r+c-1 (mod N), which it holds, to rank r - d (mod N), which copies them: after step k
/// rank r holds parts r .. r + min(2d, N) - 1. Steps: ceil(log2 N). Every rank sends N-1 parts in
/// all, (N-1)·S/N bytes when N divides S. A rank's step waits for what it received in its step before
/// (ScheduleBuilder::order_steps_per_rank). N = 1: no op.
sched::Schedule build_pat_allgather(const Request& request);

}  // namespace collsim::algo
