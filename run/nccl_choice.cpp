#include "run/nccl_choice.hpp"

#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "run/errors.hpp"
#include "run/fidelity.hpp"
#include "run/parse.hpp"
#include "topologies/hosts.hpp"

namespace collsim::run {
namespace {

// NCCL_ALGO_TREE = 0, NCCL_ALGO_RING = 1, NCCL_ALGO_NVLS = 4, NCCL_ALGO_NVLS_TREE = 5,
// NCCL_ALGO_PAT = 6 (src/include/device.h): the order in which ncclTopoGetAlgoInfo weighs them.
constexpr std::array<algo::NcclFamily, 5> kNcclOrder{algo::NcclFamily::Tree, algo::NcclFamily::Ring,
                                                     algo::NcclFamily::Nvls, algo::NcclFamily::NvlsTree,
                                                     algo::NcclFamily::Pat};

// "tree runs allreduce; pat runs allgather, reducescatter": the collectives of the NCCL families in
// `allowed` (empty: all), from the registry's entries that stand for them.
std::string what_they_run(const algo::AlgorithmRegistry& registry, std::span<const algo::NcclFamily> allowed) {
  std::string out;
  for (algo::NcclFamily family : kNcclOrder) {
    if (!allowed.empty() && std::find(allowed.begin(), allowed.end(), family) == allowed.end()) continue;
    std::string name, collectives;
    for (const auto& entry : registry.all())
      if (entry.nccl_default && entry.family == family) {
        name = entry.name;
        collectives += fmt::format("{}{}", collectives.empty() ? "" : ", ", sched::collective_name(entry.collective));
      }
    if (!name.empty()) out += fmt::format("{}{} runs {}", out.empty() ? "" : "; ", name, collectives);
  }
  return out;
}

// Why NCCL's model has no time for `entry` here (sim::nccl_formula_time gave none), by NCCL's rules
// in ncclTopoTuneModel (src/graph/tuning.cc, 2.30.7).
std::string no_model_reason(const algo::AlgorithmInfo& entry, sched::Collective collective) {
  switch (entry.family) {
    case algo::NcclFamily::NvlsTree:
      return "NCCL disables NVLSTree on one node (ncclTopoTuneModel); expected ranks on several hosts";
    case algo::NcclFamily::Nvls:
      return "NCCL runs NVLS here only on one node, with at least 2 NVLS channels (ncclTopoTuneModel)";
    case algo::NcclFamily::Pat:
      return "NCCL runs PAT only with one GPU per node (ncclPatEnable); expected one rank per host";
    default:
      return fmt::format("NCCL's model has no {} {} here", entry.name, sched::collective_name(collective));
  }
}

std::string time_text(Time t) { return fmt::format("{:.2f} us", static_cast<double>(t.count()) * 1e-6); }

}  // namespace

bool is_nccl_choice(std::string_view algorithm) noexcept { return algorithm == "nccl" || algorithm == "auto"; }

std::string NcclChoice::reason(Bytes size) const {
  std::string list;
  std::vector<const NcclCandidate*> timed;
  for (const auto& c : candidates)
    if (c.time) timed.push_back(&c);
  std::stable_sort(timed.begin(), timed.end(), [](const auto* a, const auto* b) { return *a->time < *b->time; });
  if (timed.empty() && entry)  // no choice was made (all-to-all)
    return candidates.empty() ? std::string("NCCL's only way") : candidates.front().why;
  for (const auto* c : timed)
    list += fmt::format("{}{}{} {}", list.empty() ? "" : ", ", c->entry->name,
                        c->protocol ? "/" + std::string(topo::protocol_name(*c->protocol)) : std::string(),
                        time_text(*c->time));
  return fmt::format("NCCL's pick for {} by its cost model (src/graph/tuning.cc, 2.30.7): {}", format_size(size), list);
}

NcclChoice choose_nccl_algorithm(const algo::AlgorithmRegistry& registry, const topo::Topology& topology,
                                 std::span<const topo::NodeId> ranks, sched::Collective collective, Bytes size,
                                 const ModelOptions& model, std::span<const algo::NcclFamily> allowed,
                                 topo::PathTable* paths) {
  NcclChoice choice;
  std::optional<Time> best;
  for (algo::NcclFamily family : kNcclOrder) {
    if (!allowed.empty() && std::find(allowed.begin(), allowed.end(), family) == allowed.end()) continue;
    for (const auto& entry : registry.all()) {
      if (!entry.nccl_default || entry.family != family || entry.collective != collective) continue;
      NcclCandidate c{&entry, std::nullopt, std::nullopt, {}};
      try {
        algo::Request request{collective, static_cast<sched::Rank>(ranks.size()), size};
        request.hosts = topo::host_indices(topology, ranks);
        const Fidelity f = resolve_fidelity(model, topology, ranks, family, collective, size, request, paths);
        c.protocol = f.protocol;
        try {
          c.time = nccl_model_time(f, topology, ranks, entry.name, collective, size, paths);
        } catch (const RequestError& e) {
          if (e.field() != Field::Model) throw;
          c.time = Time::max();  // its time passes the clock: the slowest, still a candidate
        }
        if (!c.time) c.why = no_model_reason(entry, collective);
      } catch (const RequestError& e) {
        // The reason without the field it names first ("--algorithm: NVLS needs ..."): the caller's
        // message names --algorithm nccl already.
        const std::string lead = ref(e.field()) + ": ";
        c.why = e.message().starts_with(lead) ? e.message().substr(lead.size()) : e.message();
      }
      if (c.time && (!best || *c.time < *best)) {
        best = c.time;
        choice.entry = &entry;
      }
      choice.candidates.push_back(std::move(c));
    }
  }
  // No algorithm to choose from (all-to-all: NCCL groups a send and a receive per peer, nccl-tests
  // src/alltoall.cu, with no algorithm of its own): the entry that runs as NCCL does.
  if (!choice.entry && choice.candidates.empty())
    for (const auto& entry : registry.all())
      if (entry.nccl_default && entry.family == algo::NcclFamily::None && entry.collective == collective) {
        choice.entry = &entry;
        choice.candidates.push_back({&entry, std::nullopt, std::nullopt,
                                     fmt::format("NCCL runs {} as grouped send/recv{}, with no algorithm to choose "
                                                 "(nccl-tests src/{}.cu)",
                                                 sched::collective_name(collective),
                                                 collective == sched::Collective::AllToAll ? " to every peer" : "",
                                                 sched::collective_name(collective))});
        break;
      }
  if (!choice.entry) {
    std::string why;
    for (const auto& c : choice.candidates) why += fmt::format("; {}: {}", c.entry->name, c.why);
    throw RequestError(Field::Algorithm, "nccl",
                       fmt::format("{} nccl: none of NCCL's algorithms can run {} here{}", ref(Field::Algorithm),
                                   sched::collective_name(collective),
                                   why.empty() ? fmt::format(" (of those {} allows, none runs it: {})",
                                                             ref(Field::NcclAlgo), what_they_run(registry, allowed))
                                               : why));
  }
  return choice;
}

}  // namespace collsim::run
