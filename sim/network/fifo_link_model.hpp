// The first network model: cut-through transfers that hold their whole route, one per link and
// direction at a time, served in request order (STYLE.md pattern 10 (a)).
//
// A transfer of n bytes on a route with summed latency L and bottleneck bandwidth B holds every
// link (resource) of its route for its serialisation time ceil(8n·1e12 / B) ps and arrives L
// later: the latency is the pipeline delay of a cut-through path, during which the links already
// carry the next transfer (so k back-to-back transfers on one link take k·n/B + L, not k·(n/B + L)).
// A transfer starts as soon as every resource on its route is idle; when a resource frees, the waiting transfers
// that use it are tried in the order they were requested. The model is work-conserving: a
// transfer that still waits for another link does not keep an idle link from serving a later
// one (strict per-link FIFO would, and would make schedules that send ahead look slower than
// they are). Every transfer eventually starts: the earliest waiting one starts once the finite
// set of active transfers has finished.
#pragma once

#include <cstdint>
#include <deque>
#include <limits>
#include <vector>

#include "sim/network/network_model.hpp"

namespace collsim::net {

class FifoLinkModel final : public NetworkModel {
 public:
  explicit FifoLinkModel(const topo::Topology& topology);
  [[nodiscard]] std::string_view name() const noexcept override { return "fifo"; }
  /// Takes copies == 1 only (a link holds one transfer at a time, so copies would not stay in step).
  void start(Time now, TransferId id, const topo::Route& route, Bytes bytes, std::uint16_t channel,
             std::uint32_t copies, Time after, WakeQueue& queue) override;
  void wake(Time now, std::uint64_t token, WakeQueue& queue, std::vector<TransferId>& finished) override;
  /// Time the link spent serialising data (latency excluded).
  [[nodiscard]] Time busy_time(topo::LinkId id) const override { return busy_.at(id); }

 private:
  static constexpr TransferId kIdle = std::numeric_limits<TransferId>::max();
  enum class State : std::uint8_t { Unused, Waiting, Active, Released, Done };
  enum class Wake : std::uint64_t { Release = 0, Arrive = 1 };
  static std::uint64_t token(TransferId id, Wake w) { return (std::uint64_t{id} << 1) | static_cast<std::uint64_t>(w); }
  struct Transfer {
    const topo::Route* route = nullptr;
    Bytes bytes = 0;
    std::uint64_t seq = 0;  // request order
    Time after{0};          // its op's own cost, added to its arrival (start())
    State state = State::Unused;
  };
  struct Resource {
    TransferId holder = kIdle;
    std::deque<TransferId> waiting;  // request order; entries of transfers that started are dropped lazily
  };
  /// Starts `id` if every resource on its route is idle; returns whether it started.
  bool try_start(Time now, TransferId id, WakeQueue& queue);

  const topo::Topology& topology_;
  std::vector<Transfer> transfers_;  // by TransferId
  std::vector<Resource> resources_;  // by resource id
  std::vector<Time> busy_;           // by directed link
  std::vector<TransferId> candidates_;
  std::uint64_t next_seq_ = 0;
};

}  // namespace collsim::net
