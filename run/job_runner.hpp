// Running a sweep's jobs on several threads without losing work: each finished row is appended at
// once to a partial file beside the output (".NAME.partial"); the output is written atomically
// from it, in job order, when every job has run; `--resume` reloads what a killed or interrupted
// run had finished; SIGINT and SIGTERM stop it cleanly (running jobs are told to stop, and with
// the rest wait for a --resume). The partial file is locked while a sweep runs, so that a second sweep to the same
// output is refused; a write that fails stops the sweep at once.
#pragma once

#include <cstddef>
#include <filesystem>
#include <atomic>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "run/errors.hpp"

namespace collsim::run {

/// What one job produced: its output record (newline-terminated), or why it was skipped.
struct JobOutcome {
  bool skipped = false;
  std::string text;  ///< the record, or the reason for skipping it
  std::string note;  ///< a record's one-line notice for stderr (e.g. why its time is empty), "" for none
};

/// How to run the jobs 0 .. count-1.
struct SweepRunSpec {
  std::size_t count = 0;
  std::string header;       ///< written before the records ("" for none)
  /// Written after the records of a sweep that ran every job, given the skipped jobs (ascending);
  /// empty: nothing.
  std::function<std::string(const std::vector<std::size_t>& skipped)> footer;
  std::string fingerprint;  ///< identifies the sweep, so --resume never mixes two different ones
  std::optional<std::filesystem::path> output;  ///< the file; none: standard output (no partial file, nor for a device or FIFO)
  bool resume = false;      ///< continue from the partial file (needs `output`)
  unsigned threads = 1;     ///< >= 1
  bool progress = false;    ///< draw a progress bar on the error stream (for a terminal)
  bool need_a_row = false;
  FieldSpelling spelling = nullptr;  ///< how notices on the error stream spell fields (the front end's; null: names)  ///< when jobs ran and all were skipped, write nothing, not even the header (the caller fails)
};

/// What run_jobs did.
struct SweepRunReport {
  std::size_t finished = 0;  ///< jobs done (this run and, with --resume, before)
  std::size_t skipped = 0;   ///< of which skipped
  std::optional<std::size_t> first_skipped;  ///< the lowest skipped job
  std::string first_skip_reason;
  std::vector<std::pair<std::size_t, std::string>> notes;  ///< (job, note) of the jobs done with a note, by job
  std::size_t printed = 0;   ///< standard output: the jobs 0 .. printed-1 are on it (their records or skips)
  int signal = 0;            ///< the signal that interrupted the run, 0 when it completed
  std::filesystem::path partial;  ///< the partial file (kept when interrupted); empty when there is none
};

/// The partial file of `output`: ".NAME.partial" in its folder.
std::filesystem::path partial_path(const std::filesystem::path& output);

/// One job: its outcome, given a flag that turns true when a signal stops the run (a job that sees it
/// may end early by throwing sim::Stopped; it is then not done, and runs again on --resume).
using Job = std::function<JobOutcome(std::size_t, const std::atomic<bool>& stop)>;

/// Runs `job(i)` for every job not yet done, on spec.threads threads, and writes spec.header and
/// the records in job order to the output (atomically) or to `out`. `job` must be safe to call
/// from several threads at once. Throws RequestError (Field::Resume, Field::Output) for a partial file that exists without
/// --resume or belongs to another sweep; OutputError when another sweep holds the partial file's
/// lock, and when a file or `out` cannot be written (no further job starts after the first failed
/// write; the partial file keeps the whole lines written before it, for --resume); and rethrows
/// the exception of the lowest failed job.
SweepRunReport run_jobs(const SweepRunSpec& spec, const Job& job,
                        std::ostream& out, std::ostream& err);

}  // namespace collsim::run
