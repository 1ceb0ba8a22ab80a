// Folded channels (algo::build_folded_channels, run::Ops::TimesOnly) against the full schedule: a
// fast path checked against the plain reference on random inputs, op by op. Expected values come
// from the full run of the same plan, never from the folded one's earlier output.
#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "algorithms/channels.hpp"
#include "algorithms/registry.hpp"
#include "run/plan.hpp"
#include "run/simulate.hpp"
#include "sim/network/fifo_link_model.hpp"
#include "sim/network/flow_model.hpp"
#include "topologies/generate.hpp"
#include "topologies/load_json.hpp"

// One namespace per test file: CI builds the tests as unity sources (.ci/run), where each file's
// helpers would otherwise meet the other files'.
namespace folded_channels_test {

namespace {

using namespace collsim;

// Every op's (ready, finish) of one channel, sorted: what the folded run must give each of the
// channels a leader stands for. (A plan that streams has no op order of its own to compare in.)
using Timings = std::vector<std::pair<std::int64_t, std::int64_t>>;

// Collects them by channel as ops end, the channel read from the plan's stream or schedule.
struct ByChannel final : sim::OpObserver {
  const run::Plan* plan = nullptr;
  std::map<std::uint16_t, Timings> timings;
  void op_done(sched::OpKey key, Time ready, Time finish) override {
    const std::uint16_t c = plan->stream ? plan->stream->op(key).channel : plan->schedule.ops[key].channel;
    timings[c].emplace_back(ready.count(), finish.count());
  }
  std::map<std::uint16_t, Timings> sorted() {
    for (auto& [c, t] : timings) std::sort(t.begin(), t.end());
    return timings;
  }
};

struct Fabric {
  std::string name;
  topo::Topology topology;
};

std::vector<Fabric> fabrics() {
  const Bandwidth bw{50'000'000'000};
  const Time lat{700'000};
  std::vector<Fabric> f;
  f.push_back({"dgx-a100", topo::load_topology("dgx-a100")});
  f.push_back({"dgx-h100", topo::load_topology("dgx-h100")});
  f.push_back({"switch", topo::generate_fabric(topo::Fabric::Switch, 6, bw, lat)});
  f.push_back({"ring", topo::generate_fabric(topo::Fabric::Ring, 5, bw, Time{0})});
  f.push_back({"hosts", topo::generate_multi_node({8, 2, bw, lat, Bandwidth{25'000'000'000}, lat})});
  return f;
}

}  // namespace

TEST_CASE("folded channels: one channel per class of identical channels, with its count", "[engine][flow][channels]") {
  // Hand-derived: 16 MiB of floats = 4,194,304 elements over 24 channels is 174,762.67 elements a
  // channel, so split_even gives 16 channels 174,763 and 8 channels 174,762; on one host odd
  // channels run the ring the other way. Four classes, 24 channels in all.
  const auto registry = algo::builtin_registry();
  algo::Request r{sched::Collective::AllReduce, 8, Bytes{16} << 20};
  r.element_size = 4;
  r.hosts.assign(8, 0);
  const auto folded = algo::build_folded_channels(registry.find(sched::Collective::AllReduce, "ring"), r, 24);
  REQUIRE(folded.copies.size() == 24);
  std::uint32_t total = 0, leaders = 0;
  for (std::uint32_t c : folded.copies) {
    total += c;
    leaders += c > 0 ? 1 : 0;
  }
  CHECK(total == 24);
  CHECK(leaders == 4);
  const auto full = algo::build_with_channels(registry.find(sched::Collective::AllReduce, "ring"), r, 24);
  CHECK(folded.schedule.ops.size() * 6 == full.ops.size());  // 4 of 24 channels kept
  // One channel is no fold.
  const auto one = algo::build_folded_channels(registry.find(sched::Collective::AllReduce, "ring"), r, 1);
  CHECK(one.copies == std::vector<std::uint32_t>{1});
}

TEST_CASE("folded channels: random plans give the full run's times op by op and its traffic", "[engine][flow][channels]") {
  const auto registry = algo::builtin_registry();
  const auto cases = fabrics();
  std::mt19937_64 rng(20261202);
  const std::vector<sched::Collective> collectives{sched::Collective::AllReduce, sched::Collective::Broadcast,
                                                   sched::Collective::Reduce, sched::Collective::AllGather,
                                                   sched::Collective::ReduceScatter};
  const std::vector<topo::ProtocolChoice> protocols{topo::ProtocolChoice::LL, topo::ProtocolChoice::LL128,
                                                    topo::ProtocolChoice::Simple, topo::ProtocolChoice::Auto};
  int runs = 0, folded_runs = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const Fabric& f = cases[rng() % cases.size()];
    const sched::Collective collective = collectives[rng() % collectives.size()];
    std::vector<const algo::AlgorithmInfo*> algorithms;
    for (const auto& a : registry.all())
      if (a.collective == collective && !a.needs_hosts && !a.takes.ps_shards) algorithms.push_back(&a);
    const algo::AlgorithmInfo& algorithm = *algorithms[rng() % algorithms.size()];
    const auto gpus = static_cast<std::uint32_t>(f.topology.gpus().size());
    const std::uint32_t ranks = 2 + static_cast<std::uint32_t>(rng() % (gpus - 1));
    const Bytes size = 1 + rng() % (Bytes{3} << 20);
    run::ModelOptions model;
    model.channels = 2 + static_cast<std::uint32_t>(rng() % 23);
    model.protocol = protocols[rng() % protocols.size()];
    if (rng() % 3 == 0) model.slice = Bytes{1} << (12 + rng() % 8);
    run::AlgorithmOptions options;
    if (collective == sched::Collective::Broadcast || collective == sched::Collective::Reduce) options.root = static_cast<std::uint32_t>(rng() % ranks);
    const Bytes element = rng() % 2 == 0 ? 4 : 1;
    INFO(algorithm.name << " " << sched::collective_name(collective) << " of " << size << " B on " << ranks
                        << " ranks of " << f.name << ", " << *model.channels << " channels, protocol "
                        << topo::protocol_choice_name(*model.protocol) << ", slice " << model.slice.value_or(0));
    run::Plan full, folded;
    try {
      full = run::build_plan(algorithm, f.topology, ranks, options, size, element, model, run::Ops::Materialised);
    } catch (const algo::AlgorithmError&) {
      continue;  // the algorithm cannot serve this request (e.g. a power of two of ranks)
    } catch (const run::RequestError&) {
      continue;  // nor run here (NVLS without a switch that reduces, or under an LL protocol)
    }
    folded = run::build_plan(algorithm, f.topology, ranks, options, size, element, model, run::Ops::TimesOnly);
    // The budgets count the folded ops as their copies: the same slice and chunk as the full plan.
    REQUIRE(folded.fidelity.slice == full.fidelity.slice);
    REQUIRE(folded.chunk == full.chunk);
    ByChannel whole_ops, kept_ops;
    whole_ops.plan = &full;
    kept_ops.plan = &folded;
    const auto a = run::simulate_plan(full, f.topology, "flow", run::Formula::None, nullptr, nullptr, &whole_ops);
    const auto b = run::simulate_plan(folded, f.topology, "flow", run::Formula::None, nullptr, nullptr, &kept_ops);
    ++runs;
    const std::uint64_t kept_count = folded.stream ? folded.stream->op_count() : folded.schedule.ops.size();
    if (!folded.channel_copies.empty() && kept_count < full.schedule.ops.size()) ++folded_runs;
    REQUIRE(b.result.makespan == a.result.makespan);
    for (std::size_t r = 0; r < a.result.ranks.size(); ++r) {
      CHECK(b.result.ranks[r].sent == a.result.ranks[r].sent);
      CHECK(b.result.ranks[r].received == a.result.ranks[r].received);
    }
    for (std::size_t l = 0; l < a.result.links.size(); ++l) {
      CHECK(b.result.links[l].bytes == a.result.links[l].bytes);
      CHECK(b.result.links[l].busy == a.result.links[l].busy);
    }
    CHECK(b.summary.time == a.summary.time);
    CHECK(b.summary.bottleneck_link == a.summary.bottleneck_link);
    CHECK(b.summary.bytes_sent_per_rank_max == a.summary.bytes_sent_per_rank_max);
    // Op by op: each full channel's timings are those of a leader, and each leader's stand for as
    // many full channels as its copies.
    const auto whole = whole_ops.sorted();
    const auto kept = kept_ops.sorted();
    std::multiset<Timings> expected, got;
    for (const auto& [c, t] : whole) expected.insert(t);
    for (const auto& [c, t] : kept) {
      const std::uint32_t copies = folded.channel_copies.empty() ? 1 : folded.channel_copies.at(c);
      for (std::uint32_t k = 0; k < copies; ++k) got.insert(t);
    }
    REQUIRE(got == expected);
  }
  // The draw must exercise the fold, not only plans that keep every channel.
  CHECK(runs >= 100);
  CHECK(folded_runs >= 60);
}

TEST_CASE("folded channels: a model that cannot fold copies refuses them", "[engine][channels]") {
  // The FIFO model serialises a link's transfers, so copies would not stay in step: the engine
  // refuses a folded plan for it rather than give a wrong time.
  const auto registry = algo::builtin_registry();
  const topo::Topology t = topo::load_topology("dgx-a100");
  run::ModelOptions model;
  model.channels = 8;
  const auto plan = run::build_plan(registry.find(sched::Collective::AllReduce, "ring"), t, 8, {}, Bytes{1} << 20, 4,
                                    model, run::Ops::TimesOnly);
  REQUIRE(!plan.channel_copies.empty());
  CHECK_THROWS_WITH(run::simulate_plan(plan, t, "fifo"), Catch::Contains("does not fold copies"));
  CHECK(net::network_folds_copies("flow"));
  CHECK_FALSE(net::network_folds_copies("fifo"));
  CHECK_FALSE(net::network_folds_copies("nonesuch"));
}

TEST_CASE("folded channels: NVLS and its switch rank give the full run's times and traffic", "[engine][flow][channels][nvls]") {
  // NVLS's 16 channels on dgx-h100 are alike but for their share sizes; its helper rank (the
  // switch) is the same node in every channel. Folded and full runs must agree exactly.
  const auto registry = algo::builtin_registry();
  const auto& nvls = registry.find(sched::Collective::AllReduce, "nvls");
  const auto topology = topo::load_topology("dgx-h100");
  for (const Bytes size : {Bytes{4096}, Bytes{1000003}, Bytes{24} << 20}) {
    for (const std::uint32_t ranks : {2u, 5u, 8u}) {
      INFO("S = " << size << ", N = " << ranks);
      const run::ModelOptions model;
      const auto full = run::build_plan(nvls, topology, ranks, {}, size, 4, model, run::Ops::Materialised);
      const auto folded = run::build_plan(nvls, topology, ranks, {}, size, 4, model, run::Ops::TimesOnly);
      CHECK(full.fidelity.channels == 16);
      CHECK(folded.schedule.ops.size() < full.schedule.ops.size());
      const auto a = run::simulate_plan(full, topology, "flow");
      const auto b = run::simulate_plan(folded, topology, "flow");
      CHECK(b.result.makespan == a.result.makespan);
      for (std::size_t l = 0; l < a.result.links.size(); ++l) CHECK(b.result.links[l].bytes == a.result.links[l].bytes);
      for (std::size_t r = 0; r < a.result.ranks.size(); ++r) CHECK(b.result.ranks[r].sent == a.result.ranks[r].sent);
    }
  }
}
}  // namespace folded_channels_test
