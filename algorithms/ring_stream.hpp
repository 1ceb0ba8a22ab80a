// The ring's ops on demand (sched::OpStream) for reduce-scatter, all-gather and all-reduce, which
// are the same N-rank ring walked once (reduce-scatter, all-gather) or twice (all-reduce).
#pragma once

#include <memory>

#include "algorithms/registry.hpp"

namespace collsim::algo {

/// The stream of build_ring_reduce_scatter, build_ring_allgather or build_ring_allreduce for
/// `request` (`collective` picks which): op (step s, rank r) is keyed (s << 32) | r, sends from r
/// to r + 1 the chunk named in those builders' comments, and waits only for (s - 1, r - 1), the
/// op that delivered what it forwards (none in step 1). The builders' write-after-read and
/// write-after-write dependencies follow from that chain: around the ring, (s - 1, r - 1) itself
/// waits for every earlier op on the chunk. Holds the N chunks, nothing per op.
/// Throws std::invalid_argument for another collective.
std::unique_ptr<sched::OpStream> make_ring_stream(const Request& request, sched::Collective collective);

}  // namespace collsim::algo
