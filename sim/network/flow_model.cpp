#include "sim/network/flow_model.hpp"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "sim/network/maxmin.hpp"

namespace collsim::net {
namespace {
// Tokens: bit 0 = kind (0: end of transmission, 1: arrival), bits 1..32 = transfer id, bits 33..
// = the flow's projection version.
std::uint64_t end_token(TransferId id, std::uint32_t version) {
  return (std::uint64_t{version} << 33) | (std::uint64_t{id} << 1);
}
std::uint64_t arrive_token(TransferId id) { return (std::uint64_t{id} << 1) | 1; }
}  // namespace

FlowModel::FlowModel(const topo::Topology& topology)
    : topology_(topology),
      on_resource_(topology.resource_count()),
      users_(topology.links().size(), 0),
      busy_since_(topology.links().size(), Time{0}),
      busy_(topology.links().size(), Time{0}),
      seen_resource_(topology.resource_count(), 0) {}

void FlowModel::start(Time now, TransferId id, const topo::Route& route, Bytes bytes, std::uint16_t channel,
                      WakeQueue& queue) {
  if (route.links.empty()) {
    queue.wake_at(now, arrive_token(id));
    return;
  }
  const Connection connection{&route, channel};
  if (auto it = waiting_.find(connection); it != waiting_.end()) {
    it->second.push_back(Pending{id, bytes});  // the connection is busy: wait in order
    return;
  }
  waiting_[connection];  // marks the connection busy
  begin(now, id, route, channel, bytes);
  resolve(now, flows_[id].resources, queue);
}

void FlowModel::begin(Time now, TransferId id, const topo::Route& route, std::uint16_t channel, Bytes bytes) {
  if (id >= flows_.size()) flows_.resize(static_cast<std::size_t>(id) + 1);
  Flow& f = flows_[id];
  f = Flow{};
  f.route = &route;
  f.channel = channel;
  f.bytes = bytes;
  f.started = now;
  f.updated = now;
  f.active = true;
  if (observer_) observer_->transmit_begin(now, id);
  for (topo::LinkId l : route.links) {
    f.resources.push_back(topology_.link(l).resource);
    if (users_[l]++ == 0) busy_since_[l] = now;
  }
  std::sort(f.resources.begin(), f.resources.end());
  f.resources.erase(std::unique(f.resources.begin(), f.resources.end()), f.resources.end());
  for (auto r : f.resources) on_resource_[r].push_back(id);
}

void FlowModel::end(Time now, TransferId id) {
  Flow& f = flows_[id];
  f.active = false;
  ++f.version;
  if (observer_) observer_->transmit_end(now, id);
  for (topo::LinkId l : f.route->links)
    if (--users_[l] == 0) busy_[l] += now - busy_since_[l];
  for (auto r : f.resources) {
    auto& v = on_resource_[r];
    v.erase(std::find(v.begin(), v.end(), id));
  }
}

void FlowModel::resolve(Time now, const std::vector<std::uint32_t>& start_resources, WakeQueue& queue) {
  // The flows connected to the change through shared resources (breadth-first); only their rates
  // can move.
  ++stamp_;
  std::vector<std::uint32_t> resources;
  std::vector<TransferId> component;
  for (auto r : start_resources)
    if (seen_resource_[r] != stamp_) {
      seen_resource_[r] = stamp_;
      resources.push_back(r);
    }
  std::unordered_map<TransferId, bool> in_component;
  for (std::size_t i = 0; i < resources.size(); ++i) {
    for (TransferId id : on_resource_[resources[i]]) {
      if (!in_component.emplace(id, true).second) continue;
      component.push_back(id);
      for (auto r : flows_[id].resources)
        if (seen_resource_[r] != stamp_) {
          seen_resource_[r] = stamp_;
          resources.push_back(r);
        }
    }
  }
  if (component.empty()) return;
  std::sort(component.begin(), component.end());  // deterministic solver input

  MaxMinSolver solver;
  std::unordered_map<std::uint32_t, std::uint32_t> index;
  for (auto r : resources) {
    // Any directed link of the resource carries its bandwidth (both directions of a half-duplex link agree).
    index[r] = solver.add_resource(static_cast<double>(topology_.link(r).bandwidth.bits_per_s));
  }
  for (TransferId id : component) {
    std::vector<std::uint32_t> rs;
    for (auto r : flows_[id].resources) rs.push_back(index[r]);
    solver.add_flow(std::move(rs));
  }
  const auto rates = solver.solve();
  for (std::size_t i = 0; i < component.size(); ++i) {
    Flow& f = flows_[component[i]];
    const double full = static_cast<double>(f.route->bottleneck.bits_per_s);
    if (f.exact && rates[i] >= full) {
      // At full speed: the exact end, scheduled once when it starts.
      if (f.version == 0)
        queue.wake_at(checked_add(f.started, transfer_time(f.bytes, f.route->bottleneck)), end_token(component[i], ++f.version));
      continue;
    }
    if (f.exact) {
      // First slowdown: what it sent so far went at full rate; floating point from here on.
      f.exact = false;
      f.bits_left = std::max(0.0, static_cast<double>(f.bytes) * 8.0 -
                                      full * static_cast<double>((now - f.started).count()) * 1e-12);
    } else {
      f.bits_left = std::max(0.0, f.bits_left - f.rate * static_cast<double>((now - f.updated).count()) * 1e-12);
    }
    f.updated = now;
    if (f.rate == rates[i] && f.version > 0) continue;  // unchanged: keep the scheduled end
    f.rate = rates[i];
    const double ps = std::ceil(f.bits_left / f.rate * 1e12);
    const Time at = ps >= 9.2e18 ? Time::max() : checked_add(now, Time{static_cast<std::int64_t>(ps)});
    queue.wake_at(at, end_token(component[i], ++f.version));
  }
}

void FlowModel::wake(Time now, std::uint64_t token, WakeQueue& queue, std::vector<TransferId>& finished) {
  const auto id = static_cast<TransferId>((token >> 1) & 0xFFFFFFFFu);
  if (token & 1) {
    finished.push_back(id);
    return;
  }
  Flow& f = flows_.at(id);
  if (!f.active || static_cast<std::uint32_t>(token >> 33) != f.version) return;  // superseded
  const topo::Route* route = f.route;
  const std::uint16_t channel = f.channel;
  const std::vector<std::uint32_t> freed = f.resources;
  end(now, id);
  queue.wake_at(checked_add(now, route->latency), arrive_token(id));
  // The connection starts its next transfer, if any.
  auto it = waiting_.find(Connection{route, channel});
  if (it->second.empty()) {
    waiting_.erase(it);
  } else {
    const Pending next = it->second.front();
    it->second.pop_front();
    begin(now, next.id, *route, channel, next.bytes);
  }
  resolve(now, freed, queue);
}

}  // namespace collsim::net
