// The first network model: cut-through transfers that hold their whole route, one per link and
// direction at a time, in FIFO order (STYLE.md pattern 10 (a)).
//
// A transfer of n bytes on a route with summed latency L and bottleneck bandwidth B takes
// L + ceil(8n·1e12 / B) ps once it holds every link (resource) of its route. It joins the queue of
// every resource on its route when it is requested and starts when it is at the head of all of
// them. Because a transfer joins all its queues at once, queue orders agree with request order,
// so the oldest waiting transfer can always start when the active ones finish: no deadlock.
#pragma once

#include <deque>
#include <vector>

#include "sim/network/network_model.hpp"

namespace collsim::net {

class FifoLinkModel final : public NetworkModel {
 public:
  explicit FifoLinkModel(const topo::Topology& topology);
  [[nodiscard]] std::string_view name() const noexcept override { return "fifo"; }
  void start(Time now, TransferId id, const topo::Route& route, Bytes bytes, WakeQueue& queue) override;
  void wake(Time now, std::uint64_t token, WakeQueue& queue, std::vector<TransferId>& finished) override;
  [[nodiscard]] Time busy_time(topo::LinkId id) const override { return busy_.at(id); }

 private:
  struct Transfer {
    const topo::Route* route = nullptr;
    Bytes bytes = 0;
    bool active = false;
  };
  void try_start(Time now, TransferId id, WakeQueue& queue);

  const topo::Topology& topology_;
  std::vector<Transfer> transfers_;               // by TransferId
  std::vector<std::deque<TransferId>> queues_;    // by resource
  std::vector<Time> busy_;                        // by directed link
};

}  // namespace collsim::net
