// Whether every GPU of a topology can route to every other under Topology::shortest_route's rule.
#pragma once

#include <optional>
#include <span>
#include <utility>

#include "topologies/topology.hpp"

namespace collsim::topo {

/// The first GPU pair (from, to), in node order, between which no route obeys may_pass_through
/// (topology.hpp: a route passes another GPU only where it enters that GPU over NVLink), the rule
/// Topology::shortest_route follows. nullopt when every pair has a route. Links are a topology's directed links, both directions of each pair present.
///
/// Plain connectivity is not enough: two GPUs joined only through a third GPU's PCIe link are
/// connected, yet no route between them exists. The check is near linear, not one search per
/// pair: nodes joined by links that a route may cross both ways and go on (NVLink-class links,
/// links between two non-GPU nodes) form components; a link it may cross and go on one way only
/// (a GPU's PCIe link to a switch) is a one-way step out of a component; GPU b is reached from a set of components when it holds b's
/// component or a node with a link into b. One search per distinct source component, which stops
/// early at a component next to every GPU (the fabric of a cluster); the GPUs that the other
/// components a search reached do not enter are found once per such set of components (the hosts
/// of a cluster of several planes all reach the same plane networks).
[[nodiscard]] std::optional<std::pair<NodeId, NodeId>> unroutable_gpu_pair(std::span<const Node> nodes,
                                                                            std::span<const Link> links);

}  // namespace collsim::topo
