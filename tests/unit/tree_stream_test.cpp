// Tree all-reduce on demand (algorithms/tree_stream.hpp, issue 18 item 3): each stream against
// its materialised schedule, which is the oracle (the builder infers dependencies from data flow).
#include <catch2/catch.hpp>

#include "algorithms/registry.hpp"
#include "algorithms/tree_stream.hpp"
#include "sim/engine.hpp"
#include "sim/network/network_model.hpp"
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

TEST_CASE("a leaf's sends up launched one by one as the one before begins equal every chunk launched at the start",
          "[stream][tree][chain]") {
  // Hosts of 4 GPUs behind one 10 GB/s uplink each: a tree's flows across hosts share the uplinks
  // (the contended case, max-min re-solved at every change). The oracle is the same stream with
  // every root launched at the start (RunOptions::chain_roots = false), which the test above ties
  // to the materialised schedule.
  const auto registry = algo::builtin_registry();
  const auto name = GENERATE(as<std::string_view>{}, "tree", "double-tree");
  const auto& entry = registry.find(sched::Collective::AllReduce, name);
  for (const sched::Rank hosts : {4U, 16U}) {
    INFO(name << ", " << hosts << " hosts of 4");
    algo::Request request;
    request.nranks = 4 * hosts;
    request.size = Bytes{8} << 20;
    request.chunk_size = Bytes{64} << 10;
    const auto stream = entry.stream(request);
    const auto topology = topo::generate_multi_node({4 * hosts, hosts, kBw, kLat, Bandwidth{80'000'000'000}, kLat});
    const std::vector<topo::NodeId> gpus(topology.gpus().begin(), topology.gpus().end());
    testing::StreamRows rows[2];
    sim::Result result[2];
    for (int chained = 0; chained < 2; ++chained) {
      rows[chained].op = [&](sched::OpKey k) { return stream->op(k); };
      sim::RunOptions options;
      options.op_observer = &rows[chained];
      options.chain_roots = chained == 1;
      const auto model = net::make_network_model("flow", topology);
      result[chained] = sim::run(*stream, topology, gpus, *model, options);
      std::sort(rows[chained].rows.begin(), rows[chained].rows.end());
    }
    CHECK(result[1].makespan == result[0].makespan);
    CHECK(result[1].events == result[0].events);
    CHECK(rows[1].rows == rows[0].rows);
    for (std::size_t l = 0; l < topology.links().size(); ++l) {
      CHECK(result[1].links[l].bytes == result[0].links[l].bytes);
      CHECK(result[1].links[l].busy == result[0].links[l].busy);
    }
  }
}

TEST_CASE("chained, a tree's leaves hold two sends each, not one per pipeline chunk", "[stream][tree][chain]") {
  // 64 GPUs on one switch, 8 MiB in 64 KiB chunks: 128 chunks. Launched at the start, the 32
  // leaves' 128 sends up each are held at once (4,096, every root: nothing has finished at t = 0);
  // chained, a leaf holds its transmitting send and the next, and the rest of the tree holds the
  // chunks in flight through it.
  algo::Request request;
  request.nranks = 64;
  request.size = Bytes{8} << 20;
  request.chunk_size = Bytes{64} << 10;
  const auto stream = algo::stream_tree_allreduce(request);
  std::vector<sched::OpKey> roots;
  stream->roots(roots);
  REQUIRE(roots.size() == 32 * 128);
  const auto topology = topo::generate_fabric(topo::Fabric::Switch, 64, kBw, kLat);
  const std::vector<topo::NodeId> gpus(topology.gpus().begin(), topology.gpus().end());
  sim::Result result[2];
  for (int chained = 0; chained < 2; ++chained) {
    sim::RunOptions options;
    options.chain_roots = chained == 1;
    const auto model = net::make_network_model("flow", topology);
    result[chained] = sim::run(*stream, topology, gpus, *model, options);
  }
  CHECK(result[1].makespan == result[0].makespan);
  CHECK(result[0].peak_ops_held >= roots.size());
  CHECK(result[1].peak_ops_held <= roots.size() / 8);
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
