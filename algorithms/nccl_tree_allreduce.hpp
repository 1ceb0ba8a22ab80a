// NCCL's tree all-reduce as NCCL builds its trees (NVIDIA/nccl 2.30.7 src/graph/connect.cc,
// src/graph/trees.cc): a chain through each host's GPUs and a double binary tree across hosts
// (node_trees.hpp), so that between two hosts each direction of the network carries S once, not
// the 2S of a tree over ranks.
#pragma once

#include "algorithms/registry.hpp"

namespace collsim::algo {

/// The pipelined all-reduce of build_tree_pair over the two trees of
/// nccl_node_dtree(N, request.hosts): the first half of the buffer on the first tree (channel 0),
/// the second half on the second (channel 1), C_k = max(1, ceil(h_k / chunk_size)) chunks each.
/// Without hosts (a single-node topology) both trees are the chain 0 -> 1 -> .. -> N-1, as NCCL's
/// tree is on one node. Steps: 2D + C_0 - 1 for N > 1, D the taller tree's height (for K hosts of
/// L ranks about L - 1 + ceil(log2 K) plus one per slot-0 hop; K = 1 gives D = N - 1).
/// Bytes between two hosts of a 2-host request: h_0 + h_1 = S each way (tree k's reduce goes up
/// one way and its broadcast comes down the other). Throws std::invalid_argument for a chunk_size
/// of 0 or hosts numbered out of order (nccl_node_dtree).
sched::Schedule build_nccl_tree_allreduce(const Request& request);

}  // namespace collsim::algo
