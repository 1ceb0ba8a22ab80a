// collsim simulate: predict one collective on one topology, for a built-in algorithm or a
// schedule file; optionally save the schedule as JSON.
#include <unistd.h>

#include <chrono>
#include <algorithm>
#include <array>
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
#include "run/atomic_file.hpp"
#include "run/simulate.hpp"
#include "run/text_request.hpp"
#include "tools/cli.hpp"
#include "run/progress_note.hpp"
#include "tools/commands.hpp"
#include "tools/fidelity_options.hpp"
#include "tools/option_table.hpp"
#include "validation/cpu_replay.hpp"
#include "validation/schedule_file.hpp"

namespace collsim::cli {
namespace {

// Flags that describe what to build; a schedule file already says all of it.
constexpr std::array kBuildFlags{"--collective", "--algorithm",  "--size",     "--ranks",
                                 "--root",       "--chunk-size", "--ps-shards"};

// A timeline holds every transfer's slices in memory until it is written: about 8 KiB per op
// (ring all-reduce on 512 GPUs, 523,264 ops: 4.0 GiB peak, a 394 MB file). Past this many ops it
// would meet the OOM killer on a workstation instead of giving an error.
constexpr std::size_t kMaxTraceOps = std::size_t{1} << 20;

void check_trace_size(const SimulateOptions& o, const run::Plan& plan) {
  if (o.trace.empty() || plan.schedule.ops.size() <= kMaxTraceOps) return;
  throw UsageError(fmt::format("--trace: a timeline of {} ops needs about {} GiB of memory; expected at most {} ops "
                               "(fewer ranks, or a larger --slice or --chunk-size)",
                               plan.schedule.ops.size(), (plan.schedule.ops.size() * 8192) >> 30, kMaxTraceOps));
}

// The flags as a request (run::simulation_request), the ops materialised for what reads them.
run::SimulationRequest request_of(const SimulateOptions& o, const std::optional<validation::ReplayOptions>& replay) {
  if (!o.schedule.empty()) {
    for (const char* flag : kBuildFlags)
      if (o.was_given(flag))
        throw UsageError(fmt::format("{}: not allowed with --schedule, which takes the collective, algorithm, ranks "
                                     "and size from the file",
                                     flag));
  } else if (o.size.empty()) {
    // Checked here rather than by CLI11, so that a mistyped flag (--siz) is reported as such first.
    throw UsageError("--size: missing; give the message size, e.g. --size 1G");
  }
  run::SimulateText text;
  text.topology = o.topology.text();
  text.collective = o.algorithm.collective;
  text.algorithm = o.algorithm.algorithm;
  text.size = o.size;
  text.ranks = o.ranks;
  text.dtype = o.verify.dtype;
  text.network = o.network;
  text.options = o.algorithm.text();
  text.model = o.fidelity.text();
  text.verify = o.verify.verify;
  text.op = o.verify.op;
  text.schedule = o.schedule;
  run::SimulationRequest r = run::simulation_request(text);
  r.verify = replay;
  if (!o.save_schedule.empty() || !o.trace.empty()) r.ops = run::Ops::Materialised;
  return r;
}

// The request made ready; a schedule too large to hold says which flag needed it.
run::Prepared prepare(const SimulateOptions& o, const run::SimulationRequest& r) {
  try {
    return run::prepare(r, run::builtin_algorithms());
  } catch (const std::length_error& e) {
    if (r.ops == run::Ops::OnDemand || !r.schedule.empty()) throw;
    const char* flag = o.verify.verify ? "--verify" : !o.save_schedule.empty() ? "--save-schedule" : "--trace";
    throw UsageError(fmt::format("{}: needs every op of the schedule in memory, and {}", flag, e.what()));
  }
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
  add_shared(*cmd, run::Field::Network, o.network);
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
  if (!o.trace.empty()) run::check_output_path("--trace", o.trace);
  if (!o.save_schedule.empty() && !schedule_to_stdout) run::check_output_path("--save-schedule", o.save_schedule);
  run::SimulationRequest request = request_of(o, replay_options);
  // On a terminal, a run still going after 20 s says how far it is (run/progress_note.hpp).
  run::ProgressNote progress(err, std::chrono::seconds(20));
  if (::isatty(STDERR_FILENO) == 1) request.progress = &progress;
  const run::Prepared prepared = prepare(o, request);
  const run::Plan& plan = prepared.plan;
  const topo::Topology& topology = prepared.topology;
  check_trace_size(o, plan);
  run::check_network_name(o.network);
  const auto write_schedule = [&](std::ostream& s) { sched::write_schedule_json(plan.schedule, s); };
  if (schedule_to_stdout) {
    write_schedule(out);
    o.topology.default_notice(err);
    return kExitOk;
  }

  run::long_run_notice(plan, prepared.topology, err);
  reports::TraceRecorder recorder;
  const run::Outcome outcome = run::run_prepared(prepared, request, o.trace.empty() ? nullptr : &recorder);
  const std::optional<validation::ReplayReport>& check = outcome.check;
  const sim::Result& result = outcome.run.result;
  const sim::Summary& summary = outcome.run.summary;
  if (!o.trace.empty())
    run::write_file_atomically(o.trace, [&](std::ostream& s) {
      reports::write_chrome_trace(s, recorder, plan.schedule, topology, plan.rank_to_node, result);
    });
  // Saved once the run has succeeded, so a failed command leaves no new file behind.
  if (!o.save_schedule.empty()) run::write_file_atomically(o.save_schedule, write_schedule);
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
