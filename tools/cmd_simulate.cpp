// collsim simulate: predict one collective on one topology, for a built-in algorithm or a
// schedule file; optionally save the schedule as JSON.
#include <algorithm>
#include <array>
#include <limits>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "algorithms/channels.hpp"
#include "algorithms/closed_form.hpp"
#include "algorithms/registry.hpp"
#include "reports/simulate_report.hpp"
#include "sim/engine.hpp"
#include "sim/op_costs.hpp"
#include "sim/schedule/json_io.hpp"
#include "sim/schedule/slicing.hpp"
#include "sim/summary.hpp"
#include "tools/atomic_file.hpp"
#include "tools/cli.hpp"
#include "tools/commands.hpp"
#include "tools/fidelity_options.hpp"
#include "topologies/hosts.hpp"
#include "topologies/routes.hpp"
#include "validation/cpu_replay.hpp"
#include "validation/schedule_file.hpp"

namespace collsim::cli {
namespace {

// The fabric as the closed forms see it: the route between the first two ranks, and whether a GPU
// reaches its peers through one port (a switch) or through a link per peer.
// `topology` is the one the run uses (bandwidths after the protocol's efficiency); a step also
// pays the protocol's step latency for the route's class.
algo::AlphaBeta fabric_alpha_beta(const topo::Topology& topology, std::span<const topo::NodeId> ranks,
                                  const sim::CostSettings& costs) {
  if (ranks.size() < 2) return {};
  topo::RouteCache routes(topology);
  const topo::Route& r = routes.get(ranks[0], ranks[1]);
  std::size_t ports = 0;
  for (const auto& l : topology.links()) ports += l.from == ranks[0] ? 1 : 0;
  const Time step = costs.step_latency[static_cast<std::size_t>(sim::route_class(topology, r.links))];
  return algo::AlphaBeta{r.latency + step, r.bottleneck, ports == 1};
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
  Fidelity fidelity;
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

// True when the request's ranks run on more than one host.
bool on_several_hosts(const algo::Request& request) {
  return std::any_of(request.hosts.begin(), request.hosts.end(), [](std::uint32_t h) { return h > 0; });
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
  std::vector<topo::NodeId> rank_to_node(gpus.begin(), gpus.begin() + ranks);
  // Algorithms never see the topology; the hierarchical one learns which ranks share a host here.
  request.hosts = topo::host_indices(topology, rank_to_node);
  Fidelity fidelity = resolve_fidelity(o.fidelity, topology, rank_to_node, algorithm.name, request.collective, size,
                                       request);
  place_helpers(topology, o.algorithm.ps_nodes(), rank_to_node);
  sched::Schedule schedule = algo::build_with_channels(algorithm, request, fidelity.channels);
  return Plan{std::move(topology), std::move(schedule), std::move(rank_to_node), request, std::move(fidelity)};
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
  Fidelity fidelity = resolve_fidelity(o.fidelity, topology, rank_to_node, schedule.algorithm, schedule.collective,
                                       schedule.size, std::nullopt);
  place_helpers(topology, helpers, rank_to_node);
  return Plan{std::move(topology), std::move(schedule), std::move(rank_to_node), std::nullopt, std::move(fidelity)};
}

}  // namespace

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
  o.fidelity.add_to(*cmd);
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
  const std::string model = o.fidelity.model_name();
  const Plan plan = o.schedule.empty() ? build_plan(o) : load_plan(o);
  const Fidelity& fidelity = plan.fidelity;
  // The schedule that runs: the plan's, its chunks cut into slices when slicing is on. A size whose
  // bytes alone pass the clock's end on the fastest link is refused before it is cut up.
  if (fidelity.slice > 0) {
    Bandwidth fastest;
    for (const auto& l : plan.topology.links()) fastest = std::max(fastest, l.bandwidth);
    (void)transfer_time(plan.schedule.size, fastest);
  }
  // (Not a copy when unsliced: at N = 4096 a schedule is tens of millions of ops.)
  std::optional<sched::Schedule> sliced;
  if (fidelity.slice > 0) sliced = sched::slice_schedule(plan.schedule, fidelity.slice);
  const sched::Schedule& schedule = sliced ? *sliced : plan.schedule;
  // The network sees each link at what the protocol leaves of its bandwidth; reports keep the line rates.
  const bool full_rate = std::all_of(fidelity.costs.bandwidth_factor.begin(), fidelity.costs.bandwidth_factor.end(),
                                     [](double f) { return f == 1.0; });
  std::optional<topo::Topology> scaled;
  if (!full_rate) scaled = plan.topology.with_bandwidth_factors(fidelity.costs.bandwidth_factor);
  const topo::Topology& run_topology = scaled ? *scaled : plan.topology;
  std::unique_ptr<net::NetworkModel> network;
  try {
    network = net::make_network_model(o.network, run_topology);
  } catch (const std::invalid_argument& e) {
    throw UsageError(fmt::format("--network: {}", e.what()));
  }
  const auto write_schedule = [&](std::ostream& s) { sched::write_schedule_json(schedule, s); };
  if (schedule_to_stdout) {
    write_schedule(out);
    o.topology.default_notice(err);
    return kExitOk;
  }

  std::optional<validation::ReplayReport> check;
  if (replay_options) check = validation::replay_on_cpu(schedule, *replay_options);
  sim::RunOptions run_options;
  run_options.start = fidelity.costs.base_latency;
  run_options.op_delay = sim::op_delays(schedule, plan.topology, plan.rank_to_node, fidelity.costs);
  const sim::Result result = sim::run(schedule, run_topology, plan.rank_to_node, *network, run_options);
  sim::Summary summary = sim::summarize(schedule, plan.topology, plan.rank_to_node, result, std::string(network->name()));
  // The closed forms see one uniform fabric (one α, one B); ranks on several hosts have two, the
  // host's and the network's, so a single-fabric form would be wrong there and none is given.
  // They take the protocol's base and step latency and efficiency, not channels or slices.
  if (plan.request && !on_several_hosts(*plan.request))
    if (const auto form = algo::closed_form_time(plan.schedule.algorithm, *plan.request,
                                                 fabric_alpha_beta(run_topology, plan.rank_to_node, fidelity.costs)))
      summary.closed_form = checked_add(*form, *form > Time{0} ? fidelity.costs.base_latency : Time{0});
  summary.protocol = fidelity.protocol ? std::string(topo::protocol_name(*fidelity.protocol)) : "none";
  summary.protocol_source = fidelity.protocol_auto
                                ? fmt::format("{}: auto, picked for this size by NCCL's cost model", fidelity.protocol_source)
                                : fidelity.protocol_source;
  summary.channels = fidelity.channels;
  summary.channels_source = fidelity.channels_source;
  summary.slice = fidelity.slice;
  summary.slice_source = fidelity.slice_source;
  summary.model = model;
  if (model == "analytical") summary.model_time = summary.closed_form;
  if (model == "nccl")
    summary.model_time = nccl_model_time(fidelity, plan.topology,
                                         std::span(plan.rank_to_node).first(plan.schedule.nranks),
                                         plan.schedule.algorithm, plan.schedule.collective, plan.schedule.size);
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
