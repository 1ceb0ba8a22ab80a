#include "topologies/sharp.hpp"

#include <fmt/format.h>

namespace collsim::topo {

std::optional<NodeId> sharp_switch(const Topology& topology, std::string* why) {
  for (NodeId n = 0; n < topology.nodes().size(); ++n)
    if (topology.node(n).type == NodeType::Switch && topology.node(n).sharp) return n;
  if (why) *why = fmt::format("no switch of topology {} says \"sharp\": true", topology.name());
  return std::nullopt;
}

}  // namespace collsim::topo
