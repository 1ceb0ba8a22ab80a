// The engine: runs a schedule on a topology through a network model, by discrete events.
//
// An op becomes ready when all its dependencies have finished; it then becomes one transfer along
// the route from its sender's GPU to its receiver's GPU. The engine knows neither which algorithm
// made the schedule nor how the network shares its links.
#pragma once

#include <atomic>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <vector>

#include "sim/network/network_model.hpp"
#include "sim/op_costs.hpp"
#include "sim/schedule/op_stream.hpp"
#include "sim/schedule/schedule.hpp"
#include "topologies/routes.hpp"
#include "topologies/topology.hpp"

namespace collsim::sim {

/// Traffic of one rank, in bytes of chunk data.
struct RankTraffic {
  Bytes sent = 0;
  Bytes received = 0;
};

/// Traffic of one directed link.
struct LinkTraffic {
  Bytes bytes = 0;  ///< chunk bytes that crossed it
  Time busy{0};     ///< time it carried data, as the network model counts it
};

/// When an op ran: `ready` is when its dependencies were done and it was handed to the network,
/// `finish` when its data had arrived.
struct OpTiming {
  Time ready{0};
  Time finish{0};
};

/// What a run produced. Vectors are indexed by rank, directed link id and op id; `ops` is empty
/// for a stream that is not a materialised schedule (sched::OpStream::dense()), which keeps a
/// run's memory O(N + ops in flight).
struct Result {
  Time makespan{0};          ///< finish time of the last op (0 for a schedule without ops)
  std::uint64_t events = 0;  ///< events processed by the queue
  /// The most ops held at once: started and not finished, or waiting for a further dependency
  /// after one has finished. What a run's memory grows with besides N and the links (ring
  /// all-reduce: at most N, one per rank).
  std::uint64_t peak_ops_held = 0;
  /// How many identical copies of one period of ranks the run stood for (sim/rank_fold.hpp): 1 when
  /// every rank was simulated, else N / P, and `events` counts the events of ranks 0 .. P-1 only.
  std::uint32_t rank_images = 1;
  std::vector<RankTraffic> ranks;
  std::vector<LinkTraffic> links;
  std::vector<OpTiming> ops;
};

/// Told when each op ends (for tests and streaming reports): op `key` of the stream (its op id for
/// a materialised schedule) was handed to the network at `ready` and ended at `finish`.
class OpObserver {
 public:
  virtual void op_done(sched::OpKey key, Time ready, Time finish) = 0;

 protected:
  ~OpObserver() = default;
};

/// Told now and then how far a run has come (RunOptions::progress): a front end that says how long a
/// long run still needs.
class ProgressObserver {
 public:
  /// `done` of the run's `total` ops have finished (ops of one period where ranks fold).
  virtual void progress(std::uint64_t done, std::uint64_t total) = 0;

 protected:
  ~ProgressObserver() = default;
};

/// What the engine adds to the network model's times (sim/op_costs.hpp computes them from a
/// topology's parameters). The default adds nothing: the ideal α-β run.
struct RunOptions {
  /// When the ops without dependencies start: the collective's fixed cost (NCCL's base latency).
  Time start{0};
  /// By op id (only for a dense stream: a materialised schedule), or empty for none: time from the arrival of an op's data (a local op: from its
  /// start) to its end, e.g. a protocol's per-step latency plus the receiver's reduction.
  std::vector<Time> op_delay;
  /// When not null (and op_delay empty), each op's delay as the model prices it when the op starts:
  /// the same times as op_delay filled with OpCostModel::delay per op, so a stream that
  /// is not materialised may have costs. Must outlive the run.
  const OpCostModel* op_costs = nullptr;
  /// When not null, told when each transfer transmits (for timelines); must outlive the run.
  net::TransferObserver* observer = nullptr;
  /// When not null, told when each op ends; must outlive the run.
  OpObserver* op_observer = nullptr;
  /// When not null, the links of the routes come from this table (and new ones go into it): one
  /// table serves many runs on one topology (topo::PathTable).
  topo::PathTable* paths = nullptr;
  /// By channel, or empty for 1 each: how many identical channels the ops of each channel stand
  /// for (algo::build_folded_channels). Each transfer goes to the network as that many copies
  /// (net::NetworkModel::folds_copies() must hold when any is above 1) and counts that many times in
  /// the traffic; every time is the full schedule's, and `events` the folded run's. A channel with
  /// 0 copies, or one past the end, must have no ops (std::invalid_argument).
  std::vector<std::uint32_t> channel_copies;
  /// Whether a rank-symmetric run on demand may simulate one period of its ranks (sim/rank_fold.hpp:
  /// the same times, in a fraction of the events); false simulates every rank (the tests' oracle).
  /// Runs told of each op or transfer (op_observer, observer) are never folded.
  bool fold_ranks = true;
  /// Whether a chain of roots (sched::OpStream::root_after) is launched link by link, each root
  /// when the one before it begins transmitting, where the network model chains(); false launches
  /// every root at the start (the tests' oracle: the same times).
  bool chain_roots = true;
  /// When not null, read every 4,096 events: once it holds true the run ends with Stopped (a front
  /// end that must stay interruptible, e.g. Python on Ctrl-C, sets it from another thread).
  const std::atomic<bool>* stop = nullptr;
  /// When not null, told the ops done every 65,536 events; must outlive the run.
  ProgressObserver* progress = nullptr;
};

/// A run ended early because RunOptions::stop was set; it has no result.
class Stopped : public std::runtime_error {
 public:
  Stopped() : std::runtime_error("engine: stopped before the end of the run") {}
};

/// Simulates `schedule` with rank r on node rank_to_gpu[r], using `network` (made for `topology`).
/// Preconditions (else std::invalid_argument): one distinct node per rank (participants and
/// helpers); participants on GPUs. Local ops (src == dst) take no time of their own.
/// Deterministic.
Result run(const sched::Schedule& schedule, const topo::Topology& topology, std::span<const topo::NodeId> rank_to_gpu,
           net::NetworkModel& network);
/// The same with the costs of `options`. Throws std::invalid_argument when op_delay is neither
/// empty nor one entry per op.
Result run(const sched::Schedule& schedule, const topo::Topology& topology, std::span<const topo::NodeId> rank_to_gpu,
           net::NetworkModel& network, const RunOptions& options);
/// The same for ops produced on demand (sched::OpStream): at most the ops that are ready, in
/// flight, or waiting for a second dependency are held at once. Transfers are numbered by op id for
/// a dense stream and by a reused slot otherwise. Throws std::invalid_argument for op delays with
/// a stream that is not dense (RunOptions::op_costs prices any stream) or for both op_delay and
/// op_costs, std::logic_error when fewer than stream.op_count() ops ran.
Result run(const sched::OpStream& stream, const topo::Topology& topology, std::span<const topo::NodeId> rank_to_gpu,
           net::NetworkModel& network, const RunOptions& options);

}  // namespace collsim::sim
