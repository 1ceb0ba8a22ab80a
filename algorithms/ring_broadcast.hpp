// Ring broadcast: a pipelined chain from the root round the ring (NCCL's ring broadcast,
// src/device/broadcast.h, runRing: the root sends, the others receive and forward, the rank before
// the root only receives).
#pragma once

#include "algorithms/registry.hpp"

namespace collsim::algo {

/// The ranks form a chain in ring order starting at the root: root, root+1, ..., root+N-1 (mod N).
/// The buffer of S bytes is cut into K = max(1, ceil(S / chunk_size)) pipeline chunks
/// (pipeline_chunks; a message of chunk_size bytes or less is one chunk and moves unpipelined).
/// Chain rank k (0-based) sends chunk c (0-based) to chain rank k+1 in step k + c + 1, once it
/// has received it, so the chain fills in N-1 steps and drains one chunk per step after that:
/// (N-1) + (K-1) steps. Every rank but the last in the chain sends the whole buffer, S bytes; the
/// last sends nothing. N = 1 gives an empty schedule. Throws std::invalid_argument when
/// request.chunk_size is 0.
sched::Schedule build_ring_broadcast(const Request& request);

}  // namespace collsim::algo
