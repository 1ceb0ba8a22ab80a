// The binary trees NCCL builds over ranks 0..N-1 (NVIDIA/nccl src/graph/trees.cc): ncclGetBtree,
// one tree rooted at rank 0, and ncclGetDtree, two complementary trees for the double binary tree.
// Shapes only: which rank is whose parent and children. The pipelined ops that run over a tree are
// in tree_pipeline.hpp.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "sim/schedule/schedule.hpp"

namespace collsim::algo {

/// "No rank": the root's parent, a missing child.
inline constexpr sched::Rank kNoRank = std::numeric_limits<sched::Rank>::max();

/// One rank's links in a tree. Children are packed: children[1] is kNoRank when children[0] is.
struct TreeNode {
  sched::Rank parent = kNoRank;
  std::array<sched::Rank, 2> children{kNoRank, kNoRank};
  /// 0, 1 or 2.
  [[nodiscard]] unsigned child_count() const noexcept {
    return (children[0] != kNoRank ? 1u : 0u) + (children[1] != kNoRank ? 1u : 0u);
  }
  [[nodiscard]] bool is_leaf() const noexcept { return children[0] == kNoRank; }
};

/// A tree over ranks 0..N-1: nodes[r] are rank r's links; nodes[root].parent == kNoRank.
struct Tree {
  sched::Rank root = 0;
  std::vector<TreeNode> nodes;
};

/// ceil(log2 n) for n >= 1 (0 for n = 1).
std::uint32_t ceil_log2(std::uint32_t n) noexcept;

/// NCCL's binary tree over ranks 0..n-1 (ncclGetBtree, src/graph/trees.cc), rooted at rank 0.
/// Let b be the lowest set bit of rank r (r > 0): the parent is (r ^ b) | 2b, or r ^ b when that
/// is out of range; the children are r - b/2 and the largest r + h (h = b/2, b/4, ..., 1) below n.
/// Rank 0 has one child, the largest power of two below n. Odd ranks are the leaves. Every rank
/// has at most 2 children and the depth is ceil(log2 n). Precondition: n >= 1.
Tree nccl_btree(sched::Rank n);

/// NCCL's double binary tree (ncclGetDtree): first the btree; second, for even n, its mirror
/// (rank r plays the btree's rank n-1-r; root n-1), for odd n, the btree shifted by one (rank r
/// plays rank r-1 mod n; root 1). Odd ranks are the first tree's leaves and even ranks the second's
/// (but rank 0 for odd n), so no rank is a leaf in both trees when n >= 2. Precondition: n >= 1.
std::pair<Tree, Tree> nccl_dtree(sched::Rank n);

/// The btree rank that rank r plays in tree `which` (0 or 1) of nccl_dtree(n): r itself in the
/// first; in the second r-1 mod n for odd n (the shift), n-1-r for even n (the mirror).
/// Precondition: r < n.
sched::Rank dtree_role(sched::Rank n, unsigned which, sched::Rank r) noexcept;

/// Which of its parent's two child slots `child` fills in tree `which` of nccl_dtree(n): 0 when it
/// plays a smaller btree rank than its parent, else 1 (ncclGetBtree's parentChildType, computed on
/// the ranks each plays, as ncclGetDtree does). NCCL's node-aware trees attach a child node to the
/// parent node's GPU for that slot (src/graph/connect.cc, connectTrees). Precondition: parent is
/// child's parent in that tree.
unsigned dtree_child_type(sched::Rank n, unsigned which, sched::Rank child, sched::Rank parent) noexcept;

/// `tree` with every rank r renamed (r + offset) mod N: the same shape, rooted at
/// (tree.root + offset) mod N. Used to root the btree at the root of a broadcast or reduce.
Tree rotate_tree(const Tree& tree, sched::Rank offset);

/// Distance from the root, per rank (root 0). Precondition: `tree` is a tree (connected, acyclic).
std::vector<std::uint32_t> tree_depths(const Tree& tree);

/// The largest depth: the number of levels below the root (0 for one rank).
std::uint32_t tree_height(const Tree& tree);

}  // namespace collsim::algo
