#include "algorithms/nvls_tree_allreduce.hpp"

#include <algorithm>
#include <array>
#include <utility>
#include <vector>

#include "algorithms/chunk_tables.hpp"
#include "algorithms/host_grid.hpp"
#include "algorithms/nccl_trees.hpp"
#include "algorithms/nvls_tree_layout.hpp"
#include "algorithms/tree_pipeline.hpp"
#include "sim/schedule/builder.hpp"

namespace collsim::algo {

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
  for (auto& phase : nvls_tree_phases(switches, std::max(trees[0].height, trees[1].height), last))
    b.add_phase(std::move(phase.name), phase.first_step, phase.last_step);
  return std::move(b).build("nvls-tree");
}

}  // namespace collsim::algo
