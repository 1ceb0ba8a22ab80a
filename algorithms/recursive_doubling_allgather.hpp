// Recursive-doubling all-gather (Thakur, Rabenseifner & Gropp 2005, "Optimization of Collective
// Communication Operations in MPICH", IJHPCA 19(1); MPICH's
// MPIR_Allgather_intra_recursive_doubling). For N not a power of two it uses the fold that paper
// gives for all-reduce, adapted to all-gather (MPICH instead adds extra steps inside the doubling).
#pragma once

#include "algorithms/registry.hpp"

namespace collsim::algo {

/// The output of S bytes is cut into N parts (split_even), one chunk each; rank p starts with part p.
/// p' = largest power of two <= N, r = N - p', L = log2 p'.
/// N a power of two: in step k = 1..L rank p sends the 2^(k-1) parts it holds (the aligned group
/// around p) to rank p XOR 2^(k-1), which copies them. Steps: log2 N. Bytes sent per rank:
/// (N-1)/N·S when N divides S (2^(k-1)·S/N in step k).
/// Otherwise the fold, adapted to all-gather: step 1: for i < r, rank 2i copies its part to rank
/// 2i+1 and sits out; the p' core ranks run recursive doubling over p' blocks, where core rank j < r
/// (rank 2j+1) starts with parts 2j and 2j+1 and core rank j >= r with part j + r; last step: rank
/// 2i+1 copies every part but 2i to rank 2i. Steps: L + 2. With b = S/N (N dividing S), core rank j
/// sends b·(sum over k = 1..L of the parts in its group of 2^(k-1) blocks); the busiest is rank 1
/// (core rank 0, whose groups hold min(2^(k-1), r) double blocks), which sends
/// b·(p'-1 + sum_{k=1..L} min(2^(k-1), r)) in the core and (N-1)·b in the unfold.
/// N = 1 gives an empty schedule.
sched::Schedule build_recursive_doubling_allgather(const Request& request);

}  // namespace collsim::algo
