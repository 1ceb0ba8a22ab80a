// The flow model's queue shortcuts (flow_model.hpp, bench/PROFILE.md sections 3.9 and 3.10: ends
// due together share one wake-up, new ends merged run by run, arrivals queued at once when nothing
// waits for the flush) against the same model in its plain order of work (set_eager: one wake-up
// per end, a plain sort, every arrival through the log).
#include <catch2/catch.hpp>

#include <random>

#include "sim/engine.hpp"
#include "sim/network/flow_model.hpp"
#include "sim/schedule/builder.hpp"
#include "topologies/generate.hpp"
#include "tests/unit/random_network.hpp"
#include "topologies/load_json.hpp"

// One namespace per test file: CI builds the tests as unity sources (.ci/run), where each file's
// helpers would otherwise meet the other files'.
namespace flow_lazy_test {

using namespace collsim;

namespace {

constexpr Time us(std::int64_t v) { return Time{v * 1'000'000}; }

// The order in which ops end: ops ending at one picosecond end in the order their wake-ups were
// queued, which the times alone do not show.
struct EndOrder final : sim::OpObserver {
  std::vector<sched::OpKey> keys;
  void op_done(sched::OpKey key, Time, Time) override { keys.push_back(key); }
};

}  // namespace

TEST_CASE("flow model: ends projected lazily give the eager model's times, op for op", "[engine][flow]") {
  // Each case: random schedules on a fabric where flows share links (an NVSwitch box with every
  // pair of GPUs on one switch, a star with a half-duplex link, hosts sharing uplinks), with and
  // without per-op delays (which put the engine's own events among the model's at one time).
  // Lazy and eager must agree on every op's ready and finish time, the order in which ops end,
  // the makespan and every link's busy time; the lazy model never needs more events.
  struct Case {
    std::string name;
    topo::Topology topology;
    std::uint32_t ranks;
  };
  const Bandwidth bw{100'000'000'000};
  const Time lat{1'000'000};
  std::vector<Case> cases;
  cases.push_back({"dgx-a100", topo::load_topology("dgx-a100"), 8});
  cases.push_back({"switch", topo::generate_fabric(topo::Fabric::Switch, 5, bw, lat), 5});
  cases.push_back({"hosts", topo::generate_multi_node({8, 2, bw, lat, Bandwidth{25'000'000'000}, lat}), 8});
  cases.push_back({"ring", topo::generate_fabric(topo::Fabric::Ring, 6, bw, Time{0}), 6});
  // 10 GB/s and 1 us per link: a 20 kB chunk transmits in the 2 us its two-link route takes to
  // arrive, so arrivals and ends fall on the same picoseconds and their order is tested.
  cases.push_back({"switch, ties", topo::generate_fabric(topo::Fabric::Switch, 4, Bandwidth{80'000'000'000}, lat), 4});
  std::mt19937_64 rng(20261129);
  std::uint64_t lazy_events = 0, eager_events = 0;
  for (const auto& c : cases) {
    for (int trial = 0; trial < 12; ++trial) {
      const auto channels = static_cast<std::uint16_t>(1 + trial % 4);
      const auto schedule = testing::random_schedule(rng, c.ranks, 40 + 20 * static_cast<std::uint32_t>(trial), channels);
      sim::RunOptions options;
      if (trial % 3 == 2) {
        // Delays of 0, 1 and 2 us: ends of ops land on the picoseconds of arrivals and transfer ends.
        for (std::size_t i = 0; i < schedule.ops.size(); ++i) options.op_delay.push_back(us(static_cast<std::int64_t>(rng() % 3)));
      }
      INFO(c.name << ", trial " << trial << ", " << schedule.ops.size() << " ops, " << channels << " channels");
      const std::vector<topo::NodeId> gpus(c.topology.gpus().begin(), c.topology.gpus().begin() + c.ranks);
      net::FlowModel lazy(c.topology), eager(c.topology);
      eager.set_eager(true);
      EndOrder lazy_order, eager_order;
      options.op_observer = &lazy_order;
      const auto a = sim::run(schedule, c.topology, gpus, lazy, options);
      options.op_observer = &eager_order;
      const auto b = sim::run(schedule, c.topology, gpus, eager, options);
      CHECK(lazy_order.keys == eager_order.keys);
      REQUIRE(a.ops.size() == b.ops.size());
      CHECK(a.makespan == b.makespan);
      CHECK(a.events <= b.events);
      lazy_events += a.events;
      eager_events += b.events;
      for (std::size_t i = 0; i < a.ops.size(); ++i) {
        INFO("op " << i);
        CHECK(a.ops[i].ready == b.ops[i].ready);
        CHECK(a.ops[i].finish == b.ops[i].finish);
      }
      for (std::size_t l = 0; l < a.links.size(); ++l) CHECK(a.links[l].busy == b.links[l].busy);
    }
  }
  // The cases do contend: ends due together shared wake-ups (if none ever did, the comparison
  // would prove nothing about the lists).
  CHECK(lazy_events < eager_events);
}
}  // namespace flow_lazy_test
