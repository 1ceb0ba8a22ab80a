#include "train/timeline.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace collsim::train {
namespace {

// The communication stream: collectives run one at a time in the order they are issued.
struct Stream {
  Time free{0};
  Timeline& timeline;

  Time run(sched::Collective c, std::size_t index, std::string name, Bytes bytes, Time ready, Time duration) {
    const Time start = std::max(free, ready);
    free = checked_add(start, duration);
    timeline.collectives.push_back(CollectiveSpan{c, index, std::move(name), bytes, ready, start, free});
    timeline.communication = checked_add(timeline.communication, duration);
    return free;
  }
};

Time compute(Timeline& t, std::string name, Time start, Time duration) {
  const Time end = checked_add(start, duration);
  t.compute.push_back(Span{std::move(name), start, end});
  t.compute_time = checked_add(t.compute_time, duration);
  return end;
}

void finish(Timeline& t, Time compute_end, Time stream_end) {
  t.step = std::max(compute_end, stream_end);
  t.exposed = t.step - t.compute_time;
}

}  // namespace

Timeline ddp_timeline(std::span<const Time> forward, std::span<const Time> backward,
                      std::span<const std::size_t> bucket_layer, std::span<const Bytes> bucket_bytes,
                      std::span<const Time> bucket_time) {
  Timeline t;
  Time now{0};
  for (std::size_t l = 0; l < forward.size(); ++l) now = compute(t, fmt::format("forward layer{}", l), now, forward[l]);
  std::vector<Time> backward_end(backward.size());
  for (std::size_t l = backward.size(); l-- > 0;) {
    now = compute(t, fmt::format("backward layer{}", l), now, backward[l]);
    backward_end[l] = now;
  }
  Stream stream{Time{0}, t};
  for (std::size_t b = 0; b < bucket_layer.size(); ++b)
    stream.run(sched::Collective::AllReduce, b, fmt::format("allreduce bucket{}", b), bucket_bytes[b],
               backward_end[bucket_layer[b]], bucket_time[b]);
  finish(t, now, stream.free);
  return t;
}

Timeline fsdp_timeline(std::span<const Time> forward, std::span<const Time> backward,
                       std::span<const UnitCollectives> units) {
  Timeline t;
  Stream stream{Time{0}, t};
  const std::size_t n = units.size();
  const auto gather = [&](std::size_t u, const char* pass, Time ready) {
    return stream.run(sched::Collective::AllGather, u, fmt::format("allgather unit{} ({})", u, pass), units[u].bytes,
                      ready, units[u].allgather);
  };
  if (n == 0) return t;
  // Forward: AG(u+1) is issued as unit u's forward starts.
  Time gathered = gather(0, "forward", Time{0});
  Time now{0};
  for (std::size_t u = 0; u < n; ++u) {
    const Time start = std::max(now, gathered);
    if (u + 1 < n) gathered = gather(u + 1, "forward", start);
    now = compute(t, fmt::format("forward unit{}", u), start, forward[u]);
  }
  // Backward, last unit first: AG(u-1) is issued as unit u's backward starts, RS(u) once it ends.
  gathered = gather(n - 1, "backward", now);
  for (std::size_t u = n; u-- > 0;) {
    const Time start = std::max(now, gathered);
    if (u > 0) gathered = gather(u - 1, "backward", start);
    now = compute(t, fmt::format("backward unit{}", u), start, backward[u]);
    stream.run(sched::Collective::ReduceScatter, u, fmt::format("reducescatter unit{}", u), units[u].bytes, now,
               units[u].reducescatter);
  }
  finish(t, now, stream.free);
  return t;
}

}  // namespace collsim::train
