// Every plot error is one collsim line that names the CSV (or log) and what was expected, and
// leaves the old chart as it was: bad columns and values (run_collsim); a gnuplot that fails, is
// killed, stops reading its script or writes half a chart, as a fake gnuplot on a PATH of the
// test's own in a child run of collsim.
#include <catch2/catch.hpp>

#include <cstring>
#include <fstream>
#include <functional>

#include "tests/cli/cli_harness.hpp"
#include "tests/tools/child_run.hpp"

// One namespace per test file: CI builds the tests as unity sources (.ci/run), where each file's
// helpers would otherwise meet the other files'.
namespace plot_errors_test {

using collsim::testing::read_file;
using collsim::testing::run_collsim;
using collsim::testing::scratch_dir;

namespace {

const std::string kOld = "the old chart\n";

// `text` as DIR/NAME; returns its path.
std::string write(const std::filesystem::path& dir, const std::string& name, const std::string& text) {
  std::ofstream(dir / name) << text;
  return (dir / name).string();
}

std::size_t entries_in(const std::filesystem::path& dir) {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++n;
  return n;
}

// A folder `name` holding bin/gnuplot, a shell script with `body`; returns the PATH that finds it
// first (then the system's programs, for the script's own use).
std::string fake_gnuplot(const std::filesystem::path& dir, const std::string& body) {
  const auto bin = dir / "bin";
  std::filesystem::create_directories(bin);
  write(bin, "gnuplot", "#!/bin/sh\n" + body + "\n");
  std::filesystem::permissions(bin / "gnuplot", std::filesystem::perms::owner_all);
  return bin.string() + ":/usr/bin:/bin";
}

// Plots `csv` into an old chart DIR/chart.svg under the fake gnuplot `body`; checks exit 2, the
// one line `line` (after "collsim: error: "), the old chart kept and nothing else left beside it.
void check_gnuplot_failure(const std::string& name, const std::string& csv_text, const std::string& body,
                           const std::function<std::string(const std::string& csv)>& line) {
  const auto dir = scratch_dir(name);
  const auto path = fake_gnuplot(dir, body);
  const std::string csv = write(dir, "s.csv", csv_text);
  const std::string chart = write(dir, "chart.svg", kOld);
  const auto r = collsim::testing::run_collsim_child({"plot", csv, "-o", chart}, {.file_size_limit = std::nullopt, .path = path});
  INFO(r.err);
  CHECK(r.signal == 0);
  CHECK(r.code == 2);
  CHECK(r.err == "collsim: error: " + line(csv) + "\n");
  CHECK(read_file(chart) == kOld);
  CHECK(entries_in(dir) == 3);  // bin, s.csv, chart.svg: no temporary file
}

const std::string kCsv = "size_bytes,busbw_GBps,algorithm\n1024,1.5,ring\n2048,2.5,ring\n";

}  // namespace

TEST_CASE("plot errors in the CSV name the file, the column and record, and what was expected", "[plot][errors]") {
  const auto dir = scratch_dir("plot_csv_errors");
  const std::string chart = write(dir, "chart.svg", kOld);
  const auto check = [&](const std::string& csv_text, const std::vector<std::string>& flags, const std::string& what) {
    const std::string csv = write(dir, "s.csv", csv_text);
    std::vector<std::string> args{"plot", csv, "-o", chart};
    args.insert(args.end(), flags.begin(), flags.end());
    const auto r = run_collsim(args);
    CHECK(r.code == 2);
    CHECK(r.err == "collsim: error: plot: " + csv + ": " + what + "\n");
    CHECK(read_file(chart) == kOld);
  };
  check("a,b\n1,2\n", {"--x", "a", "--y", "nosuch"}, "--y: found \"nosuch\", expected a column of the CSV: a, b");
  check("a,b,algorithm\n1,2,ring\n3,x,ring\n", {"--x", "a", "--y", "b"},
        "record 3, column b (--y): found \"x\", expected a finite number");
  check("a,b,algorithm\n", {"--x", "a", "--y", "b"}, "found a header but no records; expected at least one record to draw");
  check("a,b,algorithm\n1,,ring\n,2,ring\n", {"--x", "a", "--y", "b"},
        "--x/--y: no record has a number in both column a and column b; expected at least one point to draw");
  CHECK(entries_in(dir) == 2);
}

TEST_CASE("a gnuplot that fails is one collsim line naming the CSV and quoting gnuplot's error", "[plot][errors]") {
  check_gnuplot_failure("gnuplot_fails", kCsv,
                        "cat >/dev/null\n"
                        "echo 'gnuplot> set terminal nosuch' >&2\n"
                        "echo '                  ^' >&2\n"
                        "echo '         line 12: unknown or ambiguous terminal type' >&2\n"
                        "exit 1",
                        [](const std::string& csv) {
                          return "plot: " + csv +
                                 ": gnuplot failed (exit status 1) drawing the chart: \"line 12: unknown or ambiguous "
                                 "terminal type\"";
                        });
}

TEST_CASE("a gnuplot killed while drawing, or one that writes half a chart and exits 0, is an error", "[plot][errors]") {
  check_gnuplot_failure("gnuplot_killed", kCsv, "cat >/dev/null\nprintf '<svg>'\nkill -KILL $$", [](const std::string& csv) {
    return "plot: " + csv + ": gnuplot was ended by signal 9 (" + ::strsignal(9) + ") while drawing the chart";
  });
  // 12 bytes: "<svg>partial", without the closing </svg>.
  check_gnuplot_failure("gnuplot_half", kCsv, "cat >/dev/null\nprintf '<svg>partial'", [](const std::string& csv) {
    return "plot: " + csv +
           ": gnuplot exited 0 but wrote an incomplete svg chart (12 bytes, without the format's end); expected a "
           "whole chart";
  });
}

TEST_CASE("a gnuplot that exits without reading its script does not end collsim by SIGPIPE", "[plot][errors]") {
  // 20,000 records make a script far larger than a pipe holds (64 KiB on Linux), so collsim is
  // still writing it when gnuplot has gone.
  std::string csv_text = "size_bytes,busbw_GBps,algorithm\n";
  for (int i = 1; i <= 20000; ++i) csv_text += std::to_string(i) + ",1.5,ring\n";
  check_gnuplot_failure("gnuplot_no_read", csv_text, "exit 3", [](const std::string& csv) {
    return "plot: " + csv + ": gnuplot failed (exit status 3) drawing the chart: it gave no message";
  });
}

TEST_CASE("compare --plot names the log when gnuplot fails", "[compare][plot][errors]") {
  const auto dir = scratch_dir("compare_gnuplot_fails");
  const auto path = fake_gnuplot(dir, "cat >/dev/null\necho '         line 3: no such font' >&2\nexit 1");
  const std::string log = std::string(COLLSIM_SOURCE_DIR) + "/tests/data/nccl-tests/l40s_2gpu_ring.txt";
  const std::string chart = write(dir, "chart.png", kOld);
  const auto r = collsim::testing::run_collsim_child({"compare", log, "l40s-pcie", "--plot", chart},
                                                     {.file_size_limit = std::nullopt, .path = path});
  CHECK(r.code == 2);
  CHECK(r.err == "collsim: error: --plot: " + log +
                     ": gnuplot failed (exit status 1) drawing the chart: \"line 3: no such font\"\n");
  CHECK(read_file(chart) == kOld);
}
}  // namespace plot_errors_test
