#include "sim/network/flow_model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

namespace collsim::net {
namespace {
// Tokens: bits 0..1 = kind (0: end of transmission, 1: arrival, 2: ends due together); an end
// carries the flow's slot in bits 2..33 and its projection version (mod 2^30) in bits 34..; an
// arrival the transfer id; ends due together the first entry of their list in batch_.
constexpr std::uint32_t kVersionMask = 0x3FFFFFFFu;
std::uint64_t end_token(std::uint32_t slot, std::uint32_t version) {
  return (std::uint64_t{version & kVersionMask} << 34) | (std::uint64_t{slot} << 2);
}
std::uint64_t arrive_token(TransferId id) { return (std::uint64_t{id} << 2) | 1; }
std::uint64_t batch_token(std::uint32_t head) { return (std::uint64_t{head} << 2) | 2; }
}  // namespace

FlowModel::FlowModel(const topo::Topology& topology)
    : topology_(topology),
      on_resource_(topology.resource_count()),
      users_(topology.links().size(), 0),
      busy_since_(topology.links().size(), Time{0}),
      busy_(topology.links().size(), Time{0}),
      seen_resource_(topology.resource_count(), 0),
      solver_index_(topology.resource_count(), 0) {}

std::uint32_t FlowModel::connection_of(const topo::Route& route, std::uint16_t channel) {
  // Route addresses are stable for the run (RouteCache); the map is only looked up, never
  // iterated, so the addresses cannot make the output depend on the allocator.
  const std::uint64_t key = (static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(&route)) << 16) | channel;
  const auto [it, added] = connection_index_.try_emplace(key, static_cast<std::uint32_t>(connections_.size()));
  if (added) {
    const auto [g, new_group] = group_index_.try_emplace(&route, static_cast<std::uint32_t>(groups_.size()));
    if (new_group) {
      groups_.emplace_back();
      groups_.back().route = &route;
      seen_group_.push_back(0);
    }
    connections_.push_back(Connection{false, g->second, kNone, kNone});
  }
  return it->second;
}

void FlowModel::start(Time now, TransferId id, const topo::Route& route, Bytes bytes, std::uint16_t channel,
                      WakeQueue& queue) {
  if (route.links.empty()) {
    queue.wake_at(now, arrive_token(id));
    return;
  }
  const std::uint32_t c = connection_of(route, channel);
  Connection& connection = connections_[c];
  if (connection.busy) {
    // The connection is busy: wait in order.
    std::uint32_t p = pending_free_;
    if (p != kNone) {
      pending_free_ = pending_[p].next;
      pending_[p] = Pending{id, bytes, kNone};
    } else {
      p = static_cast<std::uint32_t>(pending_.size());
      pending_.push_back(Pending{id, bytes, kNone});
    }
    (connection.tail == kNone ? connection.head : pending_[connection.tail].next) = p;
    connection.tail = p;
    return;
  }
  connection.busy = true;
  begin(now, id, route, c, bytes);
  resolve(now, route.resources, queue);
}

FlowModel::Slot FlowModel::begin(Time now, TransferId id, const topo::Route& route, std::uint32_t connection,
                                 Bytes bytes) {
  Slot slot = free_;
  if (slot != kNone) {
    free_ = flows_[slot].next_free;
  } else {
    slot = static_cast<Slot>(flows_.size());
    flows_.emplace_back();
  }
  Flow& f = flows_[slot];
  const std::uint32_t version = f.version;  // kept across lives of the slot: old tokens stay stale
  f = Flow{};
  f.version = version;
  f.route = &route;
  f.id = id;
  f.connection = connection;
  f.group = connections_[connection].group;
  f.bytes = bytes;
  f.started = now;
  if (observer_) observer_->transmit_begin(now, id);
  for (topo::LinkId l : route.links)
    if (users_[l]++ == 0) busy_since_[l] = now;
  Group& g = groups_[f.group];
  if (g.flows.empty()) {
    g.updated = now;
    for (auto r : route.resources) on_resource_[r].push_back(f.group);
  }
  // Kept in transfer id order (mostly an append: transfers start roughly in id order), so the
  // class's new ends come out sorted for schedule_wakes.
  auto pos = g.flows.size();
  while (pos > 0 && flows_[g.flows[pos - 1]].id > id) --pos;
  g.flows.insert(g.flows.begin() + static_cast<std::ptrdiff_t>(pos), slot);
  g.bits_left.insert(g.bits_left.begin() + static_cast<std::ptrdiff_t>(pos), 0.0);  // set when it is first slowed
  for (auto i = pos; i < g.flows.size(); ++i) flows_[g.flows[i]].pos = static_cast<std::uint32_t>(i);
  return slot;
}

void FlowModel::end(Time now, Slot slot) {
  Flow& f = flows_[slot];
  ++f.version;
  if (observer_) observer_->transmit_end(now, f.id);
  for (topo::LinkId l : f.route->links)
    if (--users_[l] == 0) busy_[l] += now - busy_since_[l];
  // Erased in place, not swapped with the last: a class keeps its flows in transfer id order.
  Group& g = groups_[f.group];
  g.flows.erase(g.flows.begin() + f.pos);
  g.bits_left.erase(g.bits_left.begin() + f.pos);
  for (std::size_t i = f.pos; i < g.flows.size(); ++i) flows_[g.flows[i]].pos = static_cast<std::uint32_t>(i);
  if (g.flows.empty()) {
    // g.rate stays: a class that empties and fills again has only new flows, all set anyway.
    for (auto r : f.route->resources) {
      auto& v = on_resource_[r];
      *std::find(v.begin(), v.end(), f.group) = v.back();
      v.pop_back();
    }
  }
  f.route = nullptr;
  f.next_free = free_;
  free_ = slot;
}

void FlowModel::collect(Time now, const std::vector<std::uint32_t>& start_resources) {
  ++stamp_;
  component_resources_.clear();
  component_.clear();
  for (auto r : start_resources)
    if (seen_resource_[r] != stamp_) {
      seen_resource_[r] = stamp_;
      component_resources_.push_back(r);
    }
  for (std::size_t i = 0; i < component_resources_.size(); ++i) {
    for (std::uint32_t g : on_resource_[component_resources_[i]]) {
      if (seen_group_[g] == stamp_) continue;
      seen_group_[g] = stamp_;
      component_.push_back(g);
      for (auto r : groups_[g].route->resources)
        if (seen_resource_[r] != stamp_) {
          seen_resource_[r] = stamp_;
          component_resources_.push_back(r);
        }
    }
  }
  // Every slowed flow of the component sends at its class's rate since the class's last update:
  // what it has left now is bits_left - rate * dt, the same expression, rounded at the same events,
  // as when each flow was brought up to date on its own (a flow not yet slowed holds an unused
  // value, overwritten when it is first slowed). Rounding at every change, even one that keeps the
  // rate, is part of the model's arithmetic: doing it less often moves contended times by up to
  // 0.5 % (ends one picosecond apart reorder ties; bench/PROFILE.md 3.7).
  // (At the time of the last update there is nothing to do: bits_left is never negative, so
  // max(0, bits - 0) == bits; a burst of starts at one time re-solves many times.)
  for (std::uint32_t gi : component_) {
    Group& g = groups_[gi];
    if (g.updated == now) continue;
    const double sent = g.rate * static_cast<double>((now - g.updated).count()) * 1e-12;
    for (double& bits : g.bits_left) bits = std::max(0.0, bits - sent);
    g.updated = now;
  }
}

void FlowModel::resolve(Time now, const std::vector<std::uint32_t>& start_resources, WakeQueue& queue) {
  // The classes connected to the change through shared resources; only their rates can move.
  collect(now, start_resources);
  if (component_.empty()) return;
  if (component_.size() == 1 && groups_[component_[0]].flows.size() == 1 && !always_solve_) {
    // Alone on its resources: progressive filling would fix it at its smallest capacity in one
    // round (min over r of C_r / 1), the same double computed here without the solver.
    double rate = std::numeric_limits<double>::infinity();
    for (auto r : component_resources_)
      rate = std::min(rate, static_cast<double>(topology_.link(r).bandwidth.bits_per_s));
    wakes_.clear();
    take_rate(now, component_[0], rate);
    schedule_wakes(queue);
    return;
  }
  // The solver's result does not depend on the order of its classes (every flow fixed in a round
  // subtracts the same share), so the component is solved in the order it was found.
  solver_.clear();
  for (auto r : component_resources_) {
    // Any directed link of the resource carries its bandwidth (both directions of a half-duplex link agree).
    solver_index_[r] = solver_.add_resource(static_cast<double>(topology_.link(r).bandwidth.bits_per_s));
  }
  for (std::uint32_t g : component_) {
    flow_resources_.clear();
    for (auto r : groups_[g].route->resources) flow_resources_.push_back(solver_index_[r]);
    solver_.add_flow_over(flow_resources_, static_cast<std::uint32_t>(groups_[g].flows.size()));
  }
  solver_.solve_into(rates_);
  wakes_.clear();
  for (std::size_t i = 0; i < component_.size(); ++i) take_rate(now, component_[i], rates_[i]);
  schedule_wakes(queue);
}

void FlowModel::take_rate(Time now, std::uint32_t group, double rate) {
  // A flow whose class keeps its rate keeps its scheduled end: set_rate would change nothing.
  // Each flow's new end depends on that flow alone, so the order of set_rate does not matter; the
  // order of scheduling does, among wake-ups due at one time (schedule_wakes).
  Group& g = groups_[group];
  const bool changed = g.rate != rate;
  g.rate = rate;
  for (const Slot slot : g.flows) {
    Flow& f = flows_[slot];
    if (!changed && f.scheduled) continue;
    if (const auto at = set_rate(now, slot, changed)) wakes_.push_back(Wake{*at, f.id, slot, f.version & kVersionMask});
  }
}

void FlowModel::schedule_wakes(WakeQueue& queue) {
  // The queue delivers wake-ups due at one time in the order they were scheduled: schedule them
  // by transfer id, as the schedule numbers them, whatever order the classes were found in.
  sort_wakes();
  // These wake-ups were scheduled one after the other with nothing between them, and an end
  // reports no finished transfer, so the engine does nothing between two of them either. Hence
  // one wake-up that ends those due at one time in that order, each still checked for being
  // current when its turn comes (an earlier one may have moved it), gives the same times as one
  // wake-up each, and the queue holds one entry, not one per flow (a burst of starts on a
  // contended switch re-schedules hundreds of flows per start, all due at the same picosecond).
  for (std::size_t i = 0; i < wakes_.size();) {
    std::size_t j = i + 1;
    while (j < wakes_.size() && wakes_[j].at == wakes_[i].at) ++j;
    if (j == i + 1) {
      queue.wake_at(wakes_[i].at, end_token(wakes_[i].slot, wakes_[i].version));
    } else {
      std::uint32_t head = kNone;
      for (std::size_t k = j; k-- > i;) {
        std::uint32_t e = batch_free_;
        if (e != kNone) {
          batch_free_ = batch_[e].next;
        } else {
          e = static_cast<std::uint32_t>(batch_.size());
          batch_.emplace_back();
        }
        batch_[e] = BatchEntry{wakes_[k].slot, wakes_[k].version, head};
        head = e;
      }
      queue.wake_at(wakes_[i].at, batch_token(head));
    }
    i = j;
  }
}

void FlowModel::sort_wakes() {
  // wakes_ comes class by class, each class in transfer id order (begin keeps it so), and the
  // flows of a class mostly end together: a bottom-up merge of those sorted runs, O(n log runs).
  const auto earlier = [](const Wake& a, const Wake& b) { return a.at != b.at ? a.at < b.at : a.id < b.id; };
  const auto n = static_cast<std::uint32_t>(wakes_.size());
  runs_.clear();
  for (std::uint32_t i = 0; i < n; ++i)
    if (i == 0 || earlier(wakes_[i], wakes_[i - 1])) runs_.push_back(i);
  if (runs_.size() <= 1) return;
  sorted_wakes_.resize(n);
  while (runs_.size() > 1) {
    merged_runs_.clear();
    for (std::size_t i = 0; i < runs_.size(); i += 2) {
      const std::uint32_t first = runs_[i];
      const std::uint32_t mid = i + 1 < runs_.size() ? runs_[i + 1] : n;
      const std::uint32_t last = i + 2 < runs_.size() ? runs_[i + 2] : n;
      merged_runs_.push_back(first);
      std::merge(wakes_.data() + first, wakes_.data() + mid, wakes_.data() + mid, wakes_.data() + last,
                 sorted_wakes_.data() + first, earlier);
    }
    wakes_.swap(sorted_wakes_);
    runs_.swap(merged_runs_);
  }
}

std::optional<Time> FlowModel::set_rate(Time now, Slot slot, bool changed) {
  Flow& f = flows_[slot];
  Group& g = groups_[f.group];
  const double rate = g.rate;
  const double full = static_cast<double>(f.route->bottleneck.bits_per_s);
  if (f.exact && rate >= full) {
    // At full speed: the exact end, scheduled once when it starts.
    if (f.scheduled) return std::nullopt;
    f.scheduled = true;
    ++f.version;
    return checked_add(f.started, transfer_time(f.bytes, f.route->bottleneck));
  }
  double& bits_left = g.bits_left[f.pos];  // brought to `now` by collect() when already slowed
  if (f.exact) {
    // First slowdown: what it sent so far went at full rate; floating point from here on.
    f.exact = false;
    bits_left = std::max(0.0, static_cast<double>(f.bytes) * 8.0 - full * static_cast<double>((now - f.started).count()) * 1e-12);
  } else if (!changed && f.scheduled) {
    return std::nullopt;  // unchanged: keep the scheduled end
  }
  f.scheduled = true;
  ++f.version;
  const double ps = std::ceil(bits_left / rate * 1e12);
  return ps >= 9.2e18 ? Time::max() : checked_add(now, Time{static_cast<std::int64_t>(ps)});
}

void FlowModel::wake(Time now, std::uint64_t token, WakeQueue& queue, std::vector<TransferId>& finished) {
  switch (token & 3) {
    case 1:
      finished.push_back(static_cast<TransferId>((token >> 2) & 0xFFFFFFFFu));
      return;
    case 0:
      end_if_current(now, static_cast<Slot>((token >> 2) & 0xFFFFFFFFu), static_cast<std::uint32_t>(token >> 34), queue);
      return;
    default:
      for (auto e = static_cast<std::uint32_t>(token >> 2); e != kNone;) {
        const BatchEntry entry = batch_[e];  // a copy: ending it may add entries (and move batch_)
        batch_[e].next = batch_free_;
        batch_free_ = e;
        e = entry.next;
        end_if_current(now, entry.slot, entry.version, queue);
      }
  }
}

void FlowModel::end_if_current(Time now, Slot slot, std::uint32_t version, WakeQueue& queue) {
  if (slot >= flows_.size()) return;
  Flow& f = flows_[slot];
  if (f.route == nullptr || version != (f.version & kVersionMask)) return;  // superseded
  const topo::Route& route = *f.route;
  const TransferId id = f.id;
  Connection& connection = connections_[f.connection];
  const std::uint32_t c = f.connection;
  end(now, slot);
  queue.wake_at(checked_add(now, route.latency), arrive_token(id));
  // The connection starts its next transfer, if any.
  if (connection.head == kNone) {
    connection.busy = false;
  } else {
    const std::uint32_t p = connection.head;
    const Pending next = pending_[p];
    connection.head = next.next;
    if (connection.head == kNone) connection.tail = kNone;
    pending_[p].next = pending_free_;
    pending_free_ = p;
    const Slot slot_next = begin(now, next.id, route, c, next.bytes);
    if (!always_solve_) {
      // One flow of the class left and one joined: every class has the size it had at the last
      // solve, so every rate is what that solve gave (the solver is a function of the sizes).
      collect(now, route.resources);
      if (const auto at = set_rate(now, slot_next, false)) queue.wake_at(*at, end_token(slot_next, flows_[slot_next].version));
      return;
    }
  }
  resolve(now, route.resources, queue);
}

}  // namespace collsim::net
