// Running the collsim command line in-process, for the CLI tests: the exit code and what it
// printed, and the check every bad-input test makes (tools/cli.hpp: one error line, exit 2).
#pragma once

#include <catch2/catch.hpp>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "tools/cli.hpp"

namespace collsim::test {

/// What one in-process run of collsim returned and printed.
struct Out {
  int code;
  std::string out;
  std::string err;
};

/// Runs collsim with `args` (without the program name).
inline Out run_collsim(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  const int code = cli::run(args, out, err);
  return {code, out.str(), err.str()};
}

/// A bad-input failure: exit 2, nothing on stdout, and exactly one line on stderr that starts
/// with "collsim: error: " and contains `what`.
inline void check_bad_input(const std::vector<std::string>& args, const std::string& what) {
  const auto r = run_collsim(args);
  INFO(r.err);
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK_THAT(r.err, Catch::StartsWith("collsim: error: ") && Catch::Contains(what));
}

}  // namespace collsim::test
