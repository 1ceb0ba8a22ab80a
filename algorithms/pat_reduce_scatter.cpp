#include "algorithms/pat_reduce_scatter.hpp"

#include <algorithm>
#include <vector>

#include "sim/schedule/builder.hpp"

namespace collsim::algo {

sched::Schedule build_pat_reduce_scatter(const Request& request) {
  const sched::Rank n = request.nranks;
  sched::ScheduleBuilder b(schedule_header(request, sched::Collective::ReduceScatter), split_parts(request, n));
  // Each step's parts leave after the step before has arrived, as NCCL's PAT walks its steps in
  // order (and as the closed form K·α + (N-1)·P/B assumes).
  b.order_steps_per_rank();
  std::vector<sched::Rank> distances;  // the all-gather's, to run backwards
  for (sched::Rank d = 1; d < n; d *= 2) distances.push_back(d);
  std::uint32_t step = 1;
  for (auto it = distances.rbegin(); it != distances.rend(); ++it, ++step) {
    const sched::Rank d = *it;
    const sched::Rank count = std::min(d, n - d);
    for (sched::Rank s = 0; s < n; ++s)
      for (sched::Rank i = 0; i < count; ++i) {
        const sched::ChunkId part = (s + d + i) % n;
        b.send(s, part, (s + d) % n, part, sched::Combine::Reduce, step);
      }
  }
  if (step > 1) b.add_phase("reduce-scatter", 1, step - 1);
  return std::move(b).build("pat");
}

}  // namespace collsim::algo
