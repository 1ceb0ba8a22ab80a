// The flow model's quiet flows (flow_model.hpp: a flow alone on its resources, with nothing queued
// behind it, has no end event, only its arrival; issue 18, item 4) against the same model with them
// off (set_quiet(false): every end an event), and on hand-derived cases for each way a quiet flow
// ends: at its arrival, by a newcomer after its end (retired at its end), by a newcomer before its
// end (made ordinary and slowed), and by a transfer queued behind it on its connection.
#include <catch2/catch.hpp>

#include <random>

#include "algorithms/registry.hpp"
#include "sim/engine.hpp"
#include "sim/network/flow_model.hpp"
#include "sim/schedule/builder.hpp"
#include "tests/unit/random_network.hpp"
#include "topologies/generate.hpp"
#include "topologies/load_json.hpp"

// One namespace per test file: CI builds the tests as unity sources (.ci/run), where each file's
// helpers would otherwise meet the other files'.
namespace flow_quiet_test {

using namespace collsim;

namespace {

constexpr Time us(std::int64_t v) { return Time{v * 1'000'000}; }

// gpu0 -- sw -- gpu1 at 10 GB/s, gpu2 -- sw at 20 GB/s, 1 us per link (engine_test's star).
topo::Topology star() {
  const std::string text = R"({"nodes":[{"id":"gpu0","type":"gpu"},{"id":"gpu1","type":"gpu"},{"id":"gpu2","type":"gpu"},
    {"id":"sw","type":"switch"}],"links":[
    {"from":"gpu0","to":"sw","type":"nvswitch","bandwidth":"10GB/s","latency":"1us"},
    {"from":"gpu1","to":"sw","type":"nvswitch","bandwidth":"10GB/s","latency":"1us"},
    {"from":"gpu2","to":"sw","type":"nvswitch","bandwidth":"20GB/s","latency":"1us"}]})";
  return topo::parse_topology_json(text, "star.json", "star");
}

// Directed link ids of star(): link i of the file is 2i (from -> to) and 2i + 1 (back).
constexpr topo::LinkId kGpu0Up = 0, kSwToGpu1 = 3, kGpu2Up = 4;

struct Runs {
  sim::Result quiet, loud;
};

// The schedule with quiet flows on and off; both must give every op and link the same times.
Runs run_both(const sched::Schedule& s, const topo::Topology& t, const sim::RunOptions& options = {}) {
  const std::vector<topo::NodeId> gpus(t.gpus().begin(), t.gpus().begin() + s.header.nranks);
  net::FlowModel quiet(t), loud(t);
  loud.set_quiet(false);
  Runs r{sim::run(s, t, gpus, quiet, options), sim::run(s, t, gpus, loud, options)};
  REQUIRE(r.quiet.ops.size() == r.loud.ops.size());
  for (std::size_t i = 0; i < r.quiet.ops.size(); ++i) {
    INFO("op " << i);
    CHECK(r.quiet.ops[i].ready == r.loud.ops[i].ready);
    CHECK(r.quiet.ops[i].finish == r.loud.ops[i].finish);
  }
  for (std::size_t l = 0; l < r.quiet.links.size(); ++l) CHECK(r.quiet.links[l].busy == r.loud.links[l].busy);
  return r;
}

}  // namespace

TEST_CASE("flow model: a transfer alone on its links takes one event, its arrival", "[engine][flow]") {
  // gpu0 -> gpu1 (10 kB at 10 GB/s: 1 us, then 2 us of latency: arrives at 3 us), then gpu1 -> gpu2
  // (10 GB/s on gpu1's link: 1 us + 2 us, from 3 to 6 us). Each is alone with nothing queued behind
  // it: one event each (the arrival), against two with every end an event.
  const auto t = star();
  sched::ScheduleBuilder b(sched::Collective::AllReduce, 3, 10000, {sched::Chunk{0, 10000}});
  const auto first = b.send(0, 1, 0, sched::Combine::Copy, 1);
  const auto second = b.send(1, 2, 0, sched::Combine::Copy, 2);
  const auto r = run_both(std::move(b).build("t"), t);
  CHECK(r.quiet.ops[first].finish == us(3));
  CHECK(r.quiet.ops[second].finish == us(6));
  CHECK(r.quiet.links[kGpu0Up].busy == us(1));  // transmitting from 0 to 1 us
  CHECK(r.quiet.events == 2);
  CHECK(r.loud.events == 4);
}

TEST_CASE("flow model: a newcomer after a quiet flow's end finds its links free", "[engine][flow]") {
  // gpu0 -> gpu1, 10 kB, transmits from 0 to 1 us and arrives at 3 us. A local op of 2 us on rank 2
  // starts gpu2 -> gpu1 (10 kB) at 2 us, on sw -> gpu1 which the first left at 1 us: alone, from 2
  // to 3 us at 10 GB/s, arriving at 5 us. sw -> gpu1 was busy 1 us for each. Events: the local op's
  // end and the two arrivals (3), against 5 with ends as events.
  const auto t = star();
  sched::ScheduleBuilder b(sched::Collective::AllReduce, 3, 30000, sched::split_even(30000, 3));
  const auto first = b.send(0, 0, 1, 0, sched::Combine::Copy, 1);
  b.send(2, 1, 2, 2, sched::Combine::Copy, 1);  // local: rank 2's chunk 1 into its chunk 2
  const auto newcomer = b.send(2, 2, 1, 2, sched::Combine::Copy, 2);
  sim::RunOptions options;
  options.op_delay = {Time{0}, us(2), Time{0}};
  const auto r = run_both(std::move(b).build("t"), t, options);
  CHECK(r.quiet.ops[first].finish == us(3));
  CHECK(r.quiet.ops[newcomer].ready == us(2));
  CHECK(r.quiet.ops[newcomer].finish == us(5));
  CHECK(r.quiet.links[kSwToGpu1].busy == us(2));
  CHECK(r.quiet.links[kGpu2Up].busy == us(1));
  CHECK(r.quiet.events == 3);
  CHECK(r.loud.events == 5);
}

TEST_CASE("flow model: a newcomer before a quiet flow's end shares its link and slows it", "[engine][flow]") {
  // gpu0 -> gpu1, 20 kB, alone from 0 (it would transmit until 2 us and arrive at 4 us). At 1 us a
  // local op starts gpu2 -> gpu1 (10 kB) onto sw -> gpu1: from then each gets 5 GB/s (max-min on
  // 10 GB/s; gpu2's own link is 20 GB/s), so both have 10 kB left and end transmitting at 1 + 2 =
  // 3 us, arriving at 5 us. sw -> gpu1 and gpu0 -> sw were busy from 0 to 3 us, gpu2 -> sw from 1 to 3.
  const auto t = star();
  sched::ScheduleBuilder b(sched::Collective::AllReduce, 3, 40000,
                           {sched::Chunk{0, 20000}, sched::Chunk{20000, 10000}, sched::Chunk{30000, 10000}});
  const auto first = b.send(0, 0, 1, 0, sched::Combine::Copy, 1);
  b.send(2, 1, 2, 2, sched::Combine::Copy, 1);
  const auto newcomer = b.send(2, 2, 1, 2, sched::Combine::Copy, 2);
  sim::RunOptions options;
  options.op_delay = {Time{0}, us(1), Time{0}};
  const auto r = run_both(std::move(b).build("t"), t, options);
  CHECK(r.quiet.ops[first].finish == us(5));
  CHECK(r.quiet.ops[newcomer].finish == us(5));
  CHECK(r.quiet.links[kSwToGpu1].busy == us(3));
  CHECK(r.quiet.links[kGpu0Up].busy == us(3));
  CHECK(r.quiet.links[kGpu2Up].busy == us(2));
}

TEST_CASE("flow model: a transfer queued behind a quiet flow starts at that flow's end", "[engine][flow]") {
  // gpu0 -> gpu1, 10 kB on channel 0, transmits from 0 to 1 us (arrives at 3 us). A local op of
  // 0.5 us on rank 0 then sends another 10 kB on the same route and channel: it waits for the
  // first (one connection transmits in order), transmits from 1 to 2 us and arrives at 4 us.
  const auto t = star();
  sched::ScheduleBuilder b(sched::Collective::AllReduce, 2, 30000, sched::split_even(30000, 3));
  const auto first = b.send(0, 0, 1, 0, sched::Combine::Copy, 1);
  b.send(0, 1, 0, 2, sched::Combine::Copy, 1);
  const auto queued = b.send(0, 2, 1, 2, sched::Combine::Copy, 2);
  sim::RunOptions options;
  options.op_delay = {Time{0}, Time{500'000}, Time{0}};
  const auto r = run_both(std::move(b).build("t"), t, options);
  CHECK(r.quiet.ops[first].finish == us(3));
  CHECK(r.quiet.ops[queued].ready == Time{500'000});
  CHECK(r.quiet.ops[queued].finish == us(4));
  CHECK(r.quiet.links[kGpu0Up].busy == us(2));
}

TEST_CASE("flow model: quiet flows give every op the times of ends as events on random clusters", "[engine][flow]") {
  // Random schedules of uneven chunks (so events seldom tie to the picosecond, where a quiet
  // flow's arrival may run before others of its picosecond: flow_model.hpp, set_quiet) on random
  // clusters whose links are shared or not, with and without per-op costs: every op's ready and
  // finish time and every link's busy time agree (run_both), and the quiet runs take fewer events
  // in all (one run may take a few more: a quiet flow met by a newcomer before its end leaves a
  // stale arrival in the queue, once per class).
  std::mt19937_64 rng(20261204);
  std::uint64_t quiet_events = 0, loud_events = 0;
  for (int i = 0; i < 16; ++i) {
    const auto hosts = static_cast<std::uint32_t>(1 + rng() % 3), per_host = static_cast<std::uint32_t>(2 + rng() % 3);
    const auto t = testing::random_cluster(rng, hosts, per_host);
    for (int trial = 0; trial < 4; ++trial) {
      const auto ranks = hosts * per_host;
      const auto s = testing::random_schedule(rng, ranks, 30 + 20 * static_cast<std::uint32_t>(trial),
                                              static_cast<std::uint16_t>(1 + trial % 2), false);
      sim::RunOptions options;
      if (trial % 2 == 1)
        for (std::size_t k = 0; k < s.ops.size(); ++k) options.op_delay.push_back(Time{static_cast<std::int64_t>(rng() % 3'000'000) | 1});
      INFO("cluster " << i << " (" << hosts << " x " << per_host << "), trial " << trial);
      const auto r = run_both(s, t, options);
      CHECK(r.quiet.makespan == r.loud.makespan);
      quiet_events += r.quiet.events;
      loud_events += r.loud.events;
    }
  }
  CHECK(quiet_events < loud_events);
}

TEST_CASE("flow model: ring all-reduce takes one event per transfer with quiet flows", "[engine][flow]") {
  // Ring all-reduce on a ring of 8 GPUs: 2(N-1)N = 112 transfers, each alone on its link with
  // nothing queued behind it (one chunk per step), so 112 events, half the 224 of ends as events;
  // the time is the closed form's 2(N-1)(α + S/N / B) either way (run_both compares).
  const Bandwidth bw{200'000'000'000};  // 25 GB/s (bits per second)
  const auto t = topo::generate_fabric(topo::Fabric::Ring, 8, bw, us(1));
  algo::Request request;
  request.nranks = 8;
  request.size = 8 << 20;
  const auto schedule = algo::builtin_registry().find(sched::Collective::AllReduce, "ring").build(request);
  const auto r = run_both(schedule, t);
  CHECK(r.quiet.events == 112);
  CHECK(r.loud.events == 224);
  // 1 MiB chunks: 14 x (1 us + 1048576 B / 25 GB/s = 41.94304 us) = 601.20256 us.
  CHECK(r.quiet.makespan == Time{601'202'560});
}

}  // namespace flow_quiet_test
