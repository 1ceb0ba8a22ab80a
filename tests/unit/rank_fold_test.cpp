// Rank symmetry (sim/rank_fold.hpp): a rank-symmetric run simulated for one period of ranks must
// give the run of every rank, to the picosecond, and must not fold where it would not.
#include <catch2/catch.hpp>

#include <string>

#include <fmt/format.h>

#include "algorithms/ring_stream.hpp"
#include "sim/engine.hpp"
#include "sim/network/flow_model.hpp"
#include "sim/rank_fold.hpp"
#include "topologies/generate.hpp"
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
  SECTION("fewer ranks than GPUs: the rotation does not move rank r's GPU to rank r + 1's") {
    const auto stream = ring(sched::Collective::AllReduce, 6, 6 << 20);
    CHECK(stream->rank_period() == 1);
    CHECK(run_both(*stream, t).folded.rank_images == 1);
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
