// The normalised topology JSON (topologies/export.hpp, `collsim topo --format json`): it loads back
// as the same topology, whatever keys the file left out or gave. Found by tests/fuzz/topology_fuzz.
#include <catch2/catch.hpp>

#include <string>

#include "topologies/export.hpp"
#include "topologies/load_json.hpp"
#include "topologies/topology.hpp"

// One namespace per test file: CI builds the tests as unity sources (.ci/run), where each file's
// helpers would otherwise meet the other files'.
namespace topology_export_test {

using collsim::Bandwidth;
using collsim::topo::normalized_json;
using collsim::topo::parse_topology_json;
using collsim::topo::Topology;

TEST_CASE("normalised JSON of a file without a description, with a reduce_bandwidth, loads back equal",
          "[topology][export]") {
  // tests/fuzz/regressions/topology/: the normalised form wrote "description": "", which the loader
  // refuses, and dropped reduce_bandwidth, so the machine came back with its model's default rate.
  const std::string text = R"({"nodes": [{"id": "g0", "type": "gpu", "reduce_bandwidth": "100GB/s"},
                                          {"id": "g1", "type": "gpu"}],
                               "links": [{"from": "g0", "to": "g1", "type": "nvlink", "bandwidth": "25GB/s",
                                          "latency": "1us"}]})";
  const Topology t = parse_topology_json(text, "t.json", "t");
  const std::string once = normalized_json(t);
  const Topology again = parse_topology_json(once, "normalised", "other");
  CHECK(again.name() == "t");
  CHECK(again.description().empty());
  CHECK(again.node(0).reduce_bandwidth == Bandwidth{100'000'000'000 * 8});
  CHECK(again.node(1).reduce_bandwidth == Bandwidth{0});
  CHECK(normalized_json(again) == once);
}
}  // namespace topology_export_test
