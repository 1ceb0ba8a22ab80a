#include "sim/engine.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>
#include <unordered_map>

#include <fmt/format.h>

#include "sim/event_queue.hpp"
#include "sim/pending_counts.hpp"
#include "sim/rank_fold.hpp"
#include "topologies/routes.hpp"

namespace collsim::sim {
namespace {

// An event is a network model's wake-up (its own token) or the end of a local op (an op id).
struct Event {
  bool local;
  std::uint64_t token;
};

class Events final : public net::WakeQueue {
 public:
  void wake_at(Time t, std::uint64_t token) override { queue.push(t, Event{false, token}); }
  EventQueue<Event> queue;
};

// One distinct node per rank, participants on GPUs (run()'s preconditions). A hash set of the
// nodes: at N = 16,384 a pairwise check would be 1.3e8 comparisons.
void check_mapping(const sched::Schedule& schedule, const topo::Topology& topology,
                   std::span<const topo::NodeId> rank_to_gpu) {
  std::unordered_map<topo::NodeId, std::size_t> rank_on;
  for (std::size_t r = 0; r < rank_to_gpu.size(); ++r) {
    if (rank_to_gpu[r] >= topology.nodes().size())
      throw std::invalid_argument(fmt::format("engine: rank {} is mapped to no node", r));
    if (r < schedule.header.nranks && topology.node(rank_to_gpu[r]).type != topo::NodeType::Gpu)
      throw std::invalid_argument(fmt::format("engine: rank {} is not mapped to a GPU", r));
    const auto [it, added] = rank_on.try_emplace(rank_to_gpu[r], r);
    if (!added) throw std::invalid_argument(fmt::format("engine: ranks {} and {} share a GPU", it->second, r));
  }
}

}  // namespace

Result run(const sched::Schedule& schedule, const topo::Topology& topology, std::span<const topo::NodeId> rank_to_gpu,
           net::NetworkModel& network) {
  return run(schedule, topology, rank_to_gpu, network, RunOptions{});
}

Result run(const sched::Schedule& schedule, const topo::Topology& topology, std::span<const topo::NodeId> rank_to_gpu,
           net::NetworkModel& network, const RunOptions& options) {
  const sched::ScheduleStream stream(schedule);
  return run(stream, topology, rank_to_gpu, network, options);
}

Result run(const sched::OpStream& stream, const topo::Topology& topology, std::span<const topo::NodeId> rank_to_gpu,
           net::NetworkModel& network, const RunOptions& options) {
  const sched::Schedule& header = stream.header();
  const bool dense = stream.dense();
  const std::uint64_t nops = stream.op_count();
  if (!options.op_delay.empty() && (!dense || options.op_delay.size() != nops))
    throw std::invalid_argument(fmt::format("engine: {} op delays for {} ops{}", options.op_delay.size(), nops,
                                            dense ? "" : " generated on demand (delays need a materialised schedule)"));
  if (dense && nops > std::uint64_t{std::numeric_limits<net::TransferId>::max()})
    throw std::invalid_argument(fmt::format("engine: {} ops, more than transfer ids can number", nops));
  if (!options.op_delay.empty() && options.op_costs != nullptr)
    throw std::invalid_argument("engine: op delays given both per op and by a cost model");
  // An op's own cost, priced as it starts (op_costs) or given per op id.
  const bool priced = options.op_costs != nullptr && options.op_costs->any();
  if (rank_to_gpu.size() != header.total_ranks())
    throw std::invalid_argument(fmt::format("engine: {} ranks mapped to nodes, the schedule has {}", rank_to_gpu.size(),
                                            header.total_ranks()));
  check_mapping(header, topology, rank_to_gpu);
  const auto& copies = options.channel_copies;
  if (!network.folds_copies() && std::any_of(copies.begin(), copies.end(), [](std::uint32_t c) { return c > 1; }))
    throw std::invalid_argument(fmt::format("engine: channels folded into copies, but network model {} does not fold "
                                            "copies",
                                            network.name()));
  // An op's copies: its channel's (1 without a table), checked when the op starts.
  const auto copies_of = [&](const sched::StreamOp& op) -> std::uint32_t {
    if (copies.empty()) return 1;
    if (op.channel >= copies.size() || copies[op.channel] == 0)
      throw std::invalid_argument(fmt::format("engine: an op of channel {}, which has no copies in the run's table of {}",
                                              op.channel, copies.size()));
    return copies[op.channel];
  };

  // One period of ranks standing for all (sim/rank_fold.hpp), where the run is rank-symmetric.
  std::optional<RankFold> fold;
  if (options.fold_ranks && !dense && options.op_observer == nullptr && options.observer == nullptr) {
    fold = plan_rank_fold(stream, topology, rank_to_gpu, options.paths);
    if (fold && nops % fold->images != 0) fold.reset();
  }
  const std::uint64_t to_run = fold ? nops / fold->images : nops;

  Result result;
  result.ranks.resize(header.total_ranks());
  result.links.resize(topology.links().size());
  if (dense) result.ops.resize(nops);

  // Dependencies an op still waits for. A materialised schedule keeps a count per op id; a stream
  // keeps one only for ops with two or more dependencies of which one has finished (O(in flight)).
  std::vector<std::uint32_t> pending;
  if (dense) {
    pending.resize(nops);
    for (sched::OpKey i = 0; i < nops; ++i) pending[i] = stream.op(i).deps;
  }
  PendingCounts waiting;
  // Transfer ids: op ids for a materialised schedule (traces and delays are by op id), otherwise
  // slots reused once their transfer has finished (LIFO, so deterministic).
  // A slot's op and when it was ready, side by side: a launch writes both and an end reads the
  // key, one cache line (transfer ids are reused in random order at scale).
  struct SlotOp {
    sched::OpKey key;
    Time ready;
  };
  std::vector<SlotOp> slot;
  std::vector<net::TransferId> free_slots;
  const auto transfer_of = [&](sched::OpKey key) -> net::TransferId {
    if (dense) return static_cast<net::TransferId>(key);
    if (free_slots.empty()) {
      if (slot.size() > std::numeric_limits<net::TransferId>::max())
        throw std::length_error("engine: more transfers in flight than transfer ids can number");
      slot.push_back(SlotOp{key, Time{0}});
      return static_cast<net::TransferId>(slot.size() - 1);
    }
    const net::TransferId t = free_slots.back();
    free_slots.pop_back();
    slot[t].key = key;
    return t;
  };
  const auto release = [&](net::TransferId t) -> sched::OpKey {
    if (dense) return t;
    free_slots.push_back(t);
    return slot[t].key;
  };

  std::uint64_t in_flight = 0, held = 0;
  topo::RouteCache routes(topology, options.paths);
  // By Route::index: the bytes its unsprayed transfers moved (the route is null until one has).
  std::vector<std::pair<const topo::Route*, Bytes>> route_bytes;
  network.observe(options.observer);
  Events events;
  // An op's own end, after its cost: queued behind the model's deferred wake-ups, which were
  // decided first (network_model.hpp, flush()).
  const auto end_op_at = [&](Time at, net::TransferId t) {
    if (network.has_deferred()) network.flush(events);
    events.queue.push(at, Event{true, t});
  };
  // Chains of roots (OpStream::root_after): the next root of a chain is launched when the one
  // before it begins transmitting (the model logs that in `begun`), not at the start.
  const bool chained = options.chain_roots && !dense && network.chains();
  std::vector<net::TransferId> begun;
  struct BeginLog {  // the model logs into `begun` for this run only
    net::NetworkModel& model;
    ~BeginLog() { model.log_begins(nullptr); }
  } begin_log{network};
  if (chained) network.log_begins(&begun);
  // `followed`: a chained root whose chain goes on (its begin is logged, the next root launched then).
  const auto launch = [&](sched::OpKey key, const sched::StreamOp& op, Time now, Time ready, bool followed) {
    const net::TransferId t = transfer_of(key);
    held = std::max(held, ++in_flight + waiting.size());
    if (dense) result.ops[key].ready = ready;
    else slot[t].ready = ready;
    const std::uint32_t n = copies_of(op);
    const topo::Route* route =
        op.src == op.dst ? nullptr : &routes.get(rank_to_gpu[op.src], rank_to_gpu[op.dst], op.channel);
    const Time cost = priced                      ? options.op_costs->delay(op.src, op.dst, op.bytes, op.reduce, route)
                      : options.op_delay.empty() ? Time{0}
                                                 : options.op_delay[key];
    if (route == nullptr) {
      // A local op moves nothing over the network; it ends after its own cost, as an event (never
      // synchronously). A chained one has begun: the next of its chain follows now.
      end_op_at(checked_add(now, cost), t);
      if (followed) begun.push_back(t);
      return;
    }
    const Bytes moved = op.bytes * n;
    result.ranks[op.src].sent += moved;
    result.ranks[op.dst].received += moved;
    if (route->link_share.empty()) {
      // Summed per route and spread over its links at the end: a transfer costs the same on a
      // route of 6 hops as on one of 2 (issue 18, item 4).
      if (route->index >= route_bytes.size()) route_bytes.resize(std::size_t{route->index} + 1);
      route_bytes[route->index].first = route;
      route_bytes[route->index].second += moved;
    } else {  // sprayed: each parallel path carries its share
      for (std::size_t i = 0; i < route->links.size(); ++i)
        result.links[route->links[i]].bytes +=
            static_cast<Bytes>(std::llround(static_cast<double>(moved) * route->link_share[i]));
    }
    // The op's own cost comes after its data arrives: the model reports it finished then.
    if (followed)
      network.start_followed(now, t, *route, op.bytes, op.channel, n, std::max(cost, Time{0}), events);
    else
      network.start(now, t, *route, op.bytes, op.channel, n, std::max(cost, Time{0}), events);
  };
  // Launches the root after each chained transfer that began, at `now` (its predecessor's begin),
  // ready since the start as every root; one that begins at once is followed in turn.
  const auto follow_chains = [&](Time now) {
    for (std::size_t i = 0; i < begun.size(); ++i) {
      const sched::OpKey k = stream.root_after(slot[begun[i]].key);
      launch(k, stream.op(k), now, options.start, stream.root_after(k) != sched::kNoOpKey);
    }
    begun.clear();
  };

  std::vector<sched::OpKey> next;
  if (chained) stream.chain_heads(next);
  else stream.roots(next);
  for (sched::OpKey k : next) {
    const sched::StreamOp op = stream.op(k);
    if (!fold || op.src < fold->period)
      launch(k, op, options.start, options.start, chained && stream.root_after(k) != sched::kNoOpKey);
  }
  if (chained) follow_chains(options.start);

  std::vector<net::TransferId> finished;
  std::uint64_t done = 0;
  for (;;) {
    // The model's deferred wake-ups go in before the time moves on (network_model.hpp, flush()).
    if (network.has_deferred() && !events.queue.has_now()) network.flush(events);
    if (events.queue.empty()) break;
    const auto ev = events.queue.pop();
    ++result.events;
    if (options.stop && (result.events & 4095) == 0 && options.stop->load(std::memory_order_relaxed)) throw Stopped();
    if (options.progress && (result.events & 65535) == 0) options.progress->progress(done, to_run);
    finished.clear();
    if (ev.payload.local) {
      finished.push_back(static_cast<net::TransferId>(ev.payload.token));
    } else {
      network.wake(ev.time, ev.payload.token, events, finished);
      if (!begun.empty()) follow_chains(ev.time);
    }
    for (net::TransferId t : finished) {
      ++done;
      const sched::OpKey key = release(t);
      --in_flight;
      if (dense) result.ops[key].finish = ev.time;
      if (options.op_observer)
        options.op_observer->op_done(key, dense ? result.ops[key].ready : slot[t].ready, ev.time);
      result.makespan = std::max(result.makespan, ev.time);
      // Successors in order; a join that completes puts its own successors in its place (a
      // stack of what is left to visit, most recent first).
      next.clear();
      stream.successors(key, next);
      std::reverse(next.begin(), next.end());
      while (!next.empty()) {
        sched::OpKey k = next.back();
        next.pop_back();
        if (dense) {
          if (--pending[k] == 0) launch(k, stream.op(k), ev.time, ev.time, false);
          continue;
        }
        sched::StreamOp op = stream.op(k);
        if (fold && op.src >= fold->period) {
          // An op of another period: its image among ranks 0 .. P-1 waits for this edge's image.
          k = fold->representative(stream, k, op.src);
          op = stream.op(k);
        }
        if (op.deps > 1 && !waiting.arrive(k, op.deps)) continue;
        if (!op.join) {
          launch(k, op, ev.time, ev.time, false);
          continue;
        }
        const std::size_t base = next.size();
        stream.successors(k, next);
        std::reverse(next.begin() + static_cast<std::ptrdiff_t>(base), next.end());
      }
    }
  }
  if (done != to_run)
    throw std::logic_error(fmt::format("engine: {} of {} ops never ran (a dependency cycle?)", to_run - done, to_run));
  for (const auto& [route, bytes] : route_bytes)
    if (route != nullptr)
      for (topo::LinkId l : route->links) result.links[l].bytes += bytes;
  for (topo::LinkId l = 0; l < result.links.size(); ++l) result.links[l].busy = network.busy_time(l);
  result.peak_ops_held = held;
  if (fold) {
    // Every image did what its rank or link of the period did, at the same times.
    // A rank of the period receives what its ops to ranks past the period delivered there (rank
    // P - 1 -> P stands for N - 1 -> 0).
    for (std::size_t r = fold->period; r < result.ranks.size(); ++r) {
      result.ranks[r % fold->period].sent += result.ranks[r].sent;
      result.ranks[r % fold->period].received += result.ranks[r].received;
    }
    for (std::size_t r = fold->period; r < result.ranks.size(); ++r) result.ranks[r] = result.ranks[r % fold->period];
    std::vector<LinkTraffic> orbit(result.links.size());
    for (topo::LinkId l = 0; l < result.links.size(); ++l)
      if (fold->link_orbit[l] != RankFold::kNoOrbit && (result.links[l].bytes != 0 || result.links[l].busy != Time{0}))
        orbit[fold->link_orbit[l]] = result.links[l];
    for (topo::LinkId l = 0; l < result.links.size(); ++l)
      if (fold->link_orbit[l] != RankFold::kNoOrbit) result.links[l] = orbit[fold->link_orbit[l]];
    result.peak_ops_held = held * fold->images;
    result.rank_images = fold->images;
  }
  return result;
}

}  // namespace collsim::sim
