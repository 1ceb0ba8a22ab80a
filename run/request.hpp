// What a front end asks the library layer for, in typed fields: the topology, the algorithm's
// options and the model's. Text from a user is parsed into these by run/parse.hpp; the layer checks
// what depends on other fields (a root below N, a flag the algorithm uses) and throws RequestError
// naming the field.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "algorithms/registry.hpp"
#include "sim/schedule/collective.hpp"
#include "sim/units/units.hpp"
#include "topologies/cluster.hpp"
#include "topologies/generate.hpp"
#include "topologies/model_params.hpp"
#include "topologies/topology.hpp"

namespace collsim::run {

/// The bundled topology used when none is named.
inline constexpr std::string_view kDefaultTopology = "dgx-a100";

/// Where the topology comes from: a topology already built (`given`), a file or bundled name
/// (`name`), or a generated fabric (the gpus .. net_latency fields); with none of them, the bundled
/// kDefaultTopology.
struct TopologySpec {
  std::shared_ptr<const topo::Topology> given{};  ///< built in memory (e.g. collsim.topology() in Python)
  std::string name;                        ///< a topology JSON file or a bundled name
  std::optional<std::uint32_t> gpus;       ///< generated: N GPUs, 1 .. 2^20
  std::optional<topo::Fabric> fabric;      ///< generated: ring, switch or fully-connected
  std::optional<Bandwidth> link_bandwidth; ///< generated links, per direction; default 25 GB/s
  std::optional<Time> link_latency;        ///< default 1 us
  std::optional<std::uint32_t> nodes;      ///< generated: K hosts of N/K GPUs (fabric switch)
  std::optional<Bandwidth> net_bandwidth;  ///< each host's network link, default 25 GB/s (one HDR port)
  std::optional<Time> net_latency;         ///< default 2 us
  /// NCCL_P2P_LEVEL / NCCL_P2P_DISABLE for this machine, over the file's "p2p_level" (not a
  /// generator field: it applies to any topology).
  std::optional<topo::P2pLevel> p2p_level;
  /// ecmp, single, spray or dmodk, over the file's "routing" (any topology).
  std::optional<topo::Routing> routing;
  /// A cluster (topologies/cluster.hpp): K = `nodes` copies of this machine (a bundled name or a
  /// file) joined by the `cluster_fabric` network; the fields below shape it (unset: its defaults).
  std::string node;
  std::optional<topo::ClusterFabric> cluster_fabric;
  std::optional<std::uint32_t> leaf_nics;
  std::optional<std::uint32_t> spines;
  std::optional<double> oversubscription;
  std::optional<std::uint32_t> planes;
  std::optional<Time> switch_latency;

  /// True when a generator field is set (a cluster's included).
  [[nodiscard]] bool generated() const;
  /// True when a cluster field (node and those after it) is set.
  [[nodiscard]] bool cluster() const;
  /// True when nothing is set: the bundled default is used.
  [[nodiscard]] bool empty() const { return !given && name.empty() && !generated(); }
};

/// The topology of `spec`. Throws RequestError (Field::Topology for both a name and generator
/// fields, Field::Gpus / Fabric / Nodes / NetBandwidth for a generator that lacks or misuses one),
/// topo::TopologyError for a file that cannot be read.
[[nodiscard]] topo::Topology load_topology(const TopologySpec& spec);

/// The options some algorithms take; unset means the algorithm's default.
struct AlgorithmOptions {
  std::optional<std::uint32_t> root;        ///< broadcast, reduce: 0 .. N-1; default 0
  std::optional<Bytes> chunk_size;          ///< pipelined algorithms, >= 1; default 512 KiB
  std::optional<std::uint32_t> ps_shards;   ///< ps: 1 .. N servers; default 1 (K = ps_node's count with it)
  std::vector<std::string> ps_node;         ///< ps: topology node ids of the servers, one per shard
};

/// A formula's time printed beside the simulation.
enum class Formula : std::uint8_t { None, Analytical, Nccl };

/// How the run is modelled, over the topology's own parameters: each set field is the top layer
/// (topologies/model_params.hpp has the layering).
/// The most GPUs one thread may drive (--gpus-per-thread): far above a machine's 8-72, within what
/// a thread could launch.
inline constexpr std::uint32_t kMaxGpusPerThread = 1024;

struct ModelOptions {
  std::optional<topo::ProtocolChoice> protocol;  ///< ll, ll128, simple or auto
  std::optional<std::uint32_t> channels;         ///< 1 .. 64
  std::optional<Bytes> slice;                    ///< 0: whole chunks
  std::string params;                            ///< a parameter JSON file over the topology's ("" none)
  /// Parameters given in memory (calibrate's trial values, a sweep's params read once), between
  /// `params` and the fields above; `fitted_source` names them where a value's source is shown.
  std::optional<topo::ModelParams> fitted;
  std::string fitted_source = "calibration";
  std::optional<std::uint64_t> max_ops;          ///< >= 1; default 2^18 (run/fidelity.hpp)
  Formula formula = Formula::None;               ///< a second opinion beside the simulation
  /// With the algorithm "nccl": the NCCL algorithms it may pick (NCCL_ALGO; empty: every one).
  std::vector<algo::NcclFamily> nccl_algorithms{};
  /// GPUs one host thread drives (nccl-tests -g G: it launches G collectives per iteration); 1..1024,
  /// default 1 (one process per GPU, as torchrun and mpirun -g 1 run). Sets the host's floor.
  std::optional<std::uint32_t> gpus_per_thread;
  std::string gpus_per_thread_source = "--gpus-per-thread";  ///< where it came from (compare: the log's nGpus)
};

}  // namespace collsim::run
