// The command line for multi-node fabrics and the hierarchical all-reduce: --nodes and --net-*,
// hosts passed from the topology to the algorithm, bottleneck on the network, and one-line errors.
#include <catch2/catch.hpp>

#include <algorithm>
#include <sstream>

#include <nlohmann/json.hpp>

#include "tests/cli/cli_harness.hpp"

// One namespace per test file: CI builds the tests as unity sources (.ci/run), where each file's
// helpers would otherwise meet the other files'.
namespace multi_node_cli_test {

using namespace collsim::testing;

namespace {

constexpr std::uint64_t kGiB = std::uint64_t{1} << 30;

const std::vector<std::string> kFourHosts{"--gpus",          "16",     "--fabric",        "switch",
                                          "--nodes",         "4",      "--link-bandwidth", "300GB/s",
                                          "--link-latency",  "500ns",  "--net-bandwidth", "25GB/s",
                                          "--net-latency",   "2us",    "--size",          "1G"};

}  // namespace

TEST_CASE("hierarchical on --nodes 4: formula steps and bytes, and the network is the bottleneck",
          "[cli][hierarchical][multi-node]") {
  auto args = kFourHosts;
  args.insert(args.end(), {"--algorithm", "hierarchical"});
  const auto j = simulate_json(args);
  CHECK(j["algorithm"] == "hierarchical");
  CHECK(j["topology"] == "switch-16gpu-4node");
  // L = 4 GPUs per host, K = 4 hosts: 2(L-1) + 2(K-1) = 12 steps;
  // 2(L-1)/L·S + 2(K-1)/(K·L)·S = 3/2·S + 3/8·S = 15/8·S per rank.
  CHECK(j["steps"] == 12);
  CHECK(j["bytes_sent_per_rank_max"] == 15 * kGiB / 8);
  // Each host's uplink carries its L ranks' inter-host shares: L · 2(K-1)/(K·L)·S = 3/2·S.
  CHECK(link_named(j, "host0-switch", "network")["bytes"] == 3 * kGiB / 2);
  CHECK(link_named(j, "network", "host2-switch")["bytes"] == 3 * kGiB / 2);
  // 3/2·S at 25 GB/s takes 12 times longer than a GPU link's 15/8·S at 300 GB/s: the bottleneck
  // is an inter-host (infiniband) link, and the run takes at least its bytes' time.
  const std::string bottleneck = j["bottleneck_link"];
  const auto arrow = bottleneck.find("->");
  CHECK(link_named(j, bottleneck.substr(0, arrow), bottleneck.substr(arrow + 2))["type"] == "infiniband");
  CHECK(j["time_ps"].get<std::int64_t>() >= static_cast<std::int64_t>(3 * kGiB / 2 * 1000 / 25));
}

TEST_CASE("hierarchical beats the flat ring where the network is slow", "[cli][hierarchical][multi-node]") {
  // A flat ring over 16 GPUs crosses each host's uplink once per direction with 2(N-1)/N·S = 15/8·S,
  // so it needs at least 15/8·S / 25 GB/s = 80.5 ms; hierarchical sends 3/2·S over each uplink
  // (64.4 ms) plus its intra-host phases (2 · 3/4·S at 300 GB/s, 5.4 ms).
  auto ring_args = kFourHosts;
  auto hier_args = kFourHosts;
  hier_args.insert(hier_args.end(), {"--algorithm", "hierarchical"});
  const auto ring = simulate_json(ring_args), hier = simulate_json(hier_args);
  CHECK(link_named(ring, "host0-switch", "network")["bytes"] == 15 * kGiB / 8);
  CHECK(ring["time_ps"].get<std::int64_t>() >= static_cast<std::int64_t>(15 * kGiB / 8 * 1000 / 25));
  CHECK(hier["time_ps"].get<std::int64_t>() < ring["time_ps"].get<std::int64_t>());
}

TEST_CASE("no single-fabric closed form for ranks on several hosts", "[cli][multi-node]") {
  // One α and one B cannot describe routes inside a host and across the network at once.
  const auto many = simulate_json({"--gpus", "8", "--fabric", "switch", "--nodes", "2", "--size", "1M"});
  CHECK(many["closed_form_us"].is_null());
  const auto two_node = simulate_json({"dgx-a100-2node", "--size", "1M"});
  CHECK(two_node["closed_form_us"].is_null());
  // One host is the switch fabric: the same closed form as --fabric switch.
  const auto one = simulate_json({"--gpus", "8", "--fabric", "switch", "--nodes", "1", "--size", "1M"});
  const auto plain = simulate_json({"--gpus", "8", "--fabric", "switch", "--size", "1M"});
  CHECK(one["closed_form_us"].is_number());
  CHECK(one["closed_form_us"] == plain["closed_form_us"]);
  CHECK(one["time_ps"] == plain["time_ps"]);
}

TEST_CASE("hierarchical reads the hosts of dgx-a100-2node", "[cli][hierarchical]") {
  const auto j = simulate_json({"dgx-a100-2node", "--algorithm", "hierarchical", "--size", "1G"});
  // L = 8, K = 2: 2·7 + 2·1 = 16 steps; 2·7/8·S + 2·1/16·S = 15/8·S.
  CHECK(j["ranks"] == 16);
  CHECK(j["steps"] == 16);
  CHECK(j["bytes_sent_per_rank_max"] == 15 * kGiB / 8);
  // The CPU replay proves it on real numbers (3 hosts of 4 GPUs, S not divisible by N).
  const auto verified = run_collsim({"simulate", "--gpus", "12", "--fabric", "switch", "--nodes", "3", "--algorithm",
                                     "hierarchical", "--size", "1000003", "--verify"});
  CHECK(verified.code == 0);
  CHECK_THAT(verified.out, Catch::Contains("verified: uint8 sum, every element"));
  // The first 8 ranks are one host: K = 1, a ring inside it, 2(8-1) = 14 steps.
  const auto one = simulate_json({"dgx-a100-2node", "--ranks", "8", "--algorithm", "hierarchical", "--size", "1M"});
  CHECK(one["steps"] == 14);
}

TEST_CASE("multi-node flags and hierarchical errors are one line, exit 2", "[cli][hierarchical][errors]") {
  check_bad_input({"simulate", "--gpus", "10", "--fabric", "switch", "--nodes", "4", "--size", "1M"},
                  "--gpus 10 is not a multiple of --nodes 4");
  check_bad_input({"topo", "--gpus", "10", "--fabric", "switch", "--nodes", "4"}, "not a multiple");
  check_bad_input({"simulate", "--gpus", "8", "--fabric", "switch", "--nodes", "0", "--size", "1M"}, "--nodes");
  check_bad_input({"simulate", "--gpus", "8", "--fabric", "ring", "--nodes", "2", "--size", "1M"},
                  "expected --fabric switch");
  check_bad_input({"simulate", "--gpus", "8", "--fabric", "switch", "--net-bandwidth", "10GB/s", "--size", "1M"},
                  "--net-bandwidth: only a multi-node fabric");
  check_bad_input({"simulate", "--gpus", "8", "--fabric", "switch", "--nodes", "2", "--net-latency", "fast",
                   "--size", "1M"},
                  "--net-latency");
  check_bad_input({"simulate", "dgx-a100", "--nodes", "2", "--size", "1M"}, "generator flags");
  // A single-node topology names no hosts: hierarchical cannot be built.
  check_bad_input({"simulate", "dgx-a100", "--algorithm", "hierarchical", "--size", "1M"},
                  "--algorithm: hierarchical needs to know which host each rank runs on");
  check_bad_input({"simulate", "--gpus", "8", "--fabric", "switch", "--algorithm", "hierarchical", "--size", "1M"},
                  "no hosts are known");
  // 12 ranks of dgx-a100-2node: 8 on one host, 4 on the other.
  check_bad_input({"simulate", "dgx-a100-2node", "--ranks", "12", "--algorithm", "hierarchical", "--size", "1M"},
                  "host 1 holds 4 ranks and host 0 holds 8");
  check_bad_input({"simulate", "--algorithm", "hierarchical", "--collective", "reducescatter", "--size", "1M"},
                  "hierarchical supports: allreduce");
}

TEST_CASE("topo summarises a --nodes fabric", "[cli][multi-node]") {
  const auto r = run_collsim({"topo", "--gpus", "8", "--fabric", "switch", "--nodes", "2"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("switch-8gpu-2node"));
  CHECK_THAT(r.out, Catch::Contains("8 gpu, 3 switch"));
  CHECK_THAT(r.out, Catch::Contains("2 x infiniband") && Catch::Contains("25 GB/s per direction, latency 2 us"));
  CHECK_THAT(r.out, Catch::Contains("8 x nvswitch"));
}

TEST_CASE("explain --nodes shows the hierarchical phases", "[cli][hierarchical]") {
  const auto r = run_collsim({"explain", "--algorithm", "hierarchical", "--ranks", "4", "--nodes", "2",
                              "--elements", "8"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("intra-host reduce-scatter") && Catch::Contains("inter-host all-gather") &&
                        Catch::Contains("(allreduce is complete)"));
  check_bad_input({"explain", "--algorithm", "hierarchical", "--ranks", "4", "--nodes", "3"},
                  "--ranks 4 is not a multiple of --nodes 3");
  check_bad_input({"explain", "--algorithm", "hierarchical", "--ranks", "4"}, "no hosts are known");
}

TEST_CASE("nccl-tree on 2 hosts of 8: S once each way through the uplink, about half the ring's time",
          "[cli][nccl-tree][multi-node]") {
  // Hand-derived (issue 16): each tree reduces its half S/2 up one way and broadcasts it down the
  // other, so each uplink direction carries S: 1 GiB / 25 GB/s = 42.95 ms, within 5 % of 42.9 ms.
  // The flat ring needs 15/8·S per direction, 80.5 ms.
  const std::vector<std::string> two_hosts{"--gpus",           "16",      "--fabric",     "switch", "--nodes", "2",
                                           "--link-bandwidth", "300GB/s", "--link-latency", "500ns",
                                           "--net-bandwidth",  "25GB/s",  "--size",       "1G"};
  auto tree_args = two_hosts;
  tree_args.insert(tree_args.end(), {"--algorithm", "nccl-tree"});
  const auto tree = simulate_json(tree_args);
  const auto ring = simulate_json(two_hosts);
  const double tree_ms = tree["time_ps"].get<double>() / 1e9;
  CHECK(tree_ms == Approx(42.9).epsilon(0.05));
  CHECK(tree["time_ps"].get<std::int64_t>() < ring["time_ps"].get<std::int64_t>());
  CHECK(link_named(tree, "host0-switch", "network")["bytes"] == kGiB);
  CHECK(link_named(tree, "network", "host0-switch")["bytes"] == kGiB);
}

TEST_CASE("explain shows nccl-tree on 2 hosts of 4 step by step", "[cli][nccl-tree][explain]") {
  // Hand-derived: tree 0 (chunk 0) runs up the chains 7->6->5->4 and 3->2->1->0, host 1's top GPU4
  // joins host 0's GPU0 in step 4 (depth 4), and comes back down in step 5; tree 1 (chunk 1) is the
  // mirror, GPU0 -> GPU4 up and GPU4 -> GPU0 down. 2D = 8 steps with one chunk per tree.
  const auto r = run_collsim({"explain", "--algorithm", "nccl-tree", "--ranks", "8", "--nodes", "2", "--elements",
                              "8", "--chunk-size", "16"});
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("nccl-tree allreduce on 8 GPUs, 8 elements in 4 chunks, 8 steps"));
  CHECK_THAT(r.out, Catch::Contains("GPU7 -> GPU6: H0 (added into chunk 0)"));
  CHECK_THAT(r.out, Catch::Contains("GPU4 -> GPU0: E0+F0+G0+H0 (copied to chunk 2)"));
  CHECK_THAT(r.out, Catch::Contains("GPU0 -> GPU4: A1+B1+C1+D1 (copied to chunk 3)"));
  const auto down = r.out.find("broadcast step 1 (step 5 of 8)");
  REQUIRE(down != std::string::npos);
  CHECK(r.out.find("GPU0 -> GPU4: A0+B0+C0+D0+E0+F0+G0+H0", down) != std::string::npos);
}
}  // namespace multi_node_cli_test
