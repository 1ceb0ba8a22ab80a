#include "algorithms/tree_stream.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "algorithms/chunk_tables.hpp"
#include "algorithms/node_trees.hpp"
#include "algorithms/tree_pipeline.hpp"
#include "sim/schedule/builder.hpp"

namespace collsim::algo {
namespace {

// An op's kind: a rank's add of its scratch chunk, its send up, its send down to child 0 or 1.
enum Kind : std::uint32_t { kAdd = 0, kUp = 1, kDown0 = 2, kDown1 = 3 };

// One tree and the chunks it carries.
struct Lane {
  Tree tree;
  TreeShare share;
  std::vector<std::uint8_t> slot;       // by rank: which of its parent's child slots it fills
  std::vector<sched::Rank> leaves;      // in the builder's order: deepest first, by rank within a level
};

class TreeStream final : public sched::OpStream {
 public:
  TreeStream(sched::Schedule header, std::vector<Lane> lanes, std::uint64_t ops, TreeFlow flow)
      : header_(std::move(header)), lanes_(std::move(lanes)), ops_(ops), flow_(flow) {}
  [[nodiscard]] const sched::Schedule& header() const override { return header_; }
  [[nodiscard]] std::uint64_t op_count() const override { return ops_; }
  // A broadcast starts at the root's sends down, every other flow at the leaves' sends up.
  void roots(std::vector<sched::OpKey>& out) const override {
    for (std::uint32_t t = 0; t < lanes_.size(); ++t)
      for (std::uint32_t i = 0; i < lanes_[t].share.count; ++i) append_heads(t, i, out);
  }
  // A leaf's sends up (a broadcast root's sends down to one child) follow each other on one
  // connection, chunk after chunk: launched one by one as the one before begins, not every chunk
  // at the start.
  [[nodiscard]] sched::OpKey root_after(sched::OpKey k) const override {
    const auto [i, t, kind, r] = parts(k);
    const Lane& lane = lanes_[t];
    if (i + 1 >= lane.share.count) return sched::kNoOpKey;
    const bool head = flow_ == TreeFlow::Broadcast ? kind != kUp && kind != kAdd && r == lane.tree.root
                                                   : kind == kUp && lane.tree.nodes[r].is_leaf();
    return head ? key(i + 1, t, kind, r) : sched::kNoOpKey;
  }
  void chain_heads(std::vector<sched::OpKey>& out) const override {
    for (std::uint32_t t = 0; t < lanes_.size(); ++t)
      if (lanes_[t].share.count > 0) append_heads(t, 0, out);
  }
  [[nodiscard]] sched::StreamOp op(sched::OpKey k) const override {
    const auto [i, t, kind, r] = parts(k);
    const Lane& lane = lanes_[t];
    const TreeNode& node = lane.tree.nodes[r];
    const Bytes bytes = header_.chunks[lane.share.first + i].size;
    switch (kind) {
      case kAdd:
        return {r, r, bytes, lane.share.channel, 2, true};
      case kUp:
        // The first child adds into its parent's chunk, the second copies into its scratch chunk.
        return {r, node.parent, bytes, lane.share.channel, node.child_count() > 0 ? 1U : 0U, lane.slot[r] == 0};
      default:
        // A broadcast's root sends what it holds from the start.
        if (flow_ == TreeFlow::Broadcast && r == lane.tree.root)
          return {r, node.children[kind - kDown0], bytes, lane.share.channel, 0U, false};
        // One dependency: what last wrote the rank's chunk (its parent's send down, or at the
        // root its add, or its one child's send up). The builder's other one, the child's send up
        // that reads the chunk this overwrites, comes before that write on every path (the child's
        // send up -> the rank's add or send up -> ... -> the send down into the rank), so it never
        // decides when this starts; held, it would wait in the engine's table from the ascent of
        // its chunk to the descent (millions of entries on thousands of ranks).
        return {r, node.children[kind - kDown0], bytes, lane.share.channel, 1U, false};
    }
  }
  void successors(sched::OpKey k, std::vector<sched::OpKey>& out) const override {
    const auto [i, t, kind, r] = parts(k);
    const Lane& lane = lanes_[t];
    const TreeNode& node = lane.tree.nodes[r];
    switch (kind) {
      case kAdd:
        if (r != lane.tree.root) {
          out.push_back(key(i, t, kUp, r));
        } else if (flow_ == TreeFlow::AllReduce) {  // a reduce ends at the root's sum
          out.push_back(key(i, t, kDown0, r));
          out.push_back(key(i, t, kDown1, r));
        }
        return;
      case kUp: {
        const sched::Rank p = node.parent;
        const TreeNode& parent = lane.tree.nodes[p];
        if (parent.child_count() == 2) out.push_back(key(i, t, kAdd, p));
        else if (p != lane.tree.root) out.push_back(key(i, t, kUp, p));
        else if (flow_ == TreeFlow::AllReduce)
          out.push_back(key(i, t, kDown0 + lane.slot[r], p));  // the root's one child: the root's chunk is final
        return;
      }
      default: {
        const sched::Rank x = node.children[kind - kDown0];
        const TreeNode& child = lane.tree.nodes[x];
        for (std::uint32_t j = 0; j < 2; ++j)
          if (child.children[j] != kNoRank) out.push_back(key(i, t, kDown0 + j, x));
      }
    }
  }

 private:
  struct Parts {
    std::uint32_t i, t, kind;
    sched::Rank r;
  };
  // Key: pipeline chunk index (bits 32..63), tree (31), kind (29..30), rank (0..28).
  static sched::OpKey key(std::uint32_t i, std::uint32_t t, std::uint32_t kind, sched::Rank r) {
    return (sched::OpKey{i} << 32) | (sched::OpKey{t} << 31) | (sched::OpKey{kind} << 29) | r;
  }
  // Where chunk i of lane t starts: the root's sends down (broadcast) or the leaves' sends up.
  void append_heads(std::uint32_t t, std::uint32_t i, std::vector<sched::OpKey>& out) const {
    const Lane& lane = lanes_[t];
    if (flow_ != TreeFlow::Broadcast) {
      for (sched::Rank r : lane.leaves) out.push_back(key(i, t, kUp, r));
      return;
    }
    if (lane.tree.nodes.size() <= 1) return;
    const TreeNode& root = lane.tree.nodes[lane.tree.root];
    for (std::uint32_t j = 0; j < 2; ++j)
      if (root.children[j] != kNoRank) out.push_back(key(i, t, kDown0 + j, lane.tree.root));
  }
  static Parts parts(sched::OpKey k) {
    return {static_cast<std::uint32_t>(k >> 32), static_cast<std::uint32_t>((k >> 31) & 1),
            static_cast<std::uint32_t>((k >> 29) & 3), static_cast<sched::Rank>(k & ((1U << 29) - 1))};
  }
  sched::Schedule header_;
  std::vector<Lane> lanes_;
  std::uint64_t ops_;
  TreeFlow flow_;
};

Lane make_lane(Tree tree, TreeShare share) {
  Lane lane{std::move(tree), share, {}, {}};
  const auto n = static_cast<sched::Rank>(lane.tree.nodes.size());
  lane.slot.assign(n, 0);
  for (sched::Rank r = 0; r < n; ++r)
    if (const TreeNode& node = lane.tree.nodes[r]; node.parent != kNoRank)
      lane.slot[r] = lane.tree.nodes[node.parent].children[1] == r ? 1 : 0;
  if (n > 1) {
    const auto depth = tree_depths(lane.tree);
    for (sched::Rank r = 0; r < n; ++r)
      if (lane.tree.nodes[r].is_leaf() && r != lane.tree.root) lane.leaves.push_back(r);
    std::stable_sort(lane.leaves.begin(), lane.leaves.end(),
                     [&](sched::Rank a, sched::Rank b) { return depth[a] > depth[b]; });
  }
  return lane;
}

// Ops of one tree per pipeline chunk: a send up per rank but the root and an add per rank with
// two children (reduce, all-reduce), a send down per child (broadcast, all-reduce).
std::uint64_t ops_per_chunk(const Tree& tree, TreeFlow flow) {
  if (tree.nodes.size() <= 1) return 0;
  std::uint64_t adds = 0;
  for (const auto& n : tree.nodes) adds += n.child_count() == 2 ? 1 : 0;
  const std::uint64_t edges = tree.nodes.size() - 1;
  return flow == TreeFlow::Broadcast ? edges : flow == TreeFlow::Reduce ? edges + adds : 2 * edges + adds;
}

}  // namespace

std::unique_ptr<sched::OpStream> make_tree_allreduce_stream(const Request& request, std::vector<Tree> trees,
                                                            std::string algorithm) {
  if (trees.empty() || trees.size() > 2)
    throw std::invalid_argument("make_tree_allreduce_stream: expected one tree or two");
  if (request.nranks >= (1U << 29))
    throw std::invalid_argument("make_tree_allreduce_stream: at most 2^29 - 1 ranks");
  for (const auto& t : trees)
    if (t.nodes.size() != request.nranks)
      throw std::invalid_argument("make_tree_allreduce_stream: a tree over another number of ranks");
  const bool scratch = std::any_of(trees.begin(), trees.end(), [](const Tree& t) { return needs_scratch(t); });
  std::vector<sched::Chunk> chunks;
  std::vector<TreeShare> shares;
  if (trees.size() == 1) {
    // As build_one_tree cuts it.
    chunks = pipeline_chunks(0, request.size, request.chunk_size, request.element_size);
    const auto count = static_cast<sched::ChunkId>(chunks.size());
    if (scratch) add_scratch_chunks(chunks);
    shares.push_back(TreeShare{0, count, scratch ? count : 0, 0});
  } else {
    sched::ChunkId count0 = 0, total = 0;
    chunks = tree_pair_chunks(request, scratch, count0, total);
    shares.push_back(TreeShare{0, count0, total, 0});
    shares.push_back(TreeShare{count0, total - count0, total, 1});
  }
  std::uint32_t steps = 0, height = 0;
  std::uint64_t ops = 0;
  for (std::size_t t = 0; t < trees.size(); ++t) {
    const std::uint32_t h = tree_height(trees[t]);
    height = std::max(height, h);
    if (request.nranks > 1) steps = std::max(steps, tree_flow_steps(TreeFlow::AllReduce, h, shares[t].count));
    ops += ops_per_chunk(trees[t], TreeFlow::AllReduce) * shares[t].count;
  }
  auto header = sched::schedule_without_ops(schedule_header(request, sched::Collective::AllReduce), std::move(chunks),
                                            std::move(algorithm), steps, allreduce_phases(height, shares[0].count));
  std::vector<Lane> lanes;
  for (std::size_t t = 0; t < trees.size(); ++t) lanes.push_back(make_lane(std::move(trees[t]), shares[t]));
  return std::make_unique<TreeStream>(std::move(header), std::move(lanes), ops, TreeFlow::AllReduce);
}

std::unique_ptr<sched::OpStream> make_one_tree_stream(const Request& request, sched::Collective collective, Tree tree,
                                                      TreeFlow flow) {
  if (request.nranks >= (1U << 29)) throw std::invalid_argument("make_one_tree_stream: at most 2^29 - 1 ranks");
  if (tree.nodes.size() != request.nranks)
    throw std::invalid_argument("make_one_tree_stream: a tree over another number of ranks");
  // As build_one_tree cuts it: scratch chunks only where the flow reduces over a rank of two children.
  auto chunks = pipeline_chunks(0, request.size, request.chunk_size, request.element_size);
  const auto count = static_cast<sched::ChunkId>(chunks.size());
  const bool scratch = flow != TreeFlow::Broadcast && needs_scratch(tree);
  if (scratch) add_scratch_chunks(chunks);
  const std::uint32_t height = tree_height(tree);
  const std::uint32_t steps = request.nranks > 1 ? tree_flow_steps(flow, height, count) : 0;
  const std::uint64_t ops = ops_per_chunk(tree, flow) * count;
  auto header = sched::schedule_without_ops(schedule_header(request, collective), std::move(chunks), "tree", steps,
                                            flow == TreeFlow::AllReduce ? allreduce_phases(height, count)
                                                                        : std::vector<sched::Phase>{});
  std::vector<Lane> lanes;
  lanes.push_back(make_lane(std::move(tree), TreeShare{0, count, scratch ? count : 0, 0}));
  return std::make_unique<TreeStream>(std::move(header), std::move(lanes), ops, flow);
}

std::unique_ptr<sched::OpStream> stream_tree_allreduce(const Request& request) {
  return make_tree_allreduce_stream(request, {nccl_btree(request.nranks)}, "tree");
}

namespace {

// The root a broadcast or reduce names, checked as the schedule builder checks it.
Tree rooted_btree(const Request& request) {
  if (request.root >= request.nranks)
    throw std::invalid_argument(fmt::format("root {} is out of range (ranks 0..{})", request.root,
                                            request.nranks == 0 ? 0 : request.nranks - 1));
  return rotate_tree(nccl_btree(request.nranks), request.root);
}

}  // namespace

std::unique_ptr<sched::OpStream> stream_tree_reduce(const Request& request) {
  return make_one_tree_stream(request, sched::Collective::Reduce, rooted_btree(request), TreeFlow::Reduce);
}

std::unique_ptr<sched::OpStream> stream_tree_broadcast(const Request& request) {
  return make_one_tree_stream(request, sched::Collective::Broadcast, rooted_btree(request), TreeFlow::Broadcast);
}

std::unique_ptr<sched::OpStream> stream_double_tree_allreduce(const Request& request) {
  auto [first, second] = nccl_dtree(request.nranks);
  return make_tree_allreduce_stream(request, {std::move(first), std::move(second)}, "double-tree");
}

std::unique_ptr<sched::OpStream> stream_nccl_tree_allreduce(const Request& request) {
  auto [first, second] = nccl_node_dtree(request.nranks, request.hosts);
  return make_tree_allreduce_stream(request, {std::move(first), std::move(second)}, "nccl-tree");
}

}  // namespace collsim::algo
