#include "sim/nccl_formula.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

#include "sim/units/saturate.hpp"
#include "topologies/nccl_tuning.hpp"

namespace collsim::sim {
namespace {

using sched::Collective;
using topo::AlgoFamily;
using topo::LinkClass;
using topo::Protocol;
namespace nccl = topo::nccl;

std::uint32_t log2_floor(std::uint64_t n) { return n <= 1 ? 0 : static_cast<std::uint32_t>(std::bit_width(n) - 1); }

double us_of(Time t) { return static_cast<double>(t.count()) * 1e-6; }

// busbw in GB/s (1e9 B/s), after the protocol's and the algorithm's factors and NCCL's caps
// (ncclTopoTuneModel, src/graph/tuning.cc 2.30.7: the caps' index is the architecture and
// min(nodes, 3) - 1; LL's across nodes the CPU's row, Intel's here).
double bus_GBps(const NcclFormulaInput& in, const topo::ModelParams& params) {
  double bw = static_cast<double>(in.bus_bandwidth.bits_per_s) / 8e9;
  const auto p = in.protocol;
  const auto arch = in.arch ? static_cast<std::size_t>(*in.arch) : 0;
  const std::size_t col = std::min<std::uint32_t>(std::max<std::uint32_t>(in.nodes, 1), 3) - 1;
  const double channels = std::max<std::uint32_t>(in.channels, 1);
  const auto cap = [&](double value, double limit) { return in.arch ? std::min(value, limit) : value; };
  const double ll_max = nccl::kLlMaxBw[in.nodes <= 1 ? arch : 0][col];
  if (in.family == AlgoFamily::Ring) {
    // NCCL's model uses 0.92 for LL128 where the wire carries 120/128; a parameter set wins.
    const bool given = params.protocol_efficiency[static_cast<std::size_t>(p)].has_value();
    bw *= p == Protocol::LL128 && !given ? nccl::kRingLl128ModelFactor : params.protocol_efficiency_or_default(p);
    if (p == Protocol::LL) bw = cap(bw, ll_max);
    if (p == Protocol::LL128) bw = cap(bw, channels * nccl::kPerChMaxRingLl128Bw[arch][col]);
    return bw;
  }
  bw = cap(bw * nccl::kTreeFactor, channels * nccl::kPerChMaxTreeBw[arch][col]);
  if (p == Protocol::LL) bw = cap(bw * nccl::kTreeLlFactor, ll_max);
  if (p == Protocol::LL128)
    bw = cap(bw * (in.nodes == 1 ? nccl::kTreeLl128OneNodeFactor : nccl::kTreeLl128Factor),
             channels * nccl::kPerChMaxTreeLl128Bw[arch][col]);
  return bw;
}

}  // namespace

std::optional<Time> nccl_formula_time(const NcclFormulaInput& in, const topo::ModelParams& params) {
  if (in.ranks <= 1) return Time{0};
  if ((in.family == AlgoFamily::Tree || in.family == AlgoFamily::Nvls || in.family == AlgoFamily::NvlsTree ||
       in.family == AlgoFamily::CollNet) &&
      in.collective != Collective::AllReduce)
    return std::nullopt;
  if (in.bus_bandwidth.bits_per_s == 0) return std::nullopt;
  const std::uint32_t n = in.ranks;
  const std::uint32_t nodes = std::max<std::uint32_t>(1, in.nodes);
  const Protocol p = in.protocol;
  const std::uint32_t steps = in.collective == Collective::AllReduce ? 2 * (n - 1)
                              : in.collective == Collective::ReduceScatter || in.collective == Collective::AllGather ||
                                        in.collective == Collective::AllToAll
                                  ? n - 1
                                  : n;

  if (in.family == AlgoFamily::Nvls) {
    if (in.collective != Collective::AllReduce || p != Protocol::Simple || in.nvls_efficiency <= 0 || nodes > 1 ||
        in.channels < 2)
      return std::nullopt;
    // ncclTopoTuneModel (tuning.cc, 2.30.7): intraBw = bwIntra·nvlsEfficiency·(nCh-1)/nCh, doubled for
    // all-reduce ("pipelines two operations"); busBw = nCh·intraBw; algbw = busBw·N/nsteps. Its
    // latency is hwLat[NVLINK][NVLS][SIMPLE] alone, collsim's NVLS base latency.
    const double c = in.channels;
    const double nvls_bw = static_cast<double>(in.bus_bandwidth.bits_per_s) / 8e9 *
                           params.protocol_efficiency_or_default(p) * in.nvls_efficiency * (c - 1) / c * 2.0 *
                           static_cast<double>(n) / steps;
    const double nvls_lat = us_of(params.base_latency_or_default(AlgoFamily::Nvls, p));
    return saturating_ceil_ps((nvls_lat + static_cast<double>(in.size) / (1000.0 * nvls_bw)) * 1e6);
  }
  if (in.family == AlgoFamily::NvlsTree) {
    // NCCL disables NVLSTree on one node (ncclTopoTuneModel); it needs the switch's reduction.
    if (in.collective != Collective::AllReduce || p != Protocol::Simple || in.nvls_efficiency <= 0 || nodes <= 1 ||
        in.channels < 2 || in.inter_bandwidth.bits_per_s == 0)
      return std::nullopt;
    // ncclTopoTuneModel (tuning.cc, 2.30.7): bw = min(intraBw, interBw, perChMaxNVLSTreeBw) per channel
    // with intraBw = bwIntra·nvlsEfficiency·(nCh-1)/nCh·2 (all-reduce) and interBw = bwInter, doubled
    // on two nodes (each tree's half crosses once); busBw = nCh·bw, algbw = busBw·N/nsteps;
    // latency = intraLat + 2·log2i(nNodes)·interLat (baseLat is 0).
    const double c = in.channels;
    const double eff = params.protocol_efficiency_or_default(p);
    const double intra = static_cast<double>(in.intra_bandwidth.bits_per_s) / 8e9 * eff * in.nvls_efficiency * (c - 1) / c * 2.0;
    const double inter = static_cast<double>(in.inter_bandwidth.bits_per_s) / 8e9 * eff * (nodes <= 2 ? 2.0 : 1.0);
    double bus = std::min(intra, inter);
    if (in.arch) {
      const std::size_t col = std::min<std::uint32_t>(nodes, 3) - 1;
      bus = std::min(bus, c * nccl::kPerChMaxNvlsTreeBw[static_cast<std::size_t>(*in.arch)][col]);
    }
    if (bus <= 0) return std::nullopt;
    const AlgoFamily inter_row = n == nodes ? AlgoFamily::Tree : AlgoFamily::NvlsTree;
    const double lat = us_of(params.base_latency_or_default(AlgoFamily::NvlsTree, p)) +
                       2.0 * log2_floor(nodes) * us_of(params.step_latency_or_default(inter_row, LinkClass::Network, p));
    return saturating_ceil_ps((lat + static_cast<double>(in.size) / (1000.0 * bus * n / steps)) * 1e6);
  }
  if (in.family == AlgoFamily::CollNet) {
    if (in.collective != Collective::AllReduce || p != Protocol::Simple || nodes <= 1) return std::nullopt;
    // ncclTopoTuneModel (tuning.cc, 2.30.7), CollNet Direct: bw = bwIntra (a NIC per GPU, so its
    // GPU/NIC factor is 1), x0.85 from Hopper on, algbw half of it; latency 2(min(1, ppn-1)·intraLat
    // + (ppn-1)·0.4) + interLat. collsim keeps interLat as two network steps (nccl_tuning.hpp).
    const double ppn = static_cast<double>(n) / nodes;
    double bus = static_cast<double>((in.intra_bandwidth.bits_per_s ? in.intra_bandwidth : in.bus_bandwidth).bits_per_s) /
                 8e9 * params.protocol_efficiency_or_default(p);
    if (in.arch && *in.arch >= topo::GpuArch::Hopper) bus *= nccl::kCollNetHopperFactor;
    if (bus <= 0) return std::nullopt;
    const double intra = us_of(params.step_latency_or_default(AlgoFamily::CollNet, in.intra, p));
    const double inter = ppn == 1 ? us_of(params.step_latency_or_default(AlgoFamily::Tree, LinkClass::Network, p))
                                  : 2 * us_of(params.step_latency_or_default(AlgoFamily::CollNet, LinkClass::Network, p));
    const double lat = us_of(params.base_latency_or_default(AlgoFamily::CollNet, p)) +
                       2 * (std::min(1.0, ppn - 1) * intra + (ppn - 1) * us_of(nccl::kCollNetArityLatency)) + inter;
    return saturating_ceil_ps((lat + static_cast<double>(in.size) / (1000.0 * bus * 0.5)) * 1e6);
  }
  if (in.family == AlgoFamily::Pat) {
    // ncclPatEnable: one GPU per node; PAT runs all-gather and reduce-scatter with Simple only.
    if ((in.collective != Collective::AllGather && in.collective != Collective::ReduceScatter) ||
        p != Protocol::Simple || n != nodes)
      return std::nullopt;
    // ncclTopoTuneModel (tuning.cc, 2.30.7): busBw x 0.75, not converted to algbw for PAT;
    // latency = baseLat 8 + log2i(nNodes)·interLat/3.5 + 2.8 µs per rank, interLat the tree's
    // network row with one GPU per node.
    const double bus = static_cast<double>(in.bus_bandwidth.bits_per_s) / 8e9 *
                       params.protocol_efficiency_or_default(p) * nccl::kPatFactor;
    const double inter = us_of(params.step_latency_or_default(AlgoFamily::Tree, LinkClass::Network, p));
    const double lat = us_of(params.base_latency_or_default(AlgoFamily::Pat, p)) +
                       log2_floor(nodes) * inter / nccl::kPatLogLatencyDivisor +
                       static_cast<double>(n) * us_of(nccl::kPatLatencyPerRank);
    return saturating_ceil_ps((lat + static_cast<double>(in.size) / (1000.0 * bus)) * 1e6);
  }
  double bw = bus_GBps(in, params);
  double lat = us_of(params.base_latency_or_default(in.family, p));
  double intra = us_of(params.step_latency_or_default(in.family, in.intra, p));
  // With one rank per node the latencies are fully exposed: NCCL then uses the tree's network row.
  const AlgoFamily inter_row = n == nodes ? AlgoFamily::Tree : in.family;
  const double inter = us_of(params.step_latency_or_default(inter_row, LinkClass::Network, p));
  if (in.family == AlgoFamily::Ring) {
    bw *= static_cast<double>(n) / steps;
    if (in.collective == Collective::Broadcast || in.collective == Collective::Reduce) {
      // Chains pay one hop per step; Simple uses the tree's hop ("some chunk latency").
      const LinkClass cls = nodes == 1 ? in.intra : LinkClass::Network;
      const AlgoFamily row = p == Protocol::Simple ? AlgoFamily::Tree : AlgoFamily::Ring;
      lat += steps * us_of(params.step_latency_or_default(row, cls, p));
    } else {
      if (nodes > 1) intra = std::max(intra, us_of(nccl::kNetOverhead) * (p == Protocol::Simple ? 3 : 1));
      const std::uint32_t inter_steps =
          nodes == 1 ? 0 : in.collective == Collective::AllReduce ? 2 * (nodes - 1) : nodes - 1;
      lat += (steps - inter_steps) * intra + inter_steps * inter;
    }
    if (p == Protocol::Simple && nodes > 1 && in.collective == Collective::AllReduce &&
        in.size / (std::uint64_t{std::max<std::uint32_t>(1, in.channels)} * n) >= 64)
      lat *= nccl::kRingPlateauFactor;
  } else {
    bw *= 0.5;
    lat += 2 * ((static_cast<double>(n / nodes) - 1) * intra + log2_floor(nodes) * inter);
    const std::uint32_t log_size = log2_floor(in.size >> 6);  // NCCL's log2i(nBytes >> 6); 0 below 128 B
    if (log_size < nccl::kTreeCorrection[0].size())
      bw *= nccl::kTreeCorrection[static_cast<std::size_t>(p)][log_size];
  }
  // NCCL: time [us] = lat + bytes / (1000 · bw [GB/s]). A tiny efficiency (a legal 1e-12) makes it
  // pass 2^63 ps or infinity: it saturates at the clock's end rather than wrapping to a small time.
  const double time_us = lat + static_cast<double>(in.size) / (1000.0 * bw);
  return saturating_ceil_ps(time_us * 1e6);
}

topo::Protocol nccl_pick_protocol(NcclFormulaInput in, const topo::ModelParams& params, bool ll128) {
  std::optional<Time> best;
  Protocol pick = Protocol::Simple;
  for (Protocol p : {Protocol::LL, Protocol::LL128, Protocol::Simple}) {
    if (p == Protocol::LL128 && !ll128) continue;
    in.protocol = p;
    const auto t = nccl_formula_time(in, params);
    if (t && !time_saturated(*t) && (!best || *t < *best)) {
      best = t;
      pick = p;
    }
  }
  return pick;
}

}  // namespace collsim::sim
