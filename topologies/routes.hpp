// Routes between the GPU pairs a schedule actually uses, computed on demand and cached.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "topologies/topology.hpp"

namespace collsim::topo {

/// A path of directed links with its totals, as a cut-through transfer sees it.
struct Route {
  std::vector<LinkId> links;
  Time latency{0};       ///< sum of the links' latencies
  Bandwidth bottleneck;  ///< smallest link bandwidth on the path
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
  const Topology& topology_;
  std::unordered_map<std::uint64_t, Route> routes_;
};

}  // namespace collsim::topo
