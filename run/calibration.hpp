// Fitting the model parameters to an nccl-tests log (collsim calibrate, issue 4 point 7).
//
// What is fitted, starting from the parameters a run would use (the topology's, --params, the
// flags; NCCL's constants where none is set):
//   * one factor s on every latency: the base latencies (both families, every protocol) and the
//     step latencies of every link class that a step of the ring over the log's ranks crosses;
//   * the link efficiency e_c of each class c that holds a bottleneck of the ring's routes, in
//     [0.001, 1] (latency factors stay in [e^-7, e^7]), where at least two fitted rows are bound by
//     that bandwidth (kBandwidthBoundShare); otherwise e_c keeps its value and a note says why.
// Why one latency factor: a log runs one N, and a ring all-reduce pays base + 2(N-1)·step, so
// one log cannot tell the base from the step latency (nor one protocol's from another's); the fit
// keeps NCCL's ratios between them (src/graph/tuning.cc, topologies/nccl_tuning.hpp) and moves
// their level. That is what lets a fit on 2 GPUs predict 4 (tests/cli/compare_cli_test.cpp):
// fitting base and step apart on the 2-GPU L40S log gave 12 % median error on the 4-GPU log,
// one factor gives less than 10 %.
// The objective is the mean of (ln predicted - ln measured)² over the fitted rows (least squares
// on log time, so a 10 µs row weighs as much as a 10 ms one), minimised by Nelder-Mead
// (validation/nelder_mead.hpp) over ln s and ln e_c, every prediction a full simulation by the
// same path as `collsim compare`.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "run/log_prediction.hpp"
#include "topologies/model_params.hpp"

namespace collsim::run {

/// One fitted quantity, at the start and after the fit.
struct FittedValue {
  std::string name;  ///< e.g. "base latency, ring simple", "link efficiency, pcie"
  std::string unit;  ///< "us" or "" (a ratio)
  double start = 0;
  double fitted = 0;
  /// One standard error of the fitted value, in % of it (from the objective's curvature); nullopt
  /// when it was not fitted (kept) or the fit was not kept.
  std::optional<double> uncertainty_pct;
};

/// One log of a fit: its rows fitted and their median |error| before and after.
struct LogFit {
  std::string log;
  std::size_t rows = 0;
  double median_abs_error_start_pct = 0;
  double median_abs_error_pct = 0;
};

/// The outcome of a fit.
struct Calibration {
  /// What the parameter file holds: the fitted latencies and efficiencies, the protocol (auto
  /// when no layer set one: without a protocol there is no latency to fit), and the channels and
  /// slice that flags gave.
  topo::ModelParams params;
  std::vector<FittedValue> values;
  std::size_t rows = 0;         ///< rows fitted
  std::size_t evaluations = 0;  ///< objective evaluations (each simulates every fitted row)
  double rms_log_error_start = 0;  ///< sqrt of the objective at the start
  double rms_log_error = 0;        ///< ... after the fit
  double median_abs_error_start_pct = 0;  ///< median |error| of the fitted rows at the start
  double median_abs_error_pct = 0;        ///< ... after the fit
  /// Per log, in the order given.
  std::vector<LogFit> logs;
  /// What was not fitted and why (an efficiency no fitted row is bound by), one line each.
  std::vector<std::string> notes;
};

/// A row is bound by a link class's bandwidth when halving that class's efficiency lengthens it
/// by at least 2^0.5 (half or more of its time moves with the bandwidth); an efficiency is
/// fitted only when at least kBandwidthBoundRows fitted rows are.
inline constexpr double kBandwidthBoundShare = 0.5;
inline constexpr std::size_t kBandwidthBoundRows = 2;
/// A fit is not kept when it raises the fitted rows' median |error| by more than this many points.
inline constexpr double kWorseMedianPoints = 1.0;
/// The smallest efficiency a fit may give: a link that delivers 1/1000 of its rate is broken.
inline constexpr double kMinEfficiency = 1e-3;

/// Fits `rows` (a non-empty subset of run.log.rows) of `run` with `o`'s algorithm and model
/// options, in at most `max_evaluations` evaluations. Throws as predict_row does.
[[nodiscard]] Calibration calibrate(const LogRun& run, const LogRequest& o, std::span<const validation::NcclRow> rows,
                                    std::size_t max_evaluations);

/// A log and the rows of it to fit (a non-empty subset of run->log.rows).
struct LogRows {
  const LogRun* run = nullptr;
  std::vector<validation::NcclRow> rows;
};

/// Fits every log's rows at once (one machine: the same topology, algorithm and model options `o`,
/// several N or collectives): the objective is the mean over all their rows, and the result says
/// each log's error. `logs` is non-empty and every run is on the same topology. Throws as predict_row.
[[nodiscard]] Calibration calibrate(std::span<const LogRows> logs, const LogRequest& o, std::size_t max_evaluations);

}  // namespace collsim::run
