#include "algorithms/ring_chain.hpp"

#include "algorithms/chunk_tables.hpp"
#include "sim/schedule/builder.hpp"

namespace collsim::algo {

sched::Schedule build_ring_chain(const Request& request, sched::Collective collective, sched::Rank first,
                                 sched::Combine combine) {
  const sched::Rank n = request.nranks;
  auto chunks = pipeline_chunks(0, request.size, request.chunk_size, request.element_size);
  const auto nchunks = static_cast<sched::ChunkId>(chunks.size());
  sched::ScheduleBuilder b(schedule_header(request, collective), std::move(chunks));
  const auto chain = [&](sched::Rank k) { return static_cast<sched::Rank>((std::uint64_t{first} + k) % n); };
  // Chunk-major order, so that a rank's receive of chunk c is emitted before its forward of c.
  for (sched::ChunkId c = 0; c < nchunks; ++c)
    for (sched::Rank k = 0; k + 1 < n; ++k) b.send(chain(k), chain(k + 1), c, combine, k + c + 1);
  return std::move(b).build("ring");
}

}  // namespace collsim::algo
