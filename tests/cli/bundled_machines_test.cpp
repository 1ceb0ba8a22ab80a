// The bundled machines of the nccl-tests logs (issue 4, point 8): what their GPUs share, and the hosts
// that multi-node algorithms see.
#include <cstdint>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/cli/cli_harness.hpp"
#include "topologies/bundled.hpp"

// One namespace per test file: CI builds the tests as unity sources (.ci/run), where each file's
// helpers would otherwise meet the other files'.
namespace bundled_machines_test {

using collsim::testing::simulate_json;

namespace {

// The bundled topology `name` without its model parameters (the ideal α-β model), as a file.
std::string without_params(std::string_view name) {
  for (const auto& b : collsim::topo::bundled_topologies())
    if (b.name == name) {
      auto j = nlohmann::json::parse(b.text);
      j.erase("params");
      return collsim::testing::temp_file(std::string(name) + "-ideal.json", j.dump());
    }
  FAIL("no bundled topology " << name);
  return "";
}

// The bytes each NIC sent into the leaf switch (links NIC -> ib-leaf of `j`'s per-link report), in
// the report's order.
std::vector<std::uint64_t> nic_uplink_bytes(const nlohmann::json& j) {
  std::vector<std::uint64_t> bytes;
  for (const auto& l : j["links"]) {
    const std::string from = l["from"], to = l["to"];
    if (from.find("-nic") != std::string::npos && to == "ib-leaf") bytes.push_back(l["bytes"]);
  }
  return bytes;
}

}  // namespace

TEST_CASE("l40s-pcie: 2 and 4 GPUs share only their own x16 links, so a ring reaches the same busbw",
          "[topology][bundled][l40s]") {
  // Ring all-reduce, 1 GiB: every GPU-to-GPU hop crosses two PCIe links (α = 2 · 500 ns) and each link
  // carries one flow per direction at 31.5 GB/s, so t = 2(N-1)(α + ⌈S/N⌉/B), each transfer rounded up
  // to the picosecond: N = 2: 2 · (1e6 + ⌈536870912 / 31.5e9 s⌉ = 17043521016) ps;
  // N = 4: 6 · (1e6 + ⌈268435456 / 31.5e9 s⌉ = 8521760508) ps. busbw = S/t · 2(N-1)/N, 31.5 GB/s less
  // the latency share, as the 2- and 4-GPU logs both reach one busbw (15.57 and 15.41 GB/s).
  // The machine's links without its fitted parameters, so the closed form holds exactly.
  const std::string ideal = without_params("l40s-pcie");
  const auto two = simulate_json({ideal, "--ranks", "2", "--size", "1G"});
  const auto four = simulate_json({ideal, "--size", "1G"});
  CHECK(two["time_ps"] == 2 * (1'000'000 + 17'043'521'016));
  CHECK(four["time_ps"] == 6 * (1'000'000 + 8'521'760'508));
  CHECK(two["busbw_GBps"].get<double>() == Approx(31.5).epsilon(1e-3));
  CHECK(four["busbw_GBps"].get<double>() == Approx(31.5).epsilon(1e-3));
}

TEST_CASE("dgx-h100-2node-ib400: two hosts of 8 H100, one 400 Gb/s NIC per GPU", "[topology][bundled][multi-node]") {
  // Hierarchical all-reduce sees K = 2 hosts of L = 8 ranks: 2(L-1) + 2(K-1) = 16 steps (docs/algorithms.md).
  const auto h = simulate_json({"dgx-h100-2node-ib400", "--algorithm", "hierarchical", "--size", "1G"});
  CHECK(h["steps"] == 16);
  // The flat ring's 24 channels cross between the hosts through all 8 NIC pairs (algorithms/channels.hpp),
  // so its bottleneck is a 50 GB/s IB link and busbw is near 8 x 50 GB/s x 0.94 (the link efficiency):
  // above 7 NICs' worth, at most 8 NICs' (the log measured 384.5 GB/s at 1 GiB).
  const auto ring = simulate_json({"dgx-h100-2node-ib400", "--size", "1G"});
  CHECK(ring["steps"] == 30);
  CHECK(ring["busbw_GBps"].get<double>() > 7 * 50.0);
  CHECK(ring["busbw_GBps"].get<double>() <= 8 * 50.0 * 0.94);
  CHECK_THAT(ring["bottleneck_link"].get<std::string>(), Catch::Contains("ib-leaf"));
  for (const auto& l : ring["links"])
    if (l["type"] == "infiniband") CHECK(l["bandwidth_GBps"].get<double>() == 50.0);
}

TEST_CASE("dgx-a100-2node runs NCCL's 16 channels, so all-reduce crosses all 8 NICs of a node", "[topology][bundled][multi-node]") {
  // NCCL's channel count for two DGX A100 (its file's description: 8 rings of 24 GB/s, one per HDR
  // NIC, doubled by ncclTopoPostset). Each node's rings then leave through all 8 NIC paths, each
  // min(31.5 GB/s PCIe Gen4 x16 x 0.76, 25 GB/s HDR) = 23.94 GB/s: busbw at most 8 x 23.94 = 191.5 GB/s
  // (two DGX A100 measure about 190), and at least the 150 where one channel gave 23.9.
  const auto ring = simulate_json({"dgx-a100-2node", "--size", "1G"});
  CHECK(ring["channels"] == 16);
  CHECK(ring["channels_source"] == "topology dgx-a100-2node");
  CHECK(ring["busbw_GBps"].get<double>() >= 150.0);
  CHECK(ring["busbw_GBps"].get<double>() <= 8 * 31.5 * 0.76 + 1e-9);
}

TEST_CASE("dgx-b200: 8 B200 at 900 GB/s into NVSwitch, ring all-reduce is the closed form without parameters",
          "[topology][bundled][b200]") {
  // Ideal α-β model (the machine's links, its parameters removed): a GPU-to-GPU route is two links of
  // 300 ns, so α = 600 ns, and B = 900 GB/s (18 NVLink5 links x 50 GB/s, DGX B200 datasheet). Ring
  // all-reduce of 1 GiB on 8 ranks: 2(N-1) = 14 steps of α + ⌈(S/N) / B⌉, S/N = 134,217,728 B, which
  // takes 134217728 / 900e9 s = 149,130,808.9 ps, rounded up to 149,130,809 ps.
  const auto j = simulate_json({without_params("dgx-b200"), "--size", "1G"});
  CHECK(j["time_ps"] == 14 * (600'000 + 149'130'809));
  // With its parameters: 32 channels, NVLink at 0.802 of its line rate (SM100_NVLINK_BW 40.1 of 50
  // GB/s in NCCL 2.30.7's src/graph/topo.h), so busbw stays below 0.802 x 900 = 721.8 GB/s.
  const auto p = simulate_json({"dgx-b200", "--size", "1G"});
  CHECK(p["channels"] == 32);
  CHECK(p["busbw_GBps"].get<double>() <= 721.8);
  CHECK(p["busbw_GBps"].get<double>() > 0.9 * 721.8);
}

TEST_CASE("dgx-b200-2node-ib400: all-gather on 32 channels crosses every NIC with equal bytes", "[topology][bundled][b200][multi-node]") {
  // 32 channels, each ring rotated inside each node: channels c, c+8, c+16, c+24 leave a node through
  // one NIC. S = 1 GiB of floats: 2^24 elements per part, exactly 2^19 per channel, so each channel's
  // ring edge carries (15/16) · S/32 and each NIC (15/16) · S/8 = 125,829,120 B. busbw is then bound by
  // the 8 NICs of a node: 8 x 50 GB/s x 0.94 (the machine's InfiniBand efficiency) = 376 GB/s.
  const auto j = simulate_json({"dgx-b200-2node-ib400", "--collective", "allgather", "--size", "1G"});
  REQUIRE(j["channels"] == 32);
  CHECK(nic_uplink_bytes(j) == std::vector<std::uint64_t>(16, 125'829'120));
  CHECK(j["busbw_GBps"].get<double>() <= 8 * 50.0 * 0.94);
  CHECK(j["busbw_GBps"].get<double>() > 7 * 50.0 * 0.94);
}

TEST_CASE("a 2-node all-gather sends equal bytes through each of the 16 NICs", "[topology][bundled][multi-node][channels]") {
  // dgx-h100-2node-ib400: 24 channels, each channel's ring rotated inside each node, so it leaves
  // node 0 through the NIC of local GPU (c + 7) mod 8: channels c, c + 8 and c + 16 share a NIC. On
  // a ring all-gather every edge carries N-1 of the channel's N pieces, (15/16)·S_c. S = 1 GiB of
  // floats is 2^28 elements, 2^24 per part, 699,050 per channel and 16 left: channels 0-15 take one
  // more. Each NIC's three channels hold (699,051 + 699,051 + 699,050) · 16 elements = 2^25 ·
  // 4 B = 2^27 B = S/8, so each NIC sends (15/16) · 2^27 = 125,829,120 B.
  const auto j = simulate_json({"dgx-h100-2node-ib400", "--collective", "allgather", "--size", "1G"});
  REQUIRE(j["channels"] == 24);
  CHECK(nic_uplink_bytes(j) == std::vector<std::uint64_t>(16, 125'829'120));
}

// Issue 17: each new bundled machine's per-GPU injection bandwidth (tests/unit/topology_test.cpp
// checks it for every bundled file) and its ring all-reduce busbw at 1 GiB, derived here from the
// datasheet rates and NCCL's counts that its description cites.

TEST_CASE("hgx-h200: ring all-reduce at 1 GiB reaches NCCL's NVLink 4 count, 18 x 20.6 GB/s",
          "[topology][bundled][h200]") {
  // 18 NVLink 4 links x 25 GB/s = 450 GB/s per direction into NVSwitch (H200 datasheet), of which NCCL
  // counts 20.6 per link (SM90_NVLINK_BW): 0.824 x 450 = 370.8 GB/s. On 8 GPUs the 14 steps' latencies
  // (a few us each) are under 1 % of the 5 ms the bytes take, so busbw is within 1 % below the bound.
  const auto j = simulate_json({"hgx-h200", "--size", "1G"});
  CHECK(j["busbw_GBps"].get<double>() <= 370.8);
  CHECK(j["busbw_GBps"].get<double>() >= 0.99 * 370.8);
}

TEST_CASE("gb200-nvl72: ring all-reduce at 1 GiB on 72 GPUs, the closed form without parameters and NCCL's count with",
          "[topology][bundled][gb200]") {
  // Ideal model: 18 NVLink 5 links x 50 GB/s = 900 GB/s per GPU (GB200 NVL72 datasheet), two links of
  // 300 ns per GPU-to-GPU route. 2(N-1) = 142 steps of α + ⌈(S/N)/B⌉, S/N = 1 GiB / 72 = 14,913,080.9 B:
  // the larger parts take ⌈14,913,081 / 900e9 s⌉ = 16,570,090 ps, so t = 142 x 17,170,090 ps (to 1e-6:
  // the parts differ by one byte).
  const auto ideal = simulate_json({without_params("gb200-nvl72"), "--size", "1G"});
  CHECK(ideal["time_ps"].get<double>() == Approx(142.0 * 17'170'090).epsilon(1e-6));
  // With its parameters: NCCL counts 40.1 of 50 GB/s per NVLink 5 link (SM100_NVLINK_BW), 0.802 x 900 =
  // 721.8 GB/s. At 72 ranks the 142 steps' NCCL latencies and pipeline fill take a sixth of the time at
  // 1 GiB, so busbw sits between 0.8 and 1 of the bound.
  const auto p = simulate_json({"gb200-nvl72", "--size", "1G"});
  CHECK(p["busbw_GBps"].get<double>() <= 721.8);
  CHECK(p["busbw_GBps"].get<double>() > 0.8 * 721.8);
}

TEST_CASE("rtx4090-pcie-8gpu-2socket: every pair through host memory, the ring bound by the socket link at NCCL's 16 GB/s",
          "[topology][bundled][rtx4090][transport]") {
  // Stock driver: no P2P, so every pair is SHM through the receiver's CPU. The ring gpu0..gpu7 crosses
  // the socket link once each way (gpu3 -> gpu4, gpu7 -> gpu0); both channels' flows share it: NCCL's
  // AMD_BW 16 GB/s (written 21 GB/s x 0.762 = 16.002), below each GPU's Gen4 x16 link at NCCL's 24 GB/s
  // (31.5 x 0.762). busbw is therefore 16.0 GB/s less the 14 steps' latencies (under 1 % at 1 GiB).
  const auto j = simulate_json({"rtx4090-pcie-8gpu-2socket", "--size", "1G"});
  CHECK(j["busbw_GBps"].get<double>() <= 21 * 0.762);
  CHECK(j["busbw_GBps"].get<double>() >= 0.99 * 21 * 0.762);
  CHECK(j["bottleneck_link"].get<std::string>().find("cpu") != std::string::npos);
}

TEST_CASE("h100-pcie-nvlbridge: a pair runs at its bridge's 12 NVLinks, a ring of 4 at its PCIe hops, both ways",
          "[topology][bundled][h100-pcie][transport]") {
  // --ranks 2: one bridge of 12 NVLink 4 links x 25 GB/s = 300 GB/s per direction (H100 PCIe product
  // brief: 600 GB/s bidirectional), NCCL's count 20.6 per link: 247.2 GB/s; 2 steps of latency are
  // under 1 % of the 4.3 ms.
  const auto pair = simulate_json({"h100-pcie-nvlbridge", "--ranks", "2", "--size", "1G"});
  CHECK(pair["busbw_GBps"].get<double>() <= 12 * 20.6);
  CHECK(pair["busbw_GBps"].get<double>() >= 0.99 * 12 * 20.6);
  // 4 ranks: the hops gpu1 -> gpu2 and gpu3 -> gpu0 cross the CPU through two PCIe Gen5 x16 links
  // (63.0 GB/s, PCI-SIG), which NCCL counts at 48 GB/s less Intel's 6/5 P2P overhead: 40 GB/s (0.635
  // x 63). The odd channel runs the ring the other way and uses the other direction of each PCIe link
  // (gpu2 -> gpu1 leaves through gpu2's link), so two channels reach 2 x 40 GB/s.
  const auto ring = simulate_json({"h100-pcie-nvlbridge", "--size", "1G"});
  REQUIRE(ring["channels"] == 2);
  CHECK(ring["busbw_GBps"].get<double>() <= 2 * 63 * 0.635);
  CHECK(ring["busbw_GBps"].get<double>() >= 0.99 * 2 * 63 * 0.635);
}
}  // namespace bundled_machines_test
