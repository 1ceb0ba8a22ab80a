#include "topologies/topology.hpp"

#include "topologies/reachability.hpp"
#include "topologies/route_search.hpp"

#include "sim/units/saturate.hpp"

#include <algorithm>
#include <cmath>
#include <array>
#include <limits>
#include <set>
#include <unordered_map>
#include <utility>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/dijkstra_shortest_paths.hpp>
#include <boost/property_map/function_property_map.hpp>
#include <fmt/format.h>


namespace collsim::topo {
namespace {

// Route cost: fewest hops first, then least latency, then fewest GPUs passed off the destination's
// rail (Topology::dijkstra_route).
struct Cost {
  std::uint64_t hops = 0;
  std::int64_t latency = 0;
  std::uint64_t off_rail = 0;
  auto operator<=>(const Cost&) const = default;
};

}  // namespace

static_assert(kNodeTypeNames.dense() && kNodeTypeNames.distinct());
static_assert(kLinkTypeNames.dense() && kLinkTypeNames.distinct());
static_assert(kDuplexNames.dense() && kDuplexNames.distinct());

bool may_pass_through(NodeType entered, LinkType over) noexcept {
  return entered != NodeType::Gpu || link_class(over) == LinkClass::NvLink;
}

std::string_view node_type_name(NodeType t) noexcept { return kNodeTypeNames.name(t); }
std::optional<NodeType> parse_node_type(std::string_view s) noexcept { return kNodeTypeNames.parse(s); }
std::string_view link_type_name(LinkType t) noexcept { return kLinkTypeNames.name(t); }
std::optional<LinkType> parse_link_type(std::string_view s) noexcept { return kLinkTypeNames.parse(s); }
std::string node_type_names() { return kNodeTypeNames.list(); }
std::string link_type_names() { return kLinkTypeNames.list(); }

// Directed graph whose edge property is the LinkId, so Boost's results map back to our links.
struct Topology::Graph {
  using G = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS, boost::no_property,
                                  boost::property<boost::edge_index_t, LinkId>>;
  explicit Graph(std::size_t vertices) : g(vertices) {}
  G g;
};

Topology::Topology(std::string name, std::string description, std::vector<Node> nodes, std::vector<LinkSpec> links,
                   std::string_view where)
    : name_(std::move(name)), description_(std::move(description)), nodes_(std::move(nodes)) {
  const auto n = static_cast<NodeId>(nodes_.size());
  for (NodeId i = 0; i < n; ++i)
    if (nodes_[i].type == NodeType::Gpu) gpus_.push_back(i);
  if (gpus_.empty()) throw TopologyError(fmt::format("{}: /nodes: found no node of type \"gpu\", expected at least one", where));
  {
    std::unordered_map<std::string_view, std::uint32_t> index;  // views into nodes_, which no longer moves
    host_index_.reserve(n);
    local_gpu_.reserve(n);
    for (const Node& node : nodes_) {
      const auto [it, added] = index.try_emplace(node.host, static_cast<std::uint32_t>(hosts_.size()));
      if (added) hosts_.emplace_back();
      host_index_.push_back(it->second);
      HostSummary& h = hosts_[it->second];
      local_gpu_.push_back(node.type == NodeType::Gpu ? h.gpus : kNotGpu);
      if (node.type == NodeType::Gpu) ++h.gpus;
      if (node.type == NodeType::Cpu && h.cpu_vendor == CpuVendor::Unknown) h.cpu_vendor = node.vendor;
    }
  }

  graph_ = std::make_unique<Graph>(n);
  std::set<std::pair<NodeId, NodeId>> seen;
  links_.reserve(links.size() * 2);
  for (std::size_t i = 0; i < links.size(); ++i) {
    const LinkSpec& s = links[i];
    if (s.a >= n || s.b >= n) throw TopologyError(fmt::format("{}: /links/{}: node index out of range", where, i));
    if (s.a == s.b)
      throw TopologyError(fmt::format("{}: /links/{}: links node \"{}\" to itself, expected two different nodes", where,
                                      i, nodes_[s.a].id));
    if (!seen.insert(std::minmax(s.a, s.b)).second)
      throw TopologyError(fmt::format("{}: /links/{}: a second link between \"{}\" and \"{}\"; expected one link per "
                                      "pair (give it the summed bandwidth)",
                                      where, i, nodes_[s.a].id, nodes_[s.b].id));
    if (s.bandwidth.bits_per_s == 0)
      throw TopologyError(fmt::format("{}: /links/{}/bandwidth: found 0, expected a positive bandwidth", where, i));
    if (s.latency < Time{0})
      throw TopologyError(fmt::format("{}: /links/{}/latency: found a negative latency", where, i));
    const auto ab = static_cast<LinkId>(links_.size());
    const std::uint32_t shared = s.duplex == Duplex::Half ? ab : ab + 1;
    links_.push_back(Link{s.a, s.b, s.type, s.bandwidth, s.latency, s.duplex, ab});
    links_.push_back(Link{s.b, s.a, s.type, s.bandwidth, s.latency, s.duplex, shared});
    out_links_.resize(n);
    out_links_[s.a].push_back(ab);
    out_links_[s.b].push_back(ab + 1);
    boost::add_edge(s.a, s.b, ab, graph_->g);
    boost::add_edge(s.b, s.a, ab + 1, graph_->g);
  }

  out_links_.resize(n);
  out_bandwidth_.assign(n, Bandwidth{0});
  for (const Link& l : links_) {
    auto& sum = out_bandwidth_[l.from].bits_per_s;
    sum = l.bandwidth.bits_per_s > std::numeric_limits<std::uint64_t>::max() - sum ? std::numeric_limits<std::uint64_t>::max()
                                                                                : sum + l.bandwidth.bits_per_s;
  }

  // Every GPU must reach every other; links are bidirectional, so one search from the first GPU
  // tells. Boost's BFS colours every vertex it reaches black.
  std::vector<boost::default_color_type> colour(n, boost::white_color);
  auto colour_map = boost::make_iterator_property_map(colour.begin(), boost::get(boost::vertex_index, graph_->g));
  boost::breadth_first_search(graph_->g, gpus_.front(), boost::color_map(colour_map));
  for (NodeId gpu : gpus_) {
    if (colour[gpu] == boost::white_color)
      throw TopologyError(fmt::format("{}: /links: GPU \"{}\" cannot reach GPU \"{}\": no path of links joins them",
                                      where, nodes_[gpu].id, nodes_[gpus_.front()].id));
  }
  // Connected is not enough: routes pass a GPU only where they enter it over NVLink, so two GPUs
  // joined only through a third GPU's PCIe link have no route (and a run would stop at the pair).
  if (const auto pair = unroutable_gpu_pair(nodes_, links_))
    throw TopologyError(fmt::format(
        "{}: /links: GPU \"{}\" cannot reach GPU \"{}\": every path of links between them passes another GPU "
        "that it enters over a non-NVLink link, and a route passes a GPU only over NVLink (as NCCL's do)",
        where, nodes_[pair->first].id, nodes_[pair->second].id));
}

Topology Topology::with_bandwidth_factors(const PerClass<double>& factor) const {
  std::vector<LinkSpec> specs;
  specs.reserve(links_.size() / 2);
  for (std::size_t i = 0; i + 1 < links_.size(); i += 2) {
    const Link& l = links_[i];  // link i of the spec became directed links 2i and 2i+1
    const double bits =
        std::round(static_cast<double>(l.bandwidth.bits_per_s) * factor[static_cast<std::size_t>(link_class(l.type))]);
    // The line rate when the product rounds to it or above: a factor of 1 keeps the exact rate, and
    // near 2^64 b/s the double rounds up to 2^64, which converted to 64 bits is undefined.
    const std::uint64_t scaled = bits >= static_cast<double>(l.bandwidth.bits_per_s)
                                     ? l.bandwidth.bits_per_s
                                     : static_cast<std::uint64_t>(std::max(1.0, bits));
    specs.push_back(LinkSpec{l.from, l.to, l.type, Bandwidth{scaled}, l.latency, l.duplex});
  }
  Topology copy(name_, description_, nodes_, std::move(specs), name_);
  copy.params_ = params_;
  copy.p2p_level_ = p2p_level_;
  copy.routing_ = routing_;
  copy.equal_cost_paths_ = equal_cost_paths_;
  // A link and its image have one type, so one factor: the rotation stays one.
  copy.rotation_ = rotation_;
  return copy;
}

void Topology::set_rotation(std::vector<NodeId> node, std::uint32_t gpu_shift) {
  const auto n = static_cast<NodeId>(nodes_.size());
  const auto g = static_cast<std::uint32_t>(gpus_.size());
  const auto fail = [&](const std::string& what) {
    throw TopologyError(fmt::format("{}: rotation by {} GPUs: {}", name_, gpu_shift, what));
  };
  if (node.size() != n || gpu_shift == 0 || gpu_shift >= g) fail("expected one image per node and 0 < shift < GPUs");
  std::vector<bool> hit(n);
  for (NodeId v = 0; v < n; ++v) {
    if (node[v] >= n || hit[node[v]]) fail(fmt::format("node \"{}\" has no image of its own", nodes_[v].id));
    hit[node[v]] = true;
    const Node &a = nodes_[v], &b = nodes_[node[v]];
    const HostSummary &ha = host_summary(v), &hb = host_summary(node[v]);
    if (a.type != b.type || a.model != b.model || a.reduce_bandwidth != b.reduce_bandwidth || a.nvls != b.nvls ||
        a.sharp != b.sharp || a.p2p != b.p2p || a.vendor != b.vendor || ha.gpus != hb.gpus || ha.cpu_vendor != hb.cpu_vendor)
      fail(fmt::format("node \"{}\" and its image \"{}\" differ", a.id, b.id));
  }
  for (std::uint32_t i = 0; i < g; ++i)
    if (node[gpus_[i]] != gpus_[(i + gpu_shift) % g]) fail(fmt::format("GPU \"{}\" does not go {} GPUs on", nodes_[gpus_[i]].id, gpu_shift));
  std::unordered_map<std::uint64_t, LinkId> by_ends;
  for (LinkId l = 0; l < links_.size(); ++l) by_ends.emplace((std::uint64_t{links_[l].from} << 32) | links_[l].to, l);
  std::vector<LinkId> link(links_.size());
  for (LinkId l = 0; l < links_.size(); ++l) {
    const Link& a = links_[l];
    const auto it = by_ends.find((std::uint64_t{node[a.from]} << 32) | node[a.to]);
    if (it == by_ends.end()) fail(fmt::format("link {} has no image", link_label(l)));
    const Link& b = links_[it->second];
    if (a.type != b.type || a.bandwidth != b.bandwidth || a.latency != b.latency || a.duplex != b.duplex)
      fail(fmt::format("link {} and its image {} differ", link_label(l), link_label(it->second)));
    link[l] = it->second;
  }
  rotation_ = Rotation{std::move(node), std::move(link), gpu_shift};
}

Topology Topology::copy() const {
  PerClass<double> unchanged;
  unchanged.fill(1.0);
  return with_bandwidth_factors(unchanged);
}

bool Topology::has_equal_cost_paths() const {
  if (equal_cost_paths_) return *equal_cost_paths_;
  // For each node X, the two-hop paths X -> Y -> Z through a switch Y, by (Z, summed latency): two of
  // them to one Z at one latency are equal-cost alternatives.
  bool found = false;
  std::unordered_map<NodeId, std::vector<std::int64_t>> seen;  // Z -> latencies of the paths found
  for (NodeId x = 0; x < nodes_.size() && !found; ++x) {
    // Alternatives need two switches next to X: most nodes (a GPU on one switch, a NIC on one leaf)
    // have one and are skipped in O(degree), so a million GPUs on one switch cost O(links).
    std::size_t switches = 0;
    for (LinkId l : out_links_[x]) switches += nodes_[links_[l].to].type == NodeType::Switch;
    if (switches < 2) continue;
    seen.clear();
    for (LinkId first : out_links_[x]) {
      const NodeId y = links_[first].to;
      if (nodes_[y].type != NodeType::Switch) continue;
      for (LinkId second : out_links_[y]) {
        const NodeId z = links_[second].to;
        if (z == x) continue;
        const std::int64_t latency = saturating_add(links_[first].latency, links_[second].latency).count();
        auto& latencies = seen[z];
        if (std::find(latencies.begin(), latencies.end(), latency) != latencies.end()) found = true;
        latencies.push_back(latency);
      }
      if (found) break;
    }
  }
  equal_cost_paths_ = found;
  return found;
}

Topology Topology::renamed(std::string name, std::string description) const {
  Topology t = copy();
  t.name_ = std::move(name);
  t.description_ = std::move(description);
  return t;
}

Topology::~Topology() = default;
Topology::Topology(Topology&&) noexcept = default;
Topology& Topology::operator=(Topology&&) noexcept = default;

std::optional<NodeId> Topology::find_node(std::string_view id) const {
  for (NodeId i = 0; i < nodes_.size(); ++i)
    if (nodes_[i].id == id) return i;
  return std::nullopt;
}

std::string Topology::link_label(LinkId id) const {
  const Link& l = links_.at(id);
  return nodes_[l.from].id + "->" + nodes_[l.to].id;
}

Bandwidth Topology::out_bandwidth(NodeId node) const { return out_bandwidth_.at(node); }

std::vector<LinkId> Topology::shortest_route(NodeId from, NodeId to) const {
  if (from == to) return {};
  // One hop is always the fewest; there is at most one link per pair.
  for (LinkId l : out_links_.at(from))
    if (links_[l].to == to) return {l};
  // Where one route is best it is the Dijkstra's, found around the two ends only (a route across
  // hosts of a cluster otherwise settles most of it: 89 % of `--nodes 100000`'s time). 8192 links
  // bound what a search that ends in a tie (spines of equal cost) spends before the full one.
  if (auto unique = unique_shortest_route(*this, from, to, 8192)) return std::move(*unique);
  return dijkstra_route(from, to);
}

std::vector<LinkId> Topology::dijkstra_route(NodeId from, NodeId to) const {
  if (from == to) return {};
  for (LinkId l : out_links_.at(from))
    if (links_[l].to == to) return {l};
  const auto n = nodes_.size();
  const auto& g = graph_->g;
  std::vector<Cost> dist(n);
  std::vector<Graph::G::vertex_descriptor> pred(n);
  auto index = boost::get(boost::vertex_index, g);
  auto edge_link = boost::get(boost::edge_index, g);
  // Each edge costs one hop plus its latency; Dijkstra compares (hops, latency) lexicographically.
  // A route to a GPU passes another GPU only if it enters it over NVLink (NCCL's NVB and PXN paths:
  // data goes GPU to GPU over NVLink, then on); data never comes in from a NIC or PCIe to be
  // forwarded by a GPU that is not its destination. (Routes to other nodes, a switch that reduces,
  // are not GPU-to-GPU data and keep every path.)
  // Where routes tie, one passing a GPU at the destination's place in its host wins. A ring leaves
  // a host by the NIC it enters the next one by (NCCL 2.30.7, src/graph/search.cc: "NET n -> GPU a
  // -> .. -> GPU x -> NET n", rings cross NICs only where that is faster), and a PXN send goes
  // through the GPU local to that NIC (src/graph/paths.cc, ncclTopoGetIntermediateRank). So with
  // several planes, or several of a host's NICs on one leaf, each GPU's traffic leaves by its own
  // rail's NIC instead of every tie taking the first NIC in link order. Within one host no GPU
  // passed has the destination's place, so the tie-break only orders routes between hosts.
  const bool to_gpu = nodes_.at(to).type == NodeType::Gpu;
  const std::uint32_t to_local = local_gpu_.at(to);
  const Cost inf{std::numeric_limits<std::uint64_t>::max(), std::numeric_limits<std::int64_t>::max(),
                 std::numeric_limits<std::uint64_t>::max()};
  auto weight = boost::make_function_property_map<Graph::G::edge_descriptor, Cost>(
      [&](const Graph::G::edge_descriptor& e) {
        const Link& l = links_[edge_link[e]];
        if (to_gpu && l.to != to && !may_pass_through(nodes_[l.to].type, l.type)) return inf;
        const bool off_rail = to_gpu && l.to != to && local_gpu_[l.to] != kNotGpu && local_gpu_[l.to] != to_local;
        return Cost{1, l.latency.count(), off_rail ? 1u : 0u};
      });
  // The search stops once `to` is settled: its distance and predecessor are final then (no later
  // relaxation is strictly shorter), so the route is the full search's, without visiting the rest
  // of a 16,384-GPU cluster for every pair.
  struct Settled {};
  struct StopAt : boost::default_dijkstra_visitor {
    Graph::G::vertex_descriptor target;
    void examine_vertex(Graph::G::vertex_descriptor v, const Graph::G&) const {
      if (v == target) throw Settled{};
    }
  };
  try {
    boost::dijkstra_shortest_paths(
        g, from,
        boost::predecessor_map(boost::make_iterator_property_map(pred.begin(), index))
            .distance_map(boost::make_iterator_property_map(dist.begin(), index))
            .weight_map(weight)
            .distance_compare(std::less<Cost>())
            .distance_combine([inf](const Cost& a, const Cost& b) {
              if (a == inf || b == inf) return inf;
              // Latencies are not negative, but two of up to 2^63-1 ps overflow: the sum saturates,
              // so such a route counts as the slowest instead of wrapping to a fast one.
              const std::int64_t latency = b.latency > inf.latency - a.latency ? inf.latency : a.latency + b.latency;
              return Cost{a.hops + b.hops, latency, a.off_rail + b.off_rail};
            })
            .distance_inf(inf)
            .distance_zero(Cost{0, 0, 0})
            .visitor(StopAt{{}, static_cast<Graph::G::vertex_descriptor>(to)}));
  } catch (const Settled&) {
  }
  if (dist[to] == inf)
    throw TopologyError(fmt::format("{}: no route from \"{}\" to \"{}\"", name_, nodes_[from].id, nodes_[to].id));

  std::vector<LinkId> route;
  for (NodeId v = to; v != from; v = static_cast<NodeId>(pred[v])) {
    const auto u = static_cast<NodeId>(pred[v]);
    // Among parallel candidates the predecessor edge is the one from u to v (one link per pair).
    const auto [e, ok] = boost::edge(u, v, g);
    if (!ok) throw TopologyError("shortest_route: predecessor without an edge (internal error)");
    route.push_back(edge_link[e]);
  }
  std::reverse(route.begin(), route.end());
  return route;
}

}  // namespace collsim::topo
