// Generated fabrics for families of any size (the --gpus/--fabric flags).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "topologies/topology.hpp"

namespace collsim::topo {

/// ring: a full-duplex link between each GPU and the next (GPU i -- GPU i+1 mod N; one link for N = 2);
/// switch: one full-duplex link from each GPU to one central switch (a GPU-to-GPU route has two links);
/// fully-connected: one full-duplex link per GPU pair.
enum class Fabric : std::uint8_t { Ring, Switch, FullyConnected };

std::string_view fabric_name(Fabric f) noexcept;
/// "ring", "switch", "fully-connected" (also "fully_connected"); nullopt otherwise.
std::optional<Fabric> parse_fabric(std::string_view s) noexcept;

/// Builds `gpus` GPUs (ids gpu0..gpuN-1) on `fabric`, every link with the given bandwidth per
/// direction and latency, link type nvlink (switch fabric: nvswitch). Throws TopologyError when
/// gpus == 0. The name is e.g. "ring-8gpu".
Topology generate_fabric(Fabric fabric, std::uint32_t gpus, Bandwidth bandwidth, Time latency);

}  // namespace collsim::topo
