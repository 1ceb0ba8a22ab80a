// The ring and direct algorithms for every collective they support: step counts and the bytes the
// busiest rank sends against the published formulas, for N powers of two and not and S divisible
// by N and not, plus the structure that makes each what it is (ring: neighbour-only sends;
// pipelined chains: chunk count and who sends; direct: one step, the all-to-all local copy).
// Expected values are computed here from the formulas in each builder's doc comment, whose
// sources are cited there and below.
#include <algorithm>
#include <vector>

#include <catch2/catch.hpp>

#include "algorithms/chunk_tables.hpp"
#include "algorithms/direct_allgather.hpp"
#include "algorithms/direct_allreduce.hpp"
#include "algorithms/direct_alltoall.hpp"
#include "algorithms/direct_reduce_scatter.hpp"
#include "algorithms/registry.hpp"
#include "algorithms/ring_allgather.hpp"
#include "algorithms/ring_alltoall.hpp"
#include "algorithms/ring_broadcast.hpp"
#include "algorithms/ring_reduce.hpp"
#include "algorithms/ring_reduce_scatter.hpp"
#include "validation/symbolic_replay.hpp"

// One namespace per test file: CI builds the tests as unity sources (.ci/run), where each file's
// helpers would otherwise meet the other files'.
namespace algo_ring_direct_test {

using namespace collsim;
using sched::Collective;

namespace {

constexpr auto sent_per_rank = sched::bytes_sent_per_rank;
constexpr auto max_sent = sched::max_bytes_sent;

const std::vector<sched::Rank> kRanks{1, 2, 3, 4, 5, 7, 8, 16, 33};

/// Sizes for N ranks: empty, smaller than N, not divisible by N, divisible by N, a prime.
std::vector<Bytes> sizes_for(sched::Rank n) { return {0, 1, Bytes{n} + 1, 1000 * Bytes{n}, 1000003}; }

Bytes ceil_div(Bytes a, Bytes b) { return (a + b - 1) / b; }

algo::Request request(Collective c, sched::Rank n, Bytes size) {
  // The formulas below (ceil(S/N), floor(S/N), S mod N) count bytes, so the parts are cut in bytes
  // (element size 1); cuts in whole elements are tested in schedule_test.cpp and by the
  // conformance and oracle suites.
  algo::Request r{c, n, size};
  r.element_size = 1;
  return r;
}

}  // namespace

TEST_CASE("ring reduce-scatter and all-gather: N-1 steps, ceil((N-1)/N·S) bytes", "[algo][ring]") {
  // Patarasuk & Yuan 2009 (the two halves of ring all-reduce): N-1 steps; every part but one
  // passes each rank, so the busiest rank sends S - floor(S/N), which is (N-1)/N·S when N | S.
  for (sched::Rank n : kRanks)
    for (Bytes size : sizes_for(n)) {
      INFO("N = " << n << ", S = " << size);
      for (const auto& s : {algo::build_ring_reduce_scatter(request(Collective::ReduceScatter, n, size)),
                            algo::build_ring_allgather(request(Collective::AllGather, n, size))}) {
        CHECK(s.steps == n - 1);
        CHECK(max_sent(s) == size - size / n);
        if (size % n == 0) CHECK(max_sent(s) == (n - 1) * size / n);
        for (const auto& op : s.ops) CHECK(op.dst == (op.src + 1) % n);
        CHECK(validation::verify_symbolic(s) == std::nullopt);
      }
    }
}

TEST_CASE("ring reduce-scatter: rank p never sends part p and receives its sum last", "[algo][ring]") {
  // The own part needs no op: the others' contributions are reduced into the rank's own copy.
  for (sched::Rank n : {2u, 3u, 6u}) {
    const auto s = algo::build_ring_reduce_scatter(request(Collective::ReduceScatter, n, 600));
    for (const auto& op : s.ops) {
      CHECK(op.src_chunk != op.src);
      CHECK(op.combine == sched::Combine::Reduce);
      if (op.dst_chunk == op.dst) CHECK(op.step == n - 1);
    }
  }
}

TEST_CASE("ring broadcast and reduce: a pipelined chain of (N-1) + (K-1) steps", "[algo][ring]") {
  // NCCL's ring broadcast/reduce (src/device/broadcast.h, reduce.h): the message moves in
  // chunk_size pieces, K = max(1, ceil(S / chunk_size)); every rank but the last in the chain
  // sends all of S.
  for (sched::Rank n : kRanks)
    for (Bytes chunk : {Bytes{1}, Bytes{7}, Bytes{4096}, Bytes{512} << 10})
      for (Bytes size : sizes_for(n)) {
        const Bytes k = std::max<Bytes>(1, ceil_div(size, chunk));
        if ((n - 1) * k > 20000) continue;  // keep the symbolic replays fast
        for (sched::Rank root : {sched::Rank{0}, n / 2, n - 1}) {
          INFO("N = " << n << ", S = " << size << ", chunk = " << chunk << ", root = " << root);
          for (Collective c : {Collective::Broadcast, Collective::Reduce}) {
            auto req = request(c, n, size);
            req.root = root;
            req.chunk_size = chunk;
            const auto s = c == Collective::Broadcast ? algo::build_ring_broadcast(req) : algo::build_ring_reduce(req);
            CHECK(s.chunks.size() == k);
            CHECK(s.steps == (n == 1 ? 0 : (n - 1) + (k - 1)));
            CHECK(s.ops.size() == (n - 1) * k);
            // Chain order: broadcast starts at the root, reduce ends there.
            const sched::Rank last = c == Collective::Broadcast ? (root + n - 1) % n : root;
            const auto sent = sent_per_rank(s);
            for (sched::Rank r = 0; r < n; ++r) CHECK(sent[r] == (r == last ? 0 : size));
            for (const auto& op : s.ops) CHECK(op.dst == (op.src + 1) % n);
            CHECK(validation::verify_symbolic(s) == std::nullopt);
          }
        }
      }
}

TEST_CASE("pipeline chunks: one unpipelined chunk up to chunk_size, then ceil(S/chunk_size)", "[algo][ring]") {
  CHECK(algo::pipeline_chunk_count(0, 100) == 1);
  CHECK(algo::pipeline_chunk_count(100, 100) == 1);
  CHECK(algo::pipeline_chunk_count(101, 100) == 2);
  CHECK(algo::pipeline_chunk_count(1000, 100) == 10);
  const auto chunks = algo::pipeline_chunks(0, 250, 100);
  REQUIRE(chunks.size() == 3);
  CHECK(chunks[2].offset == 200);
  CHECK(chunks[2].size == 50);
  CHECK_THROWS_AS(algo::pipeline_chunks(0, 10, 0), std::invalid_argument);
  CHECK_THROWS_AS(algo::pipeline_chunks(0, Bytes{1} << 40, 1), std::length_error);
}

TEST_CASE("ring all-to-all: N-1 steps, N(N-1)/2·floor(S/N) bytes, successor only", "[algo][ring]") {
  // Grama, Gupta, Karypis & Kumar, Introduction to Parallel Computing (2003), section 4.5, ring:
  // p-1 steps, step i sends p-i messages of m bytes, so each rank sends m·p(p-1)/2.
  for (sched::Rank n : kRanks)
    for (Bytes size : sizes_for(n)) {
      INFO("N = " << n << ", S = " << size);
      const auto s = algo::build_ring_alltoall(request(Collective::AllToAll, n, size));
      const Bytes block = size / n;
      CHECK(s.steps == std::max<sched::Rank>(1, n - 1));
      const auto sent = sent_per_rank(s);
      for (sched::Rank r = 0; r < n; ++r) CHECK(sent[r] == Bytes{n} * (n - 1) / 2 * block);
      CHECK(max_sent(s) >= (n - 1) * block);  // the all-to-all lower bound
      for (const auto& op : s.ops) CHECK((op.dst == (op.src + 1) % n || op.src == op.dst));
      CHECK(validation::verify_symbolic(s) == std::nullopt);
    }
}

TEST_CASE("direct reduce-scatter and all-gather: 1 step", "[algo][direct]") {
  // Reduce-scatter: rank r sends every part but its own (MPICH pairwise exchange, Thakur et al.
  // 2005): S - floor(S/N). All-gather: rank r sends its part to N-1 peers: (N-1)·ceil(S/N).
  // Both are (N-1)/N·S when N | S.
  for (sched::Rank n : kRanks)
    for (Bytes size : sizes_for(n)) {
      INFO("N = " << n << ", S = " << size);
      const auto rs = algo::build_direct_reduce_scatter(request(Collective::ReduceScatter, n, size));
      const auto ag = algo::build_direct_allgather(request(Collective::AllGather, n, size));
      CHECK(rs.steps == (n == 1 ? 0 : 1));
      CHECK(ag.steps == (n == 1 ? 0 : 1));
      CHECK(max_sent(rs) == size - size / n);
      CHECK(max_sent(ag) == (n - 1) * ceil_div(size, n));
      if (size % n == 0) {
        CHECK(max_sent(rs) == (n - 1) * size / n);
        CHECK(max_sent(ag) == (n - 1) * size / n);
      }
      // Every op goes straight to the part's owner (reduce-scatter) or from it (all-gather).
      // Reduce-scatter: transfers copy part q into a scratch slot of its owner q, which adds it locally.
      for (const auto& op : rs.ops) {
        if (op.src != op.dst) CHECK((op.dst == op.src_chunk && op.combine == sched::Combine::Copy));
        if (op.src == op.dst) CHECK((op.dst == op.dst_chunk && op.combine == sched::Combine::Reduce));
      }
      for (const auto& op : ag.ops) CHECK((op.src == op.src_chunk && op.combine == sched::Combine::Copy));
      CHECK(validation::verify_symbolic(rs) == std::nullopt);
      CHECK(validation::verify_symbolic(ag) == std::nullopt);
    }
}

TEST_CASE("direct reduce-scatter: the N-1 transfers into one part do not wait for each other", "[algo][direct]") {
  // Each peer's part lands in its own scratch slot, so the transfers into a rank depend on nothing;
  // only the local additions into the part are ordered.
  const sched::Rank n = 5;
  const auto s = algo::build_direct_reduce_scatter(request(Collective::ReduceScatter, n, 5000));
  std::size_t into_rank0 = 0;
  for (sched::OpId id = 0; id < s.ops.size(); ++id) {
    if (s.ops[id].dst != 0 || s.ops[id].src == 0) continue;
    ++into_rank0;
    CHECK(s.deps_of(id).empty());
  }
  CHECK(into_rank0 == n - 1);
}

TEST_CASE("direct all-to-all: 1 step, (N-1)·floor(S/N) bytes, and a local copy of the own block", "[algo][direct]") {
  // nccl-tests alltoall / MPICH medium-message all-to-all: each rank sends one block to each peer.
  for (sched::Rank n : kRanks)
    for (Bytes size : sizes_for(n)) {
      INFO("N = " << n << ", S = " << size);
      const auto s = algo::build_direct_alltoall(request(Collective::AllToAll, n, size));
      CHECK(s.steps == 1);
      const auto sent = sent_per_rank(s);
      for (sched::Rank r = 0; r < n; ++r) CHECK(sent[r] == (n - 1) * (size / n));
      // Each rank copies its own block r into its output block r (from rank r) by one local op.
      const auto is_local = [](const sched::Op& op) { return op.src == op.dst; };
      CHECK(std::count_if(s.ops.begin(), s.ops.end(), is_local) == n);
      for (const auto& op : s.ops)
        if (is_local(op)) {
          CHECK(op.src_chunk == algo::alltoall_data_chunk(op.src));
          CHECK(op.dst_chunk == algo::alltoall_output_chunk(n, op.src));
        }
      CHECK(validation::verify_symbolic(s) == std::nullopt);
    }
}

TEST_CASE("direct all-reduce: 2 steps, S + (N-2)·ceil(S/N) bytes", "[algo][direct]") {
  // Direct reduce-scatter then direct all-gather (TensorRT-LLM two-shot): (S - |part r|) +
  // (N-1)·|part r|, the largest for the largest part; 2(N-1)/N·S when N | S.
  for (sched::Rank n : kRanks)
    for (Bytes size : sizes_for(n)) {
      INFO("N = " << n << ", S = " << size);
      const auto s = algo::build_direct_allreduce(request(Collective::AllReduce, n, size));
      CHECK(s.steps == (n == 1 ? 0 : 2));
      if (n >= 2) CHECK(max_sent(s) == size + (n - 2) * ceil_div(size, n));
      if (size % n == 0) CHECK(max_sent(s) == 2 * (n - 1) * size / n);
      CHECK(validation::verify_symbolic(s) == std::nullopt);
    }
}

TEST_CASE("ring and direct are registered for their collectives", "[algo]") {
  const auto registry = algo::builtin_registry();
  for (Collective c : sched::all_collectives()) CHECK(registry.find(c, "ring").collective == c);
  for (Collective c : {Collective::AllReduce, Collective::ReduceScatter, Collective::AllGather, Collective::AllToAll})
    CHECK(registry.find(c, "direct").collective == c);
  CHECK_THROWS_AS(registry.find(Collective::Broadcast, "direct"), algo::AlgorithmError);
}
}  // namespace algo_ring_direct_test
