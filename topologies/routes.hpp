// Routes between the GPU pairs a schedule actually uses, computed on demand and cached.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
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
  /// Its class for NCCL's latencies: network if any link is network-class, else PCIe if any is,
  /// else NVLink (an empty route: NVLink). Computed once here, read per op by sim::OpCostModel.
  LinkClass link_class = LinkClass::NvLink;
  /// Under ECMP: some switch on it has another next hop at equal cost, so other channels between
  /// the same two nodes may take other links (RouteCache::get).
  bool multipath = false;
  /// A sprayed route (Routing::Spray): the share of the flow each link carries, parallel to `links`
  /// (1 on the links every path shares, 1/k on each of k parallel paths' own); empty: all 1. The
  /// same per resource, parallel to `resources`. `bottleneck` is then the rate the flow reaches
  /// alone, min over its links of bandwidth / share, and `latency` one path's.
  std::vector<double> link_share;
  std::vector<double> resource_share;
  /// Its number in the RouteCache that made it: 0, 1, ... in the order routes were first asked
  /// for (RouteCache::size() of them), so a caller can keep per-route totals in a plain array.
  std::uint32_t index = 0;
};

/// The hash ECMP places a flow by: a fixed mix (splitmix64, Steele, Lea & Flood 2014) of the
/// flow's source and destination nodes, its channel and the node choosing the next hop, so runs
/// are byte-identical; the choice is hash mod the number of equal-cost next hops, in link order.
[[nodiscard]] std::uint64_t ecmp_hash(NodeId from, NodeId to, std::uint16_t channel, NodeId at) noexcept;

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
/// own NIC). `host_sharing` counts only links with an end in a host (Node::host: GPUs, NICs, a
/// host's switch and their links), what NCCL's topology search sees: leaf-spine links are the
/// network's, whose ECMP collisions NCCL's tuning never sees (ncclTopoTuneModel takes the NICs'
/// bandwidth). nullopt unless the ranks span hosts with at least 2L of them.
struct HostCrossing {
  std::size_t local = 0;
  std::uint32_t sharing = 1;
  std::uint32_t host_sharing = 1;
};
std::optional<HostCrossing> host_crossing(RouteCache& routes, std::span<const NodeId> ranks,
                                          std::span<const std::uint32_t> hosts);

class RouteCache {
 public:
  /// Routes on `topology`; with `paths`, their links come from that table (and new ones go into it),
  /// which must belong to this topology or a copy of it with other bandwidths.
  explicit RouteCache(const Topology& topology, PathTable* paths = nullptr)
      : topology_(topology),
        paths_(paths),
        ecmp_(topology.routing() == Routing::Ecmp && topology.has_equal_cost_paths()),
        spray_(topology.routing() == Routing::Spray && topology.has_equal_cost_paths()),
        dmodk_(topology.routing() == Routing::DModK && topology.has_equal_cost_paths()) {}
  /// The route from `from` to `to` (from != to) for `channel`: the shortest, except between GPUs
  /// that NCCL joins through host memory (SHM), where it passes the receiver's CPU. Under ECMP
  /// (Topology::routing) on a fabric with equal-cost paths, each hop X -> Y -> Z through a switch Y
  /// takes the switch among those at equal cost (links X -> Y' -> Z, equal summed latency, in X's
  /// link order) that ecmp_hash(from, to, channel, X) picks; under single routing, or where there is
  /// no choice, every channel gets the shortest route. Under D-Mod-K (Routing::DModK) every channel
  /// takes one route: the c-th hop with m_c equal-cost switches (in X's link order) takes the
  /// switch floor(d / (m_0 x ... x m_{c-1})) mod m_c, d being the destination's leaf port (the
  /// route's last link from a leaf, a switch linked to another switch, down to a node that is not
  /// a switch, numbered in link order among all such links: leaf by leaf in a generated cluster;
  /// the destination's node id where the route has none). The reference stays valid for the
  /// cache's life. Throws TopologyError when there is none.
  const Route& get(NodeId from, NodeId to, std::uint16_t channel = 0);
  /// Forgets every route made so far (references to them dangle; Route::index starts again at 0),
  /// keeping what it learned of the topology (its adjacency lists), in O(routes forgotten): for a
  /// caller that needs one source's routes at a time (run/plan.cpp), where a new cache per source
  /// rebuilt those lists each time, O(N x links) in all (recursive doubling on 8192 GPUs: 40 s).
  void clear();
  /// How many routes get() has made so far (their Route::index values are 0 .. size() - 1).
  [[nodiscard]] std::size_t size() const noexcept { return routes_.size() + channel_routes_.size(); }

 private:
  /// The links of the only two-hop path from `from` to `to` when there is no direct link and
  /// exactly one two-hop path (a GPU under one switch): then it is the path Dijkstra would
  /// return, found in O(degree) instead of O((V + E) log V) per pair. Otherwise nullopt.
  std::optional<std::vector<LinkId>> unique_two_hop(NodeId from, NodeId to);

  /// `links` (the shortest route between two GPUs) or, where NCCL moves the pair's data through
  /// host memory (SHM: topologies/transport.hpp), the route through the receiver's local CPU.
  /// Throws TopologyError when SHM has no CPU to go through.
  std::vector<LinkId> by_transport(NodeId from, NodeId to, std::vector<LinkId> links);

  /// `links` with ECMP's choices for `channel` made along it (see get()); sets `*choice` when some
  /// hop had more than one equal-cost switch.
  std::vector<LinkId> ecmp_links(std::vector<LinkId> links, NodeId from, NodeId to, std::uint16_t channel, bool* choice);
  /// `links` with each hop X -> Y -> Z through a switch Y that has equal-cost alternatives
  /// (equal_cost_switches, m of them) taken through the one pick(X, m) indexes, hop after hop;
  /// sets `*choice` (when not null) when some hop had more than one.
  std::vector<LinkId> choose_switches(std::vector<LinkId> links, const std::function<std::size_t(NodeId, std::size_t)>& pick,
                                      bool* choice);
  /// `links` with D-Mod-K's choices toward `to` made along it (see get()).
  std::vector<LinkId> dmodk_links(std::vector<LinkId> links, NodeId to);
  /// The hops X -> Y' -> Z through a switch Y' at the latency of first (X -> Y) and second (Y -> Z),
  /// in X's link order, into `candidates` (cleared first).
  void equal_cost_switches(const Link& first, const Link& second, std::vector<std::pair<LinkId, LinkId>>& candidates);
  /// The directed link from `a` to `b`, if any (a map built on first use).
  std::optional<LinkId> link_between(NodeId a, NodeId b);
  /// Fills a route's totals from its links (and link_share, where set).
  void complete(Route& r) const;
  /// `links` with the first hop that has equal-cost switches split over all of them (Spray), the
  /// later choices hashed as ECMP's; nullopt when no hop has a choice.
  std::optional<Route> spray(const std::vector<LinkId>& links, NodeId from, NodeId to);

  const Topology& topology_;

 public:
  /// The topology the routes are of.
  [[nodiscard]] const Topology& topology() const noexcept { return topology_; }

 private:
  PathTable* paths_ = nullptr;
  bool ecmp_ = false;   // ECMP routing on a fabric with equal-cost paths
  bool spray_ = false;  // spray routing on such a fabric
  bool dmodk_ = false;  // D-Mod-K routing on such a fabric
  /// By directed link: its number among the links from a leaf down to a node that is not a switch
  /// (D-Mod-K's d), kNoPort for the others; built on first use.
  static constexpr std::uint32_t kNoPort = 0xFFFFFFFFu;
  std::vector<std::uint32_t> leaf_port_;
  std::unordered_map<std::uint64_t, Route> routes_;
  struct ChannelKey {
    std::uint64_t pair;
    std::uint16_t channel;
    bool operator==(const ChannelKey&) const = default;
  };
  struct ChannelKeyHash {
    std::size_t operator()(const ChannelKey& k) const noexcept { return std::hash<std::uint64_t>()(k.pair * 65537 + k.channel); }
  };
  std::unordered_map<ChannelKey, Route, ChannelKeyHash> channel_routes_;  // multipath routes, per channel
  std::unordered_map<std::uint64_t, LinkId> link_index_;                  // (from << 32 | to) -> link
  std::unordered_map<std::uint64_t, std::vector<LinkId>> shortest_;       // multipath pairs' shortest routes
  struct Last {
    NodeId to = 0;
    std::uint16_t channel = 0;
    const Route* route = nullptr;
  };
  /// The routes a node was last asked for, one cache line per node: a ring asks for one peer again
  /// and again, a tree for three (parent and two children), halving-doubling for one per step.
  struct alignas(64) Recent {
    static constexpr std::size_t kWays = 4;
    std::array<Last, kWays> ways{};
  };
  std::vector<Recent> last_;              // by node, sized on the first get
  std::vector<std::uint8_t> last_next_;   // by node: the way of last_ its next miss replaces (in turn)
  std::vector<std::vector<LinkId>> out_links_, in_links_;  // by node, built on the first miss
  std::vector<std::optional<NodeId>> local_cpu_;            // by node, found on the first SHM route to it
  std::vector<bool> local_cpu_known_;
};

}  // namespace collsim::topo
