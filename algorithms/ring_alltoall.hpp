// Ring all-to-all: personalised all-to-all by store-and-forward round a unidirectional ring
// (Grama, Gupta, Karypis & Kumar, "Introduction to Parallel Computing", 2nd ed., 2003, section
// 4.5, "All-to-All Personalized Communication", Ring).
#pragma once

#include "algorithms/registry.hpp"

namespace collsim::algo {

/// Every rank sends only to its successor r+1 (mod N). With B = floor(S/N) (alltoall_chunks): in
/// step 1 rank r sends its N-1 blocks for the other ranks to r+1; in step s = 2..N-1 it forwards
/// the N-s blocks that it received in step s-1 and that are for ranks beyond it. A block for rank
/// d reaches d after (d - origin) mod N hops and is stored in d's output block of the origin.
/// Blocks in transit wait in scratch chunks keyed by how far they still have to go, in two sets
/// used in alternate steps (double buffering), so a rank's receive in step s only waits for its
/// own forward from the same set in step s-1. Each rank also copies its own block into its output
/// by a local op in step 1.
/// Steps: N-1 (1 for N = 1: the local copy). Every rank sends (N-1) + (N-2) + ... + 1 blocks,
/// N(N-1)/2 · B bytes, (N/2 times the (N-1) · B of a direct exchange: the ring trades bandwidth
/// for neighbour-only traffic, and on a physical ring a direct exchange crosses as many links).
sched::Schedule build_ring_alltoall(const Request& request);

}  // namespace collsim::algo
