// The engine and the FIFO cut-through link model on hand-made schedules and topologies.
#include <catch2/catch.hpp>

#include <array>
#include <map>
#include <random>

#include "sim/engine.hpp"
#include "sim/pending_counts.hpp"
#include "algorithms/registry.hpp"
#include "sim/network/fifo_link_model.hpp"
#include "sim/network/flow_model.hpp"
#include "sim/schedule/builder.hpp"
#include "topologies/generate.hpp"
#include "topologies/load_json.hpp"

// One namespace per test file: CI builds the tests as unity sources (.ci/run), where each file's
// helpers would otherwise meet the other files'.
namespace engine_test {

using namespace collsim;

namespace {

// Two GPUs and a switch: gpu0 -- sw -- gpu1, and gpu2 -- sw. 10 GB/s, 1 us per link.
topo::Topology star(std::string_view duplex = "full") {
  const std::string text = R"({"nodes":[{"id":"gpu0","type":"gpu"},{"id":"gpu1","type":"gpu"},{"id":"gpu2","type":"gpu"},
    {"id":"sw","type":"switch"}],"links":[
    {"from":"gpu0","to":"sw","type":"nvswitch","bandwidth":"10GB/s","latency":"1us","duplex":")" +
                           std::string(duplex) + R"("},
    {"from":"gpu1","to":"sw","type":"nvswitch","bandwidth":"10GB/s","latency":"1us"},
    {"from":"gpu2","to":"sw","type":"nvswitch","bandwidth":"20GB/s","latency":"1us"}]})";
  return topo::parse_topology_json(text, "star.json", "star");
}

sim::Result run(const sched::Schedule& s, const topo::Topology& t) {
  net::FifoLinkModel model(t);
  const std::vector<topo::NodeId> gpus(t.gpus().begin(), t.gpus().end());
  return sim::run(s, t, std::span(gpus).first(s.header.nranks), model);
}

constexpr Time us(std::int64_t v) { return Time{v * 1'000'000}; }

}  // namespace

TEST_CASE("a transfer pays the route's summed latency once and moves at the bottleneck rate", "[engine]") {
  // gpu2 -> gpu1: links of 20 and 10 GB/s, 1 us each: 2 us + 10 kB / 10 GB/s = 2 us + 1 us.
  const auto t = star();
  sched::ScheduleBuilder b(sched::Collective::AllReduce, 3, 10000, {sched::Chunk{0, 10000}});
  b.send(2, 1, 0, sched::Combine::Copy, 1);
  const auto r = run(std::move(b).build("t"), t);
  CHECK(r.makespan == us(3));
  CHECK(r.ranks[2].sent == 10000);
  CHECK(r.ranks[1].received == 10000);
}

TEST_CASE("an op's own cost is paid after its data arrives and in the arrival's event", "[engine]") {
  // gpu2 -> gpu1 as above (2 us of latency + 1 us of transmission), then a 5 us cost of its own:
  // the op ends at 8 us, and the next op (gpu1 -> gpu0, 3 us more, no cost) starts then. In the
  // FIFO model each transfer takes two events: its transmission's end and its arrival, which
  // carries the cost (NetworkModel::start's `after`). In the flow model each transfer is alone on
  // its links with nothing queued behind it, so only its arrival is an event (FlowModel's quiet
  // flows). A local op's cost is an event of its own: 2 + 2 + 1 and 1 + 1 + 1.
  const auto t = star();
  sched::ScheduleBuilder b(sched::Collective::AllReduce, 3, 10000, sched::split_even(10000, 2));
  b.send(2, 1, 0, sched::Combine::Copy, 1);
  b.send(1, 0, 0, sched::Combine::Copy, 2);
  b.send(1, 0, 1, 1, sched::Combine::Copy, 3);  // local: chunk 0 into chunk 1 on rank 1
  const auto s = std::move(b).build("t");
  const std::vector<topo::NodeId> gpus(t.gpus().begin(), t.gpus().end());
  sim::RunOptions options;
  options.op_delay = {us(5), Time{0}, us(4)};
  net::FifoLinkModel fifo(t);
  net::FlowModel flow(t);
  for (net::NetworkModel* model : {static_cast<net::NetworkModel*>(&fifo), static_cast<net::NetworkModel*>(&flow)}) {
    INFO(model->name());
    const auto r = sim::run(s, t, gpus, *model, options);
    // 10 kB: 5 kB chunks, 0.5 us each; gpu2 -> gpu1: 2 + 0.5 + 5 = 7.5 us; gpu1 -> gpu0 from then:
    // 7.5 + 2.5 = 10 us; the local op from 7.5 us: 7.5 + 4 = 11.5 us.
    CHECK(r.ops[0].finish == Time{7'500'000});
    CHECK(r.ops[1].ready == Time{7'500'000});
    CHECK(r.ops[1].finish == Time{10'000'000});
    CHECK(r.ops[2].finish == Time{11'500'000});
    CHECK(r.events == (model == &flow ? 3u : 5u));
  }
}

TEST_CASE("two transfers on one link and direction go one after the other, in FIFO order", "[engine][fifo]") {
  // gpu0 -> gpu1 and gpu2 -> gpu1 share sw->gpu1. Each holds its links for 10 kB / 10 GB/s = 1 us
  // and arrives 2 us (two links' latency) later. The second starts when the first frees the link.
  const auto t = star();
  sched::ScheduleBuilder b(sched::Collective::AllReduce, 3, 20000, sched::split_even(20000, 2));
  const auto first = b.send(0, 1, 0, sched::Combine::Copy, 1);
  const auto second = b.send(2, 1, 1, sched::Combine::Copy, 1);
  const auto r = run(std::move(b).build("t"), t);
  CHECK(r.ops[first].finish == us(3));
  CHECK(r.ops[second].finish == us(1) + us(3));
  CHECK(r.makespan == us(4));
}

TEST_CASE("opposite directions of a full-duplex link run together, half duplex serialises them", "[engine][fifo]") {
  // gpu0 -> gpu1 and gpu1 -> gpu0 at once; gpu0's link is full or half duplex.
  // Half duplex: the second starts when the first has serialised its 1 us, and arrives 3 us later.
  for (const auto& [duplex, want] : {std::pair{"full", us(3)}, std::pair{"half", us(4)}}) {
    const auto t = star(duplex);
    sched::ScheduleBuilder b(sched::Collective::AllReduce, 2, 20000, sched::split_even(20000, 2));
    b.send(0, 1, 0, sched::Combine::Copy, 1);
    b.send(1, 0, 1, sched::Combine::Copy, 1);
    INFO(duplex);
    CHECK(run(std::move(b).build("t"), t).makespan == want);
  }
}

TEST_CASE("a dependent op starts when its dependency finishes", "[engine]") {
  const auto t = star();
  sched::ScheduleBuilder b(sched::Collective::AllReduce, 3, 10000, {sched::Chunk{0, 10000}});
  b.send(0, 1, 0, sched::Combine::Reduce, 1);
  const auto next = b.send(1, 2, 0, sched::Combine::Reduce, 2);  // reads what op 0 wrote
  const auto r = run(std::move(b).build("t"), t);
  CHECK(r.ops[next].ready == us(3));
  CHECK(r.ops[next].finish == us(3) + us(2) + us(1));  // 2 us + 10 kB / 10 GB/s (gpu1's link)
  CHECK(r.events == 4);  // each transfer: its links free, then its data arrives
}

TEST_CASE("the engine rejects a rank mapping that does not fit", "[engine]") {
  const auto t = star();
  sched::ScheduleBuilder b(sched::Collective::AllReduce, 2, 10, sched::split_even(10, 2));
  b.send(0, 1, 0, sched::Combine::Copy, 1);
  const auto s = std::move(b).build("t");
  net::FifoLinkModel model(t);
  const std::vector<topo::NodeId> one{0};
  const std::vector<topo::NodeId> same{0, 0};
  const std::vector<topo::NodeId> not_gpu{0, 3};
  CHECK_THROWS_AS(sim::run(s, t, one, model), std::invalid_argument);
  CHECK_THROWS_AS(sim::run(s, t, same, model), std::invalid_argument);
  CHECK_THROWS_AS(sim::run(s, t, not_gpu, model), std::invalid_argument);
}

TEST_CASE("a transfer waiting for one link does not hold another idle link", "[engine][fifo]") {
  // A: gpu0 -> gpu1 starts at once. B: gpu2 -> gpu1 waits for sw->gpu1. C: gpu2 -> gpu0, requested
  // after B, needs gpu2->sw (which B waits on too, but B cannot start) and sw->gpu0: both idle, so
  // C starts at 0 rather than queueing behind B. Each alone: 2 us latency + 10 kB / 10 GB/s.
  const auto t = star();
  sched::ScheduleBuilder b(sched::Collective::AllReduce, 3, 30000, sched::split_even(30000, 3));
  const auto a = b.send(0, 1, 0, sched::Combine::Copy, 1);
  const auto blocked = b.send(2, 1, 1, sched::Combine::Copy, 1);
  const auto c = b.send(2, 0, 2, sched::Combine::Copy, 1);
  const auto r = run(std::move(b).build("t"), t);
  CHECK(r.ops[a].finish == us(3));
  CHECK(r.ops[c].finish == us(3));
  CHECK(r.ops[blocked].finish == us(1) + us(3));  // starts when A and C have freed its links, at 1 us
}

TEST_CASE("flow model: two transfers into one link share it fairly", "[engine][flow]") {
  // gpu0 -> gpu1 and gpu2 -> gpu1 both cross sw->gpu1 (10 GB/s): 5 GB/s each, so 10 kB takes 2 us
  // to transmit and arrives 2 us (two links' latency) later, for both (max-min: half each).
  const auto t = star();
  sched::ScheduleBuilder b(sched::Collective::AllReduce, 3, 20000, sched::split_even(20000, 2));
  const auto first = b.send(0, 1, 0, sched::Combine::Copy, 1);
  const auto second = b.send(2, 1, 1, sched::Combine::Copy, 1);
  const auto s = std::move(b).build("t");
  auto model = net::make_network_model("flow", t);
  const std::vector<topo::NodeId> gpus(t.gpus().begin(), t.gpus().end());
  const auto r = sim::run(s, t, std::span(gpus).first(3), *model);
  CHECK(r.ops[first].finish == us(4));
  CHECK(r.ops[second].finish == us(4));
}

TEST_CASE("flow model: transfers of one connection go in order, not shared", "[engine][flow]") {
  // Two 10 kB transfers gpu0 -> gpu1: the first transmits in 1 us (arrives at 3 us), the second
  // then in the next 1 us (arrives at 4 us), rather than both at half rate arriving at 4 us.
  const auto t = star();
  sched::ScheduleBuilder b(sched::Collective::AllReduce, 2, 20000, sched::split_even(20000, 2));
  const auto first = b.send(0, 1, 0, sched::Combine::Copy, 1);
  const auto second = b.send(0, 1, 1, sched::Combine::Copy, 1);
  const auto s = std::move(b).build("t");
  auto model = net::make_network_model("flow", t);
  const std::vector<topo::NodeId> gpus(t.gpus().begin(), t.gpus().end());
  const auto r = sim::run(s, t, std::span(gpus).first(2), *model);
  CHECK(r.ops[first].finish == us(3));
  CHECK(r.ops[second].finish == us(4));
}

TEST_CASE("flow model: each channel of a route is its own connection", "[engine][flow]") {
  // Five 10 kB transfers gpu0 -> gpu1 launched together on channels 0 1 0 1 2 (one route; the
  // model keeps each route's connections in a table by channel). By hand, 10 GB/s links of 1 us:
  // A (ch 0), B (ch 1) and E (ch 2) share the link at 10/3 GB/s and end transmitting at 3 us,
  // arriving at 5 us; C and D waited behind A and B on their connections, then share at 5 GB/s
  // for 2 us: they arrive at 7 us. One connection for every channel would give 3, 4, 5, 6, 7 us.
  const auto t = star();
  sched::ScheduleBuilder b(sched::Collective::AllReduce, 2, 50000, sched::split_even(50000, 5));
  const std::array<std::uint16_t, 5> channels{0, 1, 0, 1, 2};
  std::vector<sched::OpId> ops;
  for (sched::ChunkId c = 0; c < 5; ++c) ops.push_back(b.send(0, c, 1, c, sched::Combine::Copy, 1, channels[c]));
  const auto s = std::move(b).build("t");
  for (const bool always_solve : {false, true}) {
    net::FlowModel model(t);
    model.set_always_solve(always_solve);
    const std::vector<topo::NodeId> gpus(t.gpus().begin(), t.gpus().end());
    const auto r = sim::run(s, t, std::span(gpus).first(2), model);
    CHECK(r.ops[ops[0]].finish == us(5));
    CHECK(r.ops[ops[1]].finish == us(5));
    CHECK(r.ops[ops[2]].finish == us(7));
    CHECK(r.ops[ops[3]].finish == us(7));
    CHECK(r.ops[ops[4]].finish == us(5));
  }
}

TEST_CASE("flow model: the contention-free fast path gives the solver's times exactly", "[engine][flow]") {
  // The oracle is the same model with the fast path off (every change solved by MaxMinSolver):
  // every op's ready and finish time, the makespan and every link's busy time must be equal, on
  // fabrics where no flow ever shares a link (ring on a ring), where many do (tree, halving-
  // doubling and direct on a switch; rings across hosts sharing uplinks) and on a half-duplex link.
  const auto registry = algo::builtin_registry();
  struct Case {
    std::string algorithm;
    topo::Topology topology;
    std::uint32_t ranks;
    Bytes size;
  };
  const Bandwidth bw{400'000'000'000};
  const Time lat{1'000'000};
  std::vector<Case> cases;
  cases.push_back({"ring", topo::generate_fabric(topo::Fabric::Ring, 8, bw, lat), 8, 1 << 20});
  cases.push_back({"tree", topo::generate_fabric(topo::Fabric::Switch, 16, bw, lat), 16, 16 << 20});
  cases.push_back({"halving-doubling", topo::generate_fabric(topo::Fabric::Switch, 8, bw, lat), 8, 3 << 20});
  cases.push_back({"direct", topo::generate_fabric(topo::Fabric::Switch, 6, bw, lat), 6, 1000});
  cases.push_back({"ring", topo::generate_multi_node({8, 2, bw, lat, Bandwidth{100'000'000'000}, lat}), 8, 1 << 20});
  cases.push_back({"ring", topo::load_topology("dgx-h100-2node-ib400"), 16, 64 << 20});
  cases.push_back({"direct", star("half"), 3, 30000});
  for (const auto& c : cases) {
    INFO(c.algorithm << " on " << c.topology.name());
    algo::Request request;
    request.nranks = c.ranks;
    request.size = c.size;
    const auto schedule = registry.find(sched::Collective::AllReduce, c.algorithm).build(request);
    const std::vector<topo::NodeId> gpus(c.topology.gpus().begin(), c.topology.gpus().begin() + c.ranks);
    net::FlowModel fast(c.topology), solved(c.topology);
    solved.set_always_solve(true);
    const auto a = sim::run(schedule, c.topology, gpus, fast);
    const auto b = sim::run(schedule, c.topology, gpus, solved);
    REQUIRE(a.ops.size() == b.ops.size());
    CHECK(a.makespan == b.makespan);
    CHECK(a.events == b.events);
    for (std::size_t i = 0; i < a.ops.size(); ++i) {
      INFO("op " << i);
      CHECK(a.ops[i].ready == b.ops[i].ready);
      CHECK(a.ops[i].finish == b.ops[i].finish);
    }
    for (std::size_t l = 0; l < a.links.size(); ++l) CHECK(a.links[l].busy == b.links[l].busy);
  }
}

TEST_CASE("flow model: ends due together come in one wake-up, in transfer id order", "[engine][flow]") {
  // Eight 10 kB transfers gpu0 -> gpu1 on channels 0..7 (eight connections of one route) start at
  // once and share gpu0->sw and sw->gpu1 (10 GB/s): 1.25 GB/s each, so all transmit in 8 us and
  // arrive 2 us (two links' latency) later, at 10 us (max-min: an eighth each). The eight starts
  // are solved once, at the flush (flow_model.hpp), and their ends, all due at 8 us, share one
  // wake-up: 1, not one per start (8) nor one per flow and start (1 + 2 + ... + 8 = 36). It ends
  // all eight at 8 us (nothing was transmitted at that picosecond, so an end cannot speed up the
  // others before they end too), then come the 8 arrivals: 1 + 8 events.
  const auto t = star();
  sched::ScheduleBuilder b(sched::Collective::AllGather, 2, 80000, sched::split_even(80000, 8));
  std::vector<sched::OpId> ops;
  for (sched::ChunkId c = 0; c < 8; ++c)
    ops.push_back(b.send(0, c, 1, c, sched::Combine::Copy, 1, static_cast<std::uint16_t>(c)));
  const auto s = std::move(b).build("t");
  net::FlowModel model(t);
  const std::vector<topo::NodeId> gpus(t.gpus().begin(), t.gpus().end());
  const auto r = sim::run(s, t, std::span(gpus).first(2), model);
  for (const auto id : ops) CHECK(r.ops[id].finish == us(10));
  CHECK(r.makespan == us(10));
  CHECK(r.events == 1 + 8);
}

TEST_CASE("a run whose stop flag is set ends with Stopped at its next check, one left clear runs to the end",
          "[engine]") {
  // Ring all-reduce on 64 GPUs of a ring: 2(N-1)N = 8,064 transfers, so more than 4,096 events and
  // at least one check of the flag (every 4,096 events, sim::RunOptions::stop).
  const auto registry = algo::builtin_registry();
  const topo::Topology t = topo::generate_fabric(topo::Fabric::Ring, 64, Bandwidth{25'000'000'000}, us(1));
  const auto s = registry.find(sched::Collective::AllReduce, "ring").build({sched::Collective::AllReduce, 64, 1 << 20});
  const std::vector<topo::NodeId> gpus(t.gpus().begin(), t.gpus().end());
  std::atomic<bool> stop{true};
  sim::RunOptions options;
  options.stop = &stop;
  net::FlowModel stopped(t);
  CHECK_THROWS_AS(sim::run(s, t, gpus, stopped, options), sim::Stopped);
  stop = false;
  net::FlowModel full(t);
  const auto r = sim::run(s, t, gpus, full, options);
  CHECK(r.events > 4096);
  net::FlowModel plain(t);
  CHECK(r.makespan == sim::run(s, t, gpus, plain).makespan);
}

TEST_CASE("the engine's pending dependency counts agree with a std::map on random arrivals", "[engine][stream]") {
  // Plain reference: a std::map from key to missing count. Keys collide in the table's low bits
  // (multiples of 2^20) and the table grows and deletes by backward shift many times.
  sim::PendingCounts table;
  std::map<std::uint64_t, std::uint32_t> reference;
  std::mt19937_64 rng(7);
  for (int round = 0; round < 200000; ++round) {
    const std::uint64_t key = (rng() % 5000) << (round % 2 == 0 ? 20 : 0);
    const std::uint32_t deps = 2 + static_cast<std::uint32_t>(key % 3);
    auto [it, added] = reference.try_emplace(key, deps);
    const bool last = --it->second == 0;
    if (last) reference.erase(it);
    REQUIRE(table.arrive(key, deps) == last);
    REQUIRE(table.size() == reference.size());
  }
  CHECK(reference.size() > 1000);  // many held at once at the end
}
}  // namespace engine_test
