// Double binary tree all-reduce, as NCCL runs it (NVIDIA/nccl src/graph/trees.cc, ncclGetDtree;
// Sanders, Speck & Träff, "Two-tree algorithms for full bandwidth broadcast, reduction and scan",
// Parallel Computing 2009).
#pragma once

#include "algorithms/registry.hpp"

namespace collsim::algo {

/// Two complementary trees (nccl_dtree): NCCL's btree rooted at rank 0, and its mirror (root
/// N-1) for even N or the btree shifted by one rank (root 1) for odd N; no rank is a leaf in both.
/// Each tree is a channel (ops of the first carry channel 0, of the second channel 1) and carries
/// one contiguous half of the buffer, h0 = ceil(S/2) bytes then h1 = floor(S/2) bytes, as NCCL
/// gives each channel its own part of the buffer; each half runs the pipelined tree all-reduce of
/// build_tree_allreduce in C_k = max(1, ceil(h_k / chunk_size)) chunks, both trees at once.
/// Steps: 2D + C_0 - 1 for N > 1 (D = ceil(log2 N), the height of both trees), 0 for N = 1.
/// Bytes sent by rank r: sum over trees k of h_k·(children_k(r) + [r is not root_k]). The busiest
/// rank sends 3·h0 + h1 (about 2S) for N >= 4 (rank 2: two children and a parent in the first tree,
/// a leaf in the second), 2·h0 + h1 for N = 3, S for N = 2 and nothing for N = 1.
/// Throws std::invalid_argument for a chunk_size of 0.
sched::Schedule build_double_tree_allreduce(const Request& request);

}  // namespace collsim::algo
