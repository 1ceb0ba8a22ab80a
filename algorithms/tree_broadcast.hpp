// Tree broadcast on NCCL's binary tree (NVIDIA/nccl src/graph/trees.cc, ncclGetBtree), rooted at
// the request's root.
#pragma once

#include "algorithms/registry.hpp"

namespace collsim::algo {

/// Pipelined broadcast from Request::root over NCCL's btree with every rank renamed
/// r -> (r + root) mod N, so the btree's rank 0 is the root and the shape (height
/// D = ceil(log2 N), at most 2 children per rank) is NCCL's. NCCL itself runs broadcast on rings
/// only; this is its all-reduce tree's downward half. The buffer of S bytes moves in
/// C = max(1, ceil(S / chunk_size)) pipeline chunks; each rank forwards every chunk it receives to
/// its children (tree_pipeline.hpp gives the step of every op).
/// Steps: D + C - 1 for N > 1 (ceil(log2 N) unpipelined), 0 for N = 1.
/// Bytes sent by a rank: S per child, so the busiest rank sends 2S for N >= 4, S for N = 2, 3 and
/// nothing for N = 1; every rank but the root receives S.
/// Throws std::invalid_argument for a chunk_size of 0 or a root out of range.
sched::Schedule build_tree_broadcast(const Request& request);

}  // namespace collsim::algo
