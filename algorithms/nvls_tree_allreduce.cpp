#include "algorithms/nvls_tree_allreduce.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

#include "algorithms/chunk_tables.hpp"
#include "algorithms/host_grid.hpp"
#include "algorithms/nccl_trees.hpp"
#include "algorithms/tree_pipeline.hpp"
#include "sim/schedule/builder.hpp"

namespace collsim::algo {
namespace {

// The chunk table: the pipeline chunks of every (part, half), in offset order; then the switch's
// scratch, one chunk per sending GPU for each (part, half, chunk size), as nvls_allreduce.cpp
// keeps it (parts run side by side, the chunks of one part reuse it one after another); then one
// tree scratch chunk per pipeline chunk, where a head takes its second child host's sum. Scratch
// chunks get offsets of their own so that none alias in a replay.
struct NvlsTreeChunks {
  std::vector<sched::Chunk> chunks;
  std::vector<std::array<std::vector<sched::ChunkId>, 2>> pieces;  // by part, by half
  std::map<std::tuple<std::uint32_t, unsigned, Bytes>, sched::ChunkId> slots;  // first of L
  sched::ChunkId tree_scratch = 0;  // tree scratch of data chunk c: tree_scratch + c

  [[nodiscard]] sched::ChunkId slot(std::uint32_t part, unsigned half, Bytes size, sched::Rank local) const {
    return slots.at({part, half, size}) + local;
  }
};

NvlsTreeChunks nvls_tree_chunks(const Request& request, sched::Rank locals, bool switch_scratch, bool tree_scratch) {
  NvlsTreeChunks t;
  const Bytes unit = sched::cut_unit(request.size, request.element_size);
  const auto parts = split_parts(request, locals);
  t.pieces.resize(locals);
  for (std::uint32_t k = 0; k < locals; ++k) {
    const auto halves = sched::split_even(parts[k].size, 2, unit);
    for (unsigned h = 0; h < 2; ++h)
      for (const auto& c : pipeline_chunks(parts[k].offset + halves[h].offset, halves[h].size, request.chunk_size, unit)) {
        t.pieces[k][h].push_back(static_cast<sched::ChunkId>(t.chunks.size()));
        t.chunks.push_back(c);
      }
  }
  const auto data = static_cast<sched::ChunkId>(t.chunks.size());
  Bytes offset = 0;
  if (switch_scratch)
    for (std::uint32_t k = 0; k < locals; ++k)
      for (unsigned h = 0; h < 2; ++h)
        for (sched::ChunkId piece : t.pieces[k][h]) {
          const Bytes size = t.chunks[piece].size;
          if (!t.slots.try_emplace({k, h, size}, static_cast<sched::ChunkId>(t.chunks.size())).second) continue;
          for (sched::Rank w = 0; w < locals; ++w, offset += size)
            t.chunks.push_back(sched::Chunk{offset, size, sched::Buffer::Scratch, 0});
        }
  t.tree_scratch = static_cast<sched::ChunkId>(t.chunks.size());
  if (tree_scratch)
    for (sched::ChunkId c = 0; c < data; ++c) {
      t.chunks.push_back(sched::Chunk{offset, t.chunks[c].size, sched::Buffer::Scratch, 0});
      offset += t.chunks[c].size;
    }
  return t;
}

// One tree over host indices, level by level: hosts from the deepest up (children before their
// parent) and from the root down.
struct HostLevels {
  Tree tree;
  std::vector<std::uint32_t> depth;
  std::vector<sched::Rank> up, down;
  std::uint32_t height = 0;
};

HostLevels host_levels(Tree tree) {
  HostLevels l;
  l.depth = tree_depths(tree);
  l.height = tree_height(tree);
  for (sched::Rank h = 0; h < tree.nodes.size(); ++h) l.down.push_back(h);
  std::stable_sort(l.down.begin(), l.down.end(), [&](sched::Rank a, sched::Rank b) { return l.depth[a] < l.depth[b]; });
  l.up.assign(l.down.rbegin(), l.down.rend());
  std::stable_sort(l.up.begin(), l.up.end(), [&](sched::Rank a, sched::Rank b) { return l.depth[a] > l.depth[b]; });
  l.tree = std::move(tree);
  return l;
}

}  // namespace

sched::Schedule build_nvls_tree_allreduce(const Request& request) {
  const sched::Rank n = request.nranks;
  const HostGrid grid = host_grid_or_one_host(request, "nvls-tree");
  const sched::Rank hosts = grid.hosts;
  const sched::Rank locals = grid.ranks_per_host;
  const bool switches = locals > 1;
  auto [first, second] = nccl_dtree(hosts);
  const std::array<HostLevels, 2> trees{host_levels(std::move(first)), host_levels(std::move(second))};
  const bool tree_scratch = needs_scratch(trees[0].tree) || needs_scratch(trees[1].tree);
  const NvlsTreeChunks table = nvls_tree_chunks(request, locals, switches, tree_scratch);
  sched::ScheduleBuilder b(schedule_header(request, sched::Collective::AllReduce, switches ? hosts : 0), table.chunks);
  if (n == 1) return std::move(b).build("nvls-tree");  // the buffer is its own sum

  using sched::Combine;
  const std::uint32_t a = switches ? 2 : 0;  // steps of the reduction at the switch
  std::size_t rounds = 0;
  for (const auto& p : table.pieces) rounds = std::max({rounds, p[0].size(), p[1].size()});
  std::uint32_t last = 0;
  for (std::size_t i = 0; i < rounds; ++i) {
    const auto s0 = static_cast<std::uint32_t>(i);
    for (std::uint32_t k = 0; k < locals; ++k)
      for (unsigned t = 0; t < 2; ++t) {
        if (i >= table.pieces[k][t].size()) continue;
        const sched::ChunkId c = table.pieces[k][t][i];
        const Bytes size = table.chunks[c].size;
        const HostLevels& l = trees[t];
        const auto head = [&](sched::Rank host) { return grid.rank(host, k); };
        // The switch of each host reduces the chunk from all its GPUs and hands it to the head.
        if (switches)
          for (sched::Rank h = 0; h < hosts; ++h) {
            const sched::Rank sw = n + h;
            for (sched::Rank w = 0; w < locals; ++w)
              b.send(grid.rank(h, w), c, sw, table.slot(k, t, size, w), Combine::Copy, s0 + 1);
            for (sched::Rank w = 0; w < locals; ++w)
              b.send(sw, table.slot(k, t, size, w), sw, c, w == 0 ? Combine::Copy : Combine::Reduce, s0 + 1);
            b.send(sw, head(h), c, Combine::Copy, s0 + 2);
          }
        // Up the tree of hosts: a host's first child reduces into the head's chunk, the second
        // into its tree scratch chunk, added when it arrives.
        const sched::ChunkId scratch = table.tree_scratch + c;
        for (sched::Rank h : l.up) {
          const TreeNode& node = l.tree.nodes[h];
          const std::uint32_t d = l.depth[h];
          if (node.child_count() == 2)
            b.send(head(h), scratch, head(h), c, Combine::Reduce, s0 + a + l.height - d);
          if (node.parent == kNoRank) continue;
          const bool second_child = l.tree.nodes[node.parent].children[1] == h;
          b.send(head(h), c, head(node.parent), second_child ? scratch : c,
                 second_child ? Combine::Copy : Combine::Reduce, s0 + a + l.height - d + 1);
        }
        // Down from the root, then each head multicasts through its switch.
        for (sched::Rank h : l.down) {
          const std::uint32_t done = s0 + a + l.height + l.depth[h];  // the step its head holds the sum
          for (sched::Rank child : l.tree.nodes[h].children)
            if (child != kNoRank) b.send(head(h), c, head(child), c, Combine::Copy, done + 1);
          if (!switches) {
            last = std::max(last, done);
            continue;
          }
          const sched::Rank sw = n + h;
          b.send(head(h), sw, c, Combine::Copy, done + 1);
          for (sched::Rank w = 0; w < locals; ++w) b.send(sw, grid.rank(h, w), c, Combine::Copy, done + 2);
          last = std::max(last, done + 2);
        }
      }
  }
  // Phases do not overlap, so the middle one names what the pipeline mixes: the first chunk's
  // reduction at the switches, then the tree (one host: the switch's reduce + multicast), then the
  // last chunk's multicast.
  const std::uint32_t height = std::max(trees[0].height, trees[1].height);
  const std::uint32_t multicast = switches ? 2 : 0;
  if (switches) b.add_phase("reduce at the switch", 1, a);
  if (last - multicast >= a + 1)
    b.add_phase(height > 0 ? "tree between hosts" : "reduce + multicast", a + 1, last - multicast);
  if (switches) b.add_phase("multicast", last - 1, last);
  return std::move(b).build("nvls-tree");
}

}  // namespace collsim::algo
