// Loading or generating the topology of a request (run/request.hpp).
#include <fmt/format.h>

#include "run/errors.hpp"
#include "run/parse.hpp"
#include "run/request.hpp"
#include "topologies/load_json.hpp"

namespace collsim::run {

bool TopologySpec::generated() const {
  return gpus || fabric || link_bandwidth || link_latency || nodes || net_bandwidth || net_latency || cluster();
}

bool TopologySpec::cluster() const {
  return !node.empty() || cluster_fabric || leaf_nics || spines || oversubscription || planes || switch_latency;
}

namespace {

topo::Topology load_topology_as_given(const TopologySpec& spec);

}  // namespace

topo::Topology load_topology(const TopologySpec& spec) {
  topo::Topology t = load_topology_as_given(spec);
  if (spec.p2p_level) t.set_p2p_level(spec.p2p_level);
  if (spec.routing) t.set_routing(*spec.routing);
  return t;
}

namespace {

// K copies of --node's machine on a leaf/spine fabric (topologies/cluster.hpp).
topo::Topology load_cluster(const TopologySpec& spec) {
  const auto only_with_node = [&](bool set, Field f) {
    if (set)
      throw RequestError(f, "", fmt::format("{}: only a cluster has it; expected {} MACHINE with {} K and {} fat-tree|rail",
                                            ref(f), ref(Field::Node), ref(Field::Nodes), ref(Field::Fabric)));
  };
  if (spec.node.empty()) {
    only_with_node(spec.leaf_nics.has_value(), Field::LeafNics);
    only_with_node(spec.spines.has_value(), Field::Spines);
    only_with_node(spec.oversubscription.has_value(), Field::Oversubscription);
    only_with_node(spec.planes.has_value(), Field::Planes);
    only_with_node(spec.switch_latency.has_value(), Field::SwitchLatency);
  }
  const auto not_with_node = [&](bool set, Field f, std::string_view why) {
    if (set) throw RequestError(f, "", fmt::format("{}: not with {} ({}); expected one or the other", ref(f), ref(Field::Node), why));
  };
  not_with_node(spec.gpus.has_value(), Field::Gpus, "the GPUs are the machine's times --nodes");
  not_with_node(spec.link_bandwidth.has_value(), Field::LinkBandwidth, "the machine's links stay as its file says");
  not_with_node(spec.link_latency.has_value(), Field::LinkLatency, "the machine's links stay as its file says");
  if (!spec.nodes)
    throw RequestError(Field::Nodes, "", fmt::format("{}: missing; a cluster needs {} K hosts of {} {}", ref(Field::Nodes),
                                                     ref(Field::Nodes), ref(Field::Node), spec.node));
  if (!spec.cluster_fabric)
    throw RequestError(Field::Fabric, "", fmt::format("{}: missing; a cluster needs {} fat-tree or rail", ref(Field::Fabric),
                                                      ref(Field::Fabric)));
  check_count(Field::Nodes, *spec.nodes, 1, 1u << 20);
  topo::ClusterSpec c;
  c.nodes = *spec.nodes;
  c.fabric = *spec.cluster_fabric;
  if (spec.leaf_nics) c.leaf_nics = *spec.leaf_nics;
  if (spec.spines) c.spines = *spec.spines;
  if (spec.oversubscription) c.oversubscription = *spec.oversubscription;
  if (spec.planes) c.planes = *spec.planes;
  if (spec.net_bandwidth) c.nic_bandwidth = *spec.net_bandwidth;
  if (spec.net_latency) c.nic_latency = *spec.net_latency;
  if (spec.switch_latency) c.switch_latency = *spec.switch_latency;
  // The machine's own error (no such file or bundled name, or a bad file) under the flag that named it.
  const topo::Topology node = [&] {
    try {
      return topo::load_topology(spec.node);
    } catch (const topo::TopologyError& e) {
      throw RequestError(Field::Node, spec.node, fmt::format("{}: {}", ref(Field::Node), e.what()));
    }
  }();
  return topo::generate_cluster(node, c);
}

topo::Topology load_topology_as_given(const TopologySpec& spec) {
  if (spec.cluster()) {
    if (spec.node.empty()) return load_cluster(spec);  // says which cluster field came without --node
    if (spec.given || !spec.name.empty())
      throw RequestError(Field::Node, spec.node,
                         fmt::format("{}: a cluster's machine, given with the topology {}; expected one of them",
                                     ref(Field::Node), spec.name.empty() ? "object" : "\"" + spec.name + "\""));
    return load_cluster(spec);
  }
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
