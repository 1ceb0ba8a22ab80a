// The all-gather half of Rabenseifner's all-reduce on its own (Thakur, Rabenseifner & Gropp 2005,
// IJHPCA 19(1)): that half is recursive-doubling all-gather.
#pragma once

#include "algorithms/registry.hpp"

namespace collsim::algo {

/// The same schedule as build_recursive_doubling_allgather (see there: log2 N steps and
/// (N-1)/N·S bytes per rank for N a power of two; the fold otherwise), under the name
/// "halving-doubling", so that the halving-doubling family offers all three collectives.
sched::Schedule build_halving_doubling_allgather(const Request& request);

}  // namespace collsim::algo
