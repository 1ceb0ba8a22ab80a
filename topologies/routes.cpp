#include "topologies/routes.hpp"

#include <algorithm>
#include <limits>

namespace collsim::topo {

const Route& RouteCache::get(NodeId from, NodeId to) {
  const std::uint64_t key = (static_cast<std::uint64_t>(from) << 32) | to;
  if (auto it = routes_.find(key); it != routes_.end()) return it->second;
  Route r;
  r.links = topology_.shortest_route(from, to);
  r.bottleneck = Bandwidth{std::numeric_limits<std::uint64_t>::max()};
  for (LinkId id : r.links) {
    const Link& l = topology_.link(id);
    r.latency = checked_add(r.latency, l.latency);
    r.bottleneck = std::min(r.bottleneck, l.bandwidth);
  }
  return routes_.emplace(key, std::move(r)).first->second;
}

}  // namespace collsim::topo
