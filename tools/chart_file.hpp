// Writing a chart file for a command (`plot`, `compare --plot`): the file type is checked before
// any work, gnuplot renders into a temporary file beside the chart, which is renamed over it once
// complete, so readers never see half a chart (a device or FIFO is written directly).
#pragma once

#include <string>
#include <string_view>

#include "reports/chart.hpp"

namespace collsim::cli {

/// Throws UsageError naming `flag` ("": the chart module's own message, which names -o) when `path`'s extension is not .svg, .png or .pdf.
void check_chart_file(std::string_view flag, const std::string& path);

/// Renders `table` as `spec` says into `path` atomically. Throws UsageError naming `flag` for bad
/// chart input or a gnuplot failure (also when gnuplot is missing), OutputError when the file
/// cannot be written.
void render_chart_atomically(std::string_view flag, const reports::Table& table, const reports::ChartSpec& spec,
                             const std::string& path);

}  // namespace collsim::cli
