// The registry's typed capabilities (AlgorithmInfo: closed_form_time, pipelined, needs_hosts,
// family, takes, aliases) decide what the rest of collsim does with an algorithm, never its name:
// a toy entry registered here under a built-in's name behaves as its fields say, and every
// built-in entry's fields agree with its help text and with the closed forms worked out by hand.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <string_view>

#include "algorithms/closed_form.hpp"
#include "algorithms/host_grid.hpp"
#include "algorithms/registry.hpp"
#include "algorithms/ring_allreduce.hpp"
#include "run/option_names.hpp"
#include "run/plan.hpp"
#include "topologies/generate.hpp"

// One namespace per test file: CI builds the tests as unity sources (.ci/run), where each file's
// helpers would otherwise meet the other files'.
namespace algorithm_capabilities_test {

namespace {

using namespace collsim;
using sched::Collective;

constexpr std::array<std::string_view, 2> kToyAliases{"toy", "toy-ring"};

// A toy form that shows which entry answered: N·α, whatever the bandwidth; nullopt on one port.
std::optional<Time> toy_form(const algo::Request& r, const algo::AlphaBeta& f) {
  if (f.shared_port) return std::nullopt;
  return static_cast<std::int64_t>(r.nranks) * f.alpha;
}

// A toy "ring" all-reduce unlike the built-in one in every capability: pipelined, of NCCL's tree
// family, taking --ps-shards, with two aliases and its own form. It builds ring all-reduce.
algo::AlgorithmInfo toy_ring(algo::NcclFamily family = algo::NcclFamily::Tree) {
  return {.name = "ring", .collective = Collective::AllReduce, .description = "toy", .build = &algo::build_ring_allreduce,
          .closed_form_time = &toy_form, .pipelined = true, .family = family, .takes = {.ps_shards = true},
          .aliases = kToyAliases};
}

bool mentions(std::string_view text, std::string_view flag) { return text.find(flag) != std::string_view::npos; }

}  // namespace

TEST_CASE("registry: find and lookup answer to an entry's name and to its aliases", "[registry][capabilities]") {
  algo::AlgorithmRegistry registry;
  registry.add(toy_ring());
  registry.add({.name = "ring", .collective = Collective::AllGather, .description = "toy all-gather",
                .build = &algo::build_ring_allreduce});
  for (std::string_view name : {"ring", "toy", "toy-ring"}) {
    INFO(name);
    CHECK(registry.find(Collective::AllReduce, name).description == "toy");
    CHECK(registry.lookup(Collective::AllReduce, name) == &registry.all()[0]);
  }
  // Aliases belong to their entry: the all-gather entry has none.
  CHECK(registry.lookup(Collective::AllGather, "ring") == &registry.all()[1]);
  CHECK(registry.lookup(Collective::AllGather, "toy") == nullptr);
  CHECK(registry.lookup(Collective::Broadcast, "ring") == nullptr);
  CHECK(registry.named("ring").size() == 2);
  CHECK(registry.named("toy").size() == 1);
  CHECK(registry.named("tree").empty());
  // Listings and errors name entries by their name only.
  CHECK(registry.names() == std::vector<std::string_view>{"ring"});
  CHECK_THROWS_WITH(registry.find(Collective::AllReduce, "tree"), "unknown algorithm \"tree\", expected one of: ring");
  CHECK_THROWS_WITH(registry.find(Collective::AllGather, "toy"),
                    "allgather with algorithm toy is not supported yet; toy supports: allreduce; algorithms for "
                    "allgather: ring");
  // A name or alias that already answers for the collective is refused.
  CHECK_THROWS_AS(registry.add(toy_ring()), std::logic_error);
  static constexpr std::array<std::string_view, 1> kClash{"toy"};
  CHECK_THROWS_AS(registry.add({.name = "other", .collective = Collective::AllReduce, .description = "",
                                .build = &algo::build_ring_allreduce, .aliases = kClash}),
                  std::logic_error);
  CHECK_NOTHROW(registry.add({.name = "other", .collective = Collective::AllGather, .description = "",
                              .build = &algo::build_ring_allreduce, .aliases = kClash}));
}

TEST_CASE("registry: the closed form is the entry's own function", "[registry][capabilities]") {
  algo::AlgorithmRegistry registry;
  registry.add(toy_ring());
  const algo::AlgorithmInfo& toy = registry.find(Collective::AllReduce, "toy");
  const algo::Request request{Collective::AllReduce, 4, Bytes{4} << 20};
  const Time alpha{1'000'000};
  const Bandwidth bw{200'000'000'000};  // 25 GB/s
  // The toy's N·α = 4 µs, not ring's 2(N-1)(α + P/B).
  CHECK(toy.closed_form_time(request, algo::AlphaBeta{alpha, bw, false}) == Time{4'000'000});
  CHECK_FALSE(toy.closed_form_time(request, algo::AlphaBeta{alpha, bw, true}));
}

TEST_CASE("options: --chunk-size and --ps-shards are checked against the entry's fields, not its name",
          "[registry][capabilities][cli]") {
  algo::AlgorithmRegistry registry;
  registry.add(toy_ring());
  const auto builtin = algo::builtin_registry();
  const algo::AlgorithmInfo& toy = registry.find(Collective::AllReduce, "ring");
  const algo::AlgorithmInfo& ring = builtin.find(Collective::AllReduce, "ring");
  // The message as the CLI prints it (field references spelled as flags).
  const auto message = [](const run::AlgorithmOptions& o, const algo::AlgorithmInfo& info) {
    try {
      run::check_used_by(o, info);
    } catch (const run::RequestError& e) {
      return e.rendered(run::flag_spelling);
    }
    return std::string("accepted");
  };
  run::AlgorithmOptions chunked;
  chunked.chunk_size = Bytes{64} << 10;
  CHECK(message(chunked, toy) == "accepted");
  CHECK(message(chunked, ring) ==
        "--chunk-size: ring allreduce is not pipelined in chunks; expected --chunk-size only with tree, "
        "double-tree, nccl-tree, nvls, nvls-tree, collnet, or ring broadcast and reduce (`collsim algorithms` lists them)");
  run::AlgorithmOptions sharded;
  sharded.ps_shards = 2;
  CHECK(message(sharded, toy) == "accepted");
  CHECK(message(sharded, ring) == "--ps-shards: only the ps algorithm has servers, not ring");
  run::AlgorithmOptions placed;
  placed.ps_node = {"cpu0"};
  CHECK(message(placed, toy) == "--ps-node: only the ps algorithm has servers, not ring");
}

TEST_CASE("simulate: the chunk, the closed form and NCCL's costs come from the entry", "[registry][capabilities][cli]") {
  // 4 GPUs fully connected, 1 µs and 25 GB/s per link: the closed forms see α = 1 µs.
  const auto topology = topo::generate_fabric(topo::Fabric::FullyConnected, 4, parse_bandwidth("25GB/s"),
                                              parse_latency("1us"));
  const run::AlgorithmOptions flags;
  const Bytes size = Bytes{1} << 20;
  const algo::AlgorithmInfo toy = toy_ring();
  const auto builtin = algo::builtin_registry();
  const algo::AlgorithmInfo& ring = builtin.find(Collective::AllReduce, "ring");

  const run::Plan toy_plan = run::build_plan(toy, topology, 4, flags, size, 4, run::ModelOptions{});
  CHECK(toy_plan.chunk == Bytes{512} << 10);  // pipelined: the default chunk is reported
  const auto toy_run = run::simulate_plan(toy_plan, topology, "fifo", run::Formula::Nccl);
  CHECK(toy_run.summary.closed_form == Time{4'000'000});  // the toy's N·α, no protocol latency
  const run::Plan ring_plan = run::build_plan(ring, topology, 4, flags, size, 4, run::ModelOptions{});
  CHECK(ring_plan.chunk == 0);
  // Ring's 2(N-1)(α + P/B): P = 256 KiB takes 262144 B / 25e9 B/s = 10.48576 µs, so
  // 6 × 11.48576 µs = 68.91456 µs.
  CHECK(run::simulate_plan(ring_plan, topology, "fifo").summary.closed_form == Time{68'914'560});

  // NCCL's formula exists for NCCL's families only; its base latency is that family's row of
  // baseLat (NCCL src/graph/tuning.cc): LL 6.8 µs for tree, 6.6 µs for ring and everything else.
  CHECK(toy_run.summary.model_time.has_value());
  const run::Plan none_plan =
      run::build_plan(toy_ring(algo::NcclFamily::None), topology, 4, flags, size, 4, run::ModelOptions{});
  CHECK_FALSE(run::simulate_plan(none_plan, topology, "fifo", run::Formula::Nccl).summary.model_time.has_value());
  run::ModelOptions ll;
  ll.protocol = topo::ProtocolChoice::LL;
  CHECK(run::build_plan(toy, topology, 4, flags, size, 4, ll).fidelity.costs.base_latency == Time{6'800'000});
  CHECK(run::build_plan(toy_ring(algo::NcclFamily::None), topology, 4, flags, size, 4, ll).fidelity.costs.base_latency ==
        Time{6'600'000});
  CHECK(run::build_plan(ring, topology, 4, flags, size, 4, ll).fidelity.costs.base_latency == Time{6'600'000});
}

TEST_CASE("built-in entries: the typed fields agree with the help text and the old name rules",
          "[registry][capabilities]") {
  const auto registry = algo::builtin_registry();
  for (const auto& info : registry.all()) {
    INFO(info.name << " " << sched::collective_name(info.collective));
    // The flags a person reads in `collsim algorithms` are the ones the code checks.
    CHECK(info.pipelined == mentions(info.options, "--chunk-size"));
    CHECK(info.takes.ps_shards == mentions(info.options, "--ps-shards"));
    CHECK(info.takes.ps_node == mentions(info.options, "--ps-node"));
    // Every entry has a closed form but NVLS's (the switch's pipeline has none yet; its times are
    // derived by hand in tests/cli/nvls_cli_test.cpp).
    CHECK((info.closed_form_time != nullptr) == !info.switch_reduction);
    CHECK(info.aliases.empty());
    // NCCL's algorithms as the name rules had them: tree, double-tree and nccl-tree on the tree
    // row, ring on the ring row, the rest none (the ring row, no NCCL formula).
    const bool tree = info.name == "tree" || info.name == "double-tree" || info.name == "nccl-tree";
    const auto family = tree                   ? algo::NcclFamily::Tree
                        : info.name == "ring" && info.collective != sched::Collective::SendRecv ? algo::NcclFamily::Ring
                        : info.name == "nvls"  ? algo::NcclFamily::Nvls
                        : info.name == "nvls-tree" ? algo::NcclFamily::NvlsTree
                        : info.name == "pat" ? algo::NcclFamily::Pat
                        : info.name == "collnet" ? algo::NcclFamily::CollNet
                                               : algo::NcclFamily::None;
    CHECK(info.family == family);
    // Only an algorithm that needs hosts refuses 4 ranks on unknown hosts, and it builds on 2 x 2.
    algo::Request request{info.collective, 4, 4096};
    if (info.needs_hosts) {
      CHECK_THROWS_AS(info.build(request), algo::AlgorithmError);
      request.hosts = algo::equal_hosts(4, 2);
    }
    CHECK(info.build(request).header.nranks == 4);
  }
  const auto all = registry.all();
  CHECK(std::count_if(all.begin(), all.end(), [](const algo::AlgorithmInfo& i) { return i.needs_hosts; }) == 1);
}

TEST_CASE("built-in closed forms through the entries, worked out by hand", "[registry][capabilities][closed-form]") {
  const auto registry = algo::builtin_registry();
  const auto form = [&](std::string_view name, const algo::Request& r, const algo::AlphaBeta& f) {
    return registry.find(r.collective, name).closed_form_time(r, f);
  };
  const Time alpha{1'000'000};          // a = 1 µs
  const Bandwidth bw{200'000'000'000};  // B = 25 GB/s
  const algo::AlphaBeta links{alpha, bw, false};
  const algo::AlphaBeta one_port{alpha, bw, true};
  const Bytes mib = Bytes{1} << 20;
  // 1 MiB at 25 GB/s: 1048576 B / 25e9 B/s = 41.94304 µs; 256 KiB: 10.48576 µs.

  // Ring all-reduce 2(N-1)(a + P/B), N = 4, S = 4 MiB, P = 1 MiB: 6 × 42.94304 µs = 257.65824 µs.
  const algo::Request ring_req{Collective::AllReduce, 4, 4 * mib};
  CHECK(form("ring", ring_req, links) == Time{257'658'240});
  CHECK(algo::closed_form_time("ring", ring_req, links) == Time{257'658'240});
  // Ring keeps to neighbours, so a ring of GPUs still has its form; the others do not.
  algo::AlphaBeta ring_of_gpus = links;
  ring_of_gpus.neighbours_only = true;
  CHECK(form("ring", ring_req, ring_of_gpus) == Time{257'658'240});
  CHECK_FALSE(form("direct", ring_req, ring_of_gpus));

  // Tree all-reduce 2D(a + c/B) + (C-1)c/B, N = 4 (D = 2), S = 1 MiB, c = 256 KiB (C = 4):
  // 4 × 11.48576 + 3 × 10.48576 = 45.94304 + 31.45728 = 77.40032 µs. None on one port.
  algo::Request tree_req{Collective::AllReduce, 4, mib};
  tree_req.chunk_size = Bytes{256} << 10;
  CHECK(form("tree", tree_req, links) == Time{77'400'320});
  CHECK_FALSE(form("tree", tree_req, one_port));

  // Recursive-doubling all-reduce log2(N)(a + S/B), N = 4, S = 1 MiB: 2 × 42.94304 = 85.88608 µs.
  CHECK(form("recursive-doubling", algo::Request{Collective::AllReduce, 4, mib}, links) == Time{85'886'080});

  // ps, one server on one port: 2(a + (N-1)S/B), N = 4, S = 1 MiB: 2 × (1 + 125.82912) = 253.65824 µs.
  CHECK(form("ps", algo::Request{Collective::AllReduce, 4, mib}, one_port) == Time{253'658'240});

  // Hierarchical, K = 2 hosts of L = 2, S = 4 MiB (c = 1 MiB), a' = 2 µs, B' = 25 GB/s, M = 2:
  // 2(L-1)(a + K c/B) + 2(K-1)(a' + M c/B') = 2 × 84.88608 + 2 × 85.88608 = 341.54432 µs.
  algo::Request hier_req{Collective::AllReduce, 4, 4 * mib};
  hier_req.hosts = algo::equal_hosts(4, 2);
  algo::AlphaBeta hosts = links;
  hosts.inter_host = algo::HostNetwork{Time{2'000'000}, bw, 2};
  CHECK(form("hierarchical", hier_req, hosts) == Time{341'544'320});
  CHECK_FALSE(form("ring", hier_req, hosts));  // two fabrics: only hierarchical has a form

  // N = 1: nothing to do, for every entry.
  for (const auto& info : registry.all())
    if (info.closed_form_time != nullptr)
      CHECK(info.closed_form_time(algo::Request{info.collective, 1, mib}, links) == Time{0});
}
}  // namespace algorithm_capabilities_test
