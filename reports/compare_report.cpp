#include "reports/compare_report.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "reports/csv.hpp"

namespace collsim::reports {
namespace {

using nlohmann::ordered_json;

ordered_json opt_json(const std::optional<double>& v) { return v ? ordered_json(*v) : ordered_json(nullptr); }

std::string opt_fixed(const std::optional<double>& v, int decimals) {
  return v ? fmt::format("{:.{}f}", *v, decimals) : std::string("-");
}

// "4 ranks" or "4 ranks of NVIDIA L40S on 1 host", as far as the log says.
std::string ranks_text(const CompareView& v) {
  std::string text = fmt::format("{} ranks", v.ranks);
  if (!v.devices.empty()) text += fmt::format(" of {}", fmt::join(v.devices, ", "));
  if (v.hosts > 0) text += fmt::format(" on {} host{}", v.hosts, v.hosts == 1 ? "" : "s");
  return text;
}

}  // namespace

std::string render_compare_table(const CompareView& v) {
  std::string out = fmt::format("{} ({}, {}) against {} {} on {} (network model: {}{})\n\n", v.log, v.test,
                                ranks_text(v), v.algorithm, v.collective, v.topology, v.network,
                                v.nccl_choice ? "; NCCL's choice per size" : "");
  if (!v.log_forms.empty()) out.insert(out.size() - 1, fmt::format("(log read as pasted: {})\n", fmt::join(v.log_forms, ", ")));
  // Where what ran may differ per row (NCCL's choice of algorithm, a protocol or channel count
  // picked per size), a last column says what ran: algorithm, protocol and channels.
  const auto ran = [](const ComparedRow& r) {
    return r.algorithm.empty() ? std::string("-")
                               : fmt::format("{} {} {}ch{}", r.algorithm, r.protocol, r.channels,
                                             r.host_bound ? ", host-bound" : "");
  };
  const auto predicted = [](const ComparedRow& r) { return !r.algorithm.empty(); };
  const auto first = std::find_if(v.rows.begin(), v.rows.end(), predicted);
  const bool per_row = v.nccl_choice || std::any_of(v.rows.begin(), v.rows.end(), [&](const ComparedRow& r) {
                         return predicted(r) && ran(r) != ran(*first);
                       });
  const auto algorithm_column = [&](const ComparedRow& r) {
    return per_row ? fmt::format("  {}", ran(r)) : std::string();
  };
  out += fmt::format("  {:>12}  {:>12}  {:>12}  {:>8}  {:>14}  {:>15}{}\n", "size (B)", "measured us", "predicted us",
                     "error %", "measured busbw", "predicted busbw", per_row ? "  ran (algorithm protocol channels)" : "");
  for (const auto& r : v.rows) {
    if (!r.error.empty()) {
      out += fmt::format("  {:>12}  {:>12.2f}  {:>12}  {:>8}  {:>14.2f}  {:>15}{}\n", r.size, r.measured_us, "-", "-",
                         r.measured_busbw_GBps, "-", algorithm_column(r));
      continue;
    }
    out += fmt::format("  {:>12}  {:>12.2f}  {:>12.2f}  {:>+8.1f}  {:>14.2f}  {:>15}{}\n", r.size, r.measured_us,
                       to_us(r.predicted), r.error_pct, r.measured_busbw_GBps, opt_fixed(r.predicted_busbw_GBps, 2),
                       algorithm_column(r));
  }
  for (const auto& r : v.rows)
    if (!r.error.empty()) out += fmt::format("  (line {}, {} bytes: not predicted: {})\n", r.line, r.size, r.error);
  out += fmt::format("\n  {:<12}  {:>5}  {:>16}  {:>13}\n", "size band", "rows", "median |error| %", "max |error| %");
  for (const auto& b : v.bands)
    out += fmt::format("  {:<12}  {:>5}  {:>16}  {:>13}\n", b.band, b.rows, opt_fixed(b.median_abs_error_pct, 1),
                       opt_fixed(b.max_abs_error_pct, 1));
  out += "(busbw in GB/s = 1e9 B/s; error = (predicted - measured) / measured)\n";
  return out;
}

std::string render_compare_json(const CompareView& v) {
  ordered_json j;
  j["log"] = v.log;
  j["test"] = v.test;
  j["collective"] = v.collective;
  j["algorithm"] = v.algorithm;
  j["topology"] = v.topology;
  j["network"] = v.network;
  j["ranks"] = v.ranks;
  j["devices"] = v.devices;
  j["hosts"] = v.hosts;
  j["log_forms"] = v.log_forms;
  j["gpus_per_thread"] = v.gpus_per_thread;
  j["gpus_per_thread_source"] = v.gpus_per_thread_source;
  auto& rows = j["rows"] = ordered_json::array();
  for (const auto& r : v.rows) {
    ordered_json row;
    row["line"] = r.line;
    row["size_bytes"] = r.size;
    row["measured_us"] = r.measured_us;
    const bool predicted = r.error.empty();
    row["predicted_us"] = predicted ? ordered_json(to_us(r.predicted)) : ordered_json(nullptr);
    row["error_pct"] = predicted ? ordered_json(r.error_pct) : ordered_json(nullptr);
    row["measured_algbw_GBps"] = r.measured_algbw_GBps;
    row["predicted_algbw_GBps"] = opt_json(r.predicted_algbw_GBps);
    row["measured_busbw_GBps"] = r.measured_busbw_GBps;
    row["predicted_busbw_GBps"] = opt_json(r.predicted_busbw_GBps);
    row["error"] = predicted ? ordered_json(nullptr) : ordered_json(r.error);
    row["algorithm"] = predicted ? ordered_json(r.algorithm) : ordered_json(nullptr);
    row["protocol"] = predicted ? ordered_json(r.protocol) : ordered_json(nullptr);
    row["channels"] = predicted ? ordered_json(r.channels) : ordered_json(nullptr);
    row["host_bound"] = predicted ? ordered_json(r.host_bound) : ordered_json(nullptr);
    rows.push_back(std::move(row));
  }
  auto& summary = j["summary"] = ordered_json::array();
  for (const auto& b : v.bands) {
    ordered_json band;
    band["band"] = b.band;
    band["rows"] = b.rows;
    band["median_abs_error_pct"] = opt_json(b.median_abs_error_pct);
    band["max_abs_error_pct"] = opt_json(b.max_abs_error_pct);
    summary.push_back(std::move(band));
  }
  return j.dump(2) + "\n";
}

std::string render_compare_csv(const CompareView& v) {
  std::string out =
      "line,size_bytes,band,measured_us,predicted_us,error_pct,measured_algbw_GBps,predicted_algbw_GBps,"
      "measured_busbw_GBps,predicted_busbw_GBps,error,algorithm,protocol,channels,host_bound\n";
  const auto opt = [](const std::optional<double>& x) { return x ? fmt::format("{}", *x) : std::string(); };
  for (const auto& r : v.rows) {
    const bool predicted = r.error.empty();
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", r.line, r.size, kErrorBands[error_band(r.size)],
                       r.measured_us, predicted ? fmt::format("{}", to_us(r.predicted)) : std::string(),
                       predicted ? fmt::format("{}", r.error_pct) : std::string(), r.measured_algbw_GBps,
                       opt(r.predicted_algbw_GBps), r.measured_busbw_GBps, opt(r.predicted_busbw_GBps),
                       csv_field(r.error), r.algorithm, r.protocol,
                       predicted ? fmt::format("{}", r.channels) : std::string(),
                       predicted ? fmt::format("{}", r.host_bound) : std::string());
  }
  return out;
}

Table compare_chart_table(const CompareView& v) {
  Table t;
  t.columns = {"size_bytes", "time_us", "series"};
  // Exact decimal text: the chart reads the same numbers the table prints.
  for (const auto& r : v.rows) t.rows.push_back({fmt::format("{}", r.size), fmt::format("{}", r.measured_us), "measured"});
  for (const auto& r : v.rows)
    if (r.error.empty()) t.rows.push_back({fmt::format("{}", r.size), fmt::format("{}", to_us(r.predicted)), "predicted"});
  return t;
}

ChartSpec compare_chart_spec(const CompareView& v) {
  ChartSpec spec;
  spec.x = "size_bytes";
  spec.y = "time_us";
  spec.by = "series";
  spec.title = fmt::format("{} {} on {}: measured ({}) and predicted ({})", v.ranks, v.collective, v.topology, v.log,
                           v.algorithm);
  return spec;
}

}  // namespace collsim::reports
