// Slicing generated on demand (sched::slice_stream) against the plain reference, the materialised
// schedule cut by sched::slice_schedule: the same op count and, run by the engine, the same
// makespan, every rank's traffic and every link's bytes and busy time, on random ring runs.
#include <catch2/catch.hpp>

#include <random>

#include "algorithms/channels.hpp"
#include "algorithms/registry.hpp"
#include "algorithms/ring_stream.hpp"
#include "sim/engine.hpp"
#include "sim/network/flow_model.hpp"
#include "sim/schedule/sliced_stream.hpp"
#include "sim/schedule/slicing.hpp"
#include "tests/unit/stream_check.hpp"
#include "topologies/generate.hpp"

// One namespace per test file: CI builds the tests as unity sources (.ci/run), where each file's
// helpers would otherwise meet the other files'.
namespace sliced_stream_test {

using namespace collsim;

namespace {

constexpr Time us(std::int64_t v) { return Time{v * 1'000'000}; }

algo::Request request(sched::Collective collective, sched::Rank n, Bytes size) {
  algo::Request r;
  r.collective = collective;
  r.nranks = n;
  r.size = size;
  return r;
}

}  // namespace

TEST_CASE("sliced ring streams run as the materialised schedule cut into the same slices", "[schedule][stream][slice]") {
  const auto registry = algo::builtin_registry();
  std::mt19937_64 rng(2026);
  const Bandwidth bw{400'000'000'000}, net{100'000'000'000};  // 50 and 12.5 GB/s
  int sliced = 0, folded = 0;
  for (int i = 0; i < 60; ++i) {
    const auto collective = std::array{sched::Collective::AllReduce, sched::Collective::ReduceScatter,
                                       sched::Collective::AllGather}[rng() % 3];
    const sched::Rank n = 2 + static_cast<sched::Rank>(rng() % 7);
    // Parts of n x 4-byte elements x 1..64 x 1 KiB, cut into slices of 1..5 KiB: 1 to 64 pieces,
    // the last one often shorter.
    const Bytes part = 1024 * (1 + rng() % 64), slice = 1024 * (1 + rng() % 5);
    const auto req = request(collective, n, part * n);
    // Two hosts when n is even (a slower network between them: the pipeline matters), else a switch.
    const topo::Topology t = n % 2 == 0 ? topo::generate_multi_node({n, 2, bw, us(1), net, us(2)})
                                        : topo::generate_fabric(topo::Fabric::Switch, n, bw, us(1));
    const std::vector<topo::NodeId> gpus(t.gpus().begin(), t.gpus().begin() + n);
    INFO("case " << i << ": ring " << sched::collective_name(collective) << ", N = " << n << ", parts of " << part
                 << " B, slices of " << slice << " B");
    const auto materialised = sched::slice_schedule(registry.find(collective, "ring").build(req), slice);
    auto stream = sched::slice_stream(algo::make_ring_stream(req, collective), slice);
    REQUIRE(stream != nullptr);
    CHECK(stream->op_count() == materialised.ops.size());
    CHECK(stream->header().chunks.size() == materialised.chunks.size());
    CHECK(stream->rank_period() == 1);
    net::FlowModel a(t), b(t), c(t);
    const auto reference = sim::run(materialised, t, gpus, a, sim::RunOptions{});
    sim::RunOptions whole;
    whole.fold_ranks = false;
    const auto on_demand = sim::run(*stream, t, gpus, b, whole);
    const auto fold = sim::run(*stream, t, gpus, c, sim::RunOptions{});
    for (const auto* r : {&on_demand, &fold}) {
      CHECK(r->makespan == reference.makespan);
      for (std::size_t k = 0; k < reference.ranks.size(); ++k) {
        CHECK(r->ranks[k].sent == reference.ranks[k].sent);
        CHECK(r->ranks[k].received == reference.ranks[k].received);
      }
      for (std::size_t l = 0; l < reference.links.size(); ++l) {
        CHECK(r->links[l].bytes == reference.links[l].bytes);
        CHECK(r->links[l].busy == reference.links[l].busy);
      }
    }
    sliced += part > slice;
    folded += fold.rank_images > 1;
  }
  // Most cases cut parts into several slices, and fold ranks: a check that met neither would test
  // only the pass-through.
  CHECK(sliced > 40);
  CHECK(folded > 40);
}

TEST_CASE("sliced ring channels run op for op as the built channels cut into the same slices", "[schedule][stream][slice][channels]") {
  // stream_with_channels with a slice against slice_schedule(build_with_channels): every op's
  // (ready, finish), the events and every link (testing::check_stream_run), for NCCL's channel
  // placements: none, one host (odd channels reversed), two hosts (each channel rotated).
  const auto registry = algo::builtin_registry();
  const Bandwidth bw{400'000'000'000};
  for (const auto collective : {sched::Collective::AllReduce, sched::Collective::ReduceScatter, sched::Collective::AllGather})
    for (const sched::Rank n : {4U, 8U})
      for (const std::uint32_t channels : {2U, 3U})
        for (const int hosts : {0, 1, 2}) {
          INFO("ring " << sched::collective_name(collective) << ", N = " << n << ", " << channels << " channels, "
                       << hosts << " host(s)");
          auto req = request(collective, n, Bytes{n} * channels * 40000);  // parts of 40000 B a channel
          for (sched::Rank r = 0; hosts > 0 && r < n; ++r) req.hosts.push_back(hosts == 1 ? 0 : r / (n / 2));
          const auto& entry = registry.find(collective, "ring");
          const Bytes slice = 16384;  // 3 slices a part: 16384, 16384, 7232 B
          const auto streamed = algo::stream_with_channels(entry, req, channels, false, slice);
          REQUIRE(streamed.stream != nullptr);
          const auto built = sched::slice_schedule(algo::build_with_channels(entry, req, channels), slice);
          REQUIRE(streamed.stream->op_count() == built.ops.size());
          testing::check_stream_run(*streamed.stream, built, topo::generate_fabric(topo::Fabric::Switch, n, bw, us(1)), "flow");
          testing::check_stream_run(*streamed.stream, built, topo::generate_fabric(topo::Fabric::Ring, n, bw, us(1)), "fifo");
        }
}

TEST_CASE("slice_stream passes a stream through with nothing to cut and refuses what it cannot cut alike",
          "[schedule][stream][slice]") {
  // 4 ranks of 4 KiB parts: slices of 4 KiB or more cut nothing, and the stream itself comes back.
  auto whole = algo::make_ring_stream(request(sched::Collective::AllReduce, 4, 16384), sched::Collective::AllReduce);
  const sched::OpStream* raw = whole.get();
  CHECK(sched::slice_stream(std::move(whole), 4096).get() == raw);
  // Slices of 1000 B: each 4096 B part in 5 pieces, the last of 96 B.
  const auto cut =
      sched::slice_stream(algo::make_ring_stream(request(sched::Collective::AllReduce, 4, 16384), sched::Collective::AllReduce), 1000);
  REQUIRE(cut != nullptr);
  CHECK(cut->op_count() == 2 * 3 * 4 * 5);
  std::vector<sched::OpKey> roots;
  cut->roots(roots);
  REQUIRE(roots.size() == 4 * 5);
  CHECK(cut->op(roots[0]).bytes == 1000);
  CHECK(cut->op(roots[4]).bytes == 96);
  // 3 ranks of 10 B (not whole 4-byte elements, so split in bytes): parts of 4, 3 and 3 B; slices
  // of 3 B cut them into 2, 1 and 1 pieces, which slice_schedule pairs with all of each other's:
  // not one to one, refused.
  CHECK(sched::slice_stream(algo::make_ring_stream(request(sched::Collective::AllReduce, 3, 10), sched::Collective::AllReduce), 3) ==
        nullptr);
  // 4 parts of 1 MiB in 2-byte slices: 2^21 slices, past kMaxSlices (2^20): refused, so the caller
  // materialises within its op budget; in 4-byte slices, 2^20: cut.
  const auto ring4 = [] { return algo::make_ring_stream(request(sched::Collective::AllReduce, 4, Bytes{4} << 20), sched::Collective::AllReduce); };
  CHECK(sched::slice_stream(ring4(), 2) == nullptr);
  CHECK(sched::slice_stream(ring4(), 4) != nullptr);
}

}  // namespace sliced_stream_test
