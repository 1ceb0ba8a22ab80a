#include "tools/options.hpp"

#include <charconv>

#include <fmt/format.h>

#include "tools/cli.hpp"
#include "topologies/generate.hpp"
#include "topologies/load_json.hpp"

namespace collsim::cli {

void TopologyOptions::add_to(CLI::App& cmd) {
  cmd.add_option("topology", spec,
                 fmt::format("Topology JSON file or bundled name (see `collsim topo`); default {}", kDefaultTopology));
  cmd.add_option("--gpus", gpus, "Generate a fabric of this many GPUs instead of reading a topology (needs --fabric)");
  cmd.add_option("--fabric", fabric, "Generated fabric: ring | switch | fully-connected");
  cmd.add_option("--link-bandwidth", link_bandwidth,
                 "Generated links' bandwidth per direction, default 25GB/s (GB/s = 1e9 bytes/s, Gb/s = 1e9 bits/s)");
  cmd.add_option("--link-latency", link_latency, "Generated links' latency, default 1us (ps, ns, us, ms, s)");
}

bool TopologyOptions::empty() const {
  return spec.empty() && gpus.empty() && fabric.empty() && link_bandwidth.empty() && link_latency.empty();
}

void TopologyOptions::default_notice(std::ostream& err) const {
  if (empty())
    err << fmt::format("collsim: no topology given; used the bundled default {} (list them with `collsim topo`)\n",
                       kDefaultTopology);
}

topo::Topology TopologyOptions::load() const {
  const bool generated = !gpus.empty() || !fabric.empty() || !link_bandwidth.empty() || !link_latency.empty();
  if (!spec.empty() && generated)
    throw UsageError(fmt::format("both a topology (\"{}\") and generator flags (--gpus/--fabric/--link-*) were given; "
                                 "expected one or the other",
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
  Bandwidth bw{};
  Time lat{};
  try {
    bw = parse_bandwidth(link_bandwidth.empty() ? "25GB/s" : link_bandwidth);
  } catch (const UnitError& e) {
    throw UsageError(fmt::format("--link-bandwidth: {}", e.what()));
  }
  try {
    lat = parse_latency(link_latency.empty() ? "1us" : link_latency);
  } catch (const UnitError& e) {
    throw UsageError(fmt::format("--link-latency: {}", e.what()));
  }
  return topo::generate_fabric(*f, n, bw, lat);
}

std::uint32_t parse_count(std::string_view flag, std::string_view text, std::uint32_t min, std::uint32_t max) {
  std::uint64_t v = 0;
  const auto* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (text.empty() || ec != std::errc() || ptr != end || v < min || v > max)
    throw UsageError(fmt::format("{}: found \"{}\", expected a whole number from {} to {}", flag, text, min, max));
  return static_cast<std::uint32_t>(v);
}

}  // namespace collsim::cli
