// NVLSTree all-reduce (NCCL's NCCL_ALGO_NVLS_TREE, NVIDIA/nccl 2.30.7 src/device/all_reduce.h
// runTreeSplit for NVLS_TREE; src/graph/connect.cc connectNvls): NVLink SHARP inside each host and
// NCCL's double binary tree between hosts. Every GPU of a host heads one part of the buffer (one
// NVLS head per NIC; the bundled multi-node machines have a NIC per GPU): its host's NVSwitch
// reduces the part from every GPU and hands the sum to the head (multimem.ld_reduce), the heads of
// that part in all hosts all-reduce it over a tree of hosts (half of it over each tree of
// ncclGetDtree, as NCCL's channels alternate between the two trees), and each head stores the
// result through its switch's multicast (multimem.st) to every GPU of its host.
#pragma once

#include "algorithms/registry.hpp"

namespace collsim::algo {

/// The hosts come from Request::hosts as a grid of K hosts × L ranks (host_grid.hpp); no hosts
/// means one host (K = 1, the NVLS all-reduce of nvls_allreduce.hpp in shape). When L > 1, host
/// h's switch is helper rank N + h (ScheduleHeader::helpers = K; the run places each on its host's
/// NVLS switch); with L = 1 there is no switch and no helper.
///
/// S is cut into L parts (split_parts), part k headed by local rank k of every host; each part
/// into two halves (split_even), half t carried by tree t of nccl_dtree(K) over host indices; each
/// half into pipeline chunks of Request::chunk_size. For pipeline chunk i of part k, half t:
///   step i+1   (L > 1) every GPU of host h sends the chunk to switch h, into a scratch chunk per
///              sender, and the switch adds them by local ops;
///   step i+2   (L > 1) switch h sends the sum to host h's head of part k;
///   up         the heads reduce it up tree t (a head with two child hosts takes the second into a
///              tree scratch chunk and adds it locally), then the root's sum goes down;
///   last two   (L > 1) each head sends the result to its switch, which sends it to every GPU of
///              its host, the head too.
/// With a = 2 (L > 1) or 0 and D the height of tree t, a host at depth d sends up in step
/// i + a + D - d + 1 and down in step i + a + D + d + 1, and multicasts in the next two steps after
/// its head holds the result. Bytes per GPU: S + S/L to its switch and as much back (L > 1); between
/// hosts a head sends each half of its part once up and once to each child host of that tree.
/// Throws AlgorithmError for hosts that are not a grid, std::invalid_argument for a chunk_size
/// of 0.
sched::Schedule build_nvls_tree_allreduce(const Request& request);

}  // namespace collsim::algo
