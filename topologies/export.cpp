#include "topologies/export.hpp"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/graphviz.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "topologies/model_params.hpp"

namespace collsim::topo {

void write_dot(const Topology& t, std::ostream& out) {
  using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS, boost::no_property,
                                      boost::property<boost::edge_index_t, LinkId>>;
  Graph g(t.nodes().size());
  // File link i is directed links 2i and 2i+1; one undirected edge carries the pair.
  for (LinkId l = 0; l < t.links().size(); l += 2) boost::add_edge(t.link(l).from, t.link(l).to, l, g);
  const auto escape = [](const std::string& s) {
    std::string e;
    for (char c : s) e += c == '"' || c == '\\' ? std::string("\\") + c : std::string(1, c);
    return e;
  };
  const auto vertex = [&](std::ostream& o, Graph::vertex_descriptor v) {
    const Node& n = t.node(static_cast<NodeId>(v));
    const char* shape = n.type == NodeType::Gpu ? "box" : n.type == NodeType::Switch ? "diamond" : "ellipse";
    o << fmt::format("[label=\"{}\", shape={}]", escape(n.id), shape);
  };
  const auto edge = [&](std::ostream& o, Graph::edge_descriptor e) {
    const Link& l = t.link(boost::get(boost::edge_index, g, e));
    o << fmt::format("[label=\"{}\\n{}{}\"]", link_type_name(l.type), format_bandwidth(l.bandwidth),
                     l.duplex == Duplex::Half ? "\\nhalf duplex" : "");
  };
  const auto graph = [&](std::ostream& o) {
    o << fmt::format("label=\"{}\";\nnode [fontname=\"sans\"];\nedge [fontname=\"sans\", fontsize=10];\n",
                     escape(t.name()));
  };
  boost::write_graphviz(out, g, vertex, edge, graph);
}

std::string normalized_json(const Topology& t) {
  nlohmann::ordered_json j;
  j["name"] = t.name();
  // The loader refuses an empty description (and reads a missing one as empty).
  if (!t.description().empty()) j["description"] = t.description();
  auto& nodes = j["nodes"] = nlohmann::ordered_json::array();
  for (const Node& n : t.nodes()) {
    nlohmann::ordered_json jn{{"id", n.id}, {"type", node_type_name(n.type)}};
    if (!n.model.empty()) jn["model"] = n.model;
    if (!n.host.empty()) jn["host"] = n.host;
    // 0 means "not given": the GPU's model then sets the rate (gpu_models.hpp).
    if (n.reduce_bandwidth.bits_per_s != 0) jn["reduce_bandwidth"] = fmt::format("{}b/s", n.reduce_bandwidth.bits_per_s);
    if (n.nvls) jn["nvls"] = *n.nvls;
    if (n.sharp) jn["sharp"] = true;
    if (!n.p2p) jn["p2p"] = false;
    if (n.vendor != CpuVendor::Unknown) jn["vendor"] = kCpuVendorNames.name(n.vendor);
    nodes.push_back(std::move(jn));
  }
  auto& links = j["links"] = nlohmann::ordered_json::array();
  for (LinkId l = 0; l < t.links().size(); l += 2) {
    const Link& k = t.link(l);
    links.push_back({{"from", t.node(k.from).id},
                     {"to", t.node(k.to).id},
                     {"type", link_type_name(k.type)},
                     {"bandwidth", fmt::format("{}b/s", k.bandwidth.bits_per_s)},
                     {"latency", fmt::format("{}ps", k.latency.count())},
                     {"duplex", kDuplexNames.name(k.duplex)}});
  }
  // The model parameters (protocol, channels, efficiencies, ...) are part of the machine: without
  // them the file would load as a different one. The parameter-file form, less its "format" key.
  if (!t.params().empty()) {
    auto params = nlohmann::ordered_json::parse(write_model_params_json(t.params()));
    params.erase("format");
    j["params"] = std::move(params);
  }
  if (const auto level = t.p2p_level()) j["p2p_level"] = kP2pLevelNames.name(*level);
  if (t.routing() != Routing::Ecmp) j["routing"] = kRoutingNames.name(t.routing());
  return j.dump(2) + "\n";
}

}  // namespace collsim::topo
