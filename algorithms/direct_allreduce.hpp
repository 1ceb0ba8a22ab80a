// Direct (two-shot) all-reduce: a direct reduce-scatter, then a direct all-gather (the two-shot
// all-reduce of TensorRT-LLM, cpp/tensorrt_llm/kernels/customAllReduceKernels.cu, and of vLLM's
// custom all-reduce, there with each rank pulling from its peers' buffers).
#pragma once

#include "algorithms/registry.hpp"

namespace collsim::algo {

/// The buffer of S bytes is cut into N parts (split_even). Step 1: add_direct_reduce_scatter, so
/// rank q holds the sum of part q (its N-1 incoming reduces serialise, see there). Step 2:
/// add_direct_allgather, so every rank receives every sum. 2 steps (none for N = 1); rank r sends
/// S - |part r| + (N-1) · |part r| bytes, so the busiest rank sends S + (N-2) · ceil(S/N) bytes
/// (2(N-1)/N · S when N divides S).
sched::Schedule build_direct_allreduce(const Request& request);

}  // namespace collsim::algo
