#include "topologies/routes.hpp"

#include <algorithm>
#include <limits>
#include <map>

#include "topologies/transport.hpp"

namespace collsim::topo {

std::optional<std::vector<LinkId>> RouteCache::unique_two_hop(NodeId from, NodeId to) {
  if (out_links_.empty()) {
    const auto links = topology_.links();
    out_links_.resize(topology_.nodes().size());
    in_links_.resize(topology_.nodes().size());
    for (LinkId l = 0; l < links.size(); ++l) {
      out_links_[links[l].from].push_back(l);
      in_links_[links[l].to].push_back(l);
    }
  }
  std::optional<std::vector<LinkId>> found;
  for (LinkId first : out_links_[from]) {
    const NodeId via = topology_.link(first).to;
    if (via == to) return std::nullopt;  // a direct link: shortest_route's own case
    for (LinkId second : in_links_[to]) {
      if (topology_.link(second).from != via) continue;
      if (found) return std::nullopt;  // two candidates: Dijkstra's latency and tie rules decide
      found = std::vector<LinkId>{first, second};
    }
  }
  return found;
}

std::vector<LinkId> RouteCache::by_transport(NodeId from, NodeId to, std::vector<LinkId> links) {
  if (from == to || topology_.node(from).type != NodeType::Gpu || topology_.node(to).type != NodeType::Gpu)
    return links;
  const PathType path = path_type(topology_, links);
  if (transport_between(topology_, from, to, path) != Transport::Shm) return links;
  if (local_cpu_.empty()) {
    local_cpu_.resize(topology_.nodes().size());
    local_cpu_known_.resize(topology_.nodes().size());
  }
  if (!local_cpu_known_[to]) {
    local_cpu_[to] = local_cpu(topology_, to);
    local_cpu_known_[to] = true;
  }
  const auto cpu = local_cpu_[to];
  if (!cpu) throw no_shm_cpu_error(topology_, from, to, path);
  for (std::size_t i = 0; i + 1 < links.size(); ++i)
    if (topology_.link(links[i]).to == *cpu) return links;  // the shortest route passes that CPU already
  return shm_route(topology_, from, to, *cpu);
}

const std::vector<LinkId>* PathTable::find(std::uint64_t key) const {
  const auto it = paths_.find(key);
  return it == paths_.end() ? nullptr : &it->second;
}

void PathTable::add(std::uint64_t key, const std::vector<LinkId>& links) { paths_.emplace(key, links); }

const Route& RouteCache::get(NodeId from, NodeId to) {
  // Most callers ask for the same peer again and again (a ring's next rank): the last route asked
  // from each node answers without hashing. Routes never move (unordered_map nodes are stable).
  if (last_.empty()) last_.resize(topology_.nodes().size());
  Last unused;
  Last& last = from < last_.size() ? last_[from] : unused;  // an unknown node fails below, as before
  if (last.route != nullptr && last.to == to) return *last.route;
  const std::uint64_t key = (static_cast<std::uint64_t>(from) << 32) | to;
  if (auto it = routes_.find(key); it != routes_.end()) {
    last = Last{to, &it->second};
    return it->second;
  }
  Route r;
  if (const std::vector<LinkId>* known = paths_ ? paths_->find(key) : nullptr) {
    r.links = *known;
  } else {
    if (auto two = from != to ? unique_two_hop(from, to) : std::nullopt)
      r.links = std::move(*two);
    else
      r.links = topology_.shortest_route(from, to);
    r.links = by_transport(from, to, std::move(r.links));
    if (paths_) paths_->add(key, r.links);
  }
  r.bottleneck = Bandwidth{std::numeric_limits<std::uint64_t>::max()};
  for (LinkId id : r.links) {
    const Link& l = topology_.link(id);
    r.latency = checked_add(r.latency, l.latency);
    r.bottleneck = std::min(r.bottleneck, l.bandwidth);
    r.resources.push_back(l.resource);
  }
  std::sort(r.resources.begin(), r.resources.end());
  r.resources.erase(std::unique(r.resources.begin(), r.resources.end()), r.resources.end());
  const Route& added = routes_.emplace(key, std::move(r)).first->second;
  last = Last{to, &added};
  return added;
}

std::optional<HostCrossing> host_crossing(RouteCache& routes, std::span<const NodeId> ranks,
                                          std::span<const std::uint32_t> hosts) {
  HostCrossing c;
  while (c.local < hosts.size() && hosts[c.local] == hosts[0]) ++c.local;
  if (c.local == 0 || c.local >= hosts.size() || 2 * c.local > ranks.size()) return std::nullopt;
  std::map<LinkId, std::uint32_t> users;
  for (std::size_t l = 0; l < c.local; ++l)
    for (LinkId id : routes.get(ranks[l], ranks[c.local + l]).links) c.sharing = std::max(c.sharing, ++users[id]);
  return c;
}

}  // namespace collsim::topo
