#include "topologies/cluster.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <vector>

#include <fmt/format.h>

namespace collsim::topo {
namespace {

// InfiniBand NDR: NCCL reaches 46-48 of a NIC's 50 GB/s (NCCL maintainers, nccl-tests issue #212's
// thread), as the bundled multi-node machines count it.
constexpr double kNetworkEfficiency = 0.94;

std::optional<double> parse_positive(std::string_view text) {
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v) || v <= 0) return std::nullopt;
  return v;
}

}  // namespace

std::optional<double> parse_oversubscription(std::string_view text) noexcept {
  const auto colon = text.find(':');
  const auto down = parse_positive(text.substr(0, colon));
  const auto up = colon == std::string_view::npos ? std::optional<double>(1.0) : parse_positive(text.substr(colon + 1));
  if (!down || !up || *down / *up < 1.0) return std::nullopt;
  return *down / *up;
}

Topology generate_cluster(const Topology& machine, const ClusterSpec& spec) {
  if (spec.nodes == 0) throw TopologyError("--nodes: found 0, expected at least 1 host");
  if (!(spec.oversubscription >= 1.0) || !std::isfinite(spec.oversubscription))
    throw TopologyError(fmt::format("--oversubscription: found {}, expected a ratio of at least 1 (1:1, 2:1 ...)",
                                    spec.oversubscription));
  for (const Node& n : machine.nodes())
    if (!n.host.empty())
      throw TopologyError(fmt::format("--node: {} puts node \"{}\" on host \"{}\"; expected one machine (no \"host\") "
                                      "to copy into every host of the cluster",
                                      machine.name(), n.id, n.host));
  // As many GPUs as --gpus generates at most: past that every table of a run outgrows memory (a
  // million hosts of 8 ran for minutes before the kernel killed it).
  constexpr std::uint64_t kMaxClusterGpus = std::uint64_t{1} << 20;
  if (std::uint64_t{spec.nodes} * machine.gpus().size() > kMaxClusterGpus)
    throw TopologyError(fmt::format("--nodes: found {} hosts of {} GPUs = {} GPUs, expected at most {} GPUs in all "
                                    "(2^20, as --gpus): --nodes {} or fewer",
                                    spec.nodes, machine.gpus().size(), std::uint64_t{spec.nodes} * machine.gpus().size(),
                                    kMaxClusterGpus, kMaxClusterGpus / std::max<std::size_t>(1, machine.gpus().size())));
  std::vector<NodeId> machine_nics;
  for (NodeId n = 0; n < machine.nodes().size(); ++n)
    if (machine.node(n).type == NodeType::Nic) machine_nics.push_back(n);
  const bool add_nics = machine_nics.empty();
  const auto nics_per_host = static_cast<std::uint32_t>(add_nics ? machine.gpus().size() : machine_nics.size());
  // Planes split a host's NICs evenly (NIC i on plane i mod P), as multi-plane fabrics are built:
  // with uneven planes some GPUs' NICs would share a plane that others have alone.
  if (spec.planes == 0 || spec.planes > nics_per_host || nics_per_host % spec.planes != 0) {
    std::string divisors;
    for (std::uint32_t d = 1; d <= nics_per_host; ++d)
      if (nics_per_host % d == 0) divisors += fmt::format("{}{}", divisors.empty() ? "" : ", ", d);
    throw TopologyError(fmt::format("--planes: found {}, expected a divisor of the {} NICs a host of {} has ({}), so "
                                    "that every plane holds as many of them",
                                    spec.planes, nics_per_host, machine.name(), divisors));
  }
  // A fat tree's leaves hold whole hosts, or a host's NICs in equal parts: a host straddling two
  // leaves unevenly would send its channels through whichever NIC shares the peer's leaf.
  const std::uint32_t per_plane = nics_per_host / spec.planes;
  const auto fits = [&](std::uint32_t n) { return n % per_plane == 0 || per_plane % n == 0; };
  std::uint32_t leaf_nics = spec.leaf_nics == 0 ? kDefaultLeafNics : spec.leaf_nics;
  if (spec.fabric == ClusterFabric::FatTree && !fits(leaf_nics)) {
    if (spec.leaf_nics != 0)
      throw TopologyError(fmt::format("--leaf-nics: found {0}, expected a multiple or a divisor of the {1} NICs a host "
                                      "has in a plane, e.g. --leaf-nics {2}, so that a leaf holds whole hosts or equal "
                                      "parts of one",
                                      leaf_nics, per_plane, per_plane * std::max<std::uint32_t>(1, leaf_nics / per_plane)));
    // The default's 32 down ports neither hold whole hosts nor equal parts of one (GB200 NVL72's
    // 72 NICs): a leaf takes the largest equal part of a host that fits in them (24).
    while (!fits(leaf_nics)) --leaf_nics;
  }
  const std::uint32_t spines =
      spec.spines != 0
          ? spec.spines
          : std::max<std::uint32_t>(1, static_cast<std::uint32_t>(std::ceil(leaf_nics / spec.oversubscription - 1e-9)));
  if (spines == 0) throw TopologyError("--spines: found 0, expected at least 1 spine switch");

  // An added NIC hangs off its GPU's PCIe: no faster than the GPU's own PCIe link where the machine
  // has one (an L40S's Gen4 x16), else the spec's (DGX H100's Gen5 x16 to its ConnectX-7).
  std::vector<Bandwidth> nic_pcie(machine.gpus().size(), spec.nic_pcie);
  for (std::size_t i = 0; i < machine.gpus().size(); ++i)
    for (LinkId l : machine.out_links(machine.gpus()[i]))
      if (machine.link(l).type == LinkType::Pcie) nic_pcie[i] = std::min(nic_pcie[i], machine.link(l).bandwidth);
  std::vector<Node> nodes;
  std::vector<LinkSpec> links;
  const std::size_t per_host = machine.nodes().size() + (add_nics ? nics_per_host : 0);
  nodes.reserve(per_host * spec.nodes);
  std::vector<NodeId> nic;  // by host-major NIC index: its node id in the cluster
  nic.reserve(std::size_t{nics_per_host} * spec.nodes);
  for (std::uint32_t h = 0; h < spec.nodes; ++h) {
    const auto base = static_cast<NodeId>(nodes.size());
    const std::string host = fmt::format("node{}", h);
    for (const Node& n : machine.nodes()) {
      Node copy = n;
      copy.id = fmt::format("n{}-{}", h, n.id);
      copy.host = host;
      nodes.push_back(std::move(copy));
    }
    for (LinkId l = 0; l < machine.links().size(); l += 2) {  // link i of the file is directed 2i, 2i+1
      const Link& k = machine.link(l);
      links.push_back(LinkSpec{base + k.from, base + k.to, k.type, k.bandwidth, k.latency, k.duplex});
    }
    if (add_nics) {
      for (std::uint32_t i = 0; i < nics_per_host; ++i) {
        const auto id = static_cast<NodeId>(nodes.size());
        Node n;
        n.id = fmt::format("n{}-nic{}", h, i);
        n.type = NodeType::Nic;
        n.host = host;
        nodes.push_back(std::move(n));
        links.push_back(LinkSpec{base + machine.gpus()[i], id, LinkType::Pcie, nic_pcie[i], spec.nic_pcie_latency,
                                 Duplex::Full});
        nic.push_back(id);
      }
    } else {
      for (NodeId n : machine_nics) nic.push_back(base + n);
    }
  }

  // Leaves and spines, plane by plane. In plane p, a fat tree's leaves take the plane's NICs in host
  // order, leaf_nics each; a rail-optimized one gives each rail (NIC index i of every host) its own
  // leaves, leaf_nics hosts each.
  const auto add_switch = [&](std::string id) {
    Node n;
    n.id = std::move(id);
    n.type = NodeType::Switch;
    nodes.push_back(std::move(n));
  };
  const auto prefix = [&](std::uint32_t p) { return spec.planes > 1 ? fmt::format("plane{}-", p) : std::string(); };
  const std::uint64_t uplink_bits = static_cast<std::uint64_t>(
      std::llround(static_cast<double>(leaf_nics) * static_cast<double>(spec.nic_bandwidth.bits_per_s) /
                   (spec.oversubscription * spines)));
  // A link slower than 1 Gb/s (1000BASE-T, the slowest data-centre Ethernet) is a typo, not a
  // fabric: refused here, naming the flag that made it so, rather than as a run whose time passes
  // the clock's end and blames --size. A NIC that slow is --net-bandwidth's; with NICs of at least
  // 1 Gb/s, a leaf's uplinks are, the spines' share of it --spines' (where given and the ratio
  // allows a spine at all), else --oversubscription's.
  constexpr std::uint64_t kSlowestLink = 1'000'000'000;
  if (spec.nic_bandwidth.bits_per_s < kSlowestLink)
    throw TopologyError(fmt::format("--net-bandwidth: found {} b/s, expected at least 1 Gb/s for a cluster's NICs",
                                    spec.nic_bandwidth.bits_per_s));
  if (uplink_bits < kSlowestLink) {
    const double leaf_bits = static_cast<double>(leaf_nics) * static_cast<double>(spec.nic_bandwidth.bits_per_s);
    const double max_spines = leaf_bits / (spec.oversubscription * static_cast<double>(kSlowestLink));
    if (spec.spines != 0 && max_spines >= 1.0)
      throw TopologyError(fmt::format("--spines: found {}, so many that a leaf's link to each carries {} b/s; expected "
                                      "at most {} (links of at least 1 Gb/s)",
                                      spines, uplink_bits, static_cast<std::uint64_t>(max_spines)));
    throw TopologyError(fmt::format("--oversubscription: found {}, so much that a leaf's link to each spine carries {} "
                                    "b/s; expected at most {}:1 (links of at least 1 Gb/s)",
                                    spec.oversubscription, uplink_bits,
                                    std::floor(leaf_bits / (static_cast<double>(kSlowestLink) * spines))));
  }
  std::uint32_t leaves_total = 0;
  for (std::uint32_t p = 0; p < spec.planes; ++p) {
    const auto first_spine = static_cast<NodeId>(nodes.size());
    for (std::uint32_t s = 0; s < spines; ++s) add_switch(fmt::format("{}spine{}", prefix(p), s));
    const auto add_leaf = [&](std::string id) {
      const auto leaf = static_cast<NodeId>(nodes.size());
      add_switch(std::move(id));
      for (std::uint32_t s = 0; s < spines; ++s)
        links.push_back(LinkSpec{leaf, first_spine + s, LinkType::InfiniBand, Bandwidth{uplink_bits},
                                 spec.switch_latency, Duplex::Full});
      ++leaves_total;
      return leaf;
    };
    const auto join = [&](NodeId nic_node, NodeId leaf) {
      links.push_back(LinkSpec{nic_node, leaf, LinkType::InfiniBand, spec.nic_bandwidth, spec.nic_latency, Duplex::Full});
    };
    if (spec.fabric == ClusterFabric::FatTree) {
      std::uint32_t placed = 0;
      NodeId leaf = 0;
      for (std::uint32_t h = 0; h < spec.nodes; ++h)
        for (std::uint32_t i = p; i < nics_per_host; i += spec.planes) {
          if (placed % leaf_nics == 0) leaf = add_leaf(fmt::format("{}leaf{}", prefix(p), placed / leaf_nics));
          join(nic[std::size_t{h} * nics_per_host + i], leaf);
          ++placed;
        }
    } else {
      for (std::uint32_t i = p; i < nics_per_host; i += spec.planes) {
        NodeId leaf = 0;
        for (std::uint32_t h = 0; h < spec.nodes; ++h) {
          if (h % leaf_nics == 0) leaf = add_leaf(fmt::format("{}rail{}-leaf{}", prefix(p), i, h / leaf_nics));
          join(nic[std::size_t{h} * nics_per_host + i], leaf);
        }
      }
    }
  }

  std::string description = fmt::format(
      "generated cluster: {} hosts of {} ({} GPUs each), {} NICs per host ({}) at {} per direction and {} to their "
      "leaf; {} leaf switch{} of {} NICs and {} spine switch{}{} per plane, {} plane{}, each leaf linked to every spine "
      "of its plane at {} per direction ({}:1 down to up), {} per leaf-spine link. The machine is {} (`collsim topo` shows its sources).",
      spec.nodes, machine.name(), machine.gpus().size(), nics_per_host,
      add_nics ? fmt::format("added, one per GPU on a PCIe link of {}", format_bandwidth(spec.nic_pcie))
               : "the machine's",
      format_bandwidth(spec.nic_bandwidth), format_time(spec.nic_latency), leaves_total,
      leaves_total == 1 ? "" : "es", leaf_nics, spines, spines == 1 ? "" : "es",
      spec.fabric == ClusterFabric::Rail ? " (rail-optimized: NIC i of every host on rail i's leaves)" : "",
      spec.planes, spec.planes == 1 ? "" : "s", format_bandwidth(Bandwidth{uplink_bits}), spec.oversubscription,
      format_time(spec.switch_latency), machine.name());
  // With several planes a GPU reaches another plane's NICs only through a GPU of its host that it
  // enters over NVLink (PXN); a machine without NVLink between them (an L40S box) leaves GPUs of
  // two planes with no route, which the constructor finds: said in terms of the flag that did it.
  const auto build = [&] {
    return Topology(fmt::format("{}-{}node-{}", machine.name(), spec.nodes, kClusterFabricNames.name(spec.fabric)),
                    std::move(description), std::move(nodes), std::move(links), "generated cluster");
  };
  Topology cluster = spec.planes == 1 ? build() : [&] {
    try {
      return build();
    } catch (const TopologyError& e) {
      throw TopologyError(fmt::format("--planes: found {}, expected 1 for {}, whose GPUs do not all reach each other "
                                      "over NVLink (a route to another plane's NIC passes a GPU of the host, as "
                                      "NCCL's PXN does): {}",
                                      spec.planes, machine.name(), e.what()));
    }
  }();
  ModelParams params = machine.params();
  if (!params.empty() && !params.link_efficiency[static_cast<std::size_t>(LinkClass::Network)])
    params.link_efficiency[static_cast<std::size_t>(LinkClass::Network)] = kNetworkEfficiency;
  cluster.set_params(std::move(params));
  cluster.set_p2p_level(machine.p2p_level());
  return cluster;
}

}  // namespace collsim::topo
