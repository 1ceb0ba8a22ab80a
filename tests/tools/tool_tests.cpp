// Tests that run collsim as a real process or need programs from outside (gnuplot, python3):
// killing a sweep halfway (SIGKILL, SIGINT) and resuming it; charts; the CSV read by Python.
// A test whose program is missing exits with 77, which CTest reports as skipped.
#include <catch2/catch.hpp>

#include <fstream>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <cerrno>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>

#include <fmt/format.h>

#include "reports/chart.hpp"
#include "reports/sweep_row.hpp"
#include "tests/cli/cli_harness.hpp"

extern char** environ;  // POSIX: declared by no header, and global

// One namespace per test file: CI builds the tests as unity sources (.ci/run), where each file's
// helpers would otherwise meet the other files'.
namespace tool_tests {

using collsim::testing::scratch_dir;
using collsim::testing::run_collsim;
using collsim::testing::read_file;

namespace {

constexpr int kSkip = 77;

bool on_path(const std::string& program) {
  return std::system(("command -v " + program + " >/dev/null 2>&1").c_str()) == 0;
}

void require_program(const std::string& program) {
  if (on_path(program)) return;
  WARN(program << " is not installed; skipped");
  std::exit(kSkip);
}

// Starts collsim with `args` as a child process (output to /dev/null); returns its pid.
pid_t spawn_collsim(const std::vector<std::string>& args) {
  std::vector<std::string> all{COLLSIM_BINARY};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, COLLSIM_BINARY, &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  REQUIRE(rc == 0);
  return pid;
}

std::size_t lines_in(const std::filesystem::path& p) {
  const auto text = read_file(p);
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

// A sweep of 16 rows of about 0.1 s each in Release (pipelined tree, 1,024 ranks, 32+ chunks): long
// enough to be caught halfway, and to start two more collsim processes while it runs (32 ranks
// ended the whole sweep in 26 ms, before a second process had started), short enough to run three times.
constexpr std::size_t kSlowRows = 16;
std::vector<std::string> slow_sweep(const std::filesystem::path& out) {
  return {"sweep", "--gpus", "1024", "--fabric", "switch", "--algorithms", "tree", "-b", "16M", "-e", "31M",
          "-i", "1M", "-j", "1", "-o", out.string()};
}

// Kills a real sweep with `sig` once its partial file holds two rows, then resumes it.
void kill_and_resume(int sig, const std::string& name) {
  const auto dir = scratch_dir(name);
  const auto reference = dir / "reference.csv";
  REQUIRE(run_collsim(slow_sweep(reference)).code == 0);

  const auto out = dir / "out.csv";
  const auto partial = dir / ".out.csv.partial";
  const pid_t pid = spawn_collsim(slow_sweep(out));
  // Wait for the header line and two records, or for the child to end on its own (then the checks
  // below fail on its exit status); no wall clock, so a loaded machine cannot make this flaky, and
  // ctest's timeout bounds a child that hangs.
  int status = 0;
  bool ended = false;
  while (lines_in(partial) < 3 && !(ended = ::waitpid(pid, &status, WNOHANG) == pid))
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  if (!ended) {
    ::kill(pid, sig);
    ::waitpid(pid, &status, 0);
  }
  if (sig == SIGKILL) {
    CHECK(WIFSIGNALED(status));
  } else {
    // Ctrl-C: running rows stop, they and the rest wait; exit 128 + SIGINT, finished rows kept.
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 128 + SIGINT);
  }
  CHECK_FALSE(std::filesystem::exists(out));
  REQUIRE(std::filesystem::exists(partial));
  const std::size_t kept = lines_in(partial) - 1;
  CHECK(kept >= 2);
  CHECK(kept < kSlowRows);  // stopped halfway, not after the end
  // Half a record after the last whole one, as a run killed while writing leaves it: dropped.
  std::ofstream(partial, std::ios::app) << "15 ok 1,2";
  // Never overwritten silently; the same command with other options is another sweep.
  const auto again = run_collsim(slow_sweep(out));
  CHECK(again.code == 2);
  CHECK_THAT(again.err, Catch::Contains("--resume"));
  auto other = slow_sweep(out);
  other.insert(other.end(), {"--resume", "--link-bandwidth", "50GB/s"});
  const auto refused = run_collsim(other);
  CHECK(refused.code == 2);
  CHECK_THAT(refused.err, Catch::Contains("different sweep"));

  auto resume = slow_sweep(out);
  resume.push_back("--resume");
  const auto r = run_collsim(resume);
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(read_file(out) == read_file(reference));
  CHECK_FALSE(std::filesystem::exists(partial));
}

// A collsim child process started by start_collsim, with its stderr on a pipe.
struct Child {
  pid_t pid = 0;
  int err_fd = -1;  // the read end of its stderr
};

// Starts collsim with `args`, its stdout to the file `out_path` (created or truncated), its stderr
// to a pipe. With `file_limit` > 0 it runs under RLIMIT_FSIZE of that many bytes with SIGXFSZ
// ignored, so that a write past the limit fails with EFBIG as on a full disk. Every child runs
// under RLIMIT_CPU of kCpuLimit seconds: a child that keeps working after it should have stopped
// is killed by SIGXCPU and fails its test on its wait status, a bound on CPU seconds that the
// machine's load does not move (no wall clock is read).
constexpr rlim_t kCpuLimit = 120;
Child start_collsim(const std::vector<std::string>& args, const std::string& out_path, rlim_t file_limit = 0) {
  std::vector<std::string> all{COLLSIM_BINARY};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  int pipe_fds[2];
  REQUIRE(::pipe(pipe_fds) == 0);
  const int out_fd = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  REQUIRE(out_fd >= 0);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {  // only async-signal-safe calls until exec
    const struct rlimit cpu{kCpuLimit, kCpuLimit};
    ::setrlimit(RLIMIT_CPU, &cpu);
    if (file_limit > 0) {
      const struct rlimit limit{file_limit, file_limit};
      ::setrlimit(RLIMIT_FSIZE, &limit);
      ::signal(SIGXFSZ, SIG_IGN);
    }
    ::dup2(out_fd, STDOUT_FILENO);
    ::dup2(pipe_fds[1], STDERR_FILENO);
    ::close(pipe_fds[0]);
    ::execv(COLLSIM_BINARY, argv.data());
    ::_exit(127);
  }
  ::close(out_fd);
  ::close(pipe_fds[1]);
  return {pid, pipe_fds[0]};
}

// Waits for `child` to exit; returns its wait status and what it wrote on stderr. A child that
// outlives its CPU budget (start_collsim) ends by SIGXCPU, which the callers' exit checks reject.
std::pair<int, std::string> wait_for(const Child& child) {
  int status = 0;
  while (::waitpid(child.pid, &status, 0) < 0 && errno == EINTR) {
  }
  std::string err;
  char buffer[4096];
  for (ssize_t n; (n = ::read(child.err_fd, buffer, sizeof buffer)) > 0;) err.append(buffer, static_cast<std::size_t>(n));
  ::close(child.err_fd);
  return {status, err};
}

// A sweep of 1,025 rows of about a second each (pipelined tree on 256 ranks, 1 to 2 GiB): many
// minutes in all, so a sweep that does not stop at its first failed write outlives its CPU budget
// (start_collsim) and cannot pass for one that does.
constexpr std::size_t kLongRows = 1025;
std::vector<std::string> long_sweep() {
  return {"sweep", "--gpus", "256", "--fabric", "switch", "--algorithms", "tree", "-b", "1G", "-e", "2G", "-i", "1M",
          "-j", "1"};
}

// 3 algorithms x 4 GPU counts x 9 sizes, written to DIR/sweep.csv; returns its path.
std::filesystem::path chart_sweep(const std::filesystem::path& dir) {
  const auto csv = dir / "sweep.csv";
  const auto r = run_collsim({"sweep", "--gpus", "2..16", "--fabric", "switch", "--algorithms", "ring,tree,halving-doubling",
                          "-b", "1K", "-e", "64M", "-f", "4", "-o", csv.string()});
  REQUIRE(r.code == 0);
  return csv;
}

}  // namespace

TEST_CASE("a sweep killed with SIGKILL halfway resumes into the uninterrupted file", "[process][sweep]") {
  kill_and_resume(SIGKILL, "kill9");
}

TEST_CASE("a sweep stopped with SIGINT exits 130, keeps its rows and resumes", "[process][sweep]") {
  kill_and_resume(SIGINT, "sigint");
}

TEST_CASE("a sweep stops at its first failed write, names the file and the reason, and keeps whole lines",
          "[process][sweep]") {
  const auto dir = scratch_dir("write_fails");
  const auto out = dir / "out.csv";
  const auto partial = dir / ".out.csv.partial";
  // Room for the partial file's first line ("collsim sweep partial v1 " and 16 hex digits) and part
  // of the first row's record: that row's write fails.
  constexpr rlim_t kFirstLine = 25 + 16 + 1;
  auto args = long_sweep();
  args.insert(args.end(), {"-o", out.string()});
  const auto [status, err] = wait_for(start_collsim(args, (dir / "stdout").string(), kFirstLine + 60));
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 74);
  CHECK(err == "collsim: error: -o: " + partial.string() + ": cannot be written: " + std::strerror(EFBIG) +
                   fmt::format("; 0 of {} rows are kept in it: free space and run the same command with --resume to finish\n",
                               kLongRows));
  // The half-written record is gone: the partial file holds its first line only, ready for --resume.
  const std::string kept = read_file(partial);
  CHECK(kept.size() == kFirstLine);
  CHECK(kept.starts_with("collsim sweep partial v1 "));
  CHECK(kept.back() == '\n');
  CHECK_FALSE(std::filesystem::exists(out));

  // No room for the first line: nothing is left behind that would pass for an interrupted run.
  std::filesystem::remove(partial);
  const auto [first_status, first_err] = wait_for(start_collsim(args, (dir / "stdout").string(), 10));
  REQUIRE(WIFEXITED(first_status));
  CHECK(WEXITSTATUS(first_status) == 74);
  CHECK(first_err == "collsim: error: -o: " + partial.string() + ": cannot be written: " + std::strerror(EFBIG) + "\n");
  CHECK_FALSE(std::filesystem::exists(partial));
}

TEST_CASE("a sweep to a full standard output stops at once with one line and exit 74", "[process][sweep]") {
  if (!std::filesystem::exists("/dev/full")) {
    WARN("/dev/full is missing; skipped");
    std::exit(kSkip);
  }
  const auto [status, err] = wait_for(start_collsim(long_sweep(), "/dev/full"));
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 74);
  CHECK(err == std::string("collsim: error: standard output: cannot be written: ") + std::strerror(ENOSPC) + "\n");
}

TEST_CASE("a report to a full standard output is exit 74 with one line that says why", "[process]") {
  if (!std::filesystem::exists("/dev/full")) {
    WARN("/dev/full is missing; skipped");
    std::exit(kSkip);
  }
  const auto [status, err] =
      wait_for(start_collsim({"simulate", "--gpus", "4", "--fabric", "switch", "--size", "1M", "--format", "json"},
                             "/dev/full"));
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 74);
  CHECK(err == std::string("collsim: error: could not write the output to standard output: ") + std::strerror(ENOSPC) +
                   "\n");
}

TEST_CASE("a sweep to standard output stopped with SIGTERM says the rows printed, not a partial file",
          "[process][sweep]") {
  const auto dir = scratch_dir("sigterm_stdout");
  const auto out = dir / "stdout.csv";
  auto args = slow_sweep(dir / "unused.csv");
  args.resize(args.size() - 2);  // without -o
  const Child child = start_collsim(args, out.string());
  // Each row is flushed as it is printed: wait for the header and two rows.
  while (lines_in(out) < 3) {
    int status = 0;
    REQUIRE(::waitpid(child.pid, &status, WNOHANG) == 0);  // still running
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  ::kill(child.pid, SIGTERM);
  const auto [status, err] = wait_for(child);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 128 + SIGTERM);
  const std::size_t rows = lines_in(out) - 1;
  CHECK(rows < kSlowRows);
  CHECK(err == fmt::format("collsim: sweep stopped by signal {}; the first {} of {} rows are on standard output, and a "
                           "sweep to standard output cannot be resumed: run it again (with -o FILE it could be "
                           "resumed)\n",
                           SIGTERM, rows, kSlowRows));
}

TEST_CASE("a second sweep to the same -o is refused while the first runs, naming its pid", "[process][sweep]") {
  const auto dir = scratch_dir("second_sweep");
  const auto out = dir / "out.csv";
  const auto partial = dir / ".out.csv.partial";
  const Child first = start_collsim(slow_sweep(out), (dir / "stdout").string());
  while (lines_in(partial) < 2) {
    int status = 0;
    REQUIRE(::waitpid(first.pid, &status, WNOHANG) == 0);  // still running
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  for (const bool resume : {false, true}) {
    auto args = slow_sweep(out);
    if (resume) args.push_back("--resume");  // a --resume must not take over a running sweep's rows either
    const auto second = run_collsim(args);
    CHECK(second.code == 74);
    CHECK(second.err == fmt::format("collsim: error: -o: another sweep (pid {}) is writing {} (it holds the lock of "
                                    "{}); expected it to finish first, or another -o FILE\n",
                                    first.pid, out.string(), partial.string()));
  }
  ::kill(first.pid, SIGINT);
  const auto [status, err] = wait_for(first);
  INFO(err);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 128 + SIGINT);  // the first sweep was not disturbed: it stops cleanly
  auto resume = slow_sweep(out);
  resume.push_back("--resume");
  CHECK(run_collsim(resume).code == 0);  // and its lock is gone with it
}

TEST_CASE("plot makes an SVG and a PNG from a sweep's CSV (gnuplot reads it unchanged)", "[plot]") {
  require_program("gnuplot");
  const auto dir = scratch_dir("plot");
  const auto csv = chart_sweep(dir);
  const auto svg = dir / "chart.svg";
  const auto png = dir / "chart.png";
  const auto a = run_collsim({"plot", csv.string(), "--x", "size_bytes", "--y", "busbw_GBps", "--by", "algorithm", "--facet",
                          "ranks", "-o", svg.string()});
  INFO(a.err);
  REQUIRE(a.code == 0);
  const auto b = run_collsim({"plot", csv.string(), "--x", "ranks", "--y", "time_us", "-o", png.string()});
  INFO(b.err);
  REQUIRE(b.code == 0);
  const std::string s = read_file(svg), p = read_file(png);
  CHECK(s.size() > 1000);
  CHECK(s.find("<svg") != std::string::npos);
  CHECK(s.find("halving-doubling") != std::string::npos);  // a line per algorithm, in the key
  REQUIRE(p.size() > 1000);
  CHECK(p.substr(0, 8) == std::string("\x89PNG\r\n\x1a\n", 8));  // the PNG signature (RFC 2083)
  // Only the chart is left in the folder: gnuplot's script, log and temporary output are gone.
  std::size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) files += e.is_regular_file() ? 1 : 0;
  CHECK(files == 3);
  // gnuplot reads the sweep's CSV unchanged, with its header naming the columns.
  const auto gp = dir / "read.gp";
  std::ofstream(gp) << "set datafile separator comma\nset key autotitle columnhead\nstats '" << csv.string()
                    << "' using (column(\"busbw_GBps\")) nooutput\nprint STATS_records\n";
  const auto rows = dir / "rows.txt";
  REQUIRE(std::system(("gnuplot " + gp.string() + " 2> " + rows.string()).c_str()) == 0);
  // 3 algorithms x 4 GPU counts x 9 sizes (1K, 4K, ..., 64M).
  CHECK(std::stoi(read_file(rows)) == 3 * 4 * 9);
}

TEST_CASE("compare --plot draws measured and predicted time of a real log", "[plot][compare]") {
  require_program("gnuplot");
  const auto dir = scratch_dir("compare_plot");
  const auto svg = dir / "l40s.svg";
  const auto r = run_collsim({"compare", std::string(COLLSIM_SOURCE_DIR) + "/tests/data/nccl-tests/l40s_2gpu_ring.txt",
                              "l40s-pcie", "--plot", svg.string()});
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("median |error| %") != std::string::npos);  // the table is still printed
  const std::string s = read_file(svg);
  CHECK(s.find("<svg") != std::string::npos);
  CHECK(s.find("measured") != std::string::npos);  // a line per series, in the key
  CHECK(s.find("predicted") != std::string::npos);
  std::size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) files += e.is_regular_file() ? 1 : 0;
  CHECK(files == 1);  // no temporary file left
}

TEST_CASE("plot errors name the column or file and exit 2", "[plot][errors]") {
  const auto dir = scratch_dir("plot_errors");
  const auto csv = dir / "s.csv";
  std::ofstream(csv) << "a,b\n1,2\n";
  collsim::testing::check_bad_input({"plot", csv.string(), "--x", "a", "--y", "nosuch", "-o", (dir / "c.svg").string()},
                                 "nosuch");
  collsim::testing::check_bad_input({"plot", csv.string(), "--x", "a", "--y", "b", "-o", (dir / "c.gif").string()},
                                 "c.gif");
}

TEST_CASE("plot puts no text of its input on gnuplot's command line: backquotes and @macros stay text", "[plot]") {
  require_program("gnuplot");
  const auto dir = scratch_dir("plot_inert");
  // gnuplot runs `...` as a shell command and expands @name on its command lines, and its 5.4
  // scanner ends a single-quoted string at doubled quotes in a row; a title, a CSV field (a legend
  // entry) or a facet value holding them must draw as text and run nothing.
  const auto pwned = [&](int i) { return (dir / fmt::format("pwned{}", i)).string(); };
  const auto csv = dir / "s.csv";
  std::ofstream(csv) << "size_bytes,busbw_GBps,algorithm,ranks\n"
                     << "1024,1.5,\"x`touch " << pwned(1) << "`\",2\n"
                     << "2048,2.5,\"y'`touch " << pwned(2) << "`'\",2\n"
                     << "3072,3.0,w''''; system('touch " << pwned(6) << "') #,2\n"
                     << "4096,3.5,\"z\n`touch " << pwned(3) << "`\nprint 1\",\"@GPVAL_PWD`touch " << pwned(4) << "`\"\n";
  const auto svg = dir / "c.svg";
  const auto r = run_collsim({"plot", csv.string(), "--title", "t`touch " + pwned(5) + "` @GPVAL_PWD", "-o", svg.string()});
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(read_file(svg).find("<svg") != std::string::npos);
  const auto faceted = run_collsim({"plot", csv.string(), "--facet", "ranks", "-o", svg.string()});
  INFO(faceted.err);
  REQUIRE(faceted.code == 0);
  for (int i = 1; i <= 6; ++i) CHECK_FALSE(std::filesystem::exists(pwned(i)));
}

TEST_CASE("plot output errors exit 74 naming the chart, not a temporary file", "[plot][errors]") {
  const auto dir = scratch_dir("plot_output");
  const auto csv = dir / "s.csv";
  std::ofstream(csv) << "size_bytes,busbw_GBps\n1,2\n";
  const auto r = run_collsim({"plot", csv.string(), "-o", "/nonexistent/x.svg"});
  CHECK(r.code == 74);
  CHECK_THAT(r.err, Catch::Contains("/nonexistent/x.svg") && !Catch::Contains(".tmp"));
  collsim::testing::check_bad_input({"plot", dir.string(), "-o", (dir / "c.svg").string()}, "is a directory");
}

TEST_CASE("Python's csv module reads the sweep's CSV unchanged", "[csv][python]") {
  require_program("python3");
  const auto dir = scratch_dir("python");
  const auto csv = chart_sweep(dir);
  const auto py = dir / "read.py";
  std::ofstream(py) << "import csv, sys\n"
                       "rows = list(csv.DictReader(open(sys.argv[1], newline='')))\n"
                       "assert all(float(r['busbw_GBps']) > 0 for r in rows)\n"
                       "assert all(int(r['count']) * 4 == int(r['size_bytes']) for r in rows)\n"
                       "print(len(rows), len(rows[0]))\n";
  const auto result = dir / "result.txt";
  REQUIRE(std::system(("python3 " + py.string() + " " + csv.string() + " > " + result.string()).c_str()) == 0);
  // 108 rows, the columns of reports/sweep_row.hpp's header.
  const std::string header = collsim::reports::sweep_csv_header();
  CHECK(read_file(result) == fmt::format("108 {}\n", std::count(header.begin(), header.end(), ',') + 1));
}
}  // namespace tool_tests
