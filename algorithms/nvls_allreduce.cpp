#include "algorithms/nvls_allreduce.hpp"

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include "algorithms/chunk_tables.hpp"
#include "sim/schedule/builder.hpp"

namespace collsim::algo {
namespace {

// The chunk table: the pipeline chunks of every part, part after part; then, for each part and
// each chunk size it has (all but its last chunk share one), one scratch chunk per sender, where
// the switch receives that sender's chunk. Parts have their own scratch so that the loads of
// different parts run side by side (two receives into one chunk would be ordered one after the
// other by the builder's write-after-write rule); chunks of one part reuse it one after another,
// as NCCL's NVLS buffer is reused step after step.
struct NvlsChunks {
  std::vector<sched::Chunk> chunks;
  std::vector<std::vector<sched::ChunkId>> pieces;           // by part: its pipeline chunks
  std::map<std::pair<std::uint32_t, Bytes>, sched::ChunkId> slots;  // (part, size) -> first of N

  [[nodiscard]] sched::ChunkId slot(std::uint32_t part, Bytes size, sched::Rank sender) const {
    return slots.at({part, size}) + sender;
  }
};

NvlsChunks nvls_chunks(const Request& request) {
  const sched::Rank n = request.nranks;
  NvlsChunks t;
  const auto parts = split_parts(request, n);
  t.pieces.resize(n);
  for (std::uint32_t k = 0; k < n; ++k)
    for (const auto& c : pipeline_chunks(parts[k].offset, parts[k].size, request.chunk_size, request.element_size)) {
      t.pieces[k].push_back(static_cast<sched::ChunkId>(t.chunks.size()));
      t.chunks.push_back(c);
    }
  Bytes offset = 0;
  for (std::uint32_t k = 0; k < n; ++k)
    for (sched::ChunkId piece : t.pieces[k]) {
      const Bytes size = t.chunks[piece].size;
      if (!t.slots.try_emplace({k, size}, static_cast<sched::ChunkId>(t.chunks.size())).second) continue;
      for (sched::Rank w = 0; w < n; ++w, offset += size)
        t.chunks.push_back(sched::Chunk{offset, size, sched::Buffer::Scratch, 0});
    }
  return t;
}

}  // namespace

sched::Schedule build_nvls_allreduce(const Request& request) {
  const sched::Rank n = request.nranks;
  if (n == 1) {  // the buffer is its own sum: no op, and no switch to place
    sched::ScheduleBuilder b(schedule_header(request, sched::Collective::AllReduce),
                             pipeline_chunks(0, request.size, request.chunk_size, request.element_size));
    return std::move(b).build("nvls");
  }
  const NvlsChunks table = nvls_chunks(request);
  sched::ScheduleBuilder b(schedule_header(request, sched::Collective::AllReduce, 1), table.chunks);
  const sched::Rank nvswitch = n;
  std::size_t rounds = 0;
  for (const auto& p : table.pieces) rounds = std::max(rounds, p.size());
  using sched::Combine;
  for (std::size_t c = 0; c < rounds; ++c) {
    const auto step = static_cast<std::uint32_t>(c);
    for (std::uint32_t k = 0; k < n; ++k) {
      if (c >= table.pieces[k].size()) continue;
      const sched::ChunkId piece = table.pieces[k][c];
      const Bytes size = table.chunks[piece].size;
      for (sched::Rank w = 0; w < n; ++w) b.send(w, piece, nvswitch, table.slot(k, size, w), Combine::Copy, step + 1);
      for (sched::Rank w = 0; w < n; ++w)
        b.send(nvswitch, table.slot(k, size, w), nvswitch, piece, w == 0 ? Combine::Copy : Combine::Reduce, step + 1);
      b.send(nvswitch, k, piece, Combine::Copy, step + 2);
      b.send(k, nvswitch, piece, Combine::Copy, step + 3);
      for (sched::Rank w = 0; w < n; ++w) b.send(nvswitch, w, piece, Combine::Copy, step + 4);
    }
  }
  const auto last = static_cast<std::uint32_t>(rounds);
  b.add_phase("reduce at the switch", 1, 2);
  if (last >= 2) b.add_phase("reduce + multicast", 3, last + 1);
  b.add_phase("multicast", last + 2, last + 3);
  return std::move(b).build("nvls");
}

}  // namespace collsim::algo
