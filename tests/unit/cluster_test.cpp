// Clusters (issue 18 item 1): K copies of a machine on fat-tree and rail-optimized leaf/spine
// fabrics, from flags and from a topology file's "cluster" object. Expected counts and rates are
// derived by hand from the spec (topologies/cluster.hpp).
#include <fstream>
#include <map>
#include <set>
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "algorithms/registry.hpp"
#include "run/plan.hpp"
#include "tests/cli/cli_harness.hpp"
#include "topologies/cluster.hpp"
#include "topologies/load_json.hpp"
#include "topologies/routes.hpp"

// One namespace per test file: CI builds the tests as unity sources (.ci/run), where each file's
// helpers would otherwise meet the other files'.
namespace cluster_test {

using Catch::Matchers::Contains;
using collsim::Bandwidth;
using collsim::testing::check_bad_input;
using collsim::testing::simulate_json;
using collsim::topo::ClusterFabric;
using collsim::topo::ClusterSpec;
using collsim::topo::LinkType;
using collsim::topo::NodeType;
using collsim::topo::Topology;

namespace {

std::size_t count_links(const Topology& t, LinkType type) {
  std::size_t n = 0;
  for (const auto& l : t.links()) n += l.type == type;
  return n / 2;  // each file link is two directed links
}

// The nodes Topology::shortest_route passes from node `from` to node `to`, by id, `to` last.
std::vector<std::string> route_path(const Topology& t, const std::string& from, const std::string& to) {
  std::vector<std::string> path;
  for (auto l : t.shortest_route(*t.find_node(from), *t.find_node(to))) path.push_back(t.node(t.link(l).to).id);
  return path;
}

std::size_t count_nodes(const Topology& t, NodeType type) {
  std::size_t n = 0;
  for (const auto& node : t.nodes()) n += node.type == type;
  return n;
}

// The node the link from `from` reaches among `to`-prefixed ids (the first), or "".
std::string neighbour(const Topology& t, std::string_view from, std::string_view prefix) {
  for (auto l : t.out_links(*t.find_node(from)))
    if (t.node(t.link(l).to).id.starts_with(prefix)) return t.node(t.link(l).to).id;
  return "";
}

constexpr std::uint64_t GBps(std::uint64_t g) { return g * 8'000'000'000ull; }

}  // namespace

TEST_CASE("a fat tree of 16 DGX H100 at 2:1: 4 leaves of 32 NICs, 16 spines, 50 GB/s per leaf-spine link",
          "[cluster]") {
  ClusterSpec spec;
  spec.nodes = 16;
  spec.oversubscription = 2.0;
  const Topology t = collsim::topo::generate_cluster(collsim::topo::load_topology("dgx-h100"), spec);
  // 16 hosts x 8 GPUs; one NIC added per GPU (dgx-h100 has none), 128 NICs fill 128 / 32 = 4 leaves;
  // spines = 32 / 2 = 16; each leaf's 32 x 50 GB/s down over 2 x 16 up links: 50 GB/s each.
  CHECK(t.gpus().size() == 128);
  CHECK(count_nodes(t, NodeType::Nic) == 128);
  CHECK(count_nodes(t, NodeType::Switch) == 16 /* NVSwitches */ + 4 + 16);
  CHECK(count_links(t, LinkType::InfiniBand) == 128 + 4 * 16);
  CHECK(count_links(t, LinkType::Pcie) == 128);
  for (const auto& l : t.links())
    if (t.node(l.from).id.starts_with("leaf") && t.node(l.to).id.starts_with("spine")) CHECK(l.bandwidth == Bandwidth{GBps(50)});
  // Host order: host 3's NICs (12 x 8 .. ) share leaf 0 with hosts 0..3; host 4 starts leaf 1.
  CHECK(neighbour(t, "n3-nic7", "leaf") == "leaf0");
  CHECK(neighbour(t, "n4-nic0", "leaf") == "leaf1");
  CHECK(t.node(*t.find_node("n5-gpu2")).host == "node5");
  CHECK(t.params().link_efficiency[2] == Approx(0.94));  // the network class, set where dgx-h100 has none
}

TEST_CASE("a rail-optimized cluster puts NIC i of every host on rail i's leaves, and planes split the NICs",
          "[cluster]") {
  ClusterSpec spec;
  spec.nodes = 6;
  spec.fabric = ClusterFabric::Rail;
  spec.leaf_nics = 4;
  const Topology t = collsim::topo::generate_cluster(collsim::topo::load_topology("dgx-h100"), spec);
  // 8 rails x ceil(6 / 4) = 2 leaves each; spines = 4 (one per uplink at 1:1).
  CHECK(neighbour(t, "n0-nic3", "rail") == "rail3-leaf0");
  CHECK(neighbour(t, "n3-nic3", "rail") == "rail3-leaf0");
  CHECK(neighbour(t, "n4-nic3", "rail") == "rail3-leaf1");
  CHECK(count_nodes(t, NodeType::Switch) == 6 + 8 * 2 + 4);
  spec.planes = 2;
  const Topology planes = collsim::topo::generate_cluster(collsim::topo::load_topology("dgx-h100"), spec);
  CHECK(neighbour(planes, "n0-nic3", "plane1-") == "plane1-rail3-leaf0");
  CHECK(neighbour(planes, "n0-nic2", "plane0-") == "plane0-rail2-leaf0");
  CHECK(planes.find_node("plane1-spine3").has_value());
}

TEST_CASE("the default leaf holds whole hosts or the largest equal part of one that fits 32 ports", "[cluster]") {
  // GB200 NVL72: 72 NICs a host (one per B200). 32 neither divides 72 nor is a multiple of it; the
  // largest divisor of 72 below 32 is 24 (72 = 3 x 24), so each host spans 3 leaves of 24 NICs and a
  // 1:1 leaf has 24 uplinks (24 spines). Session 22's newcomer found the default refused.
  const Topology machine = collsim::topo::load_topology("gb200-nvl72");
  ClusterSpec spec;
  spec.nodes = 2;
  const Topology t = collsim::topo::generate_cluster(machine, spec);
  CHECK(neighbour(t, "n0-nic23", "leaf") == "leaf0");
  CHECK(neighbour(t, "n0-nic24", "leaf") == "leaf1");
  CHECK(neighbour(t, "n1-nic0", "leaf") == "leaf3");
  CHECK(count_nodes(t, NodeType::Switch) - count_nodes(machine, NodeType::Switch) * 2 == 6 + 24);
  // DGX H100's 8 NICs: 32 is a multiple, 4 hosts per leaf, as before.
  const Topology h = collsim::topo::generate_cluster(collsim::topo::load_topology("dgx-h100"), spec);
  CHECK(neighbour(h, "n1-nic7", "leaf") == "leaf0");
  // Given, 32 is refused on GB200 NVL72 with the flag's name, and the rail fabric keeps 32 hosts a leaf.
  spec.leaf_nics = 32;
  CHECK_THROWS_WITH(collsim::topo::generate_cluster(machine, spec), Contains("--leaf-nics: found 32, expected a multiple or a divisor of the 72 NICs"));
  check_bad_input({"topo", "--node", "gb200-nvl72", "--nodes", "2", "--fabric", "fat-tree", "--leaf-nics", "32"},
                  "--leaf-nics: found 32, expected");
}

TEST_CASE("a cluster of more GPUs than --gpus generates is refused at once", "[cluster][cli]") {
  // 2^20 hosts of 8 GPUs = 8,388,608 GPUs, 8 x the 2^20 that --gpus allows; 131,072 hosts of 8 are
  // exactly 2^20 (session 22's newcomer ran out of memory after 3 minutes with the first).
  check_bad_input({"topo", "--node", "dgx-h100", "--nodes", "1048576", "--fabric", "rail"},
                  "--nodes: found 1048576 hosts of 8 GPUs = 8388608 GPUs, expected at most 1048576 GPUs in all (2^20, "
                  "as --gpus): --nodes 131072 or fewer");
  ClusterSpec spec;
  spec.nodes = 131073;
  CHECK_THROWS_WITH(collsim::topo::generate_cluster(collsim::topo::load_topology("dgx-h100"), spec),
                    Contains("found 131073 hosts of 8 GPUs = 1048584 GPUs"));
}

TEST_CASE("a machine's own NICs are used as they are", "[cluster]") {
  const std::string machine = collsim::testing::temp_file("two-gpus-one-nic.json", R"({"nodes": [
      {"id": "g0", "type": "gpu"}, {"id": "g1", "type": "gpu"}, {"id": "s", "type": "switch"}, {"id": "nic", "type": "nic"}],
    "links": [{"from": "g0", "to": "s", "type": "nvswitch", "bandwidth": "100GB/s", "latency": "1ns"},
              {"from": "g1", "to": "s", "type": "nvswitch", "bandwidth": "100GB/s", "latency": "1ns"},
              {"from": "s", "to": "nic", "type": "pcie", "bandwidth": "30GB/s", "latency": "1ns"}]})");
  ClusterSpec spec;
  spec.nodes = 3;
  const Topology t = collsim::topo::generate_cluster(collsim::topo::load_topology(machine), spec);
  CHECK(count_nodes(t, NodeType::Nic) == 3);
  CHECK(neighbour(t, "n2-nic", "leaf") == "leaf0");
}

TEST_CASE("a ring all-reduce across a 1:1 rail cluster of 4 DGX H100 is bound by each host's 8 NICs", "[cluster][cli]") {
  // Every byte a ring moves between hosts leaves through the host's 8 NICs: busbw <= 8 x 50 GB/s x
  // 0.94 (the network efficiency) = 376 GB/s; at 1 GiB the 62 steps' latencies take under 5 %.
  const auto j = simulate_json({"--node", "dgx-h100", "--nodes", "4", "--fabric", "rail", "--size", "1G"});
  CHECK(j["ranks"] == 32);
  CHECK(j["busbw_GBps"].get<double>() <= 8 * 50 * 0.94);
  CHECK(j["busbw_GBps"].get<double>() >= 0.95 * 8 * 50 * 0.94);
}

TEST_CASE("with planes every NIC carries its own rail's share: PXN ties go through the destination's GPU",
          "[cluster][cli][routes]") {
  // NCCL's ring leaves a host by the NIC it enters the next one by, sending through the GPU local to
  // it (PXN; src/graph/search.cc and paths.cc, ncclTopoGetIntermediateRank): on 2 planes, GPU 7 of
  // host 0 (plane 1) reaches GPU 0 of host 1 (plane 0) over NVLink to host 0's GPU 0 and out by NIC
  // 0, one of 4 tied plane-0 routes. Each of a host's 8 NICs then carries 1/8 of what the host sends,
  // and busbw stays at the one-plane bound 8 x 50 GB/s x 0.94 = 376 GB/s (its 5 % margin is the
  // latencies' and the extra NVLink hop's). Taking the first NIC of a plane for every tie put 4x
  // the traffic on it: 94 GB/s.
  ClusterSpec spec;
  spec.nodes = 2;
  spec.fabric = ClusterFabric::FatTree;
  spec.planes = 2;
  const Topology t = collsim::topo::generate_cluster(collsim::topo::load_topology("dgx-h100"), spec);
  CHECK(route_path(t, "n0-gpu7", "n1-gpu0") ==
        std::vector<std::string>{"n0-nvswitch", "n0-gpu0", "n0-nic0", "plane0-leaf0", "n1-nic0", "n1-gpu0"});
  CHECK(t.dijkstra_route(*t.find_node("n0-gpu7"), *t.find_node("n1-gpu0")) ==
        t.shortest_route(*t.find_node("n0-gpu7"), *t.find_node("n1-gpu0")));

  for (const std::string planes : {"2", "4"}) {
    const auto j = simulate_json({"--node", "dgx-h100", "--nodes", "4", "--fabric", "fat-tree", "--planes", planes,
                                  "--size", "1G", "--routing", "single"});
    std::set<std::uint64_t> nic_bytes;
    for (const auto& l : j["links"])
      if (l["from"].get<std::string>().find("-nic") != std::string::npos) nic_bytes.insert(l["bytes"].get<std::uint64_t>());
    // Every NIC's uplink carries the same bytes, up to the few bytes by which the ring's chunks of
    // 1 GiB / 32 ranks / 24 channels differ (whole float32 elements).
    REQUIRE(!nic_bytes.empty());
    CHECK(*nic_bytes.rbegin() - *nic_bytes.begin() < 64);
    CHECK(j["busbw_GBps"].get<double>() <= 8 * 50 * 0.94);
    CHECK(j["busbw_GBps"].get<double>() >= 0.95 * 8 * 50 * 0.94);
  }
}

TEST_CASE("ring across a cluster with NCCL's costs runs on demand, with the materialised ring's times and traffic",
          "[cluster][cli][stream]") {
  // 64 ranks of 1 MiB: 16 KiB parts, under the simple protocol's slice, so the run is generated on
  // demand (peak ops held <= N), and --verify (which materialises the schedule) gives the same
  // time and traffic: the op costs (step latencies by link class, reductions) are priced the same
  // way in both. On demand it simulates one host's 8 ranks for all 8 hosts: each host's ring flow to
  // the next crosses links of its own (sim/rank_fold.hpp), alike; the materialised run does every op.
  const std::vector<std::string> args{"--node", "dgx-h100", "--nodes", "8", "--fabric", "rail", "--algorithm", "ring",
                                      "--channels", "1", "--size", "1M", "--protocol", "simple"};
  const auto lazy = simulate_json(args);
  auto verified_args = args;
  verified_args.push_back("--verify");
  const auto built = simulate_json(verified_args);
  CHECK(lazy["time_us"] == built["time_us"]);
  CHECK(lazy["rank_images"] == 8);
  CHECK(built["rank_images"] == 1);
  CHECK(lazy["links"] == built["links"]);
  CHECK(lazy["per_rank"] == built["per_rank"]);
  // The plan behind it: a stream, holding at most one op per rank, with costs on every op.
  ClusterSpec spec;
  spec.nodes = 8;
  spec.fabric = ClusterFabric::Rail;
  const Topology cluster = collsim::topo::generate_cluster(collsim::topo::load_topology("dgx-h100"), spec);
  collsim::run::ModelOptions model;
  model.protocol = collsim::topo::ProtocolChoice::Simple;
  model.channels = 1;
  const auto registry = collsim::algo::builtin_registry();
  const auto& ring = registry.find(collsim::sched::Collective::AllReduce, "ring");
  const auto plan = collsim::run::build_plan(ring, cluster, 64, {}, collsim::Bytes{1} << 20, 4, model,
                                             collsim::run::Ops::OnDemand);
  REQUIRE(plan.stream != nullptr);
  CHECK(plan.fidelity.costs.per_op());
  const auto run = collsim::run::simulate_plan(plan, cluster, "flow");
  CHECK(run.result.peak_ops_held <= 64);
  CHECK(run.summary.time.count() == lazy["time_ps"].get<std::int64_t>());
}

TEST_CASE("a topology file's cluster object is the flags' cluster, and every key the schema lists loads", "[cluster][schema]") {
  const std::string file = collsim::testing::temp_file("pod.json", R"({"name": "pod", "p2p_level": "sys",
    "cluster": {"node": "dgx-h100", "nodes": 16, "fabric": "fat-tree", "leaf_nics": 32, "spines": 16,
                "oversubscription": "2:1", "planes": 1, "nic_bandwidth": "50GB/s", "nic_latency": "700ns",
                "switch_latency": "700ns"}})");
  const Topology from_file = collsim::topo::load_topology(file);
  CHECK(from_file.name() == "pod");
  CHECK(from_file.p2p_level() == collsim::topo::P2pLevel::Sys);
  ClusterSpec spec;
  spec.nodes = 16;
  spec.oversubscription = 2.0;
  const Topology from_spec = collsim::topo::generate_cluster(collsim::topo::load_topology("dgx-h100"), spec);
  REQUIRE(from_file.links().size() == from_spec.links().size());
  for (collsim::topo::LinkId l = 0; l < from_file.links().size(); ++l)
    CHECK(from_file.link(l).bandwidth == from_spec.link(l).bandwidth);
  // The schema's cluster properties are exactly the keys the loader takes.
  std::ifstream in(std::string(COLLSIM_SOURCE_DIR) + "/topologies/topology.schema.json");
  const auto schema = nlohmann::json::parse(in);
  std::set<std::string> keys;
  for (const auto& [k, v] : schema.at("properties").at("cluster").at("properties").items()) keys.insert(k);
  CHECK(keys == std::set<std::string>{"node", "nodes", "fabric", "leaf_nics", "spines", "oversubscription", "planes",
                                      "nic_bandwidth", "nic_latency", "switch_latency"});
  const auto doc = [](const std::string& body) { return collsim::topo::parse_topology_json(body, "c.json", "c"); };
  CHECK_THROWS_WITH(doc(R"({"cluster": {"node": "dgx-h100", "nodes": 2}})"), Contains("/cluster") && Contains("fabric"));
  CHECK_THROWS_WITH(doc(R"({"cluster": {"node": "dgx-h100", "nodes": 2, "fabric": "torus"}})"),
                    Contains("/cluster/fabric") && Contains("\"torus\""));
  CHECK_THROWS_WITH(doc(R"({"cluster": {"node": "dgx-h100", "nodes": 2, "fabric": "rail", "oversubscription": "1:2"}})"),
                    Contains("/cluster/oversubscription"));
  CHECK_THROWS_WITH(doc(R"({"cluster": {"node": "nowhere", "nodes": 2, "fabric": "rail"}})"),
                    Contains("/cluster/node") && Contains("nowhere"));
  CHECK_THROWS_WITH(doc(R"({"cluster": {"node": "dgx-h100", "nodes": 2, "fabric": "rail"}, "nodes": []})"),
                    Contains("unknown key \"nodes\""));
}

TEST_CASE("cluster flags out of range or out of place are one-line errors", "[cluster][cli]") {
  check_bad_input({"topo", "--node", "dgx-h100", "--nodes", "2", "--fabric", "rail", "--planes", "9"},
                  "--planes: found 9, expected a divisor of the 8 NICs a host of dgx-h100 has (1, 2, 4, 8)");
  // Uneven planes are refused on both fabrics (8 NICs on 3 planes would be 3, 3 and 2), and a fat
  // tree's message then names the planes, not --leaf-nics' default.
  for (const char* fabric : {"rail", "fat-tree"})
    check_bad_input({"topo", "--node", "dgx-h100", "--nodes", "2", "--fabric", fabric, "--planes", "3"},
                    "--planes: found 3, expected a divisor of the 8 NICs");
  // 4 NICs a plane and 6 a leaf: neither whole hosts nor equal parts; the message offers 4.
  check_bad_input({"topo", "--node", "dgx-h100", "--nodes", "2", "--fabric", "fat-tree", "--planes", "2",
                   "--leaf-nics", "6"},
                  "--leaf-nics: found 6, expected a multiple or a divisor of the 4 NICs a host has "
                  "in a plane, e.g. --leaf-nics 4");
  check_bad_input({"topo", "--node", "dgx-h100-2node-ib400", "--nodes", "2", "--fabric", "rail"}, "--node:");
  check_bad_input({"topo", "--node", "dgx-h100", "--nodes", "2"}, "--fabric: missing");
  check_bad_input({"topo", "--node", "dgx-h100", "--fabric", "rail"}, "--nodes: missing");
  check_bad_input({"topo", "--node", "dgx-h100", "--nodes", "2", "--fabric", "switch"}, "--fabric: found \"switch\"");
  check_bad_input({"topo", "--node", "dgx-h100", "--nodes", "2", "--fabric", "rail", "--gpus", "16"}, "--gpus: not with --node");
  check_bad_input({"topo", "--gpus", "8", "--fabric", "switch", "--leaf-nics", "4"}, "--leaf-nics: only a cluster");
  check_bad_input({"topo", "--node", "dgx-h100", "--nodes", "2", "--fabric", "rail", "--oversubscription", "1:4"},
                  "--oversubscription: found \"1:4\"");
  check_bad_input({"topo", "dgx-h100", "--node", "dgx-h100", "--nodes", "2", "--fabric", "rail"}, "--node:");
  check_bad_input({"topo", "dgx-a100", "--spines", "4"}, "--spines: only a cluster");
  // A host's 8 NICs split 6 + 2 over two leaves would send its channels through whichever NIC shares
  // the peer's leaf: refused. A multiple (16) or a divisor (4) is fine.
  check_bad_input({"topo", "--node", "dgx-h100", "--nodes", "2", "--fabric", "fat-tree", "--leaf-nics", "12"},
                  "--leaf-nics: found 12, expected a multiple or a divisor of the 8 NICs");
  check_bad_input({"topo", "--node", "dgx-h100", "--nodes", "2", "--fabric", "rail", "--oversubscription", "1e300"},
                  "--oversubscription: found");
  // A leaf of 8 NICs at 400 Gb/s has 3.2 Tb/s down: past 3200:1 its one spine link falls below
  // 1 Gb/s, which is a typo, not a fabric (a run's time would pass the clock's end and blame --size).
  check_bad_input({"simulate", "--node", "dgx-h100", "--nodes", "4", "--leaf-nics", "8", "--fabric", "fat-tree",
                   "--oversubscription", "1e12", "--size", "1G"},
                  "--oversubscription: found 1000000000000, so much that a leaf's link to each spine carries 3 b/s; "
                  "expected at most 3200:1");
  // 60,000 spines share those 3.2 Tb/s at 53.3 Mb/s each; 3,200 spines get 1 Gb/s each.
  check_bad_input({"topo", "--node", "dgx-h100", "--nodes", "4", "--leaf-nics", "8", "--fabric", "fat-tree",
                   "--spines", "60000"},
                  "--spines: found 60000, so many that a leaf's link to each carries 53333333 b/s; expected at most 3200");
  // A NIC below 1 Gb/s is --net-bandwidth's, not the default 1:1 --oversubscription's (newcomer
  // finding: "--oversubscription: found 1 ... expected at most 0:1").
  check_bad_input({"simulate", "--node", "dgx-h100", "--nodes", "4", "--leaf-nics", "8", "--fabric", "fat-tree",
                   "--net-bandwidth", "1b/s", "--spines", "1", "--size", "1M"},
                  "--net-bandwidth: found 1 b/s, expected at least 1 Gb/s for a cluster's NICs");
  check_bad_input({"topo", "--node", "dgx-h100", "--nodes", "4", "--leaf-nics", "2", "--fabric", "rail",
                   "--net-bandwidth", "999Mb/s"},
                  "--net-bandwidth: found 999000000 b/s");
  CHECK_NOTHROW(collsim::topo::generate_cluster(collsim::topo::load_topology("dgx-h100"), [] {
    collsim::topo::ClusterSpec spec;
    spec.nodes = 4;
    spec.fabric = collsim::topo::ClusterFabric::FatTree;
    spec.leaf_nics = 8;
    spec.spines = 3200;
    return spec;
  }()));
}

TEST_CASE("a cluster file names its machine beside it, and one that is a cluster itself is refused", "[cluster]") {
  const auto dir = collsim::testing::scratch_dir("cluster-files");
  std::ofstream(dir / "one.json") << R"({"nodes": [{"id": "g", "type": "gpu"}, {"id": "c", "type": "cpu"}],
    "links": [{"from": "g", "to": "c", "type": "pcie", "bandwidth": "31.5GB/s", "latency": "500ns"}]})";
  std::ofstream(dir / "pod.json") << R"({"cluster": {"node": "one.json", "nodes": 2, "fabric": "fat-tree"}})";
  std::ofstream(dir / "self.json") << R"({"cluster": {"node": "self.json", "nodes": 2, "fabric": "rail"}})";
  const Topology pod = collsim::topo::load_topology((dir / "pod.json").string());  // one.json found beside it
  CHECK(pod.gpus().size() == 2);
  // The added NIC runs no faster than the GPU's own PCIe Gen4 x16 link (31.5 GB/s), not at Gen5's 63.
  CHECK(pod.out_bandwidth(pod.gpus()[0]) == Bandwidth{2 * 31'500'000'000ull * 8});
  CHECK_THROWS_WITH(collsim::topo::load_topology((dir / "self.json").string()),
                    Contains("/cluster/node") && Contains("itself a cluster"));
  const std::string planes = collsim::testing::temp_file(
      "planes9.json", R"({"cluster": {"node": "dgx-h100", "nodes": 2, "fabric": "rail", "planes": 9}})");
  CHECK_THROWS_WITH(collsim::topo::load_topology(planes), Contains("/cluster/planes: found 9"));
  // An L40S box has no NVLink, so a GPU cannot reach another plane's NIC through a GPU of its host
  // (PXN): with 2 planes GPUs on different planes of two hosts have no route, said of --planes.
  ClusterSpec two_planes;
  two_planes.nodes = 2;
  two_planes.fabric = ClusterFabric::Rail;
  two_planes.planes = 2;
  CHECK_THROWS_WITH(collsim::topo::generate_cluster(collsim::topo::load_topology("l40s-pcie"), two_planes),
                    Catch::StartsWith("--planes: found 2, expected 1 for l40s-pcie") && Contains("cannot reach"));
}

TEST_CASE("a crossing between rails goes over NVLink first (PXN), never into a GPU from its NIC", "[cluster][routes]") {
  // 2 DGX H100 on a rail fabric: GPU 7 of host 0 to GPU 0 of host 1. Through a spine it is 7 links
  // (gpu, nic, rail7 leaf, spine, rail0 leaf, nic, gpu); over NVLink to host 0's GPU 0 and out on
  // rail 0 it is 6: n0-gpu7 -> n0-nvswitch -> n0-gpu0 -> n0-nic0 -> rail0-leaf0 -> n1-nic0 -> n1-gpu0.
  // Entering n1-gpu7 from its NIC and forwarding over NVLink is as short, but a GPU does not forward
  // what arrives from its NIC.
  ClusterSpec spec;
  spec.nodes = 2;
  spec.fabric = ClusterFabric::Rail;
  const Topology t = collsim::topo::generate_cluster(collsim::topo::load_topology("dgx-h100"), spec);
  CHECK(route_path(t, "n0-gpu7", "n1-gpu0") ==
        std::vector<std::string>{"n0-nvswitch", "n0-gpu0", "n0-nic0", "rail0-leaf0", "n1-nic0", "n1-gpu0"});
}
}  // namespace cluster_test

namespace cluster_test {
TEST_CASE("NCCL's choice of protocol and channels does not depend on how the spines route", "[cluster][nccl]") {
  // NCCL's tuning sees a host's GPUs, NICs and their links, never the spines' ECMP collisions
  // (ncclTopoTuneModel, 2.30.7, takes the NICs' bandwidth): 4 DGX H100 one per leaf of 8 NICs cross
  // the spines with every host pair, and --routing single put all 8 NICs' flows on one spine link,
  // which made the formula see an eighth of the bandwidth and pick LL on 8 channels there against
  // LL128 on 24 under ecmp and spray (newcomer finding). The simulated times still differ: the
  // routes do.
  std::set<std::string> picks;
  std::map<std::string, std::int64_t> times;
  for (const std::string routing : {"single", "ecmp", "spray", "dmodk"}) {
    const auto j = simulate_json({"--node", "dgx-h100", "--nodes", "4", "--leaf-nics", "8", "--fabric", "fat-tree",
                                  "--size", "1M", "--routing", routing});
    picks.insert(j.at("protocol").get<std::string>() + " on " + std::to_string(j.at("channels").get<int>()));
    times[routing] = j.at("time_ps").get<std::int64_t>();
  }
  INFO(*picks.begin());
  CHECK(picks.size() == 1);
  CHECK(times["single"] > times["ecmp"]);  // one spine link for all 8 NICs' flows
}
TEST_CASE("D-Mod-K on a rail cluster: the 32 hosts of a leaf are reached over 32 spines, each by one spine from any source",
          "[cluster][dmodk][routes]") {
  // 64 DGX H100 on rails of 32-port leaves: rail 0 has leaves of hosts 0..31 and 32..63, and 32
  // spines. D-Mod-K numbers the leaves' ports leaf by leaf (rail 0's first, hosts in order), so the
  // NIC of host h on rail 0 is d = h and a flow to it takes spine h mod 32: the 32 destinations of
  // the second leaf take 32 different spines, and a flow to one destination takes the same spine
  // from every source host (Zahavi et al. 2010).
  ClusterSpec spec;
  spec.nodes = 64;
  spec.fabric = ClusterFabric::Rail;
  Topology t = collsim::topo::generate_cluster(collsim::topo::load_topology("dgx-h100"), spec);
  t.set_routing(collsim::topo::Routing::DModK);
  REQUIRE(t.has_equal_cost_paths());
  collsim::topo::RouteCache routes(t);
  const auto gpu0 = [&](int host) { return *t.find_node("n" + std::to_string(host) + "-gpu0"); };
  const auto spine_of = [&](int from, int to) {
    for (const auto l : routes.get(gpu0(from), gpu0(to)).links)
      if (t.node(t.link(l).to).id.rfind("spine", 0) == 0) return t.node(t.link(l).to).id;
    return std::string("none");
  };
  std::set<std::string> spines;
  for (int h = 32; h < 64; ++h) {
    INFO("to host " << h);
    const std::string s = spine_of(0, h);
    CHECK(s == "spine" + std::to_string(h % 32));
    spines.insert(s);
    for (const int from : {1, 7, 31}) CHECK(spine_of(from, h) == s);
  }
  CHECK(spines.size() == 32);
  CHECK(spine_of(0, 5) == "none");  // the same leaf: no spine
}

}  // namespace cluster_test
