// NCCL's own cost formula (ncclTopoTuneModel and ncclTopoGetAlgoTime, src/graph/tuning.cc): a
// second opinion beside the simulated time (`simulate --model nccl`), and how `--protocol auto`
// picks a protocol per size, as NCCL does.
//
//   time = latency + S / algbw,  algbw = busbw · ratio
//   ring:  latency = base + (steps - inter steps)·hop(intra class) + inter steps·hop(network),
//          ratio = N / steps (steps = 2(N-1) all-reduce, N-1 reduce-scatter/all-gather, N broadcast/reduce)
//   tree:  latency = base + 2((N/nodes - 1)·hop(intra) + log2(nodes)·hop(network)), ratio = 1/2,
//          all-reduce only, busbw times NCCL's tree factors and size correction.
//   nvls:  latency = NCCL's NVLS latency (25 µs on NVLink, collsim's NVLS base), busbw =
//          2·B·nvlsEfficiency·(C-1)/C with C NVLS channels, ratio = N / (2(N-1)); all-reduce on
//          one node with Simple only.
//   nvlstree: latency = NCCL's NVLSTree latency (25 µs, collsim's base) + 2·log2(nodes)·hop(network),
//          busbw = min(2·B_intra·nvlsEfficiency·(C-1)/C, B_inter·(2 on two nodes), C·perChMaxNVLSTreeBw),
//          ratio = N / (2(N-1)); all-reduce across nodes with Simple only.
//   pat:   latency = 8 µs + log2(nodes)·hop(tree, network)/3.5 + 2.8 µs·N, busbw = 0.75·B taken as the
//          algbw; all-gather and reduce-scatter with one GPU per node and Simple only.
//   collnet: latency = 2(min(1, L-1)·hop(intra) + 0.4 µs·(L-1)) + hop(network) there and back,
//          busbw = B_intra (x0.85 from Hopper on), ratio = 1/2; all-reduce across nodes, Simple only.
// busbw is the per-GPU bandwidth along the ring (bottleneck of a rank's route to its neighbour
// times the link class's efficiency) times the protocol's factor, capped as NCCL caps it
// (llMaxBws for LL, perChMaxRingLL128Bws, perChMaxTreeBws and perChMaxTreeLL128Bws times the
// channels) where the GPUs' architecture is known; across nodes LL takes NCCL's Intel row (the
// topologies name no CPU vendor).
#pragma once

#include <cstdint>
#include <optional>

#include "sim/schedule/collective.hpp"
#include "topologies/gpu_models.hpp"
#include "topologies/model_params.hpp"

namespace collsim::sim {

/// One question to the formula.
struct NcclFormulaInput {
  sched::Collective collective = sched::Collective::AllReduce;
  topo::AlgoFamily family = topo::AlgoFamily::Ring;
  topo::Protocol protocol = topo::Protocol::Simple;
  std::uint32_t ranks = 1;
  std::uint32_t nodes = 1;     ///< hosts the ranks are on
  std::uint32_t channels = 1;  ///< for the ring's inter-node plateau rule
  Bytes size = 0;
  Bandwidth bus_bandwidth;     ///< per GPU along the ring, before the protocol's factor
  /// NVLSTree: per GPU inside a host (the ring's steps there) and between hosts (what a host's GPUs
  /// send to the next host at once, per GPU of the ring's view: NCCL's nChannels·bwInter); 0 where
  /// there is none.
  Bandwidth intra_bandwidth;
  Bandwidth inter_bandwidth;
  topo::LinkClass intra = topo::LinkClass::NvLink;  ///< class of the steps inside a node
  /// NVLS: NCCL's nvlsEfficiency for the GPUs (topo::NvlsDomain); 0 where no switch reduces.
  double nvls_efficiency = 0.0;
  /// The GPUs' architecture, which picks NCCL's bandwidth caps (llMaxBws, perChMax*Bws); nullopt
  /// (GPUs of unknown model) leaves the caps out.
  std::optional<topo::GpuArch> arch{};
};

/// NCCL's predicted time, or nullopt where NCCL has no such algorithm (its tree only does
/// all-reduce; NVLS here only all-reduce on one node, NVLSTree only across nodes, both with Simple,
/// an NVLS efficiency and at least 2 channels; PAT only all-gather and reduce-scatter with one GPU
/// per node and Simple, as ncclTopoTuneModel and ncclPatEnable require) or the bandwidth is 0. One rank: 0. Latencies and the protocol efficiency come from
/// `params` where it sets them, else from NCCL's tables. A time past the clock's end (2^63 ps, e.g.
/// from a tiny protocol efficiency) is Time::max() (saturated, see sim/units/saturate.hpp), never a
/// wrapped-around small one.
std::optional<Time> nccl_formula_time(const NcclFormulaInput& in, const topo::ModelParams& params);

/// The protocol NCCL would pick for `in` (its protocol field ignored): the fastest by the formula;
/// LL128 only when `ll128` (NCCL enables it by default on NVLink only). Ties go to the earlier of
/// LL, LL128, Simple. A protocol whose time saturates (does not fit on the clock) is never picked;
/// when every one does, Simple.
topo::Protocol nccl_pick_protocol(NcclFormulaInput in, const topo::ModelParams& params, bool ll128);

}  // namespace collsim::sim
