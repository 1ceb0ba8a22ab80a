// NVLSTree from the command line: the bytes it puts on NVLink and on each NIC of the bundled
// multi-node machines (derived by hand from its data path), NCCL's channels and choice there, the
// 4-node H100 log that NCCL ran with it, explain on 2 hosts of 4, and the one-line refusals.
#include <catch2/catch.hpp>

#include "tests/cli/cli_harness.hpp"

// One namespace per test file: CI builds the tests as unity sources (.ci/run), where each file's
// helpers would otherwise meet the other files'.
namespace nvls_tree_cli_test {

using namespace collsim::testing;

namespace {

constexpr double kGiB = 1073741824.0;

}  // namespace

TEST_CASE("nvls-tree on 2 x 8 B200: S + S/8 on NVLink, S/8 on each NIC each way", "[cli][nvls-tree]") {
  const auto j = simulate_json({"dgx-b200-2node-ib400", "--algorithm", "nvls-tree", "--size", "1G"});
  CHECK(j["protocol"] == "simple");
  CHECK(j["channels"] == 32);  // NVLS_NCHANNELS_SM100 across nodes, kept at 32 on 2 nodes of 50 GB/s NICs
  for (int node = 0; node < 2; ++node)
    for (int g = 0; g < 8; ++g) {
      const std::string gpu = "n" + std::to_string(node) + "-gpu" + std::to_string(g);
      const std::string nic = "n" + std::to_string(node) + "-nic" + std::to_string(g);
      INFO(gpu);
      // Every GPU loads all of S through the switch and stores its part P = S/8 back.
      CHECK(link_named(j, gpu, "n" + std::to_string(node) + "-nvswitch")["bytes"].get<double>() ==
            Approx(kGiB * 9 / 8).epsilon(1e-6));
      // Its head role: half of P up one tree and half of P down the other, over its own NIC.
      CHECK(link_named(j, gpu, nic)["bytes"].get<double>() == Approx(kGiB / 8).epsilon(1e-6));
      CHECK(link_named(j, nic, gpu)["bytes"].get<double>() == Approx(kGiB / 8).epsilon(1e-6));
    }
  // The NICs bound it: S/8 at 50 GB/s x 0.94 = 2.8557 ms; the NVLink side (9/8 S at 900 x 0.802 x
  // 0.74 GB/s = 2.2615 ms) hides behind them. The 25 us base, 2 x 20.9 us across the tree and the
  // pipeline's fill and drain add at most 0.2 ms.
  const double t = j["time_ps"].get<double>() * 1e-9;
  CHECK(t >= 2.8557);
  CHECK(t <= 2.8557 + 0.2);
  // Twice the ring's busbw there would need the NICs twice as fast: the ring sends 15/8 S/8 per NIC.
  const auto ring = simulate_json({"dgx-b200-2node-ib400", "--size", "1G"});
  CHECK(ring["time_ps"].get<double>() * 1e-9 > 1.8 * 2.8557);
}

TEST_CASE("NCCL's choice across nodes weighs nvls-tree, and never on one node", "[cli][nvls-tree][nccl]") {
  const auto j = simulate_json({"dgx-h100-4node-ib400", "--algorithm", "nccl", "--size", "1G"});
  CHECK(j["algorithm"] == "nvls-tree");
  CHECK(j["algorithm_choice"].get<std::string>().find("nvls-tree/simple") != std::string::npos);
  const auto no_tree = simulate_json(
      {"dgx-h100-4node-ib400", "--algorithm", "nccl", "--nccl-algo", "^nvlstree", "--size", "1G"});
  CHECK(no_tree["algorithm"] != "nvls-tree");
  // NCCL disables NVLSTree on one node (ncclTopoTuneModel): NVLS runs there.
  const auto one = simulate_json({"dgx-h100", "--algorithm", "nccl", "--size", "1G"});
  CHECK(one["algorithm"] == "nvls");
  CHECK(one["algorithm_choice"].get<std::string>().find("nvls-tree") == std::string::npos);
}

TEST_CASE("compare: the 4-node H100 log, which NCCL ran with NVLSTree, within issue 16's targets",
          "[cli][nvls-tree][compare]") {
  const std::string log = std::string(COLLSIM_SOURCE_DIR) + "/tests/data/nccl-tests/h100_gjaion_4node_default.txt";
  const auto r = run_collsim({"compare", log, "dgx-h100-4node-ib400", "--ranks", "32", "--collective", "allreduce",
                              "--format", "json"});
  REQUIRE(r.code == 0);
  const auto j = nlohmann::json::parse(r.out);
  std::string last;
  for (const auto& row : j["rows"]) last = row["algorithm"];
  CHECK(last == "nvls-tree");
  CHECK(j["summary"][2]["median_abs_error_pct"].get<double>() <= 10.0);
  CHECK(j["summary"][3]["median_abs_error_pct"].get<double>() <= 20.0);
}

TEST_CASE("nvls-tree: explain on 2 hosts of 4 shows both switches and the tree between heads",
          "[cli][nvls-tree][explain]") {
  const auto r = run_collsim({"explain", "--algorithm", "nvls-tree", "--ranks", "8", "--nodes", "2", "--elements", "16"});
  REQUIRE(r.code == 0);
  CHECK(r.out.find("nvls-tree allreduce on 8 GPUs, 16 elements") != std::string::npos);
  CHECK(r.out.find("GPU4 -> switch1: E0") != std::string::npos);  // host 1's GPUs load part 0 at their switch
  // Part 0 (elements 0..3) is headed by GPU0 and GPU4; switch 1 hands GPU4 its host's sum of half 0,
  // which goes up tree 0 from host 1 to host 0, whose result comes back down.
  CHECK(r.out.find("switch1 -> GPU4: E0+F0+G0+H0 (copied to chunk 0)") != std::string::npos);
  CHECK(r.out.find("GPU4 -> GPU0: E0+F0+G0+H0 (added into chunk 0)") != std::string::npos);
  CHECK(r.out.find("GPU0 -> GPU4: A0+B0+C0+D0+E0+F0+G0+H0 (copied to chunk 0)") != std::string::npos);
  CHECK(r.out.find("tree between hosts step 1 (step 3 of 6)") != std::string::npos);
  CHECK(r.out.find("multicast step 2 (step 6 of 6)") != std::string::npos);
  CHECK(r.out.find("check: every GPU holds every rank's share of every chunk exactly once") != std::string::npos);
}

TEST_CASE("nvls-tree is refused where a host has no switch that reduces, and with LL", "[cli][nvls-tree]") {
  check_bad_input({"simulate", "--gpus", "8", "--fabric", "switch", "--nodes", "2", "--algorithm", "nvls-tree",
                   "--size", "1M"},
                  "--algorithm: NVLSTree needs a switch that reduces in each host, and the 4 ranks of host 0");
  check_bad_input({"simulate", "dgx-a100-2node", "--algorithm", "nvls-tree", "--size", "1M"},
                  "has no NVLink SHARP");
  check_bad_input({"simulate", "dgx-h100-2node-ib400", "--algorithm", "nvls-tree", "--protocol", "ll", "--size", "1M"},
                  "--protocol: NCCL runs NVLS, NVLSTree, PAT and CollNet with its simple protocol only");
}

TEST_CASE("nvls-tree of a size past the pipeline's chunk limit names the size and the chunk", "[cli][nvls-tree]") {
  check_bad_input({"simulate", "dgx-h100-2node-ib400", "--algorithm", "nvls-tree", "--size", "18446744073709551615"},
                  "--size: nvls-tree allreduce:");
  check_bad_input({"simulate", "dgx-h100-2node-ib400", "--algorithm", "nvls-tree", "--size", "18446744073709551615"},
                  "expected a smaller --size or a larger --chunk-size");
}

TEST_CASE("a pipeline past 2^24 chunks in all is refused at once, though each part and half is under it",
          "[cli][nvls-tree][stream]") {
  // 1 GiB in 4-byte chunks: 2^28 chunks in all. nvls-tree cuts it into 16 channels x 8 parts x 2
  // halves of 2^20 chunks each, each under the 2^24 a cut allows, and ran for minutes (newcomer
  // finding: 3.4 GB in 20 s); the whole message is checked first now, for every pipelined algorithm.
  for (const char* algorithm : {"nvls-tree", "nccl-tree", "double-tree"})
    check_bad_input({"simulate", "--node", "dgx-h100", "--nodes", "2", "--fabric", "rail", "--algorithm", algorithm,
                     "--size", "1G", "--chunk-size", "4"},
                    std::string("--size: ") + algorithm +
                        " allreduce: 1073741824 bytes in chunks of 4 bytes make 268435456 pipeline chunks; at most "
                        "16777216 are supported; expected a smaller --size or a larger --chunk-size");
}

TEST_CASE("a --chunk-size that makes a run generated on demand more than 2^32 ops is refused, not coarsened",
          "[cli][stream]") {
  // Tree on 2048 GPUs, 1 GiB in 1 KiB chunks: 2^20 chunks (under 2^24), each 2 x 2047 sends (up
  // and down) and 1023 adds (NCCL's btree: 1024 leaves, a root of one child), 5117 x 2^20 =
  // 5,365,563,392 ops, over 2^32: hours of simulation, refused in one line naming the flag.
  check_bad_input({"simulate", "--gpus", "2048", "--fabric", "switch", "--algorithm", "tree", "--size", "1G",
                   "--chunk-size", "1K"},
                  "--chunk-size: 1 KiB cuts 1 GiB into 5365563392 ops, more than the 4294967296 a run takes (over an "
                  "hour); expected a larger --chunk-size");
}
}  // namespace nvls_tree_cli_test
