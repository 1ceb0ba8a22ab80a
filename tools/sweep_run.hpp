// Running a sweep's jobs on several threads without losing work: each finished row is appended at
// once to a partial file beside the output (".NAME.partial"); the output is written atomically
// from it, in job order, when every job has run; `--resume` reloads what a killed or interrupted
// run had finished; SIGINT and SIGTERM stop it cleanly (running jobs finish, the rest wait for a
// --resume).
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <optional>
#include <ostream>
#include <string>

namespace collsim::cli {

/// What one job produced: its output record (newline-terminated), or why it was skipped.
struct JobOutcome {
  bool skipped = false;
  std::string text;  ///< the record, or the reason for skipping it
};

/// How to run the jobs 0 .. count-1.
struct SweepRunSpec {
  std::size_t count = 0;
  std::string header;       ///< written before the records ("" for none)
  std::string fingerprint;  ///< identifies the sweep, so --resume never mixes two different ones
  std::optional<std::filesystem::path> output;  ///< the file; none: standard output (no partial file, nor for a device or FIFO)
  bool resume = false;      ///< continue from the partial file (needs `output`)
  unsigned threads = 1;     ///< >= 1
  bool progress = false;    ///< draw a progress bar on the error stream (for a terminal)
  bool need_a_row = false;  ///< when jobs ran and all were skipped, write nothing, not even the header (the caller fails)
};

/// What run_jobs did.
struct SweepRunReport {
  std::size_t finished = 0;  ///< jobs done (this run and, with --resume, before)
  std::size_t skipped = 0;   ///< of which skipped
  std::optional<std::size_t> first_skipped;  ///< the lowest skipped job
  std::string first_skip_reason;
  int signal = 0;            ///< the signal that interrupted the run, 0 when it completed
  std::filesystem::path partial;  ///< the partial file (kept when interrupted); empty when there is none
};

/// The partial file of `output`: ".NAME.partial" in its folder.
std::filesystem::path partial_path(const std::filesystem::path& output);

/// Runs `job(i)` for every job not yet done, on spec.threads threads, and writes spec.header and
/// the records in job order to the output (atomically) or to `out`. `job` must be safe to call
/// from several threads at once. Throws UsageError for a partial file that exists without
/// --resume or belongs to another sweep, OutputError when a file cannot be written, and rethrows
/// the exception of the lowest failed job.
SweepRunReport run_jobs(const SweepRunSpec& spec, const std::function<JobOutcome(std::size_t)>& job,
                        std::ostream& out, std::ostream& err);

}  // namespace collsim::cli
