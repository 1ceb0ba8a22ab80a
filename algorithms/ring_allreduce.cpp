#include "algorithms/ring_allreduce.hpp"

#include "algorithms/ring_stream.hpp"
#include "sim/schedule/builder.hpp"

namespace collsim::algo {

std::unique_ptr<sched::OpStream> stream_ring_allreduce(const Request& request) {
  return make_ring_stream(request, sched::Collective::AllReduce);
}

sched::Schedule build_ring_allreduce(const Request& request) {
  const sched::Rank n = request.nranks;
  sched::ScheduleBuilder b(schedule_header(request, sched::Collective::AllReduce), split_parts(request, n));
  const auto chunk = [n](std::int64_t c) { return static_cast<sched::ChunkId>(((c % n) + n) % n); };
  for (std::uint32_t s = 1; s < n; ++s)
    for (sched::Rank r = 0; r < n; ++r)
      b.send(r, (r + 1) % n, chunk(std::int64_t{r} - s), sched::Combine::Reduce, s);
  for (std::uint32_t s = 1; s < n; ++s)
    for (sched::Rank r = 0; r < n; ++r)
      b.send(r, (r + 1) % n, chunk(std::int64_t{r} - s + 1), sched::Combine::Copy, n - 1 + s);
  if (n > 1) {
    b.add_phase("reduce-scatter", 1, n - 1);
    b.add_phase("all-gather", n, 2 * (n - 1));
  }
  return std::move(b).build("ring");
}

}  // namespace collsim::algo
