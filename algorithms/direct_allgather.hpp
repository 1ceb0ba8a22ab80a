// Direct (one-shot) all-gather: every rank sends its part straight to every peer, all at once;
// the data movement of the second half of TensorRT-LLM's two-shot all-reduce
// (cpp/tensorrt_llm/kernels/customAllReduceKernels.cu, where each rank pulls instead) and of
// vLLM's two-stage custom all-reduce.
#pragma once

#include "algorithms/registry.hpp"
#include "sim/schedule/builder.hpp"

namespace collsim::algo {

/// Adds the ops of a direct all-gather over split_even(S, N) parts (chunk q = part q) to `b`, all
/// in step `step`: for distance d = 1..N-1, rank r sends part r to rank (r+d) mod N, which stores
/// it. Precondition: b's chunk table is split_even(S, N) and rank r holds part r by then.
void add_direct_allgather(sched::ScheduleBuilder& b, sched::Rank nranks, std::uint32_t step);

/// One step (none for N = 1): add_direct_allgather in step 1. Rank r sends part r to N-1 peers,
/// (N-1) · |part r| bytes, so the busiest rank sends (N-1) · ceil(S/N) bytes ((N-1)/N · S when N
/// divides S).
sched::Schedule build_direct_allgather(const Request& request);

}  // namespace collsim::algo
