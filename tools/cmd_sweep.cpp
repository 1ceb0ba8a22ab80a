// collsim sweep: the cross product of topologies (or GPU counts) × collectives × algorithms ×
// sizes, one simulated collective per row, on every core; CSV or JSON lines.
#include <unistd.h>

#include <iostream>

#include <fmt/format.h>

#include "tools/cli.hpp"
#include "tools/commands.hpp"
#include "run/simulate.hpp"
#include "run/sweep.hpp"
#include "run/sweep_text.hpp"
#include "tools/option_table.hpp"
#include "tools/options.hpp"

namespace collsim::cli {

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
  add_value(*cmd, "--collectives", o.collectives, "Collectives, comma-separated, or all (default allreduce)");
  add_value(*cmd, "--algorithms", o.algorithms,
            "Algorithms, comma-separated, or all (every algorithm of each collective); default ring");
  o.algorithm.add_options_to(*cmd);
  add_shared(*cmd, run::Field::Dtype, o.dtype);
  add_shared(*cmd, run::Field::Network, o.network);
  add_shared(*cmd, run::Field::Params, o.params);
  add_shared(*cmd, run::Field::NcclAlgo, o.nccl_algo);
  add_shared(*cmd, run::Field::GpusPerThread, o.gpus_per_thread);
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
  run::SweepText text;
  text.topologies = o.topologies;
  text.generator = o.generator.text();
  text.ranks = o.ranks;
  text.minbytes = o.min_bytes;
  text.maxbytes = o.max_bytes;
  text.stepfactor = o.step_factor;
  text.stepbytes = o.step_bytes;
  text.sizes = o.sizes;
  text.collectives = o.collectives;
  text.algorithms = o.algorithms;
  text.options = o.algorithm.text();
  text.dtype = o.dtype;
  text.network = o.network;
  text.params = o.params;
  text.nccl_algo = o.nccl_algo;
  text.gpus_per_thread = o.gpus_per_thread;
  text.jobs = o.jobs;
  text.shard = o.shard;
  text.format = o.format == "json" ? run::RowFormat::Json : run::RowFormat::Csv;
  run::SweepSetup setup = run::sweep_setup(std::move(text));
  const run::SweepPlan plan = run::plan_sweep(std::move(setup.request), run::builtin_algorithms());
  if (const std::string notice = run::left_out_notice(plan); !notice.empty())
    err << "collsim: " << run::render(notice, flag_spelling) << "\n";

  run::SweepRunSpec spec = run::sweep_run_spec(plan);
  if (!o.output.empty() && o.output != "-") spec.output = o.output;  // "-": standard output
  spec.resume = o.resume;
  spec.threads = setup.threads;
  spec.progress = &err == &std::cerr && ::isatty(STDERR_FILENO) == 1;
  spec.spelling = flag_spelling;
  const run::SweepRunReport report =
      run::run_jobs(spec, [&](std::size_t k, const std::atomic<bool>& stop) { return run::run_sweep_row(plan, k, &stop); }, out, err);
  for (const auto& line : run::finished_notices(plan, spec, report, flag_spelling)) err << "collsim: " << line << "\n";
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
