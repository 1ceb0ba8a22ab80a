#include "algorithms/direct_reduce_scatter.hpp"

namespace collsim::algo {

namespace {
// Scratch slot for distance d (1-based) and a part of the longer (0) or shorter (1) size.
sched::ChunkId scratch_slot(sched::Rank nranks, sched::Rank d, bool longer) {
  return nranks + 2 * (d - 1) + (longer ? 0 : 1);
}
}  // namespace

std::vector<sched::Chunk> direct_reduce_scatter_chunks(const Request& request) {
  const sched::Rank nranks = request.nranks;
  auto chunks = split_parts(request, nranks);
  const Bytes shorter = chunks.back().size;
  const Bytes longer = chunks.front().size;
  Bytes offset = 0;
  for (sched::Rank d = 1; d < nranks; ++d)
    for (const Bytes len : {longer, shorter}) {
      chunks.push_back(sched::Chunk{offset, len, sched::Buffer::Scratch, 0});
      offset += len;
    }
  return chunks;
}

void add_direct_reduce_scatter(sched::ScheduleBuilder& b, sched::Rank nranks, std::uint32_t step) {
  // Distance-major order: in each round every rank sends to one peer and receives from one, the
  // order a NIC-friendly one-shot schedule posts them in.
  for (sched::Rank d = 1; d < nranks; ++d)
    for (sched::Rank r = 0; r < nranks; ++r) {
      const sched::Rank owner = (r + d) % nranks;
      const bool longer = b.chunk_size_of(owner) == b.chunk_size_of(0);  // part 0 is never the shorter
      const sched::ChunkId slot = scratch_slot(nranks, d, longer);
      b.send(r, owner, owner, slot, sched::Combine::Copy, step);
      b.send(owner, slot, owner, owner, sched::Combine::Reduce, step);
    }
}

sched::Schedule build_direct_reduce_scatter(const Request& request) {
  const sched::Rank n = request.nranks;
  sched::ScheduleBuilder b(schedule_header(request, sched::Collective::ReduceScatter), direct_reduce_scatter_chunks(request));
  add_direct_reduce_scatter(b, n, 1);
  return std::move(b).build("direct");
}

}  // namespace collsim::algo
