// Clusters: K copies of a machine (a bundled or file topology, one host) joined through their NICs
// by a network fabric of leaf and spine switches, as people build GPU clusters (--node M --nodes K
// --fabric fat-tree|rail, or a topology file's "cluster" object).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "sim/units/enum_names.hpp"
#include "sim/units/units.hpp"
#include "topologies/topology.hpp"

namespace collsim::topo {

/// fat-tree: the NICs fill leaf switches in host order (a host's NICs share a leaf), every leaf
/// linked to every spine of its plane (2 tiers). rail: rail-optimized, NIC i of every host on the
/// leaves of rail i (NVIDIA's DGX SuperPOD layout), the rails joined by the spines.
enum class ClusterFabric : std::uint8_t { FatTree, Rail };

inline constexpr auto kClusterFabricNames = make_enum_names<ClusterFabric>(
    {{ClusterFabric::FatTree, "fat-tree", {"fat_tree", "fattree"}}, {ClusterFabric::Rail, "rail", {"rail-optimized"}}},
    NameMatch::IgnoreCase);

/// What a cluster is made of besides its machine. Defaults: InfiniBand NDR (400 Gb/s = 50 GB/s per
/// NIC and direction, ConnectX-7 datasheet) on 64-port NDR switches (NVIDIA QM9700 datasheet: 64
/// ports of 400 Gb/s), half of a leaf's ports down to NICs and half up (1:1), 700 ns per network
/// link as the bundled dgx-h100-2node-ib400; NICs added where the machine has none sit on their
/// GPU's PCIe Gen5 x16 link (63 GB/s per direction, PCI-SIG PCIe 5.0; DGX H100's ConnectX-7s).
/// A leaf's down ports by default: half of a 64-port NDR switch (NVIDIA QM9700 datasheet).
inline constexpr std::uint32_t kDefaultLeafNics = 32;

struct ClusterSpec {
  std::uint32_t nodes = 1;                 ///< K hosts, >= 1
  ClusterFabric fabric = ClusterFabric::FatTree;
  /// NICs below each leaf switch (its down ports); 0: kDefaultLeafNics, or on a fat tree whose
  /// hosts' NICs per plane 32 neither divides nor is a multiple of, the largest divisor of that count
  /// below 32 (GB200 NVL72's 72 NICs: 24, a third of a host per leaf).
  std::uint32_t leaf_nics = 0;
  /// Spine switches per plane; 0: one per leaf uplink port, ceil(leaf_nics / oversubscription).
  std::uint32_t spines = 0;
  double oversubscription = 1.0;           ///< a leaf's down to up bandwidth, >= 1 (2 is 2:1)
  std::uint32_t planes = 1;                ///< NIC i of a host joins plane i mod P; a divisor of the NICs per host
  Bandwidth nic_bandwidth{400'000'000'000};  ///< per NIC and direction (--net-bandwidth)
  Time nic_latency{700'000};               ///< NIC <-> leaf link (--net-latency)
  Time switch_latency{700'000};            ///< leaf <-> spine link
  Bandwidth nic_pcie{63'000'000'000ull * 8};  ///< GPU <-> NIC link of an added NIC
  Time nic_pcie_latency{500'000};
};

/// The cluster of `spec.nodes` copies of `machine` (one host: no node of it has a "host"). Host h's
/// nodes are the machine's with ids prefixed "n<h>-" and host "node<h>", so ranks fill one host after
/// another. Its NICs, in file order, are NIC 0, 1, ...; a machine without NICs gets one per GPU
/// ("n<h>-nic<i>", linked to GPU i at nic_pcie, or at the GPU's own PCIe link's rate where that is
/// lower). Each NIC links to its leaf by an infiniband link of the NIC
/// rate; each leaf to every spine of its plane by one infiniband link of leaf_nics x rate /
/// (oversubscription x spines) (the leaf's uplink ports to that spine bundled). Switches are
/// "leaf<l>" and "spine<s>" (fat-tree), "rail<i>-leaf<g>" (rail), prefixed "plane<p>-" when planes
/// > 1. The machine's parameters and P2P level carry over, with InfiniBand's efficiency 0.94 (47 of
/// 50 GB/s, NCCL maintainers) where they set none for the network. Throws TopologyError naming the
/// flag (--nodes, --leaf-nics, --spines, --oversubscription, --planes) for a value out of range or a
/// machine on several hosts.
[[nodiscard]] Topology generate_cluster(const Topology& machine, const ClusterSpec& spec);

/// "2:1" or "2" (or "1.5") as a ratio >= 1; nullopt for anything else.
[[nodiscard]] std::optional<double> parse_oversubscription(std::string_view text) noexcept;

}  // namespace collsim::topo
