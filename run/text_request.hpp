// Requests as text, the way a user gives them (the CLI's flag values, the Python module's keyword
// values), and their parsing into the typed requests of run/request.hpp, run/simulate.hpp and
// run/log_prediction.hpp: every front end parses the same text the same way, with the same errors
// (RequestError naming the field) in the same order. An empty string means "not given".
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "run/log_prediction.hpp"
#include "run/request.hpp"
#include "run/simulate.hpp"
#include "validation/cpu_replay.hpp"

namespace collsim::run {

/// A topology: a file or bundled name, or the generator fields.
struct TopologyText {
  std::string name;
  std::string gpus;
  std::string fabric;
  std::string link_bandwidth;
  std::string link_latency;
  std::string nodes;
  std::string net_bandwidth;
  std::string net_latency;
  std::string p2p_level;  ///< off, nvl, pix, pxb, phb or sys (any topology)
  std::string routing;    ///< ecmp, single, spray or dmodk (any topology)
  std::string node;       ///< a cluster's machine (with nodes and fabric fat-tree or rail)
  std::string leaf_nics;
  std::string spines;
  std::string oversubscription;
  std::string planes;
  std::string switch_latency;
};
/// The topology spec of `t` (nothing loaded yet). Throws RequestError for a value that does not parse.
[[nodiscard]] TopologySpec topology_spec(const TopologyText& t);

/// The options some algorithms take (root, chunk_size, ps_shards, ps_node: comma-separated ids).
struct AlgorithmText {
  std::string root;
  std::string chunk_size;
  std::string ps_shards;
  std::string ps_node;
};
/// The typed options of `t`; the plan checks the rest (a root below N, an option the algorithm uses).
[[nodiscard]] AlgorithmOptions algorithm_options(const AlgorithmText& t);

/// The model options (protocol, channels, slice, params, model: the formula, max_ops, nccl_algo,
/// gpus_per_thread).
struct ModelText {
  std::string protocol;
  std::string channels;
  std::string slice;
  std::string params;
  std::string model;
  std::string max_ops;
  std::string nccl_algo;  ///< NCCL_ALGO-style list: ring,tree,nvls or ^nvls
  std::string gpus_per_thread;
};
/// The typed model options of `t`.
[[nodiscard]] ModelOptions model_options(const ModelText& t);

/// The replay check of verify, dtype and op, nullopt without verify. Throws RequestError for an
/// unknown dtype or op, or op without verify.
[[nodiscard]] std::optional<validation::ReplayOptions> replay_options(bool verify, std::string_view dtype,
                                                                      std::string_view op);

/// One simulation.
struct SimulateText {
  TopologyText topology;
  std::string collective = "allreduce";
  std::string algorithm = "ring";
  std::string size;      ///< required without `schedule`
  std::string ranks;
  std::string dtype;     ///< default float32
  std::string network = "flow";
  AlgorithmText options;
  ModelText model;
  bool verify = false;
  std::string op;        ///< with verify: sum (default), min, max or prod
  std::string schedule;  ///< a schedule file instead of collective, algorithm, size and options
};
/// The request of `t`: its ops generated on demand unless the replay check needs them. Throws
/// RequestError naming the field (size missing, a value that does not parse), checked in the
/// order size, collective, options, dtype, model, topology, ranks, network, verify.
[[nodiscard]] SimulationRequest simulation_request(const SimulateText& t);

/// The run that predicts an nccl-tests log.
struct LogText {
  std::string log;
  TopologyText topology;
  std::string algorithm = "nccl";
  std::string ranks;
  std::string collective;  ///< a collective or an nccl-tests program (all_reduce_perf)
  std::string network = "flow";
  ModelText model;         ///< its formula is not used
  std::string jobs;        ///< rows predicted at once (compare); empty: the number of cores
};
/// The request of `t`. Throws RequestError for a value that does not parse.
[[nodiscard]] LogRequest log_request(const LogText& t);

}  // namespace collsim::run
