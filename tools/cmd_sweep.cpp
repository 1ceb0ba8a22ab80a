// collsim sweep: the cross product of topologies (or GPU counts) × collectives × algorithms ×
// sizes, one simulated collective per row, on every core; CSV or JSON lines.
#include <unistd.h>

#include <iostream>
#include <thread>

#include <fmt/format.h>

#include "reports/sweep_row.hpp"
#include "tools/cli.hpp"
#include "tools/commands.hpp"
#include "run/parse.hpp"
#include "run/plan.hpp"
#include "run/simulate.hpp"
#include "run/sweep.hpp"
#include "tools/option_table.hpp"
#include "tools/options.hpp"
#include "run/lists.hpp"
#include "topologies/export.hpp"
#include "topologies/generate.hpp"
#include "validation/dtype.hpp"

namespace collsim::cli {
namespace {

std::vector<run::SweepTopology> load_topologies(const SweepOptions& o) {
  std::vector<run::SweepTopology> out;
  const bool generated = !o.generator.empty();
  if (!o.topologies.empty() && generated)
    throw UsageError("--gpus/--fabric: given with topology files; expected one or the other");
  if (generated) {
    if (o.generator.gpus.empty()) throw UsageError("--gpus: missing; a generated family needs --gpus LIST and --fabric F");
    for (std::uint32_t n : run::parse_count_list(run::Field::Gpus, o.generator.gpus, 1, 1u << 20)) {
      TopologyOptions t = o.generator;
      t.gpus = std::to_string(n);
      out.push_back({t.load(), t.fabric});
    }
    return out;
  }
  for (const auto& spec : o.topologies.empty() ? std::vector<std::string>{std::string(kDefaultTopology)} : o.topologies) {
    TopologyOptions t;
    t.spec = spec;
    out.push_back({t.load(), ""});
  }
  return out;
}

std::vector<Bytes> sweep_sizes(const SweepOptions& o) {
  std::vector<Bytes> sizes;
  if (!o.min_bytes.empty() || !o.max_bytes.empty()) {
    if (o.min_bytes.empty()) throw UsageError("-b/--minbytes: missing; -e needs -b (e.g. -b 8 -e 1G -f 2)");
    sizes = run::size_range(o.min_bytes, o.max_bytes, o.step_factor, o.step_bytes, run::kMaxSweepRows);
  } else if (!o.step_factor.empty() || !o.step_bytes.empty()) {
    throw UsageError("-f/-i: given without -b/--minbytes; expected -b MIN -e MAX with them");
  }
  if (!o.sizes.empty())
    for (const auto& s : run::split_list(run::Field::Sizes, o.sizes)) sizes.push_back(parse_size_flag("--sizes", s));
  if (sizes.empty()) throw UsageError("-b/--sizes: missing; give sizes as -b 8 -e 1G [-f 2 | -i STEP] or --sizes 1M,1G");
  return sizes;
}

}  // namespace

CLI::App* add_sweep(CLI::App& app, SweepOptions& o) {
  auto* cmd = app.add_subcommand(
      "sweep", "Simulate every combination of topologies (or GPU counts), collectives, algorithms and sizes; one CSV "
               "row (or JSON line) each");
  cmd->add_option("topologies", o.topologies, "Topology files or bundled names (default dgx-a100)");
  o.generator.add_generator_to(*cmd);
  add_value(*cmd, "--ranks", o.ranks, "Rank counts to run on each topology (its first N GPUs), e.g. 2..8 (default: all)");
  add_size_range(*cmd, o.min_bytes, o.max_bytes, o.step_factor);
  add_value(*cmd, "-i,--stepbytes", o.step_bytes, "Or add this many bytes per step");
  add_value(*cmd, "--sizes", o.sizes, "Sizes as a list, e.g. 1M,64M,1G (after those of -b/-e)");
  add_value(*cmd, "--collectives", o.collectives, "Collectives, comma-separated (default allreduce)");
  add_value(*cmd, "--algorithms", o.algorithms,
            "Algorithms, comma-separated, or all (every algorithm of each collective); default ring");
  o.algorithm.add_options_to(*cmd);
  add_shared(*cmd, run::Field::Dtype, o.dtype);
  add_shared(*cmd, run::Field::Network, o.network);
  add_shared(*cmd, run::Field::Params, o.params);
  add_value(*cmd, "--format", o.format, "csv (default) or json (JSON lines: one object per row)");
  add_value(*cmd, "-o,--output", o.output,
            "Write here (atomically, when every row is done) instead of standard output (- for standard output); rows "
            "done so far are kept in .NAME.partial beside it");
  add_value(*cmd, "-j,--jobs", o.jobs, "Threads, default the number of cores; the output is the same for any -j");
  add_value(*cmd, "--shard", o.shard,
            "I/K: run only rows I, I+K, I+2K, ... (0 <= I < K), for one task of a job array; join with collsim merge");
  cmd->add_flag("--resume", o.resume, "Continue an interrupted sweep to -o FILE from its partial file");
  return cmd;
}

int run_sweep(const SweepOptions& o, std::ostream& out, std::ostream& err) {
  if (o.format != "csv" && o.format != "json")
    throw UsageError(fmt::format("--format: found \"{}\", expected csv or json", o.format));
  const auto dtype = validation::parse_dtype(o.dtype);
  if (!dtype)
    throw UsageError(fmt::format("--dtype: found \"{}\", expected one of: {}", o.dtype, validation::dtype_names_list()));
  run::check_network_name(o.network);
  const unsigned threads =
      o.jobs.empty() ? std::max(1u, std::thread::hardware_concurrency()) : parse_count("-j/--jobs", o.jobs, 1, 1024);
  std::uint32_t shard = 0, shards = 1;
  if (!o.shard.empty()) {
    const auto slash = o.shard.find('/');
    if (slash == std::string::npos) throw UsageError(fmt::format("--shard: found \"{}\", expected I/K such as 0/4", o.shard));
    shards = parse_count("--shard", o.shard.substr(slash + 1), 1, 1u << 20);
    shard = parse_count("--shard", o.shard.substr(0, slash), 0, shards - 1);
  }
  run::SweepRequest request;
  request.format = o.format == "json" ? run::RowFormat::Json : run::RowFormat::Csv;
  request.dtype = *dtype;
  request.network = o.network;
  request.shard = shard;
  request.shards = shards;
  request.sharded = !o.shard.empty();
  request.collectives.clear();
  for (const auto& c : run::split_list(run::Field::Collectives, o.collectives))
    request.collectives.push_back(run::parse_collective(run::Field::Collective, c));
  request.algorithms = run::split_list(run::Field::Algorithms, o.algorithms);
  request.sizes = sweep_sizes(o);
  request.topologies = load_topologies(o);
  request.params = o.params;
  if (!o.ranks.empty()) request.ranks = run::parse_count_list(run::Field::Ranks, o.ranks, 1, 1u << 20);
  request.options = o.algorithm.options();
  const run::SweepPlan plan = run::plan_sweep(std::move(request), run::builtin_algorithms());
  if (plan.too_few_gpus > 0)
    err << fmt::format("collsim: sweep: left out {} topology/--ranks pair(s) with more ranks than GPUs\n",
                       plan.too_few_gpus);

  run::SweepRunSpec spec = run::sweep_run_spec(plan);
  if (!o.output.empty() && o.output != "-") spec.output = o.output;  // "-": standard output
  spec.resume = o.resume;
  spec.threads = threads;
  spec.progress = &err == &std::cerr && ::isatty(STDERR_FILENO) == 1;
  spec.spelling = flag_spelling;
  const run::SweepRunReport report =
      run::run_jobs(spec, [&](std::size_t k) { return run::run_sweep_row(plan, k); }, out, err);
  if (report.skipped > 0) {
    const std::string first = run::render(run::first_skip(plan, report), flag_spelling);
    if (report.signal == 0 && spec.need_a_row && report.skipped == spec.count)
      throw UsageError(fmt::format("sweep: every row ({}) is one an algorithm cannot run, {}", report.skipped, first));
    err << fmt::format("collsim: sweep: skipped {} row(s) that an algorithm cannot run, {}\n", report.skipped, first);
  }
  // Rows that could not be simulated: the first few named, then how many more.
  constexpr std::size_t kNamedNotes = 10;
  for (std::size_t n = 0; n < std::min(report.notes.size(), kNamedNotes); ++n)
    err << "collsim: warning: " << report.notes[n].second << "; its result columns are empty and its error column says why\n";
  if (report.notes.size() > kNamedNotes)
    err << fmt::format("collsim: warning: sweep: {} more row(s) not simulated; their error column says why\n",
                       report.notes.size() - kNamedNotes);
  if (report.signal > 0) {
    if (!spec.output)
      err << fmt::format("collsim: sweep stopped by signal {}; the first {} of {} rows are on standard output, and a "
                         "sweep to standard output cannot be resumed: run it again (with -o FILE it could be resumed)\n",
                         report.signal, report.printed, spec.count);
    else if (report.partial.empty())
      err << fmt::format("collsim: sweep stopped by signal {} after {} of {} rows; -o {} is not a regular file, so "
                         "nothing is kept to resume from: run it again\n",
                         report.signal, report.finished, spec.count, spec.output->string());
    else
      err << fmt::format("collsim: sweep stopped by signal {}; {} of {} rows are kept in {}; run the same command with "
                         "--resume to finish it\n",
                         report.signal, report.finished, spec.count, report.partial.string());
    return 128 + report.signal;
  }
  return kExitOk;
}

}  // namespace collsim::cli
