#include "sim/network/flow_model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

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
  queue_ = &queue;
  period_now_ = now;
  if (route.links.empty()) {
    log_wake(now, arrive_token(id));
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
  const Slot slot = begin(now, id, route, c, bytes);
  const std::uint32_t group = flows_[slot].group;
  if (!always_solve_ && groups_[group].flows.size() == 1 &&
      std::all_of(route.resources.begin(), route.resources.end(), [&](std::uint32_t r) { return on_resource_[r].size() == 1; })) {
    // Alone on its resources (their only class, a class of one): what resolve() would find,
    // without the walk. The class was empty, so begin() brought it to `now`.
    ++epoch_;
    take_rate(group, alone_rate(group));
    flush_if_eager();
    return;
  }
  resolve(now, route.resources);
}

double FlowModel::alone_rate(std::uint32_t group) const {
  // Progressive filling fixes a class of one flow alone on its resources at the smallest capacity
  // of its own route in one round (min over r of C_r / 1), which is the route's bottleneck: the
  // same double, without the solver. Only the class's route counts: a component found from another
  // route's resources (a flow that just ended) holds capacities this class never crosses, and
  // their minimum (a 25 GB/s network link) once slowed transfers inside a host to it (issue 14).
  return static_cast<double>(groups_[group].route->bottleneck.bits_per_s);
}

void FlowModel::log_wake(Time at, std::uint64_t token) {
  // With nothing deferred, queuing it now is its place in the order (contention-free runs: every
  // arrival).
  if (!deferred_) {
    queue_->wake_at(at, token);
    return;
  }
  log_.push_back(Logged{epoch_, at, token});
  flush_if_eager();
}

void FlowModel::mark_dirty(std::uint32_t group) {
  Group& g = groups_[group];
  if (g.dirty) return;
  g.dirty = true;
  dirty_.push_back(group);
  deferred_ = true;
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
  f.joined = epoch_ + 1;  // every begin() is followed by one solve (resolve or the shortcut)
  mark_dirty(f.group);
  if (observer_) observer_->transmit_begin(now, id);
  for (topo::LinkId l : route.links)
    if (users_[l]++ == 0) busy_since_[l] = now;
  Group& g = groups_[f.group];
  if (g.flows.empty()) {
    g.updated = now;
    for (auto r : route.resources) on_resource_[r].push_back(f.group);
  }
  // Kept in transfer id order (mostly an append: transfers start roughly in id order), so the
  // class's new ends come out sorted for sort_wakes.
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

void FlowModel::resolve(Time now, const std::vector<std::uint32_t>& start_resources) {
  ++epoch_;
  // The classes connected to the change through shared resources; only their rates can move.
  collect(now, start_resources);
  if (component_.empty()) return;
  if (component_.size() == 1 && groups_[component_[0]].flows.size() == 1 && !always_solve_) {
    take_rate(component_[0], alone_rate(component_[0]));
    flush_if_eager();
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
  for (std::size_t i = 0; i < component_.size(); ++i) take_rate(component_[i], rates_[i]);
  flush_if_eager();
}

void FlowModel::take_rate(std::uint32_t group, double rate) {
  // What the per-flow model did here, for each flow of the class: a new rate re-projected every
  // flow that is (or now becomes) slower than its bottleneck; a flow never projected (new) was
  // projected whatever the rate. projected_at() replays that from these two numbers.
  Group& g = groups_[group];
  if (g.rate != rate) {
    g.rate = rate;
    g.changed_at = epoch_;
    mark_dirty(group);
  }
  if (rate < static_cast<double>(g.route->bottleneck.bits_per_s)) g.slow_at = epoch_;
}

std::uint64_t FlowModel::projected_at(Slot slot, bool& slowed) const {
  // The per-flow model projected a flow when it joined (its first solve) and at every later rate
  // change of its class once the flow was slowed (a flow at full speed keeps its exact end). The
  // class's rate is below the bottleneck at a solve of the span only if some solve of the span
  // that projected the flow left it there (an exact flow's class is never below its bottleneck
  // at a flush, and the rate moves only at changes), so the flow was slowed in the span iff
  // slow_at is at or after the later of its join and the span's start.
  const Flow& f = flows_[slot];
  const Group& g = groups_[f.group];
  const bool joined = f.joined >= period_start_;
  slowed = f.exact && g.slow_at >= std::max(f.joined, period_start_);
  if (joined) return slowed ? std::max(f.joined, g.changed_at) : f.joined;
  if ((!f.exact || slowed) && g.changed_at >= period_start_) return g.changed_at;
  return 0;
}

void FlowModel::flush(WakeQueue& queue) {
  const Time now = period_now_;
  wakes_.clear();
  for (const std::uint32_t gi : dirty_) {
    Group& g = groups_[gi];
    g.dirty = false;
    for (std::size_t i = 0; i < g.flows.size(); ++i) {
      const Slot slot = g.flows[i];
      bool slowed = false;
      const std::uint64_t epoch = projected_at(slot, slowed);
      if (epoch == 0) continue;
      Flow& f = flows_[slot];
      Time at;
      if (slowed) {
        // First slowdown: what it sent so far went at full rate; floating point from here on.
        const double full = static_cast<double>(f.route->bottleneck.bits_per_s);
        f.exact = false;
        g.bits_left[i] = std::max(0.0, static_cast<double>(f.bytes) * 8.0 - full * static_cast<double>((now - f.started).count()) * 1e-12);
      }
      if (f.exact) {
        at = checked_add(f.started, transfer_time(f.bytes, f.route->bottleneck));
      } else {
        // bits_left was brought to `now` by collect() (or just set): the rate is the class's last.
        const double ps = std::ceil(g.bits_left[i] / g.rate * 1e12);
        at = ps >= 9.2e18 ? Time::max() : checked_add(now, Time{static_cast<std::int64_t>(ps)});
      }
      ++f.version;
      wakes_.push_back(Wake{epoch, at, f.id, slot, f.version & kVersionMask});
    }
  }
  dirty_.clear();
  // The per-flow model scheduled each solve's new ends by (time, transfer id) right after the
  // solve, and the arrivals as they came: the same order, as one merge of the two.
  sort_wakes();
  std::size_t next_log = 0;
  for (std::size_t i = 0; i < wakes_.size();) {
    for (; next_log < log_.size() && log_[next_log].after < wakes_[i].epoch; ++next_log)
      queue.wake_at(log_[next_log].at, log_[next_log].token);
    // Ends of one solve due at one time: one wake-up that ends them in that order, each still
    // checked for being current when its turn comes (an earlier one may have moved it), gives the
    // same times as one wake-up each (nothing ran between them), and the queue holds one entry,
    // not one per flow.
    std::size_t j = i + 1;
    while (j < wakes_.size() && wakes_[j].epoch == wakes_[i].epoch && wakes_[j].at == wakes_[i].at) ++j;
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
  for (; next_log < log_.size(); ++next_log) queue.wake_at(log_[next_log].at, log_[next_log].token);
  log_.clear();
  period_start_ = epoch_ + 1;
  deferred_ = false;
}

void FlowModel::sort_wakes() {
  // wakes_ comes class by class, each class in transfer id order (begin keeps it so), and the
  // flows of a class mostly share a solve and end together: a bottom-up merge of those sorted
  // runs, O(n log runs).
  const auto earlier = [](const Wake& a, const Wake& b) {
    if (a.epoch != b.epoch) return a.epoch < b.epoch;
    return a.at != b.at ? a.at < b.at : a.id < b.id;
  };
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

void FlowModel::wake(Time now, std::uint64_t token, WakeQueue& queue, std::vector<TransferId>& finished) {
  queue_ = &queue;
  period_now_ = now;
  switch (token & 3) {
    case 1:
      finished.push_back(static_cast<TransferId>((token >> 2) & 0xFFFFFFFFu));
      return;
    case 0:
      end_if_current(now, static_cast<Slot>((token >> 2) & 0xFFFFFFFFu), static_cast<std::uint32_t>(token >> 34));
      return;
    default:
      for (auto e = static_cast<std::uint32_t>(token >> 2); e != kNone;) {
        const BatchEntry entry = batch_[e];  // a copy: ending it may add entries (and move batch_)
        batch_[e].next = batch_free_;
        batch_free_ = e;
        e = entry.next;
        end_if_current(now, entry.slot, entry.version);
      }
  }
}

void FlowModel::end_if_current(Time now, Slot slot, std::uint32_t version) {
  if (slot >= flows_.size()) return;
  Flow& f = flows_[slot];
  if (f.route == nullptr || version != (f.version & kVersionMask)) return;  // superseded
  bool slowed = false;
  if (projected_at(slot, slowed) != 0) return;  // superseded by a solve not flushed yet
  const topo::Route& route = *f.route;
  const TransferId id = f.id;
  Connection& connection = connections_[f.connection];
  const std::uint32_t c = f.connection;
  end(now, slot);
  log_wake(checked_add(now, route.latency), arrive_token(id));
  // The connection starts its next transfer, if any.
  if (connection.head == kNone) {
    connection.busy = false;
    // It was alone on its resources: nothing is left to speed up (resolve would find no class).
    if (!always_solve_ && std::all_of(route.resources.begin(), route.resources.end(),
                                      [&](std::uint32_t r) { return on_resource_[r].empty(); }))
      return;
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
      // The new flow alone is projected, at the class's rate, as by a solve of its own.
      collect(now, route.resources);
      ++epoch_;
      take_rate(flows_[slot_next].group, groups_[flows_[slot_next].group].rate);
      flush_if_eager();
      return;
    }
  }
  resolve(now, route.resources);
}

}  // namespace collsim::net
