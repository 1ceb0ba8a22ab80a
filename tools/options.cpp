#include "tools/options.hpp"

#include <algorithm>
#include <charconv>

#include <fmt/format.h>

#include "sim/io/text_file.hpp"
#include "run/parse.hpp"
#include "tools/cli.hpp"
#include "tools/option_table.hpp"

namespace collsim::cli {

CLI::Option* add_value(CLI::App& cmd, const std::string& name, std::string& target, const std::string& help) {
  const CLI::Validator non_empty(
      [](std::string& value) { return value.empty() ? std::string("found an empty value, expected one") : std::string(); },
      "", "non-empty");
  return cmd.add_option(name, target, help)->check(non_empty);
}

void add_size_range(CLI::App& cmd, std::string& min, std::string& max, std::string& factor) {
  add_value(cmd, "-b,--minbytes", min, "Smallest size, as nccl-tests -b (K/M/G = powers of 1024, KB/MB/GB of 1000)");
  add_value(cmd, "-e,--maxbytes", max, "Largest size, as nccl-tests -e");
  add_value(cmd, "-f,--stepfactor", factor, "Multiply the size by this from -b to -e (default 2)");
}

void TopologyOptions::add_to(CLI::App& cmd) {
  add_value(cmd, "topology", spec,
                 fmt::format("Topology JSON file or bundled name (see `collsim topo`); default {}", kDefaultTopology));
  add_value(cmd, "--topology", flag, "The topology (file or bundled name), instead of TOPOLOGY");
  add_generator_to(cmd);
}

void TopologyOptions::add_generator_to(CLI::App& cmd) {
  add_shared(cmd, run::Field::Gpus, gpus);
  add_shared(cmd, run::Field::Fabric, fabric);
  add_shared(cmd, run::Field::LinkBandwidth, link_bandwidth);
  add_shared(cmd, run::Field::LinkLatency, link_latency);
  add_shared(cmd, run::Field::Nodes, nodes);
  add_shared(cmd, run::Field::NetBandwidth, net_bandwidth);
  add_shared(cmd, run::Field::NetLatency, net_latency);
  add_shared(cmd, run::Field::P2pLevel, p2p_level);
  add_shared(cmd, run::Field::Routing, routing);
  add_shared(cmd, run::Field::Node, node);
  add_shared(cmd, run::Field::LeafNics, leaf_nics);
  add_shared(cmd, run::Field::Spines, spines);
  add_shared(cmd, run::Field::Oversubscription, oversubscription);
  add_shared(cmd, run::Field::Planes, planes);
  add_shared(cmd, run::Field::SwitchLatency, switch_latency);
}

bool TopologyOptions::empty() const {
  return spec.empty() && flag.empty() && gpus.empty() && fabric.empty() && link_bandwidth.empty() && link_latency.empty() &&
         nodes.empty() && net_bandwidth.empty() && net_latency.empty() && node.empty() && leaf_nics.empty() &&
         spines.empty() && oversubscription.empty() && planes.empty() && switch_latency.empty();
}

void TopologyOptions::default_notice(std::ostream& err) const {
  if (empty())
    err << fmt::format("collsim: no topology given; used the bundled default {} (list them with `collsim topo`)\n",
                       kDefaultTopology);
}

run::TopologyText TopologyOptions::text() const {
  if (!flag.empty() && !spec.empty())
    throw UsageError(fmt::format("--topology: found \"{}\" and the topology \"{}\"; expected one of them", flag, spec));
  return {flag.empty() ? spec : flag, gpus, fabric, link_bandwidth, link_latency, nodes, net_bandwidth, net_latency, p2p_level, routing,
          node,     leaf_nics,      spines,       oversubscription, planes, switch_latency};
}

run::TopologySpec TopologyOptions::spec_of() const { return run::topology_spec(text()); }

topo::Topology TopologyOptions::load() const { return run::load_topology(spec_of()); }

void AlgorithmOptions::add_to(CLI::App& cmd) {
  add_shared(cmd, run::Field::Collective, collective);
  add_shared(cmd, run::Field::Algorithm, algorithm);
  add_options_to(cmd);
  add_shared(cmd, run::Field::PsNode, ps_node);
}

void AlgorithmOptions::add_options_to(CLI::App& cmd) {
  add_shared(cmd, run::Field::Root, root);
  add_shared(cmd, run::Field::ChunkSize, chunk_size);
  add_shared(cmd, run::Field::PsShards, ps_shards);
}

sched::Collective AlgorithmOptions::collective_kind() const {
  return run::parse_collective(run::Field::Collective, collective);
}

const run::AlgorithmText& AlgorithmOptions::text() const { return *this; }

run::AlgorithmOptions AlgorithmOptions::options() const { return run::algorithm_options(text()); }

Bytes parse_size_flag(std::string_view flag, std::string_view text) {
  try {
    return parse_size(text);
  } catch (const UnitError& e) {
    throw UsageError(fmt::format("{}: {}", flag, e.what()));
  }
}

std::uint32_t parse_count(std::string_view flag, std::string_view text, std::uint32_t min, std::uint32_t max) {
  std::uint64_t v = 0;
  const auto* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (text.empty() || ec != std::errc() || ptr != end || v < min || v > max)
    throw UsageError(fmt::format("{}: found \"{}\", expected a whole number from {} to {}", flag, text, min, max));
  return static_cast<std::uint32_t>(v);
}

std::string read_input_file(std::string_view command, const std::string& path) {
  try {
    return io::read_text_file(path, "a CSV file");
  } catch (const io::FileReadError& e) {
    throw UsageError(fmt::format("{}: {}", command, e.what()));
  }
}

}  // namespace collsim::cli
