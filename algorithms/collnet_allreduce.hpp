// CollNet all-reduce (NCCL's CollNet Direct, NVIDIA/nccl 2.30.7 src/device/all_reduce.h
// runCollNetDirect, with the network reduction of its SHARP plugin, src/transport/coll_net.cc):
// inside each host every GPU heads one part of the buffer (one head per NIC; the bundled multi-node
// machines have a NIC per GPU); the host's GPUs send each head their share of its part, the head adds
// them, sends the host's sum to the switch that reduces in the network (InfiniBand SHARP), which
// adds the hosts' sums and returns the total to every head, and each head sends it to the host's
// other GPUs.
#pragma once

#include "algorithms/registry.hpp"

namespace collsim::algo {

/// The hosts come from Request::hosts as a grid of K hosts × L ranks (host_grid.hpp); no hosts
/// means one host. With K > 1 the switch is helper rank N (ScheduleHeader::helpers = 1; the run
/// places it on the topology's "sharp" switch); with one host nothing crosses the network, no
/// helper, and it is a direct reduce-scatter then all-gather inside the host.
///
/// S is cut into L parts (split_parts), part k headed by local rank k of every host, each part
/// into pipeline chunks of Request::chunk_size. For pipeline chunk i of part k, in host h:
///   step i+1   every other GPU of h sends the chunk to the head, into a scratch chunk per sender,
///              and the head adds them by local ops;
///   step i+2   (K > 1) the head sends the host's sum to the switch, into a scratch chunk per host,
///              and the switch adds them;
///   step i+3   (K > 1) the switch sends the total to every host's head;
///   step i+4   (i+2 for K = 1) the head sends it to every other GPU of h.
/// Bytes per GPU: S - P to the heads and S - P from its own head role to the others (P = S/L), and
/// P each way between the head and the switch (K > 1). A stage with nothing to do (the host's for
/// L = 1, the network's for K = 1) takes no step. Throws AlgorithmError for hosts that are not a
/// grid, std::invalid_argument for a chunk_size of 0.
sched::Schedule build_collnet_allreduce(const Request& request);

}  // namespace collsim::algo
