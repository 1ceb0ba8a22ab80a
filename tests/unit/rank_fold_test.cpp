// Rank symmetry (sim/rank_fold.hpp): a rank-symmetric run simulated for one period of ranks must
// give the run of every rank, to the picosecond, and must not fold where it would not.
#include <catch2/catch.hpp>

#include <array>
#include <random>
#include <string>
#include <unordered_set>

#include <fmt/format.h>

#include "algorithms/channels.hpp"
#include "algorithms/registry.hpp"
#include "algorithms/ring_stream.hpp"
#include "sim/engine.hpp"
#include "sim/network/flow_model.hpp"
#include "sim/rank_fold.hpp"
#include "topologies/cluster.hpp"
#include "topologies/generate.hpp"
#include "topologies/hosts.hpp"
#include "topologies/load_json.hpp"

// One namespace per test file: CI builds the tests as unity sources (.ci/run), where each file's
// helpers would otherwise meet the other files'.
namespace rank_fold_test {

using namespace collsim;

namespace {

constexpr Time us(std::int64_t v) { return Time{v * 1'000'000}; }

std::unique_ptr<sched::OpStream> ring(sched::Collective collective, sched::Rank n, Bytes size) {
  algo::Request request;
  request.collective = collective;
  request.nranks = n;
  request.size = size;
  return algo::make_ring_stream(request, collective);
}

struct Runs {
  sim::Result folded, whole;
};

// The stream on the first N GPUs with folding allowed and not; every rank's traffic, every link's
// bytes and busy time and the makespan must agree.
Runs run_both(const sched::OpStream& stream, const topo::Topology& t, sim::RunOptions options = {}) {
  const auto n = stream.header().header.nranks;
  const std::vector<topo::NodeId> gpus(t.gpus().begin(), t.gpus().begin() + n);
  net::FlowModel a(t), b(t);
  Runs r;
  r.folded = sim::run(stream, t, gpus, a, options);
  options.fold_ranks = false;
  r.whole = sim::run(stream, t, gpus, b, options);
  CHECK(r.whole.rank_images == 1);
  CHECK(r.folded.makespan == r.whole.makespan);
  REQUIRE(r.folded.ranks.size() == r.whole.ranks.size());
  for (std::size_t i = 0; i < r.whole.ranks.size(); ++i) {
    INFO("rank " << i);
    CHECK(r.folded.ranks[i].sent == r.whole.ranks[i].sent);
    CHECK(r.folded.ranks[i].received == r.whole.ranks[i].received);
  }
  for (std::size_t l = 0; l < r.whole.links.size(); ++l) {
    INFO("link " << t.link_label(static_cast<topo::LinkId>(l)));
    CHECK(r.folded.links[l].bytes == r.whole.links[l].bytes);
    CHECK(r.folded.links[l].busy == r.whole.links[l].busy);
  }
  CHECK(r.folded.peak_ops_held == r.whole.peak_ops_held);
  return r;
}

}  // namespace

TEST_CASE("rank fold: symmetric ring runs simulate one period and give every rank's and link's result", "[engine][fold]") {
  const Bandwidth bw{400'000'000'000}, net{200'000'000'000};  // 50 and 25 GB/s
  struct Case {
    std::string name;
    topo::Topology topology;
    sched::Rank ranks;
    sched::Rank images;  // N / P: P = 1 on one switch, ring or full mesh; P = one host's GPUs on hosts
  };
  std::vector<Case> cases;
  cases.push_back({"ring", topo::generate_fabric(topo::Fabric::Ring, 8, bw, us(1)), 8, 8});
  cases.push_back({"ring of 2", topo::generate_fabric(topo::Fabric::Ring, 2, bw, us(1)), 2, 2});
  cases.push_back({"switch", topo::generate_fabric(topo::Fabric::Switch, 16, bw, us(1)), 16, 16});
  cases.push_back({"fully connected", topo::generate_fabric(topo::Fabric::FullyConnected, 6, bw, us(1)), 6, 6});
  cases.push_back({"4 hosts of 4", topo::generate_multi_node({16, 4, bw, us(1), net, us(2)}), 16, 4});
  cases.push_back({"8 hosts of 2", topo::generate_multi_node({16, 8, bw, us(1), net, us(2)}), 16, 8});
  for (const auto& c : cases)
    for (const auto collective : {sched::Collective::AllReduce, sched::Collective::ReduceScatter, sched::Collective::AllGather}) {
      INFO(c.name << ", " << sched::collective_name(collective));
      const auto stream = ring(collective, c.ranks, Bytes{c.ranks} << 20);
      sim::RunOptions options;
      options.start = us(3);
      const auto r = run_both(*stream, c.topology, options);
      CHECK(r.folded.rank_images == c.images);
      CHECK(r.folded.events < r.whole.events);
    }
}

TEST_CASE("rank fold: ring all-reduce on 1024 GPUs of a ring takes one rank's 2(N-1) events and the closed form", "[engine][fold]") {
  // bench/simgrid_compare.sh's case: 1 MiB, 25 GB/s, 1 us per link. Each of the 2(N-1) steps moves
  // a 1 KiB chunk one link: 2 x 1023 x (1 us + 1024 B / 25 GB/s = 40.96 ns) = 2129.80416 us (the
  // closed form, and SimGrid's time). Rank 0 alone is simulated: one event per transfer, 2046.
  const auto t = topo::generate_fabric(topo::Fabric::Ring, 1024, Bandwidth{200'000'000'000}, us(1));
  const auto stream = ring(sched::Collective::AllReduce, 1024, Bytes{1} << 20);
  net::FlowModel model(t);
  const std::vector<topo::NodeId> gpus(t.gpus().begin(), t.gpus().end());
  const auto r = sim::run(*stream, t, gpus, model, {});
  CHECK(r.rank_images == 1024);
  CHECK(r.events == 2046);
  CHECK(r.makespan == Time{2'129'804'160});
  CHECK(r.ranks[517].sent == 2046 * 1024);
  CHECK(r.ranks[517].received == 2046 * 1024);
}

TEST_CASE("rank fold: runs that are not rank-symmetric are simulated whole", "[engine][fold]") {
  const Bandwidth bw{400'000'000'000};
  const auto t = topo::generate_fabric(topo::Fabric::Switch, 8, bw, us(1));
  const std::vector<topo::NodeId> gpus(t.gpus().begin(), t.gpus().end());
  SECTION("chunks of two sizes: the ranks' ops differ") {
    // 1,000,000 B over 8 ranks of float32 elements: 31,250 elements each, but a split of bytes
    // into whole elements may leave uneven parts; 1,000,004 B (250,001 elements) surely does.
    const auto stream = ring(sched::Collective::AllReduce, 8, 1'000'004);
    CHECK(stream->rank_period() == 0);
    CHECK(run_both(*stream, t).folded.rank_images == 1);
  }
  SECTION("fewer ranks than GPUs: no rotation fits, but the routes fold every rank apart") {
    // Ranks 0..5 on 6 of the switch's 8 GPUs: the rotation by one GPU moves rank 5's GPU to GPU 6,
    // not rank 0's. Route by route, each ring flow r -> r + 1 (mod 6) crosses its own two links
    // gpu r -> switch -> gpu r+1, alike: P = 1.
    const auto stream = ring(sched::Collective::AllReduce, 6, 6 << 20);
    CHECK(stream->rank_period() == 1);
    CHECK(run_both(*stream, t).folded.rank_images == 6);
  }
  SECTION("a run told of each op") {
    struct Count final : sim::OpObserver {
      std::uint64_t ops = 0;
      void op_done(sched::OpKey, Time, Time) override { ++ops; }
    } count;
    sim::RunOptions options;
    options.op_observer = &count;
    const auto stream = ring(sched::Collective::AllReduce, 8, 8 << 20);
    CHECK(run_both(*stream, t, options).folded.rank_images == 1);
    CHECK(count.ops == 2 * 2 * 7 * 8);  // both runs told of all 112 ops
  }
  SECTION("a half-duplex link between hosts: two ranks' flows share its capacity") {
    // g0, g1 on s0 and g2, g3 on s1; s0 -- s1 half duplex. Moving two GPUs on (s0 <-> s1) maps the
    // topology onto itself, but ring flows 1 -> 2 and 3 -> 0 cross s0 -- s1 in opposite directions
    // and share its one capacity: folding them apart would lose that.
    const auto hosts = [](const char* duplex, const char* name) {
      auto made = topo::parse_topology_json(fmt::format(R"({{"nodes":[{{"id":"g0","type":"gpu"}},{{"id":"g1","type":"gpu"}},
        {{"id":"g2","type":"gpu"}},{{"id":"g3","type":"gpu"}},{{"id":"s0","type":"switch"}},{{"id":"s1","type":"switch"}}],
        "links":[{{"from":"g0","to":"s0","type":"nvswitch","bandwidth":"50GB/s","latency":"1us"}},
        {{"from":"g1","to":"s0","type":"nvswitch","bandwidth":"50GB/s","latency":"1us"}},
        {{"from":"g2","to":"s1","type":"nvswitch","bandwidth":"50GB/s","latency":"1us"}},
        {{"from":"g3","to":"s1","type":"nvswitch","bandwidth":"50GB/s","latency":"1us"}},
        {{"from":"s0","to":"s1","type":"infiniband","bandwidth":"25GB/s","latency":"2us","duplex":"{}"}}]}})", duplex),
                                         name, name);
      made.set_rotation({2, 3, 0, 1, 5, 4}, 2);
      return made;
    };
    const auto two = hosts("half", "two.json");
    const auto stream = ring(sched::Collective::AllReduce, 4, 4 << 20);
    const auto r = run_both(*stream, two);
    CHECK(r.folded.rank_images == 1);
    // The same with a full-duplex link folds to one host (P = 2).
    const auto full = hosts("full", "full.json");
    CHECK(run_both(*stream, full).folded.rank_images == 2);
  }
}

TEST_CASE("rank fold: clusters without a rotation fold by their routes under every routing", "[engine][fold][cluster]") {
  // dgx-h100 hosts, one NIC per GPU. Rail: 8 hosts, 2 per leaf group (--leaf-nics 2), so the ring
  // flow n(h)-gpu7 -> n(h+1)-gpu0 stays on a rail-0 leaf inside a group (through n(h)-gpu0 over
  // NVLink, the shortest route) but crosses a spine, picked by ECMP's hash, between groups: a host
  // is no period (its boundary route is longer), a group of 2 hosts (16 ranks) is: 4 images, each
  // on its own leaf uplink and spine downlink. Fat tree: 4 hosts, one per leaf (--leaf-nics 8):
  // every host-to-host flow crosses a spine, each its own, so a host (8 ranks) is the period.
  struct Case {
    const char* name;
    topo::ClusterFabric fabric;
    std::uint32_t nodes, leaf_nics;
    sched::Rank images;
  };
  const auto machine = topo::load_topology("dgx-h100");
  for (const Case c : {Case{"rail", topo::ClusterFabric::Rail, 8, 2, 4}, Case{"fat tree", topo::ClusterFabric::FatTree, 4, 8, 4}})
    for (const auto routing : {topo::Routing::Ecmp, topo::Routing::Spray, topo::Routing::Single, topo::Routing::DModK}) {
      topo::ClusterSpec spec;
      spec.nodes = c.nodes;
      spec.fabric = c.fabric;
      spec.leaf_nics = c.leaf_nics;
      auto t = topo::generate_cluster(machine, spec);
      t.set_routing(routing);
      REQUIRE(t.rotation() == nullptr);
      const sched::Rank n = c.nodes * 8;
      INFO(c.name << ", routing " << static_cast<int>(routing));
      const auto stream = ring(sched::Collective::AllReduce, n, Bytes{n} << 18);
      const auto r = run_both(*stream, t);
      CHECK(r.folded.rank_images == c.images);
      CHECK(r.folded.events < r.whole.events);
    }
}

TEST_CASE("rank fold: on random clusters a folded run is the whole run, rank for rank and link for link", "[engine][fold][property]") {
  // The fold against the plain reference (every rank simulated) on random inputs: generated
  // clusters of random fabric, size, leaf width, oversubscription and routing, and hand-made ones
  // (hosts of 1-4 GPUs on a switch each, host switches on one or two spines, every link alike) with,
  // half the time, one link made different (slower, or later): a fold must then be refused or still
  // give the whole run's numbers. run_both checks makespan, every rank's and every link's traffic.
  std::mt19937_64 rng(1812);
  const auto machine = topo::load_topology("dgx-h100");
  int folded = 0, whole = 0;
  for (int i = 0; i < 40; ++i) {
    topo::Topology t = [&] {
      if (i % 2 == 0) {
        topo::ClusterSpec spec;
        spec.nodes = 2 + static_cast<std::uint32_t>(rng() % 5);
        spec.fabric = rng() % 2 ? topo::ClusterFabric::Rail : topo::ClusterFabric::FatTree;
        spec.leaf_nics = std::uint32_t{1} << (1 + rng() % 5);
        spec.oversubscription = rng() % 2 ? 1.0 : 2.0;
        auto made = topo::generate_cluster(machine, spec);
        made.set_routing(
            std::array{topo::Routing::Ecmp, topo::Routing::Spray, topo::Routing::Single, topo::Routing::DModK}[rng() % 4]);
        return made;
      }
      const std::uint32_t hosts = 2 + static_cast<std::uint32_t>(rng() % 4), per_host = 1 + static_cast<std::uint32_t>(rng() % 4);
      const std::uint32_t spines = hosts > 2 && rng() % 2 ? 2 : 1;
      const std::uint64_t defect = rng() % 2 ? rng() % (hosts * (per_host + 1)) : ~std::uint64_t{0};
      std::string nodes, links;
      std::uint64_t count = 0;
      const auto link = [&](const std::string& a, const std::string& b, const char* type, const char* bw, const char* lat) {
        const bool odd = count++ == defect;
        links += fmt::format(R"({}{{"from":"{}","to":"{}","type":"{}","bandwidth":"{}","latency":"{}"}})", links.empty() ? "" : ",",
                             a, b, type, odd && defect % 2 ? "20GB/s" : bw, odd && defect % 2 == 0 ? "3us" : lat);
      };
      for (std::uint32_t s = 0; s < spines; ++s) nodes += fmt::format(R"({{"id":"spine{}","type":"switch"}},)", s);
      if (spines == 2) link("spine0", "spine1", "network", "25GB/s", "2us");
      for (std::uint32_t h = 0; h < hosts; ++h) {
        nodes += fmt::format(R"({{"id":"sw{}","type":"switch"}},)", h);
        link(fmt::format("sw{}", h), fmt::format("spine{}", h % spines), "network", "25GB/s", "2us");
        for (std::uint32_t g = 0; g < per_host; ++g) {
          nodes += fmt::format(R"({{"id":"gpu{}","type":"gpu","host":"host{}"}},)", h * per_host + g, h);
          link(fmt::format("gpu{}", h * per_host + g), fmt::format("sw{}", h), "nvswitch", "50GB/s", "1us");
        }
      }
      nodes.pop_back();
      return topo::parse_topology_json(fmt::format(R"({{"nodes":[{}],"links":[{}]}})", nodes, links), "random.json", "random");
    }();
    const auto n = static_cast<sched::Rank>(t.gpus().size());
    const auto collective = std::array{sched::Collective::AllReduce, sched::Collective::ReduceScatter,
                                       sched::Collective::AllGather}[rng() % 3];
    INFO("case " << i << ": " << t.description() << ", " << sched::collective_name(collective) << " on " << n << " ranks");
    const auto stream = ring(collective, n, Bytes{n} << 16);
    (run_both(*stream, t).folded.rank_images > 1 ? folded : whole) += 1;
  }
  // Both outcomes occur: a check that only ever met one would test half of what it says.
  CHECK(folded > 10);
  CHECK(whole > 3);
}

TEST_CASE("rank fold: ring on several channels folds, each channel's ranks placed as NCCL's rings", "[engine][fold][channels]") {
  // algo::stream_with_channels places channel c's ring rotated by c within each host's block (and,
  // on one host, every odd channel reversed). Moving every rank on by one host maps each channel's
  // ring onto itself; on one host, by one rank (a reversed ring moves back). The streams' shift
  // contract (OpStream::rank_period) is checked op by op, then runs against every rank simulated.
  // Where a GPU's one switch link brings it both channels' flows, one from inside its period and
  // one from another (GPU 0 of a host on --nodes: channel 1's from the host's GPU 3, channel 0's
  // from the host before; on one switch: channel 0's from the left, the reversed channel 1's from
  // the right), no period's images run on links of their own, and the run is simulated whole. On a
  // DGX cluster the flow from the host before arrives through GPU 0's own NIC: one host folds.
  const auto registry = algo::builtin_registry();
  const auto& ring_entry = registry.find(sched::Collective::AllReduce, "ring");
  const Bandwidth bw{400'000'000'000}, net{200'000'000'000};
  struct Case {
    const char* name;
    topo::Topology topology;
    std::uint32_t channels;
    sched::Rank period;  // the stream's: one host when channels rotate within hosts
    sched::Rank images;  // the run's N / P: P a multiple of the period whose routes fold
  };
  std::vector<Case> cases;
  cases.push_back({"4 hosts of 4, 3 channels", topo::generate_multi_node({16, 4, bw, us(1), net, us(2)}), 3, 4, 1});
  cases.push_back({"2 hosts of 4, 4 channels", topo::generate_multi_node({8, 2, bw, us(1), net, us(2)}), 4, 4, 1});
  cases.push_back({"one switch of 6, 2 channels (one reversed)", topo::generate_fabric(topo::Fabric::Switch, 6, bw, us(1)), 2, 1, 1});
  // 4 DGX H100 under one set of rail leaves (8 NICs a leaf): every host's flows to the next cross
  // its own NIC links and leaf ports, on both channels.
  topo::ClusterSpec spec;
  spec.nodes = 4;
  spec.fabric = topo::ClusterFabric::Rail;
  spec.leaf_nics = 8;
  cases.push_back({"rail cluster of 4 DGX H100 under ECMP, 2 channels", topo::generate_cluster(topo::load_topology("dgx-h100"), spec), 2, 8, 4});
  for (const auto& c : cases) {
    INFO(c.name);
    const auto n = static_cast<sched::Rank>(c.topology.gpus().size());
    const std::vector<topo::NodeId> gpus(c.topology.gpus().begin(), c.topology.gpus().end());
    algo::Request request;
    request.collective = sched::Collective::AllReduce;
    request.nranks = n;
    request.size = Bytes{n} * c.channels << 16;
    request.hosts = topo::host_indices(c.topology, gpus);
    const auto streamed = algo::stream_with_channels(ring_entry, request, c.channels, false);
    REQUIRE(streamed.stream != nullptr);
    const sched::OpStream& stream = *streamed.stream;
    REQUIRE(stream.rank_period() == c.period);
    // Every op: shift(k, 1) is op k with both ranks moved on by the period; successors commute.
    std::vector<sched::OpKey> todo, next, a, b;
    stream.roots(todo);
    std::unordered_set<sched::OpKey> seen(todo.begin(), todo.end());
    while (!todo.empty()) {
      const sched::OpKey k = todo.back();
      todo.pop_back();
      auto moved = stream.op(k);
      moved.src = (moved.src + c.period) % n;
      moved.dst = (moved.dst + c.period) % n;
      CHECK(stream.op(stream.shift(k, 1)) == moved);
      a.clear();
      b.clear();
      stream.successors(k, a);
      for (auto& x : a) x = stream.shift(x, 1);
      stream.successors(stream.shift(k, 1), b);
      CHECK(a == b);
      next.clear();
      stream.successors(k, next);
      for (const auto x : next)
        if (seen.insert(x).second) todo.push_back(x);
    }
    const auto r = run_both(stream, c.topology);
    CHECK(r.folded.rank_images == c.images);
  }
}

TEST_CASE("rank fold: ranks whose GPUs reduce at other rates are not folded together", "[engine][fold]") {
  // Four GPUs on one switch, every link alike; gpu2 reduces at 100 GB/s where the others take
  // their model's default. With reductions priced (OpCostModel), rank 2's reduce ops cost more than
  // rank 0's: no period of 1 or 2 ranks stands for it.
  const auto star = [](const char* gpu2) {
    return topo::parse_topology_json(fmt::format(R"({{"nodes":[{{"id":"gpu0","type":"gpu"}},{{"id":"gpu1","type":"gpu"}},
      {{"id":"gpu2","type":"gpu"{}}},{{"id":"gpu3","type":"gpu"}},{{"id":"sw","type":"switch"}}],"links":[
      {{"from":"gpu0","to":"sw","type":"nvswitch","bandwidth":"50GB/s","latency":"1us"}},
      {{"from":"gpu1","to":"sw","type":"nvswitch","bandwidth":"50GB/s","latency":"1us"}},
      {{"from":"gpu2","to":"sw","type":"nvswitch","bandwidth":"50GB/s","latency":"1us"}},
      {{"from":"gpu3","to":"sw","type":"nvswitch","bandwidth":"50GB/s","latency":"1us"}}]}})", gpu2),
                                     "star.json", "star");
  };
  const auto t = star(R"(,"reduce_bandwidth":"100GB/s")");
  const auto stream = ring(sched::Collective::AllReduce, 4, 4 << 20);
  const std::vector<topo::NodeId> gpus(t.gpus().begin(), t.gpus().end());
  CHECK_FALSE(sim::plan_rank_fold(*stream, t, gpus).has_value());
  // The same star with gpu2 at the others' rate folds every rank apart.
  const auto fold = sim::plan_rank_fold(*stream, star(""), gpus);
  REQUIRE(fold.has_value());
  CHECK(fold->images == 4);
}

TEST_CASE("rank fold: a rotation must map the topology onto itself", "[topology][fold]") {
  // gpu2's link is 20 GB/s where gpu0's and gpu1's are 10: moving every GPU on by one is no rotation.
  auto t = topo::parse_topology_json(R"({"nodes":[{"id":"gpu0","type":"gpu"},{"id":"gpu1","type":"gpu"},
    {"id":"gpu2","type":"gpu"},{"id":"sw","type":"switch"}],"links":[
    {"from":"gpu0","to":"sw","type":"nvswitch","bandwidth":"10GB/s","latency":"1us"},
    {"from":"gpu1","to":"sw","type":"nvswitch","bandwidth":"10GB/s","latency":"1us"},
    {"from":"gpu2","to":"sw","type":"nvswitch","bandwidth":"20GB/s","latency":"1us"}]})",
                                     "star.json", "star");
  CHECK_THROWS_WITH(t.set_rotation({1, 2, 0, 3}, 1), Catch::Contains("link gpu1->sw and its image gpu2->sw differ"));
  CHECK_THROWS_WITH(t.set_rotation({1, 2, 0, 3}, 2), Catch::Contains("does not go 2 GPUs on"));
  CHECK_THROWS_WITH(t.set_rotation({1, 1, 0, 3}, 1), Catch::Contains("has no image of its own"));
  CHECK(t.rotation() == nullptr);
  // Generated fabrics carry theirs: one GPU on, or one host on.
  CHECK(topo::generate_fabric(topo::Fabric::Switch, 4, Bandwidth{8}, us(1)).rotation()->gpu_shift == 1);
  CHECK(topo::generate_multi_node({12, 3, Bandwidth{8}, us(1), Bandwidth{8}, us(1)}).rotation()->gpu_shift == 4);
}

TEST_CASE("rank fold: the ring stream's shift moves every rank of an op and its successors on by one", "[algorithms][fold]") {
  // OpStream::shift's contract, for every op of ring all-reduce, reduce-scatter and all-gather on 5 ranks.
  for (const auto collective : {sched::Collective::AllReduce, sched::Collective::ReduceScatter, sched::Collective::AllGather}) {
    const auto stream = ring(collective, 5, 5 << 20);
    REQUIRE(stream->rank_period() == 1);
    for (std::uint32_t s = 1; s <= stream->header().steps; ++s)
      for (sched::Rank r = 0; r < 5; ++r) {
        const sched::OpKey k = (sched::OpKey{s} << 32) | r;
        auto moved = stream->op(k);
        moved.src = (moved.src + 1) % 5;
        moved.dst = (moved.dst + 1) % 5;
        CHECK(stream->op(stream->shift(k, 1)) == moved);
        std::vector<sched::OpKey> a, b;
        stream->successors(k, a);
        for (auto& x : a) x = stream->shift(x, 1);
        stream->successors(stream->shift(k, 1), b);
        CHECK(a == b);
      }
  }
}

}  // namespace rank_fold_test
