// The collsim command line: subcommands simulate, compare, explain, topo and algorithms (CLI11).
#pragma once

#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "run/errors.hpp"

namespace collsim::cli {

/// Exit codes: 0 success; 1 a check failed; 2 bad input (flags, files, topologies): one error line
/// on stderr; 3 no GPU to run on (a build without CUDA, or no GPU found): one line saying which;
/// 70 an internal error (a bug in collsim); 74 the output could not be written.
inline constexpr const char* kVersion = "0.1.0";
inline constexpr int kExitOk = 0;
inline constexpr int kExitCheckFailed = 1;
inline constexpr int kExitBadInput = 2;
inline constexpr int kExitNoGpu = 3;
inline constexpr int kExitInternal = 70;
inline constexpr int kExitOutput = 74;

/// Bad input on the command line; what() names the flag, what was found and what was expected.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// An output file or stream could not be written (exit 74); what() names it and the reason.
using OutputError = run::OutputError;

/// `validate` or `topo --detect` has nothing to run on (exit 3); what() says what is missing.
class NoGpuError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Runs collsim with `args` (without the program name), writing results to `out` and
/// diagnostics to `err`. Returns the exit code; never throws.
int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace collsim::cli
