// A route search that explores only around its two ends, for the common case where the shortest
// route between two nodes is the only one: then it is the route any shortest-path search returns,
// Topology::shortest_route's Dijkstra included, found without settling the rest of a cluster.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "topologies/topology.hpp"

namespace collsim::topo {

/// The route from `from` to `to` (from != to) under Topology::shortest_route's rule (fewest hops,
/// then least summed latency, saturating; a GPU passed on the way only over NVLink-class links,
/// may_pass_through) when exactly one route is best; nullopt when several tie (then only the
/// Dijkstra's tie-breaking decides), when there is none, or when the search would visit more than
/// `max_edges` links. Found by a breadth-first search from both ends, a level at a time on the
/// side whose frontier has fewer links, until the sides meet: that gives the fewest hops D; each
/// side carries, per node, its least latency from its end and how many routes reach it (counted up
/// to 2); the best routes through the nodes D - b hops from `from` (b the depth the other side
/// reached), where every D-hop route has one node, are then counted. On N hosts behind one network
/// switch a route across hosts visits the links of the two hosts' switches, not the cluster.
/// Relies on Topology's pairing of directed links (2i a->b, 2i+1 b->a) to walk links backwards.
[[nodiscard]] std::optional<std::vector<LinkId>> unique_shortest_route(const Topology& topology, NodeId from, NodeId to,
                                                                      std::size_t max_edges);

}  // namespace collsim::topo
