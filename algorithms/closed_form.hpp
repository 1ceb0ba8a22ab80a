// Closed-form α-β times of the algorithms (Thakur, Rabenseifner & Gropp 2005; Patarasuk & Yuan
// 2009; the pipelined-tree form of NCCL's src/graph/tuning.cc), for a fabric described by three
// numbers. They are the oracle the simulator is tested against on contention-free fabrics and the
// second opinion `simulate` prints beside its own time (closed_form_us).
//
// The forms follow the simulator's first network model: a transfer of n bytes holds its links
// for τ(n) = ceil(8n·1e12 / B) ps (rounded up once per transfer, as the engine does) and arrives
// α later; back-to-back transfers on one link overlap their latency.
#pragma once

#include <optional>

#include "algorithms/registry.hpp"

namespace collsim::algo {

/// A fabric as the closed forms see it.
struct AlphaBeta {
  Time alpha{0};              ///< latency of one GPU-to-GPU route (summed over its links)
  Bandwidth bandwidth;        ///< bottleneck bandwidth of one GPU-to-GPU route
  bool shared_port = false;   ///< true: a GPU's sends to different peers share one port (switch);
                              ///< false: one link per peer (fully connected)
};

/// The closed-form time of `algorithm` (a registry name) for `request` on `fabric`, or nullopt
/// when there is none yet (ring all-to-all, direct, double-tree, hierarchical; ps with several
/// shards; halving-doubling and recursive doubling for N not a power of two).
/// Exact for the unpipelined forms on a contention-free fabric; for pipelined ones (tree, ring
/// broadcast/reduce) exact when the chunk size divides S, else a bound within one chunk time.
std::optional<Time> closed_form_time(std::string_view algorithm, const Request& request, const AlphaBeta& fabric);

}  // namespace collsim::algo
