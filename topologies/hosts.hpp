// Which machine (host, cluster node) each GPU belongs to, as the topology's "host" keys say.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "topologies/topology.hpp"

namespace collsim::topo {

/// The host index of each node of `nodes`, in that order: nodes with the same Node::host share an
/// index, and indices are numbered 0, 1, .. in order of first appearance in `nodes` (so the ranks
/// of two hosts in file order read 0,0,..,1,1,..). Empty when `nodes` is empty or any of them has
/// no host: the grouping is then unknown, not "one host each".
std::vector<std::uint32_t> host_indices(const Topology& topology, std::span<const NodeId> nodes);

}  // namespace collsim::topo
