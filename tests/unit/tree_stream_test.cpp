// Tree all-reduce on demand (algorithms/tree_stream.hpp, issue 18 item 3): each stream against
// its materialised schedule, which is the oracle (the builder infers dependencies from data flow).
#include <catch2/catch.hpp>

#include "algorithms/registry.hpp"
#include "algorithms/tree_stream.hpp"
#include "tests/unit/stream_check.hpp"
#include "topologies/generate.hpp"
#include "topologies/load_json.hpp"

// One namespace per test file: CI builds the tests as unity sources (.ci/run), where each file's
// helpers would otherwise meet the other files'.
namespace tree_stream_test {

using namespace collsim;

namespace {

const Bandwidth kBw{400'000'000'000};  // 50 GB/s
const Time kLat{1'000'000};            // 1 us

}  // namespace

TEST_CASE("tree, double-tree and nccl-tree all-reduce on demand are their materialised schedules, op for op and to "
          "the picosecond",
          "[stream][tree]") {
  const auto registry = algo::builtin_registry();
  const auto name = GENERATE(as<std::string_view>{}, "tree", "double-tree", "nccl-tree");
  const auto& entry = registry.find(sched::Collective::AllReduce, name);
  REQUIRE(entry.stream != nullptr);
  for (const sched::Rank n : {1U, 2U, 3U, 4U, 5U, 7U, 8U, 13U, 32U})
    for (const Bytes size : {Bytes{0}, Bytes{24}, Bytes{1000}, (Bytes{3} << 20) + 3})
      for (const Bytes chunk : {Bytes{512} << 10, Bytes{64} << 10}) {
        INFO(name << ", N = " << n << ", S = " << size << ", chunk = " << chunk);
        algo::Request request;
        request.nranks = n;
        request.size = size;
        request.chunk_size = chunk;
        // nccl-tree on hosts of 4 ranks where 4 divides N (a chain in each host), else one host.
        if (entry.uses_hosts && n % 4 == 0)
          for (sched::Rank r = 0; r < n; ++r) request.hosts.push_back(r / 4);
        const sched::Schedule schedule = entry.build(request);
        const auto stream = entry.stream(request);
        CHECK(stream->header() == testing::shell_of(schedule));
        REQUIRE(stream->op_count() == schedule.ops.size());
        for (const auto fabric : {topo::Fabric::Switch, topo::Fabric::Ring})
          for (const std::string_view model : {"flow", "fifo"}) {
            INFO(topo::fabric_name(fabric) << ", " << model);
            testing::check_stream_run(*stream, schedule, topo::generate_fabric(fabric, n, kBw, kLat), model);
          }
        if (n <= 8) testing::check_stream_run(*stream, schedule, topo::load_topology("dgx-a100"), "flow");
      }
}

TEST_CASE("tree all-reduce on demand keeps the pipeline chunk and holds far fewer ops than it runs", "[stream][tree]") {
  // N = 256, 64 MiB in 512 KiB chunks: 128 chunks x (2 x 255 sends + 127 adds) = 81,536 ops
  // (ncclGetBtree: ranks with two children are the 127 even ranks but 0 and 128... counted by
  // the tree itself below), against O(N + chunks in flight) held.
  algo::Request request;
  request.nranks = 256;
  request.size = Bytes{64} << 20;
  const auto stream = algo::stream_tree_allreduce(request);
  const auto tree = algo::nccl_btree(256);
  std::uint64_t adds = 0;
  for (const auto& node : tree.nodes) adds += node.child_count() == 2 ? 1 : 0;
  CHECK(stream->op_count() == 128 * (2 * 255 + adds));
  CHECK(stream->header().chunks.size() == 2 * 128);  // data and scratch chunks of 512 KiB
  CHECK(stream->header().chunks.front().size == Bytes{512} << 10);
  CHECK_THROWS_AS(algo::make_tree_allreduce_stream(request, {}, "none"), std::invalid_argument);
  CHECK_THROWS_AS(algo::make_tree_allreduce_stream(request, {algo::nccl_btree(8)}, "bad"), std::invalid_argument);
}
}  // namespace tree_stream_test
