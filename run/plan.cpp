#include "run/plan.hpp"

#include "sim/rank_fold.hpp"

#include <algorithm>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "algorithms/channels.hpp"
#include "algorithms/chunk_tables.hpp"
#include "algorithms/closed_form.hpp"
#include "sim/op_costs.hpp"
#include "sim/schedule/slicing.hpp"
#include "run/errors.hpp"
#include "run/parse.hpp"
#include "topologies/hosts.hpp"
#include "topologies/routes.hpp"

namespace collsim::run {
namespace {

// The slowest of a set of routes, as a closed form's one α and one B: the largest latency (with the
// protocol's step latency for the route's class) and the smallest bottleneck bandwidth.
struct SlowestRoute {
  Time alpha{0};
  std::optional<Bandwidth> bandwidth;

  void add(const topo::Route& r, const sim::CostSettings& costs) {
    const Time step = costs.step_latency[static_cast<std::size_t>(r.link_class)];
    alpha = std::max(alpha, checked_add(r.latency, step));
    bandwidth = bandwidth ? std::min(*bandwidth, r.bottleneck) : r.bottleneck;
  }
};

// The routes a closed form stands for, split by whether their ends share a host (`hosts`, by
// rank; ranks past it, a parameter server's helpers, count as the first host's): every pair the
// schedule's ops use, and every ring neighbour pair r -> r+1 and r+1 -> r (mod N). The ring pairs
// are the ring algorithms' own routes (a streamed schedule has no ops to read), and they reach every
// GPU, so B is at most each GPU's injection bandwidth and no form falls below the bandwidth lower
// bound. The ring pairs share one cache; the schedule's other pairs are computed one source at a
// time, so that an all-pairs schedule (direct) holds one source's routes rather than N² of them.
void slowest_routes(const topo::Topology& topology, std::span<const topo::NodeId> ranks, sched::Rank nranks,
                    const sched::Schedule& schedule, const std::vector<std::uint32_t>& hosts,
                    const sim::CostSettings& costs, SlowestRoute& intra, SlowestRoute& inter,
                    topo::PathTable* paths) {
  const auto host = [&](sched::Rank r) { return r < hosts.size() ? hosts[r] : hosts.empty() ? 0 : hosts[0]; };
  const auto add_route = [&](topo::RouteCache& routes, sched::Rank from, sched::Rank to) {
    if (ranks[from] == ranks[to]) return;
    (host(from) == host(to) ? intra : inter).add(routes.get(ranks[from], ranks[to]), costs);
  };
  // The ring neighbours: 2N routes in one cache.
  {
    topo::RouteCache routes(topology, paths);
    for (sched::Rank r = 0; nranks > 1 && r < nranks; ++r) {
      add_route(routes, r, (r + 1) % nranks);
      add_route(routes, (r + 1) % nranks, r);
    }
  }
  // Every other pair of the ops, per source. Repeats are dropped as they come, so a source's list
  // stays near its number of distinct peers, not of ops.
  const auto neighbours = [&](sched::Rank a, sched::Rank b) {
    return a < nranks && b < nranks && ((a + 1) % nranks == b || (b + 1) % nranks == a);
  };
  std::vector<std::vector<sched::Rank>> peers(ranks.size());
  std::vector<std::size_t> distinct(ranks.size(), 0);  // peers[r]'s length when it was last made distinct
  const auto make_distinct = [&](sched::Rank r) {
    std::sort(peers[r].begin(), peers[r].end());
    peers[r].erase(std::unique(peers[r].begin(), peers[r].end()), peers[r].end());
    distinct[r] = peers[r].size();
  };
  for (const auto& op : schedule.ops) {
    if (op.src == op.dst || op.src >= ranks.size() || op.dst >= ranks.size() || neighbours(op.src, op.dst)) continue;
    auto& v = peers[op.src];
    if (!v.empty() && v.back() == op.dst) continue;
    v.push_back(op.dst);
    if (v.size() >= 2 * distinct[op.src] + 16) make_distinct(op.src);
  }
  topo::RouteCache routes(topology);  // one source's routes at a time
  for (sched::Rank from = 0; from < peers.size(); ++from) {
    if (peers[from].empty()) continue;
    make_distinct(from);
    for (sched::Rank t : peers[from]) add_route(routes, from, t);
    std::vector<sched::Rank>().swap(peers[from]);
    routes.clear();
  }
}

// The fabric as the closed forms see it: the slowest route among those the run uses inside a host
// (slowest_routes), whether a GPU reaches its peers through one port (a switch) or through a link per
// peer, and, when the ranks span hosts, the slowest route between hosts and how many of the first
// host's ranks share one link on their way to the next host (its L on --nodes K: one uplink per
// host). `topology` is the one the run uses (bandwidths after the protocol's efficiency); a step also
// pays the protocol's step latency for the route's class. On a uniform fabric every route is alike
// and this is the route between any two ranks; with one slow link the forms see that link.
algo::AlphaBeta fabric_alpha_beta(const topo::Topology& topology, std::span<const topo::NodeId> ranks,
                                  const algo::Request& request, const sched::Schedule& schedule,
                                  const sim::CostSettings& costs, topo::PathTable* paths) {
  if (ranks.size() < 2 || request.nranks < 2) return {};
  topo::RouteCache routes(topology, paths);
  const topo::Route& r = routes.get(ranks[0], ranks[1]);
  std::size_t ports = 0;
  for (const auto& l : topology.links()) ports += l.from == ranks[0] ? 1 : 0;
  SlowestRoute intra, inter;
  slowest_routes(topology, ranks, request.nranks, schedule, request.hosts, costs, intra, inter, paths);
  // One port is shared by all peers only when it leads to a switch; two GPUs joined by one link
  // (fully connected, N = 2) have a link per peer.
  algo::AlphaBeta fabric{intra.alpha, intra.bandwidth.value_or(r.bottleneck), ports == 1 && r.links.size() != 1};
  // One link per peer only when rank 0 reaches every other rank in one hop (fully connected).
  for (std::size_t q = 1; q < ranks.size() && ports != 1 && !fabric.neighbours_only; ++q)
    fabric.neighbours_only = routes.get(ranks[0], ranks[q]).links.size() != 1;
  const auto crossing = topo::host_crossing(routes, ranks, request.hosts);
  if (!crossing || !inter.bandwidth) return fabric;
  fabric.inter_host = algo::HostNetwork{inter.alpha, *inter.bandwidth, crossing->sharing};
  return fabric;
}

// Pipeline chunks and slices multiply a schedule's ops, and a run's time and memory with them.
// Past Fidelity::max_ops a default chunk or slice is doubled until it fits. That only coarsens
// the pipeline: a step pays at most one chunk or slice time more, e.g. 14 x 64 MiB slices at a
// channel's ~12.5 GB/s = 75 ms, under 1 % of 1 TiB on dgx-a100 at the default budget.

// The most transfers a schedule whose channels cannot fold may hold (under ECMP on a leaf/spine
// fabric): a materialised op and its result take about 60 bytes, so 2^24 is about 1 GiB.
constexpr std::uint64_t kMaxUnfoldedOps = std::uint64_t{1} << 24;

// The most ops a run generated on demand may have (its channels folded) when --chunk-size cut its
// pipeline: it holds only the ops in flight, but at about a microsecond an op 2^32 take over an
// hour, and a pipeline cut that fine keeps millions of them in flight. Refused, not coarsened: the
// chunk asked for is the answer's. (NCCL's own chunks are not refused: the size is the user's.)
constexpr std::uint64_t kMaxStreamedOps = std::uint64_t{1} << 32;

// How many ops `op` stands for: its channel's copies (Plan::channel_copies), 1 without folding.
std::uint64_t copies_of(const sched::Op& op, std::span<const std::uint32_t> copies) {
  return copies.empty() ? 1 : copies[op.channel];
}

// Ops of `schedule` once every chunk is cut into slices of `slice` bytes (sched::slice_schedule),
// counting each op of a folded channel as its copies.
std::uint64_t sliced_op_count(const sched::Schedule& schedule, Bytes slice, std::span<const std::uint32_t> copies) {
  std::uint64_t ops = 0;
  for (const auto& op : schedule.ops)
    ops += copies_of(op, copies) * std::max<Bytes>(1, (schedule.chunks[op.src_chunk].size + slice - 1) / slice);
  return ops;
}

// Ops of `schedule`, counting each op of a folded channel as its copies.
std::uint64_t op_count(const sched::Schedule& schedule, std::span<const std::uint32_t> copies) {
  if (copies.empty()) return schedule.ops.size();
  std::uint64_t ops = 0;
  for (const auto& op : schedule.ops) ops += copies_of(op, copies);
  return ops;
}

// The smallest power-of-two multiple of `from` for which `ops(size)` <= `allowed`, given that
// ops(s) == floor_ops <= allowed once s >= `largest`.
template <typename Ops>
Bytes fit_within(Bytes from, Bytes largest, std::uint64_t allowed, Ops ops) {
  Bytes fit = from;
  while (fit < largest && ops(fit) > allowed) fit = fit > largest / 2 ? largest : 2 * fit;
  return fit;
}

// `bytes` rounded up to whole elements of `element_size` bytes: a suggested slice that cuts
// between elements would make --verify replay the data as bytes.
Bytes whole_elements(Bytes bytes, Bytes element_size) {
  return element_size <= 1 ? bytes : (bytes + element_size - 1) / element_size * element_size;
}

// The smallest size s in [from, fit] with ops(s) <= `allowed`, where `fit` satisfies it and ops
// does not grow with s (more bytes per chunk or slice, fewer of them): what an error suggests,
// where fit_within's doubling (which keeps a default's power-of-two steps) may overshoot by 2x.
template <typename Ops>
Bytes smallest_within(Bytes from, Bytes fit, std::uint64_t allowed, Ops ops) {
  Bytes lo = from, hi = fit;  // ops(hi) <= allowed; the answer lies in (lo, hi]
  while (hi - lo > 1) {
    const Bytes mid = lo + (hi - lo) / 2;
    (ops(mid) <= allowed ? hi : lo) = mid;
  }
  return hi;
}

// Keeps a chunked algorithm's pipeline within the op budget: ops grow with the chunks of each
// channel's share, ceil(S / channels), so the ops of one chunk per channel times those chunks
// estimate the schedule before it is built. A --chunk-size that passes the budget is refused, the
// default one is doubled. Returns where the chunk came from.
std::string fit_chunk_size(const algo::AlgorithmInfo& algorithm, algo::Request& request, const Fidelity& fidelity,
                           bool chunk_size_given) {
  const std::uint32_t channels = fidelity.channels;
  const std::string source = chunk_size_given ? "--chunk-size" : "default";  // as reports print it
  if (!algorithm.pipelined || request.size == 0) return source;
  algo::Request whole = request;
  whole.chunk_size = request.size;
  const std::uint64_t per_chunk = algo::build_with_channels(algorithm, whole, channels).ops.size();
  // What one pipeline cuts: a channel's share, or each rank's part of it (pipelines_parts).
  const Bytes channel_share = (request.size + channels - 1) / channels;
  const Bytes share = algorithm.pipelines_parts ? (channel_share + request.nranks - 1) / request.nranks : channel_share;
  const auto ops = [&](Bytes chunk) { return per_chunk * algo::pipeline_chunk_count(share, chunk, request.element_size); };
  const std::uint64_t allowed = std::max(fidelity.max_ops, per_chunk);
  if (ops(request.chunk_size) <= allowed) return source;
  const Bytes fit = fit_within(request.chunk_size, share, allowed, ops);
  if (chunk_size_given)
    throw RequestError(Field::ChunkSize, format_size(request.chunk_size),
                       fmt::format("{0}: {2} cuts {3} {4} of {5} into {6} ops ({7} pipeline chunks per {9}), "
                                 "more than {1}; expected {0} {8} or more",
                                 ref(Field::ChunkSize), fidelity.op_budget_text(allowed, true),
                                 format_size(algo::pipeline_chunk_bytes(share, request.chunk_size, request.element_size)),
                                 algorithm.name,
                                 sched::collective_name(request.collective), format_size(request.size),
                                 ops(request.chunk_size),
                                 algo::pipeline_chunk_count(share, request.chunk_size, request.element_size),
                                 format_size(smallest_within(request.chunk_size, fit, allowed, ops)),
                                 algorithm.pipelines_parts ? "rank's part" : "channel"));
  const std::string raised = fmt::format("default {}, raised to stay within {}", format_size(request.chunk_size),
                                         fidelity.op_budget_text(allowed));
  request.chunk_size = fit;
  return raised;
}

}  // namespace

void place_helpers(const topo::Topology& topology, const std::vector<std::string>& ids,
                   std::vector<topo::NodeId>& rank_to_node) {
  for (const auto& id : ids) {
    const auto node = topology.find_node(id);
    if (!node)
      throw RequestError(Field::PsNode, id,
                         fmt::format("{}: topology {} has no node \"{}\"", ref(Field::PsNode), topology.name(), id));
    if (std::find(rank_to_node.begin(), rank_to_node.end(), *node) != rank_to_node.end())
      throw RequestError(Field::PsNode, id,
                         fmt::format("{}: \"{}\" already runs a rank, expected a node outside the ranks",
                                     ref(Field::PsNode), id));
    rank_to_node.push_back(*node);
  }
}

algo::Request make_request(const algo::AlgorithmInfo& algorithm, const AlgorithmOptions& o, std::uint32_t nranks,
                           Bytes size) {
  algo::Request r{algorithm.collective, nranks, size};
  if (algorithm.default_chunk_size != 0) r.chunk_size = algorithm.default_chunk_size;
  if (o.root) {
    check_count(Field::Root, *o.root, 0, nranks - 1);
    r.root = *o.root;
  }
  if (o.chunk_size) {
    if (*o.chunk_size == 0)
      throw RequestError(Field::ChunkSize, "0", fmt::format("{}: found 0, expected at least 1 byte", ref(Field::ChunkSize)));
    r.chunk_size = *o.chunk_size;
  }
  if (o.ps_shards) {
    check_count(Field::PsShards, *o.ps_shards, 1, nranks);
    r.ps_shards = *o.ps_shards;
  }
  if (!o.ps_node.empty()) {
    if (!algorithm.takes.ps_node)
      throw RequestError(Field::PsNode, o.ps_node.front(),
                         fmt::format("{}: only the ps algorithm has servers, not {}", ref(Field::PsNode), algorithm.name));
    if (!o.ps_shards) r.ps_shards = static_cast<std::uint32_t>(o.ps_node.size());
    if (o.ps_node.size() != r.ps_shards)
      throw RequestError(Field::PsNode, o.ps_node.front(),
                         fmt::format("{}: found {} node(s) for {} shard(s), expected one node per shard",
                                     ref(Field::PsNode), o.ps_node.size(), r.ps_shards));
    r.ps_external_server = true;
  }
  return r;
}

void check_used_by(const AlgorithmOptions& o, const algo::AlgorithmInfo& info) {
  const auto kind = sched::collective_name(info.collective);
  if (o.root && !sched::has_root(info.collective))  // the collective's root, whatever the algorithm
    throw RequestError(Field::Root, std::to_string(*o.root),
                       fmt::format("{}: {} has no root; expected {} only with {} broadcast or reduce", ref(Field::Root),
                                   kind, ref(Field::Root), ref(Field::Collective)));
  if (o.chunk_size && !info.pipelined)
    throw RequestError(Field::ChunkSize, std::to_string(*o.chunk_size),
                       fmt::format("{}: {} {} is not pipelined in chunks; expected {} only with {} (`collsim algorithms` "
                                   "lists them)",
                                   ref(Field::ChunkSize), info.name, kind, ref(Field::ChunkSize), kPipelinedAlgorithms));
  if (o.ps_shards && !info.takes.ps_shards)
    throw RequestError(Field::PsShards, std::to_string(*o.ps_shards),
                       fmt::format("{}: only the ps algorithm has servers, not {}", ref(Field::PsShards), info.name));
  if (!o.ps_node.empty() && !info.takes.ps_node)
    throw RequestError(Field::PsNode, o.ps_node.front(),
                       fmt::format("{}: only the ps algorithm has servers, not {}", ref(Field::PsNode), info.name));
}

Plan build_plan(const algo::AlgorithmInfo& algorithm, const topo::Topology& topology, std::uint32_t ranks,
                const AlgorithmOptions& options, Bytes size, Bytes element_size, const ModelOptions& model, Ops ops,
                topo::PathTable* paths) {
  const auto gpus = topology.gpus();
  algo::Request request = make_request(algorithm, options, ranks, size);
  request.element_size = element_size;
  std::vector<topo::NodeId> rank_to_node(gpus.begin(), gpus.begin() + ranks);
  // Algorithms never see the topology; the hierarchical one learns which ranks share a host here.
  request.hosts = topo::host_indices(topology, rank_to_node);
  Fidelity fidelity =
      resolve_fidelity(model, topology, rank_to_node, algorithm.family, request.collective, size, request, paths);
  place_helpers(topology, options.ps_node, rank_to_node);
  // NVLS, NVLSTree: the schedule's helpers are the switches that reduce (resolve_fidelity found them).
  if (algorithm.switch_reduction)
    rank_to_node.insert(rank_to_node.end(), fidelity.reduction_switches.begin(), fidelity.reduction_switches.end());
  // A stream runs as generated, its chunks cut into slices on demand where they are longer than a
  // slice (sched::slice_stream; e.g. ring at N = 128 and 1 GiB: 8 MiB parts in NCCL's 1 MiB
  // slices). It holds O(N + ops in flight), so no op budget applies: its pipeline chunk and its
  // slice stay the ones asked for (issue 18 item 3).
  // Identical channels fold into one only where they take the same links: under ECMP on a fabric
  // with equal-cost paths each channel's flows are hashed onto their own (topologies/routes.hpp);
  // single, spray and D-Mod-K routing give every channel of a pair the pair's one route.
  const bool routes_by_channel = topology.routing() == topo::Routing::Ecmp && topology.has_equal_cost_paths();
  const bool fold = ops == Ops::TimesOnly && fidelity.channels > 1 && !routes_by_channel;
  // The whole message's chunks, before any piece of it is cut (an algorithm that cuts parts,
  // halves and channels first checks each piece alone): a pipeline of more than 2^24 chunks is
  // refused, whichever form the run takes.
  if (algorithm.pipelined && request.chunk_size > 0)
    algo::check_pipeline_chunk_count(size, request.chunk_size, element_size);
  algo::StreamedChannels streamed;
  if (ops != Ops::Materialised)
    streamed = algo::stream_with_channels(algorithm, request, fidelity.channels, fold, fidelity.slice);
  // A stream's helpers (NVLSTree's switches) must be the nodes placed for them; otherwise (a
  // --ps-node no stream uses) the run is materialised, as before, and fails or runs there.
  if (streamed.stream && streamed.stream->header().total_ranks() != rank_to_node.size()) streamed = {};
  if (streamed.stream && options.chunk_size && streamed.stream->op_count() > kMaxStreamedOps)
    throw RequestError(Field::ChunkSize, format_size(*options.chunk_size),
                       fmt::format("{}: {} cuts {} into {} ops, more than the {} a run takes (over an hour); expected "
                                   "a larger {}", ref(Field::ChunkSize), format_size(*options.chunk_size),
                                   format_size(size), streamed.stream->op_count(), kMaxStreamedOps,
                                   ref(Field::ChunkSize)));
  auto& stream = streamed.stream;
  std::string chunk_source = stream ? (options.chunk_size ? "--chunk-size" : "default")
                                    : fit_chunk_size(algorithm, request, fidelity, options.chunk_size.has_value());
  // The chunk the schedule cuts: whole elements where S is (algo::pipeline_chunk_bytes), so a
  // --chunk-size of 1001 B on floats prints the 1000 B that run (3 B: 4 B).
  const bool chunked = algorithm.pipelined && request.chunk_size > 0;
  const Bytes chunk = chunked ? algo::pipeline_chunk_bytes(size, request.chunk_size, element_size) : 0;
  if (chunked && chunk != request.chunk_size)
    chunk_source = fmt::format("{}, rounded to whole elements of {} B", chunk_source, element_size);
  if (stream) {
    sched::Schedule header = stream->header();
    Plan plan{std::move(header), std::move(rank_to_node), std::move(request), std::move(fidelity), chunk,
              std::move(chunk_source)};
    plan.stream = std::move(stream);
    plan.channel_copies = std::move(streamed.copies);
    plan.closed_form = algorithm.closed_form_time;
    plan.paths = paths;
    return plan;
  }
  if (routes_by_channel && fidelity.channels > 1) {
    // Unfolded, the channels cost memory in proportion: count them folded first, and refuse a run
    // that would not fit rather than run out of memory on the way.
    const algo::FoldedChannels folded = algo::build_folded_channels(algorithm, request, fidelity.channels);
    const std::uint64_t transfers = op_count(folded.schedule, folded.copies);
    if (transfers > kMaxUnfoldedOps)
      throw RequestError(Field::Routing, "ecmp",
                         fmt::format("{}: under ECMP each of the {} channels takes its own spines, so they are "
                                     "simulated one by one: {} transfers, more than the {} that fit in memory here; "
                                     "expected fewer {} or fewer ranks, or a routing that keeps a pair's channels on one path "
                                     "(dmodk, single or spray)",
                                     ref(Field::Routing), fidelity.channels, transfers, kMaxUnfoldedOps,
                                     ref(Field::Channels)));
  }
  algo::FoldedChannels built = fold ? algo::build_folded_channels(algorithm, request, fidelity.channels)
                                   : algo::FoldedChannels{algo::build_with_channels(algorithm, request, fidelity.channels), {}};
  Plan plan{std::move(built.schedule), std::move(rank_to_node), std::move(request), std::move(fidelity), chunk,
            std::move(chunk_source)};
  plan.channel_copies = std::move(built.copies);
  plan.closed_form = algorithm.closed_form_time;
  plan.paths = paths;
  apply_slicing(plan, topology);
  return plan;
}

void apply_slicing(Plan& plan, const topo::Topology& topology) {
  if (plan.fidelity.slice == 0) return;  // no copy: at N = 4096 a schedule is tens of millions of ops
  Bandwidth fastest;
  for (const auto& l : topology.links()) fastest = std::max(fastest, l.bandwidth);
  (void)transfer_time(plan.schedule.header.size, fastest);
  Fidelity& f = plan.fidelity;
  const std::uint64_t allowed = std::max<std::uint64_t>(f.max_ops, op_count(plan.schedule, plan.channel_copies));
  const auto ops = [&](Bytes slice) { return sliced_op_count(plan.schedule, slice, plan.channel_copies); };
  if (ops(f.slice) > allowed) {
    Bytes largest = 0;
    for (const auto& c : plan.schedule.chunks) largest = std::max(largest, c.size);
    const Bytes fit = fit_within(f.slice, largest, allowed, ops);
    if (f.slice_requested)
      throw RequestError(Field::Slice, format_size(f.slice),
                         fmt::format("{0}: {2} cuts this {3} collective into {4} ops, more than {1}; "
                                   "expected {0} {5} or more, or 0 for whole chunks",
                                   ref(Field::Slice), f.op_budget_text(allowed, true), format_size(f.slice),
                                   format_size(plan.schedule.header.size), ops(f.slice),
                                   format_size(whole_elements(smallest_within(f.slice, fit, allowed, ops),
                                                              plan.schedule.header.element_size))));
    f.slice_source = fmt::format("{} gave {}, raised to stay within {}", f.slice_source, format_size(f.slice),
                                 f.op_budget_text(allowed));
    f.slice = fit;
  }
  plan.schedule = sched::slice_schedule(plan.schedule, f.slice);
}

void long_run_notice(const Plan& plan, const topo::Topology& topology, std::ostream& err) {
  constexpr std::uint64_t kLong = 1'000'000'000;
  // docs/performance.md: ring all-reduce on 16,384 GPUs, 537 M transfers, in about 2 minutes.
  constexpr std::uint64_t kPerMinute = 5'000'000 * 60;
  std::uint64_t transfers = plan.stream ? plan.stream->op_count() : op_count(plan.schedule, plan.channel_copies);
  if (transfers < kLong) return;
  if (plan.stream && plan.fold_ranks)
    if (const auto fold = sim::plan_rank_fold(*plan.stream, topology, plan.rank_to_node, plan.paths)) transfers /= fold->images;
  if (transfers < kLong) return;
  err << fmt::format(
      "collsim: note: simulating {:.3g} transfers takes about {} minutes or more at 5 million a second; "
      "`collsim algorithms` gives each algorithm's closed form at once\n",
      static_cast<double>(transfers), transfers / kPerMinute);
}

void check_network_name(std::string_view name) {
  const auto names = net::network_model_names();
  if (std::find(names.begin(), names.end(), name) == names.end())
    throw RequestError(Field::Network, std::string(name),
                       fmt::format("{}: unknown network model \"{}\", expected one of: {}", ref(Field::Network), name,
                                   fmt::join(names, ", ")));
}

Simulated simulate_plan(const Plan& plan, const topo::Topology& topology, std::string_view network_name,
                        Formula formula, net::TransferObserver* observer, const std::atomic<bool>* stop,
                        sim::OpObserver* op_observer, sim::ProgressObserver* progress) {
  const Fidelity& fidelity = plan.fidelity;
  // The network sees each link at what the protocol leaves of its bandwidth; reports keep the line rates.
  const bool full_rate = std::all_of(fidelity.costs.bandwidth_factor.begin(), fidelity.costs.bandwidth_factor.end(),
                                     [](double f) { return f == 1.0; });
  std::optional<topo::Topology> scaled;
  if (!full_rate) scaled = topology.with_bandwidth_factors(fidelity.costs.bandwidth_factor);
  const topo::Topology& run_topology = scaled ? *scaled : topology;
  std::unique_ptr<net::NetworkModel> network;
  try {
    network = net::make_network_model(network_name, run_topology);
  } catch (const std::invalid_argument& e) {
    throw RequestError(Field::Network, std::string(network_name), fmt::format("{}: {}", ref(Field::Network), e.what()));
  }
  sim::RunOptions run_options;
  run_options.start = fidelity.costs.base_latency;
  run_options.observer = observer;
  run_options.paths = plan.paths;
  run_options.channel_copies = plan.channel_copies;
  run_options.fold_ranks = plan.fold_ranks;
  run_options.stop = stop;
  run_options.op_observer = op_observer;
  run_options.progress = progress;
  const sim::OpCostModel op_costs(topology, plan.rank_to_node, fidelity.costs);
  run_options.op_costs = &op_costs;
  sim::Result result;
  const bool discarded = plan.schedule.header.size == 0 && fidelity.protocol.has_value();
  if (discarded) {
    // NCCL discards a collective of no elements before it launches anything (taskAppend in
    // src/enqueue.cc, NCCL 2.30.7: "Empty collectives can be discarded"), so under its model (a
    // protocol) S = 0 moves nothing and takes the host's call alone (fidelity.host_empty). The
    // ideal alpha-beta model keeps the algorithm's empty messages, each paying its route's latency.
    result.ranks.resize(plan.schedule.total_ranks());
    result.links.resize(run_topology.links().size());
    if (!plan.stream) result.ops.resize(plan.schedule.ops.size());
  } else if (plan.stream) {
    result = sim::run(*plan.stream, run_topology, plan.rank_to_node, *network, run_options);
  } else {
    result = sim::run(plan.schedule, run_topology, plan.rank_to_node, *network, run_options);
  }
  sim::Summary summary =
      sim::summarize(plan.schedule, topology, plan.rank_to_node, result, std::string(network->name()));
  // Ranks on several hosts see two fabrics (the host's and the network's); closed_form_time gives
  // a form there only for the algorithm built for it (hierarchical). The forms take the protocol's
  // base and step latency and efficiency, not channels or slices.
  if (plan.request && plan.closed_form && !discarded)  // nothing ran: no closed form either
    if (const auto form = plan.closed_form(
            *plan.request,
            fabric_alpha_beta(run_topology, plan.rank_to_node, *plan.request, plan.schedule, fidelity.costs,
                              plan.paths)))
      summary.closed_form = checked_add(*form, *form > Time{0} ? fidelity.costs.base_latency : Time{0});
  // The host: nccl-tests times iterations launched back to back, so an iteration takes the longer
  // of the collective and its thread's launches (Fidelity::host_floor); an empty one the call alone.
  summary.gpus_per_thread = fidelity.gpus_per_thread;
  summary.gpus_per_thread_source = fidelity.gpus_per_thread_source;
  summary.host_time = discarded ? fidelity.host_empty : fidelity.host_floor;
  summary.collective_time = summary.time;
  if (summary.host_time > summary.time) {
    sim::set_time(summary, summary.host_time);
    summary.host_bound = true;
  }
  summary.algorithm_choice = plan.algorithm_choice;
  summary.protocol = fidelity.protocol ? std::string(topo::protocol_name(*fidelity.protocol)) : "none";
  summary.protocol_source = fidelity.protocol_auto
                                ? fmt::format("{}: auto, picked for this size by {}", fidelity.protocol_source,
                                              fidelity.protocol_rule)
                                : fidelity.protocol_source;
  summary.channels = fidelity.channels;
  summary.channels_source = fidelity.channels_source;
  summary.chunk = plan.chunk;
  summary.chunk_source = plan.chunk_source;
  summary.slice = fidelity.slice;
  summary.slice_source = fidelity.slice_source;
  summary.model = formula == Formula::Analytical ? "analytical" : formula == Formula::Nccl ? "nccl" : "";
  if (formula == Formula::Analytical) summary.model_time = summary.closed_form;
  if (formula == Formula::Nccl)
    summary.model_time = nccl_model_time(fidelity, topology, std::span(plan.rank_to_node).first(plan.schedule.header.nranks),
                                         plan.schedule.algorithm, plan.schedule.header.collective, plan.schedule.header.size);
  return Simulated{std::move(result), std::move(summary)};
}

}  // namespace collsim::run
