// Charts of a table of results (a sweep's CSV) rendered by gnuplot: one line per value of a
// "by" column, optionally one panel per value of a "facet" column; log axes where the data spans
// enough to need them; axis labels with units. Used by `collsim plot` (and meant for any command
// that draws its CSV).
#pragma once

#include <filesystem>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace collsim::reports {

/// A CSV table: its header and its records, all as text.
struct Table {
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;
};

/// Reads RFC 4180 CSV with one header row. The lines that frame a sweep's shard file (starting
/// "# collsim sweep shard=", run/sweep_shard.hpp) are left out. Throws CsvError (reports/csv.hpp)
/// for malformed text or a record whose field count differs from the header's.
Table parse_table(std::string_view csv);

/// What to draw: column names of the table.
struct ChartSpec {
  std::string x = "size_bytes";
  std::string y = "busbw_GBps";
  std::string by = "algorithm";  ///< one line per value; "" for a single line
  std::string facet;             ///< one panel per value; "" for one panel
  std::string title;             ///< "" for "Y vs X"
};

/// Bad chart input (an unknown column, a value that is not a number, an unknown file type) or a
/// gnuplot failure; what() is one line.
class ChartError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The gnuplot terminal for `output`'s extension: .svg, .png, .pdf. Throws ChartError otherwise.
std::string chart_terminal(const std::filesystem::path& output);

/// The gnuplot script that draws `table` as `spec` says, in the format of `output`'s extension, to
/// gnuplot's standard output (data inline). Every text from the table or the spec is an inert
/// single-quoted string: no backquote command or @macro of the input reaches gnuplot's command
/// line. Throws ChartError naming the flag, column and record at fault and what was expected (not
/// the file, which the caller knows).
std::string chart_script(const Table& table, const ChartSpec& spec, const std::filesystem::path& output);

/// True when a `gnuplot` program is on the PATH.
bool gnuplot_available();

/// Runs gnuplot on chart_script(table, spec, output) and hands the chart, piece by piece as gnuplot
/// draws it, to `write` (`output` only chooses the format; callers write the file, atomically or
/// not, and check each write). An exception from `write` stops gnuplot and passes through. Throws
/// ChartError, one line saying what went wrong, when gnuplot is missing, fails (quoting its error
/// line), is ended by a signal, or exits 0 with a chart that lacks its format's end (</svg>, the PNG
/// IEND chunk, %%EOF).
void render_chart(const Table& table, const ChartSpec& spec, const std::filesystem::path& output,
                  const std::function<void(std::string_view)>& write);

}  // namespace collsim::reports
