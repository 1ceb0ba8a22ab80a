#include "algorithms/pat_allgather.hpp"

#include <algorithm>

#include "sim/schedule/builder.hpp"

namespace collsim::algo {

sched::Schedule build_pat_allgather(const Request& request) {
  const sched::Rank n = request.nranks;
  sched::ScheduleBuilder b(schedule_header(request, sched::Collective::AllGather), split_parts(request, n));
  // Each step's parts leave after the step before has arrived, as NCCL's PAT walks its steps in
  // order (and as the closed form K·α + (N-1)·P/B assumes).
  b.order_steps_per_rank();
  std::uint32_t step = 1;
  for (sched::Rank d = 1; d < n; d *= 2, ++step) {
    const sched::Rank count = std::min(d, n - d);
    for (sched::Rank r = 0; r < n; ++r)
      for (sched::Rank i = 0; i < count; ++i) {
        const sched::ChunkId part = (r + i) % n;
        b.send(r, part, (r + n - d) % n, part, sched::Combine::Copy, step);
      }
  }
  if (step > 1) b.add_phase("all-gather", 1, step - 1);
  return std::move(b).build("pat");
}

}  // namespace collsim::algo
