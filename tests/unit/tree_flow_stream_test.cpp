// Tree reduce and tree broadcast on demand (algorithms/tree_stream.hpp, issue 18 item 3) against
// their materialised schedules, the oracle; and the pipeline chunk kept at scale.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "algorithms/registry.hpp"
#include "algorithms/tree_stream.hpp"
#include "tests/cli/cli_harness.hpp"
#include "tests/unit/stream_check.hpp"
#include "topologies/generate.hpp"
#include "topologies/load_json.hpp"

// One namespace per test file: CI builds the tests as unity sources (.ci/run), where each file's
// helpers would otherwise meet the other files'.
namespace tree_flow_stream_test {

using namespace collsim;

TEST_CASE("tree reduce and broadcast on demand are their materialised schedules op for op", "[stream][tree]") {
  const auto registry = algo::builtin_registry();
  for (const auto collective : {sched::Collective::Reduce, sched::Collective::Broadcast}) {
    const auto& entry = registry.find(collective, "tree");
    REQUIRE(entry.stream != nullptr);
    INFO(sched::collective_name(collective));
    for (const sched::Rank n : {1U, 2U, 3U, 4U, 5U, 8U, 13U, 16U})
      for (const sched::Rank root : {0U, 1U, 6U})
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
  CHECK_THROWS_WITH(algo::stream_tree_broadcast(bad), "root 4 is out of range (ranks 0..3)");
  CHECK_THROWS_WITH(algo::stream_tree_reduce(bad), "root 4 is out of range (ranks 0..3)");
}

TEST_CASE("tree broadcast at 4096 ranks keeps its 512 KiB chunk", "[stream][tree]") {
  // On a switch (a = 2 us over two links, B = 25 GB/s) a rank with two children sends each chunk
  // to both over its one link, each at B/2 while both go. The materialised tree raised c to 16 MiB
  // here (the op budget) and gave 100.016 ms, its pipeline a 32nd as deep.
  const testing::CliRun run = testing::run_collsim({"simulate", "--gpus", "4096", "--fabric", "switch", "--collective",
                                                    "broadcast", "--algorithm", "tree", "--size", "1G", "--format",
                                                    "json"});
  REQUIRE(run.code == 0);
  const auto j = nlohmann::json::parse(run.out);
  CHECK(j.at("chunk_bytes") == 524288);
  CHECK(j.at("chunk_source") == "default");
  // By hand: the link of a rank with two children carries 2 S = 2 x 1 GiB at 25 GB/s (85.89934592
  // ms), a lower bound; the pipeline fills in D = 12 hops of one chunk each at B/2 with their
  // latency, at most, on top of it.
  const auto t = j.at("time_ps").get<std::int64_t>();
  CHECK(t >= std::int64_t{85'899'345'920});
  CHECK(t <= std::int64_t{85'899'345'920} + 12 * (std::int64_t{2} * 20'971'520 + 2'000'000));
}
}  // namespace tree_flow_stream_test
