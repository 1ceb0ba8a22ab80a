// Routes between the GPU pairs a schedule actually uses, computed on demand and cached.
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "topologies/topology.hpp"

namespace collsim::topo {

/// A path of directed links with its totals, as a cut-through transfer sees it.
struct Route {
  std::vector<LinkId> links;
  Time latency{0};       ///< sum of the links' latencies
  Bandwidth bottleneck;  ///< smallest link bandwidth on the path
  /// The capacities (Link::resource) the path draws on, ascending and distinct: computed once here
  /// so a network model does not rebuild them per transfer.
  std::vector<std::uint32_t> resources;
};

/// Caches Topology::shortest_route per (from, to) pair; never computes all pairs (at 16,384
/// GPUs that would be 2.7e8 routes). One cache per simulation run; not thread-safe.
class RouteCache {
 public:
  explicit RouteCache(const Topology& topology) : topology_(topology) {}
  /// The route from `from` to `to` (from != to). The reference stays valid for the cache's life.
  /// Throws TopologyError when there is none.
  const Route& get(NodeId from, NodeId to);

 private:
  /// The links of the only two-hop path from `from` to `to` when there is no direct link and
  /// exactly one two-hop path (a GPU under one switch): then it is the path Dijkstra would
  /// return, found in O(degree) instead of O((V + E) log V) per pair. Otherwise nullopt.
  std::optional<std::vector<LinkId>> unique_two_hop(NodeId from, NodeId to);

  const Topology& topology_;
  std::unordered_map<std::uint64_t, Route> routes_;
  struct Last {
    NodeId to = 0;
    const Route* route = nullptr;
  };
  std::vector<Last> last_;  // by node: the route it was last asked for, sized on the first get
  std::vector<std::vector<LinkId>> out_links_, in_links_;  // by node, built on the first miss
};

}  // namespace collsim::topo
