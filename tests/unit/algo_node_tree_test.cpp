// NCCL's node-aware trees (NVIDIA/nccl 2.30.7 src/graph/connect.cc ncclTopoPreset and
// connectTrees, src/graph/trees.cc ncclGetDtree) and nccl-tree all-reduce on them. The expected
// parents are derived by hand from those functions: ncclGetBtree over host indices, the mirror or
// shift for the second tree, and BALANCED_TREE's ports (a child host in slot 0 hangs from the
// parent host's second GPU, in slot 1 from its first).
#include <catch2/catch.hpp>

#include "algorithms/host_grid.hpp"
#include "algorithms/nccl_tree_allreduce.hpp"
#include "algorithms/node_trees.hpp"
#include "algorithms/registry.hpp"
#include "validation/symbolic_replay.hpp"

// One namespace per test file: CI builds the tests as unity sources (.ci/run), where each file's
// helpers would otherwise meet the other files'.
namespace algo_node_tree_test {

using namespace collsim;
using algo::kNoRank;

namespace {

constexpr sched::Rank X = kNoRank;

std::vector<sched::Rank> parents(const algo::Tree& t) {
  std::vector<sched::Rank> p;
  for (const auto& node : t.nodes) p.push_back(node.parent);
  return p;
}

// Every rank's children name it as their parent, and every non-root's parent lists it.
void check_links(const algo::Tree& t) {
  for (sched::Rank r = 0; r < t.nodes.size(); ++r) {
    for (sched::Rank c : t.nodes[r].children)
      if (c != kNoRank) CHECK(t.nodes[c].parent == r);
    const sched::Rank p = t.nodes[r].parent;
    if (r == t.root) {
      CHECK(p == kNoRank);
      continue;
    }
    REQUIRE(p != kNoRank);
    const auto& ch = t.nodes[p].children;
    CHECK((ch[0] == r || ch[1] == r));
  }
  CHECK_NOTHROW(algo::tree_depths(t));
}

}  // namespace

TEST_CASE("node trees: 2 hosts of 4 are two chains joined at their first GPUs, each host the root once",
          "[nccl-tree]") {
  // ncclGetDtree(2): tree 0 is host 0 -> host 1 (host 1 in slot 1: 1 > 0), tree 1 the mirror
  // host 1 -> host 0 (host 0 plays btree rank 1 > 0: slot 1). Slot 1 is the parent's first GPU.
  const auto [t0, t1] = algo::nccl_node_dtree(8, algo::equal_hosts(8, 2));
  CHECK(t0.root == 0);
  CHECK(parents(t0) == std::vector<sched::Rank>{X, 0, 1, 2, 0, 4, 5, 6});
  CHECK(t1.root == 4);
  CHECK(parents(t1) == std::vector<sched::Rank>{4, 0, 1, 2, X, 4, 5, 6});
  check_links(t0);
  check_links(t1);
  CHECK(algo::tree_height(t0) == 4);  // rank 7: 0 -> 4 -> 5 -> 6 -> 7
}

TEST_CASE("node trees: 4 hosts of 2 hang slot-0 hosts from the parent's second GPU", "[nccl-tree]") {
  // btree(4): host 2 under host 0 (slot 1), hosts 1 (slot 0) and 3 (slot 1) under host 2.
  // Hosts: {0,1} {2,3} {4,5} {6,7}. Tree 0: 4 under 0, 2 under 5 (host 2's second GPU), 6 under 4.
  const auto [t0, t1] = algo::nccl_node_dtree(8, algo::equal_hosts(8, 4));
  CHECK(t0.root == 0);
  CHECK(parents(t0) == std::vector<sched::Rank>{X, 0, 5, 2, 0, 4, 4, 6});
  // Mirror: host h plays btree host 3-h, so host 3 is the root, host 1 under it (plays 2 > 0:
  // slot 1), host 2 (plays 1 < 2: slot 0) and host 0 (plays 3 > 2: slot 1) under host 1.
  CHECK(t1.root == 6);
  CHECK(parents(t1) == std::vector<sched::Rank>{2, 0, 6, 2, 3, 4, X, 6});
  check_links(t0);
  check_links(t1);
}

TEST_CASE("node trees: one GPU per host gives NCCL's double binary tree over ranks", "[nccl-tree]") {
  // NCCL_TOPO_PATTERN_TREE for one GPU per node: every link at the host's only GPU.
  for (sched::Rank n = 1; n <= 33; ++n) {
    INFO("N = " << n);
    std::vector<std::uint32_t> hosts(n);
    for (sched::Rank r = 0; r < n; ++r) hosts[r] = r;
    const auto [a0, a1] = algo::nccl_node_dtree(n, hosts);
    const auto [b0, b1] = algo::nccl_dtree(n);
    CHECK(a0.root == b0.root);
    CHECK(a1.root == b1.root);
    CHECK(parents(a0) == parents(b0));
    CHECK(parents(a1) == parents(b1));
  }
}

TEST_CASE("node trees: without hosts both trees are the chain 0 -> 1 -> .. -> N-1", "[nccl-tree]") {
  const auto [t0, t1] = algo::nccl_node_dtree(5, {});
  CHECK(parents(t0) == std::vector<sched::Rank>{X, 0, 1, 2, 3});
  CHECK(parents(t1) == parents(t0));
  CHECK(algo::tree_height(t0) == 4);
}

TEST_CASE("node trees: every grid gives trees of at most two children per rank", "[nccl-tree]") {
  for (sched::Rank n = 1; n <= 64; ++n)
    for (sched::Rank k = 1; k <= n; ++k) {
      if (n % k != 0) continue;
      INFO("N = " << n << ", K = " << k);
      const auto [t0, t1] = algo::nccl_node_dtree(n, algo::equal_hosts(n, k));
      check_links(t0);
      check_links(t1);
    }
  // Hosts of different sizes (4, 1, 3 ranks) and out of rank order (host 1 before host 0 ends).
  const auto [u0, u1] = algo::nccl_node_dtree(8, {0, 0, 0, 0, 1, 2, 2, 2});
  check_links(u0);
  check_links(u1);
  const auto [v0, v1] = algo::nccl_node_dtree(4, {0, 1, 0, 1});
  check_links(v0);
  CHECK(parents(v0) == std::vector<sched::Rank>{X, 0, 0, 1});  // chains 0 -> 2 and 1 -> 3, 1 under 0
}

TEST_CASE("node trees: bad hosts are refused", "[nccl-tree]") {
  CHECK_THROWS_AS(algo::nccl_node_dtree(0, {}), std::invalid_argument);
  CHECK_THROWS_AS(algo::nccl_node_dtree(3, {0, 0}), std::invalid_argument);
  CHECK_THROWS_AS(algo::nccl_node_dtree(3, {0, 2, 1}), std::invalid_argument);
}

TEST_CASE("nccl-tree: between two hosts each direction carries S, half per tree each way", "[nccl-tree]") {
  // Tree 0 reduces host 1 -> host 0 and broadcasts back (h0 each way); tree 1 the reverse (h1).
  for (const Bytes size : {Bytes{1} << 30, Bytes{1000003}, Bytes{4096}}) {
    algo::Request req{sched::Collective::AllReduce, 16, size};
    req.hosts = algo::equal_hosts(16, 2);
    const auto s = algo::build_nccl_tree_allreduce(req);
    Bytes up = 0, down = 0;
    for (const auto& op : s.ops) {
      const auto hs = req.hosts[op.src], hd = req.hosts[op.dst];
      if (hs == hd) continue;
      (hs == 1 ? up : down) += s.chunks[op.src_chunk].size;
    }
    CHECK(up == size);
    CHECK(down == size);
    CHECK(validation::verify_symbolic(s) == std::nullopt);
  }
}

TEST_CASE("nccl-tree: registered as NCCL's tree, pipelined, reading hosts", "[nccl-tree]") {
  const auto registry = algo::builtin_registry();
  const auto& info = registry.find(sched::Collective::AllReduce, "nccl-tree");
  CHECK(info.family == algo::NcclFamily::Tree);
  CHECK(info.pipelined);
  CHECK(info.uses_hosts);
  CHECK_FALSE(info.needs_hosts);
}
}  // namespace algo_node_tree_test
