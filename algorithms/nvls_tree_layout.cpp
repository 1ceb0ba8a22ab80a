#include "algorithms/nvls_tree_layout.hpp"

#include <algorithm>
#include <utility>

#include "algorithms/chunk_tables.hpp"
#include "algorithms/tree_pipeline.hpp"

namespace collsim::algo {

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

std::vector<sched::Phase> nvls_tree_phases(bool switches, std::uint32_t height, std::uint32_t last) {
  const std::uint32_t a = switches ? 2 : 0;  // the reduction at the switch, and the multicast
  std::vector<sched::Phase> phases;
  if (switches) phases.push_back({"reduce at the switch", 1, a});
  if (last - a >= a + 1) phases.push_back({height > 0 ? "tree between hosts" : "reduce + multicast", a + 1, last - a});
  if (switches) phases.push_back({"multicast", last - 1, last});
  return phases;
}

}  // namespace collsim::algo
