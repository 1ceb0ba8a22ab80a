// Tree all-reduce on demand (algorithms/tree_stream.hpp, issue 18 item 3): each stream against
// its materialised schedule, which is the oracle (the builder infers dependencies from data flow).
#include <catch2/catch.hpp>

#include <algorithm>
#include <functional>
#include <tuple>
#include <vector>

#include "algorithms/registry.hpp"
#include "algorithms/tree_stream.hpp"
#include "sim/engine.hpp"
#include "sim/network/network_model.hpp"
#include "topologies/generate.hpp"
#include "topologies/load_json.hpp"

using namespace collsim;

namespace {

// Every op as (src, dst, bytes, ready, finish), sorted: ops between the same ranks of the same size
// (one per pipeline chunk) differ in their times, so equal lists mean equal times op for op.
using Row = std::tuple<sched::Rank, sched::Rank, Bytes, Time, Time>;
struct Rows final : sim::OpObserver {
  std::function<sched::StreamOp(sched::OpKey)> op;
  std::vector<Row> rows;
  void op_done(sched::OpKey key, Time ready, Time finish) override {
    const auto o = op(key);
    rows.emplace_back(o.src, o.dst, o.bytes, ready, finish);
  }
};

void check_same_run(const sched::OpStream& stream, const sched::Schedule& schedule, const topo::Topology& topology,
                    std::string_view model) {
  const std::vector<topo::NodeId> gpus(topology.gpus().begin(), topology.gpus().begin() + schedule.header.nranks);
  const auto lazy_net = net::make_network_model(model, topology);
  const auto built_net = net::make_network_model(model, topology);
  const sched::ScheduleStream built_stream(schedule);
  Rows lazy, built;
  lazy.op = [&](sched::OpKey k) { return stream.op(k); };
  built.op = [&](sched::OpKey k) { return built_stream.op(k); };
  sim::RunOptions lazy_options, built_options;
  lazy_options.op_observer = &lazy;
  built_options.op_observer = &built;
  const auto a = sim::run(stream, topology, gpus, *lazy_net, lazy_options);
  const auto b = sim::run(schedule, topology, gpus, *built_net, built_options);
  CHECK(a.makespan == b.makespan);
  CHECK(a.events == b.events);
  std::sort(lazy.rows.begin(), lazy.rows.end());
  std::sort(built.rows.begin(), built.rows.end());
  CHECK(lazy.rows == built.rows);
  for (std::size_t l = 0; l < a.links.size(); ++l) {
    CHECK(a.links[l].bytes == b.links[l].bytes);
    CHECK(a.links[l].busy == b.links[l].busy);
  }
}

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
        sched::Schedule shell = schedule;
        shell.ops.clear();
        shell.deps.clear();
        shell.dep_offsets = {0};
        CHECK(stream->header() == shell);
        REQUIRE(stream->op_count() == schedule.ops.size());
        for (const auto fabric : {topo::Fabric::Switch, topo::Fabric::Ring})
          for (const std::string_view model : {"flow", "fifo"}) {
            INFO(topo::fabric_name(fabric) << ", " << model);
            check_same_run(*stream, schedule, topo::generate_fabric(fabric, n, kBw, kLat), model);
          }
        if (n <= 8) check_same_run(*stream, schedule, topo::load_topology("dgx-a100"), "flow");
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
