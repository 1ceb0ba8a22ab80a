// Output on a full disk: every command that writes a file runs as a child process under a small
// file-size limit (RLIMIT_FSIZE, with SIGXFSZ ignored, so a write past it fails with EFBIG, as on
// a full file system; gnuplot inherits the limit too). Each must exit 74 at once with one line
// naming the file and the OS reason, leave no temporary file, and keep the old file as it was.
#include <catch2/catch.hpp>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "tests/cli/cli_harness.hpp"
#include "tests/tools/child_run.hpp"

// One namespace per test file: CI builds the tests as unity sources (.ci/run), where each file's
// helpers would otherwise meet the other files'.
namespace full_disk_test {

using collsim::testing::read_file;
using collsim::testing::run_collsim;
using collsim::testing::scratch_dir;

namespace {

constexpr int kSkip = 77;
// Smaller than every output below (each test checks that its unlimited output is larger).
constexpr rlim_t kLimit = 256;
const std::string kOld = "the old file, which must stay as it was\n";

std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

std::size_t entries_in(const std::filesystem::path& dir) {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++n;
  return n;
}

// `args` writes `target` (in a folder of its own, where `inputs` other files already are): run
// without a limit it must make a file larger than kLimit; run with it over an old file, it must
// exit 74 with one line naming the target and EFBIG's reason, leaving the old file and no other.
void check_full_disk(const std::vector<std::string>& args, const std::filesystem::path& target, std::size_t inputs) {
  const auto unlimited = run_collsim(args);
  INFO(unlimited.err);
  REQUIRE(unlimited.code == 0);
  REQUIRE(std::filesystem::file_size(target) > kLimit);  // so the limit below cuts it
  std::ofstream(target, std::ios::trunc) << kOld;

  const auto r = collsim::testing::run_collsim_child(args, {.file_size_limit = kLimit, .path = std::nullopt});
  INFO(r.err);
  CHECK(r.code == 74);
  CHECK_THAT(r.err, Catch::StartsWith("collsim: error: ") && Catch::EndsWith("\n") &&
                        Catch::Contains(target.string()) && Catch::Contains(std::strerror(EFBIG)) &&
                        !Catch::Contains(".tmp"));
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK(read_file(target) == kOld);
  CHECK(entries_in(target.parent_path()) == inputs + 1);  // no temporary file left beside it
}

void require_gnuplot() {
  if (std::system("command -v gnuplot >/dev/null 2>&1") == 0) return;
  WARN("gnuplot is not installed; skipped");
  std::exit(kSkip);
}

std::string fixture(const std::string& name) { return std::string(COLLSIM_SOURCE_DIR) + "/tests/data/nccl-tests/" + name; }

}  // namespace

TEST_CASE("plot -o on a full disk exits 74 naming the chart, and the old chart stays (svg, png, pdf)",
          "[plot][output][full-disk]") {
  require_gnuplot();
  for (const std::string ext : {"svg", "png", "pdf"}) {
    INFO(ext);
    const auto dir = scratch_dir("full_plot_" + ext);
    const auto csv = dir / "s.csv";
    std::ofstream(csv) << "size_bytes,busbw_GBps,algorithm\n1024,1.5,ring\n2048,2.5,ring\n4096,3.5,tree\n";
    const auto chart = dir / ("chart." + ext);
    check_full_disk({"plot", csv.string(), "-o", chart.string()}, chart, 1);
  }
}

TEST_CASE("compare --plot on a full disk exits 74 naming the chart, and the old chart stays", "[compare][output][full-disk]") {
  require_gnuplot();
  const auto dir = scratch_dir("full_compare");
  const auto chart = dir / "l40s.png";
  check_full_disk({"compare", fixture("l40s_2gpu_ring.txt"), "l40s-pcie", "--plot", chart.string()}, chart, 0);
}

TEST_CASE("simulate --trace and --save-schedule on a full disk exit 74 naming the file", "[simulate][output][full-disk]") {
  const std::vector<std::string> run{"simulate", "--gpus", "4", "--fabric", "switch", "--size", "1M"};
  const auto dir = scratch_dir("full_simulate");
  const auto trace = dir / "trace" / "t.json";
  const auto schedule = dir / "schedule" / "s.json";
  std::filesystem::create_directories(trace.parent_path());
  std::filesystem::create_directories(schedule.parent_path());
  check_full_disk(with(run, {"--trace", trace.string()}), trace, 0);
  check_full_disk(with(run, {"--save-schedule", schedule.string()}), schedule, 0);
}

TEST_CASE("calibrate -o and merge -o on a full disk exit 74 naming the file", "[calibrate][merge][output][full-disk]") {
  const auto dir = scratch_dir("full_calibrate_merge");
  const auto params = dir / "params" / "p.json";
  std::filesystem::create_directories(params.parent_path());
  check_full_disk({"calibrate", fixture("l40s_2gpu_ring.txt"), "l40s-pcie", "--max-evaluations", "2", "-o", params.string()},
                  params, 0);

  const auto shards = dir / "shards";
  std::filesystem::create_directories(shards);
  std::vector<std::string> merge{"merge"};
  for (const std::string shard : {"0/2", "1/2"}) {
    const auto file = shards / ("part" + shard.substr(0, 1) + ".csv");
    REQUIRE(run_collsim({"sweep", "--gpus", "2,4", "--fabric", "switch", "-b", "1K", "-e", "64K", "--shard", shard, "-o",
                         file.string()})
                .code == 0);
    merge.push_back(file.string());
  }
  const auto merged = shards / "merged.csv";
  check_full_disk(with(merge, {"-o", merged.string()}), merged, 2);
}
}  // namespace full_disk_test
