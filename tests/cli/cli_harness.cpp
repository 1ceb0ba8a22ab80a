#include "tests/cli/cli_harness.hpp"

#include <unistd.h>

#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "tests/scratch_root.hpp"
#include "tools/cli.hpp"

namespace collsim::testing {

CliRun run_collsim(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  const int code = cli::run(args, out, err);
  return {code, out.str(), err.str()};
}

void check_bad_input(const std::vector<std::string>& args, const std::string& what) {
  const auto r = run_collsim(args);
  INFO(r.err);
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK_THAT(r.err, Catch::StartsWith("collsim: error: ") && Catch::Contains(what));
}

nlohmann::json simulate_json(std::vector<std::string> args) {
  args.insert(args.begin(), "simulate");
  args.insert(args.end(), {"--format", "json"});
  const auto r = run_collsim(args);
  INFO(r.err);
  REQUIRE(r.code == 0);
  return nlohmann::json::parse(r.out);
}

std::filesystem::path scratch_dir(const std::string& name) {
  // Under this process's scratch folder: two test runs at once must not delete each other's files,
  // and the runner removes the folder at the end.
  const auto dir = scratch_root() / ("dir_" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

std::string temp_file(const std::string& name, const std::string& text) {
  std::filesystem::create_directories(scratch_root());
  const auto path = scratch_root() / name;
  std::ofstream(path) << text;
  return path.string();
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace collsim::testing
