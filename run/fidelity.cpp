#include "run/fidelity.hpp"

#include <algorithm>
#include <functional>
#include <limits>

#include <fmt/format.h>

#include "algorithms/channels.hpp"
#include "sim/nccl_formula.hpp"
#include "sim/units/saturate.hpp"
#include "run/errors.hpp"
#include "run/parse.hpp"
#include "topologies/gpu_models.hpp"
#include "topologies/hosts.hpp"
#include "topologies/model_params.hpp"
#include "topologies/topology.hpp"
#include "topologies/routes.hpp"
#include "topologies/sharp.hpp"

namespace collsim::run {
namespace {

// NCCL_P2P_LL_THRESHOLD's default (src/enqueue.cc, NCCL 2.30.7): send/recv uses LL up to this many
// bytes per channel.
constexpr Bytes kP2pLlThreshold = 16384;

// The ring's per-GPU bandwidth on one host with `channels` channels, the odd ones on the reversed
// ring (algo::build_with_channels): each directed link's rate (times its route's class efficiency)
// is shared equally by the channel hops that cross it, a channel gets the least share along its
// hops, and the channels add up. On a star (GPUs on one switch or host bridge) both directions of
// the ring share each GPU's link, so this is the slowest route's rate, as NCCL's search finds one
// ring and duplicates it; where the reversed ring takes other links (GPU pairs on NVLink bridges with
// PCIe between them, a ring of links) it adds, as NCCL's search finds rings both ways
// (src/graph/search.cc); where a ring's own hops share a link (GPUs under one PCIe switch moving
// data through the CPU) they divide it.
double one_host_ring_bus(const topo::Topology& topology, std::span<const topo::NodeId> ranks, std::uint32_t channels,
                         topo::RouteCache& routes, const topo::ModelParams& params) {
  const std::size_t n = ranks.size();
  const double forward = (std::max<std::uint32_t>(channels, 1) + 1) / 2, reverse = channels / 2;
  std::vector<double> users(topology.links().size(), 0.0);
  const auto hop = [&](std::size_t r, bool reversed) -> const topo::Route& {
    return routes.get(ranks[r], ranks[reversed ? (r + n - 1) % n : (r + 1) % n]);
  };
  for (std::size_t r = 0; r < n; ++r) {
    for (topo::LinkId l : hop(r, false).links) users[l] += forward;
    if (reverse > 0)
      for (topo::LinkId l : hop(r, true).links) users[l] += reverse;
  }
  const auto per_channel = [&](bool reversed) {
    double least = std::numeric_limits<double>::max();
    for (std::size_t r = 0; r < n; ++r) {
      const topo::Route& route = hop(r, reversed);
      const double efficiency = params.link_efficiency_or_default(route.link_class);
      for (topo::LinkId l : route.links)
        least = std::min(least, static_cast<double>(topology.link(l).bandwidth.bits_per_s) * efficiency / users[l]);
    }
    return least;
  };
  return forward * per_channel(false) + (reverse > 0 ? reverse * per_channel(true) : 0.0);
}

// NCCL's formula needs the fabric as NCCL's search would see it: the per-GPU bandwidth along the
// ring (the slowest rank-to-next-rank route, times its class's efficiency), how many hosts, and
// the class of the steps inside a host.
sim::NcclFormulaInput formula_input(const topo::ModelParams& params, const topo::Topology& topology,
                                    std::span<const topo::NodeId> ranks, topo::AlgoFamily family,
                                    sched::Collective collective, Bytes size, std::uint32_t channels,
                                    topo::PathTable* paths) {
  sim::NcclFormulaInput in;
  in.collective = collective;
  in.family = family;
  in.ranks = static_cast<std::uint32_t>(ranks.size());
  in.channels = channels;
  in.size = size;
  const auto hosts = topo::host_indices(topology, ranks);
  in.nodes = hosts.empty() ? 1 : *std::max_element(hosts.begin(), hosts.end()) + 1;
  topo::RouteCache routes(topology, paths);
  std::optional<double> bus, intra_bus;
  bool intra_found = false;
  const auto rate = [&](const topo::Route& route) {
    return static_cast<double>(route.bottleneck.bits_per_s) *
           params.link_efficiency_or_default(route.link_class);
  };
  for (std::size_t r = 0; ranks.size() > 1 && r < ranks.size(); ++r) {
    const std::size_t next = (r + 1) % ranks.size();
    // Only the steps inside a host count here: a route across hosts is a search of the cluster
    // (Topology::shortest_route), and host_crossing below asks for the few it needs.
    if (!(hosts.empty() || hosts[r] == hosts[next])) continue;
    const topo::Route& route = routes.get(ranks[r], ranks[next]);
    intra_bus = bus = bus ? std::min(*bus, rate(route)) : rate(route);
    if (!intra_found) {
      in.intra = route.link_class;
      intra_found = true;
    }
  }
  if (in.nodes == 1 && ranks.size() > 1) intra_bus = bus = one_host_ring_bus(topology, ranks, channels, routes, params);
  // Between hosts NCCL's channels leave a host through all its NICs (its rings are rotated so,
  // and busBw = nChannels x the per-channel bandwidth, ncclTopoTuneModel): the ring's per-GPU
  // bandwidth there is what the first host's L GPUs send to the next host's at once, each over its
  // own route, divided by the most of them that share one link (L on --nodes K's one uplink).
  if (const auto crossing = topo::host_crossing(routes, ranks, hosts)) {
    std::optional<double> slowest;
    for (std::size_t l = 0; l < crossing->local; ++l) {
      const double r = rate(routes.get(ranks[l], ranks[crossing->local + l]));
      slowest = slowest ? std::min(*slowest, r) : r;
    }
    // Shared as NCCL sees it: a host's own links and NICs, not the spines' ECMP collisions.
    const double inter = *slowest * static_cast<double>(crossing->local) / crossing->host_sharing;
    in.inter_bandwidth = Bandwidth{saturating_cast<std::uint64_t>(inter)};
    // NCCL's model takes the ring's bandwidth inside a node (bwIntra) on one or two nodes and only
    // beyond them the one between nodes (ncclTopoTuneModel, 2.30.7: "nNodes <= 2 ? bwIntra :
    // bwInter"); with one GPU per node there is only the latter.
    if (in.nodes > 2 || !bus) bus = bus ? std::min(*bus, inter) : inter;
  }
  // NCCL indexes its caps by the smallest compute capability (minCompCap); an unknown model, none.
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    const auto a = topo::gpu_arch(topology.node(ranks[r]).model);
    if (!a) {
      in.arch.reset();
      break;
    }
    in.arch = r == 0 ? *a : std::min(*in.arch, *a);
  }
  // double(2^64 - 1) is 2^64, one past what a Bandwidth holds: clamp rather than convert out of range.
  in.bus_bandwidth = Bandwidth{saturating_cast<std::uint64_t>(bus.value_or(0.0))};
  in.intra_bandwidth = Bandwidth{saturating_cast<std::uint64_t>(intra_bus.value_or(0.0))};
  return in;
}

// NCCL's tables have a row per algorithm of its own; the ring row serves every other algorithm.
topo::AlgoFamily cost_family(algo::NcclFamily family) {
  switch (family) {
    case algo::NcclFamily::Tree: return topo::AlgoFamily::Tree;
    case algo::NcclFamily::Nvls: return topo::AlgoFamily::Nvls;
    case algo::NcclFamily::NvlsTree: return topo::AlgoFamily::NvlsTree;
    case algo::NcclFamily::Pat: return topo::AlgoFamily::Pat;
    case algo::NcclFamily::CollNet: return topo::AlgoFamily::CollNet;
    default: return topo::AlgoFamily::Ring;
  }
}

// The NVLS domain of the ranks, or the error that names why there is none.
topo::NvlsDomain find_nvls(const topo::Topology& topology, std::span<const topo::NodeId> ranks) {
  std::string why;
  if (auto d = topo::nvls_domain(topology, ranks, &why)) return *d;
  throw RequestError(Field::Algorithm, "nvls",
                     fmt::format("{}: NVLS needs one switch that reduces for all {} ranks, and topology {} has none "
                                 "({}); expected an NVSwitch of H100, H200, B200 or GB200 GPUs, or a switch with "
                                 "\"nvls\": true",
                                 ref(Field::Algorithm), ranks.size(), topology.name(), why));
}

// NCCL's channel count for a size (topoGetAlgoInfo, src/enqueue.cc, 2.30.7): for its ring, tree and
// PAT, the channels drop one by one while S < nc · nt · threshold, nt its threads per channel
// (ncclTopoTuneModel: 512 for LL and Simple, 256 for the ring's Simple where the ring's bandwidth
// is at most PCI_BW = 12 GB/s, 640 for LL128) and threshold NCCL_*_THREAD_THRESHOLD (LL 8, times
// the ranks on the ring; LL128 8; Simple 64: src/include/comm.h). Only channels the topology set
// drop: a count given by a parameter file or --channels stays.
// `ring_bus` is the ring's per-GPU bandwidth as NCCL's model sees it (formula_input's), asked for
// only for the ring's Simple.
void reduce_channels(Fidelity& f, algo::NcclFamily family, std::size_t ranks, Bytes size,
                     const std::function<Bandwidth()>& ring_bus) {
  if (family != algo::NcclFamily::Ring && family != algo::NcclFamily::Tree && family != algo::NcclFamily::Pat) return;
  const topo::Protocol p = *f.protocol;
  Bytes threads = p == topo::Protocol::LL128 ? 640 : 512;
  if (p == topo::Protocol::Simple && family == algo::NcclFamily::Ring &&
      static_cast<double>(ring_bus().bits_per_s) / 8e9 <= 12.0)
    threads = 256;
  Bytes threshold = p == topo::Protocol::Simple ? 64 : 8;
  if (p == topo::Protocol::LL && family == algo::NcclFamily::Ring) threshold *= ranks;
  const std::uint32_t before = f.channels;
  while (f.channels >= 2 && size < Bytes{f.channels} * threads * threshold) --f.channels;
  if (f.channels != before)
    f.channels_source = fmt::format("{}: {}, fewer for this size as NCCL runs it (topoGetAlgoInfo, src/enqueue.cc)",
                                    f.channels_source, before);
}

// CollNet: the network's switch that reduces (InfiniBand SHARP) when the ranks span hosts.
void find_sharp(Fidelity& f, const topo::Topology& topology, std::span<const topo::NodeId> ranks,
                topo::PathTable* paths) {
  const auto hosts = topo::host_indices(topology, ranks);
  if (hosts.empty() || *std::max_element(hosts.begin(), hosts.end()) == 0) return;
  std::vector<topo::NodeId> heads;  // each host's first rank
  for (std::size_t r = 0; r < ranks.size(); ++r)
    if (hosts[r] == heads.size()) heads.push_back(ranks[r]);
  topo::RouteCache routes(topology, paths);
  std::string why;
  const auto sharp = topo::sharp_switch(topology, heads, routes, &why);
  if (!sharp)
    throw RequestError(Field::Algorithm, "collnet",
                       fmt::format("{}: CollNet needs a network switch that reduces for the hosts, and {}; expected "
                                   "\"sharp\": true on the InfiniBand switch that has SHARP",
                                   ref(Field::Algorithm), why));
  f.reduction_switches.push_back(*sharp);
}

// NVLSTree: the switch that reduces in each host of more than one rank (host_indices' order), the
// smallest efficiency, and NCCL's NVLS channel count for that many nodes and NICs of the rate of
// the first route between hosts (ncclNvlsTreeSm100Tuning reads the NICs' speed). No domain when
// every host has one rank: NVLSTree is then its tree alone.
void find_nvls_tree(Fidelity& f, const topo::Topology& topology, std::span<const topo::NodeId> ranks,
                    topo::PathTable* paths) {
  const auto hosts = topo::host_indices(topology, ranks);
  const std::uint32_t nodes = hosts.empty() ? 1 : *std::max_element(hosts.begin(), hosts.end()) + 1;
  for (std::uint32_t h = 0; h < nodes; ++h) {
    std::vector<topo::NodeId> gpus;
    for (std::size_t r = 0; r < ranks.size(); ++r)
      if (hosts.empty() || hosts[r] == h) gpus.push_back(ranks[r]);
    if (gpus.size() < 2) continue;
    std::string why;
    const auto d = topo::nvls_domain(topology, gpus, &why);
    if (!d)
      throw RequestError(Field::Algorithm, "nvls-tree",
                         fmt::format("{}: NVLSTree needs a switch that reduces in each host, and the {} ranks of host "
                                     "{} of topology {} have none ({}); expected an NVSwitch of H100, H200, B200 or "
                                     "GB200 GPUs, or a switch with \"nvls\": true",
                                     ref(Field::Algorithm), gpus.size(), h, topology.name(), why));
    f.reduction_switches.push_back(d->nvswitch);
    if (!f.nvls) {
      f.nvls = d;
      continue;
    }
    f.nvls->efficiency = std::min(f.nvls->efficiency, d->efficiency);
    f.nvls->arch = d->arch && f.nvls->arch ? std::optional(std::min(*d->arch, *f.nvls->arch)) : std::nullopt;
  }
  if (!f.nvls || !f.nvls->arch) return;
  double nic_GBps = 0;
  if (nodes > 1) {
    const auto second = std::find(hosts.begin(), hosts.end(), 1u) - hosts.begin();
    topo::RouteCache routes(topology, paths);
    nic_GBps = static_cast<double>(routes.get(ranks[0], ranks[static_cast<std::size_t>(second)]).bottleneck.bits_per_s) / 8e9;
  }
  f.nvls->channels = topo::nvls_channels(*f.nvls->arch, nodes, nic_GBps);
}

// The source of a value: the last layer that set it.
template <class T>
void layer(std::optional<T>& value, std::string& source, const std::optional<T>& candidate, const std::string& name) {
  if (!candidate) return;
  value = candidate;
  source = name;
}

}  // namespace

topo::ModelParams load_params_file(const std::string& path) {
  try {
    return topo::load_model_params_file(path);
  } catch (const topo::TopologyError& e) {
    throw RequestError(Field::Params, path, fmt::format("{}: {}", ref(Field::Params), e.what()));
  }
}

topo::ModelParams option_params(const ModelOptions& o, bool schedule_file) {
  topo::ModelParams flags;
  flags.protocol = o.protocol;
  if (o.channels) {
    if (schedule_file)
      throw RequestError(Field::Channels, std::to_string(*o.channels),
                         fmt::format("{}: not allowed with {}, whose ops carry their own channels", ref(Field::Channels),
                                     ref(Field::Schedule)));
    check_count(Field::Channels, *o.channels, 1, 64);
    flags.channels = o.channels;
  }
  flags.slice = o.slice;
  return flags;
}

Fidelity resolve_fidelity(const ModelOptions& o, const topo::Topology& topology,
                          std::span<const topo::NodeId> rank_to_node, algo::NcclFamily family,
                          sched::Collective collective, Bytes size, const std::optional<algo::Request>& request,
                          topo::PathTable* paths) {
  Fidelity f;
  f.nccl = family;
  std::optional<topo::ProtocolChoice> choice;
  std::optional<std::uint32_t> channels;
  std::optional<Bytes> slice;
  const auto apply = [&](const topo::ModelParams& p, const std::string& name) {
    f.params.merge(p);
    layer(choice, f.protocol_source, p.protocol, name);
    layer(channels, f.channels_source, p.channels, name);
    layer(slice, f.slice_source, p.slice, name);
  };
  const bool nvls = family == algo::NcclFamily::Nvls || family == algo::NcclFamily::NvlsTree;
  if (family == algo::NcclFamily::Nvls && rank_to_node.size() > 1) {
    f.nvls = find_nvls(topology, rank_to_node);
    f.reduction_switches.push_back(f.nvls->nvswitch);
  }
  if (family == algo::NcclFamily::NvlsTree && rank_to_node.size() > 1) find_nvls_tree(f, topology, rank_to_node, paths);
  if (family == algo::NcclFamily::CollNet) find_sharp(f, topology, rank_to_node, paths);
  topo::ModelParams topology_params = topology.params();
  if (f.nvls) {
    // The topology's channels are its rings'; NVLS runs NCCL's NVLS channel count unless a
    // parameter file or --channels says otherwise.
    topology_params.channels = f.nvls->channels;
  }
  apply(topology_params, fmt::format("topology {}", topology.name()));
  const std::string topology_channels = f.channels_source;  // later layers replace it
  if (f.nvls)
    f.channels_source = fmt::format("NCCL's NVLS channels for these GPUs (ncclNvlsTuning, src/transport/nvls.cc, "
                                    "2.30.7)");
  if (!o.params.empty()) apply(load_params_file(o.params), fmt::format("--params {}", o.params));
  if (o.fitted) apply(*o.fitted, o.fitted_source);
  const topo::ModelParams flags = option_params(o, !request);
  if (o.max_ops) {
    check_count(Field::MaxOps, *o.max_ops, 1, std::numeric_limits<std::uint32_t>::max());
    f.max_ops = *o.max_ops;
    f.max_ops_requested = true;
  }
  if (o.gpus_per_thread) {
    check_count(Field::GpusPerThread, *o.gpus_per_thread, 1, kMaxGpusPerThread);
    // nccl-tests runs processes x nThread x nGpus ranks: a thread drives at most every rank.
    if (*o.gpus_per_thread > rank_to_node.size())
      throw RequestError(Field::GpusPerThread, std::to_string(*o.gpus_per_thread),
                         fmt::format("{}: found {} ({}), but the run has {} rank{}; expected at most {} (nccl-tests "
                                     "runs processes x nThread x nGpus ranks)",
                                     ref(Field::GpusPerThread), *o.gpus_per_thread, o.gpus_per_thread_source,
                                     rank_to_node.size(), rank_to_node.size() == 1 ? "" : "s", rank_to_node.size()));
    f.gpus_per_thread = *o.gpus_per_thread;
    f.gpus_per_thread_source = o.gpus_per_thread_source;
  }
  layer(choice, f.protocol_source, flags.protocol, "--protocol");
  layer(channels, f.channels_source, flags.channels, "--channels");
  layer(slice, f.slice_source, flags.slice, "--slice");
  f.slice_requested = flags.slice.has_value();
  f.params.merge(flags);

  if (request && channels) {
    f.channels = *channels;
    if (f.channels > 1 && !algo::splits_over_channels(collective)) {
      if (flags.channels)
        throw RequestError(Field::Channels, std::to_string(f.channels),
                           fmt::format("{}: found {}, but {} sends every peer its own block; expected 1 (channels "
                                       "split every collective but alltoall)",
                                       ref(Field::Channels), f.channels, sched::collective_name(collective)));
      f.channels_source = fmt::format("{} gave {}, which split every collective but alltoall",
                                      f.channels_source, f.channels);
      f.channels = 1;
    }
  } else if (!request && channels) {
    f.channels_source = fmt::format("{} gave {}; a schedule file brings its own channels", f.channels_source, *channels);
  }

  // NCCL runs NVLS, NVLSTree, PAT and CollNet with Simple only (ncclTopoTuneModel skips their other
  // protocols).
  const bool simple_only = nvls || family == algo::NcclFamily::Pat || family == algo::NcclFamily::CollNet;
  if (simple_only && choice && *choice != topo::ProtocolChoice::Auto && *choice != topo::ProtocolChoice::Simple)
    throw RequestError(Field::Protocol, std::string(topo::protocol_choice_name(*choice)),
                       fmt::format("{}: NCCL runs NVLS, NVLSTree, PAT and CollNet with its simple protocol only "
                                   "(ncclTopoTuneModel), but {} gave {}; expected simple or auto",
                                   ref(Field::Protocol), f.protocol_source, topo::protocol_choice_name(*choice)));
  // NCCL's send/recv runs LL or Simple (src/enqueue.cc: protocol = protoLL ? LL : SIMPLE).
  if (collective == sched::Collective::SendRecv && choice && *choice == topo::ProtocolChoice::LL128)
    throw RequestError(Field::Protocol, "ll128",
                       fmt::format("{}: NCCL runs send/recv with LL or simple (src/enqueue.cc), but {} gave ll128; "
                                   "expected ll, simple or auto",
                                   ref(Field::Protocol), f.protocol_source));
  // NCCL's model's view of the fabric, computed once for the protocol's pick and the channel count.
  std::optional<sim::NcclFormulaInput> model_input;
  const auto model_view = [&]() -> const sim::NcclFormulaInput& {
    if (!model_input)
      model_input = formula_input(f.params, topology, rank_to_node, cost_family(family), collective, size, f.channels,
                                  paths);
    return *model_input;
  };
  if (choice) {
    f.protocol_auto = *choice == topo::ProtocolChoice::Auto;
    if (f.protocol_auto && (collective == sched::Collective::SendRecv || collective == sched::Collective::AllToAll)) {
      // NCCL runs these as grouped send/recv (nccl-tests src/sendrecv.cu, src/alltoall.cu), whose
      // protocol is not its cost model's: LL while the bytes to a peer are at most nChannels x
      // NCCL_P2P_LL_THRESHOLD (16 KiB), else Simple (src/enqueue.cc, 2.30.7). A peer's bytes: S for
      // sendrecv, the S/N block for all-to-all.
      const Bytes per_peer = collective == sched::Collective::SendRecv ? size : size / std::max<std::size_t>(1, rank_to_node.size());
      f.protocol = per_peer <= Bytes{f.channels} * kP2pLlThreshold ? topo::Protocol::LL : topo::Protocol::Simple;
      f.protocol_rule = "NCCL's send/recv rule (LL up to 16 KiB a channel per peer, src/enqueue.cc)";
    } else if (f.protocol_auto) {
      auto in = model_view();
      in.nvls_efficiency = f.nvls ? f.nvls->efficiency : 0.0;
      // NCCL enables LL128 by default on NVLink paths only (ncclTopoTuneModel, typeIntra <= PATH_NVB).
      f.protocol = sim::nccl_pick_protocol(in, f.params, in.intra == topo::LinkClass::NvLink);
    } else {
      f.protocol = static_cast<topo::Protocol>(*choice);
    }
  }
  f.nccl_channels = f.channels;
  if (request && f.protocol && f.channels_source == topology_channels)
    reduce_channels(f, family, rank_to_node.size(), size, [&] { return model_view().bus_bandwidth; });
  // Slices: as set, else NCCL's slice for the protocol in use, else none.
  if (slice) {
    f.slice = *slice;
  } else if (f.protocol) {
    f.slice = f.params.slice_or_default(*f.protocol);
    f.slice_source = fmt::format("NCCL's slice for {}", topo::protocol_name(*f.protocol));
  }
  f.costs = sim::resolve_costs(f.params, f.protocol, cost_family(family), topology);
  // NCCL's nvlsEfficiency: the share of NVLink bandwidth NVLS reaches (topo::NvlsDomain). It
  // applies with or without a protocol: it is the switch's, not the protocol's.
  if (f.nvls) f.costs.bandwidth_factor[static_cast<std::size_t>(topo::LinkClass::NvLink)] *= f.nvls->efficiency;
  // The host: one thread launches a collective on each of its GPUs every iteration, so an
  // iteration takes no less than their launches (topologies/host_costs.hpp). Under NCCL's model
  // only: the ideal α-β model has no host.
  if (f.protocol) {
    try {
      f.host_floor = checked_mul(f.params.host_launch_or_default(), f.gpus_per_thread);
      f.host_empty = checked_mul(f.params.host_empty_call_or_default(), f.gpus_per_thread);
    } catch (const ClockOverflowError&) {
      throw RequestError(Field::GpusPerThread, std::to_string(f.gpus_per_thread),
                         fmt::format("{}: {} x host_launch {} passes the simulated clock's end (2^63 ps, about 106 "
                                     "days); expected a smaller host_launch or host_empty_call ({})",
                                     ref(Field::GpusPerThread), f.gpus_per_thread,
                                     format_time(f.params.host_launch_or_default()), ref(Field::Params)));
    }
  }
  return f;
}

std::string Fidelity::op_budget_text(std::uint64_t allowed, bool in_error) const {
  // `allowed` passes max_ops where the schedule's least ops (one chunk or slice each) already do.
  const std::string flag = in_error ? ref(Field::MaxOps) : "--max-ops";
  const std::string budget = max_ops_requested ? fmt::format("{} {}", flag, max_ops)
                                               : fmt::format("the default op budget of {} ops ({})", max_ops, flag);
  return allowed > max_ops ? fmt::format("{}, or this schedule's least, {} ops", budget, allowed) : budget;
}

std::optional<Time> nccl_model_time(const Fidelity& f, const topo::Topology& topology,
                                    std::span<const topo::NodeId> rank_to_node, std::string_view algorithm,
                                    sched::Collective collective, Bytes size, topo::PathTable* paths) {
  if (f.nccl == algo::NcclFamily::None) return std::nullopt;
  auto in = formula_input(f.params, topology, rank_to_node, cost_family(f.nccl), collective, size, f.nccl_channels, paths);
  in.nvls_efficiency = f.nvls ? f.nvls->efficiency : 0.0;
  in.protocol = f.protocol ? *f.protocol : sim::nccl_pick_protocol(in, f.params, in.intra == topo::LinkClass::NvLink);
  const auto t = sim::nccl_formula_time(in, f.params);
  if (t && time_saturated(*t))
    throw RequestError(Field::Model, "nccl",
                       fmt::format("{} nccl: NCCL's formula gives {} {} of {} with protocol {} more time than the clock "
                                   "holds (2^63 ps, about 106 days); expected a larger protocol or link efficiency ({}) "
                                   "or a smaller {}",
                                   ref(Field::Model), algorithm, sched::collective_name(collective), format_size(size),
                                   topo::protocol_name(in.protocol), ref(Field::Params), ref(Field::Size)));
  return t;
}

}  // namespace collsim::run
