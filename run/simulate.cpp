#include "run/simulate.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

#include "algorithms/chunk_tables.hpp"
#include "run/nccl_choice.hpp"
#include "run/parse.hpp"
#include "validation/schedule_file.hpp"

namespace collsim::run {
namespace {

// Runs `f`, naming the input a UnitError comes from (the size, or the schedule file): the clock
// overflows on the size, and the message alone does not say which input it was.
template <typename F>
auto naming_size(const SimulationRequest& r, F f) {
  const Field field = r.schedule.empty() ? Field::Size : Field::Schedule;
  const std::string value = r.schedule.empty() ? std::to_string(r.size.value_or(0)) : r.schedule;
  const std::string where = r.schedule.empty() ? fmt::format("{} {}", ref(Field::Size), value) : r.schedule;
  try {
    return f();
  } catch (const ClockOverflowError& e) {
    throw OverflowError(field, value, fmt::format("{}: {}", where, e.what()));
  } catch (const UnitError& e) {
    throw RequestError(field, value, fmt::format("{}: {}", where, e.what()));
  }
}

// The first `ranks` GPUs, checked against the topology.
std::uint32_t rank_count(const SimulationRequest& r, const topo::Topology& topology) {
  const auto gpus = topology.gpus();
  if (!r.ranks) return static_cast<std::uint32_t>(gpus.size());
  check_count(Field::Ranks, *r.ranks, 1, std::numeric_limits<std::uint32_t>::max());
  if (*r.ranks > gpus.size())
    throw RequestError(Field::Ranks, std::to_string(*r.ranks),
                       fmt::format("{}: found {}, but topology {} has only {} GPUs", ref(Field::Ranks), *r.ranks,
                                   topology.name(), gpus.size()));
  return *r.ranks;
}

Ops ops_of(const SimulationRequest& r) { return r.verify ? Ops::Materialised : r.ops; }

// A registered algorithm, or null for NCCL's choice (is_nccl_choice), made once the topology is
// known; a name and its options are checked before the topology is read, so their errors come first.
const algo::AlgorithmInfo* find_algorithm(const SimulationRequest& r, const algo::AlgorithmRegistry& registry) {
  if (!r.size) throw RequestError(Field::Size, "", fmt::format("{}: missing; give the message size, e.g. {} 1G",
                                                             ref(Field::Size), ref(Field::Size)));
  if (is_nccl_choice(r.algorithm)) return nullptr;
  if (!r.model.nccl_algorithms.empty())
    throw RequestError(Field::NcclAlgo, "",
                       fmt::format("{}: only with {} nccl, whose choice it restricts; found {} {}", ref(Field::NcclAlgo),
                                   ref(Field::Algorithm), ref(Field::Algorithm), r.algorithm));
  const algo::AlgorithmInfo& algorithm = registry.find(r.collective, r.algorithm);
  check_used_by(r.options, algorithm);
  return &algorithm;
}

Plan algorithm_plan(const SimulationRequest& r, const algo::AlgorithmInfo* chosen, const topo::Topology& topology,
                    const algo::AlgorithmRegistry& registry, topo::PathTable* paths = nullptr) {
  const std::uint32_t ranks = rank_count(r, topology);
  std::string choice_text;
  if (!chosen) {
    const auto gpus = topology.gpus().first(ranks);
    const NcclChoice choice = naming_size(
        r, [&] { return choose_nccl_algorithm(registry, topology, gpus, r.collective, *r.size, r.model,
                                                      r.model.nccl_algorithms, paths); });
    chosen = choice.entry;
    check_used_by(r.options, *chosen);
    choice_text = choice.reason(*r.size);
  }
  const algo::AlgorithmInfo& algorithm = *chosen;
  Plan plan = naming_size(r, [&] {
    try {
      return build_plan(algorithm, topology, ranks, r.options, *r.size, validation::dtype_size(r.dtype), r.model,
                        ops_of(r), paths);
    } catch (const algo::TooManyPipelineChunks& e) {
      // A message of more pipeline chunks than a schedule holds: the size and the chunk are to change.
      throw RequestError(Field::Size, std::to_string(*r.size),
                         fmt::format("{}: {} {}: {}; expected a smaller {} or a larger {}", ref(Field::Size),
                                     algorithm.name, sched::collective_name(algorithm.collective), e.what(),
                                     ref(Field::Size), ref(Field::ChunkSize)));
    } catch (const std::length_error& e) {
      // More ops than a materialised schedule holds: the ranks and the algorithm are what to change
      // (a request that asked for every op, to save, trace or verify them, names that instead).
      if (ops_of(r) == Ops::Materialised) throw;
      // Without --ranks the count is every GPU of the topology: say so rather than name a flag
      // the user never gave.
      const std::string where = r.ranks ? fmt::format("{}: ", ref(Field::Ranks))
                                        : fmt::format("every GPU of topology {} (no {}): ", topology.name(), ref(Field::Ranks));
      throw RequestError(Field::Ranks, std::to_string(ranks),
                         fmt::format("{}{} {} on {} ranks: {}; expected fewer ranks ({}) or another {}", where,
                                     algorithm.name, sched::collective_name(algorithm.collective), ranks, e.what(),
                                     ref(Field::Ranks), ref(Field::Algorithm)));
    }
  });
  plan.algorithm_choice = std::move(choice_text);
  return plan;
}

// A schedule file: it gives the collective, algorithm, ranks and size.
sched::Schedule load_schedule(const SimulationRequest& r) {
  const auto refuse = [&](Field f) {
    throw RequestError(f, "",
                       fmt::format("{}: not allowed with {}, which takes the collective, algorithm, ranks and size "
                                   "from the file",
                                   ref(f), ref(Field::Schedule)));
  };
  if (r.size) refuse(Field::Size);
  if (r.ranks) refuse(Field::Ranks);
  if (r.options.root) refuse(Field::Root);
  if (r.options.chunk_size) refuse(Field::ChunkSize);
  if (r.options.ps_shards) refuse(Field::PsShards);
  if (r.schedule == "-")
    throw RequestError(Field::Schedule, "-",
                       fmt::format("{}: found \"-\", expected a file (reading a schedule from standard input is not "
                                   "supported)",
                                   ref(Field::Schedule)));
  try {
    return validation::load_verified_schedule(r.schedule);
  } catch (const sched::ScheduleFileError& e) {
    throw RequestError(Field::Schedule, r.schedule, fmt::format("{}: {}", ref(Field::Schedule), e.what()));
  }
}

Plan schedule_plan(const SimulationRequest& r, sched::Schedule schedule, const topo::Topology& topology,
                   const algo::AlgorithmRegistry& registry) {
  const auto gpus = topology.gpus();
  if (schedule.header.nranks > gpus.size())
    throw RequestError(Field::Schedule, r.schedule,
                       fmt::format("{}: {} has {} ranks, but topology {} has only {} GPUs; expected at most {}",
                                   ref(Field::Schedule), r.schedule, schedule.header.nranks, topology.name(), gpus.size(),
                                   gpus.size()));
  // The file names its algorithm: a registered one brings its NCCL family (its latencies), any other
  // the ring's; NVLS's one helper is the switch, placed where a built NVLS schedule would be.
  const algo::AlgorithmInfo* entry = registry.lookup(schedule.header.collective, schedule.algorithm);
  const bool on_switch = entry && entry->switch_reduction && schedule.header.helpers > 0 && r.options.ps_node.empty();
  if (!on_switch && r.options.ps_node.size() != schedule.header.helpers)
    throw RequestError(Field::PsNode, "",
                       fmt::format("{}: found {} node(s), but {} has {} helper rank(s); expected one node id per "
                                   "helper (e.g. {} cpu0)",
                                   ref(Field::PsNode), r.options.ps_node.size(), r.schedule, schedule.header.helpers,
                                   ref(Field::PsNode)));
  std::vector<topo::NodeId> rank_to_node(gpus.begin(), gpus.begin() + schedule.header.nranks);
  const algo::NcclFamily family = entry ? entry->family : algo::NcclFamily::None;
  Fidelity fidelity = resolve_fidelity(r.model, topology, rank_to_node, family, schedule.header.collective,
                                       schedule.header.size, std::nullopt);
  place_helpers(topology, r.options.ps_node, rank_to_node);
  if (on_switch) {
    if (fidelity.reduction_switches.size() != schedule.header.helpers)
      throw RequestError(Field::Schedule, r.schedule,
                         fmt::format("{}: {} has {} switch rank(s), but its ranks on topology {} have {} switch(es) "
                                     "that reduce; expected one per host of more than one rank",
                                     ref(Field::Schedule), r.schedule, schedule.header.helpers, topology.name(),
                                     fidelity.reduction_switches.size()));
    rank_to_node.insert(rank_to_node.end(), fidelity.reduction_switches.begin(), fidelity.reduction_switches.end());
  }
  Plan plan{std::move(schedule), std::move(rank_to_node), std::nullopt, std::move(fidelity)};
  naming_size(r, [&] { apply_slicing(plan, topology); });
  return plan;
}

}  // namespace

const algo::AlgorithmRegistry& builtin_algorithms() {
  static const algo::AlgorithmRegistry registry = algo::builtin_registry();
  return registry;
}

Plan plan_on(const SimulationRequest& r, const topo::Topology& topology, const algo::AlgorithmRegistry& registry,
             topo::PathTable* paths) {
  if (!r.schedule.empty()) return schedule_plan(r, load_schedule(r), topology, registry);
  return algorithm_plan(r, find_algorithm(r, registry), topology, registry, paths);
}

Prepared prepare(const SimulationRequest& r, const algo::AlgorithmRegistry& registry) {
  if (!r.schedule.empty()) {
    sched::Schedule schedule = load_schedule(r);  // the file's errors before the topology's
    topo::Topology topology = load_topology(r.topology);
    Plan plan = schedule_plan(r, std::move(schedule), topology, registry);
    return Prepared{std::move(topology), std::move(plan)};
  }
  const algo::AlgorithmInfo* algorithm = find_algorithm(r, registry);
  topo::Topology topology = load_topology(r.topology);
  Plan plan = algorithm_plan(r, algorithm, topology, registry);
  return Prepared{std::move(topology), std::move(plan)};
}

Outcome run_plan(const Plan& plan, const topo::Topology& topology, const SimulationRequest& r,
                 net::TransferObserver* observer) {
  check_network_name(r.network);
  Outcome out;
  if (r.verify) out.check = validation::replay_on_cpu(plan.schedule, *r.verify);
  out.run = naming_size(r, [&] { return simulate_plan(plan, topology, r.network, r.model.formula, observer, r.stop, nullptr, r.progress); });
  return out;
}

Outcome run_prepared(const Prepared& p, const SimulationRequest& r, net::TransferObserver* observer) {
  return run_plan(p.plan, p.topology, r, observer);
}

Simulation simulate(const SimulationRequest& r, const algo::AlgorithmRegistry& registry) {
  Prepared prepared = prepare(r, registry);
  Outcome outcome = run_prepared(prepared, r);
  return Simulation{std::move(prepared), std::move(outcome)};
}

}  // namespace collsim::run
