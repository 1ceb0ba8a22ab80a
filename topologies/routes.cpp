#include "topologies/routes.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "topologies/transport.hpp"

#include "sim/units/saturate.hpp"

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
    // Topology::shortest_route's rule for the node passed on the way.
    if (topology_.node(to).type == NodeType::Gpu && !may_pass_through(topology_.node(via).type, topology_.link(first).type))
      continue;
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

std::uint64_t ecmp_hash(NodeId from, NodeId to, std::uint16_t channel, NodeId at) noexcept {
  // splitmix64's finalizer over each value in turn, from a fixed seed (the golden ratio's bits).
  const auto mix = [](std::uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  };
  std::uint64_t h = 0x9E3779B97F4A7C15ull;
  for (const std::uint64_t v : {std::uint64_t{from}, std::uint64_t{to}, std::uint64_t{channel}, std::uint64_t{at}})
    h = mix(h ^ (v + 0x9E3779B97F4A7C15ull));
  return h;
}

std::optional<LinkId> RouteCache::link_between(NodeId a, NodeId b) {
  if (link_index_.empty())
    for (LinkId l = 0; l < topology_.links().size(); ++l)
      link_index_.emplace((static_cast<std::uint64_t>(topology_.link(l).from) << 32) | topology_.link(l).to, l);
  const auto it = link_index_.find((static_cast<std::uint64_t>(a) << 32) | b);
  if (it == link_index_.end()) return std::nullopt;
  return it->second;
}

void RouteCache::equal_cost_switches(const Link& first, const Link& second,
                                     std::vector<std::pair<LinkId, LinkId>>& candidates) {
  const NodeId x = first.from, z = second.to;
  const Time latency = saturating_add(first.latency, second.latency);
  candidates.clear();
  for (LinkId up : topology_.out_links(x)) {
    const NodeId y = topology_.link(up).to;
    if (topology_.node(y).type != NodeType::Switch) continue;
    const auto down = link_between(y, z);
    if (down && saturating_add(topology_.link(up).latency, topology_.link(*down).latency) == latency)
      candidates.emplace_back(up, *down);
  }
}

std::vector<LinkId> RouteCache::choose_switches(std::vector<LinkId> links,
                                                const std::function<std::size_t(NodeId, std::size_t)>& pick,
                                                bool* choice) {
  std::vector<std::pair<LinkId, LinkId>> candidates;
  for (std::size_t i = 0; i + 1 < links.size(); ++i) {
    const Link& first = topology_.link(links[i]);
    if (topology_.node(first.to).type != NodeType::Switch) continue;
    equal_cost_switches(first, topology_.link(links[i + 1]), candidates);
    if (candidates.size() < 2) continue;
    if (choice != nullptr) *choice = true;
    const auto& chosen = candidates[pick(first.from, candidates.size())];
    links[i] = chosen.first;
    links[i + 1] = chosen.second;
  }
  return links;
}

std::vector<LinkId> RouteCache::ecmp_links(std::vector<LinkId> links, NodeId from, NodeId to, std::uint16_t channel,
                                           bool* choice) {
  return choose_switches(
      std::move(links), [&](NodeId x, std::size_t m) { return ecmp_hash(from, to, channel, x) % m; }, choice);
}

std::vector<LinkId> RouteCache::dmodk_links(std::vector<LinkId> links, NodeId to) {
  if (leaf_port_.empty()) {
    // Leaves: switches with a link to another switch (a host's NVSwitch has none).
    std::vector<char> leaf(topology_.nodes().size(), 0);
    for (const Link& l : topology_.links())
      if (topology_.node(l.from).type == NodeType::Switch && topology_.node(l.to).type == NodeType::Switch)
        leaf[l.from] = 1;
    leaf_port_.assign(topology_.links().size(), kNoPort);
    std::uint32_t next = 0;
    for (LinkId id = 0; id < topology_.links().size(); ++id) {
      const Link& l = topology_.link(id);
      if (leaf[l.from] && topology_.node(l.to).type != NodeType::Switch) leaf_port_[id] = next++;
    }
  }
  std::uint64_t d = to;
  for (auto it = links.rbegin(); it != links.rend(); ++it)
    if (leaf_port_[*it] != kNoPort) {
      d = leaf_port_[*it];
      break;
    }
  // m_0 x ... x m_{c-1}, grown only while it is at most d (< 2^32), so it cannot overflow: past d
  // every later choice is the first.
  std::uint64_t divisor = 1;
  return choose_switches(
      std::move(links),
      [&](NodeId, std::size_t m) {
        const std::size_t index = (d / divisor) % m;
        if (divisor <= d) divisor *= m;
        return index;
      },
      nullptr);
}

void RouteCache::complete(Route& r) const {
  r.latency = Time{0};
  r.bottleneck = Bandwidth{std::numeric_limits<std::uint64_t>::max()};
  r.resources.clear();
  r.resource_share.clear();
  r.link_class = LinkClass::NvLink;
  for (LinkId id : r.links) r.link_class = std::max(r.link_class, topo::link_class(topology_.link(id).type));
  if (r.link_share.empty()) {
    for (LinkId id : r.links) {
      const Link& l = topology_.link(id);
      r.latency = checked_add(r.latency, l.latency);
      r.bottleneck = std::min(r.bottleneck, l.bandwidth);
      r.resources.push_back(l.resource);
    }
    std::sort(r.resources.begin(), r.resources.end());
    r.resources.erase(std::unique(r.resources.begin(), r.resources.end()), r.resources.end());
    return;
  }
  // Sprayed: one path's latency (the parallel paths' latencies are equal, so their shares sum to
  // it), the rate the flow reaches alone, and each resource's summed share.
  double latency_ps = 0, alone = std::numeric_limits<double>::max();
  std::map<std::uint32_t, double> share;
  for (std::size_t i = 0; i < r.links.size(); ++i) {
    const Link& l = topology_.link(r.links[i]);
    latency_ps += static_cast<double>(l.latency.count()) * r.link_share[i];
    share[l.resource] += r.link_share[i];
  }
  for (const auto& [resource, s] : share) {
    r.resources.push_back(resource);
    r.resource_share.push_back(std::min(s, 1.0));
    alone = std::min(alone, static_cast<double>(topology_.link(resource).bandwidth.bits_per_s) / std::min(s, 1.0));
  }
  r.latency = saturating_round_ps(latency_ps);
  r.bottleneck = Bandwidth{static_cast<std::uint64_t>(std::min(alone, 1.8e19))};
}

std::optional<Route> RouteCache::spray(const std::vector<LinkId>& links, NodeId from, NodeId to) {
  std::vector<std::pair<LinkId, LinkId>> candidates;
  for (std::size_t i = 0; i + 1 < links.size(); ++i) {
    const Link& first = topology_.link(links[i]);
    const Link& second = topology_.link(links[i + 1]);
    if (topology_.node(first.to).type != NodeType::Switch) continue;
    equal_cost_switches(first, second, candidates);
    if (candidates.size() < 2) continue;
    Route r;
    for (std::size_t j = 0; j < i; ++j) {
      r.links.push_back(links[j]);
      r.link_share.push_back(1.0);
    }
    const double k = 1.0 / static_cast<double>(candidates.size());
    for (const auto& [up, down] : candidates) {
      r.links.insert(r.links.end(), {up, down});
      r.link_share.insert(r.link_share.end(), {k, k});
    }
    // Later hops with a choice (a third tier) are hashed as ECMP's, from the spine on.
    bool later = false;
    const std::vector<LinkId> rest =
        ecmp_links(std::vector<LinkId>(links.begin() + static_cast<std::ptrdiff_t>(i + 2), links.end()), from, to, 0, &later);
    for (LinkId l : rest) {
      r.links.push_back(l);
      r.link_share.push_back(1.0);
    }
    complete(r);
    return r;
  }
  return std::nullopt;
}

const Route& RouteCache::get(NodeId from, NodeId to, std::uint16_t channel) {
  // Most callers ask for the same few peers again and again (a ring's next rank, a tree's parent
  // and children): the last routes asked from each node answer without hashing, whose bucket and
  // node were two cache misses a transfer at 16,384 ranks (bench/PROFILE.md section 12). Routes
  // never move (unordered_map nodes are stable).
  if (last_.empty()) {
    last_.resize(topology_.nodes().size());
    last_next_.resize(topology_.nodes().size());
  }
  const bool cached = from < last_.size();  // an unknown node fails below, as before
  if (cached)
    for (const Last& w : last_[from].ways)
      if (w.route != nullptr && w.to == to && (w.channel == channel || !w.route->multipath)) return *w.route;
  const std::uint64_t key = (static_cast<std::uint64_t>(from) << 32) | to;
  auto it = routes_.find(key);
  if (it == routes_.end()) {
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
    // Channel 0's ECMP choices are the route every caller without a channel sees; the shortest
    // route is kept for the other channels' choices. A sprayed or D-Mod-K route is every channel's.
    if (spray_) {
      if (auto sprayed = spray(r.links, from, to)) r = std::move(*sprayed);
    } else if (dmodk_) {
      r.links = dmodk_links(std::move(r.links), to);
    } else if (ecmp_) {
      std::vector<LinkId> shortest = r.links;
      r.links = ecmp_links(std::move(r.links), from, to, 0, &r.multipath);
      if (r.multipath) shortest_.emplace(key, std::move(shortest));
    }
    complete(r);
    r.index = static_cast<std::uint32_t>(size());
    it = routes_.emplace(key, std::move(r)).first;
  }
  const Route* route = &it->second;
  if (route->multipath && channel != 0) {
    const ChannelKey ck{key, channel};
    auto cit = channel_routes_.find(ck);
    if (cit == channel_routes_.end()) {
      Route r;
      r.links = ecmp_links(shortest_.at(key), from, to, channel, &r.multipath);
      complete(r);
      r.index = static_cast<std::uint32_t>(size());
      cit = channel_routes_.emplace(ck, std::move(r)).first;
    }
    route = &cit->second;
  }
  if (cached) last_[from].ways[last_next_[from]++ % Recent::kWays] = Last{to, channel, route};
  return *route;
}

void RouteCache::clear() {
  // Every channel's route has its pair's entry in routes_, so these are all the nodes get() cached.
  for (const auto& entry : routes_)
    if (const std::uint64_t from = entry.first >> 32; from < last_.size()) last_[from] = Recent{};
  routes_.clear();
  channel_routes_.clear();
  shortest_.clear();
}

std::optional<HostCrossing> host_crossing(RouteCache& routes, std::span<const NodeId> ranks,
                                          std::span<const std::uint32_t> hosts) {
  HostCrossing c;
  while (c.local < hosts.size() && hosts[c.local] == hosts[0]) ++c.local;
  if (c.local == 0 || c.local >= hosts.size() || 2 * c.local > ranks.size()) return std::nullopt;
  // Routes sprayed over parallel paths count their share of each (Route::link_share).
  std::map<LinkId, double> users;
  const Topology& topology = routes.topology();
  for (std::size_t l = 0; l < c.local; ++l) {
    const Route& route = routes.get(ranks[l], ranks[c.local + l]);
    for (std::size_t i = 0; i < route.links.size(); ++i) {
      const double used = users[route.links[i]] += route.link_share.empty() ? 1.0 : route.link_share[i];
      const auto most = static_cast<std::uint32_t>(std::ceil(used - 1e-9));
      c.sharing = std::max(c.sharing, most);
      const Link& link = topology.link(route.links[i]);
      if (!topology.node(link.from).host.empty() || !topology.node(link.to).host.empty())
        c.host_sharing = std::max(c.host_sharing, most);
    }
  }
  return c;
}

}  // namespace collsim::topo
