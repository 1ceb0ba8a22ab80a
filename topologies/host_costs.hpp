// What the host adds to a collective as nccl-tests times it: the launch of each call and the call
// that launches nothing. Measured constants, with their sources; a parameter file overrides them
// (host_launch, host_empty_call).
#pragma once

#include "topologies/nccl_tuning.hpp"

namespace collsim::topo::host {

/// The host's cost of launching one collective on one GPU, paid once per GPU the calling thread
/// drives (nccl-tests -g G issues G calls in a group per iteration, one thread launching every
/// kernel). Source: NVIDIA/nccl-tests#123, all_reduce_perf -g N on one DGX A100, ring on one
/// channel, 8-128 B: 10.0, 13.76, 16.88, 20.8, 25.2, 29.5, 33.7 us for N = 2..8, a rise of 3.95 us
/// per GPU (3.99 from 3 GPUs on), 33.7 / 8 = 4.2 us per GPU at 8; the same board with one process per
/// GPU runs 8-GPU all-reduce in about 23 us (NCCL's model), so the iterations there wait on the host.
inline constexpr Time kLaunchPerGpu = nccl::us(4.2);

/// An empty collective (0 elements) launches nothing: NCCL discards it (taskAppend, src/enqueue.cc,
/// 2.30.7: "Empty collectives can be discarded"), and nccl-tests measures the call alone. Source:
/// aws-ia/terraform-aws-eks-blueprints, docs of patterns/nvidia-gpu-efa (all_reduce_perf on two
/// p5.48xlarge, one GPU per process): 0.12-0.13 us for 0 B.
inline constexpr Time kEmptyCall = nccl::us(0.13);

}  // namespace collsim::topo::host
