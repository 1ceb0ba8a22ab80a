// ECMP routing (issue 18 item 2): flows hashed onto equal-cost spines, deterministic, collisions as
// real switches have them; single routing keeps every flow on one path.
#include <string>

#include <catch2/catch.hpp>

#include "tests/cli/cli_harness.hpp"
#include "sim/network/maxmin.hpp"
#include "topologies/bundled.hpp"
#include "topologies/load_json.hpp"
#include "topologies/routes.hpp"

// One namespace per test file: CI builds the tests as unity sources (.ci/run), where each file's
// helpers would otherwise meet the other files'.
namespace ecmp_test {

using Catch::Matchers::Contains;
using collsim::testing::check_bad_input;
using collsim::testing::simulate_json;
using collsim::topo::NodeId;
using collsim::topo::Topology;

namespace {

// Two leaves of two GPUs each (g0, g2 on leafA; g1, g3 on leafB: the ranks 0..3 alternate leaves)
// and two spines; every link 10 GB/s and 1 us.
constexpr const char* kLeafSpine = R"({"nodes": [{"id": "g0", "type": "gpu"}, {"id": "g1", "type": "gpu"},
  {"id": "g2", "type": "gpu"}, {"id": "g3", "type": "gpu"}, {"id": "leafA", "type": "switch"},
  {"id": "leafB", "type": "switch"}, {"id": "s0", "type": "switch"}, {"id": "s1", "type": "switch"}],
 "links": [{"from": "g0", "to": "leafA", "type": "infiniband", "bandwidth": "10GB/s", "latency": "1us"},
  {"from": "g2", "to": "leafA", "type": "infiniband", "bandwidth": "10GB/s", "latency": "1us"},
  {"from": "g1", "to": "leafB", "type": "infiniband", "bandwidth": "10GB/s", "latency": "1us"},
  {"from": "g3", "to": "leafB", "type": "infiniband", "bandwidth": "10GB/s", "latency": "1us"},
  {"from": "leafA", "to": "s0", "type": "infiniband", "bandwidth": "10GB/s", "latency": "1us"},
  {"from": "leafA", "to": "s1", "type": "infiniband", "bandwidth": "10GB/s", "latency": "1us"},
  {"from": "leafB", "to": "s0", "type": "infiniband", "bandwidth": "10GB/s", "latency": "1us"},
  {"from": "leafB", "to": "s1", "type": "infiniband", "bandwidth": "10GB/s", "latency": "1us"}]})";

// The spine ECMP picks at `leaf` for a flow: leafA's and leafB's switch links in link order are s0,
// s1, so hash mod 2 indexes them.
std::string spine(NodeId from, NodeId to, std::uint16_t channel, NodeId leaf) {
  return collsim::topo::ecmp_hash(from, to, channel, leaf) % 2 == 0 ? "s0" : "s1";
}

// Ring all-reduce of 1 GiB on 16 DGX H100 on a 2:1 fat tree (4 leaves of 32 NICs, 16 spines) routed
// by `routing`: its time in us.
double two_to_one_us(const char* routing) {
  return simulate_json({"--node", "dgx-h100", "--nodes", "16", "--fabric", "fat-tree", "--oversubscription", "2:1",
                        "--size", "1G", "--routing", routing})["time_us"]
      .get<double>();
}

}  // namespace

TEST_CASE("ECMP: two flows hashed onto one spine collide and take twice as long, as the hash says", "[ecmp]") {
  const Topology t = collsim::topo::parse_topology_json(kLeafSpine, "ls.json", "ls");
  REQUIRE(t.has_equal_cost_paths());
  // sendrecv on 4 ranks: rank r sends S to rank r+1, so g0 -> g1 and g2 -> g3 leave leafA (node 4) for
  // leafB, g1 -> g2 and g3 -> g0 the other way. By the hash, both flows out of leafA pick the same
  // spine (a collision), and both out of leafB too:
  const NodeId g0 = 0, g1 = 1, g2 = 2, g3 = 3, leaf_a = 4, leaf_b = 5;
  REQUIRE(spine(g0, g1, 0, leaf_a) == spine(g2, g3, 0, leaf_a));
  REQUIRE(spine(g1, g2, 0, leaf_b) == spine(g3, g0, 0, leaf_b));
  collsim::topo::RouteCache routes(t);
  CHECK(t.node(t.link(routes.get(g0, g1).links[1]).to).id == spine(g0, g1, 0, leaf_a));
  // So each leaf's uplink to that spine carries two flows at 5 GB/s: t = 2 · S / 10 GB/s + 4 links x
  // 1 us = 2 x 107,374,182.4 us ... = 214,748,364,800 ps + 4,000,000 ps.
  const std::string file = collsim::testing::temp_file("leaf-spine.json", kLeafSpine);
  const auto j = simulate_json({file, "--collective", "sendrecv", "--size", "1G"});
  CHECK(j["time_ps"] == 214'748'364'800 + 4'000'000);
  // The report: 8 directed leaf-spine links; the 4 of the chosen spines carry 2S each, the other 4
  // nothing, so the busiest carries 2S against a mean of S: imbalance 2.
  CHECK(j["switch_link_imbalance"].get<double>() == Approx(2.0));
  REQUIRE(j["busiest_switch_links"].size() == 3);
  CHECK(j["busiest_switch_links"][0]["bytes"] == 2 * 1073741824ull);
  // Channel 1 of the same pair hashes anew (its own route, stable across calls).
  const auto& one = routes.get(g0, g1, 1);
  CHECK(t.node(t.link(one.links[1]).to).id == spine(g0, g1, 1, leaf_a));
  CHECK(&routes.get(g0, g1, 1) == &one);
}

TEST_CASE("D-Mod-K: each leaf's destinations take a spine of their own, so the flows ECMP collided run apart", "[ecmp][dmodk]") {
  Topology t = collsim::topo::parse_topology_json(kLeafSpine, "ls.json", "ls");
  t.set_routing(collsim::topo::Routing::DModK);
  // The links from a leaf down to a GPU, in link order, number the destinations: leafA -> g0 is 0,
  // leafA -> g2 1, leafB -> g1 2, leafB -> g3 3 (Zahavi et al. 2010's d). Each leaf's spines in
  // link order are s0, s1, so a flow to d takes spine d mod 2: to g1 and g0 s0, to g3 and g2 s1.
  const NodeId g0 = 0, g1 = 1, g2 = 2, g3 = 3;
  collsim::topo::RouteCache routes(t);
  const auto spine_of = [&](NodeId from, NodeId to, std::uint16_t channel) {
    return t.node(t.link(routes.get(from, to, channel).links[1]).to).id;
  };
  CHECK(spine_of(g0, g1, 0) == "s0");
  CHECK(spine_of(g2, g3, 0) == "s1");
  CHECK(spine_of(g1, g2, 0) == "s1");
  CHECK(spine_of(g3, g0, 0) == "s0");
  CHECK(spine_of(g2, g1, 0) == "s0");  // by destination only: g2's flow to g1 takes g0's spine
  // Every channel takes the pair's one route.
  CHECK(&routes.get(g0, g1, 5) == &routes.get(g0, g1, 0));
  CHECK_FALSE(routes.get(g0, g1, 0).multipath);
  // sendrecv on 4 ranks (g0 -> g1 and g2 -> g3 out of leafA, g1 -> g2 and g3 -> g0 out of leafB): each
  // leaf uplink carries one flow, so each runs at its NIC's 10 GB/s, as sprayed: S / 10 GB/s + 4
  // links x 1 us = 107,374,182,400 ps + 4,000,000 ps, and every leaf-spine link in use carries S.
  const std::string file = collsim::testing::temp_file("leaf-spine-dmodk.json", kLeafSpine);
  const auto j = simulate_json({file, "--collective", "sendrecv", "--size", "1G", "--routing", "dmodk"});
  CHECK(j["time_ps"] == 107'374'182'400 + 4'000'000);
  CHECK(collsim::testing::link_named(j, "leafA", "s0")["bytes"] == 1073741824);
  CHECK(collsim::testing::link_named(j, "leafA", "s1")["bytes"] == 1073741824);
  CHECK(j["busiest_switch_links"][0]["bytes"] == 1073741824);
  CHECK(j["routing"] == "dmodk");
  // "d-mod-k" is the same routing.
  CHECK(simulate_json({file, "--collective", "sendrecv", "--size", "1G", "--routing", "D-Mod-K"})["time_ps"] ==
        j["time_ps"]);
}

TEST_CASE("D-Mod-K: identical channels share a path, so the folded run gives the unfolded run's times", "[ecmp][dmodk]") {
  // Ring all-reduce on 4 channels over the two leaves: the run on demand folds the channels into
  // one class with 4 copies; --verify runs the materialised schedule with every channel apart.
  const std::string file = collsim::testing::temp_file("leaf-spine-dmodk-channels.json", kLeafSpine);
  const std::vector<std::string> args{file, "--size", "64M", "--channels", "4", "--routing", "dmodk"};
  auto verified = args;
  verified.push_back("--verify");
  const auto folded = simulate_json(args), whole = simulate_json(verified);
  CHECK(folded["time_ps"] == whole["time_ps"]);
  CHECK(folded["links"] == whole["links"]);
  CHECK(folded["per_rank"] == whole["per_rank"]);
  // Where ECMP hashes the channels onto different spines they are simulated apart, and take longer
  // here than D-Mod-K's one spine per destination.
  auto ecmp = args;
  ecmp.back() = "ecmp";
  CHECK(simulate_json(ecmp)["time_ps"].get<std::int64_t>() > folded["time_ps"].get<std::int64_t>());
}

TEST_CASE("topo names the routing where paths tie, and nowhere else", "[ecmp][dmodk][cli]") {
  const std::string file = collsim::testing::temp_file("leaf-spine-topo.json", kLeafSpine);
  const auto dmodk = collsim::testing::run_collsim({"topo", file, "--routing", "d-mod-k"});
  REQUIRE(dmodk.code == 0);
  CHECK_THAT(dmodk.out, Contains("\n  routing: dmodk (how flows take the equal-cost paths between switches; --routing)\n"));
  CHECK_THAT(collsim::testing::run_collsim({"topo", file}).out, Contains("\n  routing: ecmp "));
  // One machine: no two paths tie, so no routing line, whatever --routing says.
  CHECK_THAT(collsim::testing::run_collsim({"topo", "dgx-h100", "--routing", "dmodk"}).out, !Contains("routing"));
  // A cluster of one leaf says so in the singular.
  CHECK_THAT(collsim::testing::run_collsim({"topo", "--node", "dgx-h100", "--nodes", "2", "--fabric", "fat-tree"}).out,
             Contains("; 1 leaf switch of 32 NICs"));
}

TEST_CASE("ECMP lies between the non-blocking time and single-path routing on a 2:1 fat tree", "[ecmp][cluster]") {
  // 16 DGX H100 on a 2:1 fat tree (4 leaves of 32 NICs, 16 spines). Non-blocking, every byte a ring
  // moves between hosts leaves through a host's 8 NICs at 50 GB/s x 0.94: 1 GiB all-reduce on 128
  // ranks takes at least (127/64) x 2^30 B / 376 GB/s = 5.667 ms. Single routing sends every flow
  // from one leaf to another over one spine; ECMP spreads the 24 channels' flows of 8 NICs over 16.
  const double ideal_us = 127.0 / 64 * 1073741824.0 / (376e9 / 1e6);
  const double ecmp = two_to_one_us("ecmp"), single = two_to_one_us("single");
  CHECK(ecmp >= ideal_us);
  CHECK(ecmp < single);
  // Single: a leaf crossing carries the 8 NICs' 24 channels on one 50 GB/s link (x 0.94), 1/8 of the
  // NICs' rate, so at least 8 times the ideal's time at the crossing.
  CHECK(single >= 8 * ideal_us * 0.95);
}

TEST_CASE("bundled machines have no equal-cost paths, so ECMP and single routing agree there", "[ecmp]") {
  for (const auto& b : collsim::topo::bundled_topologies()) {
    INFO(b.name);
    CHECK_FALSE(collsim::topo::load_topology(b.name).has_equal_cost_paths());
  }
  const auto ecmp = simulate_json({"dgx-h100-2node-ib400", "--size", "64M"});
  const auto single = simulate_json({"dgx-h100-2node-ib400", "--size", "64M", "--routing", "single"});
  CHECK(ecmp["time_ps"] == single["time_ps"]);
}

TEST_CASE("a routing other than ecmp, single, spray or dmodk is refused in one line", "[ecmp][cli]") {
  check_bad_input({"simulate", "--size", "1M", "--routing", "random"},
                  "--routing: found \"random\", expected ecmp, single, spray or dmodk");
  CHECK_THROWS_WITH(collsim::topo::parse_topology_json(
                        R"({"routing": "adaptive", "nodes": [{"id": "a", "type": "gpu"}], "links": []})", "r.json", "r"),
                    Contains("/routing") && Contains("\"adaptive\""));
}

TEST_CASE("weighted max-min: a flow sprayed over two paths uses half of each path's links", "[ecmp][spray][maxmin]") {
  // r0 (10) carries a sprayed flow A at weight 1/2 and a plain flow B: the fair share is 10 / (1/2 + 1)
  // = 6.667 for both. r1 (4) carries only C at weight 1/2: C reaches 4 / (1/2) = 8.
  collsim::net::MaxMinSolver solver;
  const auto r0 = solver.add_resource(10.0), r1 = solver.add_resource(4.0);
  const std::vector<std::uint32_t> on_r0{r0}, on_r1{r1};
  const std::vector<double> half{0.5};
  solver.add_flow_over(on_r0, 1, half);
  solver.add_flow_over(on_r0, 1);
  solver.add_flow_over(on_r1, 1, half);
  const auto rate = solver.solve();
  CHECK(rate[0] == Approx(10.0 / 1.5));
  CHECK(rate[1] == Approx(10.0 / 1.5));
  CHECK(rate[2] == Approx(8.0));
  CHECK_THROWS(solver.add_flow_over(on_r0, 1, std::vector<double>{1.5}));
}

TEST_CASE("spray: the colliding flows split over both spines and run at the NICs' rate", "[ecmp][spray]") {
  // The ECMP case above with --routing spray: g0 -> g1 and g2 -> g3 each send half over s0 and half
  // over s1, so each leaf uplink carries two halves (10 GB/s in all) and each flow its NIC's 10 GB/s:
  // t = S / 10 GB/s + 4 links x 1 us = 107,374,182,400 ps + 4,000,000 ps; each uplink carries S.
  const std::string file = collsim::testing::temp_file("leaf-spine-spray.json", kLeafSpine);
  const auto j = simulate_json({file, "--collective", "sendrecv", "--size", "1G", "--routing", "spray"});
  CHECK(j["time_ps"] == 107'374'182'400 + 4'000'000);
  CHECK(collsim::testing::link_named(j, "leafA", "s0")["bytes"] == 1073741824);
  CHECK(collsim::testing::link_named(j, "leafA", "s1")["bytes"] == 1073741824);
  CHECK(j["switch_link_imbalance"].get<double>() == Approx(1.0));  // all 8 carry S
  CHECK(j["routing"] == "spray");
  // The table names the routing with the switch links.
  const auto table = collsim::testing::run_collsim({"simulate", file, "--collective", "sendrecv", "--size", "1G", "--routing", "spray"});
  REQUIRE(table.code == 0);
  CHECK_THAT(table.out, Contains("max/mean 1.00 (routing spray)"));
  // A machine without switch-to-switch links reports none, and no routing: no two paths tie there.
  const auto plain = simulate_json({"dgx-h100", "--size", "1M"});
  CHECK(plain["busiest_switch_links"].empty());
  CHECK(plain["switch_link_imbalance"].is_null());
  CHECK(plain["routing"].is_null());
}

TEST_CASE("spray and D-Mod-K on a 1:1 fat tree are the non-blocking time and on 2:1 ideal <= spray <= ecmp <= single",
          "[ecmp][spray][dmodk][cluster]") {
  // 4 DGX H100, leaves of 8 NICs (one host each) and 8 spines at 1:1, leaf-spine links of 0 ns: sprayed
  // over all 8 spines, every leaf's uplinks carry what its NICs send, so the fabric is non-blocking
  // and the times equal those of one leaf holding all 32 NICs (the same NIC links and latencies, no
  // spine), to the picosecond. D-Mod-K too: NIC j of a host is port j of its leaf, so every flow to
  // it crosses spine j, and leaf -> spine j and spine j -> leaf carry exactly the flows of NIC j's
  // own link out of (into) that host, at its rate.
  const auto time = [](std::vector<std::string> extra) {
    std::vector<std::string> args{"--node", "dgx-h100", "--nodes", "4", "--fabric", "fat-tree", "--switch-latency", "0ns"};
    args.insert(args.end(), extra.begin(), extra.end());
    return simulate_json(args)["time_ps"].get<std::int64_t>();
  };
  for (const std::vector<std::string>& run : {std::vector<std::string>{"--size", "256M"},
                                             std::vector<std::string>{"--size", "64M", "--collective", "alltoall",
                                                                      "--algorithm", "direct"}}) {
    INFO(run.back());
    auto spray = run, dmodk = run, one_leaf = run;
    spray.insert(spray.end(), {"--leaf-nics", "8", "--routing", "spray"});
    dmodk.insert(dmodk.end(), {"--leaf-nics", "8", "--routing", "dmodk"});
    one_leaf.insert(one_leaf.end(), {"--leaf-nics", "32"});
    CHECK(time(spray) == time(one_leaf));
    CHECK(time(dmodk) == time(one_leaf));
  }
  // 16 hosts at 2:1 (ideal bound as in the ECMP case above).
  const double ideal_us = 127.0 / 64 * 1073741824.0 / (376e9 / 1e6);
  const double spray = two_to_one_us("spray"), ecmp = two_to_one_us("ecmp"), single = two_to_one_us("single");
  CHECK(ideal_us <= spray);
  CHECK(spray <= ecmp);
  CHECK(ecmp <= single);
}

TEST_CASE("ECMP refuses, in one line, a run whose unfolded channels would not fit in memory", "[ecmp][cli]") {
  // 400 GPUs on two leaves joined by two spines: direct all-reduce (materialised: it has no stream)
  // on 64 channels is 64 x 3 x N(N-1) = 30,643,200 ops (each rank's N-1 sends into scratch slots, N-1 adds of what
  // arrived, N-1 sends of its sum; direct_allreduce.hpp) once ECMP keeps every channel apart, over
  // the 2^24 = 16,777,216 allowed. (A stream holds O(N) whatever its channels.)
  std::string nodes, links;
  for (int i = 0; i < 400; ++i) {
    nodes += "{\"id\": \"g" + std::to_string(i) + "\", \"type\": \"gpu\"}, ";
    links += "{\"from\": \"g" + std::to_string(i) + "\", \"to\": \"leaf" + std::to_string(i % 2) +
             "\", \"type\": \"infiniband\", \"bandwidth\": \"50GB/s\", \"latency\": \"1us\"}, ";
  }
  for (int l = 0; l < 2; ++l)
    for (int sp = 0; sp < 2; ++sp)
      links += std::string(l + sp == 0 ? "" : ", ") + "{\"from\": \"leaf" + std::to_string(l) + "\", \"to\": \"spine" +
               std::to_string(sp) + "\", \"type\": \"infiniband\", \"bandwidth\": \"50GB/s\", \"latency\": \"1us\"}";
  const std::string file = collsim::testing::temp_file(
      "wide-leaf-spine.json", "{\"nodes\": [" + nodes +
                                  "{\"id\": \"leaf0\", \"type\": \"switch\"}, {\"id\": \"leaf1\", \"type\": \"switch\"}, "
                                  "{\"id\": \"spine0\", \"type\": \"switch\"}, {\"id\": \"spine1\", \"type\": \"switch\"}], "
                                  "\"links\": [" + links + "]}");
  check_bad_input({"simulate", file, "--size", "1G", "--channels", "64", "--protocol", "simple", "--algorithm", "direct"},
                  "--routing: under ECMP each of the 64 channels takes its own spines, so they are simulated one by one: "
                  "30643200 transfers, more than the 16777216 that fit in memory here; expected fewer --channels or fewer "
                  "ranks, or a routing that keeps a pair's channels on one path (dmodk, single or spray)");
}
TEST_CASE("RouteCache: more peers than a node remembers and clear() give the routes a fresh cache finds", "[ecmp][routes]") {
  // Every pair of the four GPUs on every channel 0..5, asked twice in two orders: each GPU asks for
  // 3 peers x 6 channels, more than the four routes a node remembers, so remembered and replaced
  // entries both answer. The reference is a fresh cache per pair, which remembers nothing.
  const Topology t = collsim::topo::parse_topology_json(kLeafSpine, "ls.json", "ls");
  const auto reference = [&](NodeId from, NodeId to, std::uint16_t channel) {
    collsim::topo::RouteCache fresh(t);
    return fresh.get(from, to, channel).links;
  };
  collsim::topo::RouteCache cache(t);
  for (int round = 0; round < 2; ++round) {
    for (NodeId from = 0; from < 4; ++from)
      for (std::uint16_t channel = 0; channel < 6; ++channel)
        for (NodeId k = 1; k < 4; ++k) {
          const NodeId to = round == 0 ? (from + k) % 4 : (from + 4 - k) % 4;
          INFO("round " << round << ": " << from << " -> " << to << " channel " << channel);
          CHECK(cache.get(from, to, channel).links == reference(from, to, channel));
        }
    // Forgotten: nothing made, nothing remembered (ASan would catch a remembered dangling route).
    CHECK(cache.size() != 0);
    cache.clear();
    CHECK(cache.size() == 0);
  }
}
}  // namespace ecmp_test
