// collsim compare: predict every row of an nccl-tests log on a topology, by the same path as
// `collsim simulate`, and report the error per row and per size band.
#include <algorithm>
#include <thread>

#include <fmt/format.h>

#include "reports/compare_report.hpp"
#include "run/atomic_file.hpp"
#include "tools/chart_file.hpp"
#include "tools/cli.hpp"
#include "tools/commands.hpp"
#include "tools/options.hpp"
#include "run/log_prediction.hpp"
#include "run/parse.hpp"
#include "tools/log_options.hpp"

namespace collsim::cli {

CLI::App* add_compare(CLI::App& app, CompareOptions& o) {
  auto* cmd = app.add_subcommand(
      "compare", "Predict every row of an nccl-tests log (all_reduce_perf, ...) on a topology and report the error "
                 "per row and per size band");
  add_log_run_flags(*cmd, o);
  add_value(*cmd, "--format", o.format, "table (default), json or csv; json/csv print only the document");
  add_value(*cmd, "-j,--jobs", o.jobs, "Rows predicted at once (threads), default the number of cores; the output is the same for any -j");
  add_value(*cmd, "--plot", o.plot,
            "Also draw measured and predicted time against size into this .svg, .png or .pdf file (gnuplot; "
            "written atomically)");
  return cmd;
}

int run_compare(const CompareOptions& o, std::ostream& out, std::ostream& err) {
  if (o.format != "table" && o.format != "json" && o.format != "csv")
    throw UsageError(fmt::format("--format: found \"{}\", expected table, json or csv", o.format));
  if (!o.plot.empty()) {
    check_chart_file("--plot", o.plot);
    run::check_output_path("--plot", o.plot);
  }
  const run::LogRequest request = log_request(o);
  const run::LogRun run = run::open_log_run(request);

  const run::LogComparison comparison = run::compare_log(run, request, flag_spelling);
  const reports::CompareView& view = comparison.view;
  if (!o.plot.empty())
    render_chart_atomically("--plot", o.log, reports::compare_chart_table(view), reports::compare_chart_spec(view),
                            o.plot);

  o.topology.default_notice(err);
  for (const auto& w : comparison.warnings) err << w;
  if (o.format == "json") {
    out << reports::render_compare_json(view);
  } else if (o.format == "csv") {
    out << reports::render_compare_csv(view);
  } else {
    out << reports::render_compare_table(view);
  }
  return kExitOk;
}

}  // namespace collsim::cli
