// Shared by the CLI tests of sweep, merge, trace and topo: running collsim in-process or as a
// child process, temporary folders, and reading files.
#pragma once

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tools/cli.hpp"

namespace collsim::test {

struct CliOut {
  int code;
  std::string out;
  std::string err;
};

/// collsim `args`, in-process.
inline CliOut run_cli(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  const int code = collsim::cli::run(args, out, err);
  return {code, out.str(), err.str()};
}

/// A bad-input failure: exit 2 and exactly one line on stderr that contains `what`.
inline void check_bad_input(const std::vector<std::string>& args, const std::string& what) {
  const auto r = run_cli(args);
  INFO(r.err);
  CHECK(r.code == 2);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK_THAT(r.err, Catch::StartsWith("collsim: error: ") && Catch::Contains(what));
}

/// A fresh, empty folder under the system's temporary folder.
inline std::filesystem::path fresh_dir(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / ("collsim_test_" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

inline std::string slurp(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace collsim::test
