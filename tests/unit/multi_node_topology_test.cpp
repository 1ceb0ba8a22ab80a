// Multi-node fabrics (--nodes K) and the host of each GPU: the generated shape, its routes and
// hosts, its errors, and host_indices on generated and bundled topologies.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "topologies/generate.hpp"
#include "topologies/hosts.hpp"
#include "topologies/load_json.hpp"

// One namespace per test file: CI builds the tests as unity sources (.ci/run), where each file's
// helpers would otherwise meet the other files'.
namespace multi_node_topology_test {

using collsim::Bandwidth;
using collsim::Time;
using collsim::topo::LinkType;
using collsim::topo::NodeId;
using collsim::topo::NodeType;
using collsim::topo::Topology;
using collsim::topo::TopologyError;

namespace {

constexpr std::uint64_t GBps(std::uint64_t gigabytes_per_s) { return 8 * gigabytes_per_s * 1'000'000'000; }

collsim::topo::MultiNodeSpec spec(std::uint32_t gpus, std::uint32_t hosts) {
  collsim::topo::MultiNodeSpec s;
  s.gpus = gpus;
  s.hosts = hosts;
  s.link_bandwidth = Bandwidth{GBps(300)};
  s.link_latency = Time{500'000};
  s.net_bandwidth = Bandwidth{GBps(25)};
  s.net_latency = Time{2'000'000};
  return s;
}

}  // namespace

TEST_CASE("multi-node fabric (--nodes K): K hosts of N/K GPUs, each on its own switch, hosts joined by one network switch",
          "[topology][generate][multi-node]") {
  const Topology t = collsim::topo::generate_multi_node(spec(16, 4));
  CHECK(t.name() == "switch-16gpu-4node");
  REQUIRE(t.gpus().size() == 16);
  CHECK(t.nodes().size() == 16 + 4 + 1);  // GPUs, host switches, the network switch
  CHECK(t.links().size() == 2 * (16 + 4));
  for (std::uint32_t i = 0; i < 16; ++i) {
    const auto& gpu = t.node(t.gpus()[i]);
    CHECK(gpu.id == "gpu" + std::to_string(i));
    CHECK(gpu.host == "host" + std::to_string(i / 4));  // consecutive GPUs fill one host after another
    // A GPU's only link goes to its host's switch, at the link bandwidth.
    CHECK(t.out_bandwidth(t.gpus()[i]) == Bandwidth{GBps(300)});
  }
  const auto type_of = [&](std::string_view id) { return t.node(*t.find_node(id)).type; };
  CHECK(type_of("host0-switch") == NodeType::Switch);
  CHECK(type_of("host3-switch") == NodeType::Switch);
  CHECK(type_of("network") == NodeType::Switch);
  CHECK(t.node(*t.find_node("host2-switch")).host == "host2");
  CHECK(t.node(*t.find_node("network")).host.empty());

  // Inside a host: gpu -> host switch -> gpu, two nvswitch links of 500 ns.
  const auto inside = t.shortest_route(t.gpus()[0], t.gpus()[3]);
  REQUIRE(inside.size() == 2);
  for (auto l : inside) {
    CHECK(t.link(l).type == LinkType::NvSwitch);
    CHECK(t.link(l).latency == Time{500'000});
  }
  // Between hosts: gpu -> host0 switch -> network -> host1 switch -> gpu.
  const auto across = t.shortest_route(t.gpus()[3], t.gpus()[4]);
  REQUIRE(across.size() == 4);
  CHECK(t.link_label(across[0]) == "gpu3->host0-switch");
  CHECK(t.link_label(across[1]) == "host0-switch->network");
  CHECK(t.link_label(across[2]) == "network->host1-switch");
  CHECK(t.link_label(across[3]) == "host1-switch->gpu4");
  for (auto l : {across[1], across[2]}) {
    CHECK(t.link(l).type == LinkType::InfiniBand);
    CHECK(t.link(l).bandwidth == Bandwidth{GBps(25)});
    CHECK(t.link(l).latency == Time{2'000'000});
  }
}

TEST_CASE("multi-node fabric: --nodes 1 is the switch fabric with a host, and --nodes N puts one GPU on each host",
          "[topology][generate][multi-node]") {
  const Topology one = collsim::topo::generate_multi_node(spec(4, 1));
  CHECK(one.nodes().size() == 4 + 1);
  CHECK_FALSE(one.find_node("network").has_value());
  CHECK(one.shortest_route(one.gpus()[0], one.gpus()[3]).size() == 2);
  const Topology each = collsim::topo::generate_multi_node(spec(3, 3));
  CHECK(each.nodes().size() == 3 + 3 + 1);
  CHECK(each.shortest_route(each.gpus()[0], each.gpus()[2]).size() == 4);
}

TEST_CASE("multi-node fabric: --nodes K must divide the GPUs", "[topology][generate][multi-node][errors]") {
  CHECK_THROWS_WITH(collsim::topo::generate_multi_node(spec(10, 4)),
                    Catch::Contains("--gpus 10 is not a multiple of --nodes 4"));
  CHECK_THROWS_AS(collsim::topo::generate_multi_node(spec(10, 4)), TopologyError);
  CHECK_THROWS_AS(collsim::topo::generate_multi_node(spec(4, 8)), TopologyError);
  CHECK_THROWS_AS(collsim::topo::generate_multi_node(spec(4, 0)), TopologyError);
  CHECK_THROWS_AS(collsim::topo::generate_multi_node(spec(0, 1)), TopologyError);
}

TEST_CASE("host_indices numbers hosts by first appearance, unknown when a GPU has no host", "[topology][hosts]") {
  using collsim::topo::host_indices;
  const Topology t = collsim::topo::generate_multi_node(spec(6, 3));
  const std::vector<NodeId> gpus(t.gpus().begin(), t.gpus().end());
  CHECK(host_indices(t, gpus) == std::vector<std::uint32_t>{0, 0, 1, 1, 2, 2});
  const std::vector<NodeId> reversed(gpus.rbegin(), gpus.rend());  // host2's GPUs come first: index 0
  CHECK(host_indices(t, reversed) == std::vector<std::uint32_t>{0, 0, 1, 1, 2, 2});
  const std::vector<NodeId> mixed{gpus[0], gpus[2], gpus[1], gpus[4]};
  CHECK(host_indices(t, mixed) == std::vector<std::uint32_t>{0, 1, 0, 2});
  CHECK(host_indices(t, {}).empty());

  // The bundled two-node DGX names its hosts node0 and node1; the one-node DGX names none.
  const Topology two = collsim::topo::load_topology("dgx-a100-2node");
  const std::vector<NodeId> two_gpus(two.gpus().begin(), two.gpus().end());
  std::vector<std::uint32_t> expected(16, 0);
  std::fill(expected.begin() + 8, expected.end(), 1);
  CHECK(host_indices(two, two_gpus) == expected);
  const Topology one = collsim::topo::load_topology("dgx-a100");
  const std::vector<NodeId> one_gpus(one.gpus().begin(), one.gpus().end());
  CHECK(host_indices(one, one_gpus).empty());
  // A plain generated fabric has no hosts either.
  const Topology plain = collsim::topo::generate_fabric(collsim::topo::Fabric::Switch, 4, Bandwidth{GBps(25)}, Time{0});
  const std::vector<NodeId> plain_gpus(plain.gpus().begin(), plain.gpus().end());
  CHECK(host_indices(plain, plain_gpus).empty());
}
}  // namespace multi_node_topology_test
