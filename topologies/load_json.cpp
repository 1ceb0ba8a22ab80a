#include "topologies/load_json.hpp"

#include "topologies/gpu_models.hpp"

#include <algorithm>
#include <map>
#include <vector>

#include <fmt/format.h>

#include "sim/io/text_file.hpp"
#include "topologies/bundled.hpp"
#include "topologies/cluster.hpp"
#include "topologies/json_reader.hpp"

namespace collsim::topo {
namespace {
using detail::brief;
using detail::json;
using detail::Reader;
}  // namespace

namespace {

// The machine-wide settings: the routing at /routing and the P2P level at /p2p_level, where given.
void read_machine_settings(const Reader& rd, const json& doc, Topology& topology) {
  if (auto it = doc.find("routing"); it != doc.end()) {
    const json& v = *it;
    const auto routing = v.is_string() ? kRoutingNames.parse(v.get_ref<const std::string&>()) : std::nullopt;
    if (!routing) rd.fail("/routing", fmt::format("found {}, expected {}", brief(v), kRoutingNames.list(ListStyle::QuotedOr)));
    topology.set_routing(*routing);
  }
  if (auto it = doc.find("p2p_level"); it != doc.end()) {
    const json& v = *it;
    const auto level = v.is_string() ? kP2pLevelNames.parse(v.get_ref<const std::string&>()) : std::nullopt;
    if (!level)
      rd.fail("/p2p_level", fmt::format("found {}, expected {} (NCCL_P2P_LEVEL's names; \"off\" is NCCL_P2P_DISABLE=1)",
                                        brief(v), kP2pLevelNames.list(ListStyle::QuotedOr)));
    topology.set_p2p_level(*level);
  }
}

// A document's "cluster" object: K copies of a machine on a leaf/spine fabric (cluster.hpp).
Topology read_cluster(const Reader& rd, const json& doc, std::string_view where) {
  const json& c = doc.at("cluster");
  if (!c.is_object()) rd.fail("/cluster", fmt::format("found {}, expected an object {{\"node\", \"nodes\", \"fabric\"}}", brief(c)));
  rd.only_keys(c, "/cluster", {"node", "nodes", "fabric", "leaf_nics", "spines", "oversubscription", "planes",
                               "nic_bandwidth", "nic_latency", "switch_latency"});
  const std::string machine = rd.string_at(rd.member(c, "/cluster", "node", "a bundled machine or a topology file"),
                                           "/cluster/node", "a bundled machine or a topology file");
  ClusterSpec spec;
  spec.nodes = rd.count_at(rd.member(c, "/cluster", "nodes", "the number of hosts"), "/cluster/nodes", 1, 1u << 20);
  const json& f = rd.member(c, "/cluster", "fabric", kClusterFabricNames.list(ListStyle::Or).c_str());
  const auto fabric = f.is_string() ? kClusterFabricNames.parse(f.get_ref<const std::string&>()) : std::nullopt;
  if (!fabric)
    rd.fail("/cluster/fabric", fmt::format("found {}, expected {}", brief(f), kClusterFabricNames.list(ListStyle::QuotedOr)));
  spec.fabric = *fabric;
  if (auto it = c.find("leaf_nics"); it != c.end()) spec.leaf_nics = rd.count_at(*it, "/cluster/leaf_nics", 1, 1u << 16);
  if (auto it = c.find("spines"); it != c.end()) spec.spines = rd.count_at(*it, "/cluster/spines", 1, 1u << 16);
  if (auto it = c.find("planes"); it != c.end()) spec.planes = rd.count_at(*it, "/cluster/planes", 1, 64);
  if (auto it = c.find("oversubscription"); it != c.end()) {
    const json& o = *it;
    const auto ratio = o.is_string()   ? parse_oversubscription(o.get_ref<const std::string&>())
                       : o.is_number() ? parse_oversubscription(fmt::format("{}", o.get<double>()))
                                       : std::nullopt;
    if (!ratio)
      rd.fail("/cluster/oversubscription", fmt::format("found {}, expected a down to up ratio of at least 1, as \"2:1\" or 2", brief(o)));
    spec.oversubscription = *ratio;
  }
  if (auto it = c.find("nic_bandwidth"); it != c.end()) spec.nic_bandwidth = rd.bandwidth_at(*it, "/cluster/nic_bandwidth");
  if (auto it = c.find("nic_latency"); it != c.end()) spec.nic_latency = rd.latency_at(*it, "/cluster/nic_latency");
  if (auto it = c.find("switch_latency"); it != c.end()) spec.switch_latency = rd.latency_at(*it, "/cluster/switch_latency");
  // A relative file is looked for next to the cluster file first, then from the working directory.
  std::string machine_path = machine;
  {
    std::error_code ec;
    const std::filesystem::path beside = std::filesystem::path(std::string(where)).parent_path() / machine;
    if (std::filesystem::path(machine).is_relative() && std::filesystem::is_regular_file(beside, ec))
      machine_path = beside.string();
    // The machine is one host: a cluster file there (this one, or one naming it back) is refused
    // before it is read as a topology, so clusters never nest and never loop.
    if (std::filesystem::is_regular_file(machine_path, ec)) {
      std::string text;
      try {
        text = io::read_text_file(machine_path, "a topology JSON file");
      } catch (const io::FileReadError& e) {
        rd.fail("/cluster/node", e.what());
      }
      const json inner = detail::parse_strict_json(text, machine_path);
      if (inner.is_object() && inner.contains("cluster"))
        rd.fail("/cluster/node", fmt::format("found \"{}\", itself a cluster; expected one machine (a topology of "
                                             "nodes and links, or a bundled name)", machine));
    }
  }
  Topology machine_topology = [&] {
    try {
      return load_topology(machine_path);
    } catch (const TopologyError& e) {
      rd.fail("/cluster/node", e.what());
    }
  }();
  Topology cluster = [&] {
    try {
      return generate_cluster(machine_topology, spec);
    } catch (const TopologyError& e) {
      // generate_cluster names the flag ("--leaf-nics: ..."); a file names its key instead.
      std::string what = e.what();
      std::string path = "/cluster";
      if (what.starts_with("--") && what.find(": ") != std::string::npos) {
        std::string key = what.substr(2, what.find(": ") - 2);
        std::replace(key.begin(), key.end(), '-', '_');
        path += "/" + key;
        what = what.substr(what.find(": ") + 2);
      }
      rd.fail(path, what);
    }
  }();
  return cluster;
}

}  // namespace

Topology parse_topology_json(std::string_view text, std::string_view where, std::string default_name) {
  const json doc = detail::parse_strict_json(text, where);
  Reader rd(where);
  if (!doc.is_object()) rd.fail("", fmt::format("found {}, expected an object with \"nodes\" and \"links\"", brief(doc)));
  if (doc.contains("cluster")) {
    rd.only_keys(doc, "", {"$schema", "name", "description", "cluster", "p2p_level", "routing"});
    Topology cluster = read_cluster(rd, doc, where);
    if (doc.contains("name") || doc.contains("description")) {
      // The file's name and description over the generated ones: a copy with them (same links).
      std::string name = cluster.name(), description = cluster.description();
      if (auto it = doc.find("name"); it != doc.end()) name = rd.string_at(*it, "/name", "a non-empty string");
      if (auto it = doc.find("description"); it != doc.end()) description = rd.string_at(*it, "/description", "a non-empty string");
      cluster = cluster.renamed(std::move(name), std::move(description));
    }
    read_machine_settings(rd, doc, cluster);
    return cluster;
  }
  rd.only_keys(doc, "", {"$schema", "name", "description", "nodes", "links", "params", "p2p_level", "routing"});
  if (auto it = doc.find("$schema"); it != doc.end()) (void)rd.string_at(*it, "/$schema", "a string (the schema's URL)");
  std::string name = std::move(default_name);
  if (auto it = doc.find("name"); it != doc.end()) name = rd.string_at(*it, "/name", "a non-empty string");
  std::string description;
  if (auto it = doc.find("description"); it != doc.end())
    description = rd.string_at(*it, "/description", "a non-empty string");

  const json& jnodes = rd.member(doc, "", "nodes", "an array of {\"id\", \"type\"}");
  if (!jnodes.is_array()) rd.fail("/nodes", fmt::format("found {}, expected an array of nodes", brief(jnodes)));
  std::vector<Node> nodes;
  std::map<std::string, NodeId, std::less<>> index;
  for (std::size_t i = 0; i < jnodes.size(); ++i) {
    const std::string path = fmt::format("/nodes/{}", i);
    const json& jn = jnodes[i];
    if (!jn.is_object()) rd.fail(path, fmt::format("found {}, expected an object {{\"id\", \"type\"}}", brief(jn)));
    rd.only_keys(jn, path, {"id", "type", "model", "host", "reduce_bandwidth", "nvls", "sharp", "p2p", "vendor"});
    Node node;
    node.id = rd.string_at(rd.member(jn, path, "id", "a unique string"), path + "/id", "a non-empty string");
    const std::string type =
        rd.string_at(rd.member(jn, path, "type", node_type_names().c_str()), path + "/type", "a node type");
    const auto t = parse_node_type(type);
    if (!t) rd.fail(path + "/type", fmt::format("found \"{}\", expected one of: {}", type, node_type_names()));
    node.type = *t;
    if (auto it = jn.find("model"); it != jn.end()) {
      node.model = rd.string_at(*it, path + "/model", "a non-empty string");
      // A GPU's model decides its default reduce rate, NVLS and NCCL's per-architecture tables: a
      // name collsim does not know (a typo) would silently drop all three.
      if (node.type == NodeType::Gpu && !known_gpu_model(node.model))
        rd.fail(path + "/model", fmt::format("found \"{}\", expected a GPU model collsim knows (a name starting with one "
                                             "of: {}; any case, \"NVIDIA \" first allowed) or no \"model\" key",
                                             node.model, known_gpu_model_names()));
    }
    if (auto it = jn.find("host"); it != jn.end()) node.host = rd.string_at(*it, path + "/host", "a non-empty string");
    if (auto it = jn.find("reduce_bandwidth"); it != jn.end()) {
      if (node.type != NodeType::Gpu) rd.fail(path + "/reduce_bandwidth", "only a GPU reduces; expected the key on a gpu node");
      node.reduce_bandwidth = rd.bandwidth_at(*it, path + "/reduce_bandwidth");
    }
    if (auto it = jn.find("nvls"); it != jn.end()) {
      if (node.type != NodeType::Switch) rd.fail(path + "/nvls", "only a switch reduces in the network; expected the key on a switch node");
      node.nvls = rd.bool_at(*it, path + "/nvls");
    }
    if (auto it = jn.find("sharp"); it != jn.end()) {
      if (node.type != NodeType::Switch) rd.fail(path + "/sharp", "only a switch reduces in the network; expected the key on a switch node");
      node.sharp = rd.bool_at(*it, path + "/sharp");
    }
    if (auto it = jn.find("p2p"); it != jn.end()) {
      if (node.type != NodeType::Gpu) rd.fail(path + "/p2p", "only a GPU has peer-to-peer access; expected the key on a gpu node");
      node.p2p = rd.bool_at(*it, path + "/p2p");
    }
    if (auto it = jn.find("vendor"); it != jn.end()) {
      if (node.type != NodeType::Cpu) rd.fail(path + "/vendor", "only a CPU has a vendor here; expected the key on a cpu node");
      const json& v = *it;
      const auto vendor = v.is_string() ? kCpuVendorNames.parse(v.get_ref<const std::string&>()) : std::nullopt;
      if (!vendor)
        rd.fail(path + "/vendor", fmt::format("found {}, expected {}", brief(v), kCpuVendorNames.list(ListStyle::QuotedOr)));
      node.vendor = *vendor;
    }
    if (!index.emplace(node.id, static_cast<NodeId>(nodes.size())).second)
      rd.fail(path + "/id", fmt::format("duplicate node id \"{}\", expected ids to be unique", node.id));
    nodes.push_back(std::move(node));
  }

  const json& jlinks = rd.member(doc, "", "links", "an array of {\"from\", \"to\", \"type\", \"bandwidth\", \"latency\"}");
  if (!jlinks.is_array()) rd.fail("/links", fmt::format("found {}, expected an array of links", brief(jlinks)));
  std::vector<LinkSpec> links;
  for (std::size_t i = 0; i < jlinks.size(); ++i) {
    const std::string path = fmt::format("/links/{}", i);
    const json& jl = jlinks[i];
    if (!jl.is_object()) rd.fail(path, fmt::format("found {}, expected a link object", brief(jl)));
    rd.only_keys(jl, path, {"from", "to", "type", "bandwidth", "latency", "duplex"});
    LinkSpec spec;
    for (const char* end : {"from", "to"}) {
      const std::string id =
          rd.string_at(rd.member(jl, path, end, "a node id"), path + "/" + end, "the id of a node in /nodes");
      auto it = index.find(id);
      if (it == index.end()) rd.fail(path + "/" + end, fmt::format("unknown node \"{}\", expected the id of a node in /nodes", id));
      (std::string_view(end) == "from" ? spec.a : spec.b) = it->second;
    }
    const std::string type =
        rd.string_at(rd.member(jl, path, "type", link_type_names().c_str()), path + "/type", "a link type");
    const auto lt = parse_link_type(type);
    if (!lt) rd.fail(path + "/type", fmt::format("found \"{}\", expected one of: {}", type, link_type_names()));
    spec.type = *lt;
    spec.bandwidth = rd.bandwidth_at(rd.member(jl, path, "bandwidth", "e.g. \"300GB/s\""), path + "/bandwidth");
    spec.latency = rd.latency_at(rd.member(jl, path, "latency", "e.g. \"700ns\""), path + "/latency");
    if (auto it = jl.find("duplex"); it != jl.end()) {
      const json& d = *it;
      const auto duplex = d.is_string() ? kDuplexNames.parse(d.get_ref<const std::string&>()) : std::nullopt;
      if (!duplex)
        rd.fail(path + "/duplex", fmt::format("found {}, expected {}", brief(d), kDuplexNames.list(ListStyle::QuotedOr)));
      spec.duplex = *duplex;
    }
    links.push_back(spec);
  }
  ModelParams params;
  if (auto it = doc.find("params"); it != doc.end()) params = detail::read_model_params(rd, *it, "/params", false);
  Topology topology(std::move(name), std::move(description), std::move(nodes), std::move(links), where);
  topology.set_params(std::move(params));
  read_machine_settings(rd, doc, topology);
  return topology;
}

Topology load_topology_file(const std::filesystem::path& path) {
  std::string text;
  try {
    text = io::read_text_file(path, "a topology JSON file");
  } catch (const io::FileReadError& e) {
    throw TopologyError(e.what());
  }
  return parse_topology_json(text, path.string(), path.stem().string());
}

std::span<const std::string_view> bundled_topology_names() {
  static const std::vector<std::string_view> names = [] {
    std::vector<std::string_view> v;
    for (const auto& b : bundled_topologies()) v.push_back(b.name);
    return v;
  }();
  return names;
}

Topology load_topology(std::string_view spec) {
  const std::filesystem::path path{std::string(spec)};
  std::error_code ec;
  if (std::filesystem::is_regular_file(path, ec)) return load_topology_file(path);
  std::string_view name = spec;
  if (name.ends_with(".json")) name.remove_suffix(5);
  for (const auto& b : bundled_topologies())
    if (b.name == name) return parse_topology_json(b.text, fmt::format("bundled:{}", b.name), std::string(b.name));
  std::string list;
  for (auto n : bundled_topology_names()) list += (list.empty() ? "" : ", ") + std::string(n);
  // A directory gets the message of every file reader (sim/io/text_file.hpp): load_topology_file throws it.
  if (std::filesystem::is_directory(path, ec)) return load_topology_file(path);
  if (std::filesystem::exists(path, ec))
    throw TopologyError(fmt::format("{} is not a regular file; expected a topology JSON file", spec));
  throw TopologyError(fmt::format("topology \"{}\": no such file, and not a bundled topology (bundled: {})", spec, list));
}

}  // namespace collsim::topo
