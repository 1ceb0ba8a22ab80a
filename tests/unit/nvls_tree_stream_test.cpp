// NVLSTree all-reduce on demand (algorithms/nvls_tree_stream.hpp) against its materialised
// schedule (the oracle: the builder infers every dependency from data flow), op for op and to the
// picosecond, with the hosts' switches as helper ranks.
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "algorithms/channels.hpp"
#include "algorithms/host_grid.hpp"
#include "algorithms/nvls_tree_allreduce.hpp"
#include "algorithms/nvls_tree_stream.hpp"
#include "tests/cli/cli_harness.hpp"
#include "tests/unit/stream_check.hpp"
#include "topologies/generate.hpp"

// One namespace per test file: CI builds the tests as unity sources (.ci/run), where each file's
// helpers would otherwise meet the other files'.
namespace nvls_tree_stream_test {

using namespace collsim;

namespace {

algo::Request request(sched::Rank n, sched::Rank hosts, Bytes size, Bytes chunk) {
  algo::Request r{sched::Collective::AllReduce, n, size};
  r.chunk_size = chunk;
  r.hosts = algo::equal_hosts(n, hosts);
  return r;
}

// K hosts of L GPUs, each on its host switch (50 GB/s, 1 us), the host switches on one network
// switch by `net` each (1 us): rank r on gpu r, helper N + h (L > 1) on host h's switch.
struct Cluster {
  topo::Topology topology;
  std::vector<topo::NodeId> ranks;
};

Cluster cluster(sched::Rank hosts, sched::Rank locals, Bandwidth net) {
  topo::MultiNodeSpec spec;
  spec.gpus = hosts * locals;
  spec.hosts = hosts;
  spec.link_bandwidth = Bandwidth{400'000'000'000};
  spec.link_latency = Time{1'000'000};
  spec.net_bandwidth = net;
  spec.net_latency = Time{1'000'000};
  Cluster c{topo::generate_multi_node(spec), {}};
  c.ranks.assign(c.topology.gpus().begin(), c.topology.gpus().end());
  if (locals > 1)
    for (sched::Rank h = 0; h < hosts; ++h) {
      // Host h's switch follows the N GPUs (generate_multi_node's order).
      const topo::NodeId sw = hosts * locals + h;
      REQUIRE(c.topology.node(sw).type == topo::NodeType::Switch);
      c.ranks.push_back(sw);
    }
  return c;
}

}  // namespace

TEST_CASE("nvls-tree on demand is its materialised schedule, op for op and to the picosecond", "[stream][nvls-tree]") {
  // Hosts K = 1 (NVLS alone), 2, 3, 5 (trees of one and two children, odd K's shifted second tree) and
  // 8; L = 1 (no switch: the double tree of hosts), 2, 3 and 4; sizes that leave parts of no bytes,
  // halves of one short chunk, and several chunks whose last is shorter (the switch's slot of a new
  // size); uplinks as fast as the GPUs' links and 8 times slower (contended).
  for (const sched::Rank hosts : {1U, 2U, 3U, 5U, 8U})
    for (const sched::Rank locals : {1U, 2U, 3U, 4U}) {
      if (hosts * locals == 1) continue;
      for (const Bytes size : {Bytes{0}, Bytes{24}, Bytes{1000}, (Bytes{3} << 20) + 12})
        for (const Bytes chunk : {Bytes{128} << 10, Bytes{48} << 10}) {
          INFO("K = " << hosts << ", L = " << locals << ", S = " << size << ", chunk = " << chunk);
          const algo::Request r = request(hosts * locals, hosts, size, chunk);
          const sched::Schedule schedule = algo::build_nvls_tree_allreduce(r);
          const auto stream = algo::stream_nvls_tree_allreduce(r);
          CHECK(stream->header() == testing::shell_of(schedule));
          REQUIRE(stream->op_count() == schedule.ops.size());
          for (const Bandwidth net : {Bandwidth{400'000'000'000}, Bandwidth{50'000'000'000}}) {
            const Cluster c = cluster(hosts, locals, net);
            for (const std::string_view model : {"flow", "fifo"}) {
              INFO(model << ", uplink " << net.bits_per_s << " b/s");
              testing::check_stream_run(*stream, schedule, c.topology, model, c.ranks);
            }
          }
        }
    }
  // One rank: no op.
  const auto one = algo::stream_nvls_tree_allreduce(request(1, 1, 1 << 20, 128 << 10));
  CHECK(one->op_count() == 0);
  CHECK(one->header() == testing::shell_of(algo::build_nvls_tree_allreduce(request(1, 1, 1 << 20, 128 << 10))));
}

TEST_CASE("nvls-tree on demand against its materialised schedule on random inputs", "[stream][nvls-tree][property]") {
  // The plain reference on random hosts, ranks a host, sizes (odd ones included), chunks, uplinks and
  // network models, op for op.
  std::mt19937_64 rng(2027);
  for (int i = 0; i < 24; ++i) {
    const auto hosts = static_cast<sched::Rank>(1 + rng() % 6), locals = static_cast<sched::Rank>(1 + rng() % 4);
    if (hosts * locals == 1) continue;
    const Bytes size = rng() % (Bytes{3} << 20);
    const Bytes chunk = (Bytes{16} << 10) + 4 * (rng() % 32768);  // 16 KiB to 144 KiB, whole floats
    const Bandwidth net{(1 + rng() % 8) * 50'000'000'000ull};
    const std::string_view model = rng() % 2 ? "flow" : "fifo";
    INFO("K = " << hosts << ", L = " << locals << ", S = " << size << ", chunk = " << chunk << ", uplink "
                << net.bits_per_s << " b/s, " << model);
    const algo::Request r = request(hosts * locals, hosts, size, chunk);
    const sched::Schedule schedule = algo::build_nvls_tree_allreduce(r);
    const auto stream = algo::stream_nvls_tree_allreduce(r);
    CHECK(stream->header() == testing::shell_of(schedule));
    REQUIRE(stream->op_count() == schedule.ops.size());
    const Cluster c = cluster(hosts, locals, net);
    testing::check_stream_run(*stream, schedule, c.topology, model, c.ranks);
  }
}

TEST_CASE("nvls-tree on channels on demand is the materialised channels' run, helpers kept in place",
          "[stream][nvls-tree][channels]") {
  // 3 hosts of 4 on 4 channels (each channel's host blocks rotated by c mod 4, the switches stay).
  const auto registry = algo::builtin_registry();
  const auto& entry = registry.find(sched::Collective::AllReduce, "nvls-tree");
  const algo::Request r = request(12, 3, Bytes{5} << 20, Bytes{128} << 10);
  const sched::Schedule schedule = algo::build_with_channels(entry, r, 4);
  const auto streamed = algo::stream_with_channels(entry, r, 4, false);
  REQUIRE(streamed.stream != nullptr);
  CHECK(streamed.stream->header() == testing::shell_of(schedule));
  REQUIRE(streamed.stream->op_count() == schedule.ops.size());
  const Cluster c = cluster(3, 4, Bandwidth{100'000'000'000});
  testing::check_stream_run(*streamed.stream, schedule, c.topology, "flow", c.ranks);
}

TEST_CASE("nvls-tree keeps NCCL's 128 KiB chunk where the materialised schedule raises it", "[cli][nvls-tree][stream]") {
  // 2 DGX H100 on a rail fabric, 64 MiB on NCCL's 16 channels: 64 MiB / 16 / 8 parts / 2 halves /
  // 128 KiB = 2 chunks a half, 2 x (2 hosts x (3 x 8 + 2) + 2 x 1) = 108 ops a (part, half), 16 x 16
  // (part, half) pairs: 27,648 ops. Over a budget of 20,000 the materialised schedule (--verify
  // needs one) doubles its chunk to 256 KiB; on demand there is no budget and the chunk stays.
  const std::vector<std::string> args{"--node", "dgx-h100", "--nodes", "2", "--fabric", "rail", "--algorithm",
                                      "nvls-tree", "--size", "64M", "--max-ops", "20000"};
  const auto streamed = testing::simulate_json(args);
  CHECK(streamed["chunk_bytes"] == 131072);
  CHECK(streamed["chunk_source"] == "default");
  CHECK(streamed["channels"] == 16);
  auto verified_args = args;
  verified_args.push_back("--verify");
  const auto verified = testing::simulate_json(verified_args);
  CHECK(verified["chunk_bytes"] == 262144);
}

}  // namespace nvls_tree_stream_test
