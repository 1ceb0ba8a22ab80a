// Writers for `collsim compare`: every row of an nccl-tests log beside its prediction, and the error
// by size band.
//
// JSON keys (stable): log, test, collective, algorithm, topology, network, ranks, devices (distinct
// device names from the log's "# Rank" lines), hosts (how many distinct hosts they name, 0 if none),
// rows [{line, size_bytes, measured_us, predicted_us, error_pct, measured_algbw_GBps,
// predicted_algbw_GBps, measured_busbw_GBps, predicted_busbw_GBps, error}] (predicted bandwidths are
// null when the predicted time is 0; error is null, or for a row that could not be predicted, its
// time past the simulated clock's end, why, with predicted_us, error_pct and the predicted
// bandwidths null), summary [{band, rows, median_abs_error_pct, max_abs_error_pct}] for the bands
// "<64KiB", "64KiB-16MiB", ">16MiB" and "all" (of the predicted rows; null statistics for a band
// without rows). CSV: one line per row with the scalar row fields, the band and error; the summary
// is in the table and JSON. The table prints "-" for what a row without prediction lacks, and why
// below the rows.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "reports/chart.hpp"
#include "reports/error_bands.hpp"
#include "sim/units/units.hpp"

namespace collsim::reports {

/// One log row and its prediction.
struct ComparedRow {
  std::size_t line = 0;  ///< line of the row in the log
  Bytes size = 0;
  double measured_us = 0;
  double measured_algbw_GBps = 0;
  double measured_busbw_GBps = 0;
  Time predicted{0};
  std::optional<double> predicted_algbw_GBps;  ///< empty when the predicted time is 0
  std::optional<double> predicted_busbw_GBps;
  double error_pct = 0;  ///< (predicted - measured) / measured · 100
  std::string error;     ///< why the row has no prediction (then predicted and error_pct mean nothing); "" when it has one
  std::string algorithm; ///< the algorithm that predicted it (NCCL's choice may differ per row); "" when none did
  std::string protocol;  ///< the protocol it ran ("ll", "ll128", "simple"; "none" for the ideal model); "" when none did
  std::uint32_t channels = 0;  ///< the channels it ran on (NCCL's per-size count where it applies); 0 when none did
  bool host_bound = false;     ///< the host's launches, not the collective, set the predicted time (sim::Summary)
};

/// Everything a compare report shows.
struct CompareView {
  std::string log;         ///< the log file as given
  std::string test;        ///< the nccl-tests program, e.g. "all_reduce_perf" (from the log or --collective)
  std::string collective;  ///< collsim's name, e.g. "allreduce"
  std::string algorithm;
  std::string topology;
  std::string network;
  /// True when NCCL's choice picked each row's algorithm (`algorithm` is then the one every row
  /// ran, or "nccl" when rows ran different ones; each row says its own).
  bool nccl_choice = false;
  std::uint32_t ranks = 0;
  std::vector<std::string> devices;  ///< the distinct device names the log lists, in order (may be empty)
  std::size_t hosts = 0;             ///< the distinct hosts the log lists (0 when it lists none)
  /// The pasted forms the log reader met (validation::NcclLog::forms); empty for a log as printed.
  std::vector<std::string> log_forms;
  /// GPUs one host thread drove (sim::Summary::gpus_per_thread) and where that came from (the
  /// log's nGpus, the flag, or the default).
  std::uint32_t gpus_per_thread = 1;
  std::string gpus_per_thread_source = "default";
  std::vector<ComparedRow> rows;
  std::vector<BandSummary> bands;  ///< summarize_error_bands of the predicted rows
};

/// The human table: a title, one line per row, then the bands.
std::string render_compare_table(const CompareView& view);
/// One JSON document (pretty-printed, keys in a fixed order, newline-terminated).
std::string render_compare_json(const CompareView& view);
/// RFC 4180 CSV: a header row and one line per row.
std::string render_compare_csv(const CompareView& view);

/// The chart of a compare (`compare --plot`), as a table for render_chart: columns size_bytes,
/// time_us and series ("measured" or "predicted"), two records per predicted row, one per other.
Table compare_chart_table(const CompareView& view);
/// Time against size, one line per series, titled with the log, collective and topology.
ChartSpec compare_chart_spec(const CompareView& view);

}  // namespace collsim::reports
