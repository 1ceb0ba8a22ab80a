// collsim simulate: predict one collective on one topology, for a built-in algorithm or a
// schedule file; optionally save the schedule as JSON.
#include <algorithm>
#include <array>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>

#include <fmt/format.h>

#include "algorithms/registry.hpp"
#include "reports/chrome_trace.hpp"
#include "reports/simulate_report.hpp"
#include "sim/engine.hpp"
#include "sim/schedule/json_io.hpp"
#include "sim/summary.hpp"
#include "tools/atomic_file.hpp"
#include "tools/cli.hpp"
#include "tools/commands.hpp"
#include "tools/fidelity_options.hpp"
#include "tools/simulation.hpp"
#include "validation/cpu_replay.hpp"
#include "validation/schedule_file.hpp"

namespace collsim::cli {
namespace {

// Flags that describe what to build; a schedule file already says all of it.
constexpr std::array kBuildFlags{"--collective", "--algorithm",  "--size",     "--ranks",
                                 "--root",       "--chunk-size", "--ps-shards"};

// What to simulate, and the topology it runs on.
struct Loaded {
  topo::Topology topology;
  Plan plan;
};

// Runs `f`, naming where the size came from (--size, or the schedule file) in a UnitError it
// throws: the clock overflows on the size, and the message alone does not say which input it was.
template <typename F>
auto naming_size(const SimulateOptions& o, F f) {
  try {
    return f();
  } catch (const ClockOverflowError& e) {  // kept apart: compare reports such a row and goes on
    throw ClockOverflowError(fmt::format("{}: {}", o.schedule.empty() ? "--size " + o.size : o.schedule, e.what()));
  } catch (const UnitError& e) {
    throw UnitError(fmt::format("{}: {}", o.schedule.empty() ? "--size " + o.size : o.schedule, e.what()));
  }
}

// A timeline holds every transfer's slices in memory until it is written: about 8 KiB per op
// (ring all-reduce on 512 GPUs, 523,264 ops: 4.0 GiB peak, a 394 MB file). Past this many ops it
// would meet the OOM killer on a workstation instead of giving an error.
constexpr std::size_t kMaxTraceOps = std::size_t{1} << 20;

void check_trace_size(const SimulateOptions& o, const Plan& plan) {
  if (o.trace.empty() || plan.schedule.ops.size() <= kMaxTraceOps) return;
  throw UsageError(fmt::format("--trace: a timeline of {} ops needs about {} GiB of memory; expected at most {} ops "
                               "(fewer ranks, or a larger --slice or --chunk-size)",
                               plan.schedule.ops.size(), (plan.schedule.ops.size() * 8192) >> 30, kMaxTraceOps));
}

// A built-in algorithm, from the flags.
Loaded build_from_flags(const SimulateOptions& o) {
  // Checked here rather than by CLI11, so that a mistyped flag (--siz) is reported as such first.
  if (o.size.empty()) throw UsageError("--size: missing; give the message size, e.g. --size 1G");
  const Bytes size = parse_size_flag("--size", o.size);
  // Name and collective are checked before the topology is read, so their errors come first.
  const auto registry = algo::builtin_registry();
  const algo::AlgorithmInfo& algorithm = registry.find(o.algorithm.collective_kind(), o.algorithm.algorithm);
  o.algorithm.check_used_by(algorithm);

  topo::Topology topology = o.topology.load();
  const auto gpus = topology.gpus();
  std::uint32_t ranks = static_cast<std::uint32_t>(gpus.size());
  if (!o.ranks.empty()) {
    ranks = parse_count("--ranks", o.ranks, 1, std::numeric_limits<std::uint32_t>::max());
    if (ranks > gpus.size())
      throw UsageError(
          fmt::format("--ranks: found {}, but topology {} has only {} GPUs", ranks, topology.name(), gpus.size()));
  }
  // The ops are materialised only for what reads them; otherwise they are generated as they run.
  const Ops ops = o.verify.verify || !o.save_schedule.empty() || !o.trace.empty() ? Ops::Materialised : Ops::OnDemand;
  Plan plan = naming_size(o, [&] {
    try {
      return build_plan(algorithm, topology, ranks, o.algorithm, size, o.verify.element_size(), o.fidelity, ops);
    } catch (const std::length_error& e) {
      if (ops == Ops::OnDemand || algorithm.stream == nullptr) throw;
      const char* flag = o.verify.verify ? "--verify" : !o.save_schedule.empty() ? "--save-schedule" : "--trace";
      throw UsageError(fmt::format("{}: needs every op of the schedule in memory, and {}", flag, e.what()));
    }
  });
  check_trace_size(o, plan);
  return Loaded{std::move(topology), std::move(plan)};
}

// A schedule file (--schedule): it gives the collective, algorithm, ranks and size.
Loaded load_from_file(const SimulateOptions& o) {
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
  sched::Schedule schedule;
  try {
    schedule = validation::load_verified_schedule(o.schedule);
  } catch (const sched::ScheduleFileError& e) {
    throw sched::ScheduleFileError(fmt::format("--schedule: {}", e.what()));
  }

  topo::Topology topology = o.topology.load();
  const auto gpus = topology.gpus();
  if (schedule.header.nranks > gpus.size())
    throw UsageError(fmt::format("--schedule: {} has {} ranks, but topology {} has only {} GPUs; expected at most {}",
                                 o.schedule, schedule.header.nranks, topology.name(), gpus.size(), gpus.size()));
  const auto helpers = o.algorithm.ps_nodes();
  if (helpers.size() != schedule.header.helpers)
    throw UsageError(
        fmt::format("--ps-node: found {} node(s), but {} has {} helper rank(s); expected one node id per "
                    "helper (e.g. --ps-node cpu0)",
                    helpers.size(), o.schedule, schedule.header.helpers));
  std::vector<topo::NodeId> rank_to_node(gpus.begin(), gpus.begin() + schedule.header.nranks);
  Fidelity fidelity = resolve_fidelity(o.fidelity, topology, rank_to_node, schedule.algorithm,
                                       schedule.header.collective, schedule.header.size, std::nullopt);
  place_helpers(topology, helpers, rank_to_node);
  Plan plan{std::move(schedule), std::move(rank_to_node), std::nullopt, std::move(fidelity)};
  naming_size(o, [&] { apply_slicing(plan, topology); });
  check_trace_size(o, plan);
  return Loaded{std::move(topology), std::move(plan)};
}

}  // namespace

sim::Summary simulate_summary(const SimulateOptions& o) {
  const Loaded loaded = build_from_flags(o);
  return simulate_plan(loaded.plan, loaded.topology, o.network, o.fidelity.model_name()).summary;
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
  o.fidelity.add_to(*cmd);
  o.verify.add_to(*cmd);
  add_value(*cmd, "--schedule", o.schedule,
            "Simulate the schedule in this JSON file (sim/schedule/schedule.schema.json), which gives the "
            "collective, algorithm, ranks and size; it is verified before it runs. Helper ranks run on --ps-node");
  add_value(*cmd, "--trace", o.trace,
            "Write a timeline of the run to this file in the Chrome trace event format (open it in "
            "https://ui.perfetto.dev or chrome://tracing): a track per link and per rank, a slice per transfer");
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
  // Before the simulation, which can take minutes: a path that cannot be written fails now.
  if (!o.trace.empty()) check_output_path("--trace", o.trace);
  if (!o.save_schedule.empty() && !schedule_to_stdout) check_output_path("--save-schedule", o.save_schedule);
  const std::string model = o.fidelity.model_name();
  const Loaded loaded = o.schedule.empty() ? build_from_flags(o) : load_from_file(o);
  const Plan& plan = loaded.plan;
  const topo::Topology& topology = loaded.topology;
  check_network_name(o.network);
  const auto write_schedule = [&](std::ostream& s) { sched::write_schedule_json(plan.schedule, s); };
  if (schedule_to_stdout) {
    write_schedule(out);
    o.topology.default_notice(err);
    return kExitOk;
  }

  std::optional<validation::ReplayReport> check;
  if (replay_options) check = validation::replay_on_cpu(plan.schedule, *replay_options);
  long_run_notice(plan, err);
  reports::TraceRecorder recorder;
  const Simulated run = naming_size(
      o, [&] { return simulate_plan(plan, topology, o.network, model, o.trace.empty() ? nullptr : &recorder); });
  const sim::Result& result = run.result;
  const sim::Summary& summary = run.summary;
  if (!o.trace.empty())
    write_file_atomically(o.trace, [&](std::ostream& s) {
      reports::write_chrome_trace(s, recorder, plan.schedule, topology, plan.rank_to_node, result);
    });
  // Saved once the run has succeeded, so a failed command leaves no new file behind.
  if (!o.save_schedule.empty()) write_file_atomically(o.save_schedule, write_schedule);
  const reports::SimulationView view{summary, result, topology, plan.rank_to_node, check ? &*check : nullptr};
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
