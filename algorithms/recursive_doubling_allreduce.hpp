// Recursive-doubling all-reduce for short messages (Thakur, Rabenseifner & Gropp 2005,
// "Optimization of Collective Communication Operations in MPICH", IJHPCA 19(1);
// MPICH's MPIR_Allreduce_intra_recursive_doubling), with the paper's fold for N not a power of two.
#pragma once

#include "algorithms/registry.hpp"

namespace collsim::algo {

/// The buffer of S bytes is one chunk; p' = largest power of two <= N, r = N - p', L = log2 p'.
/// If r > 0, step 1 folds: for i < r, rank 2i adds its buffer into rank 2i+1 and sits out. In each
/// of the L core steps (distance 1, 2, ..., p'/2) every core rank sends its whole buffer to its
/// partner at that distance; the partner receives it into a scratch chunk and adds it into its
/// buffer by a local op (src == dst). The scratch chunk is what makes the exchange simultaneous:
/// both partners send the value they held before the step. If r > 0, a last step copies the result
/// from rank 2i+1 back to rank 2i.
/// Steps: log2 N for N a power of two, L + 2 otherwise; a local reduce has the step of the transfer
/// whose data it consumes (it costs no network time, so it adds no step).
/// Bytes sent per rank: L·S for a core rank (log2 N · S for N a power of two); with a fold, rank 2i
/// sends S and rank 2i+1 sends (L+1)·S. N = 1 gives an empty schedule.
sched::Schedule build_recursive_doubling_allreduce(const Request& request);

}  // namespace collsim::algo
