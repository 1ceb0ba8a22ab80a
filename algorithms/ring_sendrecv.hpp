// Send/recv as nccl-tests' sendrecv_perf runs it (nccl-tests src/sendrecv.cu): every rank sends
// its buffer to the next rank of the ring and receives the previous rank's, all at once, as one
// grouped ncclSend and ncclRecv per rank.
#pragma once

#include "algorithms/registry.hpp"

namespace collsim::algo {

/// Chunk 0 is the data buffer [0, S) and chunk 1 the output buffer [0, S) (sched::Buffer::Output).
/// Rank r sends chunk 0 to rank (r+1) mod N's chunk 1, in step 1: one op per rank, S bytes each;
/// one rank copies its own buffer locally. 1 step (0 for S = 0, which still has its ops of 0 bytes).
sched::Schedule build_ring_sendrecv(const Request& request);

}  // namespace collsim::algo
