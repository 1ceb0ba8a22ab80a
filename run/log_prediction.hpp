// An nccl-tests log and the runs that predict its rows: what `compare` and `calibrate` share
// (which collective and how many ranks the log measured, on which topology, and one row's
// prediction by the same path as a single simulation). The topology is loaded once per log.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "reports/compare_report.hpp"
#include "sim/summary.hpp"
#include "run/request.hpp"
#include "run/simulate.hpp"
#include "validation/nccl_log.hpp"

namespace collsim::run {

/// What to predict a log with.
struct LogRequest {
  std::string log;                                ///< the nccl-tests output file
  TopologySpec topology;
  std::string algorithm = "nccl";                 ///< default: NCCL's choice per row, as a log of NCCL's default ran
  std::optional<std::uint32_t> ranks;             ///< needed when the log does not say
  std::optional<sched::Collective> collective;    ///< needed when the log does not say
  std::string network = "flow";
  ModelOptions model;                             ///< its formula is not used
  /// Rows compare_log predicts at once (threads, >= 1); the comparison is the same for any count.
  unsigned threads = 1;
};

/// The collective of `text`: a collective name (allreduce) or an nccl-tests program
/// (all_reduce_perf). Throws RequestError (Field::Collective).
[[nodiscard]] sched::Collective parse_log_collective(std::string_view text);

/// A log read and settled: its collective and rank count (the log's, or the request's for a log
/// with only result rows) and the topology to predict it on, loaded once.
struct LogRun {
  validation::NcclLog log;
  sched::Collective collective = sched::Collective::AllReduce;
  std::uint32_t ranks = 0;
  topo::Topology topology;
  /// The routes' links on `topology`, found once for every row and every evaluation of a fit.
  std::unique_ptr<topo::PathTable> paths = std::make_unique<topo::PathTable>();
};

/// Reads request.log and settles its collective, ranks and topology. Throws RequestError naming the
/// log line or the field (collective, ranks, topology) that is missing or disagrees with the log.
[[nodiscard]] LogRun open_log_run(const LogRequest& request);

/// The nccl-tests program that measured the run (the log's, else the one for its collective).
std::string test_program(const LogRun& run);

/// Predicts `row` of `run` with the request's algorithm and network and the model options `model`
/// (the request's, or calibrate's trial values in `model.fitted`). Throws as prepare() does.
/// The run folds identical channels where the network model allows (Ops::TimesOnly): every time,
/// rate and byte count of the summary is the full run's, its `events` the folded run's.
[[nodiscard]] sim::Summary predict_row(const LogRun& run, const LogRequest& request, const ModelOptions& model,
                                       const validation::NcclRow& row,
                                       const algo::AlgorithmRegistry& registry = builtin_algorithms());

/// A log's rows beside their predictions, with the error per size band.
struct LogComparison {
  reports::CompareView view;
  /// One line per row that could not be predicted (its time passes the clock), newline-terminated.
  std::vector<std::string> warnings;
};

/// Predicts every row of `run` (run/log_prediction.hpp predict_row) and compares, request.threads
/// rows at a time (each thread with its own route table; the result is the same for any count). A
/// row whose time passes the clock is kept with its error (spelled by `spell`) and a warning; the
/// others are predicted. Throws RequestError (Field::Log) when no row could be predicted, and as
/// predict_row does for the first row (in the log's order) that fails otherwise.
[[nodiscard]] LogComparison compare_log(const LogRun& run, const LogRequest& request, FieldSpelling spell,
                                        const algo::AlgorithmRegistry& registry = builtin_algorithms());

/// `row` beside its prediction `s`.
reports::ComparedRow compared_row(const validation::NcclRow& row, const sim::Summary& s);
/// The log's side of a comparison row (line, size, measured time and bandwidths), nothing predicted:
/// for a row that could not be simulated.
reports::ComparedRow measured_row(const validation::NcclRow& row);

}  // namespace collsim::run
