// collsim compare: every real log runs on its bundled machine; the JSON shape and the band arithmetic on
// a hand-made log whose predictions are closed forms; every flag error exits 2 with one line.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "tests/cli/cli_harness.hpp"

// One namespace per test file: CI builds the tests as unity sources (.ci/run), where each file's
// helpers would otherwise meet the other files'.
namespace compare_cli_test {

using collsim::testing::check_bad_input;
using collsim::testing::run_collsim;
using collsim::testing::temp_file;

namespace {

std::string fixture(const std::string& name) { return std::string(COLLSIM_SOURCE_DIR) + "/tests/data/nccl-tests/" + name; }

// Ring all-reduce on --gpus 4 --fabric ring, 25 GB/s and 1 us per link: 2(N-1)(α + ⌈S/N⌉/B) =
// 6 · (1 us + S/4 / 25 GB/s) (docs/network-model.md, "How the simulation works"; tests/oracle/closed_form_test.cpp).
// The measured times are the predictions divided by 0.8, 1.25, 0.5, 1.6, 1 and 2, so the errors are
// -20 %, +25 %, -50 %, +60 %, 0 % and +100 %.
struct HandRow {
  std::uint64_t size;
  double predicted_us;
  double measured_us;
  double error_pct;
};
const std::vector<HandRow> kHandRows{
    {4096, 6.24576, 7.8072, -20},           // 6 · (1 + 1024 B / 25 GB/s = 0.04096 us)
    {32768, 7.96608, 6.372864, 25},         // 6 · (1 + 0.32768)
    {65536, 9.93216, 19.86432, -50},        // 6 · (1 + 0.65536)
    {1048576, 68.91456, 43.0716, 60},       // 6 · (1 + 10.48576)
    {16777216, 1012.63296, 1012.63296, 0},  // 6 · (1 + 167.77216)
    {67108864, 4032.53184, 2016.26592, 100},  // 6 · (1 + 671.08864)
};

std::string hand_log() {
  std::string text;
  for (const auto& r : kHandRows) {
    std::ostringstream line;
    line.precision(12);
    // algbw = S / t, as nccl-tests prints it; busbw is not checked by the reader.
    const double algbw = static_cast<double>(r.size) / r.measured_us / 1e3;
    line << r.size << " " << r.size / 4 << " float sum -1 " << r.measured_us << " " << algbw << " 1.50 0 "
         << r.measured_us << " " << algbw << " 1.50 0\n";
    text += line.str();
  }
  return text;
}

const std::vector<std::string> kRingFabric{"--gpus", "4", "--fabric", "ring", "--link-bandwidth", "25GB/s",
                                           "--link-latency", "1us"};

std::vector<std::string> args(std::vector<std::string> head, const std::vector<std::string>& tail = {}) {
  head.insert(head.end(), tail.begin(), tail.end());
  return head;
}

}  // namespace

TEST_CASE("compare predicts every row by the closed form and summarises the bands by hand", "[cli][compare]") {
  const std::string log = temp_file("hand.txt", hand_log());
  const auto r = run_collsim(args({"compare", log, "--ranks", "4", "--collective", "allreduce", "--format", "json"},
                                  kRingFabric));
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(r.err.empty());
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["collective"] == "allreduce");
  CHECK(j["algorithm"] == "ring");
  CHECK(j["topology"] == "ring-4gpu");
  CHECK(j["ranks"] == 4);
  CHECK(j["test"] == "all_reduce_perf");
  REQUIRE(j["rows"].size() == kHandRows.size());
  for (std::size_t i = 0; i < kHandRows.size(); ++i) {
    const auto& row = j["rows"][i];
    const auto& e = kHandRows[i];
    INFO("row " << i << ", size " << e.size);
    CHECK(row["line"] == i + 1);
    CHECK(row["size_bytes"] == e.size);
    CHECK(row["measured_us"].get<double>() == e.measured_us);
    CHECK(row["predicted_us"].get<double>() == Approx(e.predicted_us).margin(1e-9));
    CHECK(row["error_pct"].get<double>() == Approx(e.error_pct).margin(1e-9));
    CHECK(row["measured_busbw_GBps"].get<double>() == 1.5);
    // busbw = S / t · 2(N-1)/N (nccl-tests doc/PERFORMANCE.md), GB/s = 1e3 B/us.
    CHECK(row["predicted_busbw_GBps"].get<double>() == Approx(static_cast<double>(e.size) / e.predicted_us * 1.5 / 1e3));
    CHECK(row["predicted_algbw_GBps"].get<double>() == Approx(static_cast<double>(e.size) / e.predicted_us / 1e3));
  }
  // |errors| by band: <64KiB {20, 25}; 64KiB-16MiB {50, 60, 0}; >16MiB {100}; all {0, 20, 25, 50, 60, 100}.
  const auto& s = j["summary"];
  REQUIRE(s.size() == 4);
  const std::vector<std::tuple<std::string, int, double, double>> expected{
      {"<64KiB", 2, 22.5, 25}, {"64KiB-16MiB", 3, 50, 60}, {">16MiB", 1, 100, 100}, {"all", 6, 37.5, 100}};
  for (std::size_t b = 0; b < expected.size(); ++b) {
    const auto& [band, rows, median, max] = expected[b];
    INFO(band);
    CHECK(s[b]["band"] == band);
    CHECK(s[b]["rows"] == rows);
    CHECK(s[b]["median_abs_error_pct"].get<double>() == Approx(median).margin(1e-9));
    CHECK(s[b]["max_abs_error_pct"].get<double>() == Approx(max).margin(1e-9));
  }
}

TEST_CASE("compare prints a table by default and a CSV line per row", "[cli][compare]") {
  const std::string log = temp_file("hand-table.txt", hand_log());
  const auto table = run_collsim(args({"compare", log, "--ranks", "4", "--collective", "allreduce"}, kRingFabric));
  REQUIRE(table.code == 0);
  CHECK_THAT(table.out, Catch::Contains("ring allreduce on ring-4gpu") && Catch::Contains("median |error| %") &&
                            Catch::Contains("     67108864       2016.27       4032.53    +100.0"));
  const auto csv =
      run_collsim(args({"compare", log, "--ranks", "4", "--collective", "allreduce", "--format", "csv"}, kRingFabric));
  REQUIRE(csv.code == 0);
  CHECK(std::count(csv.out.begin(), csv.out.end(), '\n') == 1 + static_cast<long>(kHandRows.size()));
  CHECK_THAT(csv.out, Catch::StartsWith("line,size_bytes,band,measured_us,predicted_us,error_pct,") &&
                          Catch::Contains("\n1,4096,<64KiB,7.8072,6.24576,"));
}

TEST_CASE("compare runs every real log on its bundled machine", "[cli][compare]") {
  struct Case {
    std::string log;
    std::vector<std::string> flags;
    std::size_t rows;
  };
  // The logs with only result rows need --ranks and --collective (shared/data/README.md says which).
  const std::vector<Case> cases{
      {"a100_80g_8gpu_mpi.txt", {"dgx-a100", "--ranks", "8", "--collective", "allreduce"}, 30},
      // NCCL before 2.28.7 has no NVLS on 2 GPUs (docs/fidelity.md).
      {"h100_2gpu_nvswitch_do.txt", {"dgx-h100", "--ranks", "2", "--collective", "allreduce", "--nccl-algo", "^nvls"}, 21},
      // Ring forced (shared/data/README.md): NCCL's default there would run NVLSTree.
      {"h100_2node_16gpu_ring_ctas24.txt", {"--topology", "dgx-h100-2node-ib400", "--ranks", "16", "--collective",
                                            "all_reduce_perf", "--algorithm", "ring"}, 14},
      {"l40s_2gpu_ring.txt", {"l40s-pcie"}, 25},
      {"l40s_4gpu_ring.txt", {"l40s-pcie", "--algorithm", "ring"}, 25},
      // Nothing fitted: NCCL's latencies and its PCIe rate (24 of 31.5 GB/s for Gen4 x16).
      {"rtx4090_4gpu_p2pdriver_allreduce.txt", {"rtx4090-pcie", "--ranks", "4", "--collective", "allreduce"}, 21},
  };
  for (const auto& c : cases) {
    INFO(c.log);
    const auto r = run_collsim(args({"compare", fixture(c.log), "--format", "json"}, c.flags));
    INFO(r.err);
    REQUIRE(r.code == 0);
    const auto j = nlohmann::json::parse(r.out);
    CHECK(j["rows"].size() == c.rows);
    CHECK(j["summary"][3]["band"] == "all");
    CHECK(j["summary"][3]["rows"] == c.rows);
    for (const auto& row : j["rows"]) CHECK(row["predicted_us"].get<double>() > 0);
    // Issue 4's targets, uncalibrated: median |error| <= 15 % above 16 MiB (band 2) and <= 30 % over
    // all rows, against these real measurements.
    CHECK(j["summary"][2]["median_abs_error_pct"].get<double>() <= 15.0);
    CHECK(j["summary"][3]["median_abs_error_pct"].get<double>() <= 30.0);
  }
}

TEST_CASE("compare names the devices and hosts the log lists", "[cli][compare]") {
  const auto r = run_collsim({"compare", fixture("l40s_4gpu_ring.txt"), "l40s-pcie"});
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("(all_reduce_perf, 4 ranks of NVIDIA L40S on 1 host) against ring allreduce on "
                                    "l40s-pcie"));
  const auto j = nlohmann::json::parse(
      run_collsim({"compare", fixture("l40s_4gpu_ring.txt"), "l40s-pcie", "--format", "json"}).out);
  CHECK(j["devices"] == std::vector<std::string>{"NVIDIA L40S"});
  CHECK(j["hosts"] == 1);
  // A log of result rows lists neither.
  const auto rows = nlohmann::json::parse(run_collsim({"compare", fixture("a100_80g_8gpu_mpi.txt"), "dgx-a100",
                                                       "--ranks", "8", "--collective", "allreduce", "--format", "json"})
                                              .out);
  CHECK(rows["devices"].empty());
  CHECK(rows["hosts"] == 0);
}

TEST_CASE("compare reads a log pasted with srun's labels and says so", "[cli][compare][paste]") {
  // The L40S log as `srun --label` prints it ("0: " before every line) and without its footer.
  std::string labelled;
  {
    std::ifstream in(fixture("l40s_4gpu_ring.txt"));
    std::string line;
    while (std::getline(in, line))
      if (!line.starts_with("# Avg") && !line.starts_with("# Out") && !line.starts_with("# Collective test concluded"))
        labelled += "0: " + line + "\n";
  }
  const std::string log = temp_file("l40s-srun.txt", labelled);
  const auto pasted = run_collsim({"compare", log, "l40s-pcie", "--algorithm", "ring", "--format", "json"});
  REQUIRE(pasted.code == 0);
  const auto j = nlohmann::json::parse(pasted.out);
  CHECK(j["log_forms"] == std::vector<std::string>{"label_prefix", "no_footer"});
  const auto printed = nlohmann::json::parse(
      run_collsim({"compare", fixture("l40s_4gpu_ring.txt"), "l40s-pcie", "--algorithm", "ring", "--format", "json"}).out);
  CHECK(printed["log_forms"].empty());
  CHECK(j["rows"] == printed["rows"]);
  const auto table = run_collsim({"compare", log, "l40s-pcie", "--algorithm", "ring"});
  CHECK_THAT(table.out, Catch::Contains("(log read as pasted: label_prefix, no_footer)\n"));
}

TEST_CASE("compare: a log's own header wins over flags that contradict it", "[cli][compare][errors]") {
  const std::string l40s = fixture("l40s_2gpu_ring.txt");
  check_bad_input({"compare", l40s, "l40s-pcie", "--ranks", "4"},
                  "--ranks: found 4, but " + l40s + ":7 says the log ran on 2 ranks; expected 2 or no --ranks");
  check_bad_input({"compare", l40s, "l40s-pcie", "--collective", "allgather"},
                  "--collective: found allgather, but " + l40s + ":2 says the log measured all_reduce_perf");
  // Flags that agree are accepted.
  CHECK(run_collsim({"compare", l40s, "l40s-pcie", "--ranks", "2", "--collective", "all_reduce_perf", "--format", "csv"})
            .code == 0);
}

TEST_CASE("compare: a log with only result rows needs --ranks and --collective", "[cli][compare][errors]") {
  const std::string a100 = fixture("a100_80g_8gpu_mpi.txt");
  check_bad_input({"compare", a100, "dgx-a100", "--collective", "allreduce"}, "--ranks: missing; " + a100);
  check_bad_input({"compare", a100, "dgx-a100", "--ranks", "8"}, "--collective: missing; " + a100);
  check_bad_input({"compare", a100, "dgx-a100", "--ranks", "8", "--collective", "gossip"},
                  "--collective: found \"gossip\"");
  check_bad_input({"compare", a100, "dgx-a100", "--ranks", "0", "--collective", "allreduce"}, "--ranks: found \"0\"");
  check_bad_input({"compare", a100, "dgx-a100", "--ranks", "16", "--collective", "allreduce"},
                  "ran on 16 ranks, but topology dgx-a100 has only 8 GPUs");
  // The rows say what they are (all-reduce: redop sum, root -1, as nccl-tests prints them), so a
  // --collective they contradict is refused rather than compared.
  const std::string rows = fixture("h100_2node_16gpu_ring_ctas24.txt");
  check_bad_input({"compare", rows, "dgx-h100-2node-ib400", "--ranks", "16", "--collective", "broadcast"},
                  "found root -1, expected a rank for --collective broadcast");
  check_bad_input({"compare", rows, "dgx-h100-2node-ib400", "--ranks", "16", "--collective", "allgather"},
                  "found redop sum, expected none for --collective allgather");
}

TEST_CASE("compare: other bad input exits 2 with one line", "[cli][compare][errors]") {
  const std::string l40s = fixture("l40s_2gpu_ring.txt");
  check_bad_input({"compare"}, "LOG: missing");
  check_bad_input({"compare", l40s, "l40s-pcie", "--format", "xml"}, "--format: found \"xml\"");
  check_bad_input({"compare", l40s, "l40s-pcie", "--topology", "dgx-a100"}, "--topology: found \"dgx-a100\"");
  check_bad_input({"compare", l40s, "l40s-pcie", "--algorithm", "nope"}, "nope");
  check_bad_input({"compare", "/nonexistent-collsim/run.txt", "dgx-a100"},
                  "/nonexistent-collsim/run.txt cannot be read (No such file or directory); expected an nccl-tests log file");
  check_bad_input({"compare", COLLSIM_SOURCE_DIR, "dgx-a100"},
                  std::string(COLLSIM_SOURCE_DIR) + " is a directory; expected an nccl-tests log file");
  const std::string garbled = temp_file("garbled.txt", "1024 256 float sum -1 31.5 0.03 0.03 0 30.9 0.03 0.03 0\n"
                                                       "2048 512 float sum -1 3x.5 0.06 0.06 0 30.9 0.06 0.06 0\n");
  check_bad_input({"compare", garbled, "dgx-a100", "--ranks", "8", "--collective", "allreduce"},
                  garbled + ":2: found \"3x.5\" in the time column");
  const std::string sendrecv = temp_file(
      "sendrecv.txt",
      "# Collective test starting: sendrecv_perf\n"
      "# nThread 1 nGpus 2 minBytes 8 maxBytes 8 step: 2(factor) warmup iters: 5 iters: 20 validation: 1\n"
      "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
      "           8             2     float     sum      -1    12.00    0.00    0.00      0    11.00    0.00    0.00      0\n"
      "# Avg bus bandwidth    : 0\n");
  check_bad_input({"compare", sendrecv, "dgx-a100", "--collective", "allreduce"},
                  "--collective: found allreduce, but " + sendrecv);
}

TEST_CASE("compare predicts each row exactly as simulate does for the same collective, ranks and size",
          "[cli][compare]") {
  // The same path and defaults: row 1 MiB of the 4-GPU L40S log against `simulate l40s-pcie --size 1048576`.
  const auto j = nlohmann::json::parse(
      run_collsim({"compare", fixture("l40s_4gpu_ring.txt"), "l40s-pcie", "--format", "json"}).out);
  // The log ran nThread 1 nGpus 4: one thread drove the 4 GPUs, which simulate is told.
  const auto s = collsim::testing::simulate_json({"l40s-pcie", "--size", "1048576", "--gpus-per-thread", "4"});
  bool seen = false;
  for (const auto& row : j["rows"])
    if (row["size_bytes"] == 1048576) {
      CHECK(row["predicted_us"] == s["time_us"]);
      CHECK(row["predicted_busbw_GBps"] == s["busbw_GBps"]);
      seen = true;
    }
  CHECK(seen);
  // --algorithm reaches the simulation: direct all-reduce on 4 ranks is 2 steps, not ring's 6.
  const auto d = nlohmann::json::parse(run_collsim({"compare", fixture("l40s_4gpu_ring.txt"), "l40s-pcie",
                                                    "--algorithm", "direct", "--format", "json"})
                                           .out);
  CHECK(d["algorithm"] == "direct");
  // At 1 MiB (line 32), where the host does not set the time: 4 x 4.2 us is far below it.
  const auto sd = collsim::testing::simulate_json({"l40s-pcie", "--size", "1M", "--algorithm", "direct"});
  const auto at_1m = [](const nlohmann::json& doc) {
    for (const auto& row : doc["rows"])
      if (row["size_bytes"] == 1048576) return row["predicted_us"];
    return nlohmann::json();
  };
  CHECK(sd["host_bound"] == false);
  CHECK(at_1m(d) == sd["time_us"]);
  CHECK(at_1m(d) != at_1m(j));
}

TEST_CASE("compare: broadcast and reduce rows run from the printed root, the default topology is announced",
          "[cli][compare]") {
  const std::string rows = "1048576 262144 float none 3 50.0 20.97 20.97 0 50.0 20.97 20.97 0\n";
  const std::string bcast = temp_file("bcast.txt", rows);
  const auto r = run_collsim(args({"compare", bcast, "--ranks", "4", "--collective", "broadcast", "--format", "json"},
                                  kRingFabric));
  INFO(r.err);
  REQUIRE(r.code == 0);
  const auto j = nlohmann::json::parse(r.out);
  const auto s = collsim::testing::simulate_json(
      args({"--collective", "broadcast", "--root", "3", "--size", "1048576"}, kRingFabric));
  CHECK(j["rows"][0]["predicted_us"] == s["time_us"]);
  check_bad_input({"compare", temp_file("bcast5.txt", "1024 256 float none 5 5.0 0.20 0.20 0\n"), "--ranks", "4",
                   "--collective", "broadcast", "--gpus", "4", "--fabric", "ring"},
                  ":1: found root 5, expected a rank below 4");
  // No topology: the bundled default, said on stderr as simulate says it.
  const auto d = run_collsim({"compare", fixture("l40s_2gpu_ring.txt"), "--format", "csv"});
  REQUIRE(d.code == 0);
  CHECK_THAT(d.err, Catch::Contains("used the bundled default dgx-a100"));
}

namespace {

// The median |error_pct| of the rows of a compare JSON whose size is at least `min_size`.
double median_abs_error(const nlohmann::json& compare, std::uint64_t min_size = 0) {
  std::vector<double> e;
  for (const auto& row : compare["rows"])
    if (row["size_bytes"].get<std::uint64_t>() >= min_size) e.push_back(std::abs(row["error_pct"].get<double>()));
  REQUIRE(!e.empty());
  std::sort(e.begin(), e.end());
  return e.size() % 2 == 1 ? e[e.size() / 2] : (e[e.size() / 2 - 1] + e[e.size() / 2]) / 2;
}

}  // namespace

// Issue 17: calibration stays physical. The B200 2-node all-gather up to 16 MiB: no row there is bound
// by NVLink's bandwidth and one by the network's, so neither efficiency can be told from them; before,
// the fit set them to 0.19 and 0.17 and the sizes above 16 MiB went from 20 % to 55 % error. And
// where the model's shape differs from the log's (LL128 between the nodes, 55 % fast at 1-64 MiB),
// scaling every latency up to meet those rows made the typical row worse (11.1 % -> 31.7 %), so
// the start is kept.
TEST_CASE("calibrate keeps an efficiency the rows cannot tell, and a fit that makes the typical row worse",
          "[cli][calibrate]") {
  const auto dir = collsim::testing::scratch_dir("calibrate_b200");
  const auto params = (dir / "b200.json").string();
  const std::vector<std::string> log = {fixture("b200_vultr_2node_allgather.txt"), "dgx-b200-2node-ib400", "--ranks",
                                        "16", "--collective", "allgather"};
  std::vector<std::string> cmd = {"calibrate"};
  cmd.insert(cmd.end(), log.begin(), log.end());
  for (const char* a : {"--max-size", "16M", "--format", "json", "-o"}) cmd.emplace_back(a);
  cmd.push_back(params);
  const auto fit = run_collsim(cmd);
  INFO(fit.err);
  REQUIRE(fit.code == 0);
  const auto f = nlohmann::json::parse(fit.out);
  for (const auto& v : f["values"])
    if (v["name"].get<std::string>().starts_with("link efficiency")) CHECK(v["fitted"] == v["start"]);
  std::string notes;
  for (const auto& n : f["notes"]) notes += n.get<std::string>() + "\n";
  CHECK_THAT(notes, Catch::Contains("link efficiency, nvlink: kept at 0.802: 0 of the fitted rows are bound") &&
                        Catch::Contains("link efficiency, network: kept at 0.94") &&
                        Catch::Contains("raised the median |error| of the fitted rows"));
  CHECK(f["median_abs_error_pct"]["fitted"].get<double>() <= f["median_abs_error_pct"]["start"].get<double>());
  // The sizes it was not fitted on are predicted as without calibration.
  std::vector<std::string> with = {"compare"};
  with.insert(with.end(), log.begin(), log.end());
  std::vector<std::string> without = with;
  for (const char* a : {"--params"}) with.emplace_back(a);
  with.push_back(params);
  with.emplace_back("--format");
  with.emplace_back("json");
  without.emplace_back("--format");
  without.emplace_back("json");
  const auto a = nlohmann::json::parse(run_collsim(with).out);
  const auto b = nlohmann::json::parse(run_collsim(without).out);
  CHECK(median_abs_error(a, 32u << 20) <= median_abs_error(b, 32u << 20) + 0.5);
}

// Issue 17: a fit that hits a bound says so. The 2-GPU L40S log (busbw 20-21 GB/s at 64-128 MiB) on
// a made-up switch of 12 GB/s links: the rows want more bandwidth than the links have, so the
// efficiency stops at 1; every fitted value carries its standard error.
TEST_CASE("calibrate says when a fitted value sits on its physical bound, and gives each one's uncertainty",
          "[cli][calibrate]") {
  const auto dir = collsim::testing::scratch_dir("calibrate_bound");
  const auto params = (dir / "bound.json").string();
  const auto fit = run_collsim({"calibrate", fixture("l40s_2gpu_ring.txt"), "--gpus", "2", "--fabric", "switch",
                                "--link-bandwidth", "12GB/s", "--link-latency", "1us", "--format", "json", "-o", params});
  INFO(fit.err);
  REQUIRE(fit.code == 0);
  const auto f = nlohmann::json::parse(fit.out);
  std::string notes;
  for (const auto& n : f["notes"]) notes += n.get<std::string>() + "\n";
  CHECK_THAT(notes, Catch::Contains("link efficiency, nvlink: sits on its bound 1 (the link's full rate)"));
  for (const auto& v : f["values"]) {
    INFO(v.dump());
    if (v["unit"] == "us") {
      REQUIRE(v["uncertainty_pct"].is_number());
      CHECK(v["uncertainty_pct"].get<double>() > 0);
      CHECK(v["uncertainty_pct"].get<double>() < 50);
    }
  }
  // The table says it too, and marks a value the fit could not move (flat at its bound).
  const auto table = run_collsim({"calibrate", fixture("l40s_2gpu_ring.txt"), "--gpus", "2", "--fabric", "switch",
                                  "--link-bandwidth", "12GB/s", "--link-latency", "1us", "-o", params});
  CHECK_THAT(table.out, Catch::Contains("+-1 s.e.") && Catch::Contains("sits on its bound 1"));
}

// Issue 17: one machine, several N: the 2- and 4-GPU L40S logs fitted at once, each log's error said.
TEST_CASE("calibrate --also fits several logs of one machine at once and reports each", "[cli][calibrate]") {
  const auto dir = collsim::testing::scratch_dir("calibrate_also");
  const auto params = (dir / "both.json").string();
  const auto fit = run_collsim({"calibrate", fixture("l40s_2gpu_ring.txt"), "l40s-pcie", "--also",
                                fixture("l40s_4gpu_ring.txt"), "--format", "json", "-o", params});
  INFO(fit.err);
  REQUIRE(fit.code == 0);
  const auto f = nlohmann::json::parse(fit.out);
  CHECK(f["rows"] == 50);
  CHECK(f["rows_fitted"] == 50);
  REQUIRE(f["logs"].size() == 2);
  CHECK(f["logs"][0]["rows_fitted"] == 25);
  CHECK(f["logs"][1]["log"] == fixture("l40s_4gpu_ring.txt"));
  for (const auto& l : f["logs"]) CHECK(l["median_abs_error_pct"]["fitted"].get<double>() <= 10.0);
  // Each log's median after the fit is what compare gives with the file.
  const auto r = run_collsim({"compare", fixture("l40s_4gpu_ring.txt"), "l40s-pcie", "--params", params, "--format", "json"});
  CHECK(median_abs_error(nlohmann::json::parse(r.out)) ==
        Approx(f["logs"][1]["median_abs_error_pct"]["fitted"].get<double>()).epsilon(1e-9));
  check_bad_input({"calibrate", fixture("l40s_2gpu_ring.txt"), "l40s-pcie", "--also", "/nonexistent/more.txt", "-o", params},
                  "/nonexistent/more.txt");
  // One log per --also: the topology after it is still the topology.
  CHECK(run_collsim({"calibrate", fixture("l40s_2gpu_ring.txt"), "--also", fixture("l40s_4gpu_ring.txt"), "l40s-pcie",
                     "-o", params})
            .code == 0);
  check_bad_input({"calibrate", fixture("l40s_2gpu_ring.txt"), "l40s-pcie", "--also", fixture("l40s_2gpu_ring.txt"),
                   "-o", params},
                  "which is already fitted; expected each log once");
  check_bad_input({"calibrate", fixture("l40s_2gpu_ring.txt"), "l40s-pcie", "--also", "", "-o", params},
                  "--also: found an empty value");
}

// Issue 4's acceptance: calibration predicts what it was not fitted on. The measured times are the
// real nccl-tests logs in tests/data/nccl-tests (shared/data/README.md gives their sources).
TEST_CASE("calibrate on the 2-GPU L40S log predicts the 4-GPU log within 10 % median", "[cli][calibrate]") {
  const auto dir = collsim::testing::scratch_dir("calibrate_l40s");
  const auto params = (dir / "l40s.json").string();
  const auto fit = run_collsim({"calibrate", fixture("l40s_2gpu_ring.txt"), "l40s-pcie", "--format", "json", "-o", params});
  INFO(fit.err);
  REQUIRE(fit.code == 0);
  const auto f = nlohmann::json::parse(fit.out);
  CHECK(f["rows_fitted"] == 25);
  CHECK(f["rms_log_error"]["fitted"].get<double>() <= f["rms_log_error"]["start"].get<double>());
  const auto r = run_collsim({"compare", fixture("l40s_4gpu_ring.txt"), "l40s-pcie", "--params", params, "--format", "json"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(median_abs_error(nlohmann::json::parse(r.out)) <= 10.0);
}

// Hidden from Catch's default run ("[.]"): the fit simulates 22 rows about 45 times on 8 ranks x 24
// channels under the flow model, about 20 s of CPU in Release. CTest runs it as its own entry
// (tests/CMakeLists.txt, label slow) so it starts early beside the rest; by hand:
// build/tests/collsim_tests "[slow]".
TEST_CASE("calibrate on the A100 log up to 16 MiB predicts the sizes from 64 MiB within 10 % median",
          "[.][slow][calibrate]") {
  const auto dir = collsim::testing::scratch_dir("calibrate_a100");
  const auto params = (dir / "a100.json").string();
  const std::vector<std::string> run{"dgx-a100", "--ranks", "8", "--collective", "allreduce"};
  const auto fit = run_collsim(args({"calibrate", fixture("a100_80g_8gpu_mpi.txt"), "--max-size", "16M", "-o", params,
                                     "--format", "json"}, run));
  INFO(fit.err);
  REQUIRE(fit.code == 0);
  CHECK(nlohmann::json::parse(fit.out)["rows_fitted"] == 22);  // 8 B .. 16 MiB
  const auto r = run_collsim(args({"compare", fixture("a100_80g_8gpu_mpi.txt"), "--params", params, "--format", "json"}, run));
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(median_abs_error(nlohmann::json::parse(r.out), 64ull << 20) <= 10.0);
}

TEST_CASE("calibrate writes a parameter file that --params reads, and prints the fit", "[cli][calibrate]") {
  const auto dir = collsim::testing::scratch_dir("calibrate_table");
  const auto params = (dir / "p.json").string();
  const auto fit = run_collsim({"calibrate", fixture("l40s_2gpu_ring.txt"), "--topology", "l40s-pcie", "--min-size", "1M",
                                "--max-evaluations", "20", "-o", params});
  INFO(fit.err);
  REQUIRE(fit.code == 0);
  CHECK_THAT(fit.out, Catch::Contains("fitted 8 of 25 rows") && Catch::Contains("link efficiency, pcie") &&
                          Catch::Contains("step latency, ring pcie simple (us)") && Catch::Contains("wrote " + params));
  const std::string text = collsim::testing::read_file(params);
  CHECK_THAT(text, Catch::Contains("\"format\": \"collsim-params-1\"") && Catch::Contains("\"link_efficiency\"") &&
                       Catch::Contains("\"base_latency\"") && Catch::Contains("\"step_latency\""));
  // Only the file is left in the folder: the atomic write's temporary file is gone.
  std::size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) files += e.is_regular_file() ? 1 : 0;
  CHECK(files == 1);
  // The same fit twice writes the same bytes (deterministic).
  const auto again = (dir / "q.json").string();
  REQUIRE(run_collsim({"calibrate", fixture("l40s_2gpu_ring.txt"), "--topology", "l40s-pcie", "--min-size", "1M",
                       "--max-evaluations", "20", "-o", again})
              .code == 0);
  CHECK(collsim::testing::read_file(again) == text);
  const auto s = collsim::testing::simulate_json({"l40s-pcie", "--ranks", "2", "--size", "1M", "--params", params});
  CHECK(s["protocol_source"].get<std::string>().find("--params") != std::string::npos);
}

TEST_CASE("calibrate: bad input exits 2 with one line", "[cli][calibrate][errors]") {
  const std::string log = fixture("l40s_2gpu_ring.txt");
  const auto out = (collsim::testing::scratch_dir("calibrate_errors") / "p.json").string();
  check_bad_input({"calibrate", log, "l40s-pcie"}, "-o: missing");
  check_bad_input({"calibrate", log, "l40s-pcie", "-o", out, "--min-size", "1G"}, "no row");
  check_bad_input({"calibrate", log, "l40s-pcie", "-o", out, "--max-size", "lots"}, "--max-size");
  check_bad_input({"calibrate", log, "l40s-pcie", "-o", out, "--format", "csv"}, "--format");
  check_bad_input({"calibrate", log, "l40s-pcie", "-o", out, "--max-evaluations", "0"}, "--max-evaluations");
  check_bad_input({"calibrate", log, "l40s-pcie", "-o", out, "--ranks", "4"}, "--ranks");
  check_bad_input({"compare", log, "l40s-pcie", "--plot", "chart.gif"}, "--plot");
}

TEST_CASE("compare reports a row whose predicted time passes the clock's end and predicts the others",
          "[cli][compare][errors]") {
  // At 1 b/s, ring all-reduce on 4 ranks takes 6 · (S/4 · 8 s + 1 us): below the clock's end
  // (2^63 ps, 9.22e18 ps = 9.22e6 s) for S up to 768 KB, so the three rows of 4 KiB to 64 KiB are
  // predicted, and those of 1 MiB, 16 MiB and 64 MiB are not.
  const std::string log = temp_file("hand-overflow.txt", hand_log());
  const std::vector<std::string> slow{"--gpus", "4", "--fabric", "ring", "--link-bandwidth", "1b/s", "--link-latency", "1us"};
  const auto predicted = [](std::uint64_t size) { return 6.0 * (static_cast<double>(size) / 4 * 8 * 1e6 + 1); };
  const auto r = run_collsim(args({"compare", log, "--ranks", "4", "--collective", "allreduce", "--format", "json"}, slow));
  INFO(r.err);
  REQUIRE(r.code == 0);
  const auto j = nlohmann::json::parse(r.out);
  REQUIRE(j["rows"].size() == kHandRows.size());
  std::size_t warned = 0;
  for (std::size_t i = 0; i < kHandRows.size(); ++i) {
    const auto& row = j["rows"][i];
    const std::uint64_t size = kHandRows[i].size;
    CHECK(row["measured_us"].get<double>() == Approx(kHandRows[i].measured_us));
    if (size <= 65536) {
      CHECK(row["predicted_us"].get<double>() == Approx(predicted(size)));
      CHECK(row["error"].is_null());
    } else {
      CHECK(row["predicted_us"].is_null());
      CHECK(row["error_pct"].is_null());
      CHECK(row["predicted_busbw_GBps"].is_null());
      CHECK_THAT(row["error"].get<std::string>(), Catch::Contains("clock"));
      // One line on stderr naming the log line and the size.
      CHECK_THAT(r.err, Catch::Contains(fmt::format("collsim: warning: compare: {}:{} ({} bytes): not predicted: ", log,
                                                    i + 1, size)));
      ++warned;
    }
  }
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == static_cast<long>(warned));
  // The bands hold the predicted rows only: the three below 64 KiB (and 64 KiB itself).
  const auto& all = j["summary"].back();
  CHECK(all["band"] == "all");
  CHECK(all["rows"] == 3);

  const auto csv = run_collsim(args({"compare", log, "--ranks", "4", "--collective", "allreduce", "--format", "csv"}, slow));
  REQUIRE(csv.code == 0);
  CHECK_THAT(csv.out, Catch::StartsWith("line,size_bytes,band,measured_us,predicted_us,error_pct,measured_algbw_GBps,"
                                        "predicted_algbw_GBps,measured_busbw_GBps,predicted_busbw_GBps,error,algorithm,protocol,channels,host_bound\n") &&
                          Catch::Contains("\n4,1048576,64KiB-16MiB,43.0716,,,"));
  const auto table = run_collsim(args({"compare", log, "--ranks", "4", "--collective", "allreduce"}, slow));
  REQUIRE(table.code == 0);
  CHECK_THAT(table.out, Catch::Contains("      1048576         43.07             -         -") &&
                            Catch::Contains("(line 4, 1048576 bytes: not predicted: "));
  // No row at all predicted: an error naming the first row, not an empty report.
  const std::string big =
      temp_file("hand-overflow-all.txt", "1048576 262144 float sum -1 43.0716 24.3 1.50 0 43.0716 24.3 1.50 0\n");
  check_bad_input(args({"compare", big, "--ranks", "4", "--collective", "allreduce"}, slow),
                  big + ":1: no row could be predicted");
}
}  // namespace compare_cli_test
