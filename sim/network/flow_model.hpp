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
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <vector>

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

 private:
  struct Flow {
    const topo::Route* route = nullptr;
    std::uint16_t channel = 0;
    Bytes bytes = 0;
    Time started{0};
    bool active = false;
    bool exact = true;      // never slowed below its bottleneck: ends at started + transfer_time
    double bits_left = 0;   // at `updated`, once slowed
    Time updated{0};
    double rate = 0;        // bits/s
    std::uint32_t version = 0;  // wake-ups of older projections are ignored
    std::vector<std::uint32_t> resources;
  };
  struct Pending {
    TransferId id;
    Bytes bytes;
  };
  /// A connection: a route and a channel.
  using Connection = std::pair<const topo::Route*, std::uint16_t>;
  void begin(Time now, TransferId id, const topo::Route& route, std::uint16_t channel, Bytes bytes);
  void end(Time now, TransferId id);
  /// Re-solves the rates of the flows connected to `resources` and reschedules their ends.
  void resolve(Time now, const std::vector<std::uint32_t>& resources, WakeQueue& queue);

  const topo::Topology& topology_;
  std::vector<Flow> flows_;                               // by TransferId
  std::vector<std::vector<TransferId>> on_resource_;      // transmitting flows, by resource
  std::vector<std::uint32_t> users_;                      // transmitting flows, by directed link
  std::vector<Time> busy_since_;                          // by directed link, while users_ > 0
  std::vector<Time> busy_;                                // by directed link
  std::map<Connection, std::deque<Pending>> waiting_;  // per connection, behind its active flow
  // Scratch for resolve(), kept to avoid allocating per event.
  std::vector<std::uint32_t> seen_resource_;
  std::uint32_t stamp_ = 0;
};

}  // namespace collsim::net
