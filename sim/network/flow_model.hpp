// The flow-level network model: concurrent transfers share links max-min fairly (SimGrid's and
// ASTRA-sim's analytical family; STYLE.md pattern 10 (b)).
//
// Every transmitting transfer has a rate; rates are re-solved (MaxMinSolver) whenever a transfer
// starts or stops transmitting. A full-duplex link is two resources (one per direction), a
// half-duplex link one. A transfer transmits its bytes at its rate, then arrives its route's summed
// latency later, as in the FIFO model. Transfers between the same two nodes form one connection
// and transmit one after the other in request order, as NCCL moves a channel's slices in order
// (sharing a link among a thousand pipeline chunks of one connection would finish none early and
// stall every pipeline). A transfer whose rate stays at its route's bottleneck for
// its whole life (no contention) ends exactly at start + ceil(8n·1e12 / B) ps, so contention-free
// runs equal the closed forms; a shared one is tracked in floating point and its end rounded up to
// the picosecond.
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
  void start(Time now, TransferId id, const topo::Route& route, Bytes bytes, WakeQueue& queue) override;
  void wake(Time now, std::uint64_t token, WakeQueue& queue, std::vector<TransferId>& finished) override;
  /// Time the link carried at least one transmitting transfer.
  [[nodiscard]] Time busy_time(topo::LinkId id) const override { return busy_.at(id); }

 private:
  struct Flow {
    TransferId id = 0;
    const topo::Route* route = nullptr;
    double bits_left = 0;  // used once the flow has been slowed below its bottleneck
    double rate = 0;       // bits/s
    bool exact = true;     // never slowed: ends at exact_end
    Time started{0};
    Bytes bytes = 0;
    Time end{0};           // projected end of transmission at the current rates
  };
  struct Pending {
    TransferId id;
    Bytes bytes;
  };
  void advance(Time now);
  void begin(Time now, TransferId id, const topo::Route& route, Bytes bytes);
  void resolve(Time now, WakeQueue& queue);

  const topo::Topology& topology_;
  std::vector<Flow> active_;
  std::map<const topo::Route*, std::deque<Pending>> waiting_;  // per connection, behind its active flow
  std::vector<std::uint32_t> users_;  // by directed link: transmitting flows on it
  std::vector<Time> busy_;            // by directed link
  Time last_{0};
  std::uint64_t generation_ = 0;      // wake-ups from older rate solutions are ignored
};

}  // namespace collsim::net
