// Direct (one-shot) reduce-scatter: every rank sends each part straight to its owner. It is
// MPICH's pairwise-exchange reduce-scatter (Thakur, Rabenseifner & Gropp, "Optimization of
// Collective Communication Operations in MPICH", IJHPCA 2005) with its N-1 exchanges posted at
// once, and the data movement of the first half of TensorRT-LLM's two-shot all-reduce
// (cpp/tensorrt_llm/kernels/customAllReduceKernels.cu, where each rank pulls its slice instead).
#pragma once

#include "algorithms/registry.hpp"
#include "sim/schedule/builder.hpp"

namespace collsim::algo {

/// Adds the ops of a direct reduce-scatter over split_even(S, N) parts (chunk q = part q) to `b`,
/// all in step `step`: for distance d = 1..N-1, rank r sends part (r+d) mod N to rank (r+d) mod N,
/// which adds it into its own copy. Rank q thus receives N-1 reduces into chunk q, one from every
/// peer, and never sends part q. The builder orders writes to one chunk by data-flow hazards, so
/// those N-1 reduces wait for each other (in the order q-1, q-2, ...): the simulated time of the
/// step is serialised at each receiver. That stands for a receiver that adds one incoming buffer at
/// a time; acceptable for now. Receiving into one scratch slot per peer and adding locally (local
/// ops cost no network time) would let the transfers overlap. Precondition: b's chunk table is
/// split_even(S, N).
void add_direct_reduce_scatter(sched::ScheduleBuilder& b, sched::Rank nranks, std::uint32_t step);

/// One step (none for N = 1): add_direct_reduce_scatter in step 1. Rank r sends every part but its
/// own, S - |part r| bytes, so the busiest rank sends S - floor(S/N) = ceil((N-1)/N · S) bytes
/// ((N-1)/N · S when N divides S). Receivers reduce one peer at a time (see above).
sched::Schedule build_direct_reduce_scatter(const Request& request);

}  // namespace collsim::algo
