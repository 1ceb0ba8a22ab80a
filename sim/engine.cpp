#include "sim/engine.hpp"

#include <stdexcept>

#include <fmt/format.h>

#include "sim/event_queue.hpp"
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

}  // namespace

Result run(const sched::Schedule& schedule, const topo::Topology& topology, std::span<const topo::NodeId> rank_to_gpu,
           net::NetworkModel& network) {
  return run(schedule, topology, rank_to_gpu, network, RunOptions{});
}

Result run(const sched::Schedule& schedule, const topo::Topology& topology, std::span<const topo::NodeId> rank_to_gpu,
           net::NetworkModel& network, const RunOptions& options) {
  if (!options.op_delay.empty() && options.op_delay.size() != schedule.ops.size())
    throw std::invalid_argument(fmt::format("engine: {} op delays for {} ops", options.op_delay.size(), schedule.ops.size()));
  const auto delay = [&](sched::OpId id) { return options.op_delay.empty() ? Time{0} : options.op_delay[id]; };
  if (rank_to_gpu.size() != schedule.total_ranks())
    throw std::invalid_argument(fmt::format("engine: {} ranks mapped to nodes, the schedule has {}", rank_to_gpu.size(),
                                            schedule.total_ranks()));
  for (std::size_t r = 0; r < rank_to_gpu.size(); ++r) {
    if (rank_to_gpu[r] >= topology.nodes().size())
      throw std::invalid_argument(fmt::format("engine: rank {} is mapped to no node", r));
    if (r < schedule.nranks && topology.node(rank_to_gpu[r]).type != topo::NodeType::Gpu)
      throw std::invalid_argument(fmt::format("engine: rank {} is not mapped to a GPU", r));
    for (std::size_t q = 0; q < r; ++q)
      if (rank_to_gpu[q] == rank_to_gpu[r])
        throw std::invalid_argument(fmt::format("engine: ranks {} and {} share a GPU", q, r));
  }

  const auto nops = static_cast<sched::OpId>(schedule.ops.size());
  Result result;
  result.ranks.resize(schedule.total_ranks());
  result.links.resize(topology.links().size());
  result.ops.resize(nops);

  // Reverse the dependency lists (CSR) so a finished op can release its dependents.
  std::vector<std::uint32_t> pending(nops);
  std::vector<std::uint32_t> out_offsets(static_cast<std::size_t>(nops) + 1, 0);
  for (sched::OpId i = 0; i < nops; ++i) {
    pending[i] = static_cast<std::uint32_t>(schedule.deps_of(i).size());
    for (sched::OpId d : schedule.deps_of(i)) ++out_offsets[d + 1];
  }
  for (sched::OpId i = 0; i < nops; ++i) out_offsets[i + 1] += out_offsets[i];
  std::vector<sched::OpId> dependents(out_offsets.back());
  {
    std::vector<std::uint32_t> fill(out_offsets.begin(), out_offsets.end() - 1);
    for (sched::OpId i = 0; i < nops; ++i)
      for (sched::OpId d : schedule.deps_of(i)) dependents[fill[d]++] = i;
  }

  topo::RouteCache routes(topology);
  network.observe(options.observer);
  Events events;
  const auto launch = [&](sched::OpId id, Time now) {
    const sched::Op& op = schedule.ops[id];
    result.ops[id].ready = now;
    if (op.src == op.dst) {
      // A local op moves nothing over the network; it ends after its own cost, as an event (never
      // synchronously).
      events.queue.push(checked_add(now, delay(id)), Event{true, id});
      return;
    }
    const topo::Route& route = routes.get(rank_to_gpu[op.src], rank_to_gpu[op.dst]);
    const Bytes bytes = schedule.op_bytes(id);
    result.ranks[op.src].sent += bytes;
    result.ranks[op.dst].received += bytes;
    for (topo::LinkId l : route.links) result.links[l].bytes += bytes;
    network.start(now, id, route, bytes, op.channel, events);
  };

  for (sched::OpId i = 0; i < nops; ++i)
    if (pending[i] == 0) launch(i, options.start);

  std::vector<net::TransferId> finished;
  std::uint64_t done = 0;
  while (!events.queue.empty()) {
    const auto ev = events.queue.pop();
    ++result.events;
    finished.clear();
    if (ev.payload.local) {
      finished.push_back(static_cast<net::TransferId>(ev.payload.token));
    } else {
      network.wake(ev.time, ev.payload.token, events, finished);
      // Data that arrived still pays its op's own cost before the op ends.
      std::erase_if(finished, [&](net::TransferId id) {
        if (delay(id) <= Time{0}) return false;
        events.queue.push(checked_add(ev.time, delay(id)), Event{true, id});
        return true;
      });
    }
    for (net::TransferId id : finished) {
      ++done;
      result.ops[id].finish = ev.time;
      result.makespan = std::max(result.makespan, ev.time);
      for (std::uint32_t k = out_offsets[id]; k < out_offsets[id + 1]; ++k)
        if (--pending[dependents[k]] == 0) launch(dependents[k], ev.time);
    }
  }
  if (done != nops)
    throw std::logic_error(fmt::format("engine: {} of {} ops never ran (a dependency cycle?)", nops - done, nops));
  for (topo::LinkId l = 0; l < result.links.size(); ++l) result.links[l].busy = network.busy_time(l);
  return result;
}

}  // namespace collsim::sim
