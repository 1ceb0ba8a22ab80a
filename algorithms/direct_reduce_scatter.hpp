// Direct (one-shot) reduce-scatter: every rank sends each part straight to its owner. It is
// MPICH's pairwise-exchange reduce-scatter (Thakur, Rabenseifner & Gropp, "Optimization of
// Collective Communication Operations in MPICH", IJHPCA 2005) with its N-1 exchanges posted at
// once, and the data movement of the first half of TensorRT-LLM's two-shot all-reduce
// (cpp/tensorrt_llm/kernels/customAllReduceKernels.cu, where each rank pulls its slice instead).
#pragma once

#include "algorithms/registry.hpp"
#include "sim/schedule/builder.hpp"

namespace collsim::algo {

/// The chunk table of a direct reduce-scatter: split_parts(request, N) data parts (chunk q = part
/// q), then 2(N-1) scratch receive slots, one per distance d = 1..N-1 and part size (the first
/// parts are one element, or byte, longer), shared by all ranks.
std::vector<sched::Chunk> direct_reduce_scatter_chunks(const Request& request);

/// Adds the ops of a direct reduce-scatter to `b` (whose chunk table is
/// direct_reduce_scatter_chunks(request)), all in step `step`: for distance d = 1..N-1, rank r sends
/// part q = (r+d) mod N to rank q, into q's scratch slot for distance d, and q adds it into its own
/// copy with a local op. The N-1 transfers into a rank therefore overlap (they would wait for each
/// other if they reduced into one chunk), and the additions cost no network time.
void add_direct_reduce_scatter(sched::ScheduleBuilder& b, sched::Rank nranks, std::uint32_t step);

/// One step (none for N = 1): add_direct_reduce_scatter in step 1. Rank r sends every part but its
/// own, S - |part r| bytes, so the busiest rank sends S - floor(S/N) = ceil((N-1)/N · S) bytes
/// ((N-1)/N · S when N divides S).
sched::Schedule build_direct_reduce_scatter(const Request& request);

}  // namespace collsim::algo
