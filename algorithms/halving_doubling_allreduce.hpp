// Rabenseifner's all-reduce: recursive-halving reduce-scatter, then recursive-doubling all-gather
// (Thakur, Rabenseifner & Gropp 2005, "Optimization of Collective Communication Operations in
// MPICH", IJHPCA 19(1); MPICH's MPIR_Allreduce_intra_reduce_scatter_allgather).
#pragma once

#include "algorithms/registry.hpp"

namespace collsim::algo {

/// The buffer of S bytes is cut into p' chunks (split_even; p' = largest power of two <= N,
/// r = N - p', L = log2 p'). If r > 0, step 1 folds: for i < r, rank 2i adds its whole buffer into
/// rank 2i+1 and sits out. The p' core ranks then run recursive halving (L steps, distance p'/2
/// first, each rank keeps the half of its range that holds its own chunk and sends the rest, which
/// the partner adds in), after which core rank j holds chunk j reduced; then recursive doubling
/// (L steps, distance 1 first, the held chunks are copied to the partner). If r > 0, a last step
/// copies the whole result from rank 2i+1 back to rank 2i.
/// Steps: 2L, plus 2 when N is not a power of two. Bytes sent per rank, when p' divides S:
/// 2(p'-1)/p'·S for a core rank, which is 2(N-1)/N·S when N is a power of two; the busiest rank of a
/// fold (rank 2i+1) sends S + 2(p'-1)/p'·S, rank 2i sends S (the paper's extra α + nβ on each side).
/// Each halving/doubling message of k chunks is k ops, one per chunk (the IR's unit), so a network
/// model that charges latency per op charges step m of halving p'/2^m latencies.
/// N = 1 gives an empty schedule.
sched::Schedule build_halving_doubling_allreduce(const Request& request);

}  // namespace collsim::algo
