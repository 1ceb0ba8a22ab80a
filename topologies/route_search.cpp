#include "topologies/route_search.hpp"

#include <algorithm>
#include <cstdint>
#include <unordered_map>

#include "sim/units/saturate.hpp"

namespace collsim::topo {
namespace {

/// What one side of the search knows of a node: its hop count from that side's end, the least
/// summed latency of the routes of that many hops, how many such routes there are (at most 2
/// counted), and the link of the best one next to the node (into it from `from`'s side, out of it
/// on `to`'s side).
struct Label {
  std::uint32_t depth = 0;
  Time latency{0};
  std::uint8_t ways = 1;
  LinkId via = 0;
};

/// One side: its labels and its levels of nodes (levels[d]: the nodes d hops from its end).
struct Side {
  std::unordered_map<NodeId, Label> label;
  std::vector<std::vector<NodeId>> levels;
  [[nodiscard]] std::uint32_t depth() const { return static_cast<std::uint32_t>(levels.size() - 1); }
};

}  // namespace

std::optional<std::vector<LinkId>> unique_shortest_route(const Topology& topology, NodeId from, NodeId to,
                                                         std::size_t max_edges) {
  if (from == to) return std::nullopt;
  const bool to_gpu = topology.node(to).type == NodeType::Gpu;
  // Topology::shortest_route's rule: a route to a GPU enters another GPU only over NVLink.
  const auto may_enter = [&](NodeId v, const Link& l) {
    return !to_gpu || v == to || may_pass_through(topology.node(v).type, l.type);
  };
  Side fwd, bwd;
  fwd.label.emplace(from, Label{});
  fwd.levels.push_back({from});
  bwd.label.emplace(to, Label{});
  bwd.levels.push_back({to});
  std::size_t work = 0;
  const auto frontier_links = [&](const Side& s) {
    std::size_t n = 0;
    for (NodeId u : s.levels.back()) n += topology.out_links(u).size();
    return n;
  };
  // Labels a node one level further on `side` from `u` over `l`, keeping the least latency and
  // counting the routes that reach it.
  const auto reach = [](Side& side, NodeId v, const Label& lu, Time latency, LinkId l, std::vector<NodeId>& next) {
    const std::uint32_t depth = lu.depth + 1;
    const auto [it, inserted] = side.label.try_emplace(v, Label{depth, latency, lu.ways, l});
    if (inserted) {
      next.push_back(v);
      return;
    }
    Label& lv = it->second;
    if (lv.depth != depth) return;
    if (latency < lv.latency) {
      lv.latency = latency;
      lv.ways = lu.ways;
      lv.via = l;
    } else if (latency == lv.latency) {
      lv.ways = static_cast<std::uint8_t>(std::min(2, lv.ways + lu.ways));
    }
  };
  std::optional<std::uint32_t> hops;  // D, the fewest hops, once the sides meet
  while (!hops) {
    const bool forward = frontier_links(fwd) <= frontier_links(bwd);
    Side& side = forward ? fwd : bwd;
    const Side& other = forward ? bwd : fwd;
    std::vector<NodeId> next;
    for (const NodeId u : side.levels.back()) {
      const Label lu = side.label.at(u);
      for (const LinkId out : topology.out_links(u)) {
        if (++work > max_edges) return std::nullopt;
        if (forward) {
          const Link& l = topology.link(out);
          if (may_enter(l.to, l)) reach(side, l.to, lu, saturating_add(lu.latency, l.latency), out, next);
        } else {
          // The link into u from the other end of `out` (directed links come in pairs: 2i, 2i+1).
          const LinkId in = out ^ 1u;
          const Link& l = topology.link(in);
          if (may_enter(u, l)) reach(side, l.from, lu, saturating_add(l.latency, lu.latency), in, next);
        }
      }
    }
    if (next.empty()) return std::nullopt;  // no route: the full search says so
    for (const NodeId v : next)
      if (const auto it = other.label.find(v); it != other.label.end()) {
        const std::uint32_t d = side.label.at(v).depth + it->second.depth;
        hops = hops ? std::min(*hops, d) : d;
      }
    side.levels.push_back(std::move(next));
  }
  // Every D-hop route has its node k hops from `from`, with k <= fwd's depth and D - k <= bwd's
  // (D <= both depths summed), so both sides label it; the best routes through those nodes are all
  // the best routes.
  const std::uint32_t k = std::min(fwd.depth(), *hops);
  std::optional<Time> best;
  int ways = 0;
  NodeId middle = from;
  for (const NodeId v : fwd.levels[k]) {
    const auto it = bwd.label.find(v);
    if (it == bwd.label.end() || it->second.depth != *hops - k) continue;
    const Label& lf = fwd.label.at(v);
    const Time total = saturating_add(lf.latency, it->second.latency);
    const int through = std::min(2, lf.ways * it->second.ways);
    if (!best || total < *best) {
      best = total;
      ways = through;
      middle = v;
    } else if (total == *best) {
      ways = std::min(2, ways + through);
    }
  }
  // Several best routes (or sums that saturate, where routes of other latencies tie): the
  // Dijkstra's tie-breaking decides.
  if (!best || ways != 1 || *best == Time::max()) return std::nullopt;
  std::vector<LinkId> route;
  for (NodeId v = middle; v != from;) {
    const LinkId l = fwd.label.at(v).via;
    route.push_back(l);
    v = topology.link(l).from;
  }
  std::reverse(route.begin(), route.end());
  for (NodeId v = middle; v != to;) {
    const LinkId l = bwd.label.at(v).via;
    route.push_back(l);
    v = topology.link(l).to;
  }
  return route;
}

}  // namespace collsim::topo
