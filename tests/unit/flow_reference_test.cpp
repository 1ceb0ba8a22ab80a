// The flow model's fast paths against plain max-min, on random schedules and random clusters.
//
// Issue 14: a shortcut of the flow model (a class of one flow left alone after another route's
// flow ended) took its rate from the ended route's resources, so a transfer inside a host ran at
// the 25 GB/s network rate on otherwise idle NVLink; every existing test compared the model with
// itself on fabrics where that could not show. Two oracles close that kind of bug:
//  1. the same model with every shortcut off (set_always_solve: every change solved by
//     MaxMinSolver over its component) and ends projected per solve (set_eager): the same
//     arithmetic, so every op's times must be equal to the picosecond;
//  2. an independent model written here from the definition (DESIGN.md "The engine and the network
//     model"; Bertsekas & Gallager, Data Networks 6.5.2): at every start or end, all transmitting
//     flows of the whole network, one by one (no classes, no components, no shortcuts), get their
//     max-min rates; its floating-point rounding differs, so times agree within a tolerance.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <string>

#include "algorithms/channels.hpp"
#include "algorithms/registry.hpp"
#include "sim/engine.hpp"
#include "sim/schedule/builder.hpp"
#include "sim/network/flow_model.hpp"
#include "sim/network/maxmin.hpp"
#include "tests/unit/random_network.hpp"
#include "topologies/cluster.hpp"
#include "topologies/generate.hpp"
#include "topologies/load_json.hpp"

// One namespace per test file: CI builds the tests as unity sources (.ci/run), where each file's
// helpers would otherwise meet the other files'.
namespace flow_reference_test {

using namespace collsim;

namespace {

// The reference: per-flow max-min over the whole network at every change. Transfers of one route
// and channel transmit one after the other in request order (FlowModel's connections); a
// transfer that keeps its route's bottleneck rate for its whole life ends at start +
// transfer_time exactly, a slowed one when its bits, tracked in doubles, run out (rounded up to
// the picosecond).
class ReferenceFlowModel final : public net::NetworkModel {
 public:
  explicit ReferenceFlowModel(const topo::Topology& t) : topology_(t) {}
  std::string_view name() const noexcept override { return "reference"; }
  void start(Time now, net::TransferId id, const topo::Route& route, Bytes bytes, std::uint16_t channel,
             std::uint32_t /*copies: 1, folds_copies() is false*/, Time after, net::WakeQueue& queue) override {
    // The op's own cost the plain way, as the engine paid it before it was folded into the
    // arrival: a wake-up of its own, queued when the data arrives.
    after_[id] = after;
    if (route.links.empty()) {
      queue.wake_at(now, (std::uint64_t{id} << 2) | 1);
      return;
    }
    auto& waiting = connections_[{&route, channel}];
    waiting.push_back(Flow{id, &route, channel, bytes, now, static_cast<double>(bytes) * 8.0, true, 0.0, Time{0}});
    if (waiting.size() == 1) {
      advance(now);
      flows_.push_back(waiting.front());
      resolve(now, queue);
    }
  }
  void wake(Time now, std::uint64_t token, net::WakeQueue& queue, std::vector<net::TransferId>& finished) override {
    if (token & 1) {  // an arrival (01), then the end of the op's cost (11)
      const auto id = static_cast<net::TransferId>(token >> 2);
      if ((token & 2) == 0 && after_.at(id) > Time{0}) {
        queue.wake_at(checked_add(now, after_.at(id)), (std::uint64_t{id} << 2) | 3);
        return;
      }
      finished.push_back(id);
      return;
    }
    if ((token >> 1) != generation_) return;  // a later change re-projected every end
    advance(now);
    std::vector<Flow> ended;
    for (auto it = flows_.begin(); it != flows_.end();)
      if (it->end <= now) {
        ended.push_back(*it);
        it = flows_.erase(it);
      } else {
        ++it;
      }
    std::sort(ended.begin(), ended.end(), [](const Flow& a, const Flow& b) { return a.id < b.id; });
    for (const Flow& f : ended) {
      for (auto l : f.route->links) busy_[l] += now - f.started;
      queue.wake_at(checked_add(now, f.route->latency), (std::uint64_t{f.id} << 2) | 1);
      auto& waiting = connections_[{f.route, f.channel}];
      waiting.erase(waiting.begin());
      if (!waiting.empty()) {
        waiting.front().started = now;
        flows_.push_back(waiting.front());
      }
    }
    resolve(now, queue);
  }
  Time busy_time(topo::LinkId id) const override {
    const auto it = busy_.find(id);
    return it == busy_.end() ? Time{0} : it->second;
  }

 private:
  struct Flow {
    net::TransferId id;
    const topo::Route* route;
    std::uint16_t channel;
    Bytes bytes;
    Time started;
    double bits_left;
    bool exact;  // at its route's bottleneck rate since it started
    double rate;
    Time end;
  };
  // Brings every flow's bits to `now` at the rates of the last solve.
  void advance(Time now) {
    for (Flow& f : flows_) {
      if (f.rate > 0) f.bits_left = std::max(0.0, f.bits_left - f.rate * static_cast<double>((now - last_).count()) * 1e-12);
    }
    last_ = now;
  }
  void resolve(Time now, net::WakeQueue& queue) {
    net::MaxMinSolver solver;
    std::map<std::uint32_t, std::uint32_t> index;
    for (const Flow& f : flows_)
      for (auto r : f.route->resources)
        if (index.emplace(r, 0).second)
          index[r] = solver.add_resource(static_cast<double>(topology_.link(r).bandwidth.bits_per_s));
    for (const Flow& f : flows_) {
      std::vector<std::uint32_t> rs;
      for (auto r : f.route->resources) rs.push_back(index[r]);
      solver.add_flow(rs);
    }
    const auto rates = solver.solve();
    Time next = Time::max();
    for (std::size_t i = 0; i < flows_.size(); ++i) {
      Flow& f = flows_[i];
      f.rate = rates[i];
      if (f.exact && f.rate < static_cast<double>(f.route->bottleneck.bits_per_s)) f.exact = false;
      f.end = f.exact ? checked_add(f.started, transfer_time(f.bytes, f.route->bottleneck))
                      : checked_add(now, Time{static_cast<std::int64_t>(std::ceil(f.bits_left / f.rate * 1e12))});
      next = std::min(next, f.end);
    }
    ++generation_;
    if (!flows_.empty()) queue.wake_at(next, generation_ << 1);
  }
  const topo::Topology& topology_;
  std::vector<Flow> flows_;  // transmitting
  std::map<std::pair<const topo::Route*, std::uint16_t>, std::vector<Flow>> connections_;  // front: transmitting
  std::map<topo::LinkId, Time> busy_;
  std::map<net::TransferId, Time> after_;  // each transfer's own cost (start())
  std::uint64_t generation_ = 0;
  Time last_{0};
};

// The fast model and the plain one (shortcuts off, one wake-up per end) must give every op the
// same ready and finish time, the same makespan and every link the same busy time.
void require_same_as_plain(const sched::Schedule& schedule, const topo::Topology& topology, std::uint32_t ranks,
                           bool propagate = true) {
  const std::vector<topo::NodeId> gpus(topology.gpus().begin(), topology.gpus().begin() + ranks);
  net::FlowModel fast(topology), plain(topology);
  fast.set_propagate(propagate);
  plain.set_always_solve(true);
  plain.set_eager(true);
  const auto a = sim::run(schedule, topology, gpus, fast);
  const auto b = sim::run(schedule, topology, gpus, plain);
  REQUIRE(a.ops.size() == b.ops.size());
  REQUIRE(a.makespan == b.makespan);
  for (std::size_t i = 0; i < a.ops.size(); ++i) {
    INFO("op " << i);
    REQUIRE(a.ops[i].ready == b.ops[i].ready);
    REQUIRE(a.ops[i].finish == b.ops[i].finish);
  }
  for (std::size_t l = 0; l < a.links.size(); ++l) REQUIRE(a.links[l].busy == b.links[l].busy);
  CHECK(a.events <= b.events);
}

// A burst: every ordered pair of `ranks` ranks sends one chunk on each of `channels` channels at
// once (all roots, so all start at one picosecond), then `extra` random sends that depend on what
// arrived. Chunks of random sizes (1 to 40 kB) keep most ends apart, so the independent model can
// be compared too; with `even` every chunk has one size and all ends of the burst tie.
sched::Schedule burst_schedule(std::mt19937_64& rng, std::uint32_t ranks, std::uint16_t channels, std::uint32_t extra, bool even) {
  const std::uint32_t chunks = ranks * channels;
  std::vector<sched::Chunk> cut;
  Bytes total = 0;
  for (std::uint32_t c = 0; c < chunks; ++c) {
    const Bytes size = even ? 8'000 : 1'000 + rng() % 39'000;
    cut.push_back(sched::Chunk{total, size});
    total += size;
  }
  sched::ScheduleBuilder b(sched::Collective::AllGather, ranks, total, cut);
  for (std::uint32_t src = 0; src < ranks; ++src)
    for (std::uint32_t dst = 0; dst < ranks; ++dst)
      for (std::uint16_t ch = 0; ch < channels && src != dst; ++ch) {
        const auto chunk = static_cast<sched::ChunkId>(src * channels + ch);
        b.send(src, chunk, dst, chunk, sched::Combine::Copy, 1, ch);
      }
  for (std::uint32_t i = 0; i < extra; ++i) {
    const auto src = static_cast<sched::Rank>(rng() % ranks);
    const auto dst = static_cast<sched::Rank>((src + 1 + rng() % (ranks - 1)) % ranks);
    const auto chunk = static_cast<sched::ChunkId>(rng() % chunks);
    b.send(src, chunk, dst, chunk, rng() % 2 ? sched::Combine::Copy : sched::Combine::Reduce, 2,
           static_cast<std::uint16_t>(chunk % channels));
  }
  return std::move(b).build("burst");
}

struct Case {
  std::string name;
  topo::Topology topology;
  std::uint32_t ranks;
};

// Random clusters of 1 to 3 hosts of 2 to 4 GPUs, and the fabrics the CLI generates.
std::vector<Case> cases(std::mt19937_64& rng, int clusters) {
  std::vector<Case> out;
  for (int i = 0; i < clusters; ++i) {
    const auto hosts = static_cast<std::uint32_t>(1 + rng() % 3), per_host = static_cast<std::uint32_t>(2 + rng() % 3);
    out.push_back({fmt::format("random cluster {} ({} x {})", i, hosts, per_host), testing::random_cluster(rng, hosts, per_host),
                   hosts * per_host});
  }
  const Bandwidth fast{2'400'000'000'000}, slow{200'000'000'000};
  const Time lat{500'000};
  out.push_back({"2 hosts x 4 (docs/algorithms.md's hierarchical fabric)", topo::generate_multi_node({8, 2, fast, lat, slow, lat}), 8});
  out.push_back({"switch", topo::generate_fabric(topo::Fabric::Switch, 5, slow, lat), 5});
  out.push_back({"ring", topo::generate_fabric(topo::Fabric::Ring, 6, slow, Time{0}), 6});
  return out;
}

}  // namespace

TEST_CASE("flow model: fast paths give plain max-min's times on random clusters, op for op", "[engine][flow]") {
  // Oracle 1: the model with its shortcuts off and eager projection. On 3db3203 the hierarchical
  // fabric case alone gives 61.75 ms against 46.99 ms; random clusters fail the same way.
  std::mt19937_64 rng(20261201);
  int compared = 0;
  for (const auto& c : cases(rng, 24)) {
    for (int trial = 0; trial < 6; ++trial) {
      const auto channels = static_cast<std::uint16_t>(1 + trial % 3);
      const auto schedule = testing::random_schedule(rng, c.ranks, 30 + 15 * static_cast<std::uint32_t>(trial), channels, trial % 2 == 0);
      INFO(c.name << ", trial " << trial << ", " << schedule.ops.size() << " ops, " << channels << " channels");
      require_same_as_plain(schedule, c.topology, c.ranks);
      ++compared;
    }
  }
  CHECK(compared == 27 * 6);
}

TEST_CASE("flow model: random clusters agree with an independent per-flow max-min model", "[engine][flow]") {
  // Oracle 2. Chunks of uneven sizes keep ends off common picoseconds (the order of ties is a
  // model's own choice); the models round differently, so each op's finish may differ by a few
  // picoseconds per rate change it lived through: allowed is 1 ns + 1e-6 of the makespan.
  std::mt19937_64 rng(7);
  for (const auto& c : cases(rng, 16)) {
    for (int trial = 0; trial < 4; ++trial) {
      const auto schedule = testing::random_schedule(rng, c.ranks, 40 + 10 * static_cast<std::uint32_t>(trial),
                                                     static_cast<std::uint16_t>(1 + trial % 2), false);
      INFO(c.name << ", trial " << trial << ", " << schedule.ops.size() << " ops");
      // Odd trials give every op a cost of its own (0 to 3 us, odd picoseconds so ends stay off
      // common picoseconds): FlowModel adds it to the arrival, the reference pays it as an event
      // of its own once the data has arrived, as the engine did before the two were folded.
      sim::RunOptions options;
      if (trial % 2 == 1)
        for (std::size_t i = 0; i < schedule.ops.size(); ++i)
          options.op_delay.push_back(Time{static_cast<std::int64_t>(rng() % 3'000'000) | 1});
      const std::vector<topo::NodeId> gpus(c.topology.gpus().begin(), c.topology.gpus().begin() + c.ranks);
      net::FlowModel fast(c.topology);
      ReferenceFlowModel reference(c.topology);
      const auto a = sim::run(schedule, c.topology, gpus, fast, options);
      const auto b = sim::run(schedule, c.topology, gpus, reference, options);
      REQUIRE(a.ops.size() == b.ops.size());
      const double tolerance = 1000.0 + 1e-6 * static_cast<double>(b.makespan.count());
      CHECK(std::abs(static_cast<double>((a.makespan - b.makespan).count())) <= tolerance);
      for (std::size_t i = 0; i < a.ops.size(); ++i) {
        INFO("op " << i << ": " << a.ops[i].finish.count() << " ps against " << b.ops[i].finish.count());
        REQUIRE(std::abs(static_cast<double>((a.ops[i].finish - b.ops[i].finish).count())) <= tolerance);
      }
    }
  }
}

TEST_CASE("flow model: bursts of simultaneous starts on many channels, fast paths against both oracles", "[engine][flow]") {
  // Issue 14's slow case in small: every pair of GPUs starts transfers on up to 24 channels at one
  // picosecond, which the model solves once, at the flush, where it used to solve once per start.
  // Oracle 1 (the plain model) op for op, with uneven and with even chunks (every end of the burst
  // due at one picosecond); oracle 2 (per-flow max-min over the whole network, solved at every
  // start and end) within its tolerance, on uneven chunks.
  std::mt19937_64 rng(20261202);
  const Bandwidth bw{200'000'000'000};
  const Time lat{1'000'000};
  struct Fabric {
    std::string name;
    topo::Topology topology;
  };
  std::vector<Fabric> fabrics;
  fabrics.push_back({"switch", topo::generate_fabric(topo::Fabric::Switch, 6, bw, lat)});
  fabrics.push_back({"dgx-a100", topo::load_topology("dgx-a100")});
  fabrics.push_back({"2 hosts x 3", topo::generate_multi_node({6, 2, bw, lat, Bandwidth{25'000'000'000}, lat})});
  for (int i = 0; i < 3; ++i) fabrics.push_back({fmt::format("random cluster {}", i), testing::random_cluster(rng, 1 + i % 2, 3)});
  for (const auto& f : fabrics) {
    const auto ranks = std::min<std::uint32_t>(6, static_cast<std::uint32_t>(f.topology.gpus().size()));
    for (const std::uint16_t channels : {std::uint16_t{2}, std::uint16_t{7}, std::uint16_t{24}}) {
      for (const bool even : {false, true}) {
        INFO(f.name << ", " << channels << " channels, " << (even ? "even" : "uneven") << " chunks");
        const auto schedule = burst_schedule(rng, ranks, channels, 40, even);
        require_same_as_plain(schedule, f.topology, ranks);
        if (even) continue;
        const std::vector<topo::NodeId> gpus(f.topology.gpus().begin(), f.topology.gpus().begin() + ranks);
        net::FlowModel fast(f.topology);
        ReferenceFlowModel reference(f.topology);
        const auto a = sim::run(schedule, f.topology, gpus, fast);
        const auto b = sim::run(schedule, f.topology, gpus, reference);
        REQUIRE(a.ops.size() == b.ops.size());
        const double tolerance = 1000.0 + 1e-6 * static_cast<double>(b.makespan.count());
        for (std::size_t i = 0; i < a.ops.size(); ++i) {
          INFO("op " << i << ": " << a.ops[i].finish.count() << " ps against " << b.ops[i].finish.count());
          REQUIRE(std::abs(static_cast<double>((a.ops[i].finish - b.ops[i].finish).count())) <= tolerance);
        }
      }
    }
  }
}

TEST_CASE("flow model: 24-channel all-reduce on NVSwitch boxes, fast paths against the plain model", "[engine][flow]") {
  // The schedules of the contended points (tests/cli/sweep_cli_test.cpp, issue 14's direct case):
  // every algorithm that pipelines slices or starts all pairs at once through shared NVSwitch
  // ports, on 24 channels, op for op against the plain model.
  const auto registry = algo::builtin_registry();
  const topo::Topology a100 = topo::load_topology("dgx-a100");
  const topo::Topology box = topo::generate_fabric(topo::Fabric::Switch, 12, Bandwidth{25'000'000'000}, Time{1'000'000});
  struct Point {
    const topo::Topology* topology;
    std::uint32_t ranks;
    const char* algorithm;
    Bytes size;
  };
  const std::vector<Point> points{
      {&a100, 8, "direct", 1 << 10},          {&a100, 8, "double-tree", 1 << 20}, {&a100, 7, "ring", 1 << 20},
      {&a100, 6, "halving-doubling", 512 << 10}, {&a100, 8, "tree", 1 << 20},     {&box, 12, "direct", 1 << 20},
  };
  for (const auto& p : points) {
    INFO(p.algorithm << " on " << p.ranks << " GPUs of " << p.topology->name());
    algo::Request request;
    request.nranks = p.ranks;
    request.size = p.size;
    const auto schedule = algo::build_with_channels(registry.find(sched::Collective::AllReduce, p.algorithm), request, 24);
    require_same_as_plain(schedule, *p.topology, p.ranks);
  }
}

TEST_CASE("flow model: re-solves from a level on give the plain model's times on ECMP fat trees, op for op",
          "[engine][flow][levels]") {
  // Solving by levels (sim/network/flow_levels.cpp) re-solves only the classes a change of size can
  // move, from the state the last rounds left below the lowest level it can move. On fat trees
  // under ECMP every channel crossing the spines is a class of its own with a rate of its own, so
  // most changes resume part way up: the plain model (every component solved whole at every
  // change) must give every op the same times to the picosecond. Before levels, direct all-reduce
  // on 8 DGX H100 of such a tree did not finish in 120 s even at 64 KiB.
  const auto registry = algo::builtin_registry();
  std::vector<Case> fabrics;
  for (const double over : {1.0, 2.0}) {
    topo::ClusterSpec spec;
    spec.nodes = 4;
    spec.fabric = topo::ClusterFabric::FatTree;
    spec.leaf_nics = 8;  // one host per leaf: every crossing goes through the spines
    spec.oversubscription = over;
    fabrics.push_back({fmt::format("4 DGX H100, fat tree {}:1", over), topo::generate_cluster(topo::load_topology("dgx-h100"), spec), 32});
  }
  std::mt19937_64 rng(20261204);
  std::uint64_t resumed[2] = {0, 0}, solves[2] = {0, 0}, propagated[2] = {0, 0};  // by regions, by propagation
  for (const auto& f : fabrics) {
    struct Point {
      sched::Collective collective;
      const char* algorithm;
      Bytes size;
      std::uint16_t channels;
    };
    for (const Point p : {Point{sched::Collective::AllReduce, "direct", 64 << 10, 8}, Point{sched::Collective::AllReduce, "tree", 4 << 20, 4},
                          Point{sched::Collective::AllToAll, "direct", 1 << 20, 1}, Point{sched::Collective::AllReduce, "ring", 2 << 20, 4}}) {
      INFO(p.algorithm << " on " << f.name);
      algo::Request request;
      request.nranks = f.ranks;
      request.size = p.size;
      const auto schedule = algo::build_with_channels(registry.find(p.collective, p.algorithm), request, p.channels);
      // By propagation (the default) and by regions (its fallback, flow_levels.cpp).
      require_same_as_plain(schedule, f.topology, f.ranks, true);
      require_same_as_plain(schedule, f.topology, f.ranks, false);
    }
    for (int trial = 0; trial < 4; ++trial) {
      INFO("random schedule " << trial << " on " << f.name);
      const auto schedule = testing::random_schedule(rng, f.ranks, 200, static_cast<std::uint16_t>(1 + trial), trial % 2 == 0);
      require_same_as_plain(schedule, f.topology, f.ranks, true);
      require_same_as_plain(schedule, f.topology, f.ranks, false);
    }
    // The same run once more in each mode, to count what the levels did: most solves must resume
    // above nothing, or this test would only check the whole re-solve.
    algo::Request request;
    request.nranks = f.ranks;
    request.size = 64 << 10;
    const auto schedule = algo::build_with_channels(registry.find(sched::Collective::AllReduce, "direct"), request, 8);
    for (const bool propagate : {true, false}) {
      net::FlowModel model(f.topology);
      model.set_propagate(propagate);
      const std::vector<topo::NodeId> gpus(f.topology.gpus().begin(), f.topology.gpus().end());
      (void)sim::run(schedule, f.topology, gpus, model);
      resumed[propagate] += model.level_stats().resumed;
      solves[propagate] += model.level_stats().solves;
      propagated[propagate] += model.level_stats().propagated;
    }
  }
  for (const bool propagate : {true, false}) {
    INFO((propagate ? "by propagation" : "by regions"));
    CHECK(solves[propagate] > 0);
    CHECK(resumed[propagate] * 2 > solves[propagate]);
  }
  // Almost every solve propagated: the rest met a round whose share rounding put a hair below the
  // one before (the whole solve's own doubles), which the regions then solved whole.
  CHECK(propagated[1] * 10 > solves[1] * 9);
  CHECK(propagated[0] == 0);
}

TEST_CASE("flow model: re-solves by propagation give the plain model's times on trees across hosts and stay local",
          "[engine][flow][levels]") {
  // A tree across hosts behind one switch is one component through the hosts' uplinks, and every
  // class of a balanced tree shares its uplink with two others at C/3: a chunk that joins an uplink
  // lowers the level there below every class of the tree, so re-solving "every class above the
  // lowest level a change can move" (solve_levels' regions) re-solves the whole tree at each change.
  // Propagation (sim/network/flow_propagate.cpp) follows only the resources whose rounds move: the
  // uplink's own classes and their receivers' links, whose other classes stay fixed at C/3 by
  // clean senders. Checked two ways: every op's times equal the plain model's (every component
  // solved whole at every change) to the picosecond, and the classes followed per resized class do
  // not grow with the number of hosts (the whole tree's classes do: 4 times more hosts, 4 times
  // more classes). Alone flows' and emptied resources' levels are recorded (record_alone,
  // record_emptied), so every solve propagates.
  const auto registry = algo::builtin_registry();
  const Bandwidth nvlink{100'000'000'000}, net{25'000'000'000};
  const Time lat{1'000'000};
  std::map<std::string, std::vector<double>> followed;
  for (const std::uint32_t hosts : {16u, 64u}) {
    const auto topology = topo::generate_multi_node({2 * hosts, hosts, nvlink, lat, net, lat});
    for (const std::string algorithm : {"tree", "double-tree"}) {
      INFO(algorithm << " on " << hosts << " hosts of 2 GPUs");
      algo::Request request;
      request.nranks = 2 * hosts;
      request.size = 4 << 20;
      const auto schedule = algo::build_with_channels(registry.find(sched::Collective::AllReduce, algorithm), request, 1);
      require_same_as_plain(schedule, topology, 2 * hosts);
      require_same_as_plain(schedule, topology, 2 * hosts, false);  // by regions
      net::FlowModel model(topology);
      const std::vector<topo::NodeId> gpus(topology.gpus().begin(), topology.gpus().end());
      (void)sim::run(schedule, topology, gpus, model);
      const auto& stats = model.level_stats();
      REQUIRE(stats.solves > 0);
      CHECK(stats.propagated == stats.solves);
      REQUIRE(stats.resized > 0);
      followed[algorithm].push_back(static_cast<double>(stats.classes) / static_cast<double>(stats.resized));
    }
  }
  // Random schedules on hosts of different rates (many distinct levels, ties and rounds at once).
  std::mt19937_64 rng(20261205);
  const auto mixed = topo::generate_multi_node({24, 6, nvlink, lat, Bandwidth{10'000'000'000}, Time{500'000}});
  for (int trial = 0; trial < 6; ++trial) {
    INFO("random schedule " << trial << " on 6 hosts of 4");
    const auto schedule = testing::random_schedule(rng, 24, 300, static_cast<std::uint16_t>(1 + trial % 3), trial % 2 == 0);
    require_same_as_plain(schedule, mixed, 24);
  }
  for (const auto& [algorithm, f] : followed) {
    REQUIRE(f.size() == 2);
    INFO(algorithm << ": classes followed per resized class " << f[0] << " on 16 hosts, " << f[1] << " on 64");
    CHECK(f[1] < 1.5 * f[0]);
  }
}
}  // namespace flow_reference_test
