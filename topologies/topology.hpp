// The physical topology: GPUs, switches, CPUs and NICs joined by links, and routes between GPUs.
//
// Each link of a topology file is stored as two directed links, one per direction, so each
// direction has its own capacity (SimGrid's split-duplex links). A half-duplex link's two
// directions share one "resource": only one transfer crosses it at a time, whichever way.
// Boost.Graph does the graph work inside topology.cpp; no Boost type appears here.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "sim/units/enum_names.hpp"
#include "sim/units/units.hpp"
#include "topologies/model_params.hpp"
#include "topologies/p2p_level.hpp"
#include "topologies/routing.hpp"

namespace collsim::topo {

/// Dense index of a node in Topology::nodes().
using NodeId = std::uint32_t;
/// Dense index of a directed link in Topology::links().
using LinkId = std::uint32_t;

enum class NodeType : std::uint8_t { Gpu, Switch, Cpu, Nic };
/// A CPU's maker, as NCCL tells them apart (ncclTopoCpuType, src/graph/topo.cc): it sets NCCL's
/// default P2P level (topologies/transport.hpp). Unknown when the file does not say.
enum class CpuVendor : std::uint8_t { Unknown, Intel, Amd, Arm, Power };
enum class LinkType : std::uint8_t { NvLink, NvSwitch, Pcie, InfiniBand, Ethernet, RoCE, XGMI, UPI, Network };
enum class Duplex : std::uint8_t { Full, Half };

/// The topology files' node types (exact).
inline constexpr auto kNodeTypeNames = make_enum_names<NodeType>(
    {{NodeType::Gpu, "gpu"}, {NodeType::Switch, "switch"}, {NodeType::Cpu, "cpu"}, {NodeType::Nic, "nic"}});
/// The topology files' cpu "vendor" values (exact).
inline constexpr auto kCpuVendorNames = make_enum_names<CpuVendor>({{CpuVendor::Unknown, "unknown"},
                                                                   {CpuVendor::Intel, "intel"},
                                                                   {CpuVendor::Amd, "amd"},
                                                                   {CpuVendor::Arm, "arm"},
                                                                   {CpuVendor::Power, "power"}});
/// The topology files' link types (exact).
inline constexpr auto kLinkTypeNames = make_enum_names<LinkType>({{LinkType::NvLink, "nvlink"},
                                                                 {LinkType::NvSwitch, "nvswitch"},
                                                                 {LinkType::Pcie, "pcie"},
                                                                 {LinkType::InfiniBand, "infiniband"},
                                                                 {LinkType::Ethernet, "ethernet"},
                                                                 {LinkType::RoCE, "roce"},
                                                                 {LinkType::XGMI, "xgmi"},
                                                                 {LinkType::UPI, "upi"},
                                                                 {LinkType::Network, "network"}});
/// The topology files' "duplex" values (exact).
inline constexpr auto kDuplexNames = make_enum_names<Duplex>({{Duplex::Full, "full"}, {Duplex::Half, "half"}});

/// "gpu", "switch", "cpu", "nic".
std::string_view node_type_name(NodeType t) noexcept;
std::optional<NodeType> parse_node_type(std::string_view s) noexcept;
/// "nvlink", "nvswitch", "pcie", "infiniband", "ethernet", "roce", "xgmi", "upi", "network".
std::string_view link_type_name(LinkType t) noexcept;
std::optional<LinkType> parse_link_type(std::string_view s) noexcept;
/// The valid names, comma-separated, for error messages.
std::string node_type_names();
std::string link_type_names();

struct Node {
  std::string id;
  NodeType type = NodeType::Gpu;
  std::string model;  ///< optional, e.g. "A100-SXM4-80GB"
  std::string host;   ///< optional: the machine (node of a cluster) it belongs to
  /// GPUs: bytes per second it reduces (adds a received buffer into its own), when the file gives
  /// it ("reduce_bandwidth"); 0 when not given (gpu_models.hpp then has a default by model).
  Bandwidth reduce_bandwidth;
  /// Switches: whether it reduces and multicasts for the GPUs linked to it (NVLink SHARP, NVLS), as
  /// the file's "nvls" says; unset: an NVSwitch does when all its GPUs' models have NVLS (H100,
  /// H200, B200, GB200: topologies/nvls.hpp).
  std::optional<bool> nvls{};
  /// Switches: whether it reduces what the hosts send it and returns the sum to each (InfiniBand
  /// SHARP, NCCL's CollNet), as the file's "sharp" says; false unless it says true.
  bool sharp = false;
  /// GPUs: false when its driver gives it no peer-to-peer access to other GPUs (cudaDeviceCanAccessPeer
  /// is 0: GeForce cards on NVIDIA's driver, a VM without P2P), so NCCL moves its data through host
  /// memory (SHM) whatever the P2P level; the file's "p2p", true unless it says false.
  bool p2p = true;
  /// CPUs: the maker, the file's "vendor".
  CpuVendor vendor = CpuVendor::Unknown;
};

/// One link as a topology file gives it (both directions).
struct LinkSpec {
  NodeId a = 0;
  NodeId b = 0;
  LinkType type = LinkType::NvLink;
  Bandwidth bandwidth;  ///< per direction (for half duplex: shared by both directions)
  Time latency{0};      ///< paid once per transfer that crosses the link
  Duplex duplex = Duplex::Full;
};

/// One direction of a link.
struct Link {
  NodeId from = 0;
  NodeId to = 0;
  LinkType type = LinkType::NvLink;
  Bandwidth bandwidth;
  Time latency{0};
  Duplex duplex = Duplex::Full;
  std::uint32_t resource = 0;  ///< capacity it draws on; equal for both directions of a half-duplex link
};

/// Whether a route may pass through a node of type `entered`, coming in over a link of type
/// `over` (a route's last hop enters its destination over any link): any node but a GPU; a GPU only
/// over an NVLink-class link (ncclTopoSetPaths, src/graph/paths.cc, NCCL 2.30.7: a path passes a GPU
/// only over NVLink, NCCL's NVB paths; a NIC or PCIe switch writes to its destination GPU, never to
/// one that passes the data on). The one routing rule of Topology::shortest_route,
/// RouteCache::unique_two_hop and unroutable_gpu_pair.
[[nodiscard]] bool may_pass_through(NodeType entered, LinkType over) noexcept;

/// Thrown for a topology that cannot be used; what() is one line naming the place and the problem.
class TopologyError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// An immutable topology. Link i of the spec becomes directed links 2i (a->b) and 2i+1 (b->a).
class Topology {
 public:
  /// Validates and builds. Throws TopologyError (no GPU, node id out of range, a link from a node
  /// to itself, two links between the same nodes, GPUs that cannot reach each other, GPUs with no
  /// route between them: topologies/reachability.hpp). `where`
  /// prefixes error messages (a file name).
  Topology(std::string name, std::string description, std::vector<Node> nodes, std::vector<LinkSpec> links,
           std::string_view where = "topology");
  ~Topology();
  Topology(Topology&&) noexcept;
  Topology& operator=(Topology&&) noexcept;

  [[nodiscard]] const std::string& name() const noexcept { return name_; }
  [[nodiscard]] const std::string& description() const noexcept { return description_; }
  [[nodiscard]] std::span<const Node> nodes() const noexcept { return nodes_; }
  [[nodiscard]] std::span<const Link> links() const noexcept { return links_; }
  [[nodiscard]] const Node& node(NodeId id) const { return nodes_.at(id); }
  [[nodiscard]] const Link& link(LinkId id) const { return links_.at(id); }
  /// The GPUs in file order; rank i runs on gpus()[i] unless told otherwise.
  [[nodiscard]] std::span<const NodeId> gpus() const noexcept { return gpus_; }
  /// Resources are numbered 0 .. links().size()-1 (some unused when links are half duplex).
  [[nodiscard]] std::uint32_t resource_count() const noexcept { return static_cast<std::uint32_t>(links_.size()); }
  [[nodiscard]] std::optional<NodeId> find_node(std::string_view id) const;
  /// "gpu0->nvswitch": the link's endpoints, for reports.
  [[nodiscard]] std::string link_label(LinkId id) const;

  /// The fidelity parameters the topology file sets (its "params" object); empty when it sets none.
  [[nodiscard]] const ModelParams& params() const noexcept { return params_; }
  /// Replaces them (the loader, once the topology is built; a calibration).
  void set_params(ModelParams params) { params_ = std::move(params); }

  /// The P2P level set for this machine (the file's "p2p_level", or --p2p-level over it), as
  /// NCCL_P2P_LEVEL / NCCL_P2P_DISABLE set it; nullopt: NCCL's default, per host
  /// (topologies/transport.hpp: default_p2p_level). Routes between GPUs that may not use P2P go
  /// through host memory (RouteCache).
  [[nodiscard]] std::optional<P2pLevel> p2p_level() const noexcept { return p2p_level_; }
  void set_p2p_level(std::optional<P2pLevel> level) noexcept { p2p_level_ = level; }

  /// How flows take equal-cost paths (the file's "routing", or --routing over it); default ECMP.
  [[nodiscard]] Routing routing() const noexcept { return routing_; }
  void set_routing(Routing routing) noexcept { routing_ = routing; }
  /// True when some two nodes are joined by two switches or more at equal cost (X -> Y -> Z for
  /// several switches Y, the links' latencies summing alike): a leaf/spine fabric. Found once, in
  /// O(links) plus, for each node next to two switches or more, the two-hop paths from it. Under ECMP the channels between two GPUs may then
  /// take different paths.
  [[nodiscard]] bool has_equal_cost_paths() const;

  /// A rotation of the topology onto itself (a graph automorphism that a generator knows): node v
  /// goes to node[v], directed link l to link[l], and GPU gpus()[i] to gpus()[(i + gpu_shift) mod
  /// G], every node keeping its type, model and attributes and its host's summary, every link its
  /// type, bandwidth, latency and duplex. What lets a run of a rank-symmetric schedule simulate one
  /// period of ranks (sim/rank_fold.hpp).
  struct Rotation {
    std::vector<NodeId> node;
    std::vector<LinkId> link;
    std::uint32_t gpu_shift = 0;
  };
  /// The rotation set_rotation() recorded, or null.
  [[nodiscard]] const Rotation* rotation() const noexcept { return rotation_ ? &*rotation_ : nullptr; }
  /// Records `node` (a permutation of the nodes) as a rotation by `gpu_shift` GPUs (0 < gpu_shift <
  /// G); throws TopologyError, naming the first node or link that does not map, when it is not one.
  void set_rotation(std::vector<NodeId> node, std::uint32_t gpu_shift);

  /// A copy whose links carry `factor(link)` times their bandwidth (at least 1 bit/s, at most the
  /// line rate: factors are efficiencies in (0, 1]), with the same nodes, link ids, latencies and
  /// routes: what a protocol's efficiency leaves of each link.
  [[nodiscard]] Topology with_bandwidth_factors(const PerClass<double>& factor) const;
  /// A copy named `name` with `description` (a cluster file's own words over the generated ones).
  [[nodiscard]] Topology renamed(std::string name, std::string description) const;
  /// An identical copy (a Topology is move-only, so that copies are explicit: a large one is
  /// rebuilt, graph and all).
  [[nodiscard]] Topology copy() const;

  /// The directed links leaving `node`, in link order. Throws std::out_of_range for no such node.
  [[nodiscard]] std::span<const LinkId> out_links(NodeId node) const { return out_links_.at(node); }
  /// What NCCL's per-host rules read of the host `node` belongs to (its "host" field; nodes without
  /// one share the host ""): how many GPUs it has and the vendor of its first cpu node in file order
  /// (Unknown without one). Counted once at construction, so a lookup is O(1) however many hosts.
  struct HostSummary {
    std::uint32_t gpus = 0;
    CpuVendor cpu_vendor = CpuVendor::Unknown;
  };
  [[nodiscard]] const HostSummary& host_summary(NodeId node) const { return hosts_.at(host_index_.at(node)); }

  /// Sum of the bandwidths of the links leaving `node` (the injection bandwidth of a GPU). O(1).
  [[nodiscard]] Bandwidth out_bandwidth(NodeId node) const;

  /// The shortest route from `from` to `to` as directed links: fewest hops, then least summed
  /// latency, then (between hosts) passing no GPU but the one at the destination's place in its
  /// host (PXN's rail-matched GPU), remaining ties broken by link order in the file (Boost.Graph Dijkstra with a lexicographic
  /// weight; a direct link is taken without a search, and a route that is the only best one is
  /// found around its two ends: unique_shortest_route, topologies/route_search.hpp). Empty when
  /// from == to. Throws TopologyError when `to` cannot be reached.
  [[nodiscard]] std::vector<LinkId> shortest_route(NodeId from, NodeId to) const;
  /// The same by the Dijkstra alone, every time: the reference the shortcuts are tested against.
  [[nodiscard]] std::vector<LinkId> dijkstra_route(NodeId from, NodeId to) const;

 private:
  struct Graph;  // the Boost.Graph view, kept out of this header
  std::string name_;
  std::string description_;
  std::vector<Node> nodes_;
  std::vector<Link> links_;
  std::vector<NodeId> gpus_;
  std::vector<std::vector<LinkId>> out_links_;  // by node, in link order
  std::vector<Bandwidth> out_bandwidth_;        // by node
  std::vector<std::uint32_t> host_index_;       // by node: its host's index in hosts_
  static constexpr std::uint32_t kNotGpu = 0xffffffffu;
  std::vector<std::uint32_t> local_gpu_;        // by node: a GPU's place among its host's GPUs, else kNotGpu
  std::vector<HostSummary> hosts_;              // by host, in order of first appearance
  std::unique_ptr<Graph> graph_;
  ModelParams params_;
  std::optional<P2pLevel> p2p_level_;
  Routing routing_ = Routing::Ecmp;
  mutable std::optional<bool> equal_cost_paths_;  // has_equal_cost_paths(), found on first use
  std::optional<Rotation> rotation_;
};

/// The name of `t`'s routing (kRoutingNames) where it decides anything, on a fabric with
/// equal-cost paths (Topology::has_equal_cost_paths); nullopt elsewhere. What outputs print.
[[nodiscard]] inline std::optional<std::string_view> routing_in_effect(const Topology& t) {
  if (!t.has_equal_cost_paths()) return std::nullopt;
  return kRoutingNames.name(t.routing());
}

}  // namespace collsim::topo
