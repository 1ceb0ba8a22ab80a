// Ring broadcast and ring reduce on demand (algorithms/ring_chain_stream.hpp, issue 18 item 3)
// against their materialised schedules, the oracle; and the pipeline chunk kept at scale.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "algorithms/registry.hpp"
#include "algorithms/ring_chain_stream.hpp"
#include "sim/network/flow_model.hpp"
#include "tests/cli/cli_harness.hpp"
#include "tests/unit/stream_check.hpp"
#include "topologies/generate.hpp"
#include "topologies/load_json.hpp"

// One namespace per test file: CI builds the tests as unity sources (.ci/run), where each file's
// helpers would otherwise meet the other files'.
namespace ring_chain_stream_test {

using namespace collsim;

TEST_CASE("ring broadcast and reduce on demand are their materialised schedules op for op", "[stream][ring-chain]") {
  const auto registry = algo::builtin_registry();
  for (const auto collective : {sched::Collective::Broadcast, sched::Collective::Reduce}) {
    const auto& entry = registry.find(collective, "ring");
    REQUIRE(entry.stream != nullptr);
    INFO(sched::collective_name(collective));
    for (const sched::Rank n : {1U, 2U, 3U, 5U, 8U, 13U})
      for (const sched::Rank root : {0U, 1U, 4U})
        for (const Bytes size : {Bytes{0}, Bytes{24}, Bytes{1000}, (Bytes{3} << 20) + 3}) {
          if (root >= n) continue;
          INFO("N = " << n << ", root " << root << ", S = " << size);
          algo::Request request;
          request.nranks = n;
          request.root = root;
          request.size = size;
          request.chunk_size = Bytes{512} << 10;
          testing::check_stream_entry(entry, request);
        }
  }
  algo::Request bad;
  bad.nranks = 4;
  bad.root = 4;
  bad.size = 1000;
  CHECK_THROWS_WITH(algo::stream_ring_broadcast(bad), "root 4 is out of range (ranks 0..3)");
}

TEST_CASE("ring broadcast at 4096 ranks keeps its 512 KiB chunk: the closed form", "[stream][ring-chain]") {
  // (N-1)(a + c/B) + (C-1)c/B on a switch (a = 2 us over two links, B = 25 GB/s) with N = 4096,
  // S = 1 GiB and c = 512 KiB: C = 2048 chunks of 20.97152 us, 4095 x 22.97152 + 2047 x 20.97152 us
  // = 136,997.07584 us. The materialised chain raised c to 16 MiB here (the op budget) and gave 2.8 s.
  const testing::CliRun run = testing::run_collsim({"simulate", "--gpus", "4096", "--fabric", "switch", "--collective", "broadcast",
                                  "--algorithm", "ring", "--size", "1G", "--format", "json"});
  REQUIRE(run.code == 0);
  const auto j = nlohmann::json::parse(run.out);
  CHECK(j.at("chunk_bytes") == 524288);
  CHECK(j.at("chunk_source") == "default");
  CHECK(j.at("time_ps") == std::int64_t{4095} * 22'971'520 + std::int64_t{2047} * 20'971'520);
}
}  // namespace ring_chain_stream_test
