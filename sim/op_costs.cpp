#include "sim/op_costs.hpp"

#include <algorithm>

#include "topologies/gpu_models.hpp"
#include "topologies/routes.hpp"

namespace collsim::sim {

bool CostSettings::ideal() const {
  return !protocol && !reduction_cost &&
         std::all_of(bandwidth_factor.begin(), bandwidth_factor.end(), [](double f) { return f == 1.0; });
}

bool CostSettings::per_op() const {
  return reduction_cost || std::any_of(step_latency.begin(), step_latency.end(), [](Time t) { return t > Time{0}; });
}

CostSettings resolve_costs(const topo::ModelParams& params, std::optional<topo::Protocol> protocol,
                           topo::AlgoFamily family, const topo::Topology& topology) {
  CostSettings c;
  c.protocol = protocol;
  c.family = family;
  for (std::size_t k = 0; k < topo::kLinkClasses; ++k) {
    const auto cls = static_cast<topo::LinkClass>(k);
    c.bandwidth_factor[k] = params.link_efficiency_or_default(cls) *
                            (protocol ? params.protocol_efficiency_or_default(*protocol) : 1.0);
    c.step_latency[k] = protocol ? params.step_latency_or_default(family, cls, *protocol) : Time{0};
  }
  c.base_latency = protocol ? params.base_latency_or_default(family, *protocol) : Time{0};
  const auto nodes = topology.nodes();
  const bool explicit_reduce =
      std::any_of(nodes.begin(), nodes.end(), [](const topo::Node& n) { return n.reduce_bandwidth.bits_per_s > 0; });
  c.reduction_cost = params.reduction_cost.value_or(explicit_reduce);
  return c;
}

std::optional<Bandwidth> reduce_bandwidth(const topo::Topology& topology, topo::NodeId node) {
  const topo::Node& n = topology.node(node);
  if (n.reduce_bandwidth.bits_per_s > 0) return n.reduce_bandwidth;
  return topo::default_reduce_bandwidth(n.model);
}

OpCostModel::OpCostModel(const topo::Topology& topology, std::span<const topo::NodeId> rank_to_node,
                         const CostSettings& costs)
    : costs_(costs) {
  steps_ = std::any_of(costs.step_latency.begin(), costs.step_latency.end(), [](Time t) { return t > Time{0}; });
  reductions_ = costs.reduction_cost;
  if (reductions_) {
    reduce_bw_.resize(rank_to_node.size());
    for (std::size_t r = 0; r < rank_to_node.size(); ++r) reduce_bw_[r] = reduce_bandwidth(topology, rank_to_node[r]);
  }
}

Time OpCostModel::delay(sched::Rank src, sched::Rank dst, Bytes bytes, bool reduce, const topo::Route* route) const {
  Time d{0};
  if (src != dst && steps_ && route != nullptr)
    d += costs_.step_latency[static_cast<std::size_t>(route->link_class)];
  if (reduce && reductions_ && dst < reduce_bw_.size() && reduce_bw_[dst]) d += transfer_time(bytes, *reduce_bw_[dst]);
  return d;
}

}  // namespace collsim::sim
