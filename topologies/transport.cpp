#include "topologies/transport.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "sim/units/saturate.hpp"

namespace collsim::topo {

PathType path_type(const Topology& topology, std::span<const LinkId> route) {
  bool nvlink_only = true;
  std::uint32_t cpus = 0, switches = 0;
  for (std::size_t i = 0; i < route.size(); ++i) {
    const Link& l = topology.link(route[i]);
    const LinkClass c = link_class(l.type);
    if (c == LinkClass::Network) return PathType::Net;
    nvlink_only = nvlink_only && c == LinkClass::NvLink;
    if (i + 1 == route.size()) break;  // the destination is not passed through
    switch (topology.node(l.to).type) {
      case NodeType::Nic: return PathType::Net;
      case NodeType::Cpu: ++cpus; break;
      case NodeType::Switch: ++switches; break;
      case NodeType::Gpu: break;
    }
  }
  if (nvlink_only) return PathType::Nvl;
  if (cpus >= 2) return PathType::Sys;
  if (cpus == 1) return PathType::Phb;
  return switches <= 1 ? PathType::Pix : PathType::Pxb;
}

P2pLevel default_p2p_level(const Topology& topology, NodeId gpu) {
  const Topology::HostSummary& host = topology.host_summary(gpu);
  // ncclTopoCheckP2p (src/graph/paths.cc, NCCL 2.30.7): "Allow P2P between pairs of GPU devices on
  // AMD systems".
  return host.cpu_vendor == CpuVendor::Amd && host.gpus <= 2 ? P2pLevel::Sys : P2pLevel::Pxb;
}

P2pLevel p2p_level_of(const Topology& topology, NodeId gpu) {
  if (const auto level = topology.p2p_level()) return *level;
  return default_p2p_level(topology, gpu);
}

Transport transport_between(const Topology& topology, NodeId from, NodeId to, PathType path) {
  if (path == PathType::Net || topology.node(from).host != topology.node(to).host) return Transport::Net;
  const bool can = topology.node(from).p2p && topology.node(to).p2p;
  return can && p2p_allowed(path, p2p_level_of(topology, to)) ? Transport::P2p : Transport::Shm;
}

std::optional<NodeId> local_cpu(const Topology& topology, NodeId gpu) {
  std::optional<NodeId> best;
  std::pair<std::size_t, std::int64_t> best_cost{};
  for (NodeId n = 0; n < topology.nodes().size(); ++n) {
    if (topology.node(n).type != NodeType::Cpu) continue;
    std::vector<LinkId> route;
    try {
      route = topology.shortest_route(gpu, n);
    } catch (const TopologyError&) {
      continue;  // not reachable from this GPU
    }
    Time latency{0};
    for (LinkId l : route) latency = saturating_add(latency, topology.link(l).latency);
    const std::pair<std::size_t, std::int64_t> cost{route.size(), latency.count()};
    if (!best || cost < best_cost) {
      best = n;
      best_cost = cost;
    }
  }
  return best;
}

std::vector<LinkId> shm_route(const Topology& topology, NodeId from, NodeId to, NodeId cpu) {
  std::vector<LinkId> route = topology.shortest_route(from, cpu);
  const std::vector<LinkId> down = topology.shortest_route(cpu, to);
  route.insert(route.end(), down.begin(), down.end());
  return route;
}

TopologyError no_shm_cpu_error(const Topology& topology, NodeId from, NodeId to, PathType path) {
  return TopologyError(fmt::format("{}: GPUs \"{}\" and \"{}\" may not use P2P ({} path, P2P level {}) and no cpu node "
                                   "is linked to them for host memory (SHM); expected a cpu node reachable from both, "
                                   "or a P2P level that allows {}",
                                   topology.name(), topology.node(from).id, topology.node(to).id,
                                   kPathTypeNames.name(path), kP2pLevelNames.name(p2p_level_of(topology, to)),
                                   kPathTypeNames.name(path)));
}

TransportSummary transport_summary(const Topology& topology, std::uint32_t max_gpus) {
  TransportSummary s;
  const auto gpus_all = topology.gpus();
  s.host = topology.node(gpus_all.front()).host;
  std::vector<NodeId> gpus;
  for (NodeId g : gpus_all)
    if (topology.node(g).host == s.host && gpus.size() < max_gpus) gpus.push_back(g);
  s.gpus = static_cast<std::uint32_t>(gpus.size());
  s.level = p2p_level_of(topology, gpus.front());
  s.level_given = topology.p2p_level().has_value();
  for (NodeId a : gpus)
    for (NodeId b : gpus) {
      if (a == b) continue;
      const PathType path = path_type(topology, topology.shortest_route(a, b));
      const Transport t = transport_between(topology, a, b, path);
      if (t == Transport::Shm && !local_cpu(topology, b)) throw no_shm_cpu_error(topology, a, b, path);
      ++s.by_transport[static_cast<std::size_t>(t)];
      ++s.by_path[static_cast<std::size_t>(path)];
    }
  return s;
}

std::string transport_summary_text(const TransportSummary& s) {
  std::string transports, paths;
  for (Transport t : kTransportNames.values())
    if (const auto n = s.by_transport[static_cast<std::size_t>(t)])
      transports += fmt::format("{}{} {}", transports.empty() ? "" : ", ", kTransportNames.name(t), n);
  for (PathType p : kPathTypeNames.values())
    if (const auto n = s.by_path[static_cast<std::size_t>(p)])
      paths += fmt::format("{}{} {}", paths.empty() ? "" : ", ", kPathTypeNames.name(p), n);
  if (transports.empty()) transports = "none";
  return fmt::format("{} GPU pairs of {} GPUs{}: {} (paths {}); P2P level {}{}",
                     s.by_transport[0] + s.by_transport[1] + s.by_transport[2], s.gpus,
                     s.host.empty() ? "" : fmt::format(" on host {}", s.host), transports,
                     paths.empty() ? "none" : paths, fmt::format("{}", kP2pLevelNames.name(s.level)),
                     s.level_given ? "" : ", NCCL's default");
}

}  // namespace collsim::topo
