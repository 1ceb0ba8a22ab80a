#include "algorithms/ring_alltoall.hpp"

#include "algorithms/chunk_tables.hpp"
#include "sim/schedule/builder.hpp"

namespace collsim::algo {

namespace {

/// Scratch slot `set` (0 or 1) for a block still `distance` hops (1 .. N-2) from its destination
/// once it is forwarded; its id in a table of 2N all-to-all chunks followed by 2(N-2) scratch chunks.
sched::ChunkId scratch_chunk(sched::Rank n, std::uint32_t set, sched::Rank distance) {
  return 2 * n + set * (n - 2) + (distance - 1);
}

/// alltoall_chunks plus the 2(N-2) scratch chunks of the two transit sets (none for N <= 2).
std::vector<sched::Chunk> ring_alltoall_chunks(sched::Rank n, Bytes size, Bytes element_size) {
  auto chunks = alltoall_chunks(n, size, element_size);
  const Bytes block = chunks.front().size;
  const std::uint32_t scratch = n > 2 ? 2 * (n - 2) : 0;
  for (std::uint32_t i = 0; i < scratch; ++i)
    chunks.push_back(sched::Chunk{i * block, block, sched::Buffer::Scratch, 0});
  return chunks;
}

}  // namespace

sched::Schedule build_ring_alltoall(const Request& request) {
  const sched::Rank n = request.nranks;
  sched::ScheduleBuilder b(schedule_header(request, sched::Collective::AllToAll), ring_alltoall_chunks(n, request.size, request.element_size));
  for (sched::Rank r = 0; r < n; ++r)
    b.send(r, alltoall_data_chunk(r), r, alltoall_output_chunk(n, r), sched::Combine::Copy, 1);
  for (std::uint32_t s = 1; s < n; ++s) {
    for (sched::Rank r = 0; r < n; ++r) {
      const sched::Rank next = (r + 1) % n;
      const sched::Rank origin = (r + n - (s - 1)) % n;  // whose blocks r sends in step s
      // `ahead` is how far the block's destination lies beyond r: 1 .. N-s.
      for (sched::Rank ahead = 1; ahead + s <= n; ++ahead) {
        const sched::ChunkId from =
            s == 1 ? alltoall_data_chunk((r + ahead) % n) : scratch_chunk(n, (s - 1) % 2, ahead);
        const sched::ChunkId to = ahead == 1 ? alltoall_output_chunk(n, origin) : scratch_chunk(n, s % 2, ahead - 1);
        b.send(r, from, next, to, sched::Combine::Copy, s);
      }
    }
  }
  return std::move(b).build("ring");
}

}  // namespace collsim::algo
