#include "topologies/hosts.hpp"

#include <map>
#include <string_view>

namespace collsim::topo {

std::vector<std::uint32_t> host_indices(const Topology& topology, std::span<const NodeId> nodes) {
  std::vector<std::uint32_t> out;
  out.reserve(nodes.size());
  std::map<std::string_view, std::uint32_t> index;
  for (NodeId id : nodes) {
    const std::string& host = topology.node(id).host;
    if (host.empty()) return {};
    const auto [it, inserted] = index.try_emplace(host, static_cast<std::uint32_t>(index.size()));
    out.push_back(it->second);
  }
  return out;
}

}  // namespace collsim::topo
