// collsim simulate: predict one collective on one topology.
#include <algorithm>
#include <optional>

#include <fmt/format.h>

#include "algorithms/registry.hpp"
#include "reports/simulate_report.hpp"
#include "sim/engine.hpp"
#include "sim/summary.hpp"
#include "tools/cli.hpp"
#include "tools/commands.hpp"

namespace collsim::cli {

CLI::App* add_simulate(CLI::App& app, SimulateOptions& o) {
  auto* cmd = app.add_subcommand("simulate", "Predict the time, steps and traffic of one collective on a topology");
  o.topology.add_to(*cmd);
  o.algorithm.add_to(*cmd);
  add_value(*cmd, "--size", o.size,
                  "S in bytes as nccl-tests counts it: 1G, 512K, 1GiB (powers of 1024), 1GB (powers of 1000). "
                  "0 is simulated as pure latency");
  add_value(*cmd, "--ranks", o.ranks, "Use the first N GPUs of the topology (default: all)");
  add_value(*cmd, "--format", o.format, "table (default), json or csv; json/csv print only the document");
  add_value(*cmd, "--network", o.network, "Network model: fifo (one transfer per link and direction at a time)");
  o.verify.add_to(*cmd);
  return cmd;
}

int run_simulate(const SimulateOptions& o, std::ostream& out, std::ostream& err) {
  if (o.format != "table" && o.format != "json" && o.format != "csv")
    throw UsageError(fmt::format("--format: found \"{}\", expected table, json or csv", o.format));
  // Checked here rather than by CLI11, so that a mistyped flag (--siz) is reported as such first.
  if (o.size.empty()) throw UsageError("--size: missing; give the message size, e.g. --size 1G");
  const Bytes size = parse_size_flag("--size", o.size);
  // Name and collective are checked before the topology is read, so their errors come first.
  const auto registry = algo::builtin_registry();
  const algo::AlgorithmInfo& algorithm = registry.find(o.algorithm.collective_kind(), o.algorithm.algorithm);
  const auto replay_options = o.verify.replay_options();

  const topo::Topology topology = o.topology.load();
  const auto gpus = topology.gpus();
  std::uint32_t ranks = static_cast<std::uint32_t>(gpus.size());
  if (!o.ranks.empty()) {
    ranks = parse_count("--ranks", o.ranks, 1, std::numeric_limits<std::uint32_t>::max());
    if (ranks > gpus.size())
      throw UsageError(fmt::format("--ranks: found {}, but topology {} has only {} GPUs", ranks, topology.name(),
                                   gpus.size()));
  }
  std::unique_ptr<net::NetworkModel> network;
  try {
    network = net::make_network_model(o.network, topology);
  } catch (const std::invalid_argument& e) {
    throw UsageError(fmt::format("--network: {}", e.what()));
  }

  const algo::Request request = o.algorithm.request(ranks, size);
  std::vector<topo::NodeId> rank_to_gpu(gpus.begin(), gpus.begin() + ranks);
  for (const auto& id : o.algorithm.ps_nodes()) {
    const auto node = topology.find_node(id);
    if (!node) throw UsageError(fmt::format("--ps-node: topology {} has no node \"{}\"", topology.name(), id));
    if (std::find(rank_to_gpu.begin(), rank_to_gpu.end(), *node) != rank_to_gpu.end())
      throw UsageError(fmt::format("--ps-node: \"{}\" already runs a rank, expected a node outside the ranks", id));
    rank_to_gpu.push_back(*node);
  }
  const sched::Schedule schedule = algorithm.build(request);
  std::optional<validation::ReplayReport> check;
  if (replay_options) check = validation::replay_on_cpu(schedule, *replay_options);
  const sim::Result result = sim::run(schedule, topology, rank_to_gpu, *network);
  const sim::Summary summary = sim::summarize(schedule, topology, rank_to_gpu, result, std::string(network->name()));
  const reports::SimulationView view{summary, result, topology, rank_to_gpu, check ? &*check : nullptr};
  o.topology.default_notice(err);
  if (o.format == "json") {
    out << reports::render_json(view);
  } else if (o.format == "csv") {
    out << reports::render_csv(view);
  } else {
    out << reports::render_table(view);
  }
  if (check && !check->verified) {
    // The document on stdout says so too; this line is for people and for logs of scripts.
    err << "collsim: " << validation::replay_summary(*check) << "\n";
    return kExitCheckFailed;
  }
  return kExitOk;
}

}  // namespace collsim::cli
