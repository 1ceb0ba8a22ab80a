// Fuzzes the topology loader (topologies/load_json.cpp): a topology file is either loaded or refused
// with TopologyError. A loaded topology is used as a simulation uses it (routes between its GPUs,
// its links scaled by the params' efficiencies), and its normalised JSON (`collsim topo --format
// json`) loads again as the same machine and prints the same text.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include "topologies/export.hpp"
#include "topologies/load_json.hpp"
#include "topologies/topology.hpp"
#include "tests/fuzz/fuzz_support.hpp"

namespace {

using collsim::fuzz::must_accept;
using collsim::fuzz::require;
using namespace collsim::topo;

// Routes cost a graph search each; a few GPUs show what every search does.
constexpr std::size_t kMaxRoutes = 16;

void check_routes(const Topology& t) {
  const auto gpus = t.gpus();
  const NodeId from = gpus.front();
  for (std::size_t i = 1; i < std::min(gpus.size(), kMaxRoutes); ++i) {
    // The loader refuses GPUs that cannot reach each other, so every route exists.
    const auto route = must_accept<TopologyError>([&] { return t.shortest_route(from, gpus[i]); }, "shortest_route");
    require(!route.empty(), "a route between two GPUs has a link");
    NodeId at = from;
    for (LinkId l : route) {
      require(t.link(l).from == at, "a route's links join end to end");
      at = t.link(l).to;
    }
    require(at == gpus[i], "a route ends at its GPU");
  }
}

// What a protocol's efficiency leaves of each link, as the engine asks for it.
void check_scaled(const Topology& t) {
  PerClass<double> factor{};
  for (std::size_t c = 0; c < kLinkClasses; ++c) factor[c] = t.params().link_efficiency_or_default(static_cast<LinkClass>(c));
  const Topology scaled =
      must_accept<TopologyError>([&] { return t.with_bandwidth_factors(factor); }, "with_bandwidth_factors");
  require(scaled.links().size() == t.links().size(), "a scaled topology keeps its links");
  for (LinkId l = 0; l < t.links().size(); ++l)
    require(scaled.link(l).bandwidth.bits_per_s >= 1 && scaled.link(l).bandwidth <= t.link(l).bandwidth,
            "an efficiency of at most 1 leaves a link between 1 b/s and its bandwidth");
}

void check_normalised(const Topology& t) {
  const std::string once = normalized_json(t);
  const Topology again =
      must_accept<TopologyError>([&] { return parse_topology_json(once, "normalised", "fuzz"); }, "normalised JSON loads");
  require(again.name() == t.name() && again.description() == t.description(), "normalised JSON keeps the name");
  require(again.nodes().size() == t.nodes().size() && again.links().size() == t.links().size(),
          "normalised JSON keeps the nodes and links");
  for (NodeId n = 0; n < t.nodes().size(); ++n) {
    const Node &a = t.node(n), &b = again.node(n);
    require(a.id == b.id && a.type == b.type && a.model == b.model && a.host == b.host &&
                a.reduce_bandwidth == b.reduce_bandwidth,
            "normalised JSON keeps every node");
  }
  for (LinkId l = 0; l < t.links().size(); ++l) {
    const Link &a = t.link(l), &b = again.link(l);
    require(a.from == b.from && a.to == b.to && a.type == b.type && a.bandwidth == b.bandwidth &&
                a.latency == b.latency && a.duplex == b.duplex && a.resource == b.resource,
            "normalised JSON keeps every link");
  }
  require(again.params() == t.params(), "normalised JSON keeps the model parameters");
  require(normalized_json(again) == once, "normalised JSON is a fixed point");
}

}  // namespace

/// libFuzzer's entry point: the input as a topology file.
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const Topology t = parse_topology_json(collsim::fuzz::as_text(data, size), "fuzz", "fuzz");
    require(!t.gpus().empty(), "a loaded topology has a GPU");
    check_routes(t);
    check_scaled(t);
    check_normalised(t);
  } catch (const TopologyError&) {
  }
  return 0;
}
