#include "tools/options.hpp"

#include <algorithm>
#include <charconv>

#include <fmt/format.h>

#include "sim/io/text_file.hpp"
#include "tools/cli.hpp"
#include "topologies/generate.hpp"
#include "topologies/load_json.hpp"

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
  add_value(cmd, "--gpus", gpus, "Generate a fabric of this many GPUs instead of reading a topology (needs --fabric)");
  add_value(cmd, "--fabric", fabric, "Generated fabric: ring | switch | fully-connected");
  add_value(cmd, "--link-bandwidth", link_bandwidth,
                 "Generated links' bandwidth per direction, default 25GB/s (GB/s = 1e9 bytes/s, Gb/s = 1e9 bits/s)");
  add_value(cmd, "--link-latency", link_latency, "Generated links' latency, default 1us (ps, ns, us, ms, s)");
  add_value(cmd, "--nodes", nodes,
            "Generate K hosts of N/K GPUs (needs --fabric switch; K must divide --gpus N): each host's GPUs on its own "
            "switch, the host switches joined by one network switch");
  add_value(cmd, "--net-bandwidth", net_bandwidth,
            "With --nodes: each host's link to the network switch, per direction, default 25GB/s (one 200 Gb/s HDR "
            "InfiniBand port; GB/s = 1e9 bytes/s, Gb/s = 1e9 bits/s)");
  add_value(cmd, "--net-latency", net_latency, "With --nodes: latency of each host's network link, default 2us");
}

bool TopologyOptions::empty() const {
  return spec.empty() && gpus.empty() && fabric.empty() && link_bandwidth.empty() && link_latency.empty() &&
         nodes.empty() && net_bandwidth.empty() && net_latency.empty();
}

void TopologyOptions::default_notice(std::ostream& err) const {
  if (empty())
    err << fmt::format("collsim: no topology given; used the bundled default {} (list them with `collsim topo`)\n",
                       kDefaultTopology);
}

namespace {

Bandwidth bandwidth_flag(std::string_view flag, const std::string& text, std::string_view fallback) {
  try {
    return parse_bandwidth(text.empty() ? fallback : std::string_view(text));
  } catch (const UnitError& e) {
    throw UsageError(fmt::format("{}: {}", flag, e.what()));
  }
}

Time latency_flag(std::string_view flag, const std::string& text, std::string_view fallback) {
  try {
    return parse_latency(text.empty() ? fallback : std::string_view(text));
  } catch (const UnitError& e) {
    throw UsageError(fmt::format("{}: {}", flag, e.what()));
  }
}

}  // namespace

topo::Topology TopologyOptions::load() const {
  const bool generated = !gpus.empty() || !fabric.empty() || !link_bandwidth.empty() || !link_latency.empty() ||
                         !nodes.empty() || !net_bandwidth.empty() || !net_latency.empty();
  if (!spec.empty() && generated)
    throw UsageError(fmt::format("both a topology (\"{}\") and generator flags (--gpus/--fabric/--link-*/--nodes/--net-*) "
                                 "were given; expected one or the other",
                                 spec));
  if (!generated) {
    return topo::load_topology(spec.empty() ? kDefaultTopology : std::string_view(spec));
  }
  if (gpus.empty()) throw UsageError("--gpus: missing; a generated fabric needs --gpus N and --fabric F");
  if (fabric.empty())
    throw UsageError("--fabric: missing; a generated fabric needs --fabric ring|switch|fully-connected and --gpus N");
  const std::uint32_t n = parse_count("--gpus", gpus, 1, 1u << 20);
  const auto f = topo::parse_fabric(fabric);
  if (!f) throw UsageError(fmt::format("--fabric: found \"{}\", expected ring, switch or fully-connected", fabric));
  if (*f == topo::Fabric::FullyConnected && n > 4096)
    throw UsageError(fmt::format("--gpus: {} GPUs fully connected is {} links; expected at most 4096 GPUs", n,
                                 std::uint64_t{n} * (n - 1) / 2));
  const Bandwidth bw = bandwidth_flag("--link-bandwidth", link_bandwidth, "25GB/s");
  const Time lat = latency_flag("--link-latency", link_latency, "1us");
  if (nodes.empty()) {
    if (!net_bandwidth.empty() || !net_latency.empty())
      throw UsageError(fmt::format("{}: only a multi-node fabric has network links; expected --nodes K with it",
                                   net_bandwidth.empty() ? "--net-latency" : "--net-bandwidth"));
    return topo::generate_fabric(*f, n, bw, lat);
  }
  // One switch per host is the shape the issue asks for; a ring or mesh inside each host would
  // need NICs to reach the network, which a file describes better (see dgx-a100-2node).
  if (*f != topo::Fabric::Switch)
    throw UsageError(fmt::format("--nodes: found --fabric {}, expected --fabric switch (each host's GPUs on its own "
                                 "switch)", topo::fabric_name(*f)));
  topo::MultiNodeSpec m;
  m.gpus = n;
  m.hosts = parse_count("--nodes", nodes, 1, 1u << 20);
  m.link_bandwidth = bw;
  m.link_latency = lat;
  m.net_bandwidth = bandwidth_flag("--net-bandwidth", net_bandwidth, "25GB/s");
  m.net_latency = latency_flag("--net-latency", net_latency, "2us");
  return topo::generate_multi_node(m);
}

void AlgorithmOptions::add_to(CLI::App& cmd) {
  add_value(cmd, "--collective", collective,
                 "allreduce (default), reducescatter, allgather, broadcast, reduce, alltoall (- and _ ignored)");
  add_value(cmd, "--algorithm", algorithm, "Algorithm, default ring; `collsim algorithms` lists them");
  add_value(cmd, "--root", root, "Root rank of broadcast and reduce, default 0");
  add_value(cmd, "--chunk-size", chunk_size,
                 "Pipeline chunk of tree algorithms, default 512K (K/M/G = powers of 1024, KB/MB/GB of 1000)");
  add_value(cmd, "--ps-shards", ps_shards, "ps: spread the buffer over K servers, default 1 (K = N: colocated)");
  add_value(cmd, "--ps-node", ps_node,
                 "ps: run the servers on these topology nodes (comma-separated ids, one per shard, e.g. cpu0) "
                 "instead of on ranks 0..K-1");
}

std::vector<std::string> AlgorithmOptions::ps_nodes() const {
  std::vector<std::string> ids;
  if (ps_node.empty()) return ids;
  std::string_view rest = ps_node;
  while (true) {
    const auto comma = rest.find(',');
    ids.emplace_back(rest.substr(0, comma));
    if (ids.back().empty()) throw UsageError(fmt::format("--ps-node: found an empty node id in \"{}\"", ps_node));
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return ids;
}

void AlgorithmOptions::check_used_by(const algo::AlgorithmInfo& info) const {
  const auto kind = sched::collective_name(info.collective);
  if (!root.empty() && info.collective != sched::Collective::Broadcast &&
      info.collective != sched::Collective::Reduce)
    throw UsageError(fmt::format("--root: {} has no root; expected --root only with --collective broadcast or reduce",
                                 kind));
  if (!chunk_size.empty() && !info.pipelined)
    throw UsageError(fmt::format("--chunk-size: {} {} is not pipelined in chunks; expected --chunk-size only with "
                                 "tree, double-tree, or ring broadcast and reduce (`collsim algorithms` lists them)",
                                 info.name, kind));
  for (const auto* flag : {&ps_shards, &ps_node})
    if (!flag->empty() && !(flag == &ps_shards ? info.takes.ps_shards : info.takes.ps_node))
      throw UsageError(fmt::format("{}: only the ps algorithm has servers, not {}",
                                   flag == &ps_shards ? "--ps-shards" : "--ps-node", info.name));
}

sched::Collective AlgorithmOptions::collective_kind() const {
  const auto c = sched::parse_collective(collective);
  if (!c)
    throw UsageError(fmt::format("--collective: found \"{}\", expected one of: {}", collective,
                                 sched::collective_names_list()));
  return *c;
}

algo::Request AlgorithmOptions::request(std::uint32_t nranks, Bytes size) const {
  algo::Request r{collective_kind(), nranks, size};
  if (!root.empty()) r.root = parse_count("--root", root, 0, nranks - 1);
  if (!chunk_size.empty()) {
    r.chunk_size = parse_size_flag("--chunk-size", chunk_size);
    if (r.chunk_size == 0) throw UsageError("--chunk-size: found 0, expected at least 1 byte");
  }
  if (!ps_shards.empty()) r.ps_shards = parse_count("--ps-shards", ps_shards, 1, nranks);
  const auto nodes = ps_nodes();
  if (!nodes.empty()) {
    // No entry yet (the collective is checked later): refused unless some entry of that name reads it.
    const auto registry = algo::builtin_registry();
    const auto entries = registry.named(algorithm);
    if (std::none_of(entries.begin(), entries.end(), [](const algo::AlgorithmInfo* e) { return e->takes.ps_node; }))
      throw UsageError(fmt::format("--ps-node: only the ps algorithm has servers, not {}", algorithm));
    if (ps_shards.empty()) r.ps_shards = static_cast<std::uint32_t>(nodes.size());
    if (nodes.size() != r.ps_shards)
      throw UsageError(fmt::format("--ps-node: found {} node(s) for {} shard(s), expected one node per shard",
                                   nodes.size(), r.ps_shards));
    r.ps_external_server = true;
  }
  return r;
}

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
