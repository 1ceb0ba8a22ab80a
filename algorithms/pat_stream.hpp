// PAT all-gather and reduce-scatter on demand (sched::OpStream): the ops of build_pat_allgather
// and build_pat_reduce_scatter generated as the engine asks for them. The materialised schedules
// give each send of a step every receive of its rank's step before as a dependency (the builder's
// order_steps_per_rank): d x d/2 edges a rank in the step of distance d, O(N^3) in all (1.5 GB at
// 1024 ranks); here that is one join per (rank, step), and the run holds O(N + ops in flight).
#pragma once

#include <memory>

#include "algorithms/registry.hpp"

namespace collsim::algo {

/// The stream of build_pat_allgather(request) for any N >= 1: the same header, chunks and ops. Op
/// (step k, rank r, i) is r's send of part r + i (mod N) to rank r - d, d = 2^(k-1), i < min(d, N - d).
/// It waits for the join of (k, r) (everything r received in step k - 1; none in step 1) and, when
/// part r + i came to r two or more steps before (i >= 1 and bit_width(i) < k - 1), for that
/// receive; the builder's other edges are implied or absent (the receiver has never held the part).
/// No rank period (the reduce-scatter's successors keep the builder's order by rank, which a
/// rotation does not). Throws std::invalid_argument for N of 2^24 or more (ranks are 24-bit fields
/// of a key).
std::unique_ptr<sched::OpStream> stream_pat_allgather(const Request& request);

/// The stream of build_pat_reduce_scatter(request): step t runs distance d = 2^(K-t), K =
/// ceil(log2 N); op (t, s, i) is s's send of part s + d + i, reduced into rank s + d's, i < min(d, N - d).
/// It waits for the join of (t, s) and for the last write into the receiver's part: its receive of
/// step t - 1 when i < min(2d, N - 2d) (none before: a part is written by receives of falling
/// distance only while they fit). A part s sends was last written in step t - 1, inside the join.
/// Step 1's sends are all roots, held from the start (not chained: see pat_stream.cpp). Throws as
/// above.
std::unique_ptr<sched::OpStream> stream_pat_reduce_scatter(const Request& request);

}  // namespace collsim::algo
