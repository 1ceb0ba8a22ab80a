// Ring broadcast and ring reduce on demand (sched::OpStream): build_ring_chain's ops generated as
// the engine asks for them, so the pipeline keeps its chunk at any N (issue 18 item 3). Before,
// the materialised chain raised its chunk to fit the op budget: 4096 ranks and 1 GiB ran in 16 MiB
// chunks, 2.8 s instead of the 0.13 s that 512 KiB chunks pipeline to.
#pragma once

#include <memory>

#include "algorithms/registry.hpp"

namespace collsim::algo {

/// The stream of build_ring_chain(request, collective, first, combine): the same header and ops.
/// Op (c, k), keyed (c << 32) | k, is chain rank k's send of pipeline chunk c to chain rank k + 1
/// (chain rank k is rank (first + k) mod N); it waits for (c, k - 1), which brought it the chunk
/// (none at k = 0), the builder's only edge (the receiver's chunk c is neither written nor read
/// before). The first rank's sends are one chain of roots (sched::OpStream::root_after), chunk
/// after chunk. Throws as build_ring_chain does.
std::unique_ptr<sched::OpStream> make_ring_chain_stream(const Request& request, sched::Collective collective,
                                                        sched::Rank first, sched::Combine combine);

/// Registry entries: ring broadcast (the chain from the root, copying) and ring reduce (the chain
/// ending at the root, adding), as build_ring_broadcast and build_ring_reduce.
std::unique_ptr<sched::OpStream> stream_ring_broadcast(const Request& request);
std::unique_ptr<sched::OpStream> stream_ring_reduce(const Request& request);

}  // namespace collsim::algo
