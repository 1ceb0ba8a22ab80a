// CollNet all-reduce (algorithms/collnet_allreduce.hpp), the switch that reduces for it
// (topologies/sharp.hpp) and NCCL's CollNet Direct formula (sim/nccl_formula.hpp). Expected values
// by hand from the data path in the header and NCCL 2.30.7's ncclTopoTuneModel.
#include <catch2/catch.hpp>

#include "algorithms/collnet_allreduce.hpp"
#include "algorithms/host_grid.hpp"
#include "sim/nccl_formula.hpp"
#include "topologies/load_json.hpp"
#include "topologies/sharp.hpp"
#include "validation/symbolic_replay.hpp"

// One namespace per test file: CI builds the tests as unity sources (.ci/run), where each file's
// helpers would otherwise meet the other files'.
namespace algo_collnet_test {

using namespace collsim;
using sched::Collective;

namespace {

algo::Request request(sched::Rank n, sched::Rank hosts, Bytes size) {
  algo::Request r{Collective::AllReduce, n, size};
  if (hosts > 0) r.hosts = algo::equal_hosts(n, hosts);
  return r;
}

}  // namespace

TEST_CASE("collnet on 2 hosts of 4: S - P to the heads and back, P each way to the switch", "[algo][collnet]") {
  // S = 8 KiB, P = 2 KiB, one chunk per part: reduce-scatter (1), to the switch (2), back (3),
  // all-gather (4).
  const auto s = algo::build_collnet_allreduce(request(8, 2, 8192));
  CHECK(s.header.helpers == 1);
  CHECK(s.steps == 4);
  const auto sent = sched::bytes_sent_per_rank(s);
  const auto received = sched::bytes_received_per_rank(s);
  REQUIRE(sent.size() == 9);
  for (sched::Rank r = 0; r < 8; ++r) {
    INFO("rank " << r);
    CHECK(sent[r] == 6144 + 2048 + 6144);      // 3 parts to their heads, its part to the switch, its part to 3 peers
    CHECK(received[r] == 6144 + 2048 + 6144);
  }
  // The switch takes each part from both hosts and returns it to both: 2 S each way.
  CHECK(sent[8] == 2 * 8192);
  CHECK(received[8] == 2 * 8192);
  REQUIRE(s.phases.size() == 3);
  CHECK(s.phases[1].name == "reduce at the switch");
  CHECK_FALSE(validation::verify_symbolic(s));
}

TEST_CASE("collnet: one host is a direct all-reduce, one GPU per host all network", "[algo][collnet]") {
  const auto one = algo::build_collnet_allreduce(request(4, 0, 4096));
  CHECK(one.header.helpers == 0);
  CHECK(one.steps == 2);
  CHECK(sched::bytes_sent_per_rank(one) == std::vector<Bytes>(4, 2 * 3072));
  CHECK_FALSE(validation::verify_symbolic(one));
  const auto net = algo::build_collnet_allreduce(request(4, 4, 4096));
  CHECK(net.header.helpers == 1);
  CHECK(net.steps == 2);
  CHECK(sched::bytes_sent_per_rank(net) == std::vector<Bytes>{4096, 4096, 4096, 4096, 4 * 4096});
  CHECK_FALSE(validation::verify_symbolic(net));
  CHECK_FALSE(validation::verify_symbolic(algo::build_collnet_allreduce(request(9, 3, 1000003))));
}

TEST_CASE("sharp: only a switch that says so, between the hosts, reduces in the network", "[topology][collnet]") {
  // Two hosts of one GPU each under their own switch, the host switches joined by "ib".
  const auto topology = [](const std::string& s0, const std::string& ib) {
    return R"({"name": "t", "nodes": [{"id": "g0", "type": "gpu", "host": "a"}, {"id": "g1", "type": "gpu", "host": "b"},
        {"id": "s0", "type": "switch")" + s0 + R"(}, {"id": "s1", "type": "switch"},
        {"id": "ib", "type": "switch")" + ib + R"(}],
        "links": [{"from": "g0", "to": "s0", "type": "pcie", "bandwidth": "50GB/s", "latency": "1us"},
                  {"from": "g1", "to": "s1", "type": "pcie", "bandwidth": "50GB/s", "latency": "1us"},
                  {"from": "s0", "to": "ib", "type": "infiniband", "bandwidth": "50GB/s", "latency": "1us"},
                  {"from": "s1", "to": "ib", "type": "infiniband", "bandwidth": "50GB/s", "latency": "1us"}]})";
  };
  const auto pick = [&](const std::string& s0, const std::string& ib, std::string* why) {
    const auto t = topo::parse_topology_json(topology(s0, ib), "t.json", "t");
    topo::RouteCache routes(t);
    const std::vector<topo::NodeId> heads{*t.find_node("g0"), *t.find_node("g1")};
    const auto s = topo::sharp_switch(t, heads, routes, why);
    return s ? t.node(*s).id : std::string("none");
  };
  std::string why;
  CHECK(pick("", R"(, "sharp": true)", &why) == "ib");
  // s0 lies on the route too, but inside host a (reached over PCIe): a host's own switch would take
  // the other host's sums into the host.
  CHECK(pick(R"(, "sharp": true)", "", &why) == "none");
  CHECK(why == "no switch that says \"sharp\": true lies on the routes between the hosts of topology t");
  CHECK(pick("", "", &why) == "none");
  CHECK(why == "no switch of topology t says \"sharp\": true");
  std::string on_gpu = topology("", "");
  on_gpu.replace(on_gpu.find("\"host\": \"a\"}"), 12, "\"host\": \"a\", \"sharp\": true}");
  CHECK_THROWS_WITH(topo::parse_topology_json(on_gpu, "v.json", "v"), Catch::Contains("/nodes/0/sharp") &&
                                                                          Catch::Contains("expected the key on a switch node"));
}

TEST_CASE("NCCL's CollNet Direct formula, by hand", "[nccl][collnet]") {
  // 2 nodes of 8 H100: bwIntra 370.8 GB/s x 0.85 (Hopper), algbw half: 157.59 GB/s; latency
  // 2 x (3.7 + 7 x 0.4) + 31 = 44 us.
  sim::NcclFormulaInput in;
  in.collective = Collective::AllReduce;
  in.family = topo::AlgoFamily::CollNet;
  in.protocol = topo::Protocol::Simple;
  in.ranks = 16;
  in.nodes = 2;
  in.size = Bytes{1} << 30;
  in.intra_bandwidth = Bandwidth{static_cast<std::uint64_t>(370.8e9 * 8)};
  in.bus_bandwidth = in.intra_bandwidth;
  in.arch = topo::GpuArch::Hopper;
  const topo::ModelParams none;
  const auto t = sim::nccl_formula_time(in, none);
  REQUIRE(t);
  CHECK(static_cast<double>(t->count()) * 1e-6 == Approx(44.0 + 1073741824.0 / (1000 * 370.8 * 0.85 * 0.5)).margin(1e-6));
  in.nodes = 1;
  CHECK_FALSE(sim::nccl_formula_time(in, none));
}
}  // namespace algo_collnet_test
