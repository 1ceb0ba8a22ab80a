#include "algorithms/node_trees.hpp"

#include <stdexcept>

#include <fmt/format.h>

namespace collsim::algo {
namespace {

// Each host's ranks in increasing order (one host when `hosts` is empty).
std::vector<std::vector<sched::Rank>> host_members(sched::Rank nranks, const std::vector<std::uint32_t>& hosts) {
  if (nranks == 0) throw std::invalid_argument("nccl_node_dtree: a tree needs at least one rank");
  std::vector<std::vector<sched::Rank>> members;
  if (hosts.empty()) {
    members.emplace_back();
    for (sched::Rank r = 0; r < nranks; ++r) members[0].push_back(r);
    return members;
  }
  if (hosts.size() != nranks)
    throw std::invalid_argument(fmt::format("nccl_node_dtree: {} hosts for {} ranks", hosts.size(), nranks));
  for (sched::Rank r = 0; r < nranks; ++r) {
    if (hosts[r] > members.size())
      throw std::invalid_argument(fmt::format("nccl_node_dtree: rank {} is on host {} before host {} appeared", r,
                                              hosts[r], members.size()));
    if (hosts[r] == members.size()) members.emplace_back();
    members[hosts[r]].push_back(r);
  }
  return members;
}

void add_child(Tree& t, sched::Rank parent, sched::Rank child) {
  TreeNode& node = t.nodes[parent];
  const unsigned k = node.child_count();
  if (k == node.children.size())
    throw std::logic_error(fmt::format("nccl_node_dtree: rank {} would have a third child", parent));
  node.children[k] = child;
  t.nodes[child].parent = parent;
}

// Tree `which` of the pair: the chains, then each host's top linked into the host tree.
Tree node_tree(const std::vector<std::vector<sched::Rank>>& members, const Tree& host_tree, unsigned which,
               sched::Rank nranks) {
  const auto k = static_cast<sched::Rank>(members.size());
  Tree t;
  t.nodes.resize(nranks);
  t.root = members[host_tree.root][0];
  // A host's children are linked host by host in host order below; chain links come first so a
  // rank's chain child is children[0].
  for (const auto& m : members)
    for (std::size_t i = 1; i < m.size(); ++i) add_child(t, m[i - 1], m[i]);
  for (sched::Rank h = 0; h < k; ++h) {
    const sched::Rank p = host_tree.nodes[h].parent;
    if (p == kNoRank) continue;
    const auto& up = members[p];
    const unsigned slot = dtree_child_type(k, which, h, p);
    // BALANCED_TREE: treeToChild0 is treeIntra[1], treeToChild1 treeIntra[0] (connect.cc,
    // ncclTopoPreset); one GPU per node has only treeIntra[0].
    const sched::Rank port = slot == 0 && up.size() > 1 ? up[1] : up[0];
    add_child(t, port, members[h][0]);
  }
  return t;
}

}  // namespace

std::pair<Tree, Tree> nccl_node_dtree(sched::Rank nranks, const std::vector<std::uint32_t>& hosts) {
  const auto members = host_members(nranks, hosts);
  const auto [first, second] = nccl_dtree(static_cast<sched::Rank>(members.size()));
  return {node_tree(members, first, 0, nranks), node_tree(members, second, 1, nranks)};
}

}  // namespace collsim::algo
