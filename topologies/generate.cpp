#include "topologies/generate.hpp"

#include <fmt/format.h>

namespace collsim::topo {

std::string_view fabric_name(Fabric f) noexcept {
  switch (f) {
    case Fabric::Ring: return "ring";
    case Fabric::Switch: return "switch";
    case Fabric::FullyConnected: return "fully-connected";
  }
  return "?";
}

std::optional<Fabric> parse_fabric(std::string_view s) noexcept {
  if (s == "ring") return Fabric::Ring;
  if (s == "switch") return Fabric::Switch;
  if (s == "fully-connected" || s == "fully_connected") return Fabric::FullyConnected;
  return std::nullopt;
}

Topology generate_fabric(Fabric fabric, std::uint32_t gpus, Bandwidth bandwidth, Time latency) {
  if (gpus == 0) throw TopologyError("--gpus: found 0, expected at least 1 GPU");
  std::vector<Node> nodes;
  nodes.reserve(gpus + 1);
  for (std::uint32_t i = 0; i < gpus; ++i) nodes.push_back(Node{fmt::format("gpu{}", i), NodeType::Gpu, {}, {}});
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
      nodes.push_back(Node{"switch", NodeType::Switch, {}, {}});
      for (std::uint32_t i = 0; i < gpus; ++i) link(i, gpus, LinkType::NvSwitch);
      break;
    case Fabric::FullyConnected:
      for (std::uint32_t i = 0; i < gpus; ++i)
        for (std::uint32_t j = i + 1; j < gpus; ++j) link(i, j, LinkType::NvLink);
      break;
  }
  std::string description = fmt::format("generated: {} GPUs, {} fabric, {} per direction, {} per link", gpus,
                                        fabric_name(fabric), format_bandwidth(bandwidth), format_time(latency));
  return Topology(fmt::format("{}-{}gpu", fabric_name(fabric), gpus), std::move(description), std::move(nodes),
                  std::move(links), "generated fabric");
}

}  // namespace collsim::topo
