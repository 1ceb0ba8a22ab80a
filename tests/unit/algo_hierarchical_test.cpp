// Hierarchical (2D) all-reduce and the host grid it reads from a request: step count and bytes
// sent per rank against the formula 2(L-1) + 2(K-1) steps, 2(L-1)/L·S + 2(K-1)/(K·L)·S bytes
// (computed here from the formula, never copied from a run), who talks to whom in each phase, a
// symbolic proof for many grids and sizes, and the errors for requests without a valid grid.
#include <catch2/catch.hpp>

#include <algorithm>
#include <utility>

#include "algorithms/hierarchical_allreduce.hpp"
#include "algorithms/host_grid.hpp"
#include "algorithms/ring_allreduce.hpp"
#include "validation/symbolic_replay.hpp"

// One namespace per test file: CI builds the tests as unity sources (.ci/run), where each file's
// helpers would otherwise meet the other files'.
namespace algo_hierarchical_test {

using namespace collsim;
using sched::Collective;
using sched::Rank;

namespace {

/// An all-reduce request of K hosts × L ranks, S bytes.
algo::Request grid_request(Rank local, Rank hosts, Bytes size) {
  algo::Request r{Collective::AllReduce, local * hosts, size};
  r.hosts = algo::equal_hosts(local * hosts, hosts);
  return r;
}

/// (L, K) pairs: ranks per host and hosts, including L = 1 and K = 1.
const std::vector<std::pair<Rank, Rank>> kGrids{{1, 1}, {1, 2}, {1, 5}, {2, 1}, {5, 1}, {2, 2}, {4, 2},
                                                {2, 4}, {8, 2}, {3, 3}, {4, 4}, {8, 4}, {3, 5}, {6, 7}};

}  // namespace

TEST_CASE("hierarchical: 2(L-1) + 2(K-1) steps and 2(L-1)/L·S + 2(K-1)/(K·L)·S bytes per rank",
          "[hierarchical][allreduce]") {
  // Intra-host ring reduce-scatter and all-gather over L ranks: (L-1) steps each, (L-1)/L·S bytes
  // each; inter-host ring all-reduce over K hosts on a 1/L share: 2(K-1) steps, 2(K-1)/K·S/L bytes
  // (Patarasuk & Yuan 2009 for each ring; Horovod / Mikami et al. 2018 for the composition).
  for (const auto& [local, hosts] : kGrids) {
    const Rank n = local * hosts;
    for (Bytes size : {Bytes{n} * 1000, Bytes{n} << 20}) {
      INFO("L = " << local << ", K = " << hosts << ", S = " << size);
      const auto s = algo::build_hierarchical_allreduce(grid_request(local, hosts, size));
      CHECK(s.steps == 2 * (local - 1) + 2 * (hosts - 1));
      const Bytes intra = 2 * (local - 1) * size / local;
      const Bytes inter = 2 * (hosts - 1) * size / (Bytes{hosts} * local);
      std::vector<Bytes> sent_intra(n, 0), sent_inter(n, 0), received(n, 0);
      for (sched::OpId i = 0; i < s.ops.size(); ++i) {
        const auto& op = s.ops[i];
        (op.src / local == op.dst / local ? sent_intra : sent_inter)[op.src] += s.op_bytes(i);
        received[op.dst] += s.op_bytes(i);
      }
      for (Rank r = 0; r < n; ++r) {
        CHECK(sent_intra[r] == intra);
        CHECK(sent_inter[r] == inter);
        CHECK(received[r] == intra + inter);
      }
      CHECK(validation::verify_symbolic(s) == std::nullopt);
    }
  }
}

TEST_CASE("hierarchical: rings inside hosts, then rings across hosts per local rank, then inside hosts",
          "[hierarchical][allreduce]") {
  for (const auto& [local, hosts] : kGrids) {
    INFO("L = " << local << ", K = " << hosts);
    const Rank n = local * hosts;
    const auto s = algo::build_hierarchical_allreduce(grid_request(local, hosts, Bytes{n} * 8));
    const std::uint32_t intra_end = local - 1, inter_end = local - 1 + 2 * (hosts - 1);
    for (const auto& op : s.ops) {
      const Rank h = op.src / local, l = op.src % local;
      if (op.step <= intra_end || op.step > inter_end) {
        // Inside the host, to the next local rank; reduce first, then copy.
        CHECK(op.dst == h * local + (l + 1) % local);
        CHECK((op.combine == sched::Combine::Reduce) == (op.step <= intra_end));
      } else {
        // Across hosts, to the same local rank of the next host; only part l's chunks.
        CHECK(op.dst == ((h + 1) % hosts) * local + l);
        CHECK(op.src_chunk / hosts == l);
        CHECK((op.combine == sched::Combine::Reduce) == (op.step <= intra_end + hosts - 1));
      }
    }
    // Phases are named for every non-empty range.
    std::vector<std::string> names;
    for (const auto& p : s.phases) names.push_back(p.name);
    std::vector<std::string> expected;
    if (local > 1) expected.push_back("intra-host reduce-scatter");
    if (hosts > 1) {
      expected.push_back("inter-host reduce-scatter");
      expected.push_back("inter-host all-gather");
    }
    if (local > 1) expected.push_back("intra-host all-gather");
    CHECK(names == expected);
  }
}

TEST_CASE("hierarchical with one rank per host is the ring all-reduce", "[hierarchical][allreduce]") {
  for (Rank hosts : {2u, 3u, 7u}) {
    const auto h = algo::build_hierarchical_allreduce(grid_request(1, hosts, 1000));
    const auto r = algo::build_ring_allreduce(algo::Request{Collective::AllReduce, hosts, 1000});
    REQUIRE(h.ops.size() == r.ops.size());
    for (std::size_t i = 0; i < h.ops.size(); ++i) {
      CHECK(h.ops[i].src == r.ops[i].src);
      CHECK(h.ops[i].dst == r.ops[i].dst);
      CHECK(h.ops[i].src_chunk == r.ops[i].src_chunk);
      CHECK(h.ops[i].combine == r.ops[i].combine);
      CHECK(h.ops[i].step == r.ops[i].step);
    }
  }
}

TEST_CASE("hierarchical computes the all-reduce for many grids and sizes", "[hierarchical][allreduce]") {
  // Every grid up to 6 × 6 (the conformance test adds every grid of N <= 17, 24, 31, 32, 33, 64).
  for (Rank local = 1; local <= 6; ++local)
    for (Rank hosts = 1; hosts <= 6; ++hosts) {
      const Bytes n = Bytes{local} * hosts;
      for (Bytes size : {Bytes{0}, Bytes{1}, n > 1 ? n - 1 : 1, 3 * n + 1, 7 * n + n / 2, Bytes{1000003}, Bytes{1} << 30}) {
        INFO("L = " << local << ", K = " << hosts << ", S = " << size);
        const auto s = algo::build_hierarchical_allreduce(grid_request(local, hosts, size));
        CHECK(s.algorithm == "hierarchical");
        CHECK(validation::verify_symbolic(s) == std::nullopt);
      }
    }
}

TEST_CASE("host_grid reads equal consecutive hosts", "[hierarchical][host-grid]") {
  const auto grid = [](std::vector<std::uint32_t> hosts) {
    algo::Request r{Collective::AllReduce, static_cast<Rank>(hosts.size()), 100};
    r.hosts = std::move(hosts);
    return algo::host_grid(r, "hierarchical");
  };
  CHECK(grid({0, 0, 1, 1, 2, 2}).hosts == 3);
  CHECK(grid({0, 0, 1, 1, 2, 2}).ranks_per_host == 2);
  CHECK(grid({0, 1, 2}).ranks_per_host == 1);
  CHECK(grid({0, 0, 0}).hosts == 1);
  CHECK(grid({0}).hosts == 1);
  CHECK(algo::equal_hosts(6, 3) == std::vector<std::uint32_t>{0, 0, 1, 1, 2, 2});
  CHECK_THROWS_AS(algo::equal_hosts(6, 4), algo::AlgorithmError);
  CHECK_THROWS_AS(algo::equal_hosts(6, 0), algo::AlgorithmError);
}

TEST_CASE("hierarchical without a valid host grid says which rule the request breaks", "[hierarchical][errors]") {
  const auto fails_with = [](std::vector<std::uint32_t> hosts, Rank n, const std::string& what) {
    algo::Request r{Collective::AllReduce, n, 100};
    r.hosts = std::move(hosts);
    INFO(what);
    CHECK_THROWS_WITH(algo::build_hierarchical_allreduce(r),
                      Catch::StartsWith("hierarchical") && Catch::Contains(what));
    CHECK_THROWS_AS(algo::build_hierarchical_allreduce(r), algo::AlgorithmError);
  };
  fails_with({}, 8, "no hosts are known");
  fails_with({}, 1, "no hosts are known");
  fails_with({0, 0, 1}, 4, "hosts are given for 3 ranks");
  fails_with({0, 1, 0, 1}, 4, "ranks of host 0 are not consecutive");
  fails_with({0, 0, 0, 1}, 4, "host 1 holds 1 rank and host 0 holds 3");
  fails_with({0, 0, 1, 1, 1, 1}, 6, "host 1 holds 4 ranks and host 0 holds 2");
  fails_with({1, 1, 0, 0}, 4, "rank 0 is on host 1, expected host 0");
  fails_with({0, 0, 2, 2}, 4, "rank 2 is on host 2, expected host 1");
}

TEST_CASE("algorithms other than hierarchical ignore the hosts", "[hierarchical]") {
  algo::Request plain{Collective::AllReduce, 6, 600};
  algo::Request grouped = plain;
  grouped.hosts = {0, 0, 0, 1, 1, 1};
  const auto a = algo::build_ring_allreduce(plain), b = algo::build_ring_allreduce(grouped);
  REQUIRE(a.ops.size() == b.ops.size());
  for (std::size_t i = 0; i < a.ops.size(); ++i) CHECK((a.ops[i].dst == b.ops[i].dst && a.ops[i].step == b.ops[i].step));
}
}  // namespace algo_hierarchical_test
