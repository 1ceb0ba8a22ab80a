#include "algorithms/direct_alltoall.hpp"

#include "algorithms/chunk_tables.hpp"
#include "sim/schedule/builder.hpp"

namespace collsim::algo {

sched::Schedule build_direct_alltoall(const Request& request) {
  const sched::Rank n = request.nranks;
  sched::ScheduleBuilder b(schedule_header(request, sched::Collective::AllToAll), alltoall_chunks(n, request.size, request.element_size));
  for (sched::Rank r = 0; r < n; ++r)
    b.send(r, alltoall_data_chunk(r), r, alltoall_output_chunk(n, r), sched::Combine::Copy, 1);
  // Distance-major order: in each round every rank sends to one peer and receives from one.
  for (sched::Rank d = 1; d < n; ++d)
    for (sched::Rank r = 0; r < n; ++r) {
      const sched::Rank peer = (r + d) % n;
      b.send(r, alltoall_data_chunk(peer), peer, alltoall_output_chunk(n, r), sched::Combine::Copy, 1);
    }
  return std::move(b).build("direct");
}

}  // namespace collsim::algo
