#include "tools/chart_file.hpp"

#include <filesystem>

#include <fmt/format.h>

#include "run/atomic_file.hpp"
#include "tools/cli.hpp"

namespace collsim::cli {
namespace {

// The chart module names -o (collsim plot's flag) in its file-type message; another command's
// flag replaces it. An empty flag keeps the message as it is.
std::string for_flag(std::string_view flag, const reports::ChartError& e) {
  std::string message = e.what();
  if (flag.empty()) return message;
  if (message.rfind("-o: ", 0) == 0) message.erase(0, 4);
  return fmt::format("{}: {}", flag, message);
}

}  // namespace

void check_chart_file(std::string_view flag, const std::string& path) {
  try {
    (void)reports::chart_terminal(path);
  } catch (const reports::ChartError& e) {
    throw UsageError(for_flag(flag, e));
  }
}

void render_chart_atomically(std::string_view context, std::string_view source, const reports::Table& table,
                             const reports::ChartSpec& spec, const std::string& path) {
  const std::filesystem::path output(path);
  // gnuplot draws into a pipe; each piece is written (and checked) into a temporary file beside
  // the chart, renamed over it once complete (readers never see half a chart), or straight into a
  // device or FIFO (run/atomic_file.hpp).
  try {
    run::write_output(output, [&](int fd) {
      reports::render_chart(table, spec, output, [&](std::string_view bytes) { run::write_bytes(output, fd, bytes); });
    });
  } catch (const reports::ChartError& e) {
    throw UsageError(fmt::format("{}: {}: {}", context, source, e.what()));
  }
}

}  // namespace collsim::cli
