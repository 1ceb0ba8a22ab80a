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
#pragma once

#include <cstdint>
#include <optional>
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
  /// Time the link carried at least one transmitting transfer.
  [[nodiscard]] Time busy_time(topo::LinkId id) const override { return busy_.at(id); }
  /// Re-solves every change with the max-min solver even when the changed flow shares no resource
  /// or no class changed its size (the shortcuts off): for the test that both give identical times.
  void set_always_solve(bool on) noexcept { always_solve_ = on; }

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
    bool exact = true;      // never slowed below its bottleneck: ends at started + transfer_time
    bool scheduled = false; // an end has been scheduled for its current life
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
  };
  std::uint32_t connection_of(const topo::Route& route, std::uint16_t channel);
  Slot begin(Time now, TransferId id, const topo::Route& route, std::uint32_t connection, Bytes bytes);
  void end(Time now, Slot slot);
  /// Collects in component_ the classes connected to `resources` (breadth-first) and brings their
  /// slowed flows' bits_left to `now`.
  void collect(Time now, const std::vector<std::uint32_t>& resources);
  /// Re-solves the rates of the classes connected to `resources` and reschedules the ends of the
  /// flows whose rate changed (and of new ones).
  void resolve(Time now, const std::vector<std::uint32_t>& resources, WakeQueue& queue);
  /// Records `rate` as `group`'s and applies it to its flows (all of them when the rate is new,
  /// else only those never scheduled), adding their new ends to wakes_.
  void take_rate(Time now, std::uint32_t group, double rate);
  /// Schedules the ends in wakes_, in (time, transfer id) order, one wake-up per time.
  void schedule_wakes(WakeQueue& queue);
  /// Applies its class's max-min rate to the flow in `slot` (`changed`: not the rate it had).
  /// Returns the time of its newly projected end (its version is bumped: older wake-ups go stale),
  /// or nullopt when its scheduled end stands.
  std::optional<Time> set_rate(Time now, Slot slot, bool changed);
  /// Sorts wakes_ by (time, transfer id), in O(n log runs) for n made of sorted runs.
  void sort_wakes();
  /// Ends the transmission of the flow in `slot` if `version` is still its current projection.
  void end_if_current(Time now, Slot slot, std::uint32_t version, WakeQueue& queue);

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
  // Scratch for resolve(), kept to avoid allocating per event: stamps mark what the current
  // component already holds.
  std::vector<std::uint32_t> seen_resource_;
  std::vector<std::uint32_t> seen_group_;  // by group
  std::uint32_t stamp_ = 0;
  std::vector<std::uint32_t> component_resources_;
  std::vector<std::uint32_t> component_;  // groups
  /// A flow's end to wake up for.
  struct Wake {
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
