#include "sim/network/flow_model.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "sim/network/maxmin.hpp"

namespace collsim::net {
namespace {
// Tokens: even = a rate solution's next end (generation << 1), odd = an arrival ((id << 1) | 1).
std::uint64_t check_token(std::uint64_t generation) { return generation << 1; }
std::uint64_t arrive_token(TransferId id) { return (std::uint64_t{id} << 1) | 1; }
}  // namespace

FlowModel::FlowModel(const topo::Topology& topology)
    : topology_(topology), users_(topology.links().size(), 0), busy_(topology.links().size(), Time{0}) {}

void FlowModel::advance(Time now) {
  const Time dt = now - last_;
  if (dt > Time{0}) {
    for (std::size_t l = 0; l < users_.size(); ++l)
      if (users_[l] > 0) busy_[l] += dt;
    for (Flow& f : active_)
      if (!f.exact) f.bits_left = std::max(0.0, f.bits_left - f.rate * static_cast<double>(dt.count()) * 1e-12);
  }
  last_ = now;
}

void FlowModel::start(Time now, TransferId id, const topo::Route& route, Bytes bytes, WakeQueue& queue) {
  advance(now);
  if (route.links.empty()) {
    queue.wake_at(now, arrive_token(id));
    return;
  }
  if (auto it = waiting_.find(&route); it != waiting_.end()) {
    it->second.push_back(Pending{id, bytes});  // the connection is busy: wait in order
    return;
  }
  waiting_[&route];  // marks the connection busy
  begin(now, id, route, bytes);
  resolve(now, queue);
}

void FlowModel::begin(Time now, TransferId id, const topo::Route& route, Bytes bytes) {
  Flow f;
  f.id = id;
  f.route = &route;
  f.started = now;
  f.bytes = bytes;
  f.bits_left = static_cast<double>(bytes) * 8.0;
  for (topo::LinkId l : route.links) ++users_[l];
  active_.push_back(f);
}

void FlowModel::resolve(Time now, WakeQueue& queue) {
  if (active_.empty()) return;
  MaxMinSolver solver;
  std::map<std::uint32_t, std::uint32_t> index;  // resource -> solver index (ordered: deterministic)
  for (const Flow& f : active_)
    for (topo::LinkId l : f.route->links) {
      const topo::Link& link = topology_.link(l);
      if (!index.count(link.resource))
        index[link.resource] = solver.add_resource(static_cast<double>(link.bandwidth.bits_per_s));
    }
  for (const Flow& f : active_) {
    std::vector<std::uint32_t> rs;
    for (topo::LinkId l : f.route->links) rs.push_back(index[topology_.link(l).resource]);
    std::sort(rs.begin(), rs.end());
    rs.erase(std::unique(rs.begin(), rs.end()), rs.end());
    solver.add_flow(std::move(rs));
  }
  const auto rates = solver.solve();
  Time next = Time::max();
  for (std::size_t i = 0; i < active_.size(); ++i) {
    Flow& f = active_[i];
    const double full = static_cast<double>(f.route->bottleneck.bits_per_s);
    if (f.exact && rates[i] < full) {
      // First slowdown: what it sent so far at its full rate, then floating point from here.
      f.exact = false;
      f.bits_left = std::max(0.0, static_cast<double>(f.bytes) * 8.0 -
                                      full * static_cast<double>((now - f.started).count()) * 1e-12);
    }
    f.rate = f.exact ? full : rates[i];
    if (f.exact) {
      f.end = checked_add(f.started, transfer_time(f.bytes, f.route->bottleneck));
    } else {
      const double ps = std::ceil(f.bits_left / f.rate * 1e12);
      f.end = ps >= 9.2e18 ? Time::max() : checked_add(now, Time{static_cast<std::int64_t>(ps)});
    }
    next = std::min(next, f.end);
  }
  ++generation_;
  queue.wake_at(std::max(next, now), check_token(generation_));
}

void FlowModel::wake(Time now, std::uint64_t token, WakeQueue& queue, std::vector<TransferId>& finished) {
  if (token & 1) {
    finished.push_back(static_cast<TransferId>(token >> 1));
    return;
  }
  if ((token >> 1) != generation_) return;  // superseded by a later rate solution
  advance(now);
  // Flows that finished transmitting leave the links and arrive a latency later.
  std::vector<Flow> still;
  still.reserve(active_.size());
  std::vector<const topo::Route*> freed;
  for (const Flow& f : active_) {
    if (f.end <= now) {
      for (topo::LinkId l : f.route->links) --users_[l];
      queue.wake_at(checked_add(now, f.route->latency), arrive_token(f.id));
      freed.push_back(f.route);
    } else {
      still.push_back(f);
    }
  }
  active_ = std::move(still);
  // Each freed connection starts its next transfer, if any.
  for (const topo::Route* r : freed) {
    auto it = waiting_.find(r);
    if (it->second.empty()) {
      waiting_.erase(it);
      continue;
    }
    const Pending next = it->second.front();
    it->second.pop_front();
    begin(now, next.id, *r, next.bytes);
  }
  resolve(now, queue);
}

}  // namespace collsim::net
