// An nccl-tests log and the runs that predict its rows: what `compare` and `calibrate` share
// (which collective and how many ranks the log measured, on which topology, and one row's
// prediction by the same path as `collsim simulate`).
#pragma once

#include <cstdint>
#include <string>

#include "reports/compare_report.hpp"
#include "sim/summary.hpp"
#include "tools/commands.hpp"
#include "validation/nccl_log.hpp"

namespace collsim::cli {

/// A log read and settled: its collective and rank count (the log's, or the flags' for a log
/// with only result rows) and the topology to predict it on.
struct LogRun {
  validation::NcclLog log;
  sched::Collective collective = sched::Collective::AllReduce;
  std::uint32_t ranks = 0;
  TopologyOptions topology;  ///< TOPOLOGY or --topology, checked to have at least `ranks` GPUs
};

/// Registers LOG, TOPOLOGY (and the generator flags), --topology, --algorithm, --ranks,
/// --collective and the fidelity flags but --model on `cmd`.
void add_log_run_flags(CLI::App& cmd, CompareOptions& o);

/// Reads o.log and settles its collective, ranks and topology. Throws UsageError naming the log
/// line or the flag (--collective, --ranks, --topology) that is missing or disagrees with the log.
LogRun open_log_run(const CompareOptions& o);

/// The nccl-tests program that measured the run (the log's, else the one for its collective).
std::string test_program(const LogRun& run);

/// Predicts `row` of `run` with `o`'s algorithm and fidelity flags (and `fidelity.fitted`, when
/// set, over them). Throws as simulate_summary does.
sim::Summary predict_row(const LogRun& run, const CompareOptions& o, const FidelityOptions& fidelity,
                         const validation::NcclRow& row);

/// `row` beside its prediction `s`.
reports::ComparedRow compared_row(const validation::NcclRow& row, const sim::Summary& s);
/// The log's side of a comparison row (line, size, measured time and bandwidths), nothing predicted:
/// for a row that could not be simulated.
reports::ComparedRow measured_row(const validation::NcclRow& row);

}  // namespace collsim::cli
