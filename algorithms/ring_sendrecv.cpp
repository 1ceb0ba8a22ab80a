#include "algorithms/ring_sendrecv.hpp"

#include <vector>

#include "sim/schedule/builder.hpp"

namespace collsim::algo {

sched::Schedule build_ring_sendrecv(const Request& request) {
  const std::vector<sched::Chunk> chunks{sched::Chunk{0, request.size, sched::Buffer::Data, 0},
                                         sched::Chunk{0, request.size, sched::Buffer::Output, 0}};
  sched::ScheduleBuilder b(schedule_header(request, sched::Collective::SendRecv), chunks);
  for (sched::Rank r = 0; r < request.nranks; ++r)
    b.send(r, 0, (r + 1) % request.nranks, 1, sched::Combine::Copy, 1);
  return std::move(b).build("ring");
}

}  // namespace collsim::algo
