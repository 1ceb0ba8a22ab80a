// Running the collsim command line in-process from tests, and the check every bad-input case shares.
#pragma once

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tools/cli.hpp"

namespace collsim::test {

/// What one run printed, and its exit code.
struct Out {
  int code;
  std::string out;
  std::string err;
};

/// Runs `collsim ARGS...` in-process.
inline Out run_collsim(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  const int code = collsim::cli::run(args, out, err);
  return {code, out.str(), err.str()};
}

/// A bad-input failure: exit 2, nothing on stdout, exactly one line on stderr that contains `what`.
inline void check_bad_input(const std::vector<std::string>& args, const std::string& what) {
  const auto r = run_collsim(args);
  INFO(r.err);
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK_THAT(r.err, Catch::StartsWith("collsim: error: ") && Catch::Contains(what));
}

/// `collsim simulate ARGS... --format json`, which must succeed; its document.
inline nlohmann::json simulate_json(std::vector<std::string> args) {
  args.insert(args.begin(), "simulate");
  args.insert(args.end(), {"--format", "json"});
  const auto r = run_collsim(args);
  INFO(r.err);
  REQUIRE(r.code == 0);
  return nlohmann::json::parse(r.out);
}

/// Writes `text` to a file named after `name` in the temporary folder; returns its path.
inline std::string temp_file(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / ("collsim_test_" + name);
  std::ofstream(path) << text;
  return path.string();
}

}  // namespace collsim::test
