// collsim plot: draw a sweep's CSV with gnuplot (reports/chart.hpp) into an SVG, PNG or PDF file.
#include <fmt/format.h>

#include "reports/chart.hpp"
#include "reports/csv.hpp"
#include "run/atomic_file.hpp"
#include "tools/chart_file.hpp"
#include "tools/cli.hpp"
#include "tools/commands.hpp"

namespace collsim::cli {

CLI::App* add_plot(CLI::App& app, PlotOptions& o) {
  auto* cmd = app.add_subcommand("plot", "Draw a sweep's CSV with gnuplot: Y against X, one line per --by value, one "
                                         "panel per --facet value");
  add_value(*cmd, "csv", o.input, "The CSV of collsim sweep (or any CSV with a header row)")->required();
  add_value(*cmd, "--x", o.x, "Column on the x axis, default size_bytes (log axes where the values span enough)");
  add_value(*cmd, "--y", o.y, "Column on the y axis, default busbw_GBps");
  add_value(*cmd, "--by", o.by, "One line per value of this column, default algorithm");
  add_value(*cmd, "--facet", o.facet, "One panel per value of this column, e.g. ranks");
  add_value(*cmd, "--title", o.title, "Chart title, default \"Y vs X\"");
  add_value(*cmd, "-o,--output", o.output, "The chart: a .svg, .png or .pdf file (written atomically)")->required();
  return cmd;
}

int run_plot(const PlotOptions& o) {
  check_chart_file("", o.output);  // a wrong file type or an unwritable place is reported before any reading
  run::check_output_path("-o", o.output);
  const std::string text = read_input_file("plot", o.input);
  reports::Table table;
  try {
    table = reports::parse_table(text);
  } catch (const reports::CsvError& e) {
    throw UsageError(fmt::format("plot: {}: {}", o.input, e.what()));
  }
  const reports::ChartSpec spec{o.x, o.y, o.by, o.facet, o.title};
  render_chart_atomically("plot", o.input, table, spec, o.output);
  return kExitOk;
}

}  // namespace collsim::cli
