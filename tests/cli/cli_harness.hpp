// Running the collsim program for the CLI tests (a child process, as a user runs it), and the checks they share.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace collsim::testing {

/// What one run of `collsim ARGS` gave: its exit code and everything it wrote on stdout and stderr.
struct CliRun {
  int code = 0;
  std::string out;
  std::string err;
};

/// Runs the built `collsim args...` (COLLSIM_BINARY) as a child process with this process's
/// environment, working folder and standard input, and waits for it, capturing both output streams.
/// A child ended by a signal fails the test (REQUIRE).
CliRun run_collsim(const std::vector<std::string>& args);

/// Checks (Catch2) a bad-input failure: exit 2, nothing on stdout, exactly one line on stderr that
/// starts with "collsim: error: " and contains `what`.
void check_bad_input(const std::vector<std::string>& args, const std::string& what);

/// `collsim simulate ARGS... --format json`, which must succeed (a Catch2 REQUIRE); its document.
nlohmann::json simulate_json(std::vector<std::string> args);

/// The entry of a simulate document's "links" from `from` to `to`; a Catch2 FAIL when there is none.
const nlohmann::json& link_named(const nlohmann::json& simulated, const std::string& from, const std::string& to);

/// A fresh, empty folder named after `name` in this process's scratch folder (scratch_root.hpp).
std::filesystem::path scratch_dir(const std::string& name);

/// Writes `text` to a file named after `name` in this process's scratch folder; returns its path.
std::string temp_file(const std::string& name, const std::string& text);

/// The whole content of the file at `path` ("" when it cannot be read).
std::string read_file(const std::filesystem::path& path);

}  // namespace collsim::testing
