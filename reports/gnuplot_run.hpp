// Running gnuplot on a script held in memory, over pipes only: the script goes to its standard
// input, the chart it draws on its standard output is handed to the caller piece by piece, its
// messages are kept. gnuplot never writes a file itself, because it ignores its own write errors
// (on a full disk or past a file-size limit it exits 0 with a cut chart); the caller writes, and
// checks, every byte.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace collsim::reports {

/// How a gnuplot run ended.
struct GnuplotRun {
  int exit_status = 0;      ///< its exit status; -1 when a signal ended it
  int signal = 0;           ///< the signal that ended it, 0 when it exited
  std::string messages;     ///< what it wrote on its standard error (the first 64 KiB)
  std::uint64_t bytes = 0;  ///< bytes of its standard output, all handed to the sink
  std::string tail;         ///< the last (up to 32) bytes of its standard output
};

/// Runs `gnuplot` from the PATH with `script` on its standard input, calling `sink` with each piece
/// of its standard output, in order, as it comes. When `sink` throws, gnuplot is killed and waited
/// for, and the exception passes through. Throws ChartError (reports/chart.hpp) when gnuplot cannot
/// be started or its pipes fail. A SIGPIPE from a gnuplot that stops reading its script early (on an
/// error in it) is kept from ending this process; its exit status then says why.
GnuplotRun run_gnuplot(std::string_view script, const std::function<void(std::string_view)>& sink);

}  // namespace collsim::reports
