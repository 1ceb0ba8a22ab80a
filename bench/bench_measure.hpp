// Measuring one run of a benchmark workload in a forked child process, so that each run's peak
// memory is its own (getrusage's ru_maxrss of a process only ever grows) and a run that fails,
// runs out of memory or crashes cannot take the caller down with it.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "bench/bench_cases.hpp"

namespace collsim::bench {

/// How a run ended.
enum class RunStatus : std::uint8_t {
  Ok,
  NotAvailable,  ///< the workload threw NotAvailable
  Failed,        ///< it threw another exception, or the child died (signal, memory limit)
  TimedOut,      ///< it ran longer than the time limit and was stopped
};

/// One measured run.
struct Measurement {
  RunStatus status = RunStatus::Failed;
  double wall_s = 0;              ///< wall-clock seconds of the workload alone (steady clock)
  double cpu_s = 0;               ///< CPU seconds of the workload (user + system, CLOCK_PROCESS_CPUTIME_ID)
  std::uint64_t peak_rss_bytes = 0;  ///< the child's peak resident set (wait4's ru_maxrss), which
                                     ///< includes what it shares with the parent at fork (a few MiB)
  Work work;                      ///< what the workload reported (Ok only)
  std::string message;            ///< why it is not Ok, one line
};

/// Limits on one run; 0 means none.
struct RunLimits {
  std::uint64_t memory_bytes = 0;  ///< caps the child's address space (RLIMIT_AS), so a case too large
                                   ///< for the machine fails with a message instead of meeting the OOM killer
  unsigned time_s = 0;             ///< wall-clock seconds before the child is stopped (alarm)
};

/// Runs `workload` once in a forked child and measures it. Never throws for the workload's
/// errors; throws std::runtime_error when the system cannot fork or make a pipe.
Measurement measure_in_child(const std::function<Work()>& workload, const RunLimits& limits);

}  // namespace collsim::bench
