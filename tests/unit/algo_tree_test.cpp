// NCCL's trees (NVIDIA/nccl src/graph/trees.cc: ncclGetBtree, ncclGetDtree, ncclGetDtreeRoots)
// and the tree algorithms built on them: tree all-reduce, reduce, broadcast and double-tree
// all-reduce. Shapes are checked against the figures in trees.cc's comments; step counts and the
// busiest rank's bytes against the formulas in the builders' doc comments, derived from those
// shapes (expected values are computed here from the formulas, never read off the schedule).
#include <algorithm>
#include <catch2/catch.hpp>
#include <map>

#include "algorithms/channels.hpp"
#include "algorithms/double_tree_allreduce.hpp"
#include "algorithms/registry.hpp"
#include "algorithms/nccl_trees.hpp"
#include "algorithms/tree_allreduce.hpp"
#include "algorithms/tree_broadcast.hpp"
#include "algorithms/tree_pipeline.hpp"
#include "algorithms/tree_reduce.hpp"
#include "sim/engine.hpp"
#include "sim/network/fifo_link_model.hpp"
#include "topologies/generate.hpp"
#include "validation/symbolic_replay.hpp"

// One namespace per test file: CI builds the tests as unity sources (.ci/run), where each file's
// helpers would otherwise meet the other files'.
namespace algo_tree_test {

using namespace collsim;
using algo::kNoRank;

namespace {

constexpr auto sent_per_rank = sched::bytes_sent_per_rank;
constexpr auto max_sent = sched::max_bytes_sent;

// ceil(log2 n), by doubling (independent of algo::ceil_log2).
std::uint32_t levels(std::uint32_t n) {
  std::uint32_t d = 0;
  for (std::uint64_t p = 1; p < n; p *= 2) ++d;
  return d;
}

Bytes ceil_div(Bytes a, Bytes b) { return (a + b - 1) / b; }

// NCCL's pipeline chunk count: a message of one chunk or less moves in one piece.
std::uint32_t pipeline_count(Bytes size, Bytes chunk) {
  return static_cast<std::uint32_t>(std::max<Bytes>(1, ceil_div(size, chunk)));
}

algo::Request request(sched::Collective c, sched::Rank n, Bytes size, Bytes chunk, sched::Rank root = 0) {
  algo::Request r{c, n, size};
  r.chunk_size = chunk;
  r.root = root;
  return r;
}

std::vector<sched::Rank> parents(const algo::Tree& t) {
  std::vector<sched::Rank> p;
  for (const auto& node : t.nodes) p.push_back(node.parent);
  return p;
}

constexpr sched::Rank X = kNoRank;

}  // namespace

TEST_CASE("the btree is the one drawn in NCCL's trees.cc for 14 ranks", "[tree][shape]") {
  // 0---8; 8 -> 4, 12; 4 -> 2, 6; 12 -> 10, 13; 2 -> 1, 3; 6 -> 5, 7; 10 -> 9, 11.
  const auto t = algo::nccl_btree(14);
  CHECK(t.root == 0);
  CHECK(parents(t) == std::vector<sched::Rank>{X, 2, 4, 2, 8, 6, 4, 6, 0, 10, 12, 10, 8, 12});
  CHECK(t.nodes[0].children == std::array<sched::Rank, 2>{8, X});
  CHECK(t.nodes[12].children == std::array<sched::Rank, 2>{10, 13});
  CHECK(t.nodes[8].children == std::array<sched::Rank, 2>{4, 12});
}

TEST_CASE("the double tree's second tree is the mirror (12 ranks) or the shift (13 ranks) drawn in trees.cc",
          "[tree][shape]") {
  // Mirror, 12 ranks: 11---3; 3 -> 1, 7; 1 -> 0, 2; 7 -> 5, 9; 5 -> 4, 6; 9 -> 8, 10.
  const auto [a12, m12] = algo::nccl_dtree(12);
  CHECK(a12.root == 0);
  CHECK(m12.root == 11);
  CHECK(parents(m12) == std::vector<sched::Rank>{1, 3, 1, 11, 5, 7, 5, 3, 9, 7, 9, X});
  // Shift, 13 ranks: 1---9; 9 -> 5, 0; 5 -> 3, 7; 0 -> 11; 3 -> 2, 4; 7 -> 6, 8; 11 -> 10, 12.
  const auto [a13, s13] = algo::nccl_dtree(13);
  CHECK(a13.root == 0);
  CHECK(s13.root == 1);
  CHECK(parents(s13) == std::vector<sched::Rank>{9, X, 3, 5, 3, 9, 7, 5, 7, 1, 11, 0, 11});
}

TEST_CASE("NCCL's trees: at most two children, consistent links, height ceil(log2 N), odd leaves", "[tree][shape]") {
  for (sched::Rank n = 1; n <= 130; ++n) {
    INFO("N = " << n);
    const auto [first, second] = algo::nccl_dtree(n);
    // ncclGetDtreeRoots: 0, and 1 for odd N > 1, else N-1.
    CHECK(first.root == 0);
    CHECK(second.root == (n % 2 == 1 && n > 1 ? 1 : n - 1));
    for (const auto* t : {&first, &second}) {
      CHECK(algo::tree_height(*t) == levels(n));
      CHECK(algo::tree_depths(*t).size() == n);  // every rank reachable from the root
      for (sched::Rank r = 0; r < n; ++r) {
        const auto& node = t->nodes[r];
        CHECK((node.parent == kNoRank) == (r == t->root));
        CHECK(node.child_count() <= 2);
        for (sched::Rank c : node.children)
          if (c != kNoRank) CHECK(t->nodes[c].parent == r);
      }
      CHECK(t->nodes[t->root].child_count() == (n > 1 ? 1u : 0u));
    }
    // trees.cc: the btree's leaves are the odd ranks (xx1 has no children).
    for (sched::Rank r = 0; r < n; ++r) CHECK(first.nodes[r].is_leaf() == (r % 2 == 1 || n == 1));
  }
}

TEST_CASE("a rank that is a leaf in one tree of the double tree is interior in the other", "[tree][shape]") {
  // The point of the double tree (Sanders et al. 2009; trees.cc): every rank forwards data in
  // at least one tree. Interior = has a child. It holds from N = 2 on; the brief asks N >= 4.
  for (sched::Rank n = 2; n <= 130; ++n) {
    INFO("N = " << n);
    const auto [first, second] = algo::nccl_dtree(n);
    for (sched::Rank r = 0; r < n; ++r) {
      CHECK_FALSE((first.nodes[r].is_leaf() && second.nodes[r].is_leaf()));
      // Mirror (even N) or shift by one (odd N) of the odd ranks: the even ranks, but 0 for odd N.
      CHECK(second.nodes[r].is_leaf() == (r % 2 == 0 && !(n % 2 == 1 && r == 0)));
    }
  }
}

TEST_CASE("rotating the btree roots it anywhere with the same shape", "[tree][shape]") {
  for (sched::Rank n : {1u, 2u, 5u, 8u, 13u}) {
    const auto base = algo::nccl_btree(n);
    for (sched::Rank root = 0; root < n; ++root) {
      const auto t = algo::rotate_tree(base, root);
      CHECK(t.root == root);
      for (sched::Rank r = 0; r < n; ++r)
        CHECK(t.nodes[(r + root) % n].parent ==
              (base.nodes[r].parent == kNoRank ? kNoRank : (base.nodes[r].parent + root) % n));
    }
  }
}

TEST_CASE("pipeline chunks: chunk_size pieces in order, the last shorter, one piece for a small message",
          "[tree][pipeline]") {
  const auto c = algo::pipeline_chunks(10, 25, 8);
  REQUIRE(c.size() == 4);
  CHECK(c[0].offset == 10);
  CHECK(c[3].offset == 34);
  CHECK(c[3].size == 1);
  CHECK(algo::pipeline_chunks(0, 0, 8).size() == 1);
  CHECK(algo::pipeline_chunks(0, 8, 8).size() == 1);
  CHECK(algo::pipeline_chunks(0, 9, 8).size() == 2);
  CHECK(algo::pipeline_chunks(0, Bytes{1} << 30, Bytes{512} << 10).size() == 2048);  // no cap: NCCL's count
  CHECK_THROWS_AS(algo::pipeline_chunks(0, 8, 0), std::invalid_argument);
  // In whole elements when S is a whole number of them: a chunk size of 10 B holds two float32
  // (8 B), one of 3 B rounds up to one element; S = 25 B is not float32 data, so bytes.
  CHECK(algo::pipeline_chunk_bytes(40, 10, 4) == 8);
  CHECK(algo::pipeline_chunk_bytes(40, 3, 4) == 4);
  CHECK(algo::pipeline_chunk_bytes(25, 10, 4) == 10);
  const auto e = algo::pipeline_chunks(16, 40, 10, 4);
  REQUIRE(e.size() == 5);
  for (std::size_t i = 0; i < e.size(); ++i) {
    CHECK(e[i].offset == 16 + 8 * i);
    CHECK(e[i].size == 8);
  }
}

TEST_CASE("tree all-reduce: 2ceil(log2 N)+C-1 steps, the busiest rank sends S, 2S or 3S", "[tree][allreduce]") {
  // Steps: the last chunk climbs D = ceil(log2 N) levels and comes back down D levels, C-1 steps
  // after the first (tree_pipeline.hpp); unpipelined (C = 1) that is 2·ceil(log2 N).
  // Bytes: rank r sends S to its parent and S to each child; ncclGetBtree gives rank 2 a parent
  // and children 1, 3 for N >= 4, the chain 0-2-1 for N = 3, and 0-1 for N = 2.
  const auto busiest = [](sched::Rank n, Bytes s) -> Bytes { return n >= 4 ? 3 * s : n == 3 ? 2 * s : n == 2 ? s : 0; };
  for (sched::Rank n : {1u, 2u, 3u, 4u, 5u, 7u, 8u, 12u, 16u, 31u, 33u}) {
    for (Bytes s : {Bytes{0}, Bytes{1}, Bytes{1000}, Bytes{4096}, Bytes{100003}}) {
      for (Bytes chunk : {Bytes{512} << 10, Bytes{1024}, Bytes{97}}) {
        INFO("N = " << n << ", S = " << s << ", chunk = " << chunk);
        const auto sched = algo::build_tree_allreduce(request(sched::Collective::AllReduce, n, s, chunk));
        const std::uint32_t c = pipeline_count(s, chunk);
        CHECK(sched.steps == (n > 1 ? 2 * levels(n) + c - 1 : 0));
        CHECK(max_sent(sched) == busiest(n, s));
        for (const auto& op : sched.ops) CHECK(op.channel == 0);
      }
    }
  }
}

TEST_CASE("tree all-reduce sends S per tree link and direction, as the tree's shape says", "[tree][allreduce]") {
  for (sched::Rank n = 1; n <= 40; ++n) {
    const Bytes s = 3 * Bytes{n} + 1001;
    const auto sched = algo::build_tree_allreduce(request(sched::Collective::AllReduce, n, s, 64));
    const auto tree = algo::nccl_btree(n);
    const auto sent = sent_per_rank(sched);
    for (sched::Rank r = 0; r < n; ++r) {
      INFO("N = " << n << ", rank " << r);
      CHECK(sent[r] == s * (tree.nodes[r].child_count() + (r == 0 ? 0 : 1)));
    }
    // Every network op runs along a tree link.
    for (const auto& op : sched.ops)
      if (op.src != op.dst) CHECK((tree.nodes[op.src].parent == op.dst || tree.nodes[op.dst].parent == op.src));
  }
}

TEST_CASE("tree all-reduce names its phases, and unpipelined it is 2ceil(log2 N) steps", "[tree][allreduce]") {
  const auto one = algo::build_tree_allreduce(request(sched::Collective::AllReduce, 8, 1000, 4096));
  CHECK(one.steps == 6);
  CHECK(one.phase_of(3) == "reduce");
  CHECK(one.phase_of(4) == "broadcast");
  // 8 ranks, 10 chunks: chunks go only up in steps 1..3, both ways in 4..12, only down in 13..15.
  const auto many = algo::build_tree_allreduce(request(sched::Collective::AllReduce, 8, 10000, 1000));
  CHECK(many.steps == 15);
  CHECK(many.phase_of(3) == "reduce");
  CHECK(many.phase_of(4) == "reduce + broadcast");
  CHECK(many.phase_of(12) == "reduce + broadcast");
  CHECK(many.phase_of(13) == "broadcast");
  for (const auto& op : many.ops) {
    if (op.src == op.dst) continue;  // a rank adding its second child's chunk
    const bool up = algo::nccl_btree(8).nodes[op.src].parent == op.dst;
    if (op.step <= 3) CHECK(up);
    if (op.step >= 13) CHECK_FALSE(up);
  }
}

TEST_CASE("tree reduce and broadcast: ceil(log2 N)+C-1 steps at any root, busiest rank S and 2S",
          "[tree][reduce][broadcast]") {
  // Reduce: every rank but the root sends S once. Broadcast: S per child, at most 2 children
  // (N >= 4; for N <= 3 the btree is a chain).
  for (sched::Rank n : {1u, 2u, 3u, 4u, 6u, 8u, 9u, 17u, 32u}) {
    for (sched::Rank root : {sched::Rank{0}, n / 2, n - 1}) {
      for (Bytes s : {Bytes{0}, Bytes{5}, Bytes{3000}, Bytes{65537}}) {
        for (Bytes chunk : {Bytes{512} << 10, Bytes{1000}}) {
          INFO("N = " << n << ", root = " << root << ", S = " << s << ", chunk = " << chunk);
          const std::uint32_t steps = n > 1 ? levels(n) + pipeline_count(s, chunk) - 1 : 0;
          const auto red = algo::build_tree_reduce(request(sched::Collective::Reduce, n, s, chunk, root));
          CHECK(red.header.root == root);
          CHECK(red.steps == steps);
          CHECK(max_sent(red) == (n > 1 ? s : 0));
          CHECK(sent_per_rank(red)[root] == 0);
          const auto bc = algo::build_tree_broadcast(request(sched::Collective::Broadcast, n, s, chunk, root));
          CHECK(bc.header.root == root);
          CHECK(bc.steps == steps);
          CHECK(max_sent(bc) == (n >= 4 ? 2 * s : n > 1 ? s : 0));
          CHECK(sent_per_rank(bc)[root] == (n > 1 ? s : 0));  // the btree's root has one child
        }
      }
    }
  }
}

TEST_CASE("double tree: 2ceil(log2 N)+ceil(C/2)-1 steps, the busiest rank sends 3ceil(S/2)+floor(S/2)",
          "[double-tree]") {
  // Each tree carries half the buffer, h0 = ceil(S/2) on the first, h1 = floor(S/2) on the second,
  // in max(1, ceil(h_k / chunk)) chunks. Rank 2 has a parent and two children in the first tree
  // and is a leaf in the second for N >= 4 (trees.cc figures), so it sends 3h0 + h1, about 2S: the
  // double tree's point, against 3S on one tree. N = 3: rank 2 sends 2h0 (chain 0-2-1) + h1
  // (leaf); N = 2: each rank sends one half to the other in each tree.
  for (sched::Rank n : {1u, 2u, 3u, 4u, 5u, 6u, 7u, 8u, 12u, 13u, 16u, 31u, 64u}) {
    for (Bytes s : {Bytes{0}, Bytes{1}, Bytes{2}, Bytes{999}, Bytes{4096}, Bytes{100001}}) {
      for (Bytes chunk : {Bytes{512} << 10, Bytes{1000}, Bytes{37}}) {
        INFO("N = " << n << ", S = " << s << ", chunk = " << chunk);
        const Bytes h0 = (s + 1) / 2;
        const Bytes h1 = s / 2;
        // Chunks are whole float32 elements (the request's default element size) when S is a
        // multiple of 4: 37 B becomes 36 B. Of these sizes only 0 and 4096 are, both an even
        // number of elements, so the halves stay ceil(S/2) and floor(S/2).
        const Bytes c = s % 4 == 0 ? std::max<Bytes>(4, chunk / 4 * 4) : chunk;
        // S = 100001 is bytes: its half 50000 is a whole number of elements but is cut in bytes too.
        const auto sched = algo::build_double_tree_allreduce(request(sched::Collective::AllReduce, n, s, chunk));
        CHECK(sched.steps == (n > 1 ? 2 * levels(n) + pipeline_count(h0, c) - 1 : 0));
        CHECK(pipeline_count(h0, c) == std::max<Bytes>(1, ceil_div(pipeline_count(s, c), 2)));
        const Bytes want = n >= 4 ? 3 * h0 + h1 : n == 3 ? 2 * h0 + h1 : n == 2 ? s : 0;
        CHECK(max_sent(sched) == want);
        if (n >= 4) CHECK(max_sent(sched) <= 2 * s + 1);
      }
    }
  }
}

TEST_CASE("double tree: tree k moves half k of the buffer on channel k, along its own links", "[double-tree]") {
  for (sched::Rank n = 2; n <= 33; ++n) {
    INFO("N = " << n);
    const Bytes s = 10 * Bytes{n} + 7;
    const auto sched = algo::build_double_tree_allreduce(request(sched::Collective::AllReduce, n, s, 16));
    const auto [first, second] = algo::nccl_dtree(n);
    std::map<std::uint16_t, std::size_t> per_channel;
    std::vector<Bytes> sent(n, 0);
    for (sched::OpId i = 0; i < sched.ops.size(); ++i) {
      const auto& op = sched.ops[i];
      REQUIRE(op.channel <= 1);
      ++per_channel[op.channel];
      const auto& tree = op.channel == 0 ? first : second;
      const auto& chunk = sched.chunks[op.dst_chunk];
      // Channel 0 moves bytes [0, ceil(S/2)), channel 1 the rest.
      if (chunk.size > 0) CHECK((chunk.offset < (s + 1) / 2) == (op.channel == 0));
      if (op.src == op.dst) continue;
      CHECK((tree.nodes[op.src].parent == op.dst || tree.nodes[op.dst].parent == op.src));
      sent[op.src] += sched.op_bytes(i);
    }
    CHECK(per_channel.size() == 2);
    const Bytes h[2] = {(s + 1) / 2, s / 2};
    for (sched::Rank r = 0; r < n; ++r) {
      Bytes want = 0;
      for (int k = 0; k < 2; ++k) {
        const auto& node = (k == 0 ? first : second).nodes[r];
        want += h[k] * (node.child_count() + (node.parent == kNoRank ? 0 : 1));
      }
      CHECK(sent[r] == want);
    }
  }
}

TEST_CASE("tree algorithms compute their collectives, pipelined or not, at every root", "[tree][verify]") {
  for (sched::Rank n = 1; n <= 20; ++n) {
    for (Bytes s : {Bytes{0}, Bytes{1}, Bytes{n}, Bytes{7 * n + 3}}) {
      for (Bytes chunk : {Bytes{1}, Bytes{4}, Bytes{512} << 10}) {
        INFO("N = " << n << ", S = " << s << ", chunk = " << chunk);
        CHECK(validation::verify_symbolic(
                  algo::build_tree_allreduce(request(sched::Collective::AllReduce, n, s, chunk))) == std::nullopt);
        CHECK(validation::verify_symbolic(algo::build_double_tree_allreduce(
                  request(sched::Collective::AllReduce, n, s, chunk))) == std::nullopt);
        for (sched::Rank root = 0; root < n; ++root) {
          CHECK(validation::verify_symbolic(
                    algo::build_tree_reduce(request(sched::Collective::Reduce, n, s, chunk, root))) == std::nullopt);
          CHECK(validation::verify_symbolic(algo::build_tree_broadcast(
                    request(sched::Collective::Broadcast, n, s, chunk, root))) == std::nullopt);
        }
      }
    }
  }
}

TEST_CASE("a broken tree is caught by the symbolic check", "[tree][verify]") {
  // Rank 2 (N = 4) copies its second child's chunk over its own instead of adding it: the sum
  // loses ranks 1 and 2.
  auto s = algo::build_tree_allreduce(request(sched::Collective::AllReduce, 4, 100, 1000));
  const auto local = std::find_if(s.ops.begin(), s.ops.end(), [](const sched::Op& op) { return op.src == op.dst; });
  REQUIRE(local != s.ops.end());
  local->combine = sched::Combine::Copy;
  CHECK(validation::verify_symbolic(s) != std::nullopt);
}

TEST_CASE("tree algorithms reject a zero chunk size and a root out of range", "[tree]") {
  CHECK_THROWS_AS(algo::build_tree_allreduce(request(sched::Collective::AllReduce, 4, 100, 0)), std::invalid_argument);
  CHECK_THROWS_AS(algo::build_tree_reduce(request(sched::Collective::Reduce, 4, 100, 10, 4)), std::invalid_argument);
  CHECK_THROWS_AS(algo::build_tree_broadcast(request(sched::Collective::Broadcast, 4, 100, 10, 9)),
                  std::invalid_argument);
}

TEST_CASE("on a fully connected fabric the tree pipeline takes the pipelined alpha-beta time", "[tree][engine]") {
  // Every tree link is its own wire and both children of a rank send to it at once (the scratch
  // chunk). A link serialises a chunk in tau = chunk / bandwidth and the chunk arrives alpha later
  // while the link already carries the next one, so chunk i reaches level k up at
  // (i + k)·tau + k·alpha: reduce and broadcast take D·(alpha + tau) + (C - 1)·tau, all-reduce
  // (up then down) 2D·(alpha + tau) + (C - 1)·tau: the alpha-beta time of a pipelined tree.
  // Without the scratch chunk a rank would take its children's chunks one after the other.
  const Bandwidth bw{100'000'000'000};  // 12.5 GB/s
  const Time latency{1'000'000};        // 1 us
  for (sched::Rank n : {2u, 4u, 7u, 8u, 13u}) {
    const auto topo = topo::generate_fabric(topo::Fabric::FullyConnected, n, bw, latency);
    const std::vector<topo::NodeId> gpus(topo.gpus().begin(), topo.gpus().end());
    for (const auto& [s, chunk] :
         {std::pair{Bytes{1} << 20, Bytes{1} << 20}, std::pair{Bytes{1} << 20, Bytes{64} << 10}}) {
      INFO("N = " << n << ", S = " << s << ", chunk = " << chunk);
      const Time tau = transfer_time(chunk, bw);
      const Time t = latency + tau;
      const std::int64_t c = static_cast<std::int64_t>(s / chunk);
      const std::int64_t d = levels(n);
      const auto time_of = [&](const sched::Schedule& sc) {
        net::FifoLinkModel model(topo);
        return sim::run(sc, topo, gpus, model).makespan;
      };
      CHECK(time_of(algo::build_tree_allreduce(request(sched::Collective::AllReduce, n, s, chunk))) ==
            2 * d * t + (c - 1) * tau);
      CHECK(time_of(algo::build_tree_reduce(request(sched::Collective::Reduce, n, s, chunk, n - 1))) ==
            d * t + (c - 1) * tau);
      CHECK(time_of(algo::build_tree_broadcast(request(sched::Collective::Broadcast, n, s, chunk, 1))) ==
            d * t + (c - 1) * tau);
    }
  }
}

TEST_CASE("parts of an S counted in bytes stay in bytes, even when a part is whole elements", "[tree][channels]") {
  // S = 100001 is not a multiple of the 4-byte element, so S, its two channel shares (50001 and
  // 50000 B) and their 37 B pipeline chunks are all counted in bytes: ceil(50001/37) = 1352 and
  // ceil(50000/37) = 1352 chunks, never 36 B chunks of whole elements (1389 for 50000 B).
  const auto registry = algo::builtin_registry();
  auto r = request(sched::Collective::AllReduce, 4, 100001, 37);
  const auto s = algo::build_with_channels(registry.find(sched::Collective::AllReduce, "tree"), r, 2);
  Bytes largest = 0;
  for (const auto& op : s.ops) largest = std::max(largest, s.chunks[op.src_chunk].size);
  CHECK(largest == 37);
  CHECK(s.header.element_size == 1);
  // Both channels run C = 1352 chunks: 2D + C - 1 steps with D = 2 for N = 4.
  CHECK(s.steps == 2 * 2 + 1352 - 1);
}
}  // namespace algo_tree_test
