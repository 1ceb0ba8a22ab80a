// Channels on demand (algo::stream_with_channels): every streamed algorithm on several channels
// against build_with_channels and build_folded_channels, the materialised oracles.
#include <catch2/catch.hpp>

#include "algorithms/channels.hpp"
#include "algorithms/registry.hpp"
#include "tests/unit/stream_check.hpp"
#include "topologies/generate.hpp"

// One namespace per test file: CI builds the tests as unity sources (.ci/run), where each file's
// helpers would otherwise meet the other files'.
namespace channel_stream_test {

using namespace collsim;

TEST_CASE("channels generated on demand are build_with_channels' channels, op for op and to the picosecond",
          "[stream][channels]") {
  const auto registry = algo::builtin_registry();
  const Bandwidth bw{400'000'000'000};  // 50 GB/s
  const Time lat{1'000'000};
  int streamed = 0;
  for (const auto& entry : registry.all()) {
    if (entry.stream == nullptr) continue;
    for (const sched::Rank n : {4U, 8U})
      for (const std::uint32_t channels : {2U, 3U, 5U})
        // No hosts; one host (odd channels run reversed); two hosts of N/2 (each channel rotated).
        for (const int hosts : {0, 1, 2})
          for (const Bytes size : {Bytes{1000}, (Bytes{1} << 20) + 4}) {
            INFO(entry.name << " " << sched::collective_name(entry.collective) << ", N = " << n << ", " << channels
                            << " channels, " << hosts << " host(s), S = " << size);
            algo::Request request;
            request.collective = entry.collective;
            request.nranks = n;
            request.size = size;
            request.chunk_size = Bytes{64} << 10;
            for (sched::Rank r = 0; hosts > 0 && r < n; ++r) request.hosts.push_back(hosts == 1 ? 0 : r / (n / 2));
            const auto full = algo::stream_with_channels(entry, request, channels, false);
            REQUIRE(full.stream != nullptr);
            CHECK(full.copies.empty());
            const sched::Schedule built = algo::build_with_channels(entry, request, channels);
            CHECK(full.stream->header() == testing::shell_of(built));
            REQUIRE(full.stream->op_count() == built.ops.size());
            if (built.header.helpers == 0) {
              testing::check_stream_run(*full.stream, built, topo::generate_fabric(topo::Fabric::Ring, n, bw, lat), "flow");
              testing::check_stream_run(*full.stream, built, topo::generate_fabric(topo::Fabric::Switch, n, bw, lat), "fifo");
            } else {
              // Helpers (nvls-tree's switches, one a host): the hosts' switches of a cluster of
              // max(hosts, 1) hosts, which follow the N GPUs.
              topo::MultiNodeSpec spec{n, hosts == 2 ? 2U : 1U, bw, lat, bw, lat};
              const topo::Topology t = topo::generate_multi_node(spec);
              std::vector<topo::NodeId> ranks(t.gpus().begin(), t.gpus().end());
              for (sched::Rank h = 0; h < built.header.helpers; ++h) ranks.push_back(n + h);
              for (const auto model : {"flow", "fifo"}) testing::check_stream_run(*full.stream, built, t, model, ranks);
            }
            // Folded: the leaders' header and ops, and the same copies.
            const auto folded = algo::stream_with_channels(entry, request, channels, true);
            const auto reference = algo::build_folded_channels(entry, request, channels);
            REQUIRE(folded.stream != nullptr);
            CHECK(folded.copies == reference.copies);
            CHECK(folded.stream->header() == testing::shell_of(reference.schedule));
            CHECK(folded.stream->op_count() == reference.schedule.ops.size());
            ++streamed;
          }
  }
  CHECK(streamed >= 7 * 2 * 3 * 3 * 2);  // ring (3 collectives), tree, double-tree, nccl-tree, halving-doubling, nvls-tree
}

TEST_CASE("an algorithm without a stream, or a share it does not stream, gives no stream of channels",
          "[stream][channels]") {
  const auto registry = algo::builtin_registry();
  algo::Request request;
  request.nranks = 6;  // halving-doubling streams a power of two only
  request.size = 1 << 20;
  CHECK(algo::stream_with_channels(registry.find(sched::Collective::AllReduce, "halving-doubling"), request, 4, false)
            .stream == nullptr);
  CHECK(algo::stream_with_channels(registry.find(sched::Collective::AllReduce, "direct"), request, 4, true).stream ==
        nullptr);
  CHECK(algo::stream_with_channels(registry.find(sched::Collective::AllReduce, "direct"), request, 4, true)
            .copies.empty());
}
}  // namespace channel_stream_test
