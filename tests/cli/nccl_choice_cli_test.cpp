// `--algorithm nccl` from the command line: simulate says what it picked and why, compare predicts
// each row with NCCL's pick by default and names it per row, sweep runs it, --nccl-algo restricts it.
#include <catch2/catch.hpp>

#include "tests/cli/cli_harness.hpp"

// One namespace per test file: CI builds the tests as unity sources (.ci/run), where each file's
// helpers would otherwise meet the other files'.
namespace nccl_choice_cli_test {

using namespace collsim::testing;

TEST_CASE("simulate --algorithm nccl runs NCCL's pick and says why", "[cli][nccl]") {
  const auto j = simulate_json({"dgx-b200", "--algorithm", "nccl", "--size", "64M"});
  CHECK(j["algorithm"] == "nvls");  // 139.72 us against ring LL128's 217.45 (tests/unit/nccl_choice_test.cpp)
  CHECK(j["algorithm_choice"].get<std::string>().find("nvls/simple 139.72 us") != std::string::npos);
  const auto alias = simulate_json({"dgx-b200", "--algorithm", "auto", "--size", "8"});
  CHECK(alias["algorithm"] == "ring");
  const auto restricted = simulate_json({"dgx-b200", "--algorithm", "nccl", "--nccl-algo", "^nvls", "--size", "64M"});
  CHECK(restricted["algorithm"] == "ring");
  // simulate's own default stays ring, with no choice to report.
  const auto plain = simulate_json({"dgx-b200", "--size", "64M"});
  CHECK(plain["algorithm"] == "ring");
  CHECK_FALSE(plain.contains("algorithm_choice"));
  const auto text = run_collsim({"simulate", "dgx-b200", "--algorithm", "nccl", "--size", "64M"});
  CHECK(text.out.find("  algorithm             nvls  (NCCL's pick for 64 MiB by its cost model") != std::string::npos);
}

TEST_CASE("the nccl-algo flag is checked and belongs to --algorithm nccl", "[cli][nccl]") {
  check_bad_input({"simulate", "dgx-b200", "--nccl-algo", "ring", "--size", "1M"},
                  "--nccl-algo: only with --algorithm nccl, whose choice it restricts; found --algorithm ring");
  check_bad_input({"simulate", "dgx-b200", "--algorithm", "nccl", "--nccl-algo", "collnetdirect", "--size", "1M"},
                  "--nccl-algo: collnetdirect is one of NCCL's CollNet algorithms");
  check_bad_input({"simulate", "dgx-a100", "--algorithm", "nccl", "--nccl-algo", "nvls", "--size", "1M"},
                  "--algorithm nccl: none of NCCL's algorithms can run allreduce here; nvls:");
}

TEST_CASE("compare predicts NCCL's pick per row by default and names it", "[cli][nccl][compare]") {
  const std::string log = std::string(COLLSIM_SOURCE_DIR) + "/tests/data/nccl-tests/b200_vultr_8gpu_allreduce.txt";
  const auto r = run_collsim({"compare", log, "dgx-b200", "--ranks", "8", "--collective", "allreduce", "--format", "json"});
  REQUIRE(r.code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["algorithm"] == "nccl");  // rows ran different algorithms
  std::string first, last;
  for (const auto& row : j["rows"]) {
    if (first.empty()) first = row["algorithm"];
    last = row["algorithm"];
  }
  CHECK(first == "ring");
  CHECK(last == "nvls");
  // Each row says what ran: its algorithm, protocol and channel count (NCCL's pick per size).
  CHECK(j["rows"].back()["protocol"] == "simple");
  CHECK(j["rows"].front()["protocol"] == "ll");
  CHECK(j["rows"].back()["channels"].get<int>() >= 1);
  // The table adds the column when NCCL's choice ran.
  const auto t = run_collsim({"compare", log, "dgx-b200", "--ranks", "8", "--collective", "allreduce"});
  CHECK(t.out.find("predicted busbw  ran (algorithm protocol channels)") != std::string::npos);
  CHECK(t.out.find("  nvls simple ") != std::string::npos);
  CHECK(t.out.find("(network model: flow; NCCL's choice per size)") != std::string::npos);
  // Acceptance of issue 16 for this log: median |error| <= 10 % above 16 MiB and <= 20 % over all.
  CHECK(j["summary"][2]["median_abs_error_pct"].get<double>() <= 10.0);
  CHECK(j["summary"][3]["median_abs_error_pct"].get<double>() <= 20.0);
}

TEST_CASE("sweep runs NCCL's choice per row", "[cli][nccl][sweep]") {
  const auto r = run_collsim({"sweep", "dgx-b200", "--algorithms", "nccl", "--sizes", "8,64M"});
  REQUIRE(r.code == 0);
  CHECK(r.out.find(",allreduce,ring,8,") != std::string::npos);
  CHECK(r.out.find(",allreduce,nvls,67108864,") != std::string::npos);
}

TEST_CASE("NCCL's all-to-all is send/recv to every peer: direct, with no choice", "[cli][nccl]") {
  const auto j = simulate_json({"dgx-b200", "--algorithm", "nccl", "--collective", "alltoall", "--size", "1G"});
  CHECK(j["algorithm"] == "direct");
  CHECK(j["algorithm_choice"] == "NCCL runs alltoall as grouped send/recv to every peer, with no algorithm to choose "
                                 "(nccl-tests src/alltoall.cu)");
}

TEST_CASE("NCCL's model across hosts: the ring leaves each host through all its NICs", "[cli][nccl][multi-node]") {
  // dgx-h100-2node-ib400, ring Simple, 1 GiB: the per-GPU bandwidth is min(NVLink 450 x 0.824 =
  // 370.8, 8 NICs x 50 x 0.94 = 376) = 370.8 GB/s, algbw x 16/30 = 197.76 GB/s; latency
  // (8.4 + 28 x 3.4 + 2 x 14) x 1.4 (the ring plateau) = 184.24 us: 5613.76 us in all.
  const auto j = simulate_json({"dgx-h100-2node-ib400", "--size", "1G", "--protocol", "simple", "--model", "nccl"});
  CHECK(j["model_us"].get<double>() == Approx(184.24 + 1073741824.0 / (1000 * 370.8 * 16 / 30)).epsilon(1e-6));
  // --nodes K hangs each host off one uplink: its 8 GPUs share it, 25 GB/s for the ring on 4 hosts:
  // latency (8.4 + 56 x 3.4 + 6 x 14) x 1.4, algbw 25 x 32/62.
  const std::vector<std::string> uplink{"--fabric", "switch", "--link-bandwidth", "300GB/s", "--net-bandwidth", "25GB/s",
                                        "--size", "1G", "--protocol", "simple", "--model", "nccl"};
  auto four = uplink;
  four.insert(four.end(), {"--gpus", "32", "--nodes", "4"});
  const double lat4 = (8.4 + 56 * 3.4 + 6 * 14) * 1.4;
  CHECK(simulate_json(four)["model_us"].get<double>() == Approx(lat4 + 1073741824.0 / (1000 * 25 * 32.0 / 62)).epsilon(1e-6));
  // On one or two nodes NCCL's model takes the bandwidth inside a node, bwIntra (ncclTopoTuneModel):
  // 300 GB/s, whatever the uplink.
  auto two = uplink;
  two.insert(two.end(), {"--gpus", "16", "--nodes", "2"});
  const double lat2 = (8.4 + 28 * 3.4 + 2 * 14) * 1.4;
  CHECK(simulate_json(two)["model_us"].get<double>() == Approx(lat2 + 1073741824.0 / (1000 * 300 * 16.0 / 30)).epsilon(1e-6));
}

TEST_CASE("explain refuses more than 26 ranks with the helper counted, naming --ranks", "[cli][nvls][explain]") {
  check_bad_input({"explain", "--algorithm", "nvls", "--ranks", "26"},
                  "--ranks: nvls with --ranks 26 has 27 ranks with its helper rank(s), and explain names at most 26 "
                  "(A..Z); expected --ranks 25 or fewer");
  CHECK(run_collsim({"explain", "--algorithm", "nvls", "--ranks", "25"}).code == 0);
  // nvls-tree on 4 hosts of 6: a switch per host makes 28; the suggestion must split over the 4
  // hosts and fit with their switches: 20 ranks + 4 switches = 24 (24 + 4 = 28 does not fit).
  check_bad_input({"explain", "--algorithm", "nvls-tree", "--ranks", "24", "--nodes", "4"},
                  "expected --ranks 20 or fewer (a multiple of --nodes 4)");
  CHECK(run_collsim({"explain", "--algorithm", "nvls-tree", "--ranks", "20", "--nodes", "4"}).code == 0);
}

TEST_CASE("an op budget the user never set is named as the default", "[cli][budget]") {
  // NVLS on 72 GPUs: its pipeline chunks pass the default budget of 262144 ops, and the chunk is raised.
  const auto j = simulate_json({"gb200-nvl72", "--size", "1G", "--algorithm", "nvls"});
  CHECK_THAT(j["chunk_source"].get<std::string>(),
             Catch::Contains("raised to stay within the default op budget of 262144 ops (--max-ops), or this "
                             "schedule's least, 376704 ops"));
  // Set by the user: named as given.
  CHECK_THAT(simulate_json({"gb200-nvl72", "--size", "1G", "--algorithm", "nvls", "--max-ops", "300000"})["chunk_source"]
                 .get<std::string>(),
             Catch::Contains("raised to stay within --max-ops 300000, or this schedule's least, 376704 ops"));
  CHECK(j["chunk_source"].get<std::string>().find("within --max-ops") == std::string::npos);
}

TEST_CASE("NCCL's choice runs PAT for all-gather with one GPU per node, at small sizes", "[cli][nccl][pat]") {
  const std::vector<std::string> one_gpu_nodes{"--gpus", "8", "--fabric", "switch", "--nodes", "8", "--link-bandwidth",
                                               "300GB/s", "--net-bandwidth", "25GB/s", "--collective", "allgather",
                                               "--algorithm", "nccl", "--protocol", "auto"};
  auto small = one_gpu_nodes;
  small.insert(small.end(), {"--size", "1M"});
  const auto j = simulate_json(small);
  // pat 42.4 + 1 MiB / 18.75 GB/s = 98.32 us (tests/unit/algo_pat_test.cpp) against ring LL128's 113.39.
  CHECK(j["algorithm"] == "pat");
  CHECK(j["algorithm_choice"].get<std::string>().find("pat/simple 98.32 us") != std::string::npos);
  CHECK(j["protocol"] == "simple");
  auto large = one_gpu_nodes;
  large.insert(large.end(), {"--size", "1G"});
  CHECK(simulate_json(large)["algorithm"] == "ring");
  // Several GPUs per node: NCCL has no PAT (ncclPatEnable).
  const auto a100 = simulate_json({"dgx-a100", "--collective", "allgather", "--algorithm", "nccl", "--size", "64K"});
  CHECK(a100["algorithm"] == "ring");
  check_bad_input({"simulate", "dgx-a100", "--collective", "allgather", "--algorithm", "pat", "--protocol", "ll128",
                   "--size", "1M"},
                  "--protocol: NCCL runs NVLS, NVLSTree, PAT and CollNet with its simple protocol only");
}

TEST_CASE("NCCL's channels for a size: fewer at small sizes, as topoGetAlgoInfo runs them", "[cli][nccl][channels]") {
  // dgx-a100, ring LL on 8 ranks: threshold 8 x 8 ranks, 512 threads: 32 KiB a channel
  // (src/enqueue.cc, src/include/comm.h): 64 KiB runs on 2 channels, 1 KiB on 1.
  const auto k64 = simulate_json({"dgx-a100", "--size", "64K"});
  CHECK(k64["protocol"] == "ll");
  CHECK(k64["channels"] == 2);
  CHECK(k64["channels_source"] == "topology dgx-a100: 24, fewer for this size as NCCL runs it (topoGetAlgoInfo, "
                                  "src/enqueue.cc)");
  CHECK(simulate_json({"dgx-a100", "--size", "1K"})["channels"] == 1);
  // LL128 needs 640 x 8 = 5,120 B a channel: 1 MiB keeps all 24.
  CHECK(simulate_json({"dgx-a100", "--size", "1M"})["channels"] == 24);
  // A count asked for stays.
  CHECK(simulate_json({"dgx-a100", "--size", "1K", "--channels", "24"})["channels"] == 24);
}

TEST_CASE("sweep takes --nccl-algo for its nccl rows, and only with them", "[cli][nccl][sweep]") {
  const auto r = run_collsim({"sweep", "dgx-b200", "--algorithms", "nccl", "--sizes", "64M", "--nccl-algo", "^nvls"});
  REQUIRE(r.code == 0);
  CHECK(r.out.find(",allreduce,ring,67108864,") != std::string::npos);  // nvls left out: ring LL128 wins
  check_bad_input({"sweep", "dgx-b200", "--algorithms", "ring", "--sizes", "64M", "--nccl-algo", "^nvls"},
                  "--nccl-algo: only with --algorithms nccl, whose choice it restricts");
  check_bad_input({"sweep", "dgx-b200", "--algorithms", "nccl", "--sizes", "64M", "--nccl-algo", "fast"},
                  "--nccl-algo: found \"fast\"");
}

TEST_CASE("nccl-algo refusals say what each allowed algorithm runs and why it cannot here", "[cli][nccl]") {
  check_bad_input({"simulate", "dgx-h100-2node-ib400", "--algorithm", "nccl", "--size", "64M", "--nccl-algo", "pat"},
                  "none of NCCL's algorithms can run allreduce here (of those --nccl-algo allows, none runs it: pat "
                  "runs allgather, reducescatter)");
  check_bad_input({"simulate", "dgx-h100", "--algorithm", "nccl", "--size", "64M", "--nccl-algo", "nvlstree"},
                  "nvls-tree: NCCL disables NVLSTree on one node (ncclTopoTuneModel); expected ranks on several hosts");
  check_bad_input({"simulate", "dgx-h100", "--collective", "allgather", "--algorithm", "nccl", "--size", "64M",
                   "--nccl-algo", "pat"},
                  "pat: NCCL runs PAT only with one GPU per node (ncclPatEnable); expected one rank per host");
}

TEST_CASE("hgx-h200 and gb200-nvl72: NCCL's constants for their architectures, by hand", "[cli][topology][fleet]") {
  // hgx-h200: the H100's NVLink 4 (450 GB/s, SM90_NVLINK_BW 20.6 of 25: 0.824), so ring all-gather of
  // 1 GiB on 8 GPUs runs at the NVLink bound 450 x 0.824 = 370.8 GB/s of busbw, within 1 %; NCCL's
  // choice at 1 GiB is NVLS (Hopper: 16 NVLS channels, src/transport/nvls.cc), as on dgx-h100.
  const auto ag = simulate_json({"hgx-h200", "--size", "1G", "--collective", "allgather", "--protocol", "simple"});
  CHECK(ag["busbw_GBps"].get<double>() == Approx(370.8).epsilon(0.01));
  const auto h200 = simulate_json({"hgx-h200", "--size", "1G", "--algorithm", "nccl"});
  CHECK(h200["algorithm"] == "nvls");
  CHECK(h200["channels"] == 16);
  CHECK(h200["time_ps"] == simulate_json({"dgx-h100", "--size", "1G", "--algorithm", "nccl"})["time_ps"]);
  // gb200-nvl72: 72 GPUs at 900 x 0.802 = 721.8 GB/s each. Ring all-gather of 1 GiB, Simple, 32
  // channels: 8.4 us (base) + 71 steps x (3.4 us step + 2 x 0.3 us of route) + S x 71/72 / 721.8 GB/s
  // = 8.4 + 284 + 1466.9 = 1759.3 us by hand; the pipeline overlaps part of the step latency.
  const auto nvl = simulate_json({"gb200-nvl72", "--size", "1G", "--collective", "allgather", "--protocol", "simple"});
  CHECK(nvl["ranks"] == 72);
  CHECK(nvl["time_us"].get<double>() == Approx(1759.3).epsilon(0.02));
  CHECK(nvl["time_us"].get<double>() >= 1073741824.0 * 71 / 72 / 721.8e3);  // never past the NVLink bound
  // NVLS on the whole rack: Blackwell's 24 NVLS channels on one node.
  const auto nvls = simulate_json({"gb200-nvl72", "--size", "64M", "--algorithm", "nccl"});
  CHECK(nvls["algorithm"] == "nvls");
  CHECK(nvls["channels"] == 24);
}
}  // namespace nccl_choice_cli_test
