// Schedules on demand (sched::OpStream, issue 7 point 2): every algorithm's stream against its
// materialised schedule, which is the oracle (the builder infers its dependencies from data flow).
#include <catch2/catch.hpp>

#include <random>
#include <algorithm>
#include <functional>
#include <optional>
#include <map>
#include <tuple>

#include "algorithms/registry.hpp"
#include "algorithms/ring_stream.hpp"
#include "sim/engine.hpp"
#include "sim/network/fifo_link_model.hpp"
#include "sim/network/flow_model.hpp"
#include "topologies/cluster.hpp"
#include "topologies/generate.hpp"
#include "topologies/load_json.hpp"

// One namespace per test file: CI builds the tests as unity sources (.ci/run), where each file's
// helpers would otherwise meet the other files'.
namespace op_stream_test {

using namespace collsim;

namespace {

// Per-op (ready, finish), by the op's (step, src, dst) as both forms name it.
struct Timings final : sim::OpObserver {
  using Name = std::tuple<std::uint32_t, sched::Rank, sched::Rank>;
  std::function<Name(sched::OpKey)> name;
  std::map<Name, std::pair<Time, Time>> by_name;
  void op_done(sched::OpKey key, Time ready, Time finish) override {
    const bool added = by_name.emplace(name(key), std::make_pair(ready, finish)).second;
    if (!added) FAIL("two ops with one (step, src, dst)");
  }
};

const Bandwidth kBw{400'000'000'000};  // 50 GB/s
const Time kLat{1'000'000};            // 1 us

// Runs `stream` and the materialised `schedule` on `topology` with the network model `model` and
// checks that they agree on everything a run reports.
void check_same_run(const sched::OpStream& stream, const sched::Schedule& schedule, const topo::Topology& topology,
                    std::string_view model, const sim::CostSettings* costs = nullptr) {
  const std::vector<topo::NodeId> gpus(topology.gpus().begin(), topology.gpus().begin() + schedule.header.nranks);
  const auto lazy_net = net::make_network_model(model, topology);
  const auto built_net = net::make_network_model(model, topology);
  Timings lazy, built;
  lazy.name = [&](sched::OpKey k) {
    const auto op = stream.op(k);
    return Timings::Name{static_cast<std::uint32_t>(k >> 32), op.src, op.dst};
  };
  built.name = [&](sched::OpKey k) {
    const auto& op = schedule.ops[k];
    return Timings::Name{op.step, op.src, op.dst};
  };
  sim::RunOptions lazy_options, built_options;
  lazy_options.op_observer = &lazy;
  built_options.op_observer = &built;
  // Costs: the stream's priced by the model as its ops start, the schedule's given per op up front.
  std::optional<sim::OpCostModel> priced;
  if (costs) {
    priced.emplace(topology, gpus, *costs);
    lazy_options.op_costs = &*priced;
    topo::RouteCache routes(topology);
    for (sched::OpId i = 0; i < schedule.ops.size(); ++i) {
      const auto& op = schedule.ops[i];
      built_options.op_delay.push_back(priced->delay(
          op.src, op.dst, schedule.op_bytes(i), op.combine == sched::Combine::Reduce,
          op.src == op.dst ? nullptr : &routes.get(gpus[op.src], gpus[op.dst], op.channel)));
    }
  }
  const auto a = sim::run(stream, topology, gpus, *lazy_net, lazy_options);
  const auto b = sim::run(schedule, topology, gpus, *built_net, built_options);
  CHECK(a.ops.empty());  // nothing per op is kept for a stream
  CHECK(a.makespan == b.makespan);
  CHECK(a.events == b.events);
  CHECK(lazy.by_name == built.by_name);
  REQUIRE(a.ranks.size() == b.ranks.size());
  for (std::size_t r = 0; r < a.ranks.size(); ++r) {
    CHECK(a.ranks[r].sent == b.ranks[r].sent);
    CHECK(a.ranks[r].received == b.ranks[r].received);
  }
  for (std::size_t l = 0; l < a.links.size(); ++l) {
    CHECK(a.links[l].bytes == b.links[l].bytes);
    CHECK(a.links[l].busy == b.links[l].busy);
  }
}

}  // namespace

TEST_CASE("ring all-reduce, reduce-scatter and all-gather on demand are the materialised rings, op for op and to "
          "the picosecond",
          "[stream]") {
  const auto registry = algo::builtin_registry();
  const auto collective = GENERATE(sched::Collective::AllReduce, sched::Collective::ReduceScatter,
                                   sched::Collective::AllGather);
  INFO(sched::collective_name(collective));
  const auto& ring = registry.find(collective, "ring");
  REQUIRE(ring.stream != nullptr);
  // Sizes: empty, the seed's 6 float32 elements on 3 GPUs (24 bytes), fewer elements than ranks,
  // and sizes that N does not divide.
  for (const sched::Rank n : {1U, 2U, 3U, 4U, 5U, 8U, 13U, 32U})
    for (const Bytes size : {Bytes{0}, Bytes{24}, Bytes{1000}, (Bytes{1} << 20) + 3}) {
      INFO("N = " << n << ", S = " << size);
      algo::Request request;
      request.collective = collective;
      request.nranks = n;
      request.size = size;
      const sched::Schedule schedule = ring.build(request);
      const auto stream = ring.stream(request);
      // The header is the schedule's without its ops.
      sched::Schedule shell = schedule;
      shell.ops.clear();
      shell.deps.clear();
      shell.dep_offsets = {0};
      CHECK(stream->header() == shell);
      REQUIRE(stream->op_count() == schedule.ops.size());
      // Every op of the schedule is the stream's op of the same (step, sender), with a dependency
      // exactly when it has one.
      for (sched::OpId i = 0; i < schedule.ops.size(); ++i) {
        const sched::Op& op = schedule.ops[i];
        const auto s = stream->op((sched::OpKey{op.step} << 32) | op.src);
        CHECK(s == sched::StreamOp{op.src, op.dst, schedule.op_bytes(i), op.channel,
                                   schedule.deps_of(i).empty() ? 0U : 1U, op.combine == sched::Combine::Reduce});
      }
      for (const auto fabric : {topo::Fabric::Switch, topo::Fabric::Ring})
        for (const std::string_view model : {"flow", "fifo"}) {
          INFO(topo::fabric_name(fabric) << ", " << model);
          check_same_run(*stream, schedule, topo::generate_fabric(fabric, n, kBw, kLat), model);
        }
      if (n <= 8) check_same_run(*stream, schedule, topo::load_topology("dgx-a100"), "flow");
    }
}

TEST_CASE("ring all-reduce on demand equals the closed form 2(N-1)(2a + ceil(S/N)/B) on a switch", "[stream]") {
  // Issue 7's large cases at a size a unit test can afford: N = 512, S = 1 GiB, 50 GB/s, 1 us per
  // link (two links a step): 2·511·(2 us + ceil(2^30/512) B / 50 GB/s) = 2·511·(2 + 41.94304) us.
  const auto registry = algo::builtin_registry();
  algo::Request request;
  request.nranks = 512;
  request.size = Bytes{1} << 30;
  const auto stream = registry.find(sched::Collective::AllReduce, "ring").stream(request);
  const topo::Topology topology = topo::generate_fabric(topo::Fabric::Switch, 512, kBw, kLat);
  net::FlowModel network(topology);
  const auto result = sim::run(*stream, topology, topology.gpus(), network, {});
  CHECK(result.makespan == Time{std::int64_t{2} * 511 * (2'000'000 + 41'943'040)});
  CHECK(result.ops.empty());
  // O(N) memory: an op (s + 1, r + 1) starts only once (s, r) has finished, so at most one op per
  // rank is held, against 2·511·512 ops in all.
  CHECK(result.peak_ops_held <= 512);
  CHECK(result.peak_ops_held >= 256);
  for (const auto& r : result.ranks) CHECK(r.sent == 2 * 511 * (Bytes{1} << 21));
}

TEST_CASE("ring on demand with a protocol's step latencies and reduction costs is the materialised ring with "
          "its per-op delays, op for op",
          "[stream]") {
  // Two DGX H100 on a rail fabric: NVLink steps inside a host and network steps between them have
  // different latencies (NCCL's simple protocol, model_params), and every reduce-scatter op costs
  // its bytes at the H100's reduction bandwidth. Hand-set costs, so the test does not depend on
  // the bundled parameters: 1 us per NVLink step, 5 us per network step, 1 TB/s reductions.
  const auto registry = algo::builtin_registry();
  topo::ClusterSpec spec;
  spec.nodes = 2;
  spec.fabric = topo::ClusterFabric::Rail;
  const topo::Topology topology = topo::generate_cluster(topo::load_topology("dgx-h100"), spec);
  sim::CostSettings costs;
  costs.protocol = topo::Protocol::Simple;
  costs.step_latency = {Time{1'000'000}, Time{3'000'000}, Time{5'000'000}};
  costs.reduction_cost = true;
  for (const auto collective : {sched::Collective::AllReduce, sched::Collective::ReduceScatter,
                                sched::Collective::AllGather})
    for (const Bytes size : {Bytes{24}, (Bytes{1} << 20) + 3}) {
      INFO(sched::collective_name(collective) << ", S = " << size);
      algo::Request request;
      request.collective = collective;
      request.nranks = 16;
      request.size = size;
      const auto& ring = registry.find(collective, "ring");
      check_same_run(*ring.stream(request), ring.build(request), topology, "flow", &costs);
    }
  // The costs are not lost: the same ring without them ends earlier by at least its 2(N-1) steps'
  // latencies, most of them NVLink steps (1 us).
  algo::Request request;
  request.nranks = 16;
  request.size = Bytes{1} << 20;
  const auto stream = registry.find(sched::Collective::AllReduce, "ring").stream(request);
  const std::vector<topo::NodeId> gpus(topology.gpus().begin(), topology.gpus().begin() + 16);
  const sim::OpCostModel model(topology, gpus, costs);
  sim::RunOptions options;
  options.op_costs = &model;
  net::FlowModel with_net(topology), without_net(topology);
  const auto with = sim::run(*stream, topology, gpus, with_net, options);
  const auto without = sim::run(*stream, topology, gpus, without_net, {});
  CHECK(with.makespan - without.makespan >= Time{2 * 15 * 1'000'000});
}

TEST_CASE("a stream that is not a materialised schedule takes no per-op delays", "[stream]") {
  algo::Request request;
  request.nranks = 4;
  request.size = 4096;
  const auto stream = algo::builtin_registry().find(sched::Collective::AllReduce, "ring").stream(request);
  const topo::Topology topology = topo::generate_fabric(topo::Fabric::Switch, 4, kBw, kLat);
  net::FlowModel network(topology);
  sim::RunOptions options;
  options.op_delay.assign(stream->op_count(), Time{1});
  CHECK_THROWS_AS(sim::run(*stream, topology, topology.gpus(), network, options), std::invalid_argument);
}

namespace {

// Two chains of roots: C sends of 1 MB from rank 0 to rank 1 on one connection, and C local ops
// on rank 1 (which begin as they are launched). Nothing depends on anything.
class TwoChains final : public sched::OpStream {
 public:
  static constexpr sched::OpKey kC = 4;
  TwoChains() {
    sched::ScheduleHeader h;
    h.nranks = 2;
    h.size = 1'000'000;
    header_ = sched::schedule_without_ops(h, {});
  }
  const sched::Schedule& header() const override { return header_; }
  std::uint64_t op_count() const override { return 2 * kC; }
  void roots(std::vector<sched::OpKey>& out) const override {
    for (sched::OpKey k = 0; k < 2 * kC; ++k) out.push_back(k);
  }
  sched::StreamOp op(sched::OpKey k) const override {
    return k < kC ? sched::StreamOp{0, 1, 1'000'000, 0, 0, false, false} : sched::StreamOp{1, 1, 1'000'000, 0, 0, true, false};
  }
  void successors(sched::OpKey, std::vector<sched::OpKey>&) const override {}
  sched::OpKey root_after(sched::OpKey k) const override { return k + 1 == kC || k + 1 == 2 * kC ? sched::kNoOpKey : k + 1; }
  void chain_heads(std::vector<sched::OpKey>& out) const override {
    out.push_back(0);
    out.push_back(kC);
  }

 private:
  sched::Schedule header_;
};

}  // namespace

TEST_CASE("chained roots, local ones too, run as every root launched at the start", "[stream][chain]") {
  // By hand: the 4 sends of 1 MB share one connection at 50 GB/s, 20 us each, one after the other;
  // the last leaves at 80 us and arrives over the switch's two links of 1 us at 82 us. Every root is
  // ready at the start, chained or not.
  const TwoChains stream;
  const topo::Topology topology = topo::generate_fabric(topo::Fabric::Switch, 2, kBw, kLat);
  for (const bool chained : {false, true}) {
    INFO("chained " << chained);
    net::FlowModel network(topology);
    Timings t;
    t.name = [](sched::OpKey k) { return Timings::Name{static_cast<std::uint32_t>(k), 0, 0}; };
    sim::RunOptions options;
    options.chain_roots = chained;
    options.op_observer = &t;
    const sim::Result r = sim::run(stream, topology, topology.gpus(), network, options);
    CHECK(r.makespan == Time{82'000'000});
    REQUIRE(t.by_name.size() == 8);
    for (std::uint32_t k = 0; k < 4; ++k) {
      CHECK(t.by_name.at({k, 0, 0}).first == Time{0});
      CHECK(t.by_name.at({k, 0, 0}).second == Time{20'000'000} * (k + 1) + Time{2'000'000});
      CHECK(t.by_name.at({k + 4, 0, 0}) == std::make_pair(Time{0}, Time{0}));
    }
  }
}

namespace {

// Random chains of roots: chain i sends `len[i]` transfers of random sizes from src[i] to dst[i] on
// channel 0 (pairs distinct, so no two chains share a connection), and each of its transfers has
// one successor, a send on channel 1 from the receiver to a random rank (or a local op), which
// contends with the chains on the shared links. Keys: chain << 16 | element << 1 | (0 chain, 1 successor).
class RandomChains final : public sched::OpStream {
 public:
  RandomChains(std::mt19937_64& rng, sched::Rank ranks) {
    sched::ScheduleHeader h;
    h.nranks = ranks;
    h.size = 1;
    header_ = sched::schedule_without_ops(h, {});
    std::vector<std::pair<sched::Rank, sched::Rank>> pairs;
    for (sched::Rank a = 0; a < ranks; ++a)
      for (sched::Rank b = 0; b < ranks; ++b)
        if (a != b) pairs.emplace_back(a, b);
    std::shuffle(pairs.begin(), pairs.end(), rng);
    pairs.resize(std::min<std::size_t>(pairs.size(), 2 + rng() % 10));
    for (const auto& [a, b] : pairs) {
      Chain c{a, b, {}, {}};
      for (std::uint32_t k = 0, n = 1 + static_cast<std::uint32_t>(rng() % 6); k < n; ++k) {
        c.bytes.push_back(1 + rng() % 200'000);
        c.next.push_back(static_cast<sched::Rank>(rng() % ranks));
      }
      ops_ += 2 * c.bytes.size();
      chains_.push_back(std::move(c));
    }
  }
  const sched::Schedule& header() const override { return header_; }
  std::uint64_t op_count() const override { return ops_; }
  void roots(std::vector<sched::OpKey>& out) const override {
    for (sched::OpKey i = 0; i < chains_.size(); ++i)
      for (sched::OpKey k = 0; k < chains_[i].bytes.size(); ++k) out.push_back(i << 16 | k << 1);
  }
  sched::StreamOp op(sched::OpKey key) const override {
    const Chain& c = chains_[key >> 16];
    const std::size_t k = (key >> 1) & 0x7FFF;
    if ((key & 1) == 0) return sched::StreamOp{c.src, c.dst, c.bytes[k], 0, 0, false, false};
    return sched::StreamOp{c.dst, c.next[k], c.bytes[k] / 2 + 1, 1, 1, false, false};
  }
  void successors(sched::OpKey key, std::vector<sched::OpKey>& out) const override {
    if ((key & 1) == 0) out.push_back(key | 1);
  }
  sched::OpKey root_after(sched::OpKey key) const override {
    const std::size_t k = (key >> 1) & 0x7FFF;
    return (key & 1) != 0 || k + 1 == chains_[key >> 16].bytes.size() ? sched::kNoOpKey : key + 2;
  }
  void chain_heads(std::vector<sched::OpKey>& out) const override {
    for (sched::OpKey i = 0; i < chains_.size(); ++i) out.push_back(i << 16);
  }

 private:
  struct Chain {
    sched::Rank src, dst;
    std::vector<Bytes> bytes;
    std::vector<sched::Rank> next;
  };
  sched::Schedule header_;
  std::vector<Chain> chains_;
  std::uint64_t ops_ = 0;
};

}  // namespace

TEST_CASE("random chains of roots on shared links run as every root launched at the start, op for op",
          "[stream][chain]") {
  // The oracle: the same stream with every root launched at t = 0 (RunOptions::chain_roots =
  // false). 60 random streams on 3 hosts of 2 GPUs behind 10 GB/s uplinks (contended) and on a
  // ring of 6 (multi-hop), flow model.
  std::mt19937_64 rng(24);
  const Time lat{1'000'000};
  std::vector<topo::Topology> fabrics;
  fabrics.push_back(topo::generate_multi_node({6, 3, kBw, lat, Bandwidth{80'000'000'000}, lat}));
  fabrics.push_back(topo::generate_fabric(topo::Fabric::Ring, 6, kBw, lat));
  for (int trial = 0; trial < 60; ++trial) {
    const RandomChains stream(rng, 6);
    const topo::Topology& topology = fabrics[static_cast<std::size_t>(trial) % fabrics.size()];
    std::map<sched::OpKey, std::pair<Time, Time>> times[2];
    sim::Result result[2];
    for (int chained = 0; chained < 2; ++chained) {
      struct Rows final : sim::OpObserver {
        std::map<sched::OpKey, std::pair<Time, Time>>* out;
        void op_done(sched::OpKey key, Time ready, Time finish) override { (*out)[key] = {ready, finish}; }
      } rows;
      rows.out = &times[chained];
      net::FlowModel network(topology);
      sim::RunOptions options;
      options.chain_roots = chained == 1;
      options.op_observer = &rows;
      result[chained] = sim::run(stream, topology, topology.gpus(), network, options);
    }
    INFO("trial " << trial);
    CHECK(result[1].makespan == result[0].makespan);
    CHECK(result[1].events == result[0].events);
    CHECK(times[1] == times[0]);
    REQUIRE(times[1].size() == stream.op_count());
  }
}

TEST_CASE("the ring stream serves only the collectives of the ring walk", "[stream]") {
  algo::Request request;
  request.nranks = 4;
  CHECK_THROWS_AS(algo::make_ring_stream(request, sched::Collective::Broadcast), std::invalid_argument);
  CHECK_THROWS_AS(algo::make_ring_stream(request, sched::Collective::AllToAll), std::invalid_argument);
}
}  // namespace op_stream_test
