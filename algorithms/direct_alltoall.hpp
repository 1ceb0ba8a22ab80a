// Direct all-to-all: every rank sends block q straight to rank q, all at once. MPICH's
// all-to-all for medium messages posts every irecv and isend and waits for all (Thakur,
// Rabenseifner & Gropp, "Optimization of Collective Communication Operations in MPICH", IJHPCA
// 2005); nccl-tests' alltoall is the same group of ncclSend/ncclRecv to every peer.
#pragma once

#include "algorithms/registry.hpp"

namespace collsim::algo {

/// With B = floor(S/N) (alltoall_chunks): in step 1, for distance d = 1..N-1, rank r sends its data
/// block (r+d) mod N to rank (r+d) mod N, which stores it in its output block r; each rank also
/// copies its own block r into its output block r by a local op. 1 step (also for N = 1, the local
/// copy); every rank sends (N-1) · B bytes.
sched::Schedule build_direct_alltoall(const Request& request);

}  // namespace collsim::algo
