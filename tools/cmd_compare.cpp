// collsim compare: predict every row of an nccl-tests log on a topology, by the same path as
// `collsim simulate`, and report the error per row and per size band.
#include <algorithm>

#include <fmt/format.h>

#include "reports/compare_report.hpp"
#include "run/atomic_file.hpp"
#include "tools/chart_file.hpp"
#include "tools/cli.hpp"
#include "tools/commands.hpp"
#include "tools/options.hpp"
#include "run/log_prediction.hpp"
#include "tools/log_options.hpp"

namespace collsim::cli {

CLI::App* add_compare(CLI::App& app, CompareOptions& o) {
  auto* cmd = app.add_subcommand(
      "compare", "Predict every row of an nccl-tests log (all_reduce_perf, ...) on a topology and report the error "
                 "per row and per size band");
  add_log_run_flags(*cmd, o);
  add_value(*cmd, "--format", o.format, "table (default), json or csv; json/csv print only the document");
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

  reports::CompareView view;
  view.log = o.log;
  view.test = run::test_program(run);
  view.collective = std::string(sched::collective_name(run.collective));
  view.ranks = run.ranks;
  for (const auto& d : run.log.devices)
    if (std::find(view.devices.begin(), view.devices.end(), d) == view.devices.end()) view.devices.push_back(d);
  view.hosts = run.log.hosts.size();
  std::vector<reports::SizedError> errors;
  std::vector<std::string> warnings;
  for (const auto& row : run.log.rows) {
    try {
      const sim::Summary s = run::predict_row(run, request, request.model, row);
      view.algorithm = s.algorithm;
      view.topology = s.topology;
      view.network = s.network;
      view.rows.push_back(run::compared_row(row, s));
      errors.push_back({row.size, view.rows.back().error_pct});
    } catch (const run::OverflowError& e) {
      // A row whose predicted time passes the clock's end: reported in its row, the others predicted.
      reports::ComparedRow r = run::measured_row(row);
      r.error = e.rendered(flag_spelling);
      view.rows.push_back(std::move(r));
      warnings.push_back(fmt::format("collsim: warning: compare: {}:{} ({} bytes): not predicted: {}; its predicted "
                                     "columns are empty\n",
                                     run.log.file, row.line, row.size, e.what()));
    }
  }
  if (errors.empty() && !view.rows.empty())
    throw UsageError(fmt::format("{}:{}: no row could be predicted, the first: {}", run.log.file, view.rows.front().line,
                                 view.rows.front().error));
  view.bands = reports::summarize_error_bands(errors);
  if (!o.plot.empty())
    render_chart_atomically("--plot", o.log, reports::compare_chart_table(view), reports::compare_chart_spec(view),
                            o.plot);

  log_topology(o).default_notice(err);
  for (const auto& w : warnings) err << w;
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
