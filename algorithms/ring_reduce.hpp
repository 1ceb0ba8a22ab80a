// Ring reduce: a pipelined chain round the ring that ends at the root (NCCL's ring reduce,
// src/device/reduce.h, runRing: the rank after the root sends, the others receive, add and
// forward, the root receives and adds into its own buffer).
#pragma once

#include "algorithms/registry.hpp"

namespace collsim::algo {

/// The ranks form a chain in ring order that ends at the root: root+1, root+2, ..., root+N-1, root
/// (mod N). The buffer of S bytes is cut into K = max(1, ceil(S / chunk_size)) pipeline chunks
/// (pipeline_chunks; a message of chunk_size bytes or less is one chunk and moves unpipelined).
/// Chain rank k (0-based) sends its partial sum of chunk c (0-based) to chain rank k+1, which adds
/// it into its own copy, in step k + c + 1: (N-1) + (K-1) steps. Every rank but the root sends the
/// whole buffer, S bytes; the root sends nothing. N = 1 gives an empty schedule. Throws
/// std::invalid_argument when request.chunk_size is 0.
sched::Schedule build_ring_reduce(const Request& request);

}  // namespace collsim::algo
