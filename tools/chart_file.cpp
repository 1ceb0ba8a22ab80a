#include "tools/chart_file.hpp"

#include <filesystem>

#include <unistd.h>

#include <fmt/format.h>

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

void render_chart_atomically(std::string_view flag, const reports::Table& table, const reports::ChartSpec& spec,
                             const std::string& path) {
  const std::filesystem::path output(path);
  // Same extension as the chart, so gnuplot picks the same terminal.
  const auto temp = output.parent_path() / fmt::format(".{}.tmp-{}{}", output.filename().string(), ::getpid(),
                                                       output.extension().string());
  try {
    reports::render_chart(table, spec, temp);
    std::filesystem::rename(temp, output);
  } catch (const reports::ChartError& e) {
    std::filesystem::remove(temp);
    throw UsageError(for_flag(flag, e));
  } catch (const std::filesystem::filesystem_error& e) {
    std::filesystem::remove(temp);
    throw OutputError(fmt::format("{}: cannot be written: {}", path, e.code().message()));
  }
}

}  // namespace collsim::cli
