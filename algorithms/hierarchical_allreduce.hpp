// Hierarchical (2D) all-reduce: ring reduce-scatter inside each host, ring all-reduce between
// hosts among the ranks of the same local index, ring all-gather inside each host. This is
// Horovod's hierarchical all-reduce (HOROVOD_HIERARCHICAL_ALLREDUCE: NCCLHierarchicalAllreduce in
// horovod/common/ops/nccl_operations.cc runs ncclReduceScatter in the node, MPI_Allreduce across
// nodes per local rank, ncclAllGather in the node) and the "2D-Torus all-reduce" of Mikami et al.
// 2018 ("Massively Distributed SGD: ImageNet/ResNet-50 Training in a Flash", arXiv:1811.05233).
// Jia et al. 2018 (arXiv:1807.11205) use the variant with a reduce to one master per node and a
// broadcast instead; Ueno & Yokota 2019 (CCGRID) compare such hierarchical patterns.
#pragma once

#include "algorithms/registry.hpp"

namespace collsim::algo {

/// Needs request.hosts to form a grid of K hosts × L ranks (host_grid; K = 1 or L = 1 allowed):
/// rank r = h·L + l is local rank l of host h. The buffer of S bytes is cut into N = K·L chunks
/// (split_even); local part l is chunks l·K .. l·K+K-1, about S/L bytes, and its chunk l·K + k is
/// sub-part k.
///  1. Intra-host reduce-scatter, steps 1..L-1: a ring over each host's ranks (local l sends to
///     l+1 mod L) on the L local parts, as build_ring_reduce_scatter, each part sent as its K
///     chunks; afterwards local rank l holds its host's sum of part l.
///  2. Inter-host all-reduce, steps L..L+2K-3: for each l, a ring all-reduce over hosts (rank
///     (h, l) sends to (h+1 mod K, l)) on part l's K sub-parts, as build_ring_allreduce; afterwards
///     local rank l of every host holds the global sum of part l.
///  3. Intra-host all-gather, the last L-1 steps: a ring over each host's ranks copies the parts.
/// Steps: 2(L-1) + 2(K-1). Bytes sent per rank, when N divides S: 2(L-1)/L·S inside the host plus
/// 2(K-1)/(K·L)·S between hosts (each of the L ranks of a host carries 1/L of the inter-host
/// traffic, which totals 2(K-1)/K·S per host, against 2(N-1)/N·S for a flat ring crossing it).
/// Each intra-host message is K ops, one per chunk (the IR's unit), sent back to back. L = 1 is exactly
/// build_ring_allreduce; K = 1 is a ring all-reduce inside the host. Throws AlgorithmError when
/// request.hosts is empty or not an equal consecutive grid (see host_grid).
sched::Schedule build_hierarchical_allreduce(const Request& request);

}  // namespace collsim::algo
