// The pipelined chain that ring broadcast and ring reduce share (NCCL's runRing for both,
// src/device/broadcast.h and reduce.h): the ranks in ring order, the message in pipeline chunks,
// chunk c moving from chain rank k to chain rank k+1 in step k + c + 1.
#pragma once

#include "algorithms/registry.hpp"

namespace collsim::algo {

/// The chain schedule for `collective` (broadcast or reduce), named "ring": chain rank k is rank
/// (first + k) mod N; the buffer is cut into pipeline_chunks(0, S, chunk_size, element_size); chain
/// rank k sends chunk c to chain rank k+1, which combines it by `combine`, in step k + c + 1.
/// Throws std::invalid_argument when request.chunk_size is 0 or the root is out of range.
sched::Schedule build_ring_chain(const Request& request, sched::Collective collective, sched::Rank first,
                                 sched::Combine combine);

}  // namespace collsim::algo
