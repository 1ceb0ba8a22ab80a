// Running the collsim binary as a child process under conditions a test sets: a file-size limit
// (a full disk without root or mounts), or a PATH of the test's own (a fake gnuplot).
#pragma once

#include <sys/resource.h>

#include <optional>
#include <string>
#include <vector>

namespace collsim::testing {

/// What a child run of collsim gave.
struct ChildRun {
  int code = -1;    ///< its exit status; -1 when a signal ended it
  int signal = 0;   ///< the signal that ended it, 0 when it exited
  std::string err;  ///< everything it wrote on standard error
};

/// The conditions of a child run.
struct ChildOptions {
  /// RLIMIT_FSIZE in bytes, with SIGXFSZ ignored: a write past it fails with EFBIG, as on a full
  /// file system; programs the child starts (gnuplot) inherit it.
  std::optional<rlim_t> file_size_limit;
  std::optional<std::string> path;  ///< the child's PATH, in place of this process's
};

/// Runs COLLSIM_BINARY with `args` (standard output to /dev/null) as `options` say, and waits for it.
ChildRun run_collsim_child(const std::vector<std::string>& args, const ChildOptions& options = {});

}  // namespace collsim::testing
