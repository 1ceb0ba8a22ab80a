// Command-line pieces shared by subcommands: the flags of a topology and of an algorithm's
// options, turned into the library layer's typed request fields (run/request.hpp), how the CLI
// spells a request field in its messages, and number parsing.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "algorithms/registry.hpp"
#include "run/errors.hpp"
#include "run/option_names.hpp"
#include "run/request.hpp"
#include "run/text_request.hpp"
#include "topologies/topology.hpp"

namespace collsim::cli {

/// The bundled topology used when none is named.
inline constexpr std::string_view kDefaultTopology = run::kDefaultTopology;

using run::flag_spelling;

/// TOPOLOGY (a file or bundled name) or the generator flags --gpus/--fabric/--link-bandwidth/--link-latency
/// and, for a multi-node fabric, --nodes/--net-bandwidth/--net-latency.
struct TopologyOptions {
  std::string spec;  ///< the positional TOPOLOGY
  std::string flag;  ///< --topology T, the same, for those who name every argument (and as Python's topology=)
  std::string gpus;
  std::string fabric;
  std::string link_bandwidth;
  std::string link_latency;
  std::string nodes;
  std::string net_bandwidth;
  std::string net_latency;
  std::string p2p_level;
  std::string routing;
  std::string node;  ///< --node: a cluster's machine
  std::string leaf_nics;
  std::string spines;
  std::string oversubscription;
  std::string planes;
  std::string switch_latency;

  /// Registers the positional TOPOLOGY, --topology and the generator flags on `cmd`.
  void add_to(CLI::App& cmd);
  /// Registers the generator flags only (--gpus, --fabric, --link-*, --nodes, --net-*).
  void add_generator_to(CLI::App& cmd);
  /// True when neither TOPOLOGY nor a generator flag was given.
  [[nodiscard]] bool empty() const;
  /// The flags as text (run/text_request.hpp). Throws UsageError when both TOPOLOGY and --topology are given.
  [[nodiscard]] run::TopologyText text() const;
  /// The flags as a typed request field (run::TopologySpec); throws run::RequestError for a value
  /// that does not parse.
  [[nodiscard]] run::TopologySpec spec_of() const;
  /// Loads or generates the topology (run::load_topology); with neither given, loads
  /// kDefaultTopology (the caller says so with default_notice() once the command has succeeded, so
  /// an error stays one line). Throws run::RequestError / TopologyError / UnitError.
  [[nodiscard]] topo::Topology load() const;
  /// Writes the "using the bundled default" notice to `err` when empty().
  void default_notice(std::ostream& err) const;
};

/// The collective and algorithm flags shared by simulate and explain.
/// --root, --chunk-size, --ps-shards and --ps-node are the layer's text (run::AlgorithmText).
struct AlgorithmOptions : run::AlgorithmText {
  std::string collective = "allreduce";
  std::string algorithm = "ring";

  /// Registers --collective, --algorithm, --root, --chunk-size, --ps-shards, --ps-node on `cmd`.
  void add_to(CLI::App& cmd);
  /// Registers --root, --chunk-size and --ps-shards only (a sweep, whose rows set the rest).
  void add_options_to(CLI::App& cmd);
  /// The --collective value; throws run::RequestError listing the valid names.
  [[nodiscard]] sched::Collective collective_kind() const;
  /// --root, --chunk-size, --ps-shards and --ps-node as text (run/text_request.hpp).
  [[nodiscard]] const run::AlgorithmText& text() const;
  /// --root, --chunk-size, --ps-shards and --ps-node as typed options (run::AlgorithmOptions);
  /// throws run::RequestError for a value that does not parse. The layer checks the rest (a root
  /// below N, an option the algorithm uses: run/plan.hpp).
  [[nodiscard]] run::AlgorithmOptions options() const;
};

/// Adds an option (or a positional, for a name without dashes) whose value must not be empty:
/// `--ranks ""` is an error, not "use the default".
CLI::Option* add_value(CLI::App& cmd, const std::string& name, std::string& target, const std::string& help);

/// Registers nccl-tests' size range flags on `cmd`: -b/--minbytes, -e/--maxbytes, -f/--stepfactor.
void add_size_range(CLI::App& cmd, std::string& min, std::string& max, std::string& factor);

/// Parses a size given to `flag`; throws UsageError naming the flag.
Bytes parse_size_flag(std::string_view flag, std::string_view text);

/// Parses a whole number in [min, max] given to `flag`; throws UsageError naming the flag.
std::uint32_t parse_count(std::string_view flag, std::string_view text, std::uint32_t min, std::uint32_t max);

/// The whole text of the input CSV file `path` read by `command` (e.g. "plot"). Throws UsageError
/// "COMMAND: PATH is a directory; ..." or "COMMAND: PATH cannot be read (REASON); ..." (io::read_text_file).
std::string read_input_file(std::string_view command, const std::string& path);

}  // namespace collsim::cli
