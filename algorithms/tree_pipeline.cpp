#include "algorithms/tree_pipeline.hpp"

#include <algorithm>
#include <stdexcept>

namespace collsim::algo {
namespace {

// Ranks level by level, in rank order within a level: `down` from the root (parents before
// children), `up` from the deepest level (children before parents).
struct Levels {
  std::vector<sched::Rank> down;
  std::vector<sched::Rank> up;
  std::vector<std::uint32_t> depth;
  std::uint32_t height = 0;
};

Levels levels_of(const Tree& tree) {
  Levels l;
  l.depth = tree_depths(tree);
  l.down.resize(tree.nodes.size());
  for (sched::Rank r = 0; r < l.down.size(); ++r) l.down[r] = r;
  l.up = l.down;
  std::stable_sort(l.down.begin(), l.down.end(), [&](sched::Rank a, sched::Rank b) { return l.depth[a] < l.depth[b]; });
  std::stable_sort(l.up.begin(), l.up.end(), [&](sched::Rank a, sched::Rank b) { return l.depth[a] > l.depth[b]; });
  l.height = l.depth[l.up.front()];
  return l;
}

// Chunk `c` (pipeline index i) goes up: deepest ranks first, so each rank has its children's data
// before it sends. A rank's first child reduces into its chunk, its second into its scratch chunk,
// which the rank then adds into its own chunk.
void emit_up(sched::ScheduleBuilder& b, const Tree& tree, const Levels& l, sched::ChunkId c, std::uint32_t i,
             const TreeShare& share) {
  const sched::ChunkId scratch = c + share.scratch_offset;
  for (sched::Rank r : l.up) {
    const TreeNode& node = tree.nodes[r];
    const std::uint32_t d = l.depth[r];
    // Children sent in step i + height - d; the local add belongs to that step.
    if (node.child_count() == 2) b.send(r, scratch, r, c, sched::Combine::Reduce, i + l.height - d, share.channel);
    if (node.parent == kNoRank) continue;
    const TreeNode& parent = tree.nodes[node.parent];
    const bool second = parent.children[1] == r;
    b.send(r, c, node.parent, second ? scratch : c, second ? sched::Combine::Copy : sched::Combine::Reduce,
           i + l.height - d + 1, share.channel);
  }
}

// Chunk `c` (pipeline index i) goes down from the root, parents first; `base` is the step before
// the root's first send (0 for broadcast, the height for all-reduce).
void emit_down(sched::ScheduleBuilder& b, const Tree& tree, const Levels& l, sched::ChunkId c, std::uint32_t i,
               std::uint32_t base, const TreeShare& share) {
  for (sched::Rank r : l.down)
    for (sched::Rank child : tree.nodes[r].children)
      if (child != kNoRank) b.send(r, c, child, c, sched::Combine::Copy, base + i + l.depth[r] + 1, share.channel);
}

}  // namespace

void add_scratch_chunks(std::vector<sched::Chunk>& chunks) {
  const std::size_t n = chunks.size();
  chunks.reserve(2 * n);
  for (std::size_t c = 0; c < n; ++c) {
    sched::Chunk s = chunks[c];
    s.buffer = sched::Buffer::Scratch;
    chunks.push_back(s);
  }
}

bool needs_scratch(const Tree& tree) {
  return std::any_of(tree.nodes.begin(), tree.nodes.end(), [](const TreeNode& n) { return n.child_count() == 2; });
}

void emit_tree_flow(sched::ScheduleBuilder& b, const Tree& tree, TreeFlow flow, const TreeShare& share) {
  if (tree.nodes.size() <= 1) return;
  const Levels l = levels_of(tree);
  for (std::uint32_t i = 0; i < share.count; ++i) {
    const sched::ChunkId c = share.first + i;
    if (flow != TreeFlow::Broadcast) emit_up(b, tree, l, c, i, share);
    if (flow != TreeFlow::Reduce) emit_down(b, tree, l, c, i, flow == TreeFlow::AllReduce ? l.height : 0, share);
  }
}

std::uint32_t tree_flow_steps(TreeFlow flow, std::uint32_t height, std::uint32_t chunks) noexcept {
  if (height == 0) return 0;
  return (flow == TreeFlow::AllReduce ? 2 * height : height) + chunks - 1;
}

std::vector<sched::Phase> allreduce_phases(std::uint32_t height, std::uint32_t chunks) {
  if (height == 0) return {};
  std::vector<sched::Phase> phases{{"reduce", 1, height}};
  if (chunks > 1) phases.push_back({"reduce + broadcast", height + 1, height + chunks - 1});
  phases.push_back({"broadcast", height + chunks, 2 * height + chunks - 1});
  return phases;
}

void add_allreduce_phases(sched::ScheduleBuilder& b, std::uint32_t height, std::uint32_t chunks) {
  for (auto& p : allreduce_phases(height, chunks)) b.add_phase(std::move(p.name), p.first_step, p.last_step);
}

sched::Schedule build_one_tree(const Request& request, sched::Collective collective, const Tree& tree, TreeFlow flow) {
  auto chunks = pipeline_chunks(0, request.size, request.chunk_size, request.element_size);
  const auto count = static_cast<sched::ChunkId>(chunks.size());
  // Going down, every child gets its own copy of the parent's chunk: only reductions need scratch.
  const bool scratch = flow != TreeFlow::Broadcast && needs_scratch(tree);
  if (scratch) add_scratch_chunks(chunks);
  sched::ScheduleBuilder b(schedule_header(request, collective), std::move(chunks));
  emit_tree_flow(b, tree, flow, TreeShare{0, count, scratch ? count : 0, 0});
  if (flow == TreeFlow::AllReduce) add_allreduce_phases(b, tree_height(tree), count);
  return std::move(b).build("tree");
}

std::vector<sched::Chunk> tree_pair_chunks(const Request& request, bool scratch, sched::ChunkId& first_count,
                                           sched::ChunkId& total) {
  const auto halves = split_parts(request, 2);
  // The unit is decided by S, not by each half: an S of bytes stays bytes even where a half
  // happens to be a whole number of elements.
  const Bytes unit = sched::cut_unit(request.size, request.element_size);
  auto chunks = pipeline_chunks(0, halves[0].size, request.chunk_size, unit);
  first_count = static_cast<sched::ChunkId>(chunks.size());
  const auto rest = pipeline_chunks(halves[1].offset, halves[1].size, request.chunk_size, unit);
  chunks.insert(chunks.end(), rest.begin(), rest.end());
  total = static_cast<sched::ChunkId>(chunks.size());
  if (scratch) add_scratch_chunks(chunks);
  return chunks;
}

sched::Schedule build_tree_pair(const Request& request, const Tree& first, const Tree& second,
                                std::string algorithm) {
  sched::ChunkId count0 = 0, total = 0;
  auto chunks = tree_pair_chunks(request, needs_scratch(first) || needs_scratch(second), count0, total);
  sched::ScheduleBuilder b(schedule_header(request, sched::Collective::AllReduce), std::move(chunks));
  emit_tree_flow(b, first, TreeFlow::AllReduce, TreeShare{0, count0, total, 0});
  emit_tree_flow(b, second, TreeFlow::AllReduce, TreeShare{count0, total - count0, total, 1});
  add_allreduce_phases(b, std::max(tree_height(first), tree_height(second)), count0);
  return std::move(b).build(std::move(algorithm));
}

}  // namespace collsim::algo
