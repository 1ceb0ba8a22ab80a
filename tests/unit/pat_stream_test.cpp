// PAT all-gather and reduce-scatter on demand (algorithms/pat_stream.hpp, issue 18 item 3) against
// their materialised schedules, the oracle; the closed form.
#include <catch2/catch.hpp>

#include "algorithms/pat_stream.hpp"
#include "algorithms/registry.hpp"
#include "sim/network/flow_model.hpp"
#include "tests/unit/stream_check.hpp"
#include "topologies/generate.hpp"
#include "topologies/load_json.hpp"

// One namespace per test file: CI builds the tests as unity sources (.ci/run), where each file's
// helpers would otherwise meet the other files'.
namespace pat_stream_test {

using namespace collsim;

TEST_CASE("pat all-gather and reduce-scatter on demand are their materialised schedules op for op", "[stream][pat]") {
  const auto registry = algo::builtin_registry();
  for (const auto collective : {sched::Collective::AllGather, sched::Collective::ReduceScatter}) {
    const auto& entry = registry.find(collective, "pat");
    REQUIRE(entry.stream != nullptr);
    INFO(sched::collective_name(collective));
    // Powers of two and not (the last step's count N - d < d), one part of uneven size or none.
    // 11 ranks of 7 B (parts of 0 and 1 B) and 20 of 15 B and 1 MiB on a ring differed from the
    // materialised run while the reduce-scatter's first sends were chained (session 25's newcomer).
    for (const sched::Rank n : {1U, 2U, 3U, 5U, 6U, 8U, 11U, 12U, 13U, 16U, 20U, 27U, 32U})
      for (const Bytes size : {Bytes{0}, Bytes{7}, Bytes{15}, Bytes{24}, Bytes{1000}, Bytes{1} << 20,
                               (Bytes{1} << 20) + 3}) {
        INFO("N = " << n << ", S = " << size);
        algo::Request request;
        request.nranks = n;
        request.size = size;
        testing::check_stream_entry(entry, request);
      }
  }
}

TEST_CASE("pat on demand: the closed form at 256 ranks", "[stream][pat]") {
  // ceil(log2 N) a + (N-1)/N S/B on a switch (two links of 1 us a step, 50 GB/s): N = 256 and
  // S = 256 MiB, 8 steps of 2 us and 255 parts of 1 MiB a rank back to back on its one link
  // (1 MiB at 50 GB/s = 20.97152 us), each step's parts leaving after the step before arrived.
  algo::Request request;
  request.nranks = 256;
  request.size = Bytes{256} << 20;
  const topo::Topology topology =
      topo::generate_fabric(topo::Fabric::Switch, 256, Bandwidth{400'000'000'000}, Time{1'000'000});
  for (const auto make : {&algo::stream_pat_allgather, &algo::stream_pat_reduce_scatter}) {
    const auto stream = make(request);
    // No rank period: the reduce-scatter's successors come in the builder's order by rank, which
    // moving the ranks on does not keep at the wrap.
    CHECK(stream->rank_period() == 0);
    net::FlowModel network(topology);
    const auto result = sim::run(*stream, topology, topology.gpus(), network, {});
    CHECK(result.makespan == Time{16'000'000 + std::int64_t{255} * 20'971'520});
    CHECK(result.ops.empty());
  }
}
}  // namespace pat_stream_test
