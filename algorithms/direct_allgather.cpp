#include "algorithms/direct_allgather.hpp"

namespace collsim::algo {

void add_direct_allgather(sched::ScheduleBuilder& b, sched::Rank nranks, std::uint32_t step) {
  // Distance-major order, as in add_direct_reduce_scatter.
  for (sched::Rank d = 1; d < nranks; ++d)
    for (sched::Rank r = 0; r < nranks; ++r) b.send(r, (r + d) % nranks, r, sched::Combine::Copy, step);
}

sched::Schedule build_direct_allgather(const Request& request) {
  const sched::Rank n = request.nranks;
  sched::ScheduleBuilder b(schedule_header(request, sched::Collective::AllGather), split_parts(request, n));
  add_direct_allgather(b, n, 1);
  return std::move(b).build("direct");
}

}  // namespace collsim::algo
