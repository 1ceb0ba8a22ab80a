// PAT reduce-scatter (NCCL's Parallel Aggregated Trees: src/include/collectives.h PatRSAlgorithm):
// the PAT all-gather's exchange run backwards (pat_allgather.hpp), so each part's sum flows up the
// binomial tree down which the all-gather spreads it.
#pragma once

#include "algorithms/registry.hpp"

namespace collsim::algo {

/// The input of S bytes is cut into N parts (split_even), one chunk each; rank p ends with the sum
/// of part p. The all-gather's steps in reverse order: in step k = 1..K (K = ceil(log2 N)), with
/// d = 2^(K-k) and c = min(d, N - d), rank s sends its partial sums of parts s+d, .., s+d+c-1
/// (mod N) to rank s + d (mod N), which adds them into its own. Steps: K. Every rank sends N-1
/// parts, (N-1)·S/N bytes when N divides S. Steps wait as the all-gather's do. N = 1: no op.
sched::Schedule build_pat_reduce_scatter(const Request& request);

}  // namespace collsim::algo
