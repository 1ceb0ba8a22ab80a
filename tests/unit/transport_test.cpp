// Transports between GPU pairs (issue 17 item 2): NCCL's path types, its P2P level and its choice of
// P2P or SHM (ncclTopoCheckP2p and ncclTopoComputePaths, src/graph/paths.cc, NCCL 2.30.7), and the
// route SHM takes through the receiver's CPU.
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "tests/cli/cli_harness.hpp"
#include "topologies/export.hpp"
#include "topologies/load_json.hpp"
#include "topologies/routes.hpp"
#include "topologies/transport.hpp"

// One namespace per test file: CI builds the tests as unity sources (.ci/run), where each file's
// helpers would otherwise meet the other files'.
namespace transport_test {

using Catch::Matchers::Contains;
using collsim::testing::check_bad_input;
using collsim::testing::run_collsim;
using collsim::testing::simulate_json;
using collsim::topo::NodeId;
using collsim::topo::P2pLevel;
using collsim::topo::PathType;
using collsim::topo::Topology;
using collsim::topo::Transport;

namespace {

Topology parse(std::string_view text) { return collsim::topo::parse_topology_json(text, "t.json", "t"); }

NodeId id(const Topology& t, std::string_view name) {
  const auto node = t.find_node(name);
  REQUIRE(node.has_value());
  return *node;
}

PathType path(const Topology& t, std::string_view a, std::string_view b) {
  return collsim::topo::path_type(t, t.shortest_route(id(t, a), id(t, b)));
}

Transport transport(const Topology& t, std::string_view a, std::string_view b) {
  return collsim::topo::transport_between(t, id(t, a), id(t, b), path(t, a, b));
}

// GPUs g0..g(n-1) on one CPU's root complex, each by its own PCIe link; `cpu` is the cpu node's
// extra keys (e.g. "\"vendor\": \"amd\"").
std::string host_bridge_machine(int n, const std::string& cpu, const std::string& gpu = "") {
  std::string nodes, links;
  for (int i = 0; i < n; ++i) {
    nodes += fmt::format("{{\"id\": \"g{}\", \"type\": \"gpu\"{}}}, ", i, gpu);
    links += fmt::format("{}{{\"from\": \"g{}\", \"to\": \"c\", \"type\": \"pcie\", \"bandwidth\": \"32GB/s\", "
                         "\"latency\": \"500ns\"}}",
                         i == 0 ? "" : ", ", i);
  }
  return fmt::format(R"({{"nodes": [{}{{"id": "c", "type": "cpu"{}}}], "links": [{}]}})", nodes,
                     cpu.empty() ? "" : ", " + cpu, links);
}

}  // namespace

TEST_CASE("path types follow NCCL's: NVL, PIX, PXB, PHB, SYS and NET", "[transport]") {
  const Topology h100 = collsim::topo::load_topology("dgx-h100");
  CHECK(path(h100, "gpu0", "gpu5") == PathType::Nvl);
  const Topology pcie = collsim::topo::load_topology("pcie-4gpu");  // 4 GPUs under one PCIe switch
  CHECK(path(pcie, "gpu0", "gpu3") == PathType::Pix);
  const Topology l40s = collsim::topo::load_topology("l40s-pcie");  // each GPU on the CPU's root complex
  CHECK(path(l40s, "gpu0", "gpu1") == PathType::Phb);
  const Topology two = collsim::topo::load_topology("rtx4090-pcie-8gpu-2socket");
  CHECK(path(two, "gpu0", "gpu3") == PathType::Phb);
  CHECK(path(two, "gpu0", "gpu4") == PathType::Sys);  // across the socket link
  const Topology nodes = collsim::topo::load_topology("dgx-h100-2node-ib400");
  CHECK(path(nodes, "n0-gpu0", "n1-gpu0") == PathType::Net);
  // Two PCIe switches under a third, no CPU between: PXB.
  const Topology pxb = parse(R"({"nodes": [{"id": "a", "type": "gpu"}, {"id": "b", "type": "gpu"},
    {"id": "s0", "type": "switch"}, {"id": "s1", "type": "switch"}, {"id": "top", "type": "switch"}],
    "links": [{"from": "a", "to": "s0", "type": "pcie", "bandwidth": "32GB/s", "latency": "1ns"},
              {"from": "b", "to": "s1", "type": "pcie", "bandwidth": "32GB/s", "latency": "1ns"},
              {"from": "s0", "to": "top", "type": "pcie", "bandwidth": "32GB/s", "latency": "1ns"},
              {"from": "s1", "to": "top", "type": "pcie", "bandwidth": "32GB/s", "latency": "1ns"}]})");
  CHECK(path(pxb, "a", "b") == PathType::Pxb);
}

TEST_CASE("NCCL's default P2P level: PXB, SYS on an AMD host of at most 2 GPUs", "[transport]") {
  // ncclTopoCheckP2p: p2pLevel = PATH_PXB, PATH_SYS for AMD x86 with nodes[DEV].count <= 2.
  const Topology amd2 = parse(host_bridge_machine(2, R"("vendor": "amd")"));
  CHECK(collsim::topo::default_p2p_level(amd2, 0) == P2pLevel::Sys);
  CHECK(transport(amd2, "g0", "g1") == Transport::P2p);
  const Topology amd3 = parse(host_bridge_machine(3, R"("vendor": "amd")"));
  CHECK(collsim::topo::default_p2p_level(amd3, 0) == P2pLevel::Pxb);
  CHECK(transport(amd3, "g0", "g1") == Transport::Shm);  // PHB is beyond PXB
  const Topology intel2 = parse(host_bridge_machine(2, R"("vendor": "intel")"));
  CHECK(collsim::topo::default_p2p_level(intel2, 0) == P2pLevel::Pxb);
  CHECK(transport(intel2, "g0", "g1") == Transport::Shm);
  const Topology unknown = parse(host_bridge_machine(2, ""));
  CHECK(collsim::topo::default_p2p_level(unknown, 0) == P2pLevel::Pxb);
}

TEST_CASE("the P2P level and the GPUs' own P2P pick P2P or SHM per pair", "[transport]") {
  Topology l40s = collsim::topo::load_topology("l40s-pcie");
  CHECK(transport(l40s, "gpu0", "gpu1") == Transport::Shm);
  l40s.set_p2p_level(P2pLevel::Sys);  // NCCL_P2P_LEVEL=SYS
  CHECK(transport(l40s, "gpu0", "gpu1") == Transport::P2p);
  l40s.set_p2p_level(P2pLevel::Phb);
  CHECK(transport(l40s, "gpu0", "gpu1") == Transport::P2p);
  // A GPU its driver gives no P2P stays on SHM at any level.
  Topology stock = parse(host_bridge_machine(2, "", R"(, "p2p": false)"));
  stock.set_p2p_level(P2pLevel::Sys);
  CHECK(transport(stock, "g0", "g1") == Transport::Shm);
  // NCCL_P2P_DISABLE=1 turns NVLink pairs to SHM too.
  Topology h100 = collsim::topo::load_topology("dgx-h100");
  CHECK(transport(h100, "gpu0", "gpu1") == Transport::P2p);
  h100.set_p2p_level(P2pLevel::Off);
  CHECK(transport(h100, "gpu0", "gpu1") == Transport::Shm);
  const Topology nodes = collsim::topo::load_topology("dgx-h100-2node-ib400");
  CHECK(transport(nodes, "n0-gpu0", "n1-gpu0") == Transport::Net);
  CHECK(transport(nodes, "n0-gpu0", "n0-gpu1") == Transport::P2p);
}

TEST_CASE("an SHM route goes up to the receiver's CPU and down, a P2P route stays under the switch", "[transport][routes]") {
  Topology t = collsim::topo::load_topology("pcie-4gpu");
  {
    collsim::topo::RouteCache routes(t);
    const auto& r = routes.get(id(t, "gpu0"), id(t, "gpu1"));
    CHECK(r.links.size() == 2);  // gpu0 -> switch -> gpu1: P2P (PIX)
  }
  t.set_p2p_level(P2pLevel::Off);
  collsim::topo::RouteCache routes(t);
  const auto& r = routes.get(id(t, "gpu0"), id(t, "gpu1"));
  REQUIRE(r.links.size() == 4);  // gpu0 -> switch -> cpu0 -> switch -> gpu1
  CHECK(t.node(t.link(r.links[1]).to).id == "cpu0");
  CHECK(t.node(t.link(r.links[3]).to).id == "gpu1");
}

TEST_CASE("with P2P off, 4 GPUs under one switch share its uplink to the CPU: a quarter of it each", "[transport][cli]") {
  // pcie-4gpu: 4 GPUs on a PCIe switch, one Gen4 x16 uplink (31.5 GB/s) to cpu0, no parameters (ideal
  // model). P2P (PIX): each ring hop uses only the GPUs' own links, busbw 31.5 GB/s less latency. SHM:
  // every hop goes up the uplink and down again, so its 4 flows share each direction: 31.5 / 4 =
  // 7.875 GB/s each, and the ring's busbw is that less the 6 steps' latencies (under 1 % at 1 GiB).
  const auto p2p = simulate_json({"pcie-4gpu", "--size", "1G"});
  CHECK(p2p["busbw_GBps"].get<double>() <= 31.5);
  CHECK(p2p["busbw_GBps"].get<double>() >= 0.99 * 31.5);
  const auto shm = simulate_json({"pcie-4gpu", "--size", "1G", "--p2p-level", "off"});
  CHECK(shm["busbw_GBps"].get<double>() <= 31.5 / 4);
  CHECK(shm["busbw_GBps"].get<double>() >= 0.99 * 31.5 / 4);
  // NCCL's names in any case, as NCCL_P2P_LEVEL takes them.
  const auto upper = simulate_json({"pcie-4gpu", "--size", "1G", "--p2p-level", "LOC"});
  CHECK(upper["time_ps"] == shm["time_ps"]);
}

TEST_CASE("P2P off where no CPU joins the GPUs is one clear error, and bad levels and keys are refused", "[transport][cli]") {
  // dgx-h100 models NVSwitch alone: SHM has no host memory to go through.
  check_bad_input({"simulate", "dgx-h100", "--size", "1M", "--p2p-level", "off"}, "no cpu node");
  check_bad_input({"simulate", "dgx-h100", "--size", "1M", "--p2p-level", "far"}, "--p2p-level: found \"far\"");
  check_bad_input({"topo", "dgx-h100", "--p2p-level", "off"}, "SHM");
  CHECK_THROWS_WITH(parse(R"({"p2p_level": "near", "nodes": [{"id": "a", "type": "gpu"}], "links": []})"),
                    Contains("/p2p_level") && Contains("\"near\""));
  CHECK_THROWS_WITH(parse(R"({"nodes": [{"id": "a", "type": "gpu"}, {"id": "s", "type": "switch", "p2p": false}],
                              "links": [{"from": "a", "to": "s", "type": "pcie", "bandwidth": "1GB/s", "latency": "1ns"}]})"),
                    Contains("/nodes/1/p2p"));
  CHECK_THROWS_WITH(parse(R"({"nodes": [{"id": "a", "type": "gpu"}, {"id": "c", "type": "cpu", "vendor": "via"}],
                              "links": [{"from": "a", "to": "c", "type": "pcie", "bandwidth": "1GB/s", "latency": "1ns"}]})"),
                    Contains("/nodes/1/vendor") && Contains("\"amd\""));
}

TEST_CASE("the P2P level, the GPUs' P2P and the CPU vendor survive export and reload", "[transport][export]") {
  Topology t = collsim::topo::load_topology("rtx4090-pcie-8gpu-2socket");
  t.set_p2p_level(P2pLevel::Sys);
  const Topology back = parse(collsim::topo::normalized_json(t));
  CHECK(back.p2p_level() == P2pLevel::Sys);
  CHECK_FALSE(back.node(id(back, "gpu0")).p2p);
  CHECK(back.node(id(back, "cpu1")).vendor == collsim::topo::CpuVendor::Amd);
  CHECK(collsim::topo::normalized_json(back) == collsim::topo::normalized_json(t));
}

TEST_CASE("topo says how each GPU pair is joined", "[transport][cli]") {
  // rtx4090-pcie-8gpu-2socket: 8 x 7 ordered pairs, 4 x 3 x 2 = 24 within a socket (PHB) and 32 across
  // (SYS), all SHM (the stock driver gives no P2P).
  const auto run = run_collsim({"topo", "rtx4090-pcie-8gpu-2socket"});
  REQUIRE(run.code == 0);
  CHECK_THAT(run.out, Contains("transports: 56 GPU pairs of 8 GPUs: SHM 56 (paths PHB 24, SYS 32); P2P level pxb, "
                               "NCCL's default"));
  const auto bridge = run_collsim({"topo", "h100-pcie-nvlbridge"});
  CHECK_THAT(bridge.out, Contains("P2P 4, SHM 8 (paths NVL 4, PHB 8)"));
  const auto given = run_collsim({"topo", "h100-pcie-nvlbridge", "--p2p-level", "sys"});
  CHECK_THAT(given.out, Contains("P2P 12 (paths NVL 4, PHB 8); P2P level sys\n"));
}

TEST_CASE("NCCL's formula counts the rings both ways and the links a ring's own hops share", "[transport][nccl]") {
  // --model nccl's time against 2(N-1)/N · S / busBw at 1 GiB (the latencies are under 1 % of it):
  //  * ring8-nvlink (a ring of 25 GB/s links), 2 channels: the reversed one takes the other direction
  //    of each link, busBw = 2 x 25 GB/s;
  //  * pcie-4gpu with P2P off: every hop of a ring crosses the switch's one uplink (31.5 GB/s), 4 hops
  //    per ring and 2 rings: busBw = 2 x 31.5 / 8;
  //  * h100-pcie-nvlbridge: two rings, each bound by its PCIe hops at 0.635 x 63 GB/s.
  struct Case {
    std::vector<std::string> args;
    double ranks, bus_GBps;
  };
  const std::vector<Case> cases{
      {{"ring8-nvlink", "--channels", "2", "--protocol", "simple"}, 8, 2 * 25.0},
      {{"pcie-4gpu", "--p2p-level", "off", "--protocol", "simple", "--channels", "2"}, 4, 2 * 31.5 / 8},
      {{"h100-pcie-nvlbridge"}, 4, 2 * 0.635 * 63},
  };
  for (const auto& c : cases) {
    INFO(c.args.front());
    std::vector<std::string> args = c.args;
    for (const char* a : {"--size", "1G", "--model", "nccl"}) args.emplace_back(a);
    const auto j = simulate_json(args);
    const double bytes_us = 2 * (c.ranks - 1) / c.ranks * 1073741824.0 / (c.bus_GBps * 1e3);
    CHECK(j["model_us"].get<double>() >= bytes_us);
    CHECK(j["model_us"].get<double>() <= 1.01 * bytes_us);
    // The simulation agrees: its time is within 1 % of the formula's.
    CHECK(j["time_us"].get<double>() == Approx(j["model_us"].get<double>()).epsilon(0.01));
  }
}
}  // namespace transport_test
