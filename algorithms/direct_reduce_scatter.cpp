#include "algorithms/direct_reduce_scatter.hpp"

namespace collsim::algo {

void add_direct_reduce_scatter(sched::ScheduleBuilder& b, sched::Rank nranks, std::uint32_t step) {
  // Distance-major order: in each round every rank sends to one peer and receives from one, the
  // order a NIC-friendly one-shot schedule posts them in.
  for (sched::Rank d = 1; d < nranks; ++d)
    for (sched::Rank r = 0; r < nranks; ++r) {
      const sched::Rank owner = (r + d) % nranks;
      b.send(r, owner, owner, owner, sched::Combine::Reduce, step);
    }
}

sched::Schedule build_direct_reduce_scatter(const Request& request) {
  const sched::Rank n = request.nranks;
  sched::ScheduleBuilder b(sched::Collective::ReduceScatter, n, request.size, sched::split_even(request.size, n));
  add_direct_reduce_scatter(b, n, 1);
  return std::move(b).build("direct");
}

}  // namespace collsim::algo
