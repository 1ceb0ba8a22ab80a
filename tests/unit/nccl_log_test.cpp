// Reading nccl-tests logs: every real log in tests/data/nccl-tests (copied from
// ../shared/data/measured/raw; expected values read off the files), the column layouts of older
// nccl-tests versions (from their src/common.cu print formats), and line-numbered rejection of
// garbled logs, and the forms logs are pasted in.
#include <catch2/catch.hpp>

#include <fstream>
#include <functional>
#include <sstream>

#include <fmt/format.h>

#include "validation/nccl_log.hpp"

// One namespace per test file: CI builds the tests as unity sources (.ci/run), where each file's
// helpers would otherwise meet the other files'.
namespace nccl_log_test {

using Catch::Contains;
using collsim::sched::Collective;
using collsim::validation::collective_of_test;
using collsim::validation::NcclLog;
using collsim::validation::NcclLogError;
using collsim::validation::parse_nccl_log;
using collsim::validation::read_nccl_log;

namespace {

std::string fixture(const std::string& name) { return std::string(COLLSIM_SOURCE_DIR) + "/tests/data/nccl-tests/" + name; }

std::string fixture_text(const std::string& name) {
  std::ifstream in(fixture(name));
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The text's lines 1..n (each with its newline).
std::string first_lines(const std::string& text, std::size_t n) {
  std::size_t pos = 0;
  for (std::size_t i = 0; i < n; ++i) pos = text.find('\n', pos) + 1;
  return text.substr(0, pos);
}

// `text` with its line `line` (1-based) replaced.
std::string with_line(const std::string& text, std::size_t line, const std::string& replacement) {
  std::istringstream in(text);
  std::string out, l;
  for (std::size_t i = 1; std::getline(in, l); ++i) out += (i == line ? replacement : l) + "\n";
  return out;
}

}  // namespace

TEST_CASE("every real nccl-tests log is read: row counts and the first and last rows as printed", "[nccl-log]") {
  struct Expected {
    std::string file;
    std::size_t rows;
    std::size_t first_line;
    std::uint64_t first_size;
    double first_time_us, first_busbw;
    std::uint64_t last_size;
    double last_time_us, last_busbw;
    std::optional<std::uint32_t> ranks;  // only the logs with a header say
  };
  // Values copied from the files (out-of-place columns).
  const std::vector<Expected> logs{
      {"a100_80g_8gpu_mpi.txt", 30, 1, 8, 20.26, 0.00, 4294967296, 32285, 232.81, std::nullopt},
      {"h100_2gpu_nvswitch_do.txt", 21, 1, 1024, 15.75, 0.07, 1073741824, 2996.1, 358.38, std::nullopt},
      {"h100_2node_16gpu_ring_ctas24.txt", 14, 1, 1048576, 156.9, 12.53, 8589934592, 41015, 392.69, std::nullopt},
      {"l40s_2gpu_ring.txt", 25, 13, 8, 9.17, 0.00, 134217728, 8617.72, 15.57, 2},
      {"l40s_4gpu_ring.txt", 25, 15, 8, 17.29, 0.00, 134217728, 13060.7, 15.41, 4},
  };
  for (const auto& e : logs) {
    INFO(e.file);
    const NcclLog log = read_nccl_log(fixture(e.file));
    REQUIRE(log.rows.size() == e.rows);
    CHECK(log.rows.front().line == e.first_line);
    CHECK(log.rows.back().line == e.first_line + e.rows - 1);
    CHECK(log.rows.front().size == e.first_size);
    CHECK(log.rows.front().time_us == e.first_time_us);
    CHECK(log.rows.front().busbw_GBps == e.first_busbw);
    CHECK(log.rows.back().size == e.last_size);
    CHECK(log.rows.back().time_us == e.last_time_us);
    CHECK(log.rows.back().busbw_GBps == e.last_busbw);
    CHECK(log.ranks == e.ranks);
    CHECK(log.test == (e.ranks ? "all_reduce_perf" : ""));
    // Every row is a float sum with root -1, as printed; sizes double from row to row.
    for (std::size_t i = 0; i < log.rows.size(); ++i) {
      CHECK(log.rows[i].type == "float");
      CHECK(log.rows[i].redop == "sum");
      CHECK(log.rows[i].root == -1);
      CHECK(log.rows[i].count * 4 == log.rows[i].size);
      if (i > 0) CHECK(log.rows[i].size == 2 * log.rows[i - 1].size);
    }
  }
}

TEST_CASE("the header of a full log gives the program, the ranks, devices, hosts and NCCL version", "[nccl-log]") {
  const NcclLog log = read_nccl_log(fixture("l40s_4gpu_ring.txt"));
  CHECK(log.test == "all_reduce_perf");
  CHECK(log.test_line == 2);
  CHECK(log.ranks == 4u);
  CHECK(log.ranks_line == 9);  // the last "#  Rank" line
  CHECK(log.devices == std::vector<std::string>(4, "NVIDIA L40S"));
  CHECK(log.hosts == std::vector<std::string>{"oat-04"});
  CHECK(log.nccl_version == "2.29.2+cuda13.1");
  // Row 15: "8 2 float sum -1 17.29 0.00 0.00 0 17.78 ..." - the out-of-place group, not the in-place one.
  CHECK(log.rows.front().time_us == 17.29);
  CHECK(log.rows.front().count == 2);
  // Row 38, 64 MiB: out-of-place 6602.52 us, 10.16 GB/s algbw, 15.25 busbw (in-place 6557.05).
  CHECK(log.rows[23].line == 38);
  CHECK(log.rows[23].time_us == 6602.52);
  CHECK(log.rows[23].algbw_GBps == 10.16);
  CHECK(log.rows[23].busbw_GBps == 15.25);
}

TEST_CASE("without a \"# Rank\" list the ranks are nThread x nGpus", "[nccl-log]") {
  const std::string text =
      "# nThread 2 nGpus 4 minBytes 8 maxBytes 16 step: 2(factor) warmup iters: 5 iters: 20 validation: 1\n"
      "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
      "           8             2     float     sum      -1    20.26    0.00    0.00      0    17.74    0.00    0.00      0\n"
      "# Avg bus bandwidth    : 0\n";
  const NcclLog log = parse_nccl_log(text, "t.txt");
  CHECK(log.ranks == 8u);
  CHECK(log.ranks_line == 1);
  CHECK(log.test.empty());
}

TEST_CASE("older and other column layouts are located by the column header", "[nccl-log]") {
  SECTION("2016 broadcast: bytes N type root, out-of-place only") {
    // print_header of early nccl-tests: "bytes N type root time algbw busbw res".
    const NcclLog log = parse_nccl_log(
        "# nThread 1 nGpus 2 minBytes 4 maxBytes 8 step: 2(factor) warmup iters: 5 iters: 20 validation: 1\n"
        "#      bytes             N    type   root    time   algbw   busbw    res\n"
        "           4             1   float      1    5.10    0.00    0.00  0e+00\n"
        "# Avg bus bandwidth    : 0\n",
        "old.txt");
    REQUIRE(log.rows.size() == 1);
    CHECK(log.rows[0].root == 1);
    CHECK(log.rows[0].redop.empty());
    CHECK(log.rows[0].time_us == 5.10);
  }
  SECTION("2019 all_gather: size count type, error instead of #wrong") {
    const NcclLog log = parse_nccl_log(
        "#       size         count    type     time   algbw   busbw  error     time   algbw   busbw  error\n"
        "#        (B)    (elements)              (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)\n"
        "        1024           128   float    31.50    0.03    0.03  0e+00    30.90    0.03    0.03  0e+00\n",
        "ag.txt");
    REQUIRE(log.rows.size() == 1);
    CHECK(log.rows[0].time_us == 31.50);
    CHECK_FALSE(log.rows[0].root.has_value());
  }
  SECTION("sendrecv and alltoall logs read like any other") {
    const NcclLog log = parse_nccl_log(
        "# Collective test starting: sendrecv_perf\n"
        "# nThread 1 nGpus 2 minBytes 8 maxBytes 8 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0\n"
        "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
        "           8             2     float     sum      -1    12.00    0.00    0.00    N/A    11.00    0.00    0.00    N/A\n"
        "# Avg bus bandwidth    : 0\n",
        "sr.txt");
    CHECK(log.test == "sendrecv_perf");
    CHECK(log.rows.size() == 1);
  }
  SECTION("rows alone: 11, 12 or 13 fields, with or without redop and root") {
    CHECK(parse_nccl_log("1024 256 float 31.5 0.03 0.03 0 30.9 0.03 0.03 0\n", "a").rows[0].time_us == 31.5);
    const auto no_root = parse_nccl_log("1024 256 float sum 31.5 0.03 0.03 0 30.9 0.03 0.03 0\n", "b").rows[0];
    CHECK(no_root.redop == "sum");
    CHECK_FALSE(no_root.root.has_value());
    const auto no_redop = parse_nccl_log("1024 256 float 0 31.5 0.03 0.03 0 30.9 0.03 0.03 0\n", "c").rows[0];
    CHECK(no_redop.root == 0);
    CHECK(no_redop.redop.empty());
    CHECK(parse_nccl_log("1024 256 float sum -1 31.5 0.03 0.03 0\n", "d").rows[0].busbw_GBps == 0.03);
  }
  SECTION("a pasted command line names the program; the header's line wins over it") {
    const NcclLog rows = parse_nccl_log(
        "$ mpirun -np 8 /opt/nccl-tests/build/all_gather_perf -b 1K -e 1K -g 1\n"
        "1024 128 float none -1 31.5 0.03 0.03 0 30.9 0.03 0.03 0\n",
        "cmd.txt");
    CHECK(rows.test == "all_gather_perf");
    CHECK(rows.test_line == 1);
    CHECK(rows.rows.size() == 1);
    const NcclLog full = parse_nccl_log("./build/all_reduce_perf -b 8 -e 8 -g 2\n" + fixture_text("l40s_2gpu_ring.txt"),
                                        "cmd.txt");
    CHECK(full.test == "all_reduce_perf");
    CHECK(full.test_line == 3);  // the header's "# Collective test starting", one line down
    CHECK(full.rows.size() == 25);
  }
  SECTION("NCCL's own diagnostics between the rows are skipped") {
    const NcclLog log = parse_nccl_log(
        "1024 256 float sum -1 31.5 0.03 0.03 0 30.9 0.03 0.03 0\n"
        "node1:1234:1240 [0] NCCL INFO comm 0x5 rank 0 nranks 8 - Init COMPLETE\n"
        "2048 512 float sum -1 32.5 0.06 0.06 0 30.9 0.06 0.06 0\n",
        "i.txt");
    CHECK(log.rows.size() == 2);
    CHECK(log.rows[1].line == 3);
  }
}

TEST_CASE("garbled logs are rejected with the file, the line, what was found and what was expected",
          "[nccl-log][errors]") {
  const std::string text = fixture_text("l40s_2gpu_ring.txt");
  const auto rejects = [](const std::string& t, const std::string& what) {
    INFO(what);
    CHECK_THROWS_AS(parse_nccl_log(t, "log.txt"), NcclLogError);
    CHECK_THROWS_WITH(parse_nccl_log(t, "log.txt"), Contains(what));
  };
  // Line 20 is the 1024-byte row.
  rejects(with_line(text, 20, "         256            64     float     sum      -1    8.8.6    0.03    0.03       0     8.94    0.03    0.03       0"),
          "log.txt:20: found \"8.8.6\" in the time column, expected a time in microseconds");
  rejects(with_line(text, 20, "         256            64     float     sum      -1     0.00    0.03    0.03       0     8.94    0.03    0.03       0"),
          "log.txt:20: found \"0.00\" in the time column");
  rejects(with_line(text, 20, "         2x6            64     float     sum      -1     8.86    0.03    0.03       0     8.94    0.03    0.03       0"),
          "log.txt:20: found \"2x6\" in the size column, expected a whole number of bytes");
  rejects(with_line(text, 20, "         256            64     float     sum      -1     8.86    fast    0.03       0     8.94    0.03    0.03       0"),
          "log.txt:20: found \"fast\" in the algbw column");
  // algbw must be size / time (1024 B / 8.91 us = 0.11 GB/s): a digit lost from the time shows.
  rejects(with_line(text, 20, "        1024           256     float     sum      -1     0.91    0.11    0.11       0     8.96    0.11    0.11       0"),
          "log.txt:20: found algbw 0.11 GB/s, expected size / time = 1.13 GB/s");
  rejects(with_line(text, 20, "         256            64     float     sum      -1     8.86    0.03    -1       0     8.94    0.03    0.03       0"),
          "log.txt:20: found \"-1\" in the busbw column");
  rejects(with_line(text, 20, "         256            64     float     sum      -1     8.86    0.03    0.03       0     8.94    0.03"),
          "log.txt:20: found 11 fields, expected 13 (size count type redop root time algbw busbw #wrong time algbw "
          "busbw #wrong)");
  rejects(with_line(text, 20, "Segmentation fault (core dumped)"), "log.txt:20: found 4 fields");
  rejects(with_line(text, 6, "#  Rank  x Group  0 Pid 1149754 on     oat-04 device  0 [0000:4a:00] NVIDIA L40S"),
          "log.txt:6: found \"Rank x Group 0");
  rejects(with_line(text, 3, "# nThread one nGpus 2 minBytes 8"), "log.txt:3: found \"nThread one nGpus 2");
  rejects(text + "# Collective test starting: all_gather_perf\n", "log.txt:44: found a second \"# Collective test starting\"");
  rejects(with_line(text, 41, "           8             2     float     sum      -1     9.17    0.00    0.00       0     8.93    0.00    0.00       0"),
          "log.txt:41: found a result row (\"8\"), expected nothing after the footer");
  rejects("hello world\n", "log.txt:1: found 2 fields (\"hello world\"), expected a result row");
  rejects("", "log.txt:1: found the end of the log, expected result rows");
  rejects(first_lines(text, 12), "log.txt:12: found the end of the log, expected result rows");
}

TEST_CASE("a time that the clock cannot hold is rejected, not printed as inf", "[nccl-log][errors]") {
  const std::string text = fixture_text("l40s_2gpu_ring.txt");
  const std::string expected = "expected a time in microseconds that rounds to at least 1 ps";
  // Line 20 is the 256-byte row. 1e-310 us is a denormal double, 1e-304 ps: it rounds to 0 ps and
  // 256 B over it is an infinite algbw, which the algbw check (inf vs inf) cannot catch.
  for (const std::string time : {"1e-310", "4e-7", "1e13", "inf", "nan"}) {
    INFO(time);
    const std::string row = "         256            64     float     sum      -1    " + time +
                            "    0.03    0.03       0     8.94    0.03    0.03       0";
    CHECK_THROWS_WITH(parse_nccl_log(with_line(text, 20, row), "log.txt"),
                      Contains("log.txt:20: found \"" + time + "\" in the time column, " + expected));
  }
  // The bounds themselves, from the clock: 0.5 ps rounds up to 1 ps (here 5e-7 us; algbw 256 B /
  // 0.5 ps = 256 / (5e-7 * 1e3) = 512000 GB/s, so the row says so); 9.2e12 us = 9.2e18 ps is below
  // 2^63 ps = 9.22e18 (algbw 2.8e-14 GB/s, printed 0.00).
  const auto time_of_line_20 = [](const NcclLog& log) {
    for (const auto& r : log.rows)
      if (r.line == 20) return r.time_us;
    return -1.0;
  };
  CHECK(time_of_line_20(parse_nccl_log(
            with_line(text, 20, "256 64 float sum -1 5e-7 512000 512000 0 8.94 0.03 0.03 0"), "log.txt")) == 5e-7);
  CHECK(time_of_line_20(parse_nccl_log(
            with_line(text, 20, "256 64 float sum -1 9.2e12 0.00 0.00 0 8.94 0.03 0.03 0"), "log.txt")) == 9.2e12);
}

TEST_CASE("nThread x nGpus is computed in 64 bits and absurd rank counts are rejected", "[nccl-log][errors]") {
  const auto log_with = [](const std::string& thread_line) {
    return thread_line + "\n"
           "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
           "           8             2     float     sum      -1    20.26    0.00    0.00      0    17.74    0.00    0.00      0\n"
           "# Avg bus bandwidth    : 0\n";
  };
  // 65536 x 65536 = 2^32 wrapped to 0 in 32 bits; 2 x 2147483649 = 2^32 + 2 wrapped to 2.
  CHECK_THROWS_WITH(parse_nccl_log(log_with("# nThread 65536 nGpus 65536 minBytes 8"), "big.txt"),
                    Contains("big.txt:1: found nThread 65536 x nGpus 65536 = 4294967296 ranks per process, expected "
                             "at most 1048576 ranks"));
  CHECK_THROWS_WITH(parse_nccl_log(log_with("# nThread 2 nGpus 2147483649 minBytes 8"), "big.txt"),
                    Contains("big.txt:1: found nThread 2 x nGpus 2147483649 = 4294967298 ranks per process"));
  // 2^20 itself (1024 x 1024) is accepted, one more thread's worth is not.
  CHECK(parse_nccl_log(log_with("# nThread 1024 nGpus 1024"), "ok.txt").ranks == 1048576u);
  CHECK_THROWS_WITH(parse_nccl_log(log_with("# nThread 1025 nGpus 1024"), "big.txt"),
                    Contains("big.txt:1: found nThread 1025 x nGpus 1024 = 1049600 ranks per process"));
}

// Every line of `text` through `edit`.
std::string each_line(const std::string& text, const std::function<std::string(const std::string&)>& edit) {
  std::istringstream in(text);
  std::string out, line;
  while (std::getline(in, line)) out += edit(line) + "\n";
  return out;
}

TEST_CASE("logs as people paste them are read and the forms met are listed", "[nccl-log][paste]") {
  const std::string text = fixture_text("l40s_4gpu_ring.txt");
  const NcclLog printed = parse_nccl_log(text, "l40s.txt");
  CHECK(printed.forms.empty());
  const auto same_as_printed = [&](const NcclLog& log) {
    REQUIRE(log.rows.size() == printed.rows.size());
    CHECK(log.rows.back().size == printed.rows.back().size);
    CHECK(log.rows.back().time_us == printed.rows.back().time_us);
    CHECK(log.ranks == printed.ranks);
    CHECK(log.test == printed.test);
    CHECK(log.devices == printed.devices);
  };
  SECTION("srun --label puts \"0: \" before every line") {
    const NcclLog log = parse_nccl_log(each_line(text, [](const std::string& l) { return "0: " + l; }), "srun.txt");
    same_as_printed(log);
    CHECK(log.forms == std::vector<std::string>{"label_prefix"});
    // Rank 12's label has two digits and no blank after the colon.
    CHECK(parse_nccl_log(each_line(text, [](const std::string& l) { return "12:" + l; }), "srun.txt").rows.size() ==
          printed.rows.size());
  }
  SECTION("mpirun --tag-output puts \"[1,0]<stdout>:\" before every line") {
    const NcclLog log =
        parse_nccl_log(each_line(text, [](const std::string& l) { return "[1,0]<stdout>:" + l; }), "mpi.txt");
    same_as_printed(log);
    CHECK(log.forms == std::vector<std::string>{"label_prefix"});
  }
  SECTION("tabs for blanks, the header's phrases too") {
    const NcclLog log = parse_nccl_log(each_line(text,
                                                 [](std::string l) {
                                                   for (char& ch : l)
                                                     if (ch == ' ') ch = '\t';
                                                   return l;
                                                 }),
                                       "tabs.txt");
    same_as_printed(log);
    CHECK(log.forms.empty());
  }
  SECTION("header lines without their '#'") {
    const NcclLog log = parse_nccl_log(each_line(text,
                                                 [](const std::string& l) {
                                                   return l.starts_with('#') ? l.substr(1) : l;
                                                 }),
                                       "md.txt");
    same_as_printed(log);
    CHECK(log.forms == std::vector<std::string>{"header_without_hash"});
  }
  SECTION("no closing footer, and a last row without its in-place columns") {
    // Lines 15..24 are 10 rows; the header promised a footer.
    const NcclLog cut = parse_nccl_log(first_lines(text, 24), "cut.txt");
    CHECK(cut.rows.size() == 10);
    CHECK(cut.forms == std::vector<std::string>{"no_footer"});
    // Line 25 copied as far as its out-of-place #wrong column (9 of 13 fields).
    const std::string short_last = first_lines(text, 24) + "        1024           256     float     sum      -1    17.05    0.06    0.09       0\n";
    const NcclLog log = parse_nccl_log(short_last, "cut.txt");
    REQUIRE(log.rows.size() == 11);
    CHECK(log.rows.back().time_us == 17.05);
    CHECK(log.forms == std::vector<std::string>{"no_footer", "last_row_without_in_place"});
    // Rows alone: the same, and no footer is expected of them.
    const NcclLog rows = parse_nccl_log("1024 256 float sum -1 31.5 0.03 0.03 0 30.9 0.03 0.03 0\n2048 512 float sum -1 31.6 0.06 0.06 0\n", "r.txt");
    CHECK(rows.rows.size() == 2);
    CHECK(rows.forms == std::vector<std::string>{"last_row_without_in_place"});
  }
}

TEST_CASE("a comma-separated table of a log's rows is read by its column names", "[nccl-log][paste][csv]") {
  // The L40S log's out-of-place columns saved as a table, the way a notebook writes them; its
  // comments say the ranks and the collective, and one names the columns in prose.
  const NcclLog printed = parse_nccl_log(fixture_text("l40s_4gpu_ring.txt"), "l40s.txt");
  std::string csv = "# source: the L40S fixture's rows\n# gpu_count: 4\n# collective: all_reduce (float, sum)\n"
                    "# columns_note: size (B), time (us), algbw (GB/s), busbw (GB/s)\n"
                    "size_bytes,time_us,algbw_GBps,busbw_GBps\n";
  for (const auto& r : printed.rows) csv += fmt::format("{},{},{},{}\n", r.size, r.time_us, r.algbw_GBps, r.busbw_GBps);
  const NcclLog table = parse_nccl_log(csv, "t.csv");
  REQUIRE(table.rows.size() == printed.rows.size());
  for (std::size_t i = 0; i < table.rows.size(); ++i) {
    CHECK(table.rows[i].size == printed.rows[i].size);
    CHECK(table.rows[i].time_us == printed.rows[i].time_us);
    CHECK(table.rows[i].busbw_GBps == printed.rows[i].busbw_GBps);
    CHECK(table.rows[i].line == i + 6);
  }
  CHECK(table.ranks == 4U);
  CHECK(table.ranks_line == 2);
  CHECK(table.test == "all_reduce");
  CHECK(collective_of_test(table.test) == Collective::AllReduce);
  CHECK(table.forms == std::vector<std::string>{"csv_table"});
  // Bare names, blanks after the commas, the count and type columns too.
  const NcclLog bare = parse_nccl_log("size, count, type, time, algbw, busbw\n1024, 256, float, 10.24, 0.10, 0.15\n", "b.csv");
  REQUIRE(bare.rows.size() == 1);
  CHECK(bare.rows[0].count == 256);
  CHECK(bare.rows[0].type == "float");
  CHECK(bare.rows[0].time_us == 10.24);
  CHECK_FALSE(bare.ranks.has_value());
  // Capitals and another order of the columns (newcomer finding: both met the whitespace reader).
  const NcclLog upper = parse_nccl_log("TIME_US,SIZE_BYTES,ALGBW_GBPS,BUSBW_GBPS\n10.24,1024,0.10,0.15\n", "u.csv");
  REQUIRE(upper.rows.size() == 1);
  CHECK(upper.rows[0].size == 1024);
  CHECK(upper.rows[0].time_us == 10.24);
  // A time in other units, a table without busbw, mixed forms, a short row, a garbled gpu_count
  // and a garbled number (the algbw check) are refused at their line.
  const std::pair<std::string, std::string> refused[] = {
      {"size_bytes,time_ms,algbw_GBps,busbw_GBps\n1024,0.01,0.10,0.15\n",
       "t.csv:1: found the column \"time_ms\", expected size or size_bytes, time or time_us"},
      {"size_bytes,time_us,algbw_GBps\n1024,10.24,0.10\n", "t.csv:1: found the first line of a comma-separated table"},
      {"size_bytes,time_us,algbw_GBps,busbw_GBps\n1024 10.24 0.10 0.15\n",
       "t.csv:2: found \"1024 10.24 0.10 0.15\", expected a comma-separated row"},
      {"size_bytes,time_us,algbw_GBps,busbw_GBps\n1024,10.24,0.10\n", "t.csv:2: found 3 fields, expected 4"},
      {"# gpu_count: many\nsize,time,algbw,busbw\n1024,10.24,0.10,0.15\n",
       "t.csv:1: found \"gpu_count: many\", expected \"gpu_count: N\""},
      {"size,time,algbw,busbw\n1024,10.24,9.10,0.15\n", "t.csv:2: found algbw 9.10 GB/s"},
  };
  for (const auto& [text, message] : refused) CHECK_THROWS_WITH(parse_nccl_log(text, "t.csv"), Contains(message));
}

TEST_CASE("a comment that names the columns in prose is no column header", "[nccl-log]") {
  // Before session 24 "# note: size (B) and time (us) ..." became the header (its words hold size,
  // time, algbw and busbw), and the rows were refused for not having its fields.
  const NcclLog log = parse_nccl_log("# note: columns are size time algbw busbw as printed\n"
                                     "1024 256 float sum -1 31.5 0.03 0.03 0 30.9 0.03 0.03 0\n"
                                     "2048 512 float sum -1 31.6 0.06 0.06 0 31 0.07 0.07 0\n",
                                     "n.txt");
  REQUIRE(log.rows.size() == 2);
  CHECK(log.rows[1].time_us == 31.6);
}

TEST_CASE("garbled logs are still refused at their line", "[nccl-log][errors]") {
  const std::string text = fixture_text("l40s_4gpu_ring.txt");
  // Cut inside line 25: its fields are short.
  const std::string inside = first_lines(text, 24) + "        1024           256     float     sum      -1    17.";
  CHECK_THROWS_WITH(parse_nccl_log(inside, "cut.txt"), Contains("cut.txt:25: found 6 fields, expected 13"));
  // Rows alone cut inside a row.
  CHECK_THROWS_WITH(parse_nccl_log("1024 256 float sum -1 31.5 0.03 0.03 0 30.9 0.03 0.03 0\n2048 512 flo", "r.txt"),
                    Contains("r.txt:2: found 3 fields, expected 13"));
  // A row without its in-place columns followed by more rows is no pasted last row.
  CHECK_THROWS_WITH(parse_nccl_log("1024 256 float sum -1 31.5 0.03 0.03 0 30.9 0.03 0.03 0\n2048 512 float sum -1 31.6 0.06 0.06 0\n"
                                   "4096 1024 float sum -1 31.6 0.13 0.13 0 31 0.13 0.13 0\n",
                                   "r.txt"),
                    Contains("r.txt:2: found 9 fields, expected 13"));
  // A header whose out-of-place busbw comes after the in-place time (garbled: "]usbw"): a row of as
  // many fields as columns before that time is not a pasted last row (the fuzzer's crash,
  // tests/fuzz/regressions/nccl_log/short-row-before-busbw).
  const std::string garbled_header =
      "# size count type redop root time algbw ]usbw #wrong time algbw busbw #wrong\n"
      "8 2 float sum -1 9.17 0.00 0.00 0 8.93 0.00 0.00 0\n"
      "1024 256 float sum -1 8.91 0.11 0.11 0\n";
  CHECK_THROWS_WITH(parse_nccl_log(garbled_header, "g.txt"), Contains("g.txt:3: found 9 fields, expected 13"));
  // Fewer "# Rank" lines than nThread x nGpus: the header contradicts itself.
  CHECK_THROWS_WITH(parse_nccl_log(each_line(first_lines(text, 43),
                                             [](const std::string& l) {
                                               return l.starts_with("#  Rank  2") || l.starts_with("#  Rank  3")
                                                          ? std::string("#")
                                                          : l;
                                             }),
                                   "few.txt"),
                    Contains("few.txt:7: found 2 \"# Rank\" lines, expected at least nThread x nGpus = 4 (line 3)"));
  // Rows alone whose first row is short: the message says the layout came from that row.
  CHECK_THROWS_WITH(parse_nccl_log("1024 256 float sum -1 31.5 0.03 0.03 0\n2048 512 float sum -1 31.6 0.06 0.06 0 31 0.07 0.07 0\n", "r.txt"),
                    Contains("r.txt:2: found 13 fields, expected 9 (size count type redop root time algbw busbw #wrong, as "
                             "the first row, line 1, has them)"));
  // A label that is no rank label, a header word that is none: garbled rows as before.
  CHECK_THROWS_WITH(parse_nccl_log(first_lines(text, 14) + "x: 8 2 float sum -1 17.29 0.00 0.00 0 17.78 0.00 0.00 0\n", "x.txt"),
                    Contains("x.txt:15: found 14 fields"));
  CHECK_THROWS_WITH(parse_nccl_log(first_lines(text, 14) + "Ranks 8 2 float sum -1 17.29 0.00 0.00 0 17.78 0.00 0.00 0\n", "x.txt"),
                    Contains("x.txt:15: found 14 fields"));
}

TEST_CASE("unreadable log files name the file", "[nccl-log][errors]") {
  CHECK_THROWS_WITH(read_nccl_log("/nonexistent-collsim/run.txt"),
                    Contains("/nonexistent-collsim/run.txt cannot be read (No such file or directory); expected an nccl-tests log file"));
  CHECK_THROWS_WITH(read_nccl_log(COLLSIM_SOURCE_DIR), Contains("is a directory"));
}

TEST_CASE("the nccl-tests programs map to collsim's collectives", "[nccl-log]") {
  CHECK(collective_of_test("all_reduce_perf") == Collective::AllReduce);
  CHECK(collective_of_test("all_gather_perf") == Collective::AllGather);
  CHECK(collective_of_test("reduce_scatter_perf") == Collective::ReduceScatter);
  CHECK(collective_of_test("broadcast_perf") == Collective::Broadcast);
  CHECK(collective_of_test("reduce_perf") == Collective::Reduce);
  CHECK(collective_of_test("alltoall_perf") == Collective::AllToAll);
  CHECK(collective_of_test("allreduce") == Collective::AllReduce);
  CHECK(collective_of_test("sendrecv_perf") == Collective::SendRecv);
  CHECK_FALSE(collective_of_test("gather_perf").has_value());
  CHECK_FALSE(collective_of_test("hypercube_perf").has_value());
}
}  // namespace nccl_log_test
