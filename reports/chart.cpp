#include "reports/chart.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "reports/csv.hpp"
#include "reports/gnuplot_run.hpp"

namespace collsim::reports {
namespace {

// Column names the sweep writes, as axis labels with their units (GB/s = 1e9 B/s, as nccl-tests).
std::string axis_label(std::string_view column) {
  static constexpr std::pair<std::string_view, std::string_view> kLabels[] = {
      {"size_bytes", "message size S (bytes)"},
      {"count", "elements per rank"},
      {"ranks", "GPUs (ranks N)"},
      {"steps", "steps"},
      {"time_us", "time (µs)"},
      {"time_ps", "time (ps)"},
      {"algbw_GBps", "algorithm bandwidth S/t (GB/s, 1 GB = 1e9 B)"},
      {"busbw_GBps", "bus bandwidth (GB/s, 1 GB = 1e9 B)"},
      {"traffic_factor", "bytes sent per rank / S"},
      {"bytes_sent_per_rank_max", "bytes sent by the busiest rank"},
      {"lower_bound_us", "bandwidth lower bound (µs)"},
      {"closed_form_us", "closed-form time (µs)"},
      {"injection_bandwidth_GBps", "injection bandwidth per GPU (GB/s)"},
  };
  for (const auto& [name, label] : kLabels)
    if (name == column) return std::string(label);
  return std::string(column);
}

// Byte and count axes double from point to point in a sweep: base 2 puts a tick on each.
bool base2(std::string_view column) { return column == "size_bytes" || column == "ranks" || column == "count"; }

// `s` as an inert gnuplot string expression. gnuplot runs backquoted text as a shell command and
// expands @macros on its command lines, but inside single quotes it does neither (gnuplot 5.4
// manual, "Substitution"; checked with 5.4.4). A single quote cannot be written doubled: gnuplot
// 5.4's scanner ends the string at the second of two doubled quotes in a row, and the text after
// it runs as commands; so each ' is joined in as "'" ('a'."'".'b', a string expression that every
// text gnuplot takes here accepts). Backquotes also become quotes, so that no gnuplot version can
// hand one to a shell; control characters (a newline ends the command) become spaces.
std::string gp_string(std::string_view s) {
  std::string q = "'";
  for (char c : s) {
    if (c == '\'' || c == '`')
      q += "'.\"'\".'";
    else
      q += static_cast<unsigned char>(c) < 0x20 || c == 0x7f ? ' ' : c;
  }
  return q + "'";
}

std::size_t column_index(const Table& t, std::string_view flag, std::string_view name) {
  const auto it = std::find(t.columns.begin(), t.columns.end(), name);
  if (it == t.columns.end()) {
    std::string all;
    for (const auto& c : t.columns) all += (all.empty() ? "" : ", ") + c;
    throw ChartError(fmt::format("{}: found \"{}\", expected a column of the CSV: {}", flag, name, all));
  }
  return static_cast<std::size_t>(it - t.columns.begin());
}

std::optional<double> number(std::string_view flag, std::string_view column, const std::string& text,
                             std::size_t record) {
  if (text.empty()) return std::nullopt;  // e.g. busbw of a zero-time row: no point
  double v = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || ptr != text.data() + text.size() || !std::isfinite(v))
    throw ChartError(fmt::format("record {}, column {} ({}): found \"{}\", expected a finite number", record, column,
                                 flag, text));
  return v;
}

// Distinct values of column `c` in order of first appearance ("" when c is none).
std::vector<std::string> groups(const Table& t, std::optional<std::size_t> c) {
  std::vector<std::string> out;
  if (!c) return {std::string()};
  for (const auto& r : t.rows)
    if (std::find(out.begin(), out.end(), r[*c]) == out.end()) out.push_back(r[*c]);
  return out;
}

// Log scale when every value is positive and they span at least `span` times.
bool wants_log(const std::vector<double>& v, double span) {
  if (v.empty()) return false;
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  return *lo > 0 && *hi / *lo >= span;
}

// The line of gnuplot's messages that says what went wrong: it echoes the failing command
// ("gnuplot> ..."), marks the place with ^, then says what is wrong; so the last line that is
// neither, without its indent ("" when there is none).
std::string gnuplot_error_line(std::string_view messages) {
  std::string found;
  while (!messages.empty()) {
    const auto end = messages.find('\n');
    std::string_view l = messages.substr(0, end);
    messages.remove_prefix(end == std::string_view::npos ? messages.size() : end + 1);
    while (!l.empty() && (l.back() == '\r' || l.back() == ' ' || l.back() == '\t')) l.remove_suffix(1);
    const auto first = l.find_first_not_of(" \t^");
    if (first == std::string_view::npos || l.starts_with("gnuplot>")) continue;
    found = l.substr(l.find_first_not_of(" \t"));
  }
  return found;
}

// True when `tail` (a chart's last bytes) is the end of a whole file of `format` (svg, png, pdf):
// the closing </svg> tag, the PNG IEND chunk with its CRC (RFC 2083), the PDF %%EOF marker.
bool chart_complete(std::string_view format, std::string_view tail) {
  while (!tail.empty() && (format == "svg" || format == "pdf") && std::isspace(static_cast<unsigned char>(tail.back())))
    tail.remove_suffix(1);
  if (format == "svg") return tail.ends_with("</svg>");
  if (format == "pdf") return tail.ends_with("%%EOF");
  if (format == "png") return tail.ends_with(std::string_view("IEND\xae\x42\x60\x82", 8));
  return true;  // no other format is drawn (chart_terminal)
}

}  // namespace

Table parse_table(std::string_view csv) {
  auto records = split_csv_records(csv);
  std::erase_if(records, [](const std::string& r) { return r.starts_with("# collsim sweep shard="); });
  if (records.empty()) throw CsvError("found an empty file, expected a header row");
  Table t;
  t.columns = parse_csv_record(records.front());
  for (std::size_t i = 1; i < records.size(); ++i) {
    auto fields = parse_csv_record(records[i]);
    if (fields.size() != t.columns.size())
      throw CsvError(fmt::format("record {}: found {} fields, expected {} as in the header", i + 1, fields.size(),
                                 t.columns.size()));
    t.rows.push_back(std::move(fields));
  }
  return t;
}

std::string chart_terminal(const std::filesystem::path& output) {
  const std::string ext = output.extension().string();
  // Cairo terminals draw antialiased text; `noenhanced` keeps underscores in names as they are.
  if (ext == ".svg") return "svg size 960,640 dynamic noenhanced font 'sans,12' background rgb 'white'";
  if (ext == ".png") return "pngcairo size 1280,853 noenhanced font 'sans,12'";
  if (ext == ".pdf") return "pdfcairo size 9in,6in noenhanced font 'sans,10'";
  throw ChartError(fmt::format("-o: found \"{}\", expected a file ending in .svg, .png or .pdf", output.string()));
}

std::string chart_script(const Table& t, const ChartSpec& spec, const std::filesystem::path& output) {
  const std::size_t xi = column_index(t, "--x", spec.x);
  const std::size_t yi = column_index(t, "--y", spec.y);
  const std::optional<std::size_t> bi = spec.by.empty() ? std::nullopt : std::optional(column_index(t, "--by", spec.by));
  const std::optional<std::size_t> fi =
      spec.facet.empty() ? std::nullopt : std::optional(column_index(t, "--facet", spec.facet));
  if (t.rows.empty()) throw ChartError("found a header but no records; expected at least one record to draw");

  std::vector<double> xs, ys;
  // points[facet][series] = (x, y), sorted by x so lines run left to right.
  std::map<std::pair<std::string, std::string>, std::vector<std::pair<double, double>>> points;
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    const auto x = number("--x", spec.x, t.rows[r][xi], r + 2);
    const auto y = number("--y", spec.y, t.rows[r][yi], r + 2);
    if (!x || !y) continue;
    xs.push_back(*x);
    ys.push_back(*y);
    points[{fi ? t.rows[r][*fi] : "", bi ? t.rows[r][*bi] : ""}].emplace_back(*x, *y);
  }
  if (xs.empty())
    throw ChartError(fmt::format("--x/--y: no record has a number in both column {} and column {}; expected at least "
                                 "one point to draw",
                                 spec.x, spec.y));
  for (auto& [key, p] : points) std::stable_sort(p.begin(), p.end());

  // No file name in the script: gnuplot draws to its standard output, a pipe that render_chart reads.
  std::string s = fmt::format("set terminal {}\nset output\n", chart_terminal(output));
  s += "set datafile separator whitespace\nset grid\nset key outside right top\nset pointsize 0.8\n";
  s += fmt::format("set xlabel {}\nset ylabel {}\n", gp_string(axis_label(spec.x)), gp_string(axis_label(spec.y)));
  if (wants_log(xs, 16)) {
    s += fmt::format("set logscale x {}\n", base2(spec.x) ? 2 : 10);
    if (spec.x == "size_bytes") s += "set format x \"%.0b%BB\"\nset xtics rotate by -45\n";  // 1ki, 1Mi, ...: 1024-based
  }
  if (wants_log(ys, 100)) s += "set logscale y 10\n";
  const auto facets = groups(t, fi);
  const auto series = groups(t, bi);
  const std::string title = spec.title.empty() ? fmt::format("{} vs {}", spec.y, spec.x) : spec.title;
  // Data first, as inline datablocks ($d0, $d1, ...), one per (facet, series) with points.
  std::map<std::pair<std::string, std::string>, std::string> block;
  for (const auto& [key, p] : points) {
    const std::string name = fmt::format("$d{}", block.size());
    block[key] = name;
    s += name + " << EOD\n";
    for (const auto& [x, y] : p) s += fmt::format("{} {}\n", x, y);
    s += "EOD\n";
  }
  if (facets.size() > 1) {
    const auto cols = static_cast<std::size_t>(std::ceil(std::sqrt(static_cast<double>(facets.size()))));
    const std::size_t rows = (facets.size() + cols - 1) / cols;
    s += fmt::format("set multiplot layout {},{} title {}\n", rows, cols, gp_string(title));
  }
  for (const auto& f : facets) {
    s += fmt::format("set title {}\n",
                     gp_string(facets.size() > 1 ? fmt::format("{} = {}", spec.facet, f) : title));
    std::string plot;
    for (const auto& b : series) {
      const auto it = block.find({f, b});
      if (it == block.end()) continue;
      plot += fmt::format("{}{} using 1:2 with linespoints title {}", plot.empty() ? "plot " : ", \\\n     ", it->second,
                          gp_string(bi ? b : spec.y));
    }
    s += plot.empty() ? "set label 1 \"no data\" at graph 0.5, graph 0.5 center\nplot NaN notitle\nunset label 1\n"
                      : plot + "\n";
  }
  if (facets.size() > 1) s += "unset multiplot\n";
  return s;
}

bool gnuplot_available() {
  const char* path = std::getenv("PATH");
  std::string_view rest = path ? path : "";
  while (!rest.empty()) {
    const auto colon = rest.find(':');
    const std::filesystem::path dir(rest.substr(0, colon));
    if (!dir.empty() && ::access((dir / "gnuplot").c_str(), X_OK) == 0) return true;
    if (colon == std::string_view::npos) break;
    rest.remove_prefix(colon + 1);
  }
  return false;
}

void render_chart(const Table& table, const ChartSpec& spec, const std::filesystem::path& output,
                  const std::function<void(std::string_view)>& write) {
  const std::string script = chart_script(table, spec, output);
  if (!gnuplot_available())
    throw ChartError("gnuplot: not found on the PATH; install it (Debian: apt-get install gnuplot-nox, as "
                     "tools/setup.sh does)");
  const GnuplotRun run = run_gnuplot(script, write);
  if (run.signal != 0)
    throw ChartError(fmt::format("gnuplot was ended by signal {} ({}) while drawing the chart", run.signal,
                                 ::strsignal(run.signal)));
  if (run.exit_status != 0) {
    const std::string line = gnuplot_error_line(run.messages);
    throw ChartError(fmt::format("gnuplot failed (exit status {}) drawing the chart: {}", run.exit_status,
                                 line.empty() ? "it gave no message" : "\"" + line + "\""));
  }
  const std::string format = output.extension().string().substr(1);
  if (!chart_complete(format, run.tail))
    throw ChartError(fmt::format("gnuplot exited 0 but wrote an incomplete {} chart ({} bytes, without the format's "
                                 "end); expected a whole chart",
                                 format, run.bytes));
}

}  // namespace collsim::reports
