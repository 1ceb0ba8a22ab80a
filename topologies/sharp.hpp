// InfiniBand SHARP (Scalable Hierarchical Aggregation and Reduction Protocol): a network switch
// that reduces what the hosts send it and returns the sum to each (NVIDIA SHARP documentation; NCCL's
// CollNet algorithms through its SHARP plugin, src/transport/coll_net.cc). Which switch of a
// topology does it for a set of hosts.
#pragma once

#include <optional>
#include <span>
#include <string>

#include "topologies/routes.hpp"
#include "topologies/topology.hpp"

namespace collsim::topo {

/// The switch that reduces for hosts whose first GPUs are `heads` (one per host, at least two): the
/// first switch on the route from heads[0] to heads[1], in route order, that says "sharp": true, is
/// entered over a network link (InfiniBand, Ethernet, RoCE: a switch inside a host is not) and lies
/// on the route from heads[0] to every other head, so that every host's traffic meets there.
/// nullopt with the reason in `why` when given: no switch says "sharp": true, or none that does lies
/// between the hosts (a switch inside one host never does). A switch reduces in the network only
/// when its file says so: SHARP needs switches that have it and a subnet manager that enables it,
/// which nothing else in a topology tells.
std::optional<NodeId> sharp_switch(const Topology& topology, std::span<const NodeId> heads, RouteCache& routes,
                                   std::string* why = nullptr);

}  // namespace collsim::topo
