// Writing a chart file for a command (`plot`, `compare --plot`): the file type is checked before
// any work; gnuplot draws into a pipe, and each piece is written, checked, into a temporary file
// beside the chart, which is renamed over it once complete, so readers never see half a chart and
// a full disk is exit 74 (a device or FIFO is written directly).
#pragma once

#include <string>
#include <string_view>

#include "reports/chart.hpp"

namespace collsim::cli {

/// Throws UsageError naming `flag` ("": the chart module's own message, which names -o) when `path`'s extension is not .svg, .png or .pdf.
void check_chart_file(std::string_view flag, const std::string& path);

/// Renders `table` as `spec` says into `path` atomically, checking every write and the final
/// flush. `context` (the command or flag: "plot", "--plot") and `source` (the CSV or log the table
/// comes from) start every error. Throws UsageError "CONTEXT: SOURCE: what" for bad chart input or
/// a gnuplot failure (also when gnuplot is missing), OutputError naming `path` and the OS reason
/// when the file cannot be written (the old file is then left as it was).
void render_chart_atomically(std::string_view context, std::string_view source, const reports::Table& table,
                             const reports::ChartSpec& spec, const std::string& path);

}  // namespace collsim::cli
