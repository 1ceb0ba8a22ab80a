// What a protocol and the GPUs add to the network's times: a fixed cost per collective, a cost per
// step by link class, bandwidth efficiency per link, and the time a GPU takes to reduce what it
// received (DESIGN.md, "The engine and the network model").
//
// resolve_costs turns a topology's parameters (topologies/model_params.hpp) into the numbers a
// run uses; OpCostModel prices each op for the engine (engine.hpp, RunOptions). With no
// protocol and no reduction cost, nothing is added and the run is the ideal α-β model.
#pragma once

#include <optional>
#include <span>
#include <vector>

#include "sim/schedule/schedule.hpp"
#include "topologies/model_params.hpp"
#include "topologies/routes.hpp"
#include "topologies/topology.hpp"

namespace collsim::sim {

/// The costs one run applies.
struct CostSettings {
  /// The protocol in use; nullopt: none (no base or step latency, protocol efficiency 1).
  std::optional<topo::Protocol> protocol;
  topo::AlgoFamily family = topo::AlgoFamily::Ring;
  /// By link class: what the link keeps of its bandwidth (link efficiency x protocol efficiency).
  topo::PerClass<double> bandwidth_factor{1.0, 1.0, 1.0};
  /// By link class of an op's route: the cost of one step (0 without a protocol).
  topo::PerClass<Time> step_latency{};
  /// Paid once, before the first op (0 without a protocol).
  Time base_latency{0};
  /// Whether a reduce op costs bytes / the receiving GPU's reduction bandwidth.
  bool reduction_cost = false;

  /// True when the run is the ideal α-β model (nothing to add, no bandwidth lost).
  [[nodiscard]] bool ideal() const;
  /// True when ops may cost time of their own (a step latency or the reduction cost), which
  /// OpCostModel then prices per op; false when it would give none.
  [[nodiscard]] bool per_op() const;
};

/// The costs for `protocol` (nullopt: none) and `family` under `params`. Reduction costs apply
/// when params.reduction_cost says so, else when some GPU of `topology` gives its
/// reduce_bandwidth explicitly.
CostSettings resolve_costs(const topo::ModelParams& params, std::optional<topo::Protocol> protocol,
                           topo::AlgoFamily family, const topo::Topology& topology);


/// The reduction bandwidth of GPU `node`: its reduce_bandwidth, else the default for its model
/// (gpu_models.hpp); nullopt when neither is known (then reductions there cost nothing).
std::optional<Bandwidth> reduce_bandwidth(const topo::Topology& topology, topo::NodeId node);

/// The time an op costs of its own, once its data has arrived (a local op: from its start): a
/// transfer pays the step latency of its route's class, and a reduce (a transfer that adds, or a
/// local add) pays its bytes / the receiving GPU's reduction bandwidth, rounded up to the
/// picosecond. The engine prices each op with it as the op starts (RunOptions::op_costs), for
/// materialised schedules and ops generated on demand alike.
class OpCostModel {
 public:
  /// Rank r runs on rank_to_node[r] of `topology`; `costs` must outlive the model.
  OpCostModel(const topo::Topology& topology, std::span<const topo::NodeId> rank_to_node, const CostSettings& costs);
  /// The delay of an op from rank `src` to rank `dst` (equal: a local op) of `bytes`, which adds
  /// into the receiver's buffer when `reduce`; `route` is the transfer's route (unused for a local
  /// op, which may pass null).
  [[nodiscard]] Time delay(sched::Rank src, sched::Rank dst, Bytes bytes, bool reduce, const topo::Route* route) const;
  /// True when some op may cost time of its own (CostSettings::per_op).
  [[nodiscard]] bool any() const noexcept { return steps_ || reductions_; }

 private:
  const CostSettings& costs_;
  bool steps_ = false, reductions_ = false;
  std::vector<std::optional<Bandwidth>> reduce_bw_;  // by rank, when reductions cost
};

}  // namespace collsim::sim
