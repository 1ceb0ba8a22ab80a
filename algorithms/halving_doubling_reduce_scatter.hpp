// Recursive-halving reduce-scatter: the first half of Rabenseifner's all-reduce on its own
// (Thakur, Rabenseifner & Gropp 2005, IJHPCA 19(1), reduce-scatter for commutative operations;
// MPICH's MPIR_Reduce_scatter_intra_recursive_halving).
#pragma once

#include "algorithms/registry.hpp"

namespace collsim::algo {

/// The input of S bytes is cut into N parts (split_even), one chunk each; rank p must end with part p
/// summed over all ranks. p' = largest power of two <= N, r = N - p', L = log2 p'.
/// N a power of two: L steps of recursive halving (distance N/2 first; each rank keeps the half of
/// its range that holds its own part and sends the other half, which the partner adds in); rank p
/// ends with part p. Steps: log2 N. Bytes sent by rank p: S - |part p|, (N-1)/N·S when N divides S.
/// Otherwise the fold, adapted so every rank still ends with its own part (as MPICH does):
/// step 1: for i < r, rank 2i adds its whole input into rank 2i+1 and sits out; the p' core ranks run
/// recursive halving over p' blocks, where core rank j < r (rank 2j+1) owns parts 2j and 2j+1 and
/// core rank j >= r owns part j + r; last step: rank 2i+1 copies the reduced part 2i to rank 2i.
/// Steps: L + 2. Bytes sent: S by rank 2i (the busiest), S - |part 2i+1| by rank 2i+1, S - |part q|
/// by the other ranks q. N = 1 gives an empty schedule.
sched::Schedule build_halving_doubling_reduce_scatter(const Request& request);

}  // namespace collsim::algo
