// NVLSTree all-reduce (algorithms/nvls_tree_allreduce.hpp), NCCL's NVLSTree formula
// (sim/nccl_formula.hpp) and NVLS channel counts across nodes (topologies/gpu_models.hpp).
// Expected values are derived by hand from the data path in the header (each GPU sends S to its
// switch and its part P back for the multicast; between hosts a head sends each half of P once
// up or down per tree) and from NCCL 2.30.7's src/graph/tuning.cc and src/transport/nvls.cc.
#include <catch2/catch.hpp>

#include "algorithms/host_grid.hpp"
#include "algorithms/nvls_allreduce.hpp"
#include "algorithms/nvls_tree_allreduce.hpp"
#include "sim/nccl_formula.hpp"
#include "topologies/gpu_models.hpp"
#include "validation/symbolic_replay.hpp"

// One namespace per test file: CI builds the tests as unity sources (.ci/run), where each file's
// helpers would otherwise meet the other files'.
namespace algo_nvls_tree_test {

using namespace collsim;

namespace {

algo::Request request(sched::Rank n, sched::Rank hosts, Bytes size, Bytes chunk = algo::kNvlsChunkSize) {
  algo::Request r{sched::Collective::AllReduce, n, size};
  r.chunk_size = chunk;
  if (hosts > 0) r.hosts = algo::equal_hosts(n, hosts);
  return r;
}

}  // namespace

TEST_CASE("nvls-tree on 2 hosts of 4: S + P to the switch, P between hosts, 6 steps", "[algo][nvls-tree]") {
  // S = 8 KiB: P = 2 KiB per head, halves of 1 KiB, one chunk each (C = 1). Tree 0 of ncclGetDtree(2)
  // is host 0 over host 1, tree 1 the mirror: each head sends one half up and the other down.
  const auto s = algo::build_nvls_tree_allreduce(request(8, 2, 8192));
  CHECK(s.header.helpers == 2);
  CHECK(s.algorithm == "nvls-tree");
  const auto sent = sched::bytes_sent_per_rank(s);
  const auto received = sched::bytes_received_per_rank(s);
  REQUIRE(sent.size() == 10);
  for (sched::Rank r = 0; r < 8; ++r) {
    INFO("rank " << r);
    CHECK(sent[r] == 8192 + 2048 + 2048);      // S to the switch, P for the multicast, P to the other host
    CHECK(received[r] == 2048 + 8192 + 2048);  // P summed from the switch, S multicast, P from the other host
  }
  // Each switch: L·S in and S out for the loads, S in and L·S out for the multicast.
  for (sched::Rank sw : {8u, 9u}) {
    CHECK(sent[sw] == 8192 + 4 * 8192);
    CHECK(received[sw] == 4 * 8192 + 8192);
  }
  // Steps: the switch reduces (1) and hands the sum to the head (2), the child host's half goes up
  // (3), the root's result down (4), the child head multicasts (5, 6).
  CHECK(s.steps == 6);
  REQUIRE(s.phases.size() == 3);
  CHECK(s.phases[0].name == "reduce at the switch");
  CHECK(s.phases[1].name == "tree between hosts");
  CHECK(s.phases[2].name == "multicast");
  CHECK(s.phases[2].last_step == 6);
  CHECK_FALSE(validation::verify_symbolic(s));
}

TEST_CASE("nvls-tree: one GPU per host is the double tree of hosts, one host is NVLS", "[algo][nvls-tree]") {
  // 4 hosts of 1: no switch, no helper; ncclGetDtree(4) has height 2 in both trees: 2D + C - 1 = 4
  // steps with one chunk per half.
  const auto tree = algo::build_nvls_tree_allreduce(request(4, 4, 4096));
  CHECK(tree.header.helpers == 0);
  CHECK(tree.steps == 4);
  CHECK_FALSE(validation::verify_symbolic(tree));
  // Halves of 2 KiB. Tree 0 (ncclGetBtree(4)): 0 -> 2 -> {1, 3}; tree 1 (its mirror): 3 -> 1 -> {2, 0}.
  // Host 2 sends its half up and to two children in tree 0 and up as a leaf in tree 1, host 1 the
  // other way round: 4 halves each; hosts 0 and 3 send one half down as a root and one up as a leaf.
  const auto sent = sched::bytes_sent_per_rank(tree);
  CHECK(sent == std::vector<Bytes>{2 * 2048, 4 * 2048, 4 * 2048, 2 * 2048});
  // No hosts: one host, shaped as NVLS (C + 3 steps, S + P per GPU).
  const auto one = algo::build_nvls_tree_allreduce(request(4, 0, 4096));
  const auto nvls = algo::build_nvls_allreduce(request(4, 0, 4096));
  CHECK(one.header.helpers == 1);
  CHECK(one.steps == nvls.steps);
  CHECK(sched::bytes_sent_per_rank(one) == sched::bytes_sent_per_rank(nvls));
  CHECK_FALSE(validation::verify_symbolic(one));
  // Pipelined, uneven cuts, two-child hosts with switches: 3 hosts of 3, S = 1,000,003 B in 4 KiB chunks.
  CHECK_FALSE(validation::verify_symbolic(algo::build_nvls_tree_allreduce(request(9, 3, 1000003, 4096))));
  CHECK(algo::build_nvls_tree_allreduce(request(1, 0, 64)).ops.empty());
}

TEST_CASE("nvls-tree refuses hosts that are not a grid", "[algo][nvls-tree]") {
  algo::Request r = request(4, 0, 4096);
  r.hosts = {0, 0, 0, 1};
  CHECK_THROWS_AS(algo::build_nvls_tree_allreduce(r), algo::AlgorithmError);
}

TEST_CASE("NCCL's NVLSTree formula, by hand", "[nccl][nvls-tree]") {
  // dgx-h100-2node-ib400 as ncclTopoTuneModel sees it: 16 ranks on 2 nodes, 16 NVLS channels,
  // NVLink 450 GB/s x 0.824 = 370.8 GB/s per GPU, NICs 8 x 50 x 0.94 = 376 GB/s per host.
  sim::NcclFormulaInput in;
  in.collective = sched::Collective::AllReduce;
  in.family = topo::AlgoFamily::NvlsTree;
  in.protocol = topo::Protocol::Simple;
  in.ranks = 16;
  in.nodes = 2;
  in.channels = 16;
  in.size = Bytes{1} << 30;
  in.intra_bandwidth = Bandwidth{static_cast<std::uint64_t>(370.8e9 * 8)};
  in.inter_bandwidth = Bandwidth{static_cast<std::uint64_t>(376e9 * 8)};
  in.bus_bandwidth = in.intra_bandwidth;
  in.nvls_efficiency = 0.85;
  in.arch = topo::GpuArch::Hopper;
  const topo::ModelParams none;
  // intraBw = 370.8 x 0.85 x 15/16 x 2 = 590.9625; interBw = 376 x 2 (two nodes) = 752; the cap
  // 16 x 57.7 = 923.2: busBw 590.9625, algbw x 16/30. Latency 25 + 2 x log2(2) x 20.9 = 66.8 us.
  const double expect_us = 66.8 + 1073741824.0 / (1000 * 590.9625 * 16 / 30);
  auto t = sim::nccl_formula_time(in, none);
  REQUIRE(t);
  CHECK(static_cast<double>(t->count()) * 1e-6 == Approx(expect_us).epsilon(1e-9));
  // Four nodes: interBw not doubled (376 < 590.96) and two tree levels of 20.9 us each way.
  in.nodes = 4;
  in.ranks = 32;
  const double four_us = 25 + 4 * 20.9 + 1073741824.0 / (1000 * 376.0 * 32 / 62);
  t = sim::nccl_formula_time(in, none);
  REQUIRE(t);
  CHECK(static_cast<double>(t->count()) * 1e-6 == Approx(four_us).epsilon(1e-9));
  // NCCL disables NVLSTree on one node, runs it with Simple only, and needs the switch.
  in.nodes = 1;
  CHECK_FALSE(sim::nccl_formula_time(in, none));
  in.nodes = 2;
  in.protocol = topo::Protocol::LL128;
  CHECK_FALSE(sim::nccl_formula_time(in, none));
  in.protocol = topo::Protocol::Simple;
  in.nvls_efficiency = 0;
  CHECK_FALSE(sim::nccl_formula_time(in, none));
}

TEST_CASE("NCCL's NVLS channels across nodes (ncclNvlsTuning, ncclNvlsTreeSm100Tuning)", "[nvls-tree]") {
  using topo::GpuArch;
  CHECK(topo::nvls_channels(GpuArch::Hopper) == 16);
  CHECK(topo::nvls_channels(GpuArch::Hopper, 4, 50) == 16);
  CHECK(topo::nvls_channels(GpuArch::Blackwell) == 24);
  CHECK(topo::nvls_channels(GpuArch::Blackwell, 2, 50) == 32);
  CHECK(topo::nvls_channels(GpuArch::Blackwell, 4, 50) == 24);
  CHECK(topo::nvls_channels(GpuArch::Blackwell, 2, 100) == 24);
  CHECK(topo::nvls_channels(GpuArch::Blackwell, 4, 25) == 32);
}
}  // namespace algo_nvls_tree_test
