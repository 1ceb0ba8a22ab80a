// NCCL's choice per size (run/nccl_choice.hpp) and NCCL_ALGO's list (run/parse.hpp). The expected
// picks and times are worked out by hand from NCCL 2.30.7's tables (src/graph/tuning.cc) on the
// bundled machines: docs/algorithms.md, "NCCL's choice per size".
#include <catch2/catch.hpp>

#include "run/errors.hpp"
#include "run/nccl_choice.hpp"
#include "run/parse.hpp"
#include "run/simulate.hpp"
#include "sim/nccl_formula.hpp"
#include "topologies/load_json.hpp"

// One namespace per test file: CI builds the tests as unity sources (.ci/run), where each file's
// helpers would otherwise meet the other files'.
namespace nccl_choice_test {

using namespace collsim;

namespace {

run::NcclChoice choose(const topo::Topology& t, Bytes size, std::vector<algo::NcclFamily> allowed = {},
                       run::ModelOptions model = {}) {
  return run::choose_nccl_algorithm(run::builtin_algorithms(), t, t.gpus(), sched::Collective::AllReduce, size, model,
                                    allowed);
}

const run::NcclCandidate& candidate(const run::NcclChoice& c, std::string_view name) {
  for (const auto& x : c.candidates)
    if (x.entry->name == name) return x;
  FAIL("no candidate " << name);
  return c.candidates.front();
}

double us(const std::optional<Time>& t) { return static_cast<double>(t->count()) * 1e-6; }

}  // namespace

TEST_CASE("NCCL's choice on dgx-b200: ring LL at 8 B, NVLS at 64 MiB, ring LL128 without NVLS", "[nccl][choice]") {
  const auto b200 = topo::load_topology("dgx-b200");
  // 8 B: ring LL 6.6 + 14 x 0.6 = 15.0 us against the chain tree's 6.8 + 2 x 7 x 0.6 = 15.2 us.
  const auto small = choose(b200, 8);
  CHECK(small.entry->name == "ring");
  CHECK(us(candidate(small, "ring").time) == Approx(15.0).margin(0.01));
  CHECK(us(candidate(small, "nccl-tree").time) == Approx(15.2).margin(0.01));
  CHECK(candidate(small, "ring").protocol == topo::Protocol::LL);
  // 64 MiB: NVLS 25 + 67108864 / 585.0017 GB/s = 139.72 us; ring LL128 14 + 14 x 1.9 + 67108864 /
  // (721.8 x 0.92 x 8/14) GB/s = 217.45 us.
  const auto large = choose(b200, Bytes{64} << 20);
  CHECK(large.entry->name == "nvls");
  CHECK(us(candidate(large, "nvls").time) == Approx(139.72).margin(0.01));
  CHECK(us(candidate(large, "ring").time) == Approx(217.45).margin(0.01));
  // The candidates come in NCCL's order (tree, ring, NVLS, NVLSTree); the reason lists them fastest
  // first. NVLSTree is weighed but NCCL's model has none on one node.
  REQUIRE(large.candidates.size() == 4);
  CHECK(large.candidates[0].entry->name == "nccl-tree");
  CHECK(large.candidates[2].entry->name == "nvls");
  CHECK(large.candidates[3].entry->name == "nvls-tree");
  CHECK_FALSE(large.candidates[3].time);
  CHECK(large.candidates[3].why == "NCCL disables NVLSTree on one node (ncclTopoTuneModel); expected ranks on several hosts");
  CHECK(large.reason(Bytes{64} << 20).find("nvls/simple 139.72 us, ring/ll128 217.45 us") != std::string::npos);
  // NCCL_ALGO=^NVLS and NCCL_PROTO=Simple restrict it.
  CHECK(choose(b200, Bytes{64} << 20, {algo::NcclFamily::Tree, algo::NcclFamily::Ring}).entry->name == "ring");
  run::ModelOptions ll;
  ll.protocol = topo::ProtocolChoice::LL;
  const auto no_nvls = choose(b200, Bytes{64} << 20, {}, ll);
  CHECK(no_nvls.entry->name != "nvls");
  CHECK(candidate(no_nvls, "nvls").why.find("simple protocol only") != std::string::npos);
}

TEST_CASE("NCCL's choice leaves out what cannot run, and says why when nothing can", "[nccl][choice]") {
  const auto a100 = topo::load_topology("dgx-a100");
  const auto c = choose(a100, Bytes{1} << 30);
  CHECK(c.entry->name == "ring");
  CHECK_FALSE(candidate(c, "nvls").time);
  CHECK(candidate(c, "nvls").why.find("gpu0 (A100-SXM4-80GB) has no NVLink SHARP") != std::string::npos);
  CHECK_THROWS_WITH(choose(a100, 1024, {algo::NcclFamily::Nvls}),
                    Catch::Contains("none of NCCL's algorithms can run allreduce here; nvls: NVLS needs"));
  // All-gather has no tree in NCCL: ring it is.
  CHECK_THROWS_WITH(run::choose_nccl_algorithm(run::builtin_algorithms(), a100, a100.gpus(),
                                               sched::Collective::AllGather, 1024, {}, std::vector{algo::NcclFamily::Tree}),
                    Catch::Contains("none runs it: nccl-tree runs allreduce"));
  const auto ag = run::choose_nccl_algorithm(run::builtin_algorithms(), a100, a100.gpus(), sched::Collective::AllGather,
                                             Bytes{1} << 20, {});
  CHECK(ag.entry->name == "ring");
}

TEST_CASE("NCCL_ALGO lists: names, case, ^ and what is not modelled yet", "[nccl][parse]") {
  using F = algo::NcclFamily;
  CHECK(run::parse_nccl_algorithms("ring") == std::vector<F>{F::Ring});
  CHECK(run::parse_nccl_algorithms("Ring,TREE") == std::vector<F>{F::Tree, F::Ring});
  CHECK(run::parse_nccl_algorithms("^nvls") == std::vector<F>{F::Tree, F::Ring, F::NvlsTree, F::Pat});
  CHECK(run::parse_nccl_algorithms("NVLSTree") == std::vector<F>{F::NvlsTree});
  CHECK(run::parse_nccl_algorithms("nvls,ring,nvls") == std::vector<F>{F::Ring, F::Nvls});
  CHECK(run::parse_nccl_algorithms("PAT") == std::vector<F>{F::Pat});
  CHECK_THROWS_WITH(run::parse_nccl_algorithms("collnetchain"),
                    Catch::Contains("collnetchain is one of NCCL's CollNet algorithms, which NCCL weighs only with "
                                    "NCCL_COLLNET_ENABLE=1"));
  CHECK_THROWS_WITH(run::parse_nccl_algorithms("ring,,tree"), Catch::Contains("found \"\" in \"ring,,tree\""));
  CHECK_THROWS_WITH(run::parse_nccl_algorithms("^ring,tree,nvls,nvlstree,pat"), Catch::Contains("leaves no algorithm"));
  CHECK_THROWS_AS(run::parse_nccl_algorithms("fast"), run::RequestError);
  // Leaving out one collsim does not model is harmless: NCCL_ALGO=^CollNetDirect keeps everything.
  CHECK(run::parse_nccl_algorithms("^collnetdirect,nvls") == std::vector<F>{F::Tree, F::Ring, F::NvlsTree, F::Pat});
}

TEST_CASE("NCCL's bandwidth caps: ring LL at llMaxBw, LL128 per channel, tree per channel", "[nccl][caps]") {
  sim::NcclFormulaInput in;
  in.family = topo::AlgoFamily::Ring;
  in.ranks = 8;
  in.channels = 2;
  in.size = Bytes{1} << 30;
  in.bus_bandwidth = Bandwidth{static_cast<std::uint64_t>(721.8e9 * 8)};
  in.arch = topo::GpuArch::Blackwell;
  const topo::ModelParams none;
  const auto time_us = [&](topo::Protocol p) {
    in.protocol = p;
    return static_cast<double>(sim::nccl_formula_time(in, none)->count()) * 1e-6;
  };
  // Ring LL on one Blackwell node: min(282, 721.8 x 0.5) = 282 GB/s busbw, x 8/14 algbw;
  // 6.6 + 14 x 0.6 us of latency.
  CHECK(time_us(topo::Protocol::LL) == Approx(15.0 + 1073741824.0 / (1000 * 282 * 8.0 / 14)).epsilon(1e-6));
  // Ring LL128: min(721.8 x 0.92, 2 channels x 40) = 80 GB/s; 14 + 14 x 1.9 us.
  CHECK(time_us(topo::Protocol::LL128) == Approx(40.6 + 1073741824.0 / (1000 * 80 * 8.0 / 14)).epsilon(1e-6));
  // Unknown GPUs: no caps (721.8 x 0.5 for LL).
  in.arch.reset();
  CHECK(time_us(topo::Protocol::LL) == Approx(15.0 + 1073741824.0 / (1000 * 360.9 * 8.0 / 14)).epsilon(1e-6));
  // Tree Simple on one Hopper node, 2 channels: min(721.8 x 0.92, 2 x 38.7) = 77.4 GB/s, x 1/2, times
  // the size correction 0.9 at 1 GiB (log2(2^30 / 64) = 24 is past the table: none).
  in.arch = topo::GpuArch::Hopper;
  in.family = topo::AlgoFamily::Tree;
  in.protocol = topo::Protocol::Simple;
  const double lat = 8.4 + 2 * (7 * 4.0);
  CHECK(static_cast<double>(sim::nccl_formula_time(in, none)->count()) * 1e-6 ==
        Approx(lat + 1073741824.0 / (1000 * 77.4 * 0.5)).epsilon(1e-6));
}
}  // namespace nccl_choice_test
