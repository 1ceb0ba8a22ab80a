// Ring all-reduce (Patarasuk & Yuan 2009; the Baidu/Horovod ring; NCCL's ring).
#pragma once

#include <memory>

#include "algorithms/registry.hpp"

namespace collsim::algo {

/// The buffer of S bytes is cut into N chunks (split_even). Reduce-scatter: in step s = 1..N-1,
/// rank r sends chunk (r - s) mod N to rank (r + 1) mod N, which adds it into its own copy, so that
/// after N-1 steps rank r holds the full sum of chunk r. All-gather: in step N-1+s, s = 1..N-1,
/// rank r sends chunk (r - s + 1) mod N to rank r + 1, which overwrites its copy. 2(N-1) steps;
/// every rank sends and receives 2(N-1) chunks, 2(N-1)/N · S bytes when N divides S.
/// N = 1 gives an empty schedule.
sched::Schedule build_ring_allreduce(const Request& request);

/// The same schedule on demand, O(N) memory (make_ring_stream): N = 16,384 runs where
/// build_ring_allreduce stops at ScheduleBuilder::kMaxSlots.
std::unique_ptr<sched::OpStream> stream_ring_allreduce(const Request& request);

}  // namespace collsim::algo
