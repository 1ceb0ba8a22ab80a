#include "sim/network/flow_model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "sim/units/saturate.hpp"

namespace collsim::net {
namespace {
// Tokens: bits 0..1 = kind (0: end of transmission, 1: arrival, 2: ends due together, 3: arrival
// of a quiet flow); an end or a quiet arrival carries the flow's slot in bits 2..33 and its
// projection version (mod 2^30) in bits 34..; an arrival the transfer id; ends due together the
// first entry of their list in batch_.
constexpr std::uint32_t kVersionMask = 0x3FFFFFFFu;
std::uint64_t end_token(std::uint32_t slot, std::uint32_t version) {
  return (std::uint64_t{version & kVersionMask} << 34) | (std::uint64_t{slot} << 2);
}
std::uint64_t arrive_token(TransferId id) { return (std::uint64_t{id} << 2) | 1; }
std::uint64_t batch_token(std::uint32_t head) { return (std::uint64_t{head} << 2) | 2; }
std::uint64_t quiet_token(std::uint32_t slot, std::uint32_t version) { return end_token(slot, version) | 3; }
}  // namespace

FlowModel::FlowModel(const topo::Topology& topology)
    : topology_(topology),
      resource_(std::max<std::size_t>(topology.resource_count(), topology.links().size())),
      // Every resource starts empty, which its levels (none, no flow) record exactly.
      level_(resource_.size()),
      owner_(resource_.size(), 0),
      seed_region_(resource_.size(), 0) {
  // A resource is numbered by one of its links, whose bandwidth it has.
  for (std::size_t r = 0; r < level_.size() && r < topology.links().size(); ++r)
    level_[r].capacity = static_cast<double>(topology.link(static_cast<topo::LinkId>(r)).bandwidth.bits_per_s);
}

std::uint32_t FlowModel::connection_of(const topo::Route& route, std::uint16_t channel) {
  // The connections asked for on this route, found by the route's number without hashing: the
  // last one, then (once a second channel took the route: a run on 32 channels hashed every
  // transfer below, a fifth of a 1024-GPU ring's CPU time) a table by channel. The address check
  // keeps routes made outside a RouteCache, whose numbers may repeat, on the map below.
  if (route.index >= recent_.size()) recent_.resize(std::size_t{route.index} + 1);
  Recent& r = recent_[route.index];
  if (r.route == &route) {
    if (r.channel == channel) return r.connection;
    if (r.table != kNone && channel < channel_tables_[r.table].size())
      if (const std::uint32_t known = channel_tables_[r.table][channel]; known != kNone) {
        r.channel = channel;
        r.connection = known;
        return known;
      }
  }
  // Route addresses are stable for the run (RouteCache); the map is only looked up, never
  // iterated, so the addresses cannot make the output depend on the allocator.
  const std::uint64_t key = (static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(&route)) << 16) | channel;
  const auto [it, added] = connection_index_.try_emplace(key, static_cast<std::uint32_t>(connections_.size()));
  if (added) {
    const auto [g, new_group] = group_index_.try_emplace(&route, static_cast<std::uint32_t>(groups_.size()));
    if (new_group) {
      // Weighted classes (a sprayed route) are solved whole: their counts round, and levels
      // record integer counts only.
      if (!route.resource_share.empty()) by_levels_ = false;
      groups_.emplace_back();
      groups_.back().route = &route;
      seen_group_.push_back(0);
    }
    connections_.push_back(Connection{false, g->second, kNone, kNone});
  }
  remember_connection(r, route, channel, it->second);
  return it->second;
}

void FlowModel::remember_connection(Recent& r, const topo::Route& route, std::uint16_t channel,
                                    std::uint32_t connection) {
  if (r.route != &route) {
    // Another route had this number (made outside a RouteCache): its table, if any, is reused.
    if (r.table != kNone) std::fill(channel_tables_[r.table].begin(), channel_tables_[r.table].end(), kNone);
  } else if (r.channel != channel) {
    if (r.table == kNone) {
      r.table = static_cast<std::uint32_t>(channel_tables_.size());
      channel_tables_.emplace_back();
    }
    auto& table = channel_tables_[r.table];
    const std::uint16_t top = std::max(r.channel, channel);
    if (table.size() <= top) table.resize(std::size_t{top} + 1, kNone);
    table[r.channel] = r.connection;
    table[channel] = connection;
  }
  r.route = &route;
  r.channel = channel;
  r.connection = connection;
}

void FlowModel::start(Time now, TransferId id, const topo::Route& route, Bytes bytes, std::uint16_t channel,
                      std::uint32_t copies, Time after, WakeQueue& queue) {
  start_flow(now, id, route, bytes, channel, copies, after, false, queue);
}

void FlowModel::start_followed(Time now, TransferId id, const topo::Route& route, Bytes bytes, std::uint16_t channel,
                               std::uint32_t copies, Time after, WakeQueue& queue) {
  start_flow(now, id, route, bytes, channel, copies, after, true, queue);
}

void FlowModel::start_flow(Time now, TransferId id, const topo::Route& route, Bytes bytes, std::uint16_t channel,
                           std::uint32_t copies, Time after, bool followed, WakeQueue& queue) {
  if (copies == 0) throw std::invalid_argument("FlowModel::start: 0 copies of a transfer, expected at least 1");
  if (after < Time{0}) throw std::invalid_argument("FlowModel::start: a negative cost after arrival");
  queue_ = &queue;
  period_now_ = now;
  if (route.links.empty()) {
    log_wake(checked_add(now, after), arrive_token(id));
    if (followed && begins_ != nullptr) begins_->push_back(id);  // nothing to wait for: it has begun
    return;
  }
  const std::uint32_t c = connection_of(route, channel);
  Connection& connection = connections_[c];
  // A quiet flow of this connection has no end event to start the next transfer: it has ended
  // (the connection is free) or becomes an ordinary flow whose end will.
  if (const Slot q = groups_[connection.group].quiet; connection.busy && q != kNone && flows_[q].connection == c)
    settle_quiet(now, q);
  if (connection.busy) {
    // The connection is busy: wait in order.
    std::uint32_t p = pending_free_;
    if (p != kNone) {
      pending_free_ = pending_[p].next;
      pending_[p] = Pending{id, bytes, copies, after, kNone, followed};
    } else {
      p = static_cast<std::uint32_t>(pending_.size());
      pending_.push_back(Pending{id, bytes, copies, after, kNone, followed});
    }
    (connection.tail == kNone ? connection.head : pending_[connection.tail].next) = p;
    connection.tail = p;
    return;
  }
  connection.busy = true;
  begin(now, id, route, c, bytes, copies, after, followed);
}

void FlowModel::log_wake(Time at, std::uint64_t token) {
  // With nothing deferred, queuing it now is its place in the order (contention-free runs: every
  // arrival); the plain order of work (set_eager) logs it anyway. One due at once (a route without
  // latency) is always queued at once: the engine flushes, and so solves, when nothing is left at
  // `now`, so whether it waits in the log must not decide how the picosecond's changes are solved.
  if ((!deferred_ && !eager_) || at == period_now_) {
    queue_->wake_at(at, token);
    return;
  }
  log_.push_back(Logged{epoch_, at, token});
  deferred_ = true;
}

void FlowModel::mark_dirty(std::uint32_t group) {
  Group& g = groups_[group];
  if (g.dirty) return;
  g.dirty = true;
  dirty_.push_back(group);
}

void FlowModel::touch(std::uint32_t group) {
  Group& g = groups_[group];
  deferred_ = true;
  if (g.touched) return;
  g.touched = true;
  touched_.push_back(group);
  for (auto r : g.route->resources)
    if (!resource_[r].changed) {
      resource_[r].changed = true;
      changed_.push_back(r);
    }
}

FlowModel::Slot FlowModel::begin(Time now, TransferId id, const topo::Route& route, std::uint32_t connection,
                                 Bytes bytes, std::uint32_t copies, Time after, bool followed) {
  // A quiet flow is alone on its resources (its class is their only one): one this flow will
  // share is ended now if it is done, else it becomes an ordinary flow (settle_quiet).
  for (auto r : route.resources) {
    const auto& classes = resource_[r].classes;
    if (classes.size() == 1 && groups_[classes.front()].quiet != kNone) settle_quiet(now, groups_[classes.front()].quiet);
  }
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
  f.copies = copies;
  f.after = after;
  f.followed = followed;
  if (followed && begins_ != nullptr) begins_->push_back(id);
  f.started = now;
  f.joined = ++epoch_;
  Group& g = groups_[f.group];
  // Alone: a new class of one flow on resources that no class uses and no change of this instant
  // reached. Max-min gives it its route's bottleneck, the rate a solve would give it (alone_rate),
  // so it needs no solve: the flush only projects it (unless a later start of this instant makes
  // its class dirty, when it is projected as any other).
  const bool alone = !always_solve_ && !eager_ && copies == 1 && g.flows.empty() &&
                     std::all_of(route.resources.begin(), route.resources.end(), [&](std::uint32_t r) {
                       return resource_[r].classes.empty() && !resource_[r].changed;
                     });
  if (!alone) {
    mark_dirty(f.group);
    touch(f.group);
  }
  if (observer_) observer_->transmit_begin(now, id);
  if (g.flows.empty()) {
    g.updated = now;
    for (auto r : route.resources) resource_[r].classes.push_back(f.group);
    // A link is busy while a class on it has a flow: counted per class, so a flow that joins a
    // busy class (channels, pipelined chunks of one route) touches no link.
    for (topo::LinkId l : route.links)
      if (resource_[l].link_classes++ == 0) resource_[l].since = now;
  }
  // Kept in transfer id order (mostly an append: transfers start roughly in id order), so the
  // class's new ends come out sorted for sort_wakes.
  auto pos = g.flows.size();
  while (pos > 0 && flows_[g.flows[pos - 1]].id > id) --pos;
  g.flows.insert(g.flows.begin() + static_cast<std::ptrdiff_t>(pos), slot);
  g.size += copies;
  g.bits_left.insert(g.bits_left.begin() + static_cast<std::ptrdiff_t>(pos), 0.0);  // set when it is first slowed
  for (auto i = pos; i < g.flows.size(); ++i) flows_[g.flows[i]].pos = static_cast<std::uint32_t>(i);
  if (alone) {
    // What a solve would record for its class.
    record_alone(route);
    g.rate = static_cast<double>(route.bottleneck.bits_per_s);
    g.solved_size = g.size;
    alone_.push_back(slot);
    deferred_ = true;
  }
  return slot;
}

void FlowModel::end(Time now, Slot slot) {
  Flow& f = flows_[slot];
  ++f.version;
  leave(now, slot);
  f.route = nullptr;
  f.next_free = free_;
  free_ = slot;
}

void FlowModel::leave(Time now, Slot slot) {
  const Flow& f = flows_[slot];
  if (observer_) observer_->transmit_end(now, f.id);
  // Erased in place, not swapped with the last: a class keeps its flows in transfer id order.
  Group& g = groups_[f.group];
  g.flows.erase(g.flows.begin() + f.pos);
  g.size -= f.copies;
  g.bits_left.erase(g.bits_left.begin() + f.pos);
  for (std::size_t i = f.pos; i < g.flows.size(); ++i) flows_[g.flows[i]].pos = static_cast<std::uint32_t>(i);
  if (g.flows.empty()) {
    // g.rate stays: a class that empties and fills again has only new flows, all set anyway.
    for (topo::LinkId l : f.route->links)
      if (--resource_[l].link_classes == 0) resource_[l].busy += now - resource_[l].since;
    for (auto r : f.route->resources) resource_[r].classes.erase(f.group);
  }
}

bool FlowModel::may_skip_end(const Group& group, const Flow& f) const {
  if (!quiet_ || observer_ != nullptr || group.contended || group.flows.size() != 1 ||
      connections_[f.connection].head != kNone || f.followed)
    return false;
  return std::all_of(f.route->resources.begin(), f.route->resources.end(),
                     [&](std::uint32_t r) { return resource_[r].classes.size() == 1; });
}

void FlowModel::settle_quiet(Time now, Slot slot) {
  Flow& f = flows_[slot];
  if (f.end_at <= now) {
    retire(slot);
    return;
  }
  // Still transmitting: an ordinary flow from here on, with the end event it would have had (the
  // flush projects it again if the newcomer changes its rate, as for any flow).
  Group& g = groups_[f.group];
  f.quiet = false;
  g.quiet = kNone;
  g.contended = true;
  ++f.version;
  log_wake(f.end_at, end_token(slot, f.version & kVersionMask));
}

void FlowModel::retire(Slot slot) {
  Flow& f = flows_[slot];
  f.quiet = false;
  Group& g = groups_[f.group];
  g.quiet = kNone;
  // What end_if_current does for a flow that ends alone with nothing queued behind it: nothing
  // else is on its resources to speed up, and its class is empty, as a solve would record.
  leave(f.end_at, slot);
  record_emptied(*g.route);
  g.solved_size = 0;
  connections_[f.connection].busy = false;
}

void FlowModel::collect(std::span<const std::uint32_t> seeds) {
  // One breadth-first walk per component, from each seed resource not reached yet: the
  // components are solved apart (max-min splits into connected components, and a component's
  // doubles come from its own values only), so a flush of many independent changes costs the sum
  // of their components' rounds, not the rounds of all of them at once.
  ++stamp_;
  component_resources_.clear();
  component_.clear();
  component_ends_.clear();
  for (const std::uint32_t seed : seeds) {
    if (resource_[seed].seen == stamp_) continue;
    resource_[seed].seen = stamp_;
    const std::size_t first_resource = component_resources_.size();
    component_resources_.push_back(seed);
    for (std::size_t i = first_resource; i < component_resources_.size(); ++i) {
      for (std::uint32_t g : resource_[component_resources_[i]].classes) {
        if (seen_group_[g] == stamp_) continue;
        seen_group_[g] = stamp_;
        component_.push_back(g);
        for (auto r : groups_[g].route->resources)
          if (resource_[r].seen != stamp_) {
            resource_[r].seen = stamp_;
            component_resources_.push_back(r);
          }
      }
    }
    component_ends_.push_back(Span{static_cast<std::uint32_t>(component_resources_.size()), static_cast<std::uint32_t>(component_.size())});
  }
}

void FlowModel::solve() {
  // Rates move only where a class changed its size since the flush that last solved it (the
  // solver is a function of the sizes; a class that emptied counts): a transfer that ends while
  // its connection's next one starts changes nothing. The components reached from those classes'
  // resources are re-solved; every other component keeps its rates and is not walked at all
  // (a slowed flow's bits are brought up to date only when its class's rate moves, take_rate).
  // With set_always_solve every component a change reached is solved, which gives the same rates.
  if (by_levels_) {
    solve_levels();
    finish_solve();
    return;
  }
  ++stamp_;
  resized_.clear();
  for (const std::uint32_t gi : touched_) {
    Group& g = groups_[gi];
    if (g.size == g.solved_size) continue;
    for (auto r : g.route->resources)
      if (resource_[r].resized != stamp_) {
        resource_[r].resized = stamp_;
        resized_.push_back(r);
      }
  }
  collect(always_solve_ ? std::span<const std::uint32_t>(changed_) : std::span<const std::uint32_t>(resized_));
  std::uint32_t first_resource = 0, first_class = 0;
  for (const Span end : component_ends_) {
    const std::span<const std::uint32_t> resources(component_resources_.data() + first_resource, end.resources - first_resource);
    const std::span<const std::uint32_t> classes(component_.data() + first_class, end.classes - first_class);
    first_resource = end.resources;
    first_class = end.classes;
    if (classes.empty()) continue;
    if (!always_solve_ && classes.size() == 1 && groups_[classes[0]].size == 1) {
      take_rate(classes[0], alone_rate(classes[0]));
      continue;
    }
    // The solver's result does not depend on the order of its classes (every flow fixed in a
    // round subtracts the same share), so the component is solved in the order it was found.
    solver_.clear();
    for (auto r : resources) {
      // Any directed link of the resource carries its bandwidth (both directions of a half-duplex link agree).
      resource_[r].solver_index = solver_.add_resource(level_[r].capacity);
    }
    for (std::uint32_t g : classes) {
      flow_resources_.clear();
      for (auto r : groups_[g].route->resources) flow_resources_.push_back(resource_[r].solver_index);
      // A sprayed route uses 1/k of each parallel path's links (Route::resource_share).
      solver_.add_flow_over(flow_resources_, groups_[g].size, groups_[g].route->resource_share);
    }
    solver_.solve_into(rates_);
    for (std::size_t i = 0; i < classes.size(); ++i) take_rate(classes[i], rates_[i]);
  }
  finish_solve();
}

void FlowModel::finish_solve() {
  for (const std::uint32_t gi : touched_) {
    Group& g = groups_[gi];
    g.touched = false;
    g.solved_size = g.size;
  }
  touched_.clear();
  for (const std::uint32_t r : changed_) resource_[r].changed = false;
  changed_.clear();
}

double FlowModel::alone_rate(std::uint32_t group) const {
  // Progressive filling fixes a class of one flow alone on its resources at the smallest capacity
  // of its own route in one round (min over r of C_r / 1), which is the route's bottleneck: the
  // same double, without the solver. Only the class's route counts: a component found from another
  // route's resources (a flow that just ended) holds capacities this class never crosses, and
  // their minimum (a 25 GB/s network link) once slowed transfers inside a host to it (issue 14).
  return static_cast<double>(groups_[group].route->bottleneck.bits_per_s);
}

void FlowModel::bring_to(Group& g, Time now) {
  // Every slowed flow of the class sends at its rate since `updated`: one subtraction for the
  // whole stretch, rounded once.
  if (g.rate >= 0 && g.updated != now) {
    const double sent = g.rate * static_cast<double>((now - g.updated).count()) * 1e-12;
    for (double& bits : g.bits_left) bits = std::max(0.0, bits - sent);
  }
  g.updated = now;
}

void FlowModel::take_rate(std::uint32_t group, double rate) {
  // A new rate re-projects every flow of the class that is (or now becomes) slower than its
  // bottleneck; new flows are projected whatever the rate (their class is dirty already).
  Group& g = groups_[group];
  if (g.rate == rate) return;
  // Its slowed flows sent at the old rate until now: what they have left is brought to `now` here,
  // once per change of rate (SimGrid's lazy update: remaining work is settled when a rate moves,
  // not at every event), so a component whose rates stay is never walked.
  bring_to(g, period_now_);
  g.rate = rate;
  g.changed_at = epoch_;
  mark_dirty(group);
}

void FlowModel::flush(WakeQueue& queue) {
  const Time now = period_now_;
  // The one solve of this flush, numbered after every change and arrival since the last one.
  ++epoch_;
  if (!changed_.empty()) solve();
  wakes_.clear();
  // Flows that began alone, projected as the loop below would (exact, at their bottleneck),
  // unless a later start of this instant made their class dirty: then the loop does it.
  for (const Slot slot : alone_) {
    Flow& f = flows_[slot];
    Group& g = groups_[f.group];
    if (g.dirty) continue;
    project(slot, f, g, checked_add(f.started, transfer_time(f.bytes, f.route->bottleneck)), f.joined);
  }
  alone_.clear();
  for (const std::uint32_t gi : dirty_) {
    Group& g = groups_[gi];
    g.dirty = false;
    const double full = static_cast<double>(g.route->bottleneck.bits_per_s);
    const bool below = g.rate < full;
    const bool changed = g.changed_at == epoch_;
    for (std::size_t i = 0; i < g.flows.size(); ++i) {
      const Slot slot = g.flows[i];
      Flow& f = flows_[slot];
      // A flow that joined since the last flush is projected at its rate; an older one only if
      // its class's rate moved and it is (or becomes) slower than its bottleneck (at full speed it
      // keeps its exact end).
      const bool fresh = f.joined >= period_start_;
      if (!fresh && !(changed && (!f.exact || below))) continue;
      if (f.exact && below) {
        // First slowdown: what it sent so far went at full rate; floating point from here on. The
        // class's other slowed flows are brought to `now` first: one `updated` holds for all.
        bring_to(g, now);
        f.exact = false;
        g.bits_left[i] = std::max(0.0, static_cast<double>(f.bytes) * 8.0 - full * static_cast<double>((now - f.started).count()) * 1e-12);
      }
      Time at;
      std::uint64_t key = epoch_;
      if (f.exact) {
        // Its end is known from its start (start + transfer time), so it is ordered as if queued
        // when it joined, among the arrivals logged around it: a contention-free run queues every
        // wake-up in the order its events happened.
        at = checked_add(f.started, transfer_time(f.bytes, f.route->bottleneck));
        key = f.joined;
      } else {
        // bits_left was brought to `now` by collect() (or just set): the rate is the class's last.
        // Nothing left ends now, whatever the rate (0 / 0 would be NaN); a time past the clock
        // saturates to Time::max() (sim/units/saturate.hpp) instead of a wrapped conversion.
        const Time left = g.bits_left[i] <= 0 ? Time{0} : saturating_ceil_ps(g.bits_left[i] / g.rate * 1e12);
        at = time_saturated(left) ? Time::max() : checked_add(now, left);
      }
      project(slot, f, g, at, key);
    }
  }
  dirty_.clear();
  // Ends by (key, time, transfer id), merged with the logged arrivals by key: an arrival goes
  // before every end keyed after it was logged.
  if (eager_) {
    std::sort(wakes_.begin(), wakes_.end(), [](const Wake& a, const Wake& b) {
      if (a.epoch != b.epoch) return a.epoch < b.epoch;
      return a.at != b.at ? a.at < b.at : a.id < b.id;
    });
  } else {
    sort_wakes();
  }
  std::size_t next_log = 0;
  for (std::size_t i = 0; i < wakes_.size();) {
    for (; next_log < log_.size() && log_[next_log].after < wakes_[i].epoch; ++next_log)
      queue.wake_at(log_[next_log].at, log_[next_log].token);
    // Ends of one key due at one time: one wake-up that ends them in that order, each still
    // checked for being current when its turn comes (an earlier one may have moved it), gives the
    // same times as one wake-up each (nothing ran between them), and the queue holds one entry,
    // not one per flow. The plain order of work (set_eager) queues one wake-up each.
    std::size_t j = i + 1;
    while (!eager_ && !wakes_[i].quiet && j < wakes_.size() && !wakes_[j].quiet && wakes_[j].epoch == wakes_[i].epoch &&
           wakes_[j].at == wakes_[i].at)
      ++j;
    if (j == i + 1) {
      queue.wake_at(wakes_[i].at, wakes_[i].quiet ? quiet_token(wakes_[i].slot, wakes_[i].version)
                                                  : end_token(wakes_[i].slot, wakes_[i].version));
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

void FlowModel::project(Slot slot, Flow& f, Group& g, Time at, std::uint64_t key) {
  ++f.version;
  if (at != Time::max() && may_skip_end(g, f)) {
    // Quiet: alone, it keeps this end unless something comes onto its resources or its
    // connection (settle_quiet), so only its arrival is queued, where its end would have been in
    // the order. One event per transfer instead of two on dedicated links.
    f.quiet = true;
    f.end_at = at;
    g.quiet = slot;
    wakes_.push_back(Wake{key, checked_add(checked_add(at, f.route->latency), f.after), f.id, slot,
                          f.version & kVersionMask, true});
    return;
  }
  wakes_.push_back(Wake{key, at, f.id, slot, f.version & kVersionMask});
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
    case 3: {
      // A quiet flow's arrival: ended at its end_at unless a newcomer did that already; stale if
      // a newcomer made it ordinary (its own end logs its arrival).
      const auto slot = static_cast<Slot>((token >> 2) & 0xFFFFFFFFu);
      Flow& f = flows_[slot];
      if (f.route == nullptr || static_cast<std::uint32_t>(token >> 34) != (f.version & kVersionMask)) return;
      if (f.quiet) retire(slot);
      finished.push_back(f.id);
      ++f.version;
      f.route = nullptr;
      f.next_free = free_;
      free_ = slot;
      return;
    }
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
  // A current projection stands even when changes at `now` wait for the flush: they move rates
  // from `now` on, and the flow's bits ran out at the rates before.
  const topo::Route& route = *f.route;
  const TransferId id = f.id;
  const Time after = f.after;
  const std::uint32_t group = f.group;
  Connection& connection = connections_[f.connection];
  const std::uint32_t c = f.connection;
  end(now, slot);
  log_wake(checked_add(checked_add(now, route.latency), after), arrive_token(id));
  if (connection.head == kNone) {
    connection.busy = false;
    // It was alone on its resources: nothing is left to speed up (the flush would find no
    // class), and its class is empty, which is what a solve of it would record. Alone means
    // since the last flush too: a class that left them earlier at `now` shared the last solve
    // with it, and a class joining them later must be solved without it.
    if (!always_solve_ && std::all_of(route.resources.begin(), route.resources.end(), [&](std::uint32_t r) {
          return resource_[r].classes.empty() && !resource_[r].changed;
        })) {
      record_emptied(route);
      groups_[group].solved_size = 0;
      return;
    }
    touch(group);
    return;
  }
  // The connection starts its next transfer.
  const std::uint32_t p = connection.head;
  const Pending next = pending_[p];
  connection.head = next.next;
  if (connection.head == kNone) connection.tail = kNone;
  pending_[p].next = pending_free_;
  pending_free_ = p;
  touch(group);
  begin(now, next.id, route, c, next.bytes, next.copies, next.after, next.followed);
}

}  // namespace collsim::net
