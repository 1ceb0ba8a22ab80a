// collsim calibrate: fit the model parameters to an nccl-tests log (run/calibration.hpp), write
// them as a parameter file that --params reads, and print the fit.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "run/atomic_file.hpp"
#include "run/calibration.hpp"
#include "tools/cli.hpp"
#include "tools/commands.hpp"
#include "tools/log_options.hpp"
#include "tools/options.hpp"

namespace collsim::cli {
namespace {

// The rows of every log fitted (the log and the --also logs).
std::size_t all_rows(std::span<const run::LogRun> runs) {
  std::size_t n = 0;
  for (const auto& r : runs) n += r.log.rows.size();
  return n;
}

std::string render_table(const CalibrateOptions& o, std::span<const run::LogRun> runs, const run::Calibration& c) {
  const run::LogRun& run = runs.front();
  std::string out = fmt::format("{} ({}, {} ranks){}: fitted {} of {} rows in {} evaluations\n\n", o.compare.log,
                                run::test_program(run), run.ranks,
                                runs.size() > 1 ? fmt::format(" and {} more log{}", runs.size() - 1, runs.size() > 2 ? "s" : "")
                                                : std::string(),
                                c.rows, all_rows(runs), c.evaluations);
  out += fmt::format("  {:<36} {:>10} {:>10} {:>10}\n", "parameter", "start", "fitted", "+-1 s.e.");
  for (const auto& v : c.values) {
    const std::string name = v.unit.empty() ? v.name : fmt::format("{} ({})", v.name, v.unit);
    const std::string se = !v.uncertainty_pct ? "kept"
                           : std::isfinite(*v.uncertainty_pct) ? fmt::format("{:.1f} %", *v.uncertainty_pct)
                                                               : "flat";
    out += fmt::format("  {:<36} {:>10.4g} {:>10.4g} {:>10}\n", name, v.start, v.fitted, se);
  }
  out += fmt::format("\n  rms of ln(predicted/measured): {:.4f} -> {:.4f}\n", c.rms_log_error_start, c.rms_log_error);
  out += fmt::format("  median |error| of the fitted rows: {:.1f} % -> {:.1f} %\n", c.median_abs_error_start_pct,
                     c.median_abs_error_pct);
  if (c.logs.size() > 1)
    for (const auto& l : c.logs)
      out += fmt::format("    {} ({} rows): {:.1f} % -> {:.1f} %\n", l.log, l.rows, l.median_abs_error_start_pct,
                         l.median_abs_error_pct);
  for (const auto& note : c.notes) out += fmt::format("  {}\n", note);
  out += fmt::format("  wrote {} (use it with --params)\n", o.output);
  return out;
}

std::string render_json(const CalibrateOptions& o, std::span<const run::LogRun> runs, const run::Calibration& c) {
  const run::LogRun& run = runs.front();
  nlohmann::ordered_json j;
  j["log"] = o.compare.log;
  j["test"] = run::test_program(run);
  j["ranks"] = run.ranks;
  j["rows"] = all_rows(runs);
  j["rows_fitted"] = c.rows;
  j["evaluations"] = c.evaluations;
  auto values = nlohmann::ordered_json::array();
  for (const auto& v : c.values) {
    const bool known = v.uncertainty_pct && std::isfinite(*v.uncertainty_pct);
    values.push_back({{"name", v.name},
                      {"unit", v.unit},
                      {"start", v.start},
                      {"fitted", v.fitted},
                      {"uncertainty_pct", known ? nlohmann::ordered_json(*v.uncertainty_pct) : nlohmann::ordered_json(nullptr)}});
  }
  j["values"] = values;
  j["rms_log_error"] = {{"start", c.rms_log_error_start}, {"fitted", c.rms_log_error}};
  j["median_abs_error_pct"] = {{"start", c.median_abs_error_start_pct}, {"fitted", c.median_abs_error_pct}};
  auto logs = nlohmann::ordered_json::array();
  for (const auto& l : c.logs)
    logs.push_back({{"log", l.log},
                    {"rows_fitted", l.rows},
                    {"median_abs_error_pct", {{"start", l.median_abs_error_start_pct}, {"fitted", l.median_abs_error_pct}}}});
  j["logs"] = logs;
  j["notes"] = c.notes;
  j["output"] = o.output;
  return j.dump(2) + "\n";
}

}  // namespace

CLI::App* add_calibrate(CLI::App& app, CalibrateOptions& o) {
  auto* cmd = app.add_subcommand(
      "calibrate", "Fit base latency, step latency per link class and link efficiency to an nccl-tests log "
                   "(least squares on log time) and write them as a parameter file for --params");
  add_log_run_flags(*cmd, o.compare);
  add_value(*cmd, "-o,--output", o.output, "The parameter file to write (JSON, \"format\": \"collsim-params-1\"; "
                                           "written atomically)");
  add_value(*cmd, "--min-size", o.min_size, "Fit only rows of at least this size (K/M/G = powers of 1024, KB/MB/GB of 1000)");
  add_value(*cmd, "--max-size", o.max_size, "Fit only rows of at most this size (K/M/G = powers of 1024, KB/MB/GB of 1000)");
  add_value(*cmd, "--max-evaluations", o.max_evaluations,
            "Stop the fit after this many evaluations, each a simulation of every fitted row (default 150)");
  add_value(*cmd, "--format", o.compare.format, "table (default) or json");
  // One log per --also (CLI11 would otherwise take every word after it, a topology name too).
  cmd->add_option("--also", o.also,
                  "Another nccl-tests log of the same machine to fit at once (repeatable): same topology, algorithm "
                  "and flags, its own ranks and collective from its header (or --ranks/--collective)")
      ->expected(1)
      ->allow_extra_args(false);
  return cmd;
}

int run_calibrate(const CalibrateOptions& o, std::ostream& out, std::ostream& err) {
  if (o.compare.format != "table" && o.compare.format != "json")
    throw UsageError(fmt::format("--format: found \"{}\", expected table or json", o.compare.format));
  if (o.output.empty()) throw UsageError("-o: missing; expected the parameter file to write, e.g. -o calibrated.json");
  run::check_output_path("-o", o.output);  // before the fit, which can take minutes
  const Bytes min_size = o.min_size.empty() ? 0 : parse_size_flag("--min-size", o.min_size);
  const Bytes max_size =
      o.max_size.empty() ? std::numeric_limits<Bytes>::max() : parse_size_flag("--max-size", o.max_size);
  const std::size_t max_evaluations =
      o.max_evaluations.empty() ? 150 : parse_count("--max-evaluations", o.max_evaluations, 1, 100000);
  const run::LogRequest request = log_request(o.compare);
  // The log, then every --also log, each read and settled on the same topology.
  std::vector<run::LogRun> runs;
  runs.push_back(run::open_log_run(request));
  for (std::size_t i = 0; i < o.also.size(); ++i) {
    const std::string& path = o.also[i];
    if (path.empty()) throw UsageError("--also: found an empty value, expected an nccl-tests log file");
    // The same log twice would count its rows twice.
    const auto same = [&](const std::string& other) {
      std::error_code ec;
      return other == path || std::filesystem::equivalent(other, path, ec);
    };
    if (same(o.compare.log) || std::any_of(o.also.begin(), o.also.begin() + static_cast<std::ptrdiff_t>(i), same))
      throw UsageError(fmt::format("--also: found {}, which is already fitted; expected each log once", path));
    run::LogRequest more = request;
    more.log = path;
    runs.push_back(run::open_log_run(more));
  }
  std::vector<run::LogRows> logs;
  for (const auto& r : runs) {
    run::LogRows l{&r, {}};
    for (const auto& row : r.log.rows)
      if (row.size >= min_size && row.size <= max_size) l.rows.push_back(row);
    if (l.rows.empty())
      throw UsageError(fmt::format("--min-size/--max-size: no row of {} lies between {} and {} bytes; expected at "
                                   "least one row to fit",
                                   r.log.file, min_size, max_size));
    logs.push_back(std::move(l));
  }
  const run::Calibration c = run::calibrate(logs, request, max_evaluations);
  const std::string text = topo::write_model_params_json(c.params);
  run::write_file_atomically(o.output, [&](std::ostream& f) { f << text; });
  o.compare.topology.default_notice(err);
  out << (o.compare.format == "json" ? render_json(o, runs, c) : render_table(o, runs, c));
  return kExitOk;
}

}  // namespace collsim::cli
