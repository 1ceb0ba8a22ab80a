// Which transport NCCL uses between two GPUs (P2P, SHM through host memory, NET), chosen per GPU
// pair as NCCL chooses it (ncclTopoCheckP2p and ncclTopoComputePaths, src/graph/paths.cc, NCCL
// 2.30.7), and the route SHM takes through the CPU.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "topologies/p2p_level.hpp"
#include "topologies/topology.hpp"

namespace collsim::topo {

/// The type of `route` (directed links from one GPU to another): Net if it crosses a NIC or a
/// network link; Nvl if every link is NVLink-class (nvlink, nvswitch, xgmi); otherwise by the nodes
/// it passes: two CPUs or more Sys, one Phb, no CPU and one switch Pix, several Pxb. An empty route
/// (a GPU to itself) is Nvl.
[[nodiscard]] PathType path_type(const Topology& topology, std::span<const LinkId> route);

/// NCCL's default P2P level for the host of `gpu` (ncclTopoCheckP2p, src/graph/paths.cc, NCCL
/// 2.30.7): PXB ("don't use P2P across CPU host bridges and further apart"), except SYS on an AMD
/// x86 host of at most 2 GPUs. The host's CPU is the first cpu node with a vendor on the same host.
[[nodiscard]] P2pLevel default_p2p_level(const Topology& topology, NodeId gpu);

/// The level that applies to `gpu`: the topology's (Topology::p2p_level) or the default.
[[nodiscard]] P2pLevel p2p_level_of(const Topology& topology, NodeId gpu);

/// The transport from GPU `from` to GPU `to` whose shortest path has type `path`: NET on a Net
/// path or between hosts; P2P where the path is within the level and both GPUs have P2P
/// (Node::p2p); SHM otherwise (NCCL falls back to SHM where P2P cannot connect).
[[nodiscard]] Transport transport_between(const Topology& topology, NodeId from, NodeId to, PathType path);

/// The CPU nearest to `gpu` by route (fewest hops, then latency; ties: file order), whose memory
/// holds SHM buffers for it (NCCL: the receiver's local CPU, ncclGetLocalCpu and SHM_LOCALITY's
/// default, the receiver's side); nullopt when no cpu node is reachable.
[[nodiscard]] std::optional<NodeId> local_cpu(const Topology& topology, NodeId gpu);

/// The route SHM takes from GPU `from` to GPU `to`: to the receiver's local CPU and on to the
/// receiver (NCCL's addInterStep through the CPU), given that CPU. The shortest route when it
/// already passes that CPU.
[[nodiscard]] std::vector<LinkId> shm_route(const Topology& topology, NodeId from, NodeId to, NodeId cpu);

/// The error for GPUs `from` -> `to` that must use SHM (their path has type `path`) and have no
/// CPU to go through: one line naming the topology, the GPUs, the path and the level.
[[nodiscard]] TopologyError no_shm_cpu_error(const Topology& topology, NodeId from, NodeId to, PathType path);

/// How the GPU pairs of one host are joined: counts by transport and path type, for reports.
struct TransportSummary {
  std::string host;            ///< the host summarised (the first GPU's; "" when unnamed)
  std::uint32_t gpus = 0;      ///< GPUs in it
  P2pLevel level = P2pLevel::Pxb;
  bool level_given = false;    ///< set by the file or --p2p-level (not NCCL's default)
  /// Ordered pairs (a -> b, a != b) per transport and per path type.
  std::uint64_t by_transport[3] = {0, 0, 0};
  std::uint64_t by_path[6] = {0, 0, 0, 0, 0, 0};
};

/// The summary of the first GPU's host, over at most `max_gpus` of its GPUs (routes are found per
/// pair: a 72-GPU domain is 5,112). Throws TopologyError where an SHM pair has no CPU to go through.
[[nodiscard]] TransportSummary transport_summary(const Topology& topology, std::uint32_t max_gpus = 128);

/// "P2P 56 pairs (NVL 56); P2P level PXB, NCCL's default": one line of a report.
[[nodiscard]] std::string transport_summary_text(const TransportSummary& s);

}  // namespace collsim::topo
