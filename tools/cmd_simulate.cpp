// collsim simulate: predict one collective on one topology, for a built-in algorithm or a
// schedule file; optionally save the schedule as JSON.
#include <algorithm>
#include <array>
#include <limits>
#include <map>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "algorithms/closed_form.hpp"
#include "algorithms/registry.hpp"
#include "reports/simulate_report.hpp"
#include "sim/engine.hpp"
#include "sim/schedule/json_io.hpp"
#include "sim/summary.hpp"
#include "tools/atomic_file.hpp"
#include "tools/cli.hpp"
#include "tools/commands.hpp"
#include "topologies/hosts.hpp"
#include "topologies/routes.hpp"
#include "validation/cpu_replay.hpp"
#include "validation/schedule_file.hpp"

namespace collsim::cli {
namespace {

// The fabric as the closed forms see it: the route between the first two ranks, whether a GPU
// reaches its peers through one port (a switch) or through a link per peer, and, when the ranks
// span hosts, the route from rank 0 to the same local rank of the next host and how many of the
// first host's ranks share one link on their way there (its L on --nodes K: one uplink per host).
algo::AlphaBeta fabric_alpha_beta(const topo::Topology& topology, std::span<const topo::NodeId> ranks,
                                  const algo::Request& request) {
  if (ranks.size() < 2) return {};
  topo::RouteCache routes(topology);
  const topo::Route& r = routes.get(ranks[0], ranks[1]);
  std::size_t ports = 0;
  for (const auto& l : topology.links()) ports += l.from == ranks[0] ? 1 : 0;
  algo::AlphaBeta fabric{r.latency, r.bottleneck, ports == 1};
  // One link per peer only when rank 0 reaches every other rank in one hop (fully connected).
  for (std::size_t q = 1; q < ranks.size() && ports != 1 && !fabric.neighbours_only; ++q)
    fabric.neighbours_only = routes.get(ranks[0], ranks[q]).links.size() != 1;
  const auto& hosts = request.hosts;
  std::size_t local = 0;  // ranks on the first host, consecutive from rank 0
  while (local < hosts.size() && hosts[local] == hosts[0]) ++local;
  if (local == 0 || local >= hosts.size() || 2 * local > ranks.size()) return fabric;
  const topo::Route& net = routes.get(ranks[0], ranks[local]);
  std::map<topo::LinkId, std::uint32_t> users;
  std::uint32_t sharing = 1;
  for (std::size_t l = 0; l < local; ++l)
    for (topo::LinkId id : routes.get(ranks[l], ranks[local + l]).links) sharing = std::max(sharing, ++users[id]);
  fabric.inter_host = algo::HostNetwork{net.latency, net.bottleneck, sharing};
  return fabric;
}

// Flags that describe what to build; a schedule file already says all of it.
constexpr std::array kBuildFlags{"--collective", "--algorithm",  "--size",     "--ranks",
                                 "--root",       "--chunk-size", "--ps-shards"};

// What to simulate, and where each rank runs.
struct Plan {
  topo::Topology topology;
  sched::Schedule schedule;
  std::vector<topo::NodeId> rank_to_node;
  std::optional<algo::Request> request;  // what a built-in algorithm was asked for (for its closed form)
};

// Runs ranks nranks.. (helpers, such as parameter servers on a CPU) on the nodes named by --ps-node.
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

// A built-in algorithm, from the flags.
Plan build_plan(const SimulateOptions& o) {
  // Checked here rather than by CLI11, so that a mistyped flag (--siz) is reported as such first.
  if (o.size.empty()) throw UsageError("--size: missing; give the message size, e.g. --size 1G");
  const Bytes size = parse_size_flag("--size", o.size);
  // Name and collective are checked before the topology is read, so their errors come first.
  const auto registry = algo::builtin_registry();
  const algo::AlgorithmInfo& algorithm = registry.find(o.algorithm.collective_kind(), o.algorithm.algorithm);

  topo::Topology topology = o.topology.load();
  const auto gpus = topology.gpus();
  std::uint32_t ranks = static_cast<std::uint32_t>(gpus.size());
  if (!o.ranks.empty()) {
    ranks = parse_count("--ranks", o.ranks, 1, std::numeric_limits<std::uint32_t>::max());
    if (ranks > gpus.size())
      throw UsageError(
          fmt::format("--ranks: found {}, but topology {} has only {} GPUs", ranks, topology.name(), gpus.size()));
  }
  algo::Request request = o.algorithm.request(ranks, size);
  request.element_size = o.verify.element_size();
  std::vector<topo::NodeId> rank_to_node(gpus.begin(), gpus.begin() + ranks);
  // Algorithms never see the topology; the hierarchical one learns which ranks share a host here.
  request.hosts = topo::host_indices(topology, rank_to_node);
  place_helpers(topology, o.algorithm.ps_nodes(), rank_to_node);
  sched::Schedule schedule = algorithm.build(request);
  return Plan{std::move(topology), std::move(schedule), std::move(rank_to_node), request};
}

// A schedule file (--schedule): it gives the collective, algorithm, ranks and size.
Plan load_plan(const SimulateOptions& o) {
  for (const char* flag : kBuildFlags)
    if (o.was_given(flag))
      throw UsageError(
          fmt::format("{}: not allowed with --schedule, which takes the collective, algorithm, ranks "
                      "and size from the file",
                      flag));
  if (o.schedule == "-")
    throw UsageError(
        "--schedule: found \"-\", expected a file (reading a schedule from standard input is not "
        "supported)");
  sched::Schedule schedule = validation::load_verified_schedule(o.schedule);

  topo::Topology topology = o.topology.load();
  const auto gpus = topology.gpus();
  if (schedule.nranks > gpus.size())
    throw UsageError(fmt::format("--schedule: {} has {} ranks, but topology {} has only {} GPUs; expected at most {}",
                                 o.schedule, schedule.nranks, topology.name(), gpus.size(), gpus.size()));
  const auto helpers = o.algorithm.ps_nodes();
  if (helpers.size() != schedule.helpers)
    throw UsageError(
        fmt::format("--ps-node: found {} node(s), but {} has {} helper rank(s); expected one node id per "
                    "helper (e.g. --ps-node cpu0)",
                    helpers.size(), o.schedule, schedule.helpers));
  std::vector<topo::NodeId> rank_to_node(gpus.begin(), gpus.begin() + schedule.nranks);
  place_helpers(topology, helpers, rank_to_node);
  return Plan{std::move(topology), std::move(schedule), std::move(rank_to_node), std::nullopt};
}

// The network model --network names.
std::unique_ptr<net::NetworkModel> make_network(const SimulateOptions& o, const topo::Topology& topology) {
  try {
    return net::make_network_model(o.network, topology);
  } catch (const std::invalid_argument& e) {
    throw UsageError(fmt::format("--network: {}", e.what()));
  }
}

// The summary of a run of `plan`, with the algorithm's closed form where it has one.
sim::Summary summarize_plan(const Plan& plan, const sim::Result& result, std::string_view network) {
  sim::Summary summary = sim::summarize(plan.schedule, plan.topology, plan.rank_to_node, result, std::string(network));
  // Ranks on several hosts see two fabrics (the host's and the network's); closed_form_time gives
  // a form there only for the algorithm built for it (hierarchical).
  if (plan.request)
    summary.closed_form = algo::closed_form_time(plan.schedule.algorithm, *plan.request,
                                                 fabric_alpha_beta(plan.topology, plan.rank_to_node, *plan.request));
  return summary;
}

}  // namespace

sim::Summary simulate_summary(const SimulateOptions& o) {
  const Plan plan = build_plan(o);
  const std::unique_ptr<net::NetworkModel> network = make_network(o, plan.topology);
  const sim::Result result = sim::run(plan.schedule, plan.topology, plan.rank_to_node, *network);
  return summarize_plan(plan, result, network->name());
}

CLI::App* add_simulate(CLI::App& app, SimulateOptions& o) {
  auto* cmd = app.add_subcommand("simulate", "Predict the time, steps and traffic of one collective on a topology");
  o.topology.add_to(*cmd);
  o.algorithm.add_to(*cmd);
  add_value(*cmd, "--size", o.size,
            "S in bytes as nccl-tests counts it: 1G, 512K, 1GiB (powers of 1024), 1GB (powers of 1000). "
            "0 is simulated as pure latency");
  add_value(*cmd, "--ranks", o.ranks, "Use the first N GPUs of the topology (default: all)");
  add_value(*cmd, "--format", o.format, "table (default), json or csv; json/csv print only the document");
  add_value(*cmd, "--network", o.network,
            "Network model: flow (default; links shared max-min fairly) or fifo (one transfer per link and "
            "direction at a time)");
  o.verify.add_to(*cmd);
  add_value(*cmd, "--schedule", o.schedule,
            "Simulate the schedule in this JSON file (sim/schedule/schedule.schema.json), which gives the "
            "collective, algorithm, ranks and size; it is verified before it runs. Helper ranks run on --ps-node");
  add_value(*cmd, "--save-schedule", o.save_schedule,
            "Write the schedule as JSON to this file (atomically), or to standard output with - (then nothing "
            "else is printed there and nothing is simulated)");
  // Flags with defaults cannot tell "given" from "default" by value; CLI11 counts them.
  cmd->callback([cmd, &o] {
    for (const char* flag : kBuildFlags)
      if (cmd->count(flag) > 0) o.given.emplace_back(flag);
    if (cmd->count("--format") > 0) o.given.emplace_back("--format");
  });
  return cmd;
}

int run_simulate(const SimulateOptions& o, std::ostream& out, std::ostream& err) {
  if (o.format != "table" && o.format != "json" && o.format != "csv")
    throw UsageError(fmt::format("--format: found \"{}\", expected table, json or csv", o.format));
  const auto replay_options = o.verify.replay_options();  // flag errors before any work
  const bool schedule_to_stdout = o.save_schedule == "-";
  if (schedule_to_stdout && o.was_given("--format"))
    throw UsageError(
        "--format: no report is printed when --save-schedule - writes the schedule to standard output; "
        "expected one or the other");
  const Plan plan = o.schedule.empty() ? build_plan(o) : load_plan(o);
  const std::unique_ptr<net::NetworkModel> network = make_network(o, plan.topology);
  const auto write_schedule = [&](std::ostream& s) { sched::write_schedule_json(plan.schedule, s); };
  if (schedule_to_stdout) {
    write_schedule(out);
    o.topology.default_notice(err);
    return kExitOk;
  }

  std::optional<validation::ReplayReport> check;
  if (replay_options) check = validation::replay_on_cpu(plan.schedule, *replay_options);
  const sim::Result result = sim::run(plan.schedule, plan.topology, plan.rank_to_node, *network);
  const sim::Summary summary = summarize_plan(plan, result, network->name());
  // Saved once the run has succeeded, so a failed command leaves no new file behind.
  if (!o.save_schedule.empty()) write_file_atomically(o.save_schedule, write_schedule);
  const reports::SimulationView view{summary, result, plan.topology, plan.rank_to_node, check ? &*check : nullptr};
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
