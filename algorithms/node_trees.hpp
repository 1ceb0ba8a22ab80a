// NCCL's node-aware trees (NVIDIA/nccl 2.30.7 src/graph/connect.cc, ncclTopoPreset and
// connectTrees; src/graph/trees.cc, ncclGetDtree): inside each host a chain through its GPUs, and
// between hosts the double binary tree over host indices. A host's first GPU links to its parent
// host; child hosts hang from the GPU for their child slot. Shapes only, as nccl_trees.hpp.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "algorithms/nccl_trees.hpp"

namespace collsim::algo {

/// The two node-aware trees over `nranks` ranks whose hosts are `hosts` (Request::hosts: host of
/// each rank, numbered in order of first appearance; empty means one host).
///
/// Host h's ranks, in increasing order m_0 .. m_{L-1}, form a chain: m_i's parent is m_{i-1}, so
/// m_0 is the host's top (NCCL's treeIntra[0]). Across hosts, tree t (0, 1) is nccl_dtree(K)'s
/// tree t over host indices: host h's m_0 links to the parent host's GPU for h's child slot
/// (dtree_child_type): slot 1 at that host's m_0, slot 0 at its m_1 (m_0 when L = 1). That is
/// NCCL_TOPO_PATTERN_BALANCED_TREE, the pattern init.cc asks of the tree search, which NCCL's
/// search turns into NCCL_TOPO_PATTERN_TREE for one GPU per node (search.cc, ncclTopoCompute).
/// Every rank has at most two children: a chain child and one child host. Both trees use the
/// same chains, as NCCL's channels c and c + nChannels do. The root is host 0's m_0 in tree 0 and
/// the second tree's root host's m_0 in tree 1.
///
/// Throws std::invalid_argument when nranks is 0 or hosts is neither empty nor of size nranks
/// with hosts numbered 0, 1, .. in order of first appearance.
std::pair<Tree, Tree> nccl_node_dtree(sched::Rank nranks, const std::vector<std::uint32_t>& hosts);

}  // namespace collsim::algo
