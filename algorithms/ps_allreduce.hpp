// Parameter-server all-reduce: workers push their buffers to servers, which reduce and send the
// sum back (Li et al. 2014, "Scaling Distributed Machine Learning with the Parameter Server",
// OSDI; sharded over K servers as in BytePS's summation service, Jiang et al. 2020, OSDI).
#pragma once

#include "algorithms/registry.hpp"

namespace collsim::algo {

/// The buffer of S bytes is cut into K = Request::ps_shards parts (split_even); server k owns part
/// k. Servers are participant ranks 0..K-1, or, with Request::ps_external_server, K helper ranks
/// N..N+K-1 (ScheduleHeader::helpers = K) that hold no data of their own.
/// Step 1 "push": every participant sends part k to server k, which receives it into a scratch
/// chunk of its own per sender, so the N pushes into one server have no dependencies on each other
/// and run concurrently; a participant that is server k keeps its own part k locally and sends
/// nothing for it. Still in step 1 the server sums the received chunks into its part k by local
/// ops (src == dst; an external server first copies one of them there). Local ops cost no network
/// time and take the step of the push whose data they consume, so they add no step.
/// Step 2 "pull": server k copies part k to every participant but itself.
/// Steps: 2 (0 for N = 1 with a rank server). Bytes sent, with P_k = |part k|:
///   rank servers: participant w sends S - P_w (P_w = 0 unless w < K) in pushes, and server k
///     sends (N-1)·P_k in pulls; so K = 1: a worker sends and receives S, the server receives and
///     sends (N-1)·S; K = N (the sharded, colocated form), N dividing S: every rank sends
///     2(N-1)/N·S, as the ring does;
///   external servers: every participant sends and receives S; server k receives and sends N·P_k.
/// Scratch: one receive chunk per pushing participant (N-1 for rank servers, N for external ones)
/// for each of the at most two part sizes split_even produces; servers share these chunk ids, as
/// they are distinct ranks. So a schedule has at most K + 2N chunks.
/// Throws std::invalid_argument unless 1 <= K <= N.
sched::Schedule build_ps_allreduce(const Request& request);

}  // namespace collsim::algo
