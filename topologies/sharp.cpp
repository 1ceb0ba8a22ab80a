#include "topologies/sharp.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "topologies/model_params.hpp"

namespace collsim::topo {
namespace {

bool on_route(const Topology& topology, const Route& route, NodeId node) {
  return std::any_of(route.links.begin(), route.links.end(), [&](LinkId l) { return topology.link(l).to == node; });
}

}  // namespace

std::optional<NodeId> sharp_switch(const Topology& topology, std::span<const NodeId> heads, RouteCache& routes,
                                   std::string* why) {
  const auto nodes = topology.nodes();
  if (std::none_of(nodes.begin(), nodes.end(), [](const Node& n) { return n.type == NodeType::Switch && n.sharp; })) {
    if (why) *why = fmt::format("no switch of topology {} says \"sharp\": true", topology.name());
    return std::nullopt;
  }
  if (heads.size() >= 2) {
    for (LinkId l : routes.get(heads[0], heads[1]).links) {
      const NodeId candidate = topology.link(l).to;
      const Node& n = topology.node(candidate);
      // A network switch: the route enters it over a network link (InfiniBand, Ethernet, RoCE), not
      // over a host's NVLink or PCIe, where only that host's traffic would meet.
      if (n.type != NodeType::Switch || !n.sharp || link_class(topology.link(l).type) != LinkClass::Network) continue;
      const bool shared = std::all_of(heads.begin() + 2, heads.end(), [&](NodeId h) {
        return on_route(topology, routes.get(heads[0], h), candidate);
      });
      if (shared) return candidate;
    }
  }
  if (why)
    *why = fmt::format("no switch that says \"sharp\": true lies on the routes between the hosts of topology {}",
                       topology.name());
  return std::nullopt;
}

}  // namespace collsim::topo
