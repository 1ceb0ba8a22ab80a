// PAT all-gather and reduce-scatter (algorithms/pat_allgather.hpp, pat_reduce_scatter.hpp) and
// NCCL's PAT formula (sim/nccl_formula.hpp). Expected values by hand from the exchange in the
// headers (Bruck's distances 1, 2, 4, ..) and from NCCL 2.30.7's ncclTopoTuneModel.
#include <catch2/catch.hpp>

#include "algorithms/pat_allgather.hpp"
#include "algorithms/pat_reduce_scatter.hpp"
#include "sim/nccl_formula.hpp"
#include "validation/symbolic_replay.hpp"

// One namespace per test file: CI builds the tests as unity sources (.ci/run), where each file's
// helpers would otherwise meet the other files'.
namespace algo_pat_test {

using namespace collsim;
using sched::Collective;

TEST_CASE("pat all-gather: log2 N steps, each rank sends N-1 parts", "[algo][pat]") {
  // N = 4, S = 4 KiB: step 1 (d = 1) one part to r-1, step 2 (d = 2) two parts to r-2.
  const auto s = algo::build_pat_allgather(algo::Request{Collective::AllGather, 4, 4096});
  CHECK(s.steps == 2);
  CHECK(s.ops.size() == 4 + 8);
  CHECK(sched::bytes_sent_per_rank(s) == std::vector<Bytes>{3072, 3072, 3072, 3072});
  // Rank 1 sends its part 1 to rank 0 in step 1, then parts 1 and 2 to rank 3 in step 2.
  CHECK(s.ops[1].src == 1);
  CHECK(s.ops[1].dst == 0);
  CHECK(s.ops[1].src_chunk == 1);
  CHECK_FALSE(validation::verify_symbolic(s));
  // N = 5: distances 1, 2, 4 with 1, 2 and 1 parts (min(d, N - d)): 3 steps, 4 parts each.
  const auto five = algo::build_pat_allgather(algo::Request{Collective::AllGather, 5, 5000});
  CHECK(five.steps == 3);
  CHECK(sched::bytes_sent_per_rank(five) == std::vector<Bytes>(5, 4000));
  CHECK_FALSE(validation::verify_symbolic(five));
  CHECK(algo::build_pat_allgather(algo::Request{Collective::AllGather, 1, 64}).ops.empty());
}

TEST_CASE("pat reduce-scatter: the all-gather's steps backwards, partial sums to their owners", "[algo][pat]") {
  // N = 4: step 1 (d = 2) rank s adds parts s+2 and s+3 into rank s+2's; step 2 (d = 1) part s+1.
  const auto s = algo::build_pat_reduce_scatter(algo::Request{Collective::ReduceScatter, 4, 4096});
  CHECK(s.steps == 2);
  REQUIRE(s.ops.size() == 12);
  CHECK(s.ops[0].src == 0);
  CHECK(s.ops[0].dst == 2);
  CHECK(s.ops[0].src_chunk == 2);
  CHECK(s.ops[0].combine == sched::Combine::Reduce);
  CHECK(sched::bytes_sent_per_rank(s) == std::vector<Bytes>{3072, 3072, 3072, 3072});
  CHECK_FALSE(validation::verify_symbolic(s));
  for (sched::Rank n : {3u, 6u, 7u, 9u, 13u})
    CHECK_FALSE(validation::verify_symbolic(algo::build_pat_reduce_scatter(algo::Request{Collective::ReduceScatter, n, 1000003})));
}

TEST_CASE("NCCL's PAT formula, by hand", "[nccl][pat]") {
  // 8 nodes of one GPU behind a 25 GB/s uplink, all-gather of 1 MiB: busBw 0.75 x 25 = 18.75 GB/s,
  // taken as the algbw; latency 8 + log2(8) x 14 / 3.5 + 8 x 2.8 = 42.4 us.
  sim::NcclFormulaInput in;
  in.collective = Collective::AllGather;
  in.family = topo::AlgoFamily::Pat;
  in.protocol = topo::Protocol::Simple;
  in.ranks = 8;
  in.nodes = 8;
  in.channels = 1;
  in.size = Bytes{1} << 20;
  in.bus_bandwidth = Bandwidth{25'000'000'000ull * 8};
  const topo::ModelParams none;
  const auto t = sim::nccl_formula_time(in, none);
  REQUIRE(t);
  CHECK(static_cast<double>(t->count()) * 1e-6 == Approx(42.4 + 1048576.0 / (1000 * 18.75)).margin(1e-6));  // ps rounding
  // ncclPatEnable: one GPU per node only; Simple only; no all-reduce.
  in.ranks = 16;
  CHECK_FALSE(sim::nccl_formula_time(in, none));
  in.ranks = 8;
  in.protocol = topo::Protocol::LL;
  CHECK_FALSE(sim::nccl_formula_time(in, none));
  in.protocol = topo::Protocol::Simple;
  in.collective = Collective::AllReduce;
  CHECK_FALSE(sim::nccl_formula_time(in, none));
}
}  // namespace algo_pat_test
