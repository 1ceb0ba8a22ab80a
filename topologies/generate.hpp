// Generated fabrics for families of any size (the --gpus/--fabric flags).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "sim/units/enum_names.hpp"
#include "topologies/topology.hpp"

namespace collsim::topo {

/// ring: a full-duplex link between each GPU and the next (GPU i -- GPU i+1 mod N; one link for N = 2);
/// switch: one full-duplex link from each GPU to one central switch (a GPU-to-GPU route has two links);
/// fully-connected: one full-duplex link per GPU pair.
enum class Fabric : std::uint8_t { Ring, Switch, FullyConnected };

/// The --fabric names, in the order above; "fully_connected" also reads as fully-connected.
inline constexpr auto kFabricNames = make_enum_names<Fabric>(
    {{Fabric::Ring, "ring"}, {Fabric::Switch, "switch"}, {Fabric::FullyConnected, "fully-connected", {"fully_connected"}}});

/// "ring", "switch", "fully-connected".
std::string_view fabric_name(Fabric f) noexcept;
/// "ring", "switch", "fully-connected" (also "fully_connected"); nullopt otherwise.
std::optional<Fabric> parse_fabric(std::string_view s) noexcept;

/// Builds `gpus` GPUs (ids gpu0..gpuN-1) on `fabric`, every link with the given bandwidth per
/// direction and latency, link type nvlink (switch fabric: nvswitch). Throws TopologyError when
/// gpus == 0. The name is e.g. "ring-8gpu".
Topology generate_fabric(Fabric fabric, std::uint32_t gpus, Bandwidth bandwidth, Time latency);

/// A cluster of `hosts` machines of gpus/hosts GPUs each (the --nodes flag).
struct MultiNodeSpec {
  std::uint32_t gpus = 1;      ///< N, over all hosts
  std::uint32_t hosts = 1;     ///< K; must divide N
  Bandwidth link_bandwidth;    ///< each GPU's link to its host's switch, per direction
  Time link_latency{0};
  Bandwidth net_bandwidth;     ///< each host switch's link to the network switch, per direction
  Time net_latency{0};
};

/// Builds K hosts of L = N/K GPUs each: GPUs gpu0..gpuN-1, host h holding gpu(h·L) .. gpu(h·L+L-1)
/// (so ranks in file order fill one host after another) and its switch "host<h>-switch", each GPU
/// joined to its host's switch by one full-duplex nvswitch link (as the switch fabric), and every
/// host switch joined to one switch "network" by one full-duplex infiniband link of the net
/// bandwidth and latency (all L GPUs of a host share that uplink). GPUs and host switches have
/// Node::host "host<h>". One host (K = 1) needs no network: it is the switch fabric with host0 on
/// its nodes. A route between hosts has four links, gpu -> host switch -> network -> host switch
/// -> gpu. Throws TopologyError naming --gpus/--nodes when N or K is 0 or K does not divide N.
/// The name is e.g. "switch-16gpu-2node".
Topology generate_multi_node(const MultiNodeSpec& spec);

}  // namespace collsim::topo
