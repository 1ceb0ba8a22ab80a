// collsim simulate: predict one collective on one topology.
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
  cmd->add_option("--collective", o.collective,
                  "allreduce (default), reducescatter, allgather, broadcast, reduce, alltoall");
  cmd->add_option("--algorithm", o.algorithm, "Algorithm (default ring; `collsim algorithms` in a later version)");
  cmd->add_option("--size", o.size,
                  "S in bytes as nccl-tests counts it: 1G, 512K, 1GiB (powers of 1024), 1GB (powers of 1000). "
                  "0 is simulated as pure latency")
      ->required();
  cmd->add_option("--ranks", o.ranks, "Use the first N GPUs of the topology (default: all)");
  cmd->add_option("--format", o.format, "table (default), json or csv; json/csv print only the document");
  cmd->add_option("--network", o.network, "Network model: fifo (one transfer per link and direction at a time)");
  return cmd;
}

int run_simulate(const SimulateOptions& o, std::ostream& out, std::ostream& err) {
  if (o.format != "table" && o.format != "json" && o.format != "csv")
    throw UsageError(fmt::format("--format: found \"{}\", expected table, json or csv", o.format));
  const auto collective = sched::parse_collective(o.collective);
  if (!collective)
    throw UsageError(fmt::format("--collective: found \"{}\", expected one of: {}", o.collective,
                                 sched::collective_names_list()));
  Bytes size = 0;
  try {
    size = parse_size(o.size);
  } catch (const UnitError& e) {
    throw UsageError(fmt::format("--size: {}", e.what()));
  }
  const auto registry = algo::builtin_registry();
  const algo::AlgorithmInfo& algorithm = registry.find(*collective, o.algorithm);

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

  const sched::Schedule schedule = algorithm.build(algo::Request{*collective, ranks, size});
  const auto rank_to_gpu = gpus.first(ranks);
  const sim::Result result = sim::run(schedule, topology, rank_to_gpu, *network);
  const sim::Summary summary = sim::summarize(schedule, topology, rank_to_gpu, result, std::string(network->name()));
  const reports::SimulationView view{summary, result, topology, rank_to_gpu};
  o.topology.default_notice(err);
  if (o.format == "json") {
    out << reports::render_json(view);
  } else if (o.format == "csv") {
    out << reports::render_csv(view);
  } else {
    out << reports::render_table(view);
  }
  return kExitOk;
}

}  // namespace collsim::cli
