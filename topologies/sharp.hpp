// InfiniBand SHARP (Scalable Hierarchical Aggregation and Reduction Protocol): a network switch
// that reduces what the hosts send it and returns the sum to each (NVIDIA SHARP documentation; NCCL's
// CollNet algorithms through its SHARP plugin, src/transport/coll_net.cc). Which switch of a
// topology does it.
#pragma once

#include <optional>
#include <string>

#include "topologies/topology.hpp"

namespace collsim::topo {

/// The first switch of `topology` (in file order) that says "sharp": true, or nullopt with the
/// reason in `why` when given. A switch reduces in the network only when its file says so: SHARP
/// needs switches that have it and a subnet manager that enables it, which nothing else in a
/// topology tells.
std::optional<NodeId> sharp_switch(const Topology& topology, std::string* why = nullptr);

}  // namespace collsim::topo
