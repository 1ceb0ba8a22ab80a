#include "algorithms/collnet_allreduce.hpp"

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include "algorithms/chunk_tables.hpp"
#include "algorithms/host_grid.hpp"
#include "sim/schedule/builder.hpp"

namespace collsim::algo {
namespace {

// The chunk table: the pipeline chunks of every part, part after part; then, for each part and
// chunk size, a scratch chunk per local sender at the head and one per host at the switch (parts
// run side by side; chunks of one part reuse them one after another, as NCCL's buffers are reused
// step after step). Scratch chunks get offsets of their own so that none alias in a replay.
struct CollNetChunks {
  std::vector<sched::Chunk> chunks;
  std::vector<std::vector<sched::ChunkId>> pieces;                    // by part: its pipeline chunks
  std::map<std::pair<std::uint32_t, Bytes>, sched::ChunkId> at_head;  // (part, size) -> first of L
  std::map<std::pair<std::uint32_t, Bytes>, sched::ChunkId> at_switch;  // (part, size) -> first of K
};

CollNetChunks collnet_chunks(const Request& request, const HostGrid& grid) {
  CollNetChunks t;
  const sched::Rank locals = grid.ranks_per_host;
  const auto parts = split_parts(request, locals);
  t.pieces.resize(locals);
  for (std::uint32_t k = 0; k < locals; ++k)
    for (const auto& c : pipeline_chunks(parts[k].offset, parts[k].size, request.chunk_size, request.element_size)) {
      t.pieces[k].push_back(static_cast<sched::ChunkId>(t.chunks.size()));
      t.chunks.push_back(c);
    }
  Bytes offset = 0;
  const auto add_slots = [&](auto& slots, std::uint32_t part, Bytes size, sched::Rank count) {
    if (count == 0 || !slots.try_emplace(std::pair{part, size}, static_cast<sched::ChunkId>(t.chunks.size())).second)
      return;
    for (sched::Rank i = 0; i < count; ++i, offset += size)
      t.chunks.push_back(sched::Chunk{offset, size, sched::Buffer::Scratch, 0});
  };
  for (std::uint32_t k = 0; k < locals; ++k)
    for (sched::ChunkId piece : t.pieces[k]) {
      const Bytes size = t.chunks[piece].size;
      add_slots(t.at_head, k, size, locals > 1 ? locals : 0);
      add_slots(t.at_switch, k, size, grid.hosts > 1 ? grid.hosts : 0);
    }
  return t;
}

}  // namespace

sched::Schedule build_collnet_allreduce(const Request& request) {
  const sched::Rank n = request.nranks;
  const HostGrid grid = host_grid_or_one_host(request, "collnet");
  const sched::Rank hosts = grid.hosts;
  const sched::Rank locals = grid.ranks_per_host;
  const bool network = hosts > 1;
  const CollNetChunks table = collnet_chunks(request, grid);
  sched::ScheduleBuilder b(schedule_header(request, sched::Collective::AllReduce, network ? 1 : 0), table.chunks);
  if (n == 1) return std::move(b).build("collnet");  // the buffer is its own sum

  using sched::Combine;
  const sched::Rank sharp = n;
  // The steps, after i, of each stage; a stage that has nothing to do takes no step.
  const std::uint32_t scatter = locals > 1 ? 1 : 0;
  const std::uint32_t up = scatter + (network ? 1 : 0);
  const std::uint32_t down = up + (network ? 1 : 0);
  const std::uint32_t gather = down + (locals > 1 ? 1 : 0);
  std::size_t rounds = 0;
  for (const auto& p : table.pieces) rounds = std::max(rounds, p.size());
  for (std::size_t i = 0; i < rounds; ++i) {
    const auto s0 = static_cast<std::uint32_t>(i);
    for (std::uint32_t k = 0; k < locals; ++k) {
      if (i >= table.pieces[k].size()) continue;
      const sched::ChunkId c = table.pieces[k][i];
      const Bytes size = table.chunks[c].size;
      for (sched::Rank h = 0; h < hosts; ++h) {
        const sched::Rank head = grid.rank(h, k);
        if (locals > 1) {
          const sched::ChunkId slots = table.at_head.at({k, size});
          for (sched::Rank w = 0; w < locals; ++w)
            if (w != k) b.send(grid.rank(h, w), c, head, slots + w, Combine::Copy, s0 + scatter);
          for (sched::Rank w = 0; w < locals; ++w)
            if (w != k) b.send(head, slots + w, head, c, Combine::Reduce, s0 + scatter);
        }
        if (network) b.send(head, c, sharp, table.at_switch.at({k, size}) + h, Combine::Copy, s0 + up);
      }
      if (network) {
        const sched::ChunkId slots = table.at_switch.at({k, size});
        for (sched::Rank h = 0; h < hosts; ++h)
          b.send(sharp, slots + h, sharp, c, h == 0 ? Combine::Copy : Combine::Reduce, s0 + up);
        for (sched::Rank h = 0; h < hosts; ++h) b.send(sharp, grid.rank(h, k), c, Combine::Copy, s0 + down);
      }
      for (sched::Rank h = 0; h < hosts; ++h)
        for (sched::Rank w = 0; w < locals; ++w)
          if (w != k) b.send(grid.rank(h, k), grid.rank(h, w), c, Combine::Copy, s0 + gather);
    }
  }
  // Phases do not overlap: the first chunk's reduce-scatter, the network's part (where the pipeline
  // mixes the stages), the last chunk's all-gather.
  const auto last = static_cast<std::uint32_t>(rounds) - 1 + gather;
  const std::uint32_t middle_end = locals > 1 ? last - 1 : last;
  if (locals > 1) b.add_phase("reduce-scatter to the heads", 1, network ? 1 : last - 1);
  if (network) b.add_phase("reduce at the switch", scatter + 1, middle_end);
  if (locals > 1) b.add_phase("all-gather from the heads", last, last);
  return std::move(b).build("collnet");
}

}  // namespace collsim::algo
