// NVLS all-reduce (NVLink SHARP): the NVSwitch adds what the GPUs send it and multicasts the sum
// (NVIDIA Hopper architecture whitepaper, "NVLink SHARP"; NCCL's NVLS algorithm, NVIDIA/nccl 2.30.7
// src/device/all_reduce.h). Each GPU owns a part of the buffer: it loads its part reduced through
// the switch (multimem.ld_reduce: the switch reads that part from every GPU and returns the sum),
// then stores the sum through the switch's multicast address (multimem.st: the switch writes it to
// every GPU). So each GPU's link carries S + S/N each way, against the ring's 2(N-1)/N·S.
#pragma once

#include "algorithms/registry.hpp"

namespace collsim::algo {

/// NCCL's NVLS chunk (NCCL_NVLS_CHUNKSIZE's default, src/transport/nvls.cc, NCCL 2.30.7): 128 KiB.
inline constexpr Bytes kNvlsChunkSize = Bytes{128} << 10;

/// The switch is helper rank N (ScheduleHeader::helpers = 1; the run places it on the ranks'
/// NVLS switch). S is cut into N parts (split_parts), part k owned by rank k, and each part into
/// pipeline chunks of Request::chunk_size (pipeline_chunks; C = the largest part's chunk count).
/// For chunk c of part k, at steps c+1 .. c+4:
///   1 every rank (k too) sends the chunk to the switch, into a scratch chunk per sender, and the
///     switch adds them into its own copy of the chunk by local ops (the load's reduction);
///   2 the switch sends the sum to rank k (what the load returns);
///   3 rank k sends the sum to the switch (the multicast store);
///   4 the switch sends it to every rank, k too.
/// Steps: C + 3 (0 for N = 1: nothing moves, no helper). Bytes: every rank sends S + P_k and
/// receives P_k + S (P_k = |part k|); the switch receives N·S + S and sends S + N·S. Phases:
/// "reduce at the switch" (steps 1-2), "reduce + multicast" (3 .. C+1, when C > 1), "multicast"
/// (the last two). Throws std::invalid_argument for a chunk_size of 0.
sched::Schedule build_nvls_allreduce(const Request& request);

}  // namespace collsim::algo
