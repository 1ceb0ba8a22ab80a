#include "algorithms/direct_allreduce.hpp"

#include "algorithms/direct_allgather.hpp"
#include "algorithms/direct_reduce_scatter.hpp"

namespace collsim::algo {

sched::Schedule build_direct_allreduce(const Request& request) {
  const sched::Rank n = request.nranks;
  sched::ScheduleBuilder b(schedule_header(request, sched::Collective::AllReduce), direct_reduce_scatter_chunks(request));
  add_direct_reduce_scatter(b, n, 1);
  add_direct_allgather(b, n, 2);
  if (n > 1) {
    b.add_phase("reduce-scatter", 1, 1);
    b.add_phase("all-gather", 2, 2);
  }
  return std::move(b).build("direct");
}

}  // namespace collsim::algo
