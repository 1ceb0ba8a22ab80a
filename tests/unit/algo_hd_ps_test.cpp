// Halving-doubling (all-reduce, reduce-scatter, all-gather), recursive-doubling (all-reduce,
// all-gather) and parameter-server all-reduce: step counts and bytes sent per rank against the
// published formulas (computed here from the formula, never copied from a run), the exchange
// pattern, the fold for N not a power of two, ps_shards validation, and a symbolic proof for the
// options the conformance test does not try (it builds every algorithm with default options).
#include <catch2/catch.hpp>

#include <algorithm>
#include <bit>
#include <stdexcept>

#include "algorithms/halving_doubling_allgather.hpp"
#include "algorithms/halving_doubling_allreduce.hpp"
#include "algorithms/halving_doubling_reduce_scatter.hpp"
#include "algorithms/ps_allreduce.hpp"
#include "algorithms/recursive_doubling_allgather.hpp"
#include "algorithms/recursive_doubling_allreduce.hpp"
#include "validation/symbolic_replay.hpp"

// One namespace per test file: CI builds the tests as unity sources (.ci/run), where each file's
// helpers would otherwise meet the other files'.
namespace algo_hd_ps_test {

using namespace collsim;
using sched::Collective;
using sched::Rank;

namespace {

constexpr auto sent = sched::bytes_sent_per_rank;
constexpr auto received = sched::bytes_received_per_rank;
constexpr auto max_sent = sched::max_bytes_sent;

algo::Request request(Collective c, Rank n, Bytes size) {
  // The formulas below (ceil(S/N), floor(S/N), S mod N) count bytes, so the parts are cut in bytes
  // (element size 1); cuts in whole elements are tested in schedule_test.cpp and by the
  // conformance and oracle suites.
  algo::Request r{c, n, size};
  r.element_size = 1;
  return r;
}

std::uint32_t log2_floor(Rank n) { return static_cast<std::uint32_t>(std::bit_width(n) - 1); }

const std::vector<Rank> kPowersOfTwo{2, 4, 8, 16, 32, 64};
const std::vector<Rank> kOthers{3, 5, 6, 7, 12, 24, 33};

}  // namespace

TEST_CASE("halving-doubling all-reduce: 2 log2 N steps and 2(N-1)/N·S per rank for N a power of two",
          "[halving-doubling][allreduce]") {
  // Thakur, Rabenseifner & Gropp 2005: Rabenseifner's algorithm costs
  // 2 lg p·α + 2 (p-1)/p·nβ, i.e. 2 lg p steps and 2(p-1)/p·n bytes sent by each process.
  for (Rank n : kPowersOfTwo) {
    for (Bytes size : {Bytes{n} * 1000, Bytes{1} << 20}) {
      INFO("N = " << n << ", S = " << size);
      const auto s = algo::build_halving_doubling_allreduce(request(Collective::AllReduce, n, size));
      CHECK(s.steps == 2 * log2_floor(n));
      for (Bytes b : sent(s)) CHECK(b == 2 * (n - 1) * size / n);
      CHECK(validation::verify_symbolic(s) == std::nullopt);
    }
  }
  CHECK(algo::build_halving_doubling_allreduce(request(Collective::AllReduce, 1, 100)).ops.empty());
}

TEST_CASE("halving-doubling all-reduce: partners at distance N/2, N/4, .., 1, then 1, 2, .., N/2",
          "[halving-doubling][allreduce]") {
  // Recursive halving starts at distance p/2 and halves the data each step; recursive doubling
  // starts at distance 1 (Thakur et al. 2005). In halving step m a rank sends
  // N/2^m chunks (half of its range); in doubling step m it sends 2^(m-1).
  for (Rank n : kPowersOfTwo) {
    const std::uint32_t L = log2_floor(n);
    const auto s = algo::build_halving_doubling_allreduce(request(Collective::AllReduce, n, Bytes{n} * 64));
    std::vector<std::vector<std::uint32_t>> ops_per_step(s.steps + 1, std::vector<std::uint32_t>(n, 0));
    for (const auto& op : s.ops) {
      ++ops_per_step[op.step][op.src];
      if (op.step <= L) {
        CHECK(op.dst == (op.src ^ (n >> op.step)));
        CHECK(op.combine == sched::Combine::Reduce);
      } else {
        CHECK(op.dst == (op.src ^ (Rank{1} << (op.step - L - 1))));
        CHECK(op.combine == sched::Combine::Copy);
      }
    }
    for (std::uint32_t m = 1; m <= L; ++m)
      for (Rank r = 0; r < n; ++r) {
        CHECK(ops_per_step[m][r] == (n >> m));
        CHECK(ops_per_step[L + m][r] == (std::uint32_t{1} << (m - 1)));
      }
  }
}

TEST_CASE("halving-doubling all-reduce: the fold for N not a power of two", "[halving-doubling][allreduce][fold]") {
  // Thakur et al. 2005: with p' = 2^floor(lg N), the first 2r ranks (r = N - p') fold
  // in one step and get the result back in one more: 2 lg p' + 2 steps; the busiest rank (an odd
  // rank below 2r) sends S + 2(p'-1)/p'·S, its even partner S.
  for (Rank n : kOthers) {
    const Rank p = std::bit_floor(n);
    const Bytes size = Bytes{p} * 999;  // p' divides S, so the core blocks are equal
    INFO("N = " << n);
    const auto s = algo::build_halving_doubling_allreduce(request(Collective::AllReduce, n, size));
    CHECK(s.steps == 2 * log2_floor(p) + 2);
    const auto v = sent(s);
    CHECK(max_sent(s) == size + 2 * (p - 1) * size / p);
    CHECK(v[0] == size);
    CHECK(v[n - 1] == 2 * (p - 1) * size / p);  // rank N-1 is always a core rank that does not fold
    CHECK(validation::verify_symbolic(s) == std::nullopt);
  }
}

TEST_CASE("halving-doubling all-reduce: uneven chunks stay within one byte per chunk of the formula",
          "[halving-doubling][allreduce]") {
  // A core rank sends 2(p'-1) chunks of split_even(S, p'): between floor and ceil of S/p' each.
  for (Rank n : {4u, 7u, 8u, 13u}) {
    const Rank p = std::bit_floor(n);
    for (Bytes size : {Bytes{1}, Bytes{p} - 1, Bytes{5} * p + 3, Bytes{1000003}}) {
      INFO("N = " << n << ", S = " << size);
      const auto s = algo::build_halving_doubling_allreduce(request(Collective::AllReduce, n, size));
      const auto v = sent(s);
      for (Rank j = 0; j < p; ++j) {
        const Rank r = j < n - p ? 2 * j + 1 : j + (n - p);
        const Bytes core = v[r] - (j < n - p ? size : 0);  // an odd fold rank also sends S back
        CHECK(core >= 2 * (p - 1) * (size / p));
        CHECK(core <= 2 * (p - 1) * ((size + p - 1) / p));
      }
      CHECK(validation::verify_symbolic(s) == std::nullopt);
    }
  }
}

TEST_CASE("halving-doubling reduce-scatter: log2 N steps and (N-1)/N·S per rank for N a power of two",
          "[halving-doubling][reducescatter]") {
  // Thakur et al. 2005 (recursive halving, commutative operations): lg p·α +
  // (p-1)/p·nβ; rank p keeps the half holding its own block, so it sends S minus its part.
  for (Rank n : kPowersOfTwo) {
    for (Bytes size : {Bytes{n} * 1000, Bytes{n} * 7 + 3, Bytes{n} - 1}) {
      INFO("N = " << n << ", S = " << size);
      const auto s = algo::build_halving_doubling_reduce_scatter(request(Collective::ReduceScatter, n, size));
      CHECK(s.steps == log2_floor(n));
      const auto parts = sched::split_even(size, n);
      const auto v = sent(s);
      for (Rank r = 0; r < n; ++r) CHECK(v[r] == size - parts[r].size);
      if (size % n == 0) CHECK(max_sent(s) == (n - 1) * size / n);
      for (const auto& op : s.ops) CHECK(op.dst == (op.src ^ (n >> op.step)));
      CHECK(validation::verify_symbolic(s) == std::nullopt);
    }
  }
}

TEST_CASE("halving-doubling reduce-scatter: the fold keeps every rank's own part", "[halving-doubling][reducescatter][fold]") {
  // Fold (step 1, rank 2i sends S to 2i+1), lg p' halving steps over p' blocks, and one step in
  // which rank 2i+1 returns part 2i: lg p' + 2 steps; the busiest rank is a folding one, with S.
  for (Rank n : kOthers) {
    for (Bytes size : {Bytes{n} * 1000, Bytes{n} * 3 + 1}) {
      INFO("N = " << n << ", S = " << size);
      const auto s = algo::build_halving_doubling_reduce_scatter(request(Collective::ReduceScatter, n, size));
      CHECK(s.steps == log2_floor(n) + 2);
      CHECK(max_sent(s) == size);
      // The unfold returns exactly one part to each folded rank.
      const Rank r = n - std::bit_floor(n);
      const auto parts = sched::split_even(size, n);
      const auto in = received(s);
      for (Rank i = 0; i < r; ++i) CHECK(in[2 * i] == parts[2 * i].size);
      CHECK(validation::verify_symbolic(s) == std::nullopt);
    }
  }
}

TEST_CASE("recursive-doubling all-gather: log2 N steps, 2^(k-1) parts in step k", "[recursive-doubling][allgather]") {
  // Thakur et al. 2005: lg p·α + (p-1)/p·nβ, and in step k each process
  // exchanges 2^(k-1)·n/p bytes.
  for (Rank n : kPowersOfTwo) {
    const Bytes part = 1000;
    const Bytes size = Bytes{n} * part;
    INFO("N = " << n);
    const auto s = algo::build_recursive_doubling_allgather(request(Collective::AllGather, n, size));
    CHECK(s.steps == log2_floor(n));
    std::vector<std::vector<Bytes>> per_step(s.steps + 1, std::vector<Bytes>(n, 0));
    for (sched::OpId i = 0; i < s.ops.size(); ++i) {
      per_step[s.ops[i].step][s.ops[i].src] += s.op_bytes(i);
      CHECK(s.ops[i].dst == (s.ops[i].src ^ (Rank{1} << (s.ops[i].step - 1))));
    }
    for (std::uint32_t k = 1; k <= s.steps; ++k)
      for (Rank r = 0; r < n; ++r) CHECK(per_step[k][r] == (Bytes{1} << (k - 1)) * part);
    for (Bytes b : sent(s)) CHECK(b == (n - 1) * size / n);
    CHECK(validation::verify_symbolic(s) == std::nullopt);
  }
}

TEST_CASE("recursive-doubling all-gather: the fold for N not a power of two", "[recursive-doubling][allgather][fold]") {
  // Fold: rank 2i copies its part b = S/N to 2i+1; core rank j < r starts with two parts; core
  // rank j sends, in step k, the parts of its aligned group of 2^(k-1) blocks; rank 2i+1 then
  // sends the N-1 parts that rank 2i lacks. Core rank 0 (rank 1) holds the most doubled blocks
  // in every group, min(2^(k-1), r), so it is the busiest:
  // b·(p'-1 + sum_{k=1..lg p'} min(2^(k-1), r)) + (N-1)·b; lg p' + 2 steps.
  for (Rank n : kOthers) {
    const Rank p = std::bit_floor(n);
    const Rank r = n - p;
    const Bytes part = 77;
    INFO("N = " << n);
    const auto s = algo::build_recursive_doubling_allgather(request(Collective::AllGather, n, Bytes{n} * part));
    CHECK(s.steps == log2_floor(n) + 2);
    Bytes doubled = 0;
    for (std::uint32_t k = 1; k <= log2_floor(p); ++k) doubled += std::min<Bytes>(Bytes{1} << (k - 1), r);
    CHECK(max_sent(s) == part * (p - 1 + doubled) + (n - 1) * part);
    CHECK(sent(s)[0] == part);
    CHECK(validation::verify_symbolic(s) == std::nullopt);
  }
}

TEST_CASE("halving-doubling all-gather is recursive doubling under its own name", "[halving-doubling][allgather]") {
  for (Rank n : {1u, 2u, 5u, 8u, 12u}) {
    const auto req = request(Collective::AllGather, n, 12345);
    const auto hd = algo::build_halving_doubling_allgather(req);
    const auto rd = algo::build_recursive_doubling_allgather(req);
    CHECK(hd.algorithm == "halving-doubling");
    REQUIRE(hd.ops.size() == rd.ops.size());
    for (std::size_t i = 0; i < hd.ops.size(); ++i) {
      CHECK(hd.ops[i].src == rd.ops[i].src);
      CHECK(hd.ops[i].dst == rd.ops[i].dst);
      CHECK(hd.ops[i].src_chunk == rd.ops[i].src_chunk);
      CHECK(hd.ops[i].step == rd.ops[i].step);
    }
  }
}

TEST_CASE("recursive-doubling all-reduce: log2 N steps, S per rank per step", "[recursive-doubling][allreduce]") {
  // Thakur et al. 2005: recursive doubling costs lg p·α + n lg p·β: each rank sends its
  // whole buffer in each of lg p steps. Local reduces (src == dst) share their transfer's step.
  for (Rank n : kPowersOfTwo) {
    for (Bytes size : {Bytes{0}, Bytes{1}, Bytes{4096}, Bytes{1000003}}) {
      INFO("N = " << n << ", S = " << size);
      const auto s = algo::build_recursive_doubling_allreduce(request(Collective::AllReduce, n, size));
      CHECK(s.steps == log2_floor(n));
      for (Bytes b : sent(s)) CHECK(b == log2_floor(n) * size);
      for (const auto& op : s.ops)
        if (op.src != op.dst) CHECK(op.dst == (op.src ^ (Rank{1} << (op.step - 1))));
      CHECK(validation::verify_symbolic(s) == std::nullopt);
    }
  }
  // The fold: lg p' + 2 steps, and rank 2i+1 also sends S back: (lg p' + 1)·S.
  for (Rank n : kOthers) {
    const Bytes size = 1000;
    INFO("N = " << n);
    const auto s = algo::build_recursive_doubling_allreduce(request(Collective::AllReduce, n, size));
    CHECK(s.steps == log2_floor(n) + 2);
    CHECK(max_sent(s) == (log2_floor(n) + 1) * size);
    CHECK(sent(s)[0] == size);
    CHECK(validation::verify_symbolic(s) == std::nullopt);
  }
}

TEST_CASE("recursive-doubling all-reduce: both partners send what they held before the step",
          "[recursive-doubling][allreduce]") {
  // A transfer of step m must not wait for the partner's transfer of the same step (the exchange is
  // simultaneous, through the scratch chunk).
  const auto s = algo::build_recursive_doubling_allreduce(request(Collective::AllReduce, 8, 100));
  for (sched::OpId i = 0; i < s.ops.size(); ++i) {
    if (s.ops[i].src == s.ops[i].dst) continue;
    for (sched::OpId d : s.deps_of(i)) {
      const auto& dep = s.ops[d];
      CHECK_FALSE((dep.step == s.ops[i].step && dep.src != dep.dst));
    }
  }
}

TEST_CASE("ps with one rank server: a worker sends and receives S, the server receives (N-1)·S", "[ps]") {
  // Li et al. 2014 (parameter server): workers push S to the server and pull S back; the server
  // takes in N-1 buffers and sends N-1 results. Two network steps; the local reduces share step 1.
  for (Rank n : {2u, 3u, 5u, 8u, 17u}) {
    for (Bytes size : {Bytes{0}, Bytes{1}, Bytes{1000}, Bytes{1} << 30}) {
      INFO("N = " << n << ", S = " << size);
      const auto s = algo::build_ps_allreduce(request(Collective::AllReduce, n, size));
      CHECK(s.steps == 2);
      CHECK(s.header.helpers == 0);
      const auto out = sent(s);
      const auto in = received(s);
      CHECK(in[0] == (n - 1) * size);
      CHECK(out[0] == (n - 1) * size);
      for (Rank w = 1; w < n; ++w) {
        CHECK(out[w] == size);
        CHECK(in[w] == size);
      }
      CHECK(validation::verify_symbolic(s) == std::nullopt);
    }
  }
  CHECK(algo::build_ps_allreduce(request(Collective::AllReduce, 1, 100)).ops.empty());
}

TEST_CASE("ps: the pushes into a server are concurrent", "[ps]") {
  // Each push lands in its own scratch chunk, so no transfer waits for another; only the local
  // reduces are chained, and they cost no network time.
  for (bool external : {false, true}) {
    auto req = request(Collective::AllReduce, 8, 4096);
    req.ps_shards = 2;
    req.ps_external_server = external;
    const auto s = algo::build_ps_allreduce(req);
    std::uint32_t pushes = 0;
    for (sched::OpId i = 0; i < s.ops.size(); ++i) {
      const auto& op = s.ops[i];
      if (op.step != 1 || op.src == op.dst) continue;
      ++pushes;
      CHECK(s.deps_of(i).empty());
      CHECK(s.chunks[op.dst_chunk].buffer == sched::Buffer::Scratch);
    }
    CHECK(pushes == (external ? 8u * 2 : 7u * 2));
  }
}

TEST_CASE("ps sharded over every rank sends 2(N-1)/N·S per rank, like the ring", "[ps]") {
  // K = N: rank k serves part k; it pushes N-1 parts of S/N and pulls back its part to N-1 ranks.
  for (Rank n : {2u, 4u, 6u, 16u}) {
    auto req = request(Collective::AllReduce, n, Bytes{n} * 4096);
    req.ps_shards = n;
    INFO("N = " << n);
    const auto s = algo::build_ps_allreduce(req);
    CHECK(s.steps == 2);
    for (Bytes b : sent(s)) CHECK(b == 2 * (n - 1) * req.size / n);
    for (Bytes b : received(s)) CHECK(b == 2 * (n - 1) * req.size / n);
    CHECK(validation::verify_symbolic(s) == std::nullopt);
  }
}

TEST_CASE("ps with external servers: K helper ranks, every participant sends and receives S", "[ps]") {
  for (Rank n : {1u, 2u, 3u, 8u}) {
    for (std::uint32_t k : {1u, 2u, n}) {
      if (k > n) continue;
      auto req = request(Collective::AllReduce, n, 10007);
      req.ps_shards = k;
      req.ps_external_server = true;
      INFO("N = " << n << ", K = " << k);
      const auto s = algo::build_ps_allreduce(req);
      CHECK(s.header.helpers == k);
      CHECK(s.steps == 2);
      const auto out = sent(s);
      const auto in = received(s);
      for (Rank w = 0; w < n; ++w) {
        CHECK(out[w] == req.size);
        CHECK(in[w] == req.size);
      }
      const auto parts = sched::split_even(req.size, k);
      for (std::uint32_t h = 0; h < k; ++h) {
        CHECK(in[n + h] == n * parts[h].size);
        CHECK(out[n + h] == n * parts[h].size);
      }
      CHECK(validation::verify_symbolic(s) == std::nullopt);
    }
  }
}

TEST_CASE("ps computes the all-reduce for every N, shard count, server kind and size", "[ps][verify]") {
  for (Rank n = 1; n <= 17; ++n) {
    for (std::uint32_t k : {1u, 2u, 3u, n}) {
      if (k > n) continue;
      for (bool external : {false, true}) {
        for (Bytes size : {Bytes{0}, Bytes{1}, Bytes{n - 1}, Bytes{3} * n + 1, Bytes{1000003}}) {
          auto req = request(Collective::AllReduce, n, size);
          req.ps_shards = k;
          req.ps_external_server = external;
          INFO("N = " << n << ", K = " << k << ", external = " << external << ", S = " << size);
          const auto s = algo::build_ps_allreduce(req);
          CHECK(s.algorithm == "ps");
          CHECK(s.chunks.size() <= k + 2 * Bytes{n});  // K parts and at most two sizes of receive chunk
          CHECK(validation::verify_symbolic(s) == std::nullopt);
        }
      }
    }
  }
}

TEST_CASE("ps rejects a shard count outside 1..N", "[ps]") {
  for (std::uint32_t k : {0u, 5u, 100u}) {
    auto req = request(Collective::AllReduce, 4, 1000);
    req.ps_shards = k;
    CHECK_THROWS_AS(algo::build_ps_allreduce(req), std::invalid_argument);
    CHECK_THROWS_WITH(algo::build_ps_allreduce(req), Catch::Contains("ps_shards") && Catch::Contains("N = 4"));
  }
}

TEST_CASE("the halving and doubling algorithms compute their collectives for awkward N and S",
          "[halving-doubling][recursive-doubling][verify]") {
  // The conformance test covers N up to 17 and a few larger; this adds every N up to 40 with small
  // sizes, where chunks are empty or one byte.
  for (Rank n = 1; n <= 40; ++n) {
    for (Bytes size : {Bytes{0}, Bytes{1}, Bytes{n / 2}, Bytes{n + 1}}) {
      INFO("N = " << n << ", S = " << size);
      CHECK(validation::verify_symbolic(algo::build_halving_doubling_allreduce(request(Collective::AllReduce, n, size))) ==
            std::nullopt);
      CHECK(validation::verify_symbolic(
                algo::build_halving_doubling_reduce_scatter(request(Collective::ReduceScatter, n, size))) == std::nullopt);
      CHECK(validation::verify_symbolic(algo::build_recursive_doubling_allgather(request(Collective::AllGather, n, size))) ==
            std::nullopt);
      CHECK(validation::verify_symbolic(algo::build_recursive_doubling_allreduce(request(Collective::AllReduce, n, size))) ==
            std::nullopt);
    }
  }
}
}  // namespace algo_hd_ps_test
