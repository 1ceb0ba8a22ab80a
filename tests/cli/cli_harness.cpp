#include "tests/cli/cli_harness.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>

#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "tests/scratch_root.hpp"

namespace collsim::testing {

namespace {

// What a file holds, or "" (the child's output files).
std::string slurp(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

CliRun run_collsim(const std::vector<std::string>& args) {
  // The program itself, as a user runs it: the tests see the CLI only through its arguments,
  // streams and exit code. Its streams go to files (no pipe to drain while waiting); everything the
  // child needs is made before fork, after which only async-signal-safe calls run.
  static std::uint64_t calls = 0;  // names this process's output files apart (tests run one at a time)
  std::filesystem::create_directories(scratch_root());
  const auto base = scratch_root() / ("cli_run_" + std::to_string(++calls));
  const std::string out_path = base.string() + ".out", err_path = base.string() + ".err";
  std::vector<std::string> all{COLLSIM_BINARY};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  const int out_fd = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  const int err_fd = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  REQUIRE(out_fd >= 0);
  REQUIRE(err_fd >= 0);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::dup2(out_fd, STDOUT_FILENO);
    ::dup2(err_fd, STDERR_FILENO);
    ::execv(COLLSIM_BINARY, argv.data());
    ::_exit(127);
  }
  ::close(out_fd);
  ::close(err_fd);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  CliRun run{WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), slurp(out_path), slurp(err_path)};
  std::filesystem::remove(out_path);
  std::filesystem::remove(err_path);
  INFO("collsim " << args.size() << " args: " << run.err);
  REQUIRE(!WIFSIGNALED(status));  // a crash is never an answer
  return run;
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

const nlohmann::json& link_named(const nlohmann::json& simulated, const std::string& from, const std::string& to) {
  for (const auto& l : simulated["links"])
    if (l["from"] == from && l["to"] == to) return l;
  FAIL("no link " << from << "->" << to);
  return simulated;
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
