#include "topologies/generate.hpp"

#include <fmt/format.h>

namespace collsim::topo {

static_assert(kFabricNames.dense() && kFabricNames.distinct());

std::string_view fabric_name(Fabric f) noexcept { return kFabricNames.name(f); }

std::optional<Fabric> parse_fabric(std::string_view s) noexcept { return kFabricNames.parse(s); }

Topology generate_fabric(Fabric fabric, std::uint32_t gpus, Bandwidth bandwidth, Time latency) {
  if (gpus == 0) throw TopologyError("--gpus: found 0, expected at least 1 GPU");
  std::vector<Node> nodes;
  nodes.reserve(gpus + 1);
  for (std::uint32_t i = 0; i < gpus; ++i) nodes.push_back(Node{fmt::format("gpu{}", i), NodeType::Gpu, {}, {}, {}});
  std::vector<LinkSpec> links;
  const auto link = [&](NodeId a, NodeId b, LinkType t) {
    links.push_back(LinkSpec{a, b, t, bandwidth, latency, Duplex::Full});
  };
  switch (fabric) {
    case Fabric::Ring:
      // For N = 2 the ring's two neighbours are the same GPU: one link, used in both directions.
      if (gpus == 2) link(0, 1, LinkType::NvLink);
      if (gpus > 2)
        for (std::uint32_t i = 0; i < gpus; ++i) link(i, (i + 1) % gpus, LinkType::NvLink);
      break;
    case Fabric::Switch:
      nodes.push_back(Node{"switch", NodeType::Switch, {}, {}, {}});
      for (std::uint32_t i = 0; i < gpus; ++i) link(i, gpus, LinkType::NvSwitch);
      break;
    case Fabric::FullyConnected:
      for (std::uint32_t i = 0; i < gpus; ++i)
        for (std::uint32_t j = i + 1; j < gpus; ++j) link(i, j, LinkType::NvLink);
      break;
  }
  std::string description = fmt::format("generated: {} GPUs, {} fabric, {} per direction, {} per link", gpus,
                                        fabric_name(fabric), format_bandwidth(bandwidth), format_time(latency));
  const auto n = static_cast<NodeId>(nodes.size());
  Topology t(fmt::format("{}-{}gpu", fabric_name(fabric), gpus), std::move(description), std::move(nodes),
             std::move(links), "generated fabric");
  // Every fabric here looks the same from each GPU: GPU i -> GPU i + 1 (the switch stays) maps it
  // onto itself.
  if (gpus > 1) {
    std::vector<NodeId> rotation(n);
    for (NodeId v = 0; v < n; ++v) rotation[v] = v < gpus ? (v + 1) % gpus : v;
    t.set_rotation(std::move(rotation), 1);
  }
  return t;
}

Topology generate_multi_node(const MultiNodeSpec& spec) {
  const std::uint32_t n = spec.gpus, k = spec.hosts;
  if (n == 0) throw TopologyError("--gpus: found 0, expected at least 1 GPU");
  if (k == 0) throw TopologyError("--nodes: found 0, expected at least 1 host");
  if (n % k != 0)
    throw TopologyError(fmt::format("--nodes: --gpus {} is not a multiple of --nodes {}; expected the same number of "
                                    "GPUs on every host", n, k));
  const std::uint32_t per_host = n / k;
  std::vector<Node> nodes;
  nodes.reserve(std::size_t{n} + k + 1);
  for (std::uint32_t i = 0; i < n; ++i)
    nodes.push_back(Node{fmt::format("gpu{}", i), NodeType::Gpu, {}, fmt::format("host{}", i / per_host), {}});
  const NodeId first_switch = n;
  for (std::uint32_t h = 0; h < k; ++h)
    nodes.push_back(Node{fmt::format("host{}-switch", h), NodeType::Switch, {}, fmt::format("host{}", h), {}});
  std::vector<LinkSpec> links;
  links.reserve(std::size_t{n} + k);
  for (std::uint32_t i = 0; i < n; ++i)
    links.push_back(LinkSpec{i, first_switch + i / per_host, LinkType::NvSwitch, spec.link_bandwidth,
                             spec.link_latency, Duplex::Full});
  std::string description = fmt::format(
      "generated: {} hosts of {} GPUs; each host's GPUs on its own switch, {} per direction, {} per link", k, per_host,
      format_bandwidth(spec.link_bandwidth), format_time(spec.link_latency));
  if (k > 1) {
    const NodeId network = first_switch + k;
    nodes.push_back(Node{"network", NodeType::Switch, {}, {}, {}});
    for (std::uint32_t h = 0; h < k; ++h)
      links.push_back(LinkSpec{first_switch + h, network, LinkType::InfiniBand, spec.net_bandwidth, spec.net_latency,
                               Duplex::Full});
    description += fmt::format("; the host switches joined by one network switch, infiniband, {} per direction, {} "
                               "per link", format_bandwidth(spec.net_bandwidth), format_time(spec.net_latency));
  }
  const auto count = static_cast<NodeId>(nodes.size());
  Topology t(fmt::format("switch-{}gpu-{}node", n, k), std::move(description), std::move(nodes), std::move(links),
             "generated fabric");
  // Host h -> host h + 1 (its GPUs and its switch; the network switch stays) maps it onto itself.
  if (k > 1) {
    std::vector<NodeId> rotation(count);
    for (NodeId v = 0; v < count; ++v)
      rotation[v] = v < n ? (v + per_host) % n : v < first_switch + k ? first_switch + (v - first_switch + 1) % k : v;
    t.set_rotation(std::move(rotation), per_host);
  } else if (n > 1) {
    std::vector<NodeId> rotation(count);
    for (NodeId v = 0; v < count; ++v) rotation[v] = v < n ? (v + 1) % n : v;
    t.set_rotation(std::move(rotation), 1);
  }
  return t;
}

}  // namespace collsim::topo
