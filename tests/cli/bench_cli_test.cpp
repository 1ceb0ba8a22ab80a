// collsim bench: the JSON report's fields, skipping by --max-ranks, bad flags, and the forked
// measurement (bench/bench_measure.hpp). No timing thresholds: speed is measured, not tested.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <csignal>
#include <cstring>
#include <filesystem>
#include <string>
#include <sstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/cli/cli_harness.hpp"
#include "bench/bench_cases.hpp"
#include "bench/bench_measure.hpp"

// One namespace per test file: CI builds the tests as unity sources (.ci/run), where each file's
// helpers would otherwise meet the other files'.
namespace bench_cli_test {

using collsim::testing::check_bad_input;
using collsim::testing::run_collsim;

namespace {

nlohmann::json bench_json(std::vector<std::string> args) {
  args.insert(args.begin(), "bench");
  args.insert(args.end(), {"--format", "json"});
  const auto r = run_collsim(args);
  INFO(r.err);
  REQUIRE(r.code == 0);
  return nlohmann::json::parse(r.out);
}

}  // namespace

TEST_CASE("bench --cases queue --quick reports every field, positive", "[cli][bench]") {
  const auto j = bench_json({"--cases", "queue/1024", "--quick", "--repeat", "2"});
  CHECK(j["repeat"] == 2);
  CHECK(j["quick"] == true);
  CHECK(j["max_ranks"] == 64);  // the --quick default
  CHECK(j["timeout_s"] == 300);  // the default
#if !defined(__SANITIZE_ADDRESS__)
  // The default cap: three quarters of the machine's memory.
  CHECK(j["max_memory_bytes"].get<std::uint64_t>() == j["machine"]["memory_bytes"].get<std::uint64_t>() / 4 * 3);
#endif
  CHECK(j["machine"]["cpus"].get<int>() > 0);
  CHECK(j["machine"]["memory_bytes"].get<double>() > 0);
  REQUIRE(j["cases"].size() == 1);
  const auto& c = j["cases"][0];
  CHECK(c["name"] == "queue/1024");
  CHECK(c["status"] == "ok");
  CHECK(c["message"].is_null());
  CHECK(c["runs"] == 2);
  CHECK(c["events"] == 200000);  // --quick's hold run: 200,000 pops (bench/bench_cases.cpp)
  for (const char* key : {"wall_s_median", "wall_s_min", "cpu_s_median", "cpu_s_min", "events_per_s",
                          "events_per_cpu_s", "peak_rss_bytes"}) {
    INFO(key);
    REQUIRE(c[key].is_number());
    CHECK(c[key].get<double>() > 0);
  }
  CHECK(c["wall_s_min"].get<double>() <= c["wall_s_median"].get<double>());
  CHECK(c["simulated_us"].is_null());
}

TEST_CASE("bench runs a collective case and gets the closed form", "[cli][bench]") {
  const auto j = bench_json({"--cases", "^(whole/)?allreduce/ring/switch/8$", "--quick"});
  REQUIRE(j["cases"].size() == 2);
  CHECK(j["cases"][0]["name"] == "allreduce/ring/switch/8");
  CHECK(j["cases"][1]["name"] == "whole/allreduce/ring/switch/8");
  for (const auto& c : j["cases"]) {
    REQUIRE(c["status"] == "ok");
    // Ring all-reduce, N = 8, S = 1 GiB, 50 GB/s and 1 us per link, two links per route (switch):
    // 2(N-1)(2α + ⌈S/N⌉/B) = 14 · (2 us + 134217728 B / 50 GB/s) = 14 · 2686.35456 us (issue 7's form).
    CHECK(c["simulated_us"].get<double>() == Approx(37608.96384).epsilon(1e-12));
    CHECK(c["ops"] == 2 * 8 * 7);  // 2(N-1) steps of N sends
  }
  // One event per transfer (each alone on its links: FlowModel's quiet flows): rank 0's 2(N-1)
  // where the run folds by rank symmetry, every rank's 2(N-1)N in the whole/ case.
  CHECK(j["cases"][0]["events"] == 14);
  CHECK(j["cases"][1]["events"] == 112);
}

TEST_CASE("bench skips cases above --max-ranks and says why", "[cli][bench]") {
  const auto j = bench_json({"--cases", "allreduce/tree/ring/(8|512)$", "--quick"});
  REQUIRE(j["cases"].size() == 2);
  CHECK(j["cases"][0]["status"] == "ok");
  CHECK(j["cases"][1]["name"] == "allreduce/tree/ring/512");
  CHECK(j["cases"][1]["status"] == "skipped");
  CHECK_THAT(j["cases"][1]["message"].get<std::string>(), Catch::Contains("--max-ranks 64"));
  CHECK(j["cases"][1]["wall_s_median"].is_null());
}

TEST_CASE("bench --ranks picks the N of the collective cases, uncapped unless --max-ranks", "[cli][bench]") {
  const auto j = bench_json({"--cases", "^allreduce/ring/switch/", "--ranks", "16,3", "--size", "1M"});
  REQUIRE(j["cases"].size() == 2);
  CHECK(j["cases"][0]["name"] == "allreduce/ring/switch/16");
  CHECK(j["cases"][1]["name"] == "allreduce/ring/switch/3");
  // Closed form 2(N-1)(2α + ⌈S/N⌉/B), 50 GB/s and 1 us per link: N = 16, S = 1 MiB: 30 · (2 + 1.31072) us;
  // N = 3: ⌈S/N⌉ in whole float32 elements, ⌈262144/3⌉ = 87382 elements = 349528 B, 4 · (2 + 6.99056) us.
  CHECK(j["cases"][0]["simulated_us"].get<double>() == Approx(99.3216).epsilon(1e-12));
  CHECK(j["cases"][1]["simulated_us"].get<double>() == Approx(35.96224).epsilon(1e-12));
  const auto capped = bench_json({"--cases", "^allreduce/ring/switch/", "--ranks", "2..8", "--max-ranks", "4"});
  REQUIRE(capped["cases"].size() == 3);
  CHECK(capped["cases"][2]["status"] == "skipped");
}

TEST_CASE("bench prints a table by default", "[cli][bench]") {
  const auto r = run_collsim({"bench", "--cases", "queue/1024", "--quick"});
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::StartsWith("collsim bench: ") && Catch::Contains("queue/1024") &&
                        Catch::Contains("Mev/cpu-s") && Catch::Contains("peak MiB"));
  // A case name longer than the usual column widens it: the status stays under its heading
  // (newcomer finding: compare/ring-32ch-dmodk/dgx-h100-fat-tree/64 pushed its row over).
  const auto wide = run_collsim({"bench", "--cases", "^compare/ring-32ch-dmodk/", "--ranks", "16", "--size", "1M"});
  REQUIRE(wide.code == 0);
  const auto header = wide.out.find("\ncase ");
  const auto row = wide.out.find("\ncompare/ring-32ch-dmodk/dgx-h100-fat-tree/16 ");
  REQUIRE(header != std::string::npos);
  REQUIRE(row != std::string::npos);
  CHECK(wide.out.find("status", header) - header == wide.out.find(" ok ", row) + 1 - row);
}

TEST_CASE("bench rejects bad flags with one line and exit 2", "[cli][bench]") {
  check_bad_input({"bench", "--cases", "("}, "--cases");
  check_bad_input({"bench", "--cases", "no-such-case"}, "matches no case");
  check_bad_input({"bench", "--repeat", "0"}, "--repeat");
  check_bad_input({"bench", "--max-memory", "lots"}, "--max-memory");
  check_bad_input({"bench", "--max-ranks", "x"}, "--max-ranks");
  check_bad_input({"bench", "--ranks", "1"}, "--ranks");
  check_bad_input({"bench", "--ranks", "8,x"}, "--ranks");
  // A reversed range says so, whether or not its bounds are in range.
  check_bad_input({"bench", "--ranks", "2..1"}, "expected A..B with A <= B");
  check_bad_input({"bench", "--ranks", "8..2"}, "expected A..B with A <= B");
  check_bad_input({"bench", "--format", "csv"}, "--format");
}

TEST_CASE("a run in a child reports failures instead of taking the caller down", "[bench]") {
  using namespace collsim::bench;
  const auto failed = measure_in_child([]() -> Work { throw std::runtime_error("no route"); }, {});
  CHECK(failed.status == RunStatus::Failed);
  CHECK(failed.message == "no route");
  const auto absent = measure_in_child([]() -> Work { throw NotAvailable("no sweep"); }, {});
  CHECK(absent.status == RunStatus::NotAvailable);
  const auto killed = measure_in_child([]() -> Work { std::raise(SIGKILL); return {}; }, {});
  CHECK(killed.status == RunStatus::Failed);
  CHECK_THAT(killed.message, Catch::Contains("signal 9"));
  // The sweep workload runs the library layer's sweep: a request with no size fails as it does.
  CHECK_THROWS_AS(run_sweep(collsim::run::SweepRequest{}, 1), collsim::run::RequestError);
  const auto slow = measure_in_child(
      []() -> Work {
        ::pause();  // waits for a signal: the alarm of the time limit
        return {};
      },
      RunLimits{0, 1});
  CHECK(slow.status == RunStatus::TimedOut);
  CHECK_THAT(slow.message, Catch::Contains("time limit of 1 s"));
}

TEST_CASE("each run's peak memory is its own", "[bench]") {
  using namespace collsim::bench;
  constexpr std::size_t kBig = std::size_t{256} << 20;
  const auto big = measure_in_child(
      [] {
        std::vector<char> v(kBig);
        std::memset(v.data(), 1, v.size());  // touch every page so it is resident
        return Work{static_cast<std::uint64_t>(v[kBig / 2]), 0, std::nullopt};
      },
      {});
  const auto small = measure_in_child([] { return Work{1, 0, std::nullopt}; }, {});
  REQUIRE(big.status == RunStatus::Ok);
  REQUIRE(small.status == RunStatus::Ok);
  CHECK(big.peak_rss_bytes >= kBig);
  CHECK(small.peak_rss_bytes + kBig / 2 < big.peak_rss_bytes);  // the big run's peak did not carry over
}

#if !defined(__SANITIZE_ADDRESS__)  // AddressSanitizer reserves terabytes of address space up front
TEST_CASE("a memory limit (--max-memory) turns an oversized run into a failure with a message", "[bench]") {
  using namespace collsim::bench;
  const auto m = measure_in_child(
      [] {
        std::vector<char> v(std::size_t{4} << 30);
        return Work{static_cast<std::uint64_t>(v[0]), 0, std::nullopt};
      },
      RunLimits{std::uint64_t{512} << 20, 0});
  CHECK(m.status == RunStatus::Failed);
  CHECK_THAT(m.message, Catch::Contains("out of memory (limit 512 MiB)"));
}
#endif

TEST_CASE("bench's cluster cases run as collsim simulate runs the same flags", "[cli][bench][cluster]") {
  // Issue 18's cases at N = 16 and 1 MiB: each case's simulated time is the one `collsim simulate`
  // prints for the flags its name stands for.
  const auto j = bench_json({"--cases", "^(allreduce|cluster)/.*(switch-nodes|rail)/16$", "--ranks", "16", "--size", "1M"});
  REQUIRE(j["cases"].size() == 6);
  const std::vector<std::string> nodes{"--gpus", "16", "--fabric", "switch", "--nodes", "2", "--link-bandwidth",
                                       "50GB/s", "--link-latency", "1us", "--net-bandwidth", "50GB/s",
                                       "--net-latency", "1us", "--size", "1M"};
  const std::vector<std::string> rail{"--node", "dgx-h100", "--nodes", "2", "--fabric", "rail", "--size", "1M"};
  const auto with = [](std::vector<std::string> base, std::vector<std::string> more) {
    base.insert(base.end(), more.begin(), more.end());
    return base;
  };
  const std::vector<std::pair<std::string, std::vector<std::string>>> expected{
      {"allreduce/ring/switch-nodes/16", with(nodes, {"--algorithm", "ring"})},
      {"allreduce/tree/switch-nodes/16", with(nodes, {"--algorithm", "tree"})},
      {"allreduce/double-tree/switch-nodes/16", with(nodes, {"--algorithm", "double-tree"})},
      {"cluster/ring/dgx-h100-rail/16", with(rail, {"--algorithm", "ring", "--channels", "1"})},
      {"cluster/nccl/dgx-h100-rail/16", with(rail, {"--algorithm", "nccl"})},
      {"cluster/nccl-dmodk/dgx-h100-rail/16", with(rail, {"--algorithm", "nccl", "--routing", "dmodk"})}};
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const auto& c = j["cases"][i];
    INFO(expected[i].first);
    CHECK(c["name"] == expected[i].first);
    REQUIRE(c["status"] == "ok");
    CHECK(c["simulated_us"].get<double>() ==
          Approx(collsim::testing::simulate_json(expected[i].second)["time_us"].get<double>()).epsilon(1e-12));
  }
}

TEST_CASE("bench's compare case compares every row of its log and leaves no file behind", "[cli][bench][compare]") {
  // 16 GPUs, sizes 1 MiB to 16 MiB by factors of 4: three rows (1, 4 and 16 MiB).
  for (const char* routing : {"ecmp", "dmodk"}) {
    INFO(routing);
    CHECK(collsim::bench::run_compare_ring_32ch(16, collsim::Bytes{16} << 20, 2, routing).ops == 3);
  }
  // The log it wrote (named by this process and N) is gone.
  CHECK_FALSE(std::filesystem::exists(std::filesystem::temp_directory_path() /
                                      ("collsim-bench-" + std::to_string(::getpid()) + "-16.txt")));
  const auto j = bench_json({"--cases", "^compare/.*/16$", "--ranks", "16", "--size", "16M"});
  REQUIRE(j["cases"].size() == 2);
  CHECK(j["cases"][0]["name"] == "compare/ring-32ch/dgx-h100-fat-tree/16");
  CHECK(j["cases"][1]["name"] == "compare/ring-32ch-dmodk/dgx-h100-fat-tree/16");
  for (const auto& c : j["cases"]) CHECK(c["status"] == "ok");
}
}  // namespace bench_cli_test
