// Tree all-reduce on NCCL's binary tree (NVIDIA/nccl src/graph/trees.cc, ncclGetBtree;
// src/device/all_reduce.h, runTreeUpDown).
#pragma once

#include "algorithms/registry.hpp"

namespace collsim::algo {

/// Pipelined reduce to rank 0 then broadcast from it, over NCCL's btree (nccl_btree: rank 0 is the
/// root, height D = ceil(log2 N), at most 2 children per rank). The buffer of S bytes moves in
/// C = max(1, ceil(S / chunk_size)) pipeline chunks (Request::chunk_size); for each chunk the ranks
/// reduce it up to the root, which then sends it back down, so chunk c goes down while chunk c+1
/// goes up (tree_pipeline.hpp gives the step of every op).
/// Steps: 2D + C - 1 for N > 1 (2·ceil(log2 N) unpipelined), 0 for N = 1.
/// Bytes sent by rank r: S·(children(r) + 1) for r > 0 and S·children(0) = S for the root, so the
/// busiest rank sends 3S for N >= 4 (rank 2 has children 1 and 3 and a parent), 2S for N = 3,
/// S for N = 2 and nothing for N = 1; every rank receives the same multiple of S as it sends.
/// Throws std::invalid_argument for a chunk_size of 0.
sched::Schedule build_tree_allreduce(const Request& request);

}  // namespace collsim::algo
