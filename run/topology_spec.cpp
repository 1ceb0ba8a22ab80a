// Loading or generating the topology of a request (run/request.hpp).
#include <fmt/format.h>

#include "run/errors.hpp"
#include "run/parse.hpp"
#include "run/request.hpp"
#include "topologies/load_json.hpp"

namespace collsim::run {

bool TopologySpec::generated() const {
  return gpus || fabric || link_bandwidth || link_latency || nodes || net_bandwidth || net_latency;
}

namespace {

topo::Topology load_topology_as_given(const TopologySpec& spec);

}  // namespace

topo::Topology load_topology(const TopologySpec& spec) {
  topo::Topology t = load_topology_as_given(spec);
  if (spec.p2p_level) t.set_p2p_level(spec.p2p_level);
  return t;
}

namespace {

topo::Topology load_topology_as_given(const TopologySpec& spec) {
  const bool generated = spec.generated();
  if (spec.given && (generated || !spec.name.empty()))
    throw RequestError(Field::Topology, spec.name,
                       fmt::format("{}: found a topology object and also {}; expected one of them", ref(Field::Topology),
                                   generated ? "generator fields" : fmt::format("the name \"{}\"", spec.name)));
  if (spec.given) return spec.given->copy();
  if (!spec.name.empty() && generated)
    throw RequestError(Field::Topology, spec.name,
                       fmt::format("both a topology (\"{}\") and generator flags ({}/{}/{}/{}/{}/{}/{}) were given; "
                                   "expected one or the other",
                                   spec.name, ref(Field::Gpus), ref(Field::Fabric), ref(Field::LinkBandwidth),
                                   ref(Field::LinkLatency), ref(Field::Nodes), ref(Field::NetBandwidth),
                                   ref(Field::NetLatency)));
  if (!generated) return topo::load_topology(spec.name.empty() ? kDefaultTopology : std::string_view(spec.name));
  if (!spec.gpus)
    throw RequestError(Field::Gpus, "",
                       fmt::format("{}: missing; a generated fabric needs {} N and {} F", ref(Field::Gpus),
                                   ref(Field::Gpus), ref(Field::Fabric)));
  if (!spec.fabric)
    throw RequestError(Field::Fabric, "",
                       fmt::format("{}: missing; a generated fabric needs {} ring|switch|fully-connected and {} N",
                                   ref(Field::Fabric), ref(Field::Fabric), ref(Field::Gpus)));
  const std::uint32_t n = *spec.gpus;
  check_count(Field::Gpus, n, 1, 1u << 20);
  if (*spec.fabric == topo::Fabric::FullyConnected && n > 4096)
    throw RequestError(Field::Gpus, std::to_string(n),
                       fmt::format("{}: {} GPUs fully connected is {} links; expected at most 4096 GPUs",
                                   ref(Field::Gpus), n, std::uint64_t{n} * (n - 1) / 2));
  const Bandwidth bw = spec.link_bandwidth.value_or(collsim::parse_bandwidth("25GB/s"));
  const Time lat = spec.link_latency.value_or(collsim::parse_latency("1us"));
  if (!spec.nodes) {
    if (spec.net_bandwidth || spec.net_latency) {
      const Field f = spec.net_bandwidth ? Field::NetBandwidth : Field::NetLatency;
      throw RequestError(f, "",
                         fmt::format("{}: only a multi-node fabric has network links; expected {} K with it", ref(f),
                                     ref(Field::Nodes)));
    }
    return topo::generate_fabric(*spec.fabric, n, bw, lat);
  }
  // One switch per host is the shape --nodes builds; a ring or mesh inside each host would need NICs
  // to reach the network, which a file describes better (see dgx-a100-2node).
  if (*spec.fabric != topo::Fabric::Switch)
    throw RequestError(Field::Nodes, std::to_string(*spec.nodes),
                       fmt::format("{}: found {} {}, expected {} switch (each host's GPUs on its own switch)",
                                   ref(Field::Nodes), ref(Field::Fabric), topo::fabric_name(*spec.fabric),
                                   ref(Field::Fabric)));
  check_count(Field::Nodes, *spec.nodes, 1, 1u << 20);
  topo::MultiNodeSpec m;
  m.gpus = n;
  m.hosts = *spec.nodes;
  m.link_bandwidth = bw;
  m.link_latency = lat;
  m.net_bandwidth = spec.net_bandwidth.value_or(collsim::parse_bandwidth("25GB/s"));
  m.net_latency = spec.net_latency.value_or(collsim::parse_latency("2us"));
  return topo::generate_multi_node(m);
}

}  // namespace

}  // namespace collsim::run
