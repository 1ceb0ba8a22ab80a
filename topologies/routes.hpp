// Routes between the GPU pairs a schedule actually uses, computed on demand and cached.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
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

/// The links of the routes between node pairs of one topology, shared by the route caches of many
/// runs on it and on its copies at other bandwidths (Topology::with_bandwidth_factors keeps nodes,
/// link ids and routes): a command that simulates many rows on one topology (compare, calibrate)
/// finds each route once. Not thread-safe.
class PathTable {
 public:
  /// The links stored for the pair `key` ((from << 32) | to), or null.
  [[nodiscard]] const std::vector<LinkId>* find(std::uint64_t key) const;
  /// Stores the links of the pair `key`, found by a route cache; counts one route found.
  void add(std::uint64_t key, const std::vector<LinkId>& links);
  /// How many routes were found (each pair once however many runs asked for it).
  [[nodiscard]] std::uint64_t found() const noexcept { return paths_.size(); }

 private:
  std::unordered_map<std::uint64_t, std::vector<LinkId>> paths_;
};

/// Caches Topology::shortest_route per (from, to) pair; never computes all pairs (at 16,384
/// GPUs that would be 2.7e8 routes). One cache per simulation run; not thread-safe.
class RouteCache;

/// How the ranks of the first host (consecutive from rank 0, by `hosts`: host_indices) reach the
/// next host's: `local` = L, its rank count, and `sharing`, the most of the routes rank l -> rank
/// L + l (l < L) that cross one link (L on --nodes K's one uplink per host, 1 where each GPU has its
/// own NIC). nullopt unless the ranks span hosts with at least 2L of them.
struct HostCrossing {
  std::size_t local = 0;
  std::uint32_t sharing = 1;
};
std::optional<HostCrossing> host_crossing(RouteCache& routes, std::span<const NodeId> ranks,
                                          std::span<const std::uint32_t> hosts);

class RouteCache {
 public:
  /// Routes on `topology`; with `paths`, their links come from that table (and new ones go into it),
  /// which must belong to this topology or a copy of it with other bandwidths.
  explicit RouteCache(const Topology& topology, PathTable* paths = nullptr) : topology_(topology), paths_(paths) {}
  /// The route from `from` to `to` (from != to): the shortest, except between GPUs that NCCL joins
  /// through host memory (SHM), where it passes the receiver's CPU. The reference stays valid for
  /// the cache's life. Throws TopologyError when there is none.
  const Route& get(NodeId from, NodeId to);

 private:
  /// The links of the only two-hop path from `from` to `to` when there is no direct link and
  /// exactly one two-hop path (a GPU under one switch): then it is the path Dijkstra would
  /// return, found in O(degree) instead of O((V + E) log V) per pair. Otherwise nullopt.
  std::optional<std::vector<LinkId>> unique_two_hop(NodeId from, NodeId to);

  /// `links` (the shortest route between two GPUs) or, where NCCL moves the pair's data through
  /// host memory (SHM: topologies/transport.hpp), the route through the receiver's local CPU.
  /// Throws TopologyError when SHM has no CPU to go through.
  std::vector<LinkId> by_transport(NodeId from, NodeId to, std::vector<LinkId> links);

  const Topology& topology_;
  PathTable* paths_ = nullptr;
  std::unordered_map<std::uint64_t, Route> routes_;
  struct Last {
    NodeId to = 0;
    const Route* route = nullptr;
  };
  std::vector<Last> last_;  // by node: the route it was last asked for, sized on the first get
  std::vector<std::vector<LinkId>> out_links_, in_links_;  // by node, built on the first miss
  std::vector<std::optional<NodeId>> local_cpu_;            // by node, found on the first SHM route to it
  std::vector<bool> local_cpu_known_;
};

}  // namespace collsim::topo
