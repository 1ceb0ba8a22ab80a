// collsim topo: list the bundled topologies, or summarise one (or report its errors).
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "tools/cli.hpp"
#include "tools/commands.hpp"
#include "topologies/bundled.hpp"
#include "topologies/export.hpp"
#include "topologies/load_json.hpp"
#include "topologies/transport.hpp"
#include "validation/cuda/detect_topology.hpp"

namespace collsim::cli {

CLI::App* add_topo(CLI::App& app, TopoOptions& o) {
  auto* cmd = app.add_subcommand("topo", "Summarise a topology (GPUs, switches, links by type, per-GPU injection "
                                         "bandwidth) or report its errors; with no topology, list the bundled ones");
  o.topology.add_to(*cmd);
  cmd->add_flag("--dot", o.dot, "Print the topology as Graphviz DOT (render with: dot -Tsvg)");
  add_value(*cmd, "--format", o.format,
            "table (default) or json: the normalised topology file (defaults explicit, exact units), loadable again");
  cmd->add_flag("--detect", o.detect,
                "Print the topology JSON of this machine's GPUs (CUDA runtime and nvidia-smi topo -m; needs CUDA "
                "and a GPU, exit 3 without)");
  add_value(*cmd, "--ranks-per-gpu", o.ranks_per_gpu,
            "With --detect: K virtual ranks per GPU, linked at the copy rate measured with K copies at once (default 1)");
  return cmd;
}

int run_topo(const TopoOptions& o, std::ostream& out) {
  if (o.format != "table" && o.format != "json")
    throw UsageError(fmt::format("--format: found \"{}\", expected table or json", o.format));
  if (!o.ranks_per_gpu.empty() && !o.detect) throw UsageError("--ranks-per-gpu: given without --detect; expected both");
  if (o.detect) {
    if (!o.topology.empty() || o.dot)
      throw UsageError("--detect: given with a topology or --dot; expected --detect alone (it prints JSON)");
    const std::uint32_t k = o.ranks_per_gpu.empty() ? 1 : parse_count("--ranks-per-gpu", o.ranks_per_gpu, 1, 1024);
    const cuda::Probe probe = require_gpu("topo --detect");
    // Through the loader, so what is printed is known to load.
    out << topo::normalized_json(topo::parse_topology_json(cuda::detect_topology_json(probe, k), "detected", "detected"));
    return kExitOk;
  }
  if (o.dot && o.format != "table") throw UsageError("--dot: given with --format json; expected one or the other");
  if ((o.dot || o.format == "json") && o.topology.empty())
    throw UsageError(fmt::format("{}: expected a TOPOLOGY (a file, a bundled name or --gpus/--fabric)",
                                 o.dot ? "--dot" : "--format json"));
  if (o.topology.empty()) {
    out << "bundled topologies (use the name where a TOPOLOGY is asked for):\n";
    for (const auto& b : topo::bundled_topologies()) {
      const auto t = topo::parse_topology_json(b.text, fmt::format("bundled:{}", b.name), std::string(b.name));
      // The first sentence is enough for a list; `collsim topo NAME` prints the whole description.
      std::string_view d = t.description();
      d = d.substr(0, d.find(". "));
      out << fmt::format("  {:<20} {:>3} GPUs  {}\n", b.name, t.gpus().size(), d);
    }
    return kExitOk;
  }
  const topo::Topology t = o.topology.load();
  if (o.dot) {
    topo::write_dot(t, out);
    return kExitOk;
  }
  if (o.format == "json") {
    out << topo::normalized_json(t);
    return kExitOk;
  }
  // Found before anything is printed: a pair that cannot connect is an error, never half a report.
  const std::string transports = topo::transport_summary_text(topo::transport_summary(t));
  out << fmt::format("{}: {}\n", t.name(), t.description().empty() ? "(no description)" : t.description());

  std::map<topo::NodeType, std::size_t> by_type;
  for (const auto& n : t.nodes()) ++by_type[n.type];
  std::string nodes;
  for (const auto& [type, count] : by_type)
    nodes += fmt::format("{}{} {}", nodes.empty() ? "" : ", ", count, topo::node_type_name(type));
  out << fmt::format("  nodes: {}\n", nodes);

  // Each file link is two directed links (2i, 2i+1); group the file links by their properties.
  std::map<std::tuple<topo::LinkType, std::uint64_t, std::int64_t, topo::Duplex>, std::size_t> groups;
  for (std::size_t i = 0; i < t.links().size(); i += 2) {
    const auto& l = t.links()[i];
    ++groups[{l.type, l.bandwidth.bits_per_s, l.latency.count(), l.duplex}];
  }
  out << fmt::format("  links: {} (full duplex: the bandwidth in each direction; half: shared by both)\n",
                     t.links().size() / 2);
  for (const auto& [key, count] : groups) {
    const auto& [type, bits, lat, duplex] = key;
    out << fmt::format("    {:>5} x {:<11} {:>12} per direction, latency {}, {} duplex\n", count,
                       topo::link_type_name(type), format_bandwidth(Bandwidth{bits}), format_time(Time{lat}),
                       duplex == topo::Duplex::Full ? "full" : "half");
  }
  Bandwidth lo{std::numeric_limits<std::uint64_t>::max()}, hi{0};
  for (topo::NodeId g : t.gpus()) {
    lo = std::min(lo, t.out_bandwidth(g));
    hi = std::max(hi, t.out_bandwidth(g));
  }
  out << fmt::format("  GPUs: {} ({} .. {})\n", t.gpus().size(), t.node(t.gpus().front()).id,
                     t.node(t.gpus().back()).id);
  out << (lo == hi ? fmt::format("  injection bandwidth per GPU: {}\n", format_bandwidth(lo))
                   : fmt::format("  injection bandwidth per GPU: {} .. {}\n", format_bandwidth(lo), format_bandwidth(hi)));
  // Only where two paths tie does the routing decide anything.
  if (const auto routing = topo::routing_in_effect(t))
    out << fmt::format("  routing: {} (how flows take the equal-cost paths between switches; --routing)\n", *routing);
  out << fmt::format("  transports: {}\n", transports);
  return kExitOk;
}

}  // namespace collsim::cli
