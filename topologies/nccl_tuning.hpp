// NCCL's published tuning constants, pinned in one place with their sources.
//
// Source: NVIDIA/nccl src/graph/tuning.cc (the 2.2x-2.30 series, the version with Blackwell rows
// and the PAT algorithm; the latency tables below have not changed since 2.23): baseLat,
// hwLat, the protocol bandwidth factors of ncclTopoTuneModel and treeCorrectionFactor of
// ncclTopoGetAlgoTime. Buffer and slice sizes: src/init.cc (DEFAULT_BUFFSIZE,
// DEFAULT_LL_BUFFSIZE, DEFAULT_LL128_BUFFSIZE), src/include/device.h (NCCL_STEPS = 8) and
// src/include/collectives.h (ALLREDUCE_SLICESTEPS = NCCL_STEPS/4). Channel counts: NCCL logs on
// HGX A100 and H100 show 12 rings found by the search, duplicated to 24 channels
// (NVIDIA/nccl-tests#100, NVIDIA/nccl#1367). Values are NCCL's; the code around them is ours.
#pragma once

#include <array>

#include "sim/units/units.hpp"
#include "topologies/model_params.hpp"

namespace collsim::topo::nccl {

/// Microseconds as Time (the tables are in µs, as NCCL writes them).
constexpr Time us(double v) { return Time{static_cast<std::int64_t>(v * 1e6 + 0.5)}; }

/// baseLat[family][protocol]: the fixed cost of one collective (kernel launch and setup).
/// NVLS: NCCL's NVLS latency is its hwLat[NVLINK][NVLS][SIMPLE] = 25 µs alone (ncclTopoTuneModel
/// sets latencies = intraLat for NVLS, replacing baseLat's 0), paid once per collective, not per
/// step; so collsim keeps it here and its NVLS step latencies are 0. NVLS runs Simple only.
/// NVLSTree likewise pays hwLat[NVLINK][NVLSTree][SIMPLE] = 25 µs once (baseLat 0 + intraLat).
inline constexpr PerFamily<PerProtocol<Time>> kBaseLatency{{
    {us(6.6), us(14.0), us(8.4)},  // ring: LL, LL128, Simple
    {us(6.8), us(14.0), us(8.4)},  // tree
    {us(0.0), us(0.0), us(25.0)},  // nvls
    {us(0.0), us(0.0), us(25.0)},  // nvlstree: NCCL's baseLat 0 + its one intra-node latency, as for NVLS
    {us(8.0), us(8.0), us(8.0)},   // pat
    {us(0.0), us(0.0), us(0.0)},   // collnet (Direct)
}};

/// hwLat[family][class][protocol]: the cost of one step of the algorithm over a link class.
inline constexpr PerFamily<PerClass<PerProtocol<Time>>> kStepLatency{{
    {{
        {us(0.6), us(1.9), us(3.4)},    // ring over NVLink
        {us(1.0), us(2.5), us(5.7)},    // ring over PCIe
        {us(2.7), us(4.0), us(14.0)},   // ring over the network
    }},
    {{
        {us(0.6), us(1.25), us(4.0)},   // tree over NVLink
        {us(1.0), us(1.9), us(4.0)},    // tree over PCIe
        {us(5.0), us(8.5), us(14.0)},   // tree over the network
    }},
    {{}},  // nvls: its one latency is the base (kBaseLatency)
    // nvlstree: the NVLS part's latency is the base; each step between hosts pays
    // hwLat[NET][NVLSTree][SIMPLE] = 20.9 µs (ncclTopoTuneModel: intraLat + 2·log2(nNodes)·interLat).
    {{{}, {}, {us(0.0), us(0.0), us(20.9)}}},
    // pat: hwLat[NVLINK|PCI][PAT][SIMPLE] = 4.0 µs a step; between nodes NCCL charges interLat / 3.5
    // per log2 step, with interLat = hwLat[NET][TREE][SIMPLE] = 14 µs for one GPU per node: 4.0 µs.
    // Its linear part, 2.8 µs per rank, is in NCCL's formula (the choice) only: it is no step's.
    {{{us(0.0), us(0.0), us(4.0)}, {us(0.0), us(0.0), us(4.0)}, {us(0.0), us(0.0), us(4.0)}}},
    // collnet (Direct): hwLat[NVLINK|PCI][COLLNET_DIRECT][SIMPLE] = 3.7 µs a step inside the host;
    // NCCL charges one hwLat[NET][COLLNET_DIRECT][SIMPLE] = 31 µs for the way to the switch and back,
    // which collsim's schedule takes in two steps of 15.5 µs.
    {{{us(0.0), us(0.0), us(3.7)}, {us(0.0), us(0.0), us(3.7)}, {us(0.0), us(0.0), us(15.5)}}},
}};

/// Data bytes per wire byte: LL sends 4 bytes of data and a 4-byte flag in every 8 bytes, LL128
/// 120 bytes of data in every 128-byte line, Simple only data. (NCCL's own cost model uses 0.5 and
/// 0.92 for the ring; see kRingLl128ModelFactor.)
inline constexpr PerProtocol<double> kProtocolEfficiency{0.5, 120.0 / 128.0, 1.0};

/// NCCL's ring LL128 factor in ncclTopoTuneModel (it rounds 120/128 down).
inline constexpr double kRingLl128ModelFactor = 0.92;
/// Tree bandwidth factors in ncclTopoTuneModel: all protocols x0.92, then LL x1/3.8, LL128 x7/9 on
/// one node or x120/128 across nodes.
inline constexpr double kTreeFactor = 0.92;
inline constexpr double kTreeLlFactor = 1.0 / 3.8;
inline constexpr double kTreeLl128OneNodeFactor = 7.0 / 9.0;
inline constexpr double kTreeLl128Factor = 120.0 / 128.0;
/// Ring Simple all-reduce across nodes: latency x1.4 ("plateau effect of ring", compute
/// capability 8.0 and later) once each rank's share of a channel is at least 64 bytes.
inline constexpr double kRingPlateauFactor = 1.4;
/// Network post overhead per inter-node ring step (Intel x86: 1 µs; x3 for Simple): getNetOverhead.
inline constexpr Time kNetOverhead = us(1.0);

/// NCCL's per-GPU bandwidth caps in GB/s (ncclTunerConstantsDefaults, src/graph/tuning.cc, NCCL
/// 2.30.7), by architecture row (Volta, Ampere, Hopper, Blackwell: topo::GpuArch) and node column
/// (1 node, 2 nodes, more). llMaxBws is by architecture on one node and by CPU (Intel row 0, AMD
/// row 1) across nodes; the per-channel ones multiply by the channel count.
inline constexpr std::array<std::array<double, 3>, 4> kLlMaxBw{{
    {39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {141.0, 45.0, 35.0}, {2 * 141.0, 2 * 45.0, 2 * 35.0}}};
inline constexpr std::array<std::array<double, 3>, 4> kPerChMaxRingLl128Bw{{
    {20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 36.7}, {40.0, 40.0, 40.0}}};
inline constexpr std::array<std::array<double, 3>, 4> kPerChMaxTreeLl128Bw{{
    {20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 29.0}, {55.6, 31.67, 20.0}}};
inline constexpr std::array<std::array<double, 3>, 4> kPerChMaxTreeBw{{
    {26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 36.0}, {70.0, 42.8, 24.0}}};

/// perChMaxNVLSTreeBws (NCCL 2.30.7): NVLSTree's per-channel cap, by the same rows and columns
/// (NVLSTree never runs on one node, whose column is 0 for Hopper and Blackwell).
inline constexpr std::array<std::array<double, 3>, 4> kPerChMaxNvlsTreeBw{{
    {26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {0.0, 57.7, 45.5}, {0.0, 96.0, 80.0}}};

/// PAT in ncclTopoTuneModel (2.30.7): busBw x 0.75; its latency adds log2i(nNodes) x interLat / 3.5
/// and 2.8 µs per rank ("still a linear part").
inline constexpr double kPatFactor = 0.75;
inline constexpr double kPatLogLatencyDivisor = 3.5;
inline constexpr Time kPatLatencyPerRank = us(2.8);

/// CollNet Direct in ncclTopoTuneModel (2.30.7): busBw x0.85 from compute capability 9.0 on, and
/// 0.4 µs of "arity serialization" per local rank past the first.
inline constexpr double kCollNetHopperFactor = 0.85;
inline constexpr Time kCollNetArityLatency = us(0.4);

/// treeCorrectionFactor[protocol][log2(bytes / 64)], for sizes 64 B .. 256 MiB.
inline constexpr PerProtocol<std::array<double, 23>> kTreeCorrection{{
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9},
}};

/// Data bytes of one slice per protocol: two of a buffer's NCCL_STEPS = 8 steps
/// (ALLREDUCE_SLICESTEPS). LL: 8 lines x 512 threads x 8 steps x 16 B = 512 KiB of lines, half of
/// it data, so 32 KiB per step; LL128: 120 x 640 x 8 x 8 B = 4,915,200 B of lines, 120/128 data,
/// so 576,000 B per step; Simple: 4 MiB, so 512 KiB per step.
inline constexpr PerProtocol<Bytes> kSliceBytes{2 * 32768, 2 * 576000, 2 * 524288};

/// Channels NCCL runs on an 8-GPU NVSwitch node (12 rings, duplicated).
inline constexpr std::uint32_t kNvSwitchChannels = 24;

}  // namespace collsim::topo::nccl
