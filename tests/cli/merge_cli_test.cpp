// collsim merge: shard files say which sweep and which rows they hold, and merge
// refuses every incomplete or mixed set (a shard of another sweep, missing shards, a row cut short,
// a row lost from the middle, an old shard without its lines) with one line naming the file and
// the row, and joins a complete set, skipped rows included, into the unsharded file.
#include <catch2/catch.hpp>

#include <fstream>

#include <fmt/format.h>

#include "reports/chart.hpp"
#include "reports/csv.hpp"
#include "reports/sweep_row.hpp"
#include "tests/cli/cli_harness.hpp"

// One namespace per test file: CI builds the tests as unity sources (.ci/run), where each file's
// helpers would otherwise meet the other files'.
namespace merge_cli_test {

using collsim::testing::check_bad_input;
using collsim::testing::read_file;
using collsim::testing::run_collsim;
using collsim::testing::scratch_dir;

namespace {

// 3 GPU counts x (8 all-reduce + 4 all-gather algorithms, `collsim algorithms`) x 3 sizes (1K,
// 32K, 1M) = 108 rows, of which the 9 of hierarchical (it needs several hosts) are skipped.
const std::vector<std::string> kSweep{"sweep", "--gpus", "2,3,8", "--fabric", "ring", "--algorithms", "all",
                                      "--collectives", "allreduce,allgather", "-b", "1K", "-e", "1M", "-f", "32"};

std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

// Writes the unsharded file and shards 0/K .. K-1/K of `args` into `dir` as whole.EXT and
// partI.EXT; returns the shards' paths.
std::vector<std::string> shards_of(const std::vector<std::string>& args, const std::filesystem::path& dir, int k,
                                   const std::string& format) {
  const auto whole = dir / ("whole." + format);
  const auto w = run_collsim(with(args, {"--format", format, "-o", whole.string()}));
  INFO(w.err);
  REQUIRE(w.code == 0);
  std::vector<std::string> parts;
  for (int i = 0; i < k; ++i) {
    parts.push_back((dir / fmt::format("part{}.{}", i, format)).string());
    const auto r = run_collsim(with(args, {"--format", format, "--shard", fmt::format("{}/{}", i, k), "-o", parts.back()}));
    INFO(r.err);
    REQUIRE(r.code == 0);
  }
  return parts;
}

std::vector<std::string> merge_of(const std::vector<std::string>& files) {
  std::vector<std::string> args{"merge"};
  args.insert(args.end(), files.begin(), files.end());
  return args;
}

// The lines of `text`, without their line breaks (the sweep's fields hold none here).
std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  for (std::size_t pos = 0; pos < text.size();) {
    const auto nl = text.find('\n', pos);
    out.push_back(text.substr(pos, nl - pos));
    pos = nl == std::string::npos ? text.size() : nl + 1;
  }
  return out;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

std::string write(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
  return path.string();
}

const std::size_t kColumns = collsim::reports::parse_csv_record(
    std::string_view(collsim::reports::sweep_csv_header()).substr(0, collsim::reports::sweep_csv_header().size() - 1))
                                 .size();

}  // namespace

TEST_CASE("merge joins complete shards, in any order, into the unsharded file, CSV and JSON lines", "[cli][merge]") {
  const auto dir = scratch_dir("merge_ok");
  for (const std::string format : {"csv", "json"}) {
    const auto parts = shards_of(kSweep, dir, 3, format);
    const auto m = run_collsim(merge_of({parts[2], parts[0], parts[1]}));
    INFO(m.err);
    REQUIRE(m.code == 0);
    CHECK(m.out == read_file(dir / ("whole." + format)));
    // "-o -" is standard output, as for sweep: no file named "-".
    const auto dash = run_collsim(with(merge_of(parts), {"-o", "-"}));
    CHECK(dash.code == 0);
    CHECK(dash.out == m.out);
    CHECK_FALSE(std::filesystem::exists("-"));
  }
  // A shard's lines: its sweep, I/K and the rows of the whole sweep first; its skipped rows last.
  const auto part1 = lines_of(read_file(dir / "part1.csv"));
  CHECK(part1.front().starts_with("# collsim sweep shard=1/3 sweep="));
  CHECK(part1.front().ends_with(" rows=153 format=csv"));
  // Of each GPU count's 51 rows, the generated ring has no switch that reduces for nvls and
  // nvls-tree (the 6th and 7th all-reduce algorithms: rows 15..20) and no hosts for hierarchical (the
  // 12th: rows 33..35); shard 1/3 holds the second of each three, 16 + 51k, 19 + 51k and 34 + 51k,
  // and writes runs of its own consecutive rows as ranges.
  CHECK(part1.back() == "# collsim sweep shard=1/3 end skipped=16-19,34,67-70,85,118-121,136");
  // plot reads a shard's CSV (its two lines left out), and the unsharded CSV has no such line.
  const auto table = collsim::reports::parse_table(read_file(dir / "part1.csv"));
  CHECK(table.rows.size() == part1.size() - 3);
  CHECK(read_file(dir / "whole.csv").find('#') == std::string::npos);
}

TEST_CASE("merge checks completeness exactly where whole shards are skipped or hold no row", "[cli][merge]") {
  const auto dir = scratch_dir("merge_skipped");
  // NVLS all-reduce (materialised) with 1-byte chunks: 1K runs, 1M is over the op budget and skipped.
  // Shard 1/2 holds only the skipped row, shard 2/3 of two rows holds none; merge still needs their files.
  const std::vector<std::string> sweep{"sweep", "dgx-h100", "--sizes", "1K,1M", "--chunk-size", "1", "--algorithms",
                                       "nvls"};
  const auto halves = shards_of(sweep, dir, 2, "csv");
  CHECK(lines_of(read_file(halves[1])).back() == "# collsim sweep shard=1/2 end skipped=1");
  const auto m = run_collsim(merge_of(halves));
  INFO(m.err);
  REQUIRE(m.code == 0);
  CHECK(m.out == read_file(dir / "whole.csv"));
  check_bad_input(merge_of({halves[0]}), "no file holds row 1 (rows 1, 3, ... of shard 1/2)");

  const auto thirds = shards_of(sweep, dir, 3, "csv");
  CHECK(run_collsim(merge_of(thirds)).out == read_file(dir / "whole.csv"));
  check_bad_input(merge_of({thirds[0], thirds[1]}), "no file is shard 2/3 (which holds no row)");
}

TEST_CASE("merge refuses a missing shard, however many, and a shard given twice", "[cli][merge][errors]") {
  const auto dir = scratch_dir("merge_missing");
  const auto parts = shards_of(kSweep, dir, 3, "csv");
  // One shard of three (rows 1, 4, 7, ...) is not the whole sweep, nor are two.
  check_bad_input(merge_of({parts[1]}), "no file holds row 0 (rows 0, 3, ... of shard 0/3): 2 of 3 shard(s)");
  check_bad_input(merge_of({parts[0], parts[1]}), "no file holds row 2 (rows 2, 5, ... of shard 2/3): 1 of 3 shard(s)");
  check_bad_input(merge_of({parts[0], parts[1], parts[0]}), "shard 0/3 is in both " + parts[0] + " and " + parts[0]);
}

TEST_CASE("merge refuses shards of different sweeps, naming both files", "[cli][merge][errors]") {
  const auto dir = scratch_dir("merge_mixed");
  const auto parts = shards_of(kSweep, dir, 3, "csv");
  // The same shard of a sweep with other links: the same rows and names, other times.
  const auto other = (dir / "other1.csv").string();
  REQUIRE(run_collsim(with(kSweep, {"--link-bandwidth", "50GB/s", "--shard", "1/3", "-o", other})).code == 0);
  check_bad_input(merge_of({parts[0], other, parts[2]}), other + " is shard 1/3 of sweep ");
  check_bad_input(merge_of({parts[0], other, parts[2]}), "but " + parts[0] + " is shard 0/3 of sweep ");
  // The same sweep in four shards, and in JSON lines.
  const auto quarter = (dir / "quarter.csv").string();
  REQUIRE(run_collsim(with(kSweep, {"--shard", "1/4", "-o", quarter})).code == 0);
  check_bad_input(merge_of({parts[0], quarter}), "expected shards of one sweep");
  const auto json = (dir / "part1.json").string();
  REQUIRE(run_collsim(with(kSweep, {"--format", "json", "--shard", "1/3", "-o", json})).code == 0);
  check_bad_input(merge_of({parts[0], json, parts[2]}), "expected shards of one sweep");
}

TEST_CASE("merge refuses a row cut short or lost, naming the file, line and row", "[cli][merge][errors]") {
  const auto dir = scratch_dir("merge_cut");
  const auto parts = shards_of(kSweep, dir, 3, "csv");
  const auto lines = lines_of(read_file(parts[1]));
  // lines: the shard line, the header, the rows, the end line.
  REQUIRE(lines.size() > 6);
  const std::size_t last = lines.size() - 2;  // index of the last row; it is on line last + 1

  // The last row cut mid-line, as a full disk or a killed copy leaves it: 17 of its fields.
  std::string cut_row;
  for (std::size_t i = 0, commas = 0; i < lines[last].size() && commas < 17; ++i) {
    if (lines[last][i] == ',') ++commas;
    if (commas < 17) cut_row += lines[last][i];
  }
  REQUIRE(collsim::reports::parse_csv_record(cut_row).size() == 17);
  std::vector<std::string> head(lines.begin(), lines.begin() + static_cast<std::ptrdiff_t>(last));
  const auto cut = write(dir / "cut.csv", joined(head) + cut_row);
  check_bad_input(merge_of({parts[0], cut, parts[2]}),
                  fmt::format("{} line {}: the last line is cut short (no line break at its end): it holds 17 of {} "
                              "fields",
                              cut, last + 1, kColumns));

  // The same short row with its line break and the end line after it (a row cut in place).
  auto short_lines = lines;
  short_lines[last] = cut_row;
  const std::string short_row_number = cut_row.substr(0, cut_row.find(','));
  const auto short_file = write(dir / "short.csv", joined(short_lines));
  check_bad_input(merge_of({parts[0], short_file, parts[2]}),
                  fmt::format("{} line {}: row {} has 17 of {} fields", short_file, last + 1, short_row_number, kColumns));

  // Cut at a line break: every row whole, but the end line is gone.
  const auto no_end = write(dir / "no_end.csv", joined(head));
  check_bad_input(merge_of({parts[0], no_end, parts[2]}), no_end + ": ends at line " + std::to_string(last) +
                                                              " without its end line");

  // A row lost from the middle: the fifth row of the shard.
  auto gap_lines = lines;
  const std::string lost = gap_lines[6].substr(0, gap_lines[6].find(','));
  const std::string after = gap_lines[7].substr(0, gap_lines[7].find(','));
  gap_lines.erase(gap_lines.begin() + 6);
  const auto gap = write(dir / "gap.csv", joined(gap_lines));
  check_bad_input(merge_of({parts[0], gap, parts[2]}),
                  fmt::format("{} line 7: found row {}, expected row {}: the file has lost row {} of shard 1/3", gap,
                              after, lost, lost));
  // The last row lost: the end line comes where it was expected.
  auto lost_last = lines;
  const std::string last_row = lost_last[last].substr(0, lost_last[last].find(','));
  lost_last.erase(lost_last.begin() + static_cast<std::ptrdiff_t>(last));
  const auto tail = write(dir / "tail.csv", joined(lost_last));
  check_bad_input(merge_of({parts[0], tail, parts[2]}),
                  fmt::format("{} line {}: found its end line, expected row {}", tail, last + 1, last_row));

  // JSON lines: the last object cut mid-line, and one lost.
  const auto json = shards_of(kSweep, dir, 3, "json");
  const auto jlines = lines_of(read_file(json[2]));
  const std::size_t jlast = jlines.size() - 2;
  std::vector<std::string> jhead(jlines.begin(), jlines.begin() + static_cast<std::ptrdiff_t>(jlast));
  const auto jcut = write(dir / "cut.json", joined(jhead) + jlines[jlast].substr(0, jlines[jlast].size() / 2));
  check_bad_input(merge_of({json[0], json[1], jcut}),
                  fmt::format("{} line {}: the last line is cut short", jcut, jlast + 1));
  auto jgap = jlines;
  jgap.erase(jgap.begin() + 3);
  const auto jgap_file = write(dir / "gap.json", joined(jgap));
  check_bad_input(merge_of({json[0], json[1], jgap_file}), jgap_file + " line 4: found row ");
  check_bad_input(merge_of({json[0], json[1], jgap_file}), "the file has lost row ");
}

TEST_CASE("merge refuses a file without the shard lines: an old shard, or an unsharded sweep", "[cli][merge][errors]") {
  const auto dir = scratch_dir("merge_old");
  const auto parts = shards_of(kSweep, dir, 3, "csv");
  // A shard of an older collsim: the header and rows only.
  auto lines = lines_of(read_file(parts[0]));
  const auto old = write(dir / "old0.csv", joined(std::vector<std::string>(lines.begin() + 1, lines.end() - 1)));
  check_bad_input(merge_of({old, parts[1], parts[2]}), old + ": has no \"# collsim sweep shard=I/K ...\" first line");
  check_bad_input(merge_of({old, parts[1], parts[2]}), "older collsim");
  check_bad_input(merge_of({(dir / "whole.csv").string()}), "without --shard");
  const auto empty = write(dir / "empty.csv", "");
  check_bad_input(merge_of({empty}), "found an empty file, expected a shard file");
  check_bad_input(merge_of({dir.string()}), "is a directory");
}
}  // namespace merge_cli_test
