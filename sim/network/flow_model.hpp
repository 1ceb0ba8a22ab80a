// The flow-level network model: concurrent transfers share links max-min fairly (SimGrid's and
// ASTRA-sim's analytical family; STYLE.md pattern 10 (b)).
//
// Every transmitting transfer has a rate. When a transfer starts or stops transmitting, the rates
// are re-solved (MaxMinSolver) for the flows connected to it through shared links, and only for
// them: a contention-free transfer costs a constant amount of work. A full-duplex link is two
// resources (one per direction), a half-duplex link one. A transfer transmits its bytes at its
// rate, then arrives its route's summed latency later, as in the FIFO model. Transfers between the
// same two nodes and of the same channel form one connection and transmit one after the other in
// request order, as NCCL moves a channel's slices in order (different channels are different
// connections and share the links) (sharing a link among a thousand pipeline chunks of one
// connection would finish none early and stall every pipeline). A transfer whose rate stays at
// its route's bottleneck for its whole life ends exactly at start + ceil(8n·1e12 / B) ps, so
// contention-free runs equal the closed forms; a slowed one is tracked in floating point and its
// end rounded up to the picosecond.
//
// Cost (bench/PROFILE.md, issue 7 point 3): transmitting flows live in a slab with a free list
// (memory O(flows in flight), not O(transfers)); waiting transfers in per-connection intrusive
// queues; a flow that shares no resource with another (the common case on dedicated links) gets
// its bottleneck rate without the solver, which gives the same rate bit for bit; a contended
// change solves only the connected component, with buffers kept between calls. Nothing allocates
// per transfer once the slabs are warm.
//
// Contended fabrics (24 channels between every pair of GPUs of an NVSwitch box: a thousand flows
// on 16 resources) are solved per route, not per flow (bench/PROFILE.md section 3.7): the flows of
// one route cross the same resources, so max-min gives them one rate, and the solver works on
// route classes with a multiplicity (MaxMinSolver::add_flow_over), in O(resources + routes) per
// round. Only the flows of classes whose rate changed are touched. A transfer that ends while the
// next one of its connection starts leaves every class's size as it was, so every rate stays and
// nothing is solved. Every simulated time is the one the per-flow solve gives, to the picosecond
// (tests/unit/engine_test.cpp compares with set_always_solve).
//
// Ends are decided lazily within one picosecond (bench/PROFILE.md section 3.9). A burst of starts
// at one time re-solves once per start, and every solve that moves a class's rate used to
// re-project the end of each of its flows: in issue 7's sweep, 152 million projections for 8.6
// million ends. Within one picosecond nothing but the rates moves (no flow is re-based twice), so
// a flow's last projection depends only on its class's final rate and on which solves of the burst
// would have touched it; the model records, per class, the last solve that changed its rate and the
// last that held it below the route's bottleneck, and projects each flow once, when the engine
// calls flush(). The queue receives the same wake-ups, in the same order, minus the ones that were
// superseded before anything could pop them; a wake-up popped before the flush checks the same
// records to know whether it was superseded.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "sim/network/maxmin.hpp"
#include "sim/network/network_model.hpp"

namespace collsim::net {

class FlowModel final : public NetworkModel {
 public:
  explicit FlowModel(const topo::Topology& topology);
  [[nodiscard]] std::string_view name() const noexcept override { return "flow"; }
  void start(Time now, TransferId id, const topo::Route& route, Bytes bytes, std::uint16_t channel, WakeQueue& queue) override;
  void wake(Time now, std::uint64_t token, WakeQueue& queue, std::vector<TransferId>& finished) override;
  /// Projects the ends decided since the last flush and gives the queue their wake-ups (and the
  /// arrivals logged since), in the order the per-flow model would have scheduled them.
  void flush(WakeQueue& queue) override;
  /// Time the link carried at least one transmitting transfer.
  [[nodiscard]] Time busy_time(topo::LinkId id) const override { return busy_.at(id); }
  /// Re-solves every change with the max-min solver even when the changed flow shares no resource
  /// or no class changed its size (the shortcuts off): for the test that both give identical times.
  void set_always_solve(bool on) noexcept { always_solve_ = on; }
  /// Projects the ends of every solve and queues every arrival at once (no deferral: the per-flow
  /// model's order of work): for the test that both give identical times.
  void set_eager(bool on) noexcept { eager_ = on; }

 private:
  using Slot = std::uint32_t;  // index into flows_
  static constexpr Slot kNone = 0xFFFFFFFFu;
  /// A transmitting transfer.
  struct Flow {
    const topo::Route* route = nullptr;
    TransferId id = 0;
    std::uint32_t connection = 0;
    std::uint32_t group = 0;  // its route's class (groups_)
    std::uint32_t pos = 0;    // its index in groups_[group].flows
    Bytes bytes = 0;
    Time started{0};
    std::uint64_t joined = 0;  // the solve (epoch_) that first gave it a rate
    bool exact = true;      // never slowed below its bottleneck (as of the last flush): ends at started + transfer_time
    std::uint32_t version = 0;  // wake-ups of older projections (or older users of the slot) are ignored
    Slot next_free = kNone;
  };
  /// A transfer waiting behind its connection's transmitting one.
  struct Pending {
    TransferId id;
    Bytes bytes;
    std::uint32_t next;  // index into pending_, or kNone
  };
  /// A route and a channel: its transfers transmit one at a time, in request order.
  struct Connection {
    bool busy = false;
    std::uint32_t group = 0;                   // its route's class
    std::uint32_t head = kNone, tail = kNone;  // into pending_
  };
  /// The transmitting flows of one route (of any channel): one max-min class, one rate. Its
  /// slowed (inexact) flows all run at `rate` since `updated`, the last change that reached it.
  struct Group {
    const topo::Route* route = nullptr;
    std::vector<Slot> flows;         // by transfer id
    std::vector<double> bits_left;   // by position in flows: bits still to send at `updated` (slowed flows only)
    double rate = -1;                // bits/s, given by the last solve that saw it (-1: none yet)
    Time updated{0};
    std::uint64_t changed_at = 0;    // the last solve that changed `rate`
    std::uint64_t slow_at = 0;       // the last solve that left `rate` below the route's bottleneck
    bool dirty = false;              // in dirty_: changed or joined since the last flush
  };
  std::uint32_t connection_of(const topo::Route& route, std::uint16_t channel);
  Slot begin(Time now, TransferId id, const topo::Route& route, std::uint32_t connection, Bytes bytes);
  void end(Time now, Slot slot);
  /// Collects in component_ the classes connected to `resources` (breadth-first) and brings their
  /// slowed flows' bits_left to `now`.
  void collect(Time now, const std::vector<std::uint32_t>& resources);
  /// Re-solves the rates of the classes connected to `resources` (one solve, epoch_ + 1); the ends
  /// it moves are projected at the flush.
  void resolve(Time now, const std::vector<std::uint32_t>& resources);
  /// The max-min rate of `group` when it is a class of one flow and no other class shares its
  /// resources: its route's bottleneck, bits/s.
  double alone_rate(std::uint32_t group) const;
  /// Records `rate` as `group`'s at solve epoch_ (its flows are projected at the flush).
  void take_rate(std::uint32_t group, double rate);
  /// Adds `group` to dirty_ once.
  void mark_dirty(std::uint32_t group);
  /// The solve at which the per-flow model last projected the end of the flow in `slot` since the
  /// last flush, or 0 if none did (its wake-up in the queue stands); whether it was slowed below
  /// its bottleneck for the first time in that span goes to `slowed`.
  std::uint64_t projected_at(Slot slot, bool& slowed) const;
  /// Gives `token` to the queue at `at`: at once when nothing is deferred, else at the flush,
  /// after the ends decided so far.
  void log_wake(Time at, std::uint64_t token);
  /// Flushes now in eager mode (set_eager).
  void flush_if_eager() {
    if (eager_) flush(*queue_);
  }
  /// Sorts wakes_ by (solve, time, transfer id), in O(n log runs) for n made of sorted runs.
  void sort_wakes();
  /// Ends the transmission of the flow in `slot` if `version` is still its current projection.
  void end_if_current(Time now, Slot slot, std::uint32_t version);

  const topo::Topology& topology_;
  std::vector<Flow> flows_;                         // slab of transmitting flows
  Slot free_ = kNone;                               // head of flows_' free list
  std::vector<Group> groups_;
  std::unordered_map<const topo::Route*, std::uint32_t> group_index_;  // route -> groups_
  std::vector<std::vector<std::uint32_t>> on_resource_;  // groups with transmitting flows, by resource
  std::vector<std::uint32_t> users_;                // transmitting flows, by directed link
  std::vector<Time> busy_since_;                    // by directed link, while users_ > 0
  std::vector<Time> busy_;                          // by directed link
  std::unordered_map<std::uint64_t, std::uint32_t> connection_index_;  // (route, channel) -> connections_
  std::vector<Connection> connections_;
  std::vector<Pending> pending_;                    // slab of waiting transfers
  std::uint32_t pending_free_ = kNone;
  bool always_solve_ = false;
  bool eager_ = false;
  WakeQueue* queue_ = nullptr;  // the queue of the current start() or wake()
  // Lazy projection (see the top): solves are numbered by epoch_; those from period_start_ on are
  // not flushed yet, all at time period_now_.
  std::uint64_t epoch_ = 0;
  std::uint64_t period_start_ = 1;
  Time period_now_{0};
  std::vector<std::uint32_t> dirty_;  // classes to project at the flush
  /// A wake-up other than a projected end (an arrival), logged after solve `after`.
  struct Logged {
    std::uint64_t after;
    Time at;
    std::uint64_t token;
  };
  std::vector<Logged> log_;
  // Scratch for resolve(), kept to avoid allocating per event: stamps mark what the current
  // component already holds.
  std::vector<std::uint32_t> seen_resource_;
  std::vector<std::uint32_t> seen_group_;  // by group
  std::uint32_t stamp_ = 0;
  std::vector<std::uint32_t> component_resources_;
  std::vector<std::uint32_t> component_;  // groups
  /// A flow's end to wake up for, projected by solve `epoch`.
  struct Wake {
    std::uint64_t epoch;
    Time at;
    TransferId id;
    Slot slot;
    std::uint32_t version;
  };
  /// One end in a list of ends due together (one wake-up), in the order to end them.
  struct BatchEntry {
    Slot slot = kNone;
    std::uint32_t version = 0;
    std::uint32_t next = kNone;  // into batch_
  };
  std::vector<Wake> wakes_;                 // new ends, grouped by time before scheduling
  std::vector<Wake> sorted_wakes_;          // sort_wakes' buffer
  std::vector<std::uint32_t> runs_;         // sort_wakes' sorted runs (first index)
  std::vector<std::uint32_t> merged_runs_;  // the same after one merge pass
  std::vector<BatchEntry> batch_;           // slab of the lists behind batch wake-ups
  std::uint32_t batch_free_ = kNone;
  std::vector<std::uint32_t> solver_index_;  // by resource: its index in solver_
  std::vector<std::uint32_t> flow_resources_;
  std::vector<double> rates_;
  MaxMinSolver solver_;
};

}  // namespace collsim::net
