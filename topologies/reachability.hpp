// Whether every GPU of a topology can route to every other under Topology::shortest_route's rule.
#pragma once

#include <optional>
#include <span>
#include <utility>

#include "topologies/topology.hpp"

namespace collsim::topo {

/// The first GPU pair (from, to), in node order, between which no route obeys the rule of
/// Topology::shortest_route (and RouteCache::unique_two_hop): a route to a GPU passes another GPU
/// only where it enters that GPU over an NVLink-class link (ncclTopoSetPaths, src/graph/paths.cc,
/// NCCL 2.30.7: a path passes a GPU only over NVLink, NCCL's NVB paths; a NIC or a PCIe switch
/// writes to its destination GPU, never to one that passes the data on). nullopt when every
/// pair has a route. Links are a topology's directed links, both directions of each pair present.
///
/// Plain connectivity is not enough: two GPUs joined only through a third GPU's PCIe link are
/// connected, yet no route between them exists. The check is near linear, not one search per
/// pair: nodes joined by links that every route may cross both ways (NVLink-class links, links
/// between two non-GPU nodes) form components; a GPU's non-NVLink link to a non-GPU node is a
/// one-way step out of its component; GPU b is reached from a set of components when it holds b's
/// component or a node with a link into b. One search per distinct source component, which stops
/// early at a component next to every GPU (the fabric of a cluster).
[[nodiscard]] std::optional<std::pair<NodeId, NodeId>> unroutable_gpu_pair(std::span<const Node> nodes,
                                                                            std::span<const Link> links);

}  // namespace collsim::topo
