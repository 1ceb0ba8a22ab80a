// Halving-doubling all-reduce, reduce-scatter and all-gather on demand (sched::OpStream) for N a
// power of two: the ops of build_halving_doubling_allreduce (and of its halves) generated as the
// engine asks for them, O(N) memory instead of the materialised schedule's O(N^2) ops with O(N)
// dependencies each (issue 18 item 3).
#pragma once

#include <memory>

#include "algorithms/registry.hpp"

namespace collsim::algo {

/// The stream of build_halving_doubling_allreduce(request) when N is a power of two (>= 1); null
/// otherwise (the fold of other N stays materialised). Op (step s, rank j, chunk c) is j's send of
/// chunk c in step s, steps 1..L halving and L+1..2L doubling (L = log2 N). "Every op of a step
/// waits for everything its rank received in the step before" (ScheduleBuilder::order_steps_per_rank)
/// is one join per (rank, step) (sched::StreamOp::join) instead of N/2 dependencies per op; the
/// other dependencies are the builder's data-flow ones, derived per chunk from where the hypercube
/// moves it (rank x sends chunk c in halving step L - b and receives it back in doubling step b + 1,
/// b the highest bit of x XOR c). Successors come in the builder's op order, so every op starts
/// when and in the order the materialised one does (tests/unit/halving_doubling_stream_test.cpp).
std::unique_ptr<sched::OpStream> stream_halving_doubling_allreduce(const Request& request);

/// The same for build_halving_doubling_reduce_scatter (the halving steps alone, 1..L, N (N - 1)
/// sends), build_halving_doubling_allgather and build_recursive_doubling_allgather (the doubling
/// steps alone, called 1..L; step 1 sends each rank's own part and waits for nothing): a power of
/// two of ranks, null otherwise. The materialised all-gather's step order gives each send of step
/// m every receive of step m - 1 as a dependency, 2^(m-1) x 2^(m-2) a rank: O(N^3) in all (11.6 GB
/// at 2048 ranks), where the stream's joins hold O(N) at once.
std::unique_ptr<sched::OpStream> stream_halving_doubling_reduce_scatter(const Request& request);
std::unique_ptr<sched::OpStream> stream_halving_doubling_allgather(const Request& request);
std::unique_ptr<sched::OpStream> stream_recursive_doubling_allgather(const Request& request);

}  // namespace collsim::algo
