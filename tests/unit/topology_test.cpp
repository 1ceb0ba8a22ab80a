// Topologies: the JSON loader and its error messages, the bundled files, generators and routes.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "topologies/bundled.hpp"
#include "topologies/generate.hpp"
#include "topologies/load_json.hpp"
#include "topologies/routes.hpp"
#include "topologies/topology.hpp"

// One namespace per test file: CI builds the tests as unity sources (.ci/run), where each file's
// helpers would otherwise meet the other files'.
namespace topology_test {

using collsim::Bandwidth;
using collsim::Time;
using collsim::topo::Duplex;
using collsim::topo::Fabric;
using collsim::topo::LinkId;
using collsim::topo::NodeId;
using collsim::topo::Topology;
using collsim::topo::TopologyError;
using Catch::Contains;
using nlohmann::json;

namespace {

Topology parse(std::string_view text) { return collsim::topo::parse_topology_json(text, "t.json", "t"); }

constexpr std::string_view kTwoGpus = R"([{"id": "a", "type": "gpu"}, {"id": "b", "type": "gpu"}])";
constexpr std::string_view kGoodLink =
    R"({"from": "a", "to": "b", "type": "nvlink", "bandwidth": "25GB/s", "latency": "1us"})";

// A document with the given nodes and links arrays (JSON text).
std::string doc(std::string_view nodes, std::string_view links) {
  return std::string(R"({"nodes": )") + std::string(nodes) + R"(, "links": )" + std::string(links) + "}";
}

// Two GPUs "a" and "b" joined by `link`.
std::string doc_with_link(std::string_view link) { return doc(kTwoGpus, "[" + std::string(link) + "]"); }

// Checks that parsing `text` throws a TopologyError naming the file, the JSON path and what was found.
void check_error(const std::string& text, const std::string& path, const std::string& found) {
  INFO("document: " << text);
  CHECK_THROWS_AS(parse(text), TopologyError);
  CHECK_THROWS_WITH(parse(text), Contains("t.json") && Contains(path) && Contains(found));
}

NodeId node_id(const Topology& t, std::string_view id) {
  const auto n = t.find_node(id);
  REQUIRE(n.has_value());
  return *n;
}

// "x->y" labels of a route, for readable comparisons.
std::vector<std::string> labels(const Topology& t, const std::vector<LinkId>& route) {
  std::vector<std::string> out;
  for (LinkId l : route) out.push_back(t.link_label(l));
  return out;
}

json read_schema() {
  std::ifstream in(COLLSIM_SOURCE_DIR "/topologies/topology.schema.json");
  REQUIRE(in.good());
  return json::parse(in);
}

std::set<std::string> property_names(const json& object_schema) {
  std::set<std::string> out;
  for (const auto& [key, value] : object_schema.at("properties").items()) out.insert(key);
  return out;
}

// A valid value for a node or link property, derived from its schema.
json sample_value(const std::string& key, const json& prop) {
  if (key == "id" || key == "from") return "a";
  if (key == "to") return "b";
  if (key == "model") return "H100-SXM5-80GB";  // a GPU's model must be one collsim knows
  if (prop.contains("enum")) return prop["enum"].front();
  if (prop.contains("oneOf")) {
    for (const auto& alt : prop["oneOf"])
      if (alt.value("type", "") == "number") return 1.0;
  }
  return "some-" + key;
}

constexpr std::uint64_t GBps(std::uint64_t gigabytes_per_s) { return 8 * gigabytes_per_s * 1'000'000'000; }

}  // namespace

TEST_CASE("loader errors name the file, the JSON path and what was found", "[topology][errors]") {
  SECTION("unknown node in a link") {
    check_error(doc_with_link(R"({"from": "a", "to": "c", "type": "nvlink", "bandwidth": "25GB/s", "latency": "1us"})"),
                "/links/0/to", "\"c\"");
  }
  SECTION("duplicate node id") {
    check_error(doc(R"([{"id": "a", "type": "gpu"}, {"id": "a", "type": "gpu"}])", "[]"), "/nodes/1/id", "\"a\"");
  }
  SECTION("zero bandwidth") {
    check_error(doc_with_link(R"({"from": "a", "to": "b", "type": "nvlink", "bandwidth": "0GB/s", "latency": "1us"})"),
                "/links/0/bandwidth", "\"0GB/s\"");
    check_error(doc_with_link(R"({"from": "a", "to": "b", "type": "nvlink", "bandwidth": 0, "latency": "1us"})"),
                "/links/0/bandwidth", "found 0");
  }
  SECTION("negative bandwidth") {
    check_error(doc_with_link(R"({"from": "a", "to": "b", "type": "nvlink", "bandwidth": "-1GB/s", "latency": "1us"})"),
                "/links/0/bandwidth", "\"-1GB/s\"");
    check_error(doc_with_link(R"({"from": "a", "to": "b", "type": "nvlink", "bandwidth": -5, "latency": "1us"})"),
                "/links/0/bandwidth", "found -5");
  }
  SECTION("NaN-like bandwidth") {
    check_error(doc_with_link(R"({"from": "a", "to": "b", "type": "nvlink", "bandwidth": "nanGB/s", "latency": "1us"})"),
                "/links/0/bandwidth", "\"nanGB/s\"");
  }
  SECTION("negative latency") {
    check_error(doc_with_link(R"({"from": "a", "to": "b", "type": "nvlink", "bandwidth": "25GB/s", "latency": "-1us"})"),
                "/links/0/latency", "\"-1us\"");
    check_error(doc_with_link(R"({"from": "a", "to": "b", "type": "nvlink", "bandwidth": "25GB/s", "latency": -1e-6})"),
                "/links/0/latency", "found -1e-06");
  }
  SECTION("latency without a unit") {
    check_error(doc_with_link(R"({"from": "a", "to": "b", "type": "nvlink", "bandwidth": "25GB/s", "latency": "5"})"),
                "/links/0/latency", "\"5\"");
  }
  SECTION("unknown keys") {
    check_error(R"({"nodes": [{"id": "a", "type": "gpu"}], "links": [], "colour": "red"})", "/colour",
                "\"colour\"");
    check_error(doc(R"([{"id": "a", "type": "gpu", "colour": "red"}])", "[]"), "/nodes/0/colour", "\"colour\"");
    check_error(doc_with_link(
                    R"({"from": "a", "to": "b", "type": "nvlink", "bandwidth": "25GB/s", "latency": "1us", "colour": 1})"),
                "/links/0/colour", "\"colour\"");
  }
  SECTION("wrong types") {
    check_error(R"({"nodes": {"a": "gpu"}, "links": []})", "/nodes", R"(found {"a":"gpu"})");
    check_error(R"({"nodes": [{"id": "a", "type": "gpu"}], "links": 3})", "/links", "found 3");
    check_error(doc_with_link(R"({"from": "a", "to": "b", "type": "nvlink", "bandwidth": true, "latency": "1us"})"),
                "/links/0/bandwidth", "found true");
    check_error(doc_with_link(R"({"from": "a", "to": "b", "type": "nvlink", "bandwidth": "25GB/s", "latency": null})"),
                "/links/0/latency", "found null");
    check_error(doc(R"([{"id": 7, "type": "gpu"}])", "[]"), "/nodes/0/id", "found 7");
    check_error(R"([1, 2])", "/", "found [1,2]");
  }
  SECTION("missing keys") {
    check_error(R"({"links": []})", "/", "\"nodes\"");
    check_error(doc(R"([{"id": "a"}])", "[]"), "/nodes/0", "\"type\"");
    check_error(doc_with_link(R"({"from": "a", "to": "b", "type": "nvlink", "latency": "1us"})"), "/links/0",
                "\"bandwidth\"");
  }
  SECTION("unknown node type") {
    check_error(doc(R"([{"id": "a", "type": "tpu"}])", "[]"), "/nodes/0/type", "\"tpu\"");
  }
  SECTION("unknown link type") {
    check_error(doc_with_link(R"({"from": "a", "to": "b", "type": "warp", "bandwidth": "25GB/s", "latency": "1us"})"),
                "/links/0/type", "\"warp\"");
  }
  SECTION("bad duplex") {
    check_error(doc_with_link(
                    R"({"from": "a", "to": "b", "type": "pcie", "bandwidth": "25GB/s", "latency": "1us", "duplex": "both"})"),
                "/links/0/duplex", "\"both\"");
    check_error(doc_with_link(
                    R"({"from": "a", "to": "b", "type": "pcie", "bandwidth": "25GB/s", "latency": "1us", "duplex": 2})"),
                "/links/0/duplex", "found 2");
  }
  SECTION("link from a node to itself") {
    check_error(doc(kTwoGpus, R"([{"from": "a", "to": "b", "type": "nvlink", "bandwidth": "25GB/s", "latency": "1us"},
                                  {"from": "a", "to": "a", "type": "nvlink", "bandwidth": "25GB/s", "latency": "1us"}])"),
                "/links/1", "\"a\" to itself");
  }
  SECTION("two links between the same pair") {
    check_error(doc(kTwoGpus, R"([{"from": "a", "to": "b", "type": "nvlink", "bandwidth": "25GB/s", "latency": "1us"},
                                  {"from": "b", "to": "a", "type": "nvlink", "bandwidth": "25GB/s", "latency": "1us"}])"),
                "/links/1", "between \"b\" and \"a\"");
  }
  SECTION("no GPU") {
    check_error(doc(R"([{"id": "s", "type": "switch"}, {"id": "c", "type": "cpu"}])",
                    R"([{"from": "s", "to": "c", "type": "pcie", "bandwidth": "25GB/s", "latency": "1us"}])"),
                "/nodes", "no node of type \"gpu\"");
    check_error(doc("[]", "[]"), "/nodes", "no node of type \"gpu\"");
  }
  SECTION("GPUs that cannot reach each other") {
    check_error(doc(R"([{"id": "a", "type": "gpu"}, {"id": "b", "type": "gpu"},
                        {"id": "c", "type": "gpu"}, {"id": "d", "type": "gpu"}])",
                    R"([{"from": "a", "to": "b", "type": "nvlink", "bandwidth": "25GB/s", "latency": "1us"},
                        {"from": "c", "to": "d", "type": "nvlink", "bandwidth": "25GB/s", "latency": "1us"}])"),
                "/links", "\"c\" cannot reach GPU \"a\"");
    check_error(doc(kTwoGpus, "[]"), "/links", "\"b\" cannot reach GPU \"a\"");
  }
  SECTION("GPUs joined only through another GPU's PCIe link") {
    // Hand-derived: a-b and b-c are PCIe, so a route from a to c would enter b over PCIe, which
    // Topology::shortest_route never takes (NCCL passes a GPU only over NVLink). The fuzzer's
    // case: a second node's GPU with only its NVSwitch link, the NIC link moved to another GPU.
    check_error(doc(R"([{"id": "a", "type": "gpu"}, {"id": "b", "type": "gpu"}, {"id": "c", "type": "gpu"}])",
                    R"([{"from": "a", "to": "b", "type": "pcie", "bandwidth": "25GB/s", "latency": "1us"},
                        {"from": "b", "to": "c", "type": "pcie", "bandwidth": "25GB/s", "latency": "1us"}])"),
                "/links", "GPU \"a\" cannot reach GPU \"c\": every path of links between them passes another GPU");
    // One PCIe link in the chain is enough: c to a enters b over it.
    check_error(doc(R"([{"id": "a", "type": "gpu"}, {"id": "b", "type": "gpu"}, {"id": "c", "type": "gpu"}])",
                    R"([{"from": "a", "to": "b", "type": "nvlink", "bandwidth": "25GB/s", "latency": "1us"},
                        {"from": "b", "to": "c", "type": "pcie", "bandwidth": "25GB/s", "latency": "1us"}])"),
                "/links", "GPU \"c\" cannot reach GPU \"a\"");
    // Over NVLink the same chain routes: b passes the data on.
    CHECK_NOTHROW(parse(doc(R"([{"id": "a", "type": "gpu"}, {"id": "b", "type": "gpu"}, {"id": "c", "type": "gpu"}])",
                            R"([{"from": "a", "to": "b", "type": "nvlink", "bandwidth": "25GB/s", "latency": "1us"},
                                {"from": "b", "to": "c", "type": "nvlink", "bandwidth": "25GB/s", "latency": "1us"}])")));
  }
}

TEST_CASE("invalid JSON is reported with its line and column", "[topology][errors]") {
  const std::string text = "{\n"
                           "  \"nodes\": []\n"
                           "  \"links\": []\n"
                           "}\n";
  CHECK_THROWS_AS(parse(text), TopologyError);
  CHECK_THROWS_WITH(parse(text), Contains("t.json:3:") && Contains("invalid JSON"));
  CHECK_THROWS_WITH(parse("{\"nodes\": [,]}"), Contains("t.json:1:12:"));
  CHECK_THROWS_WITH(parse(""), Contains("t.json:1:") && Contains("invalid JSON"));
}

TEST_CASE("missing files and unknown topology names", "[topology][errors]") {
  const std::string missing = "/nonexistent-collsim-dir/missing-topology.json";
  CHECK_THROWS_AS(collsim::topo::load_topology_file(missing), TopologyError);
  CHECK_THROWS_WITH(collsim::topo::load_topology_file(missing), Contains(missing));

  CHECK_THROWS_AS(collsim::topo::load_topology("no-such-topology"), TopologyError);
  CHECK_THROWS_WITH(collsim::topo::load_topology("no-such-topology"), Contains("no-such-topology"));
  REQUIRE_FALSE(collsim::topo::bundled_topology_names().empty());
  for (std::string_view name : collsim::topo::bundled_topology_names()) {
    INFO("bundled name " << name);
    CHECK_THROWS_WITH(collsim::topo::load_topology("no-such-topology"), Contains(std::string(name)));
  }
}

TEST_CASE("bundled topologies load, with the GPU counts and bandwidths they describe", "[topology][bundled]") {
  struct Expected {
    std::size_t gpus;
    std::uint64_t out_bits_per_s;  ///< per GPU, summed over its links
  };
  const std::map<std::string, Expected, std::less<>> expected{
      {"ring8-nvlink", {8, 2 * GBps(25)}},
      {"dgx-a100", {8, GBps(300)}},
      {"dgx-h100", {8, GBps(450)}},
      {"pcie-4gpu", {4, 8ull * 31'500'000'000}},
      {"dgx-a100-2node", {16, GBps(300) + 8ull * 31'500'000'000}},  // NVSwitch plus the PCIe link to its NIC
      {"l40s-pcie", {4, 8ull * 31'500'000'000}},                      // one PCIe Gen4 x16 link each
      {"rtx4090-pcie", {4, 8ull * 31'500'000'000}},                   // one PCIe Gen4 x16 link each
      {"dgx-h100-2node-ib400", {16, GBps(450) + GBps(63)}},           // NVSwitch plus PCIe Gen5 x16 to its NIC
      {"dgx-h100-4node-ib400", {32, GBps(450) + GBps(63)}},
      {"hgx-h200", {8, GBps(450)}},      // H200 datasheet: NVLink 4, 18 x 25 GB/s
      {"gb200-nvl72", {72, GBps(900)}},  // GB200 NVL72 datasheet: 18 NVLink 5 links x 50 GB/s
      {"rtx4090-pcie-8gpu-2socket", {8, 31'500'000'000ull * 8}},  // one PCIe Gen4 x16 link each (PCI-SIG)
      {"h100-pcie-nvlbridge", {4, GBps(300) + GBps(63)}},  // 12 bridged NVLink 4 links + PCIe Gen5 x16
  };
  std::set<std::string, std::less<>> seen;
  for (const auto& b : collsim::topo::bundled_topologies()) {
    INFO("bundled topology " << b.name);
    seen.emplace(b.name);
    const Topology t = collsim::topo::load_topology(b.name);
    const Topology from_text = parse(b.text);
    CHECK(t.name() == b.name);
    CHECK_FALSE(t.description().empty());
    CHECK(from_text.links().size() == t.links().size());
    REQUIRE_FALSE(t.gpus().empty());
    if (auto it = expected.find(b.name); it != expected.end()) {
      CHECK(t.gpus().size() == it->second.gpus);
      for (NodeId gpu : t.gpus()) {
        INFO("GPU " << t.node(gpu).id);
        CHECK(t.out_bandwidth(gpu) == Bandwidth{it->second.out_bits_per_s});
      }
    }
  }
  for (const auto& [name, e] : expected) {
    INFO("expected bundled topology " << name);
    CHECK(seen.contains(name));
  }
  // Names are sorted and also load with ".json".
  const auto names = collsim::topo::bundled_topology_names();
  CHECK(std::is_sorted(names.begin(), names.end()));
  CHECK(collsim::topo::load_topology("dgx-a100.json").gpus().size() == 8);
}

TEST_CASE("the schema lists every key the bundled files use, and the loader accepts every key it lists",
          "[topology][schema]") {
  const json schema = read_schema();
  const std::set<std::string> top_keys = property_names(schema);
  const json& node_schema = schema.at("properties").at("nodes").at("items");
  const json& link_schema = schema.at("properties").at("links").at("items");
  const std::set<std::string> node_keys = property_names(node_schema);
  const std::set<std::string> link_keys = property_names(link_schema);

  for (const auto& b : collsim::topo::bundled_topologies()) {
    INFO("bundled topology " << b.name);
    const json d = json::parse(b.text);
    for (const auto& [key, value] : d.items()) CHECK(top_keys.contains(key));
    for (const auto& n : d.at("nodes"))
      for (const auto& [key, value] : n.items()) CHECK(node_keys.contains(key));
    for (const auto& l : d.at("links"))
      for (const auto& [key, value] : l.items()) CHECK(link_keys.contains(key));
  }

  // One document that uses every property the schema lists (but "cluster", the other form, below).
  json d = json::object();
  for (const auto& key : top_keys)
    if (key != "cluster") d[key] = "some-" + key;
  json a = json::object();
  json b = json::object();
  for (const auto& [key, prop] : node_schema.at("properties").items()) {
    a[key] = sample_value(key, prop);
    b[key] = sample_value(key, prop);
  }
  b["id"] = "b";
  // "nvls" and "sharp" belong on a switch (a GPU with them is refused): a third node, the switch,
  // carries them; "vendor" belongs on a cpu, a fourth node.
  for (const char* key : {"nvls", "sharp", "vendor"}) {
    REQUIRE(a.contains(key));
    a.erase(key);
    b.erase(key);
  }
  a["p2p"] = b["p2p"] = false;
  d["p2p_level"] = "sys";
  d["routing"] = "single";
  const json sw{{"id", "s"}, {"type", "switch"}, {"nvls", true}, {"sharp", true}};
  const json cpu{{"id", "c"}, {"type", "cpu"}, {"vendor", "amd"}};
  json link = json::object();
  for (const auto& [key, prop] : link_schema.at("properties").items()) link[key] = sample_value(key, prop);
  d["nodes"] = json::array({a, b, sw, cpu});
  d["links"] = json::array({link});
  d["params"] = json{{"protocol", "auto"}, {"channels", 2}};  // an object (params.schema.json)
  INFO("document: " << d.dump());
  REQUIRE_NOTHROW(parse(d.dump()));
  const Topology t = parse(d.dump());
  CHECK(t.name() == "some-name");
  CHECK(t.description() == "some-description");
  CHECK(t.node(0).model == "H100-SXM5-80GB");
  CHECK(t.node(0).host == "some-host");
  CHECK(t.params().channels == 2u);
  CHECK(t.links().size() == 2);

  // Every enumerated value in the schema is known to the loader.
  for (const auto& v : node_schema.at("properties").at("type").at("enum")) {
    INFO("node type " << v);
    CHECK(collsim::topo::parse_node_type(v.get<std::string>()).has_value());
  }
  for (const auto& v : link_schema.at("properties").at("type").at("enum")) {
    INFO("link type " << v);
    CHECK(collsim::topo::parse_link_type(v.get<std::string>()).has_value());
  }
  CHECK(t.p2p_level() == collsim::topo::P2pLevel::Sys);
  CHECK(t.routing() == collsim::topo::Routing::Single);
  for (const auto& v : schema.at("properties").at("routing").at("enum")) {
    INFO("routing " << v);
    CHECK(collsim::topo::kRoutingNames.parse(v.get<std::string>()).has_value());
  }
  CHECK_FALSE(t.node(0).p2p);
  CHECK(t.node(3).vendor == collsim::topo::CpuVendor::Amd);
  for (const auto& v : schema.at("properties").at("p2p_level").at("enum")) {
    INFO("p2p level " << v);
    CHECK(collsim::topo::kP2pLevelNames.parse(v.get<std::string>()).has_value());
  }
  for (const auto& v : node_schema.at("properties").at("vendor").at("enum")) {
    INFO("cpu vendor " << v);
    CHECK(collsim::topo::kCpuVendorNames.parse(v.get<std::string>()).has_value());
  }
  for (const auto& v : link_schema.at("properties").at("duplex").at("enum")) {
    INFO("duplex " << v);
    json l = link;
    l["duplex"] = v;
    json dd = d;
    dd["links"] = json::array({l});
    CHECK_NOTHROW(parse(dd.dump()));
  }
}

TEST_CASE("numbers in SI units equal the strings with units", "[topology][units]") {
  const Topology with_numbers =
      parse(doc_with_link(R"({"from": "a", "to": "b", "type": "nvlink", "bandwidth": 25e9, "latency": 1e-6})"));
  const Topology with_strings = parse(doc_with_link(kGoodLink));
  REQUIRE(with_numbers.links().size() == 2);
  REQUIRE(with_strings.links().size() == 2);
  CHECK(with_numbers.link(0).bandwidth == with_strings.link(0).bandwidth);
  CHECK(with_numbers.link(0).latency == with_strings.link(0).latency);
  CHECK(with_strings.link(0).bandwidth == Bandwidth{GBps(25)});
  CHECK(with_strings.link(0).latency == Time{1'000'000});
}

TEST_CASE("links become two directed links, half duplex shares one resource", "[topology][duplex]") {
  const std::string links = R"([
      {"from": "a", "to": "b", "type": "pcie", "bandwidth": "25GB/s", "latency": "1us", "duplex": "half"},
      {"from": "b", "to": "c", "type": "nvlink", "bandwidth": "50GB/s", "latency": "1us", "duplex": "full"},
      {"from": "c", "to": "a", "type": "nvlink", "bandwidth": "50GB/s", "latency": "1us"}])";
  const Topology t =
      parse(doc(R"([{"id": "a", "type": "gpu"}, {"id": "b", "type": "gpu"}, {"id": "c", "type": "gpu"}])", links));
  REQUIRE(t.links().size() == 6);
  // Link i of the file is directed links 2i (from -> to) and 2i + 1 (to -> from).
  CHECK(t.link_label(0) == "a->b");
  CHECK(t.link_label(1) == "b->a");
  CHECK(t.link_label(2) == "b->c");
  CHECK(t.link_label(3) == "c->b");
  CHECK(t.link(0).duplex == Duplex::Half);
  CHECK(t.link(0).resource == t.link(1).resource);
  CHECK(t.link(2).duplex == Duplex::Full);
  CHECK(t.link(2).resource != t.link(3).resource);
  CHECK(t.link(4).duplex == Duplex::Full);  // the default
  CHECK(t.link(4).resource != t.link(5).resource);
  std::set<std::uint32_t> resources;
  for (const auto& l : t.links()) {
    CHECK(l.resource < t.resource_count());
    resources.insert(l.resource);
  }
  CHECK(resources.size() == 5);
  CHECK(t.out_bandwidth(node_id(t, "a")) == Bandwidth{GBps(25) + GBps(50)});
}

TEST_CASE("generated fabrics", "[topology][generate]") {
  using collsim::topo::generate_fabric;
  const Bandwidth bw{GBps(25)};
  const Time lat{600'000};

  SECTION("ring") {
    const Topology ring8 = generate_fabric(Fabric::Ring, 8, bw, lat);
    CHECK(ring8.gpus().size() == 8);
    CHECK(ring8.links().size() == 2 * 8);
    CHECK(ring8.shortest_route(ring8.gpus()[0], ring8.gpus()[1]).size() == 1);
    CHECK(ring8.shortest_route(ring8.gpus()[0], ring8.gpus()[4]).size() == 4);
    CHECK(ring8.out_bandwidth(ring8.gpus()[3]) == Bandwidth{2 * GBps(25)});
    const Topology ring2 = generate_fabric(Fabric::Ring, 2, bw, lat);
    CHECK(ring2.links().size() == 2 * 1);
    const Topology ring3 = generate_fabric(Fabric::Ring, 3, bw, lat);
    CHECK(ring3.links().size() == 2 * 3);
    const Topology ring1 = generate_fabric(Fabric::Ring, 1, bw, lat);
    CHECK(ring1.gpus().size() == 1);
    CHECK(ring1.links().empty());
  }
  SECTION("switch") {
    for (std::uint32_t n : {1u, 2u, 5u, 8u}) {
      INFO("gpus " << n);
      const Topology t = generate_fabric(Fabric::Switch, n, bw, lat);
      CHECK(t.gpus().size() == n);
      CHECK(t.nodes().size() == n + 1);
      CHECK(t.links().size() == 2 * n);
      if (n >= 2) {
        const auto route = t.shortest_route(t.gpus()[0], t.gpus()[n - 1]);
        CHECK(route.size() == 2);
        CHECK(t.link(route[0]).type == collsim::topo::LinkType::NvSwitch);
      }
    }
  }
  SECTION("fully connected") {
    for (std::uint32_t n : {2u, 3u, 8u}) {
      INFO("gpus " << n);
      const Topology t = generate_fabric(Fabric::FullyConnected, n, bw, lat);
      CHECK(t.links().size() == 2 * (n * (n - 1) / 2));
      for (NodeId from : t.gpus())
        for (NodeId to : t.gpus())
          if (from != to) CHECK(t.shortest_route(from, to).size() == 1);
    }
  }
  SECTION("links carry the given bandwidth and latency") {
    const Topology t = generate_fabric(Fabric::Ring, 4, bw, lat);
    for (const auto& l : t.links()) {
      CHECK(l.bandwidth == bw);
      CHECK(l.latency == lat);
      CHECK(l.duplex == Duplex::Full);
    }
    CHECK(t.name() == "ring-4gpu");
  }
  SECTION("zero GPUs and fabric names") {
    CHECK_THROWS_AS(generate_fabric(Fabric::Ring, 0, bw, lat), TopologyError);
    CHECK(collsim::topo::parse_fabric("ring") == Fabric::Ring);
    CHECK(collsim::topo::parse_fabric("switch") == Fabric::Switch);
    CHECK(collsim::topo::parse_fabric("fully-connected") == Fabric::FullyConnected);
    CHECK(collsim::topo::parse_fabric("fully_connected") == Fabric::FullyConnected);
    CHECK_FALSE(collsim::topo::parse_fabric("torus").has_value());
    for (Fabric f : {Fabric::Ring, Fabric::Switch, Fabric::FullyConnected})
      CHECK(collsim::topo::parse_fabric(collsim::topo::fabric_name(f)) == f);
  }
}

TEST_CASE("shortest routes on dgx-a100-2node", "[topology][routes]") {
  const Topology t = collsim::topo::load_topology("dgx-a100-2node");
  const NodeId n0g0 = node_id(t, "n0-gpu0");
  const NodeId n0g3 = node_id(t, "n0-gpu3");
  const NodeId n1g0 = node_id(t, "n1-gpu0");

  const auto across = t.shortest_route(n0g0, n1g0);
  CHECK(labels(t, across) ==
        std::vector<std::string>{"n0-gpu0->n0-nic0", "n0-nic0->ib-switch", "ib-switch->n1-nic0", "n1-nic0->n1-gpu0"});
  const auto within = t.shortest_route(n0g0, n0g3);
  CHECK(labels(t, within) == std::vector<std::string>{"n0-gpu0->n0-nvswitch", "n0-nvswitch->n0-gpu3"});
  CHECK(t.shortest_route(n0g0, n0g0).empty());

  collsim::topo::RouteCache cache(t);
  const auto& r = cache.get(n0g0, n1g0);
  CHECK(r.links == across);
  CHECK(r.latency == Time{(500 + 700 + 700 + 500) * 1'000});  // PCIe, IB, IB, PCIe
  CHECK(r.bottleneck == Bandwidth{200'000'000'000});         // 200 Gb/s IB < 31.5 GB/s PCIe
  CHECK(&cache.get(n0g0, n1g0) == &r);                        // cached, same object
  const auto& w = cache.get(n0g0, n0g3);
  CHECK(w.latency == Time{2 * 300'000});
  CHECK(w.bottleneck == Bandwidth{GBps(300)});
  const auto& back = cache.get(n1g0, n0g0);
  CHECK(back.links.size() == 4);
  CHECK(t.link_label(back.links.front()) == "n1-gpu0->n1-nic0");
}

TEST_CASE("the route cache's two-hop shortcut gives Dijkstra's route for every pair", "[topology][routes]") {
  // The oracle is Topology::shortest_route (Boost Dijkstra, no shortcut): the cache must return the
  // same links for every ordered node pair of fabrics with one two-hop path per pair (switch,
  // multi-node), with several (dgx-a100: six NVSwitches; the bundled multi-node files) and with none
  // (ring, fully connected).
  const Bandwidth bw{200'000'000'000};
  const Time lat{1'000'000};
  std::vector<Topology> fabrics;
  fabrics.push_back(generate_fabric(Fabric::Switch, 9, bw, lat));
  fabrics.push_back(generate_fabric(Fabric::Ring, 7, bw, lat));
  fabrics.push_back(generate_fabric(Fabric::FullyConnected, 5, bw, lat));
  fabrics.push_back(collsim::topo::generate_multi_node({8, 2, bw, lat, bw, lat}));
  for (const auto& b : collsim::topo::bundled_topologies()) fabrics.push_back(collsim::topo::load_topology(b.name));
  for (const Topology& t : fabrics) {
    INFO("topology " << t.name());
    collsim::topo::RouteCache cache(t);
    for (NodeId from = 0; from < t.nodes().size(); ++from)
      for (NodeId to = 0; to < t.nodes().size(); ++to) {
        if (from == to) continue;
        INFO(t.node(from).id << " -> " << t.node(to).id);
        CHECK(cache.get(from, to).links == t.shortest_route(from, to));
      }
  }
}

TEST_CASE("routes prefer fewest hops, then least latency", "[topology][routes]") {
  // a-b directly (slow); a-c-b and a-d-b with two hops each, a-d-b with less latency.
  const Topology t = parse(doc(R"([{"id": "a", "type": "gpu"}, {"id": "b", "type": "gpu"},
                                   {"id": "c", "type": "switch"}, {"id": "d", "type": "switch"},
                                   {"id": "e", "type": "gpu"}])",
                               R"([{"from": "a", "to": "b", "type": "nvlink", "bandwidth": "1GB/s", "latency": "10us"},
                                   {"from": "a", "to": "c", "type": "nvlink", "bandwidth": "9GB/s", "latency": "3ns"},
                                   {"from": "c", "to": "e", "type": "nvlink", "bandwidth": "9GB/s", "latency": "3ns"},
                                   {"from": "a", "to": "d", "type": "nvlink", "bandwidth": "5GB/s", "latency": "1ns"},
                                   {"from": "d", "to": "e", "type": "nvlink", "bandwidth": "7GB/s", "latency": "1ns"}])"));
  CHECK(labels(t, t.shortest_route(node_id(t, "a"), node_id(t, "b"))) == std::vector<std::string>{"a->b"});
  CHECK(labels(t, t.shortest_route(node_id(t, "a"), node_id(t, "e"))) == std::vector<std::string>{"a->d", "d->e"});
  CHECK(labels(t, t.shortest_route(node_id(t, "b"), node_id(t, "e"))) ==
        std::vector<std::string>{"b->a", "a->d", "d->e"});

  collsim::topo::RouteCache cache(t);
  const auto& r = cache.get(node_id(t, "b"), node_id(t, "e"));
  CHECK(r.latency == Time{10'000'000 + 1'000 + 1'000});
  CHECK(r.bottleneck == Bandwidth{GBps(1)});
  const auto& r2 = cache.get(node_id(t, "a"), node_id(t, "e"));
  CHECK(r2.bottleneck == Bandwidth{GBps(5)});
}

// Found by tests/fuzz/topology_fuzz (tests/fuzz/regressions/topology/latency-sum-overflow.json): the
// search summed latencies in 64 bits, so two hops of 5e6 s wrapped to a negative, fastest route.
TEST_CASE("routes whose latencies sum past 2^63 ps count as the slowest", "[topology][routes]") {
  const Topology t = parse(doc(R"([{"id": "a", "type": "gpu"}, {"id": "b", "type": "gpu"},
                                   {"id": "c", "type": "switch"}, {"id": "d", "type": "switch"}])",
                               R"([{"from": "a", "to": "c", "type": "nvlink", "bandwidth": "1GB/s", "latency": "5000000s"},
                                   {"from": "c", "to": "b", "type": "nvlink", "bandwidth": "1GB/s", "latency": "5000000s"},
                                   {"from": "a", "to": "d", "type": "nvlink", "bandwidth": "1GB/s", "latency": "1ns"},
                                   {"from": "d", "to": "b", "type": "nvlink", "bandwidth": "1GB/s", "latency": "1ns"}])"));
  CHECK(labels(t, t.shortest_route(node_id(t, "a"), node_id(t, "b"))) == std::vector<std::string>{"a->d", "d->b"});
  collsim::topo::RouteCache cache(t);
  CHECK(cache.get(node_id(t, "b"), node_id(t, "a")).latency == Time{2'000});
}

// Found by tests/fuzz/topology_fuzz (tests/fuzz/regressions/topology/bandwidth-near-2-64.json): a
// factor of 1 on a link of 2^64-2 b/s gave 2^64 as a double, and its conversion (undefined) gave 0.
TEST_CASE("scaled bandwidths keep the line rate under a factor of 1, also near 2^64 b/s", "[topology][scaled]") {
  const Topology t = parse(doc_with_link(
      R"({"from": "a", "to": "b", "type": "nvlink", "bandwidth": "18446744073709551614b/s", "latency": "1ns"})"));
  // NVLink-class links at 1, PCIe-class at 0.8 (so a simulation scales the topology).
  const Topology full = t.with_bandwidth_factors({1.0, 0.8, 1.0});
  CHECK(full.link(0).bandwidth == Bandwidth{18446744073709551614u});
  CHECK(full.link(1).bandwidth == Bandwidth{18446744073709551614u});
  const Topology half = t.with_bandwidth_factors({0.5, 1.0, 1.0});
  CHECK(half.link(0).bandwidth == Bandwidth{9223372036854775808u});
  const Topology tiny = t.with_bandwidth_factors({1e-300, 1.0, 1.0});
  CHECK(tiny.link(0).bandwidth == Bandwidth{1});
}

TEST_CASE("a node no GPU route reaches has no route", "[topology][routes]") {
  const Topology t = parse(doc(R"([{"id": "a", "type": "gpu"}, {"id": "b", "type": "gpu"}, {"id": "s", "type": "switch"}])",
                               "[" + std::string(kGoodLink) + "]"));
  collsim::topo::RouteCache cache(t);
  CHECK_THROWS_AS(cache.get(node_id(t, "a"), node_id(t, "s")), TopologyError);
  CHECK_THROWS_WITH(t.shortest_route(node_id(t, "a"), node_id(t, "s")), Contains("\"s\""));
}

// Found by a newcomer's review: inputs that nlohmann accepts silently or that crashed the loader.
TEST_CASE("the loader rejects duplicate keys, absurd nesting, huge numbers and control characters", "[topology][errors]") {
  using collsim::topo::TopologyError;
  const auto load = [](const std::string& text) { return collsim::topo::parse_topology_json(text, "t.json", "t"); };
  // The last of two keys would silently win.
  CHECK_THROWS_WITH(load(R"({"nodes":[{"id":"g0","type":"gpu"}],"links":[],"links":[]})"),
                    Catch::Contains("t.json") && Catch::Contains("\"links\" appears twice"));
  CHECK_THROWS_WITH(load(R"({"nodes":[{"id":"g0","type":"gpu","id":"g1"}],"links":[]})"),
                    Catch::Contains("\"id\" appears twice"));
  // 100000 nested arrays crashed (stack overflow while printing the value in the message).
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  CHECK_THROWS_WITH(load(deep), Catch::Contains("t.json") && Catch::Contains("nested deeper"));
  CHECK_THROWS_WITH(load(R"({"name":)" + deep + "}"), Catch::Contains("nested deeper"));
  // A number beyond double range is a JSON error, not an internal one.
  CHECK_THROWS_AS(load(R"({"nodes":[{"id":"g0","type":"gpu"},{"id":"g1","type":"gpu"}],
    "links":[{"from":"g0","to":"g1","type":"nvlink","bandwidth":1e999,"latency":"1us"}]})"), TopologyError);
  // Ids end up in one-line messages and tables.
  CHECK_THROWS_WITH(load("{\"nodes\":[{\"id\":\"g\\n0\",\"type\":\"gpu\"}],\"links\":[]}"),
                    Catch::Contains("/nodes/0/id") && Catch::Contains("control characters"));
  CHECK_THROWS_WITH(load(R"({"$schema":5,"nodes":[{"id":"g0","type":"gpu"}],"links":[]})"), Catch::Contains("/$schema"));
}
}  // namespace topology_test
