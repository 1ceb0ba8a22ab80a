#include "algorithms/nccl_trees.hpp"

#include <algorithm>
#include <stdexcept>

namespace collsim::algo {
namespace {

// Rank r's links in NCCL's btree over n ranks (ncclGetBtree), without the packing of children.
TreeNode btree_node(sched::Rank n, sched::Rank r) {
  // The lowest set bit of r; for r = 0 the loop stops at the first power of two >= n.
  std::uint64_t bit = 1;
  while (bit < n && (bit & r) == 0) bit <<= 1;
  TreeNode node;
  if (r == 0) {
    if (n > 1) node.children[0] = static_cast<sched::Rank>(bit >> 1);
    return node;
  }
  const std::uint64_t up = (r ^ bit) | (bit << 1);
  node.parent = static_cast<sched::Rank>(up < n ? up : (r ^ bit));
  const std::uint64_t half = bit >> 1;
  if (half == 0) return node;                             // odd ranks are leaves
  node.children[0] = static_cast<sched::Rank>(r - half);  // always in range
  // The second child is r + h for the largest h in {half, half/2, ..., 1} that stays below n.
  for (std::uint64_t h = half; h > 0; h >>= 1) {
    if (r + h < n) {
      node.children[1] = static_cast<sched::Rank>(r + h);
      break;
    }
  }
  return node;
}

// The tree in which rank r plays the role of rank role(r) of `base`: rank r's parent is the rank
// that plays base's parent of role(r), and so on. `role` is a bijection on 0..n-1.
template <class Role, class Inverse>
Tree relabel(const Tree& base, Role role, Inverse inverse) {
  const auto n = static_cast<sched::Rank>(base.nodes.size());
  Tree t;
  t.root = inverse(base.root);
  t.nodes.resize(n);
  const auto map = [&](sched::Rank x) { return x == kNoRank ? kNoRank : inverse(x); };
  for (sched::Rank r = 0; r < n; ++r) {
    const TreeNode& b = base.nodes[role(r)];
    t.nodes[r].parent = map(b.parent);
    t.nodes[r].children = {map(b.children[0]), map(b.children[1])};
  }
  return t;
}

}  // namespace

std::uint32_t ceil_log2(std::uint32_t n) noexcept {
  std::uint32_t d = 0;
  while ((std::uint64_t{1} << d) < n) ++d;
  return d;
}

Tree nccl_btree(sched::Rank n) {
  if (n == 0) throw std::invalid_argument("nccl_btree: a tree needs at least one rank");
  Tree t;
  t.root = 0;
  t.nodes.reserve(n);
  for (sched::Rank r = 0; r < n; ++r) t.nodes.push_back(btree_node(n, r));
  return t;
}

sched::Rank dtree_role(sched::Rank n, unsigned which, sched::Rank r) noexcept {
  if (which == 0) return r;
  // Shift for odd n (rank r plays rank r-1 mod n), mirror for even n (rank r plays n-1-r).
  return n % 2 == 1 ? (r + n - 1) % n : n - 1 - r;
}

std::pair<Tree, Tree> nccl_dtree(sched::Rank n) {
  Tree first = nccl_btree(n);
  // Rank x of the btree is played by x+1 (mod n) when shifted; the mirror is an involution.
  const auto player = [n](sched::Rank x) { return n % 2 == 1 ? (x + 1) % n : n - 1 - x; };
  Tree second = relabel(first, [n](sched::Rank r) { return dtree_role(n, 1, r); }, player);
  return {std::move(first), std::move(second)};
}

unsigned dtree_child_type(sched::Rank n, unsigned which, sched::Rank child, sched::Rank parent) noexcept {
  return dtree_role(n, which, child) < dtree_role(n, which, parent) ? 0u : 1u;
}

Tree rotate_tree(const Tree& tree, sched::Rank offset) {
  const auto n = static_cast<sched::Rank>(tree.nodes.size());
  const sched::Rank k = offset % n;
  return relabel(
      tree, [n, k](sched::Rank r) { return (r + n - k) % n; }, [n, k](sched::Rank x) { return (x + k) % n; });
}

std::vector<std::uint32_t> tree_depths(const Tree& tree) {
  std::vector<std::uint32_t> depth(tree.nodes.size(), 0);
  // Breadth-first from the root, so a parent's depth is known before its children's.
  std::vector<sched::Rank> queue{tree.root};
  for (std::size_t i = 0; i < queue.size(); ++i) {
    const sched::Rank r = queue[i];
    for (sched::Rank c : tree.nodes[r].children) {
      if (c == kNoRank) continue;
      depth[c] = depth[r] + 1;
      queue.push_back(c);
      if (queue.size() > tree.nodes.size()) throw std::logic_error("tree_depths: the links form a cycle");
    }
  }
  if (queue.size() != tree.nodes.size())
    throw std::logic_error("tree_depths: not every rank is reachable from the root");
  return depth;
}

std::uint32_t tree_height(const Tree& tree) {
  const auto depth = tree_depths(tree);
  return *std::max_element(depth.begin(), depth.end());
}

}  // namespace collsim::algo
