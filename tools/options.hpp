// Command-line pieces shared by subcommands: topology selection and number parsing.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "algorithms/registry.hpp"
#include "topologies/topology.hpp"

namespace collsim::cli {

/// The bundled topology used when none is named.
inline constexpr std::string_view kDefaultTopology = "dgx-a100";

/// TOPOLOGY (a file or bundled name) or the generator flags --gpus/--fabric/--link-bandwidth/--link-latency
/// and, for a multi-node fabric, --nodes/--net-bandwidth/--net-latency.
struct TopologyOptions {
  std::string spec;
  std::string gpus;
  std::string fabric;
  std::string link_bandwidth;
  std::string link_latency;
  std::string nodes;
  std::string net_bandwidth;
  std::string net_latency;

  /// Registers the positional TOPOLOGY and the generator flags on `cmd`.
  void add_to(CLI::App& cmd);
  /// True when neither TOPOLOGY nor a generator flag was given.
  [[nodiscard]] bool empty() const;
  /// Loads or generates the topology; with neither given, loads kDefaultTopology (the caller
  /// says so with default_notice() once the command has succeeded, so an error stays one line).
  /// Throws UsageError / TopologyError / UnitError.
  [[nodiscard]] topo::Topology load() const;
  /// Writes the "using the bundled default" notice to `err` when empty().
  void default_notice(std::ostream& err) const;
};

/// The collective and algorithm flags shared by simulate and explain.
struct AlgorithmOptions {
  std::string collective = "allreduce";
  std::string algorithm = "ring";
  std::string root;
  std::string chunk_size;
  std::string ps_shards;
  std::string ps_node;

  /// Registers --collective, --algorithm, --root, --chunk-size, --ps-shards, --ps-node on `cmd`.
  void add_to(CLI::App& cmd);
  /// The --collective value; throws UsageError listing the valid names.
  [[nodiscard]] sched::Collective collective_kind() const;
  /// The request for `nranks` ranks and `size` bytes; throws UsageError naming the flag.
  [[nodiscard]] algo::Request request(std::uint32_t nranks, Bytes size) const;
  /// Refuses a flag that algorithm `info` would not use (UsageError naming it and what uses it): --root
  /// outside broadcast and reduce, --chunk-size for an algorithm not pipelined in chunks
  /// (AlgorithmInfo::pipelined), --ps-shards and --ps-node for one that does not take them
  /// (AlgorithmInfo::takes). A single run says so rather than ignore a flag; a sweep
  /// applies each flag to the rows that use it.
  void check_used_by(const algo::AlgorithmInfo& info) const;
  /// The --ps-node ids, in order (empty without --ps-node).
  [[nodiscard]] std::vector<std::string> ps_nodes() const;
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
