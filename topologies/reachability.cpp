#include "topologies/reachability.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <numeric>
#include <vector>

namespace collsim::topo {
namespace {

// Union-find over node ids, with path halving.
class Components {
 public:
  explicit Components(std::size_t n) : parent_(n) { std::iota(parent_.begin(), parent_.end(), NodeId{0}); }
  NodeId find(NodeId v) {
    while (parent_[v] != v) v = parent_[v] = parent_[parent_[v]];
    return v;
  }
  void join(NodeId a, NodeId b) { parent_[find(a)] = find(b); }

 private:
  std::vector<NodeId> parent_;
};

// Rows of NodeId lists built from (row, value) pairs: compressed sparse rows.
struct Rows {
  std::vector<std::uint32_t> start;
  std::vector<NodeId> values;
  Rows(std::size_t rows, std::vector<std::pair<NodeId, NodeId>> pairs) : start(rows + 1, 0) {
    std::sort(pairs.begin(), pairs.end());
    pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
    for (const auto& [row, value] : pairs) ++start[row + 1];
    std::partial_sum(start.begin(), start.end(), start.begin());
    values.reserve(pairs.size());
    for (const auto& p : pairs) values.push_back(p.second);
  }
  [[nodiscard]] std::span<const NodeId> row(NodeId r) const {
    return {values.data() + start[r], values.data() + start[r + 1]};
  }
};

}  // namespace

std::optional<std::pair<NodeId, NodeId>> unroutable_gpu_pair(std::span<const Node> nodes, std::span<const Link> links) {
  const std::size_t n = nodes.size();
  const auto is_gpu = [&](NodeId v) { return nodes[v].type == NodeType::Gpu; };
  // Whether a route may go on from l.to after crossing l.
  const auto passes = [&](const Link& l) { return may_pass_through(nodes[l.to].type, l.type); };
  const auto passes_back = [&](const Link& l) { return may_pass_through(nodes[l.from].type, l.type); };
  // Links every route may cross either way join components.
  Components comp(n);
  for (const Link& l : links)
    if (passes(l) && passes_back(l)) comp.join(l.from, l.to);

  std::vector<NodeId> gpus;
  for (NodeId v = 0; v < n; ++v)
    if (is_gpu(v)) gpus.push_back(v);
  // steps: one-way links out of a component (a GPU's PCIe link to a switch: passed the other way
  // it would enter the GPU). entries: the components from which GPU i (an index into `gpus`) is
  // entered: its own, and any link's source component, as a route's last hop may be any link.
  std::vector<std::pair<NodeId, NodeId>> steps, entries;
  std::vector<NodeId> gpu_index(n, 0);
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    gpu_index[gpus[i]] = static_cast<NodeId>(i);
    entries.emplace_back(static_cast<NodeId>(i), comp.find(gpus[i]));
  }
  for (const Link& l : links) {
    if (passes(l) && !passes_back(l)) steps.emplace_back(comp.find(l.from), comp.find(l.to));
    if (is_gpu(l.to)) entries.emplace_back(gpu_index[l.to], comp.find(l.from));
  }
  const Rows step(n, std::move(steps));
  const Rows entered_from(gpus.size(), std::move(entries));
  // How many GPUs each component enters; one that enters all of them ends a search at once.
  std::vector<std::uint32_t> enters(n, 0);
  for (NodeId c : entered_from.values) ++enters[c];

  std::vector<std::uint32_t> seen(n, 0);  // stamp of the last search that reached a component
  std::vector<NodeId> frontier;
  std::vector<char> searched(n, 0);
  std::uint32_t stamp = 0;
  std::map<std::vector<NodeId>, std::vector<std::uint32_t>> missed_by_others;  // see below
  for (const NodeId source : gpus) {
    const NodeId start = comp.find(source);
    if (searched[start]) continue;  // every GPU of a component reaches the same components
    searched[start] = 1;
    ++stamp;
    bool all = false;
    frontier.assign(1, start);
    seen[start] = stamp;
    for (std::size_t k = 0; k < frontier.size() && !all; ++k) {
      const NodeId c = frontier[k];
      all = enters[c] == gpus.size();
      for (NodeId next : step.row(c))
        if (seen[next] != stamp) {
          seen[next] = stamp;
          frontier.push_back(next);
        }
    }
    if (all) continue;
    // The GPUs that the reached components other than the start's do not enter are the same for
    // every source that reaches the same others (the hosts of a cluster of several planes reach
    // one network per plane): found once per such set, so each further host costs its own
    // GPUs, not every GPU of the cluster (which made 60,000 hosts on 2 planes take a minute).
    const auto missed_by = [&](bool count_start) {
      std::vector<std::uint32_t> missed;
      for (std::size_t i = 0; i < gpus.size(); ++i) {
        const auto from = entered_from.row(static_cast<NodeId>(i));
        if (std::none_of(from.begin(), from.end(), [&](NodeId c) { return seen[c] == stamp && (count_start || c != start); }))
          missed.push_back(static_cast<std::uint32_t>(i));
      }
      return missed;
    };
    if (frontier.size() <= 64) {  // small sets only: a key per source must not grow with the cluster
      std::vector<NodeId> key;
      for (const NodeId c : frontier)
        if (c != start) key.push_back(c);
      std::sort(key.begin(), key.end());
      auto it = missed_by_others.find(key);
      if (it == missed_by_others.end()) it = missed_by_others.emplace(std::move(key), missed_by(false)).first;
      for (const std::uint32_t i : it->second) {
        const auto from = entered_from.row(static_cast<NodeId>(i));
        if (std::find(from.begin(), from.end(), start) == from.end()) return std::pair{source, gpus[i]};
      }
      continue;
    }
    if (const auto missed = missed_by(true); !missed.empty()) return std::pair{source, gpus[missed.front()]};
  }
  return std::nullopt;
}

}  // namespace collsim::topo
