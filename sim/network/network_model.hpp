// The narrow interface between the engine and a network model (STYLE.md pattern 10).
//
// The engine hands the model transfers ("move n bytes along this route, starting now"); the model
// decides when each finishes. Completions are always events: a model schedules a wake-up for
// itself and reports the finished transfers when the engine delivers it, never from inside start(),
// so no model ever calls back into the code that called it (STYLE.md pattern 5).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sim/units/units.hpp"
#include "topologies/routes.hpp"
#include "topologies/topology.hpp"

namespace collsim::net {

/// Identifies a transfer: the op id for a materialised schedule, a reused slot for ops generated
/// on demand. An id is reused only after wake() has reported its transfer finished.
using TransferId = std::uint32_t;

/// The engine's event queue as a model sees it: it may only schedule wake-ups for itself.
class WakeQueue {
 public:
  /// Deliver `token` back to the model at absolute time `t` (>= now).
  virtual void wake_at(Time t, std::uint64_t token) = 0;

 protected:
  ~WakeQueue() = default;
};

/// Told when a transfer's bytes start and stop leaving its sender (the time it occupies its
/// route's links, latency excluded): what a timeline shows per link. A model calls it only when one
/// is set, so a run without one pays a null test per transfer and nothing else.
class TransferObserver {
 public:
  /// Transfer `id` starts transmitting at `now`.
  virtual void transmit_begin(Time now, TransferId id) = 0;
  /// Transfer `id` has sent its last byte at `now` (it arrives its route's latency later).
  virtual void transmit_end(Time now, TransferId id) = 0;

 protected:
  ~TransferObserver() = default;
};

class NetworkModel {
 public:
  virtual ~NetworkModel() = default;
  /// Tells `observer` (or nobody, with nullptr) when transfers transmit; it must outlive the run.
  void observe(TransferObserver* observer) noexcept { observer_ = observer; }
  /// The name used by --network.
  [[nodiscard]] virtual std::string_view name() const noexcept = 0;
  /// At time `now`, transfer `id` of channel `channel` (NCCL's parallel rings; schedule.hpp)
  /// wants to move `bytes` along `route`. `route` must outlive the transfer (RouteCache entries do).
  /// It stands for `copies` (>= 1) identical transfers of as many identical channels, which a
  /// model that folds_copies() times as that many flows sharing the links; any other model takes
  /// only 1 (std::invalid_argument otherwise). `after` (>= 0) is the op's own cost, paid once the
  /// data has arrived (sim::OpCostModel): the transfer is reported finished at its arrival plus
  /// `after`, so the engine needs no event of its own for it (one event fewer per op). Events of
  /// one picosecond run in the order they were queued, and this end is queued when the arrival is
  /// (not when the data arrives), so where an op's end ties with another event to the picosecond,
  /// and the two ops' costs differ, the two may run in the other order than before session 17.
  virtual void start(Time now, TransferId id, const topo::Route& route, Bytes bytes, std::uint16_t channel,
                     std::uint32_t copies, Time after, WakeQueue& queue) = 0;
  /// True when start() takes copies > 1 and times them as the copies would run: a model whose
  /// flows of one route and one start get one rate (max-min sharing is symmetric), so identical
  /// channels stay in step and one of them, counted `copies` times, has their times. A FIFO model
  /// serialises copies, one after the other, and cannot.
  [[nodiscard]] virtual bool folds_copies() const noexcept { return false; }
  /// True when the model can take chained transfers (start_followed, log_begins), so the engine
  /// launches a chain's next root when the one before it begins (sched::OpStream::root_after);
  /// otherwise the engine launches every root at the start, as a stream without chains.
  [[nodiscard]] virtual bool chains() const noexcept { return false; }
  /// As start(), for a transfer that the engine follows on its connection by another, which it
  /// starts once this one begins transmitting: the model times this one as though that one were
  /// already queued behind it (the same times as when every root is launched at the start), and
  /// appends `id` to the log_begins() list when it begins. Only called when chains().
  virtual void start_followed(Time now, TransferId id, const topo::Route& route, Bytes bytes, std::uint16_t channel,
                              std::uint32_t copies, Time after, WakeQueue& queue) {
    start(now, id, route, bytes, channel, copies, after, queue);
  }
  /// Where start_followed()'s transfers are logged when they begin (nullptr: nowhere); must
  /// outlive the run.
  void log_begins(std::vector<TransferId>* log) noexcept { begins_ = log; }
  /// A wake-up scheduled with queue.wake_at(now, token) has come; appends every transfer that
  /// finished at `now` to `finished`.
  virtual void wake(Time now, std::uint64_t token, WakeQueue& queue, std::vector<TransferId>& finished) = 0;
  /// Total time directed link `id` spent carrying data (its latency included), so far.
  [[nodiscard]] virtual Time busy_time(topo::LinkId id) const = 0;
  /// True while the model holds wake-ups it has decided at the current time but not given to the
  /// queue yet (FlowModel decides ends lazily within one picosecond).
  [[nodiscard]] bool has_deferred() const noexcept { return deferred_; }
  /// Gives `queue` the deferred wake-ups, in the order they were decided. The driver must call it
  /// whenever has_deferred() and (a) before it pops an event later than the current time (every
  /// wake-up at the current time already queued was scheduled before the deferred ones) and (b)
  /// before it schedules an event of its own, so the queue's order of equal times is the order the
  /// events were decided in.
  virtual void flush(WakeQueue& queue) { (void)queue; }

 protected:
  TransferObserver* observer_ = nullptr;  ///< see observe()
  bool deferred_ = false;                 ///< see has_deferred()
  std::vector<TransferId>* begins_ = nullptr;  ///< see log_begins()
};

/// The models --network accepts, in the order to list them.
std::span<const std::string_view> network_model_names() noexcept;

/// Whether the model named `name` folds_copies() (false for a name that is no model).
bool network_folds_copies(std::string_view name) noexcept;

/// Makes the model named `name` for `topology` (which must outlive it). Throws
/// std::invalid_argument naming the valid models for any other name.
std::unique_ptr<NetworkModel> make_network_model(std::string_view name, const topo::Topology& topology);

}  // namespace collsim::net
