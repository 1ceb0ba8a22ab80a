// Tree reduce on NCCL's binary tree (NVIDIA/nccl src/graph/trees.cc, ncclGetBtree), rooted at
// the request's root.
#pragma once

#include "algorithms/registry.hpp"

namespace collsim::algo {

/// Pipelined reduce to Request::root over NCCL's btree with every rank renamed
/// r -> (r + root) mod N, so the btree's rank 0 is the root and the shape (height
/// D = ceil(log2 N), at most 2 children per rank) is NCCL's. NCCL itself runs reduce on rings
/// only; this is its all-reduce tree's upward half. The buffer of S bytes moves in
/// C = max(1, ceil(S / chunk_size)) pipeline chunks; each rank adds its children's chunk into its
/// own and forwards the sum to its parent (tree_pipeline.hpp gives the step of every op).
/// Steps: D + C - 1 for N > 1 (ceil(log2 N) unpipelined), 0 for N = 1.
/// Bytes sent: S by every rank but the root, which sends nothing, so the busiest rank sends S for
/// N > 1; a rank receives S per child (2S at most, N >= 4).
/// Throws std::invalid_argument for a chunk_size of 0 or a root out of range.
sched::Schedule build_tree_reduce(const Request& request);

}  // namespace collsim::algo
