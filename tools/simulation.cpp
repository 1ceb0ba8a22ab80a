#include "tools/simulation.hpp"

#include <algorithm>
#include <memory>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "algorithms/closed_form.hpp"
#include "tools/cli.hpp"
#include "topologies/hosts.hpp"
#include "topologies/routes.hpp"

namespace collsim::cli {
namespace {

// The fabric as the closed forms see it: the route between the first two ranks, and whether a GPU
// reaches its peers through one port (a switch) or through a link per peer.
algo::AlphaBeta fabric_alpha_beta(const topo::Topology& topology, std::span<const topo::NodeId> ranks) {
  if (ranks.size() < 2) return {};
  topo::RouteCache routes(topology);
  const topo::Route& r = routes.get(ranks[0], ranks[1]);
  std::size_t ports = 0;
  for (const auto& l : topology.links()) ports += l.from == ranks[0] ? 1 : 0;
  return algo::AlphaBeta{r.latency, r.bottleneck, ports == 1};
}

// True when the request's ranks run on more than one host.
bool on_several_hosts(const algo::Request& request) {
  return std::any_of(request.hosts.begin(), request.hosts.end(), [](std::uint32_t h) { return h > 0; });
}

}  // namespace

void place_helpers(const topo::Topology& topology, const std::vector<std::string>& ids,
                   std::vector<topo::NodeId>& rank_to_node) {
  for (const auto& id : ids) {
    const auto node = topology.find_node(id);
    if (!node) throw UsageError(fmt::format("--ps-node: topology {} has no node \"{}\"", topology.name(), id));
    if (std::find(rank_to_node.begin(), rank_to_node.end(), *node) != rank_to_node.end())
      throw UsageError(fmt::format("--ps-node: \"{}\" already runs a rank, expected a node outside the ranks", id));
    rank_to_node.push_back(*node);
  }
}

Plan build_plan(const algo::AlgorithmInfo& algorithm, const topo::Topology& topology, std::uint32_t ranks,
                const AlgorithmOptions& flags, Bytes size) {
  const auto gpus = topology.gpus();
  algo::Request request = flags.request(ranks, size);
  std::vector<topo::NodeId> rank_to_node(gpus.begin(), gpus.begin() + ranks);
  // Algorithms never see the topology; the hierarchical one learns which ranks share a host here.
  request.hosts = topo::host_indices(topology, rank_to_node);
  place_helpers(topology, flags.ps_nodes(), rank_to_node);
  sched::Schedule schedule = algorithm.build(request);
  return Plan{std::move(schedule), std::move(rank_to_node), std::move(request)};
}

void check_network_name(std::string_view name) {
  const auto names = net::network_model_names();
  if (std::find(names.begin(), names.end(), name) == names.end())
    throw UsageError(fmt::format("--network: unknown network model \"{}\", expected one of: {}", name,
                                 fmt::join(names, ", ")));
}

Simulated simulate_plan(const Plan& plan, const topo::Topology& topology, std::string_view network_name,
                        net::TransferObserver* observer) {
  std::unique_ptr<net::NetworkModel> network;
  try {
    network = net::make_network_model(network_name, topology);
  } catch (const std::invalid_argument& e) {
    throw UsageError(fmt::format("--network: {}", e.what()));
  }
  sim::Result result = sim::run(plan.schedule, topology, plan.rank_to_node, *network, observer);
  sim::Summary summary =
      sim::summarize(plan.schedule, topology, plan.rank_to_node, result, std::string(network->name()));
  // The closed forms see one uniform fabric (one α, one B); ranks on several hosts have two, the
  // host's and the network's, so a single-fabric form would be wrong there and none is given.
  if (plan.request && !on_several_hosts(*plan.request))
    summary.closed_form = algo::closed_form_time(plan.schedule.algorithm, *plan.request,
                                                 fabric_alpha_beta(topology, plan.rank_to_node));
  return Simulated{std::move(result), std::move(summary)};
}

}  // namespace collsim::cli
