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

topo::LinkClass route_class(const topo::Topology& topology, std::span<const topo::LinkId> links) {
  auto worst = topo::LinkClass::NvLink;
  for (topo::LinkId l : links) worst = std::max(worst, topo::link_class(topology.link(l).type));
  return worst;
}

std::optional<Bandwidth> reduce_bandwidth(const topo::Topology& topology, topo::NodeId node) {
  const topo::Node& n = topology.node(node);
  if (n.reduce_bandwidth.bits_per_s > 0) return n.reduce_bandwidth;
  return topo::default_reduce_bandwidth(n.model);
}

std::vector<Time> op_delays(const sched::Schedule& schedule, const topo::Topology& topology,
                            std::span<const topo::NodeId> rank_to_node, const CostSettings& costs,
                            topo::PathTable* paths) {
  if (!costs.per_op()) return {};
  const bool steps = std::any_of(costs.step_latency.begin(), costs.step_latency.end(), [](Time t) { return t > Time{0}; });
  std::vector<std::optional<Bandwidth>> reduce_bw(rank_to_node.size());
  if (costs.reduction_cost)
    for (std::size_t r = 0; r < rank_to_node.size(); ++r) reduce_bw[r] = reduce_bandwidth(topology, rank_to_node[r]);
  topo::RouteCache routes(topology, paths);
  std::vector<Time> delay(schedule.ops.size(), Time{0});
  bool any = false;
  for (sched::OpId id = 0; id < schedule.ops.size(); ++id) {
    const sched::Op& op = schedule.ops[id];
    Time d{0};
    if (op.src != op.dst && steps) {
      const topo::Route& route = routes.get(rank_to_node[op.src], rank_to_node[op.dst], op.channel);
      d += costs.step_latency[static_cast<std::size_t>(route_class(topology, route.links))];
    }
    if (op.combine == sched::Combine::Reduce && reduce_bw[op.dst]) d += transfer_time(schedule.op_bytes(id), *reduce_bw[op.dst]);
    delay[id] = d;
    any = any || d > Time{0};
  }
  if (!any) delay.clear();
  return delay;
}

}  // namespace collsim::sim
