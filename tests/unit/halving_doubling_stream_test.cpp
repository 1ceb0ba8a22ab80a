// Halving-doubling all-reduce on demand (algorithms/halving_doubling_stream.hpp, issue 18 item 3)
// against its materialised schedule, the oracle; and the engine's joins.
#include <catch2/catch.hpp>

#include "algorithms/halving_doubling_stream.hpp"
#include "algorithms/registry.hpp"
#include "sim/network/flow_model.hpp"
#include "tests/unit/stream_check.hpp"
#include "topologies/generate.hpp"
#include "topologies/load_json.hpp"

// One namespace per test file: CI builds the tests as unity sources (.ci/run), where each file's
// helpers would otherwise meet the other files'.
namespace halving_doubling_stream_test {

using namespace collsim;

TEST_CASE("halving-doubling all-reduce reduce-scatter and all-gather on demand are their materialised schedules op for op",
          "[stream][halving-doubling]") {
  const auto registry = algo::builtin_registry();
  const std::vector<std::pair<sched::Collective, std::string>> entries{
      {sched::Collective::AllReduce, "halving-doubling"},
      {sched::Collective::ReduceScatter, "halving-doubling"},
      {sched::Collective::AllGather, "halving-doubling"},
      {sched::Collective::AllGather, "recursive-doubling"}};
  for (const auto& [collective, name] : entries) {
    const auto& entry = registry.find(collective, name);
    REQUIRE(entry.stream != nullptr);
    INFO(name << " " << sched::collective_name(collective));
    for (const sched::Rank n : {1U, 2U, 4U, 8U, 16U, 32U, 64U})
      for (const Bytes size : {Bytes{0}, Bytes{24}, Bytes{1000}, (Bytes{1} << 20) + 3}) {
        INFO("N = " << n << ", S = " << size);
        algo::Request request;
        request.nranks = n;
        request.size = size;
        // On the ring fabric every flow of a step shares links with dozens of others: N = 64 is
        // seconds of contended solving per run, and N <= 32 already has every case.
        testing::check_stream_entry(entry, request, n <= 32);
      }
  }
}

TEST_CASE("halving-doubling streams only a power of two of ranks, other N fold and stay materialised",
          "[stream][halving-doubling]") {
  algo::Request request;
  request.size = 1 << 20;
  for (const sched::Rank n : {3U, 5U, 6U, 12U}) {
    request.nranks = n;
    CHECK(algo::stream_halving_doubling_allreduce(request) == nullptr);
    CHECK(algo::stream_halving_doubling_reduce_scatter(request) == nullptr);
    CHECK(algo::stream_halving_doubling_allgather(request) == nullptr);
    CHECK(algo::stream_recursive_doubling_allgather(request) == nullptr);
  }
  // The closed form 2 log2(N) a + 2(N-1)/N S/B on a switch (two links of 1 us a step, 50 GB/s),
  // with N = 256 and S = 256 MiB: 16 steps of 2 us, and each rank sends 2 x 255 chunks of 1 MiB
  // back to back on its one link (1 MiB at 50 GB/s = 20.97152 us): 32 + 510 x 20.97152 us.
  request.nranks = 256;
  request.size = Bytes{256} << 20;
  const auto stream = algo::stream_halving_doubling_allreduce(request);
  REQUIRE(stream != nullptr);
  const topo::Topology topology =
      topo::generate_fabric(topo::Fabric::Switch, 256, Bandwidth{400'000'000'000}, Time{1'000'000});
  net::FlowModel network(topology);
  const auto result = sim::run(*stream, topology, topology.gpus(), network, {});
  CHECK(result.makespan == Time{32'000'000 + std::int64_t{510} * 20'971'520});
  CHECK(result.ops.empty());
  // Either half alone, log2(N) a + (N-1)/N S/B: 8 steps of 2 us and 255 chunks of 1 MiB a rank.
  for (const auto make : {&algo::stream_halving_doubling_reduce_scatter, &algo::stream_halving_doubling_allgather,
                          &algo::stream_recursive_doubling_allgather}) {
    const auto half = make(request);
    REQUIRE(half != nullptr);
    net::FlowModel half_network(topology);
    const auto half_result = sim::run(*half, topology, topology.gpus(), half_network, {});
    CHECK(half_result.makespan == Time{16'000'000 + std::int64_t{255} * 20'971'520});
  }
}
}  // namespace halving_doubling_stream_test
