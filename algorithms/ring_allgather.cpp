#include "algorithms/ring_allgather.hpp"

#include "algorithms/ring_stream.hpp"
#include "sim/schedule/builder.hpp"

namespace collsim::algo {

sched::Schedule build_ring_allgather(const Request& request) {
  const sched::Rank n = request.nranks;
  sched::ScheduleBuilder b(schedule_header(request, sched::Collective::AllGather), split_parts(request, n));
  // (r + 1 + n - s) mod n is (r - s + 1) mod n without negative intermediates (s < n).
  for (std::uint32_t s = 1; s < n; ++s)
    for (sched::Rank r = 0; r < n; ++r) b.send(r, (r + 1) % n, (r + 1 + n - s) % n, sched::Combine::Copy, s);
  return std::move(b).build("ring");
}

std::unique_ptr<sched::OpStream> stream_ring_allgather(const Request& request) {
  return make_ring_stream(request, sched::Collective::AllGather);
}

}  // namespace collsim::algo
