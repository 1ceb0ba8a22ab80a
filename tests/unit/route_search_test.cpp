// topologies/route_search.hpp against the plain reference, Topology::dijkstra_route (Boost's
// Dijkstra over the whole topology): on random topologies, every node pair, the shortcut either
// declines or gives the reference's route, and shortest_route always equals the reference; on
// generated clusters, routes across hosts are found by the shortcut where they are unique and
// declined where spines tie.
#include <catch2/catch.hpp>

#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "topologies/cluster.hpp"
#include "topologies/generate.hpp"
#include "topologies/load_json.hpp"
#include "topologies/route_search.hpp"
#include "topologies/topology.hpp"

namespace route_search_test {

using namespace collsim::topo;
using collsim::Bandwidth;
using collsim::Time;

namespace {

// A random connected topology of `n` nodes: a spanning tree plus extra links, random types and
// latencies drawn from few values (so that routes of equal hops and latency, ties, are common).
Topology random_topology(std::mt19937_64& rng, std::size_t n) {
  constexpr NodeType kTypes[] = {NodeType::Gpu, NodeType::Gpu, NodeType::Switch, NodeType::Switch, NodeType::Cpu,
                                 NodeType::Nic};
  constexpr LinkType kLinks[] = {LinkType::NvLink, LinkType::NvSwitch, LinkType::Pcie, LinkType::InfiniBand};
  std::vector<Node> nodes(n);
  for (std::size_t i = 0; i < n; ++i) {
    nodes[i].id = "v" + std::to_string(i);
    nodes[i].type = i < 2 ? NodeType::Gpu : kTypes[rng() % std::size(kTypes)];
  }
  std::vector<LinkSpec> specs;
  std::set<std::pair<NodeId, NodeId>> pairs;
  const auto add = [&](NodeId a, NodeId b) {
    if (a == b || !pairs.insert(std::minmax(a, b)).second) return;
    // NVLink-class links only, half the time: GPUs may then be passed on the way.
    const LinkType type = kLinks[rng() % std::size(kLinks)];
    specs.push_back(LinkSpec{a, b, type, Bandwidth{8'000'000'000}, Time{static_cast<std::int64_t>(1000 * (1 + rng() % 3))},
                             Duplex::Full});
  };
  for (NodeId v = 1; v < n; ++v) add(static_cast<NodeId>(rng() % v), v);
  const std::size_t extra = rng() % (2 * n);
  for (std::size_t k = 0; k < extra; ++k) add(static_cast<NodeId>(rng() % n), static_cast<NodeId>(rng() % n));
  // Every link NVLink-class where the rule would leave GPUs unroutable: tried until the
  // constructor accepts (it refuses GPUs without a route between them).
  try {
    return Topology("random", "random", nodes, specs);
  } catch (const TopologyError&) {
    for (auto& s : specs) s.type = LinkType::NvLink;
    return Topology("random", "random", nodes, specs);
  }
}

}  // namespace

TEST_CASE("the two-ended route search gives the Dijkstra's route or declines, on random topologies", "[topology][routes]") {
  std::mt19937_64 rng(29);
  int found = 0, declined = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const Topology t = random_topology(rng, 2 + rng() % 14);
    INFO("trial " << trial);
    for (NodeId a = 0; a < t.nodes().size(); ++a)
      for (NodeId b = 0; b < t.nodes().size(); ++b) {
        if (a == b) continue;
        std::vector<LinkId> want;
        try {
          want = t.dijkstra_route(a, b);
        } catch (const TopologyError&) {
          // No route (a non-GPU destination behind GPUs entered over PCIe): neither finds one.
          CHECK_FALSE(unique_shortest_route(t, a, b, 1u << 20).has_value());
          CHECK_THROWS_AS(t.shortest_route(a, b), TopologyError);
          continue;
        }
        INFO("from " << a << " to " << b);
        const auto got = unique_shortest_route(t, a, b, 1u << 20);
        if (got) {
          CHECK(*got == want);
          ++found;
        } else {
          ++declined;
        }
        CHECK(t.shortest_route(a, b) == want);
      }
  }
  // Both ways taken many times: the test compares something.
  CHECK(found > 10000);
  CHECK(declined > 1000);
}

TEST_CASE("the two-ended route search finds unique routes across hosts and declines where spines tie",
          "[topology][routes][cluster]") {
  // 64 hosts of 8 GPUs behind one network switch: GPU -> host switch -> network switch -> host
  // switch -> GPU is the only 4-hop route, found after visiting the two hosts' switches' links.
  MultiNodeSpec hosts;
  hosts.gpus = 512;
  hosts.hosts = 64;
  hosts.link_bandwidth = hosts.net_bandwidth = Bandwidth{400'000'000'000};
  hosts.link_latency = hosts.net_latency = Time{1'000'000};
  const Topology nodes = generate_multi_node(hosts);
  const NodeId a = nodes.gpus()[3], b = nodes.gpus()[8 * 40 + 5];
  const auto across = unique_shortest_route(nodes, a, b, 64);
  REQUIRE(across.has_value());
  CHECK(across->size() == 4);
  CHECK(*across == nodes.dijkstra_route(a, b));

  // A rail-optimized DGX H100 cluster with more hosts than a leaf holds: GPU 0 of host 0 to GPU 0
  // of host 40 crosses a spine, any of the rail's spines at equal cost: declined (the Dijkstra's
  // tie-breaking, and then ECMP, decide); GPU 0 of host 0 to GPU 0 of host 1 stays under one leaf.
  ClusterSpec spec;
  spec.nodes = 64;
  spec.fabric = ClusterFabric::Rail;
  const Topology rail = generate_cluster(load_topology("dgx-h100"), spec);
  const auto gpu = [&](std::size_t host, std::size_t i) { return rail.gpus()[host * 8 + i]; };
  CHECK_FALSE(unique_shortest_route(rail, gpu(0, 0), gpu(40, 0), 1u << 20).has_value());
  const auto leaf = unique_shortest_route(rail, gpu(0, 0), gpu(1, 0), 1u << 20);
  REQUIRE(leaf.has_value());
  CHECK(*leaf == rail.dijkstra_route(gpu(0, 0), gpu(1, 0)));
  // The budget: a search that would pass it declines.
  CHECK_FALSE(unique_shortest_route(nodes, a, b, 3).has_value());
}

}  // namespace route_search_test
