// topologies/reachability.hpp against the plain reference: one search per GPU pair under
// Topology::shortest_route's rule, on random small topologies; and the loader's use of it.
#include <catch2/catch.hpp>

#include <algorithm>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "topologies/reachability.hpp"
#include "topologies/topology.hpp"

// One namespace per test file: CI builds the tests as unity sources (.ci/run), where each file's
// helpers would otherwise meet the other files'.
namespace reachability_test {

using namespace collsim::topo;

namespace {

// The reference: whether a route from `from` to `to` exists when every node but `to` may be
// entered over NVLink-class links only if it is a GPU (Topology::shortest_route's rule), by a
// breadth-first search over the directed links.
bool routes(const std::vector<Node>& nodes, const std::vector<Link>& links, NodeId from, NodeId to) {
  std::vector<char> seen(nodes.size(), 0);
  std::vector<NodeId> frontier{from};
  seen[from] = 1;
  for (std::size_t k = 0; k < frontier.size(); ++k)
    for (const Link& l : links) {
      if (l.from != frontier[k] || seen[l.to]) continue;
      if (l.to != to && nodes[l.to].type == NodeType::Gpu && link_class(l.type) != LinkClass::NvLink) continue;
      seen[l.to] = 1;
      frontier.push_back(l.to);
    }
  return seen[to] != 0;
}

// The first GPU pair in node order without a route, by the reference.
std::optional<std::pair<NodeId, NodeId>> reference(const std::vector<Node>& nodes, const std::vector<Link>& links) {
  for (NodeId a = 0; a < nodes.size(); ++a)
    for (NodeId b = 0; b < nodes.size(); ++b)
      if (a != b && nodes[a].type == NodeType::Gpu && nodes[b].type == NodeType::Gpu && !routes(nodes, links, a, b))
        return std::pair{a, b};
  return std::nullopt;
}

}  // namespace

TEST_CASE("unroutable_gpu_pair finds the reference's first pair on random topologies", "[topology][routes]") {
  std::mt19937_64 rng(11);
  constexpr NodeType kTypes[] = {NodeType::Gpu, NodeType::Gpu, NodeType::Switch, NodeType::Cpu, NodeType::Nic};
  constexpr LinkType kLinks[] = {LinkType::NvLink, LinkType::NvSwitch, LinkType::Pcie, LinkType::InfiniBand,
                                 LinkType::UPI, LinkType::XGMI};
  int routable = 0, unroutable = 0, accepted = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const std::size_t n = 2 + rng() % 8;
    std::vector<Node> nodes(n);
    for (std::size_t i = 0; i < n; ++i) {
      nodes[i].id = "v" + std::to_string(i);
      nodes[i].type = i == 0 ? NodeType::Gpu : kTypes[rng() % std::size(kTypes)];
    }
    std::vector<LinkSpec> specs;
    std::vector<Link> links;  // both directions, as Topology stores them
    std::set<std::pair<NodeId, NodeId>> pairs;
    const std::size_t tries = rng() % (2 * n + 1);
    for (std::size_t k = 0; k < tries; ++k) {
      const auto a = static_cast<NodeId>(rng() % n), b = static_cast<NodeId>(rng() % n);
      if (a == b || !pairs.insert(std::minmax(a, b)).second) continue;
      const LinkType type = kLinks[rng() % std::size(kLinks)];
      specs.push_back(LinkSpec{a, b, type, collsim::Bandwidth{8'000'000'000}, collsim::Time{1000}, Duplex::Full});
      links.push_back(Link{a, b, type, collsim::Bandwidth{8'000'000'000}, collsim::Time{1000}, Duplex::Full, 0});
      links.push_back(Link{b, a, type, collsim::Bandwidth{8'000'000'000}, collsim::Time{1000}, Duplex::Full, 0});
    }
    const auto want = reference(nodes, links);
    INFO("trial " << trial);
    REQUIRE(unroutable_gpu_pair(nodes, links) == want);
    (want ? unroutable : routable) += 1;
    if (want) {
      CHECK_THROWS_AS(Topology("t", "", nodes, specs), TopologyError);
      continue;
    }
    // Accepted: the router finds every pair's route, and it obeys the rule the check assumed.
    const Topology t("t", "", nodes, specs);
    ++accepted;
    for (NodeId a : t.gpus())
      for (NodeId b : t.gpus()) {
        const auto route = t.shortest_route(a, b);
        for (std::size_t i = 0; i + 1 < route.size(); ++i) {
          const Link& l = t.link(route[i]);
          CHECK((t.node(l.to).type != NodeType::Gpu || link_class(l.type) == LinkClass::NvLink));
        }
      }
  }
  // Both outcomes come up often enough for the comparison to mean something.
  CHECK(routable > 300);
  CHECK(unroutable > 300);
  CHECK(accepted == routable);
}

TEST_CASE("a cluster's GPUs all route: one search per NVLink island, each ending at the fabric", "[topology][routes]") {
  // Hand-built: 64 hosts of 2 GPUs on an NVLink pair, each GPU on its own PCIe NIC, all NICs on
  // one switch. Every GPU pair routes (through the NICs and switch, entering the destination
  // last), so there is no pair to name.
  std::vector<Node> nodes;
  std::vector<Link> links;
  const auto add = [&](std::string id, NodeType type) {
    nodes.push_back(Node{});
    nodes.back().id = std::move(id);
    nodes.back().type = type;
    return static_cast<NodeId>(nodes.size() - 1);
  };
  const auto join = [&](NodeId a, NodeId b, LinkType type) {
    links.push_back(Link{a, b, type, collsim::Bandwidth{1}, collsim::Time{0}, Duplex::Full, 0});
    links.push_back(Link{b, a, type, collsim::Bandwidth{1}, collsim::Time{0}, Duplex::Full, 0});
  };
  const NodeId sw = add("switch", NodeType::Switch);
  for (int h = 0; h < 64; ++h) {
    NodeId gpu[2];
    for (int g = 0; g < 2; ++g) {
      gpu[g] = add("h" + std::to_string(h) + "g" + std::to_string(g), NodeType::Gpu);
      const NodeId nic = add("h" + std::to_string(h) + "n" + std::to_string(g), NodeType::Nic);
      join(gpu[g], nic, LinkType::Pcie);
      join(nic, sw, LinkType::InfiniBand);
    }
    join(gpu[0], gpu[1], LinkType::NvLink);
  }
  CHECK_FALSE(unroutable_gpu_pair(nodes, links).has_value());
  // Host 0's g1 loses its NIC and its NVLink, and hangs off g0 by PCIe: g0 and g1 still reach
  // each other directly, but nothing else routes to or from g1, which would enter or leave
  // through g0 over PCIe.
  links.erase(std::remove_if(links.begin(), links.end(),
                             [&](const Link& l) {
                               return (nodes[l.from].id == "h0g1" && nodes[l.to].id == "h0n1") ||
                                      (nodes[l.from].id == "h0n1" && nodes[l.to].id == "h0g1") ||
                                      (nodes[l.from].id == "h0g0" && nodes[l.to].id == "h0g1") ||
                                      (nodes[l.from].id == "h0g1" && nodes[l.to].id == "h0g0");
                             }),
              links.end());
  join(1, 3, LinkType::Pcie);  // h0g0 (node 1) to h0g1 (node 3)
  REQUIRE(nodes[1].id == "h0g0");
  REQUIRE(nodes[3].id == "h0g1");
  // In node order the first source without a route everywhere is h0g1 (node 3), and its first
  // unreachable GPU h1g0 (node 5).
  const auto pair = unroutable_gpu_pair(nodes, links);
  REQUIRE(pair.has_value());
  CHECK(nodes[pair->first].id == "h0g1");
  CHECK(nodes[pair->second].id == "h1g0");
}

}  // namespace reachability_test
