#include "algorithms/registry.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "algorithms/halving_doubling_allgather.hpp"
#include "algorithms/halving_doubling_allreduce.hpp"
#include "algorithms/halving_doubling_reduce_scatter.hpp"
#include "algorithms/ps_allreduce.hpp"
#include "algorithms/recursive_doubling_allgather.hpp"
#include "algorithms/recursive_doubling_allreduce.hpp"
#include "algorithms/ring_allreduce.hpp"

namespace collsim::algo {

void AlgorithmRegistry::add(AlgorithmInfo info) {
  for (const auto& e : entries_)
    if (e.name == info.name && e.collective == info.collective)
      throw std::logic_error(fmt::format("algorithm {} for {} registered twice", info.name,
                                         sched::collective_name(info.collective)));
  entries_.push_back(info);
}

std::vector<std::string_view> AlgorithmRegistry::names() const {
  std::vector<std::string_view> out;
  for (const auto& e : entries_)
    if (std::find(out.begin(), out.end(), e.name) == out.end()) out.push_back(e.name);
  return out;
}

const AlgorithmInfo& AlgorithmRegistry::find(sched::Collective collective, std::string_view name) const {
  std::vector<std::string_view> supported_by_name;
  std::vector<std::string_view> for_collective;
  for (const auto& e : entries_) {
    if (e.name == name && e.collective == collective) return e;
    if (e.name == name) supported_by_name.push_back(sched::collective_name(e.collective));
    if (e.collective == collective) for_collective.push_back(e.name);
  }
  if (supported_by_name.empty())
    throw AlgorithmError(fmt::format("unknown algorithm \"{}\", expected one of: {}", name, fmt::join(names(), ", ")));
  throw AlgorithmError(fmt::format(
      "{} with algorithm {} is not supported yet; {} supports: {}; algorithms for {}: {}",
      sched::collective_name(collective), name, name, fmt::join(supported_by_name, ", "),
      sched::collective_name(collective), for_collective.empty() ? std::string("none yet") : fmt::format("{}", fmt::join(for_collective, ", "))));
}

void register_builtin_algorithms(AlgorithmRegistry& registry) {
  registry.add({"ring", sched::Collective::AllReduce,
                "ring reduce-scatter then ring all-gather, 2(N-1) steps (Patarasuk & Yuan 2009)", &build_ring_allreduce});
  registry.add({"halving-doubling", sched::Collective::AllReduce,
                "Rabenseifner: recursive-halving reduce-scatter then recursive-doubling all-gather, 2 log2 N steps "
                "(Thakur, Rabenseifner & Gropp 2005)", &build_halving_doubling_allreduce});
  registry.add({"halving-doubling", sched::Collective::ReduceScatter,
                "recursive halving, log2 N steps (Thakur, Rabenseifner & Gropp 2005)",
                &build_halving_doubling_reduce_scatter});
  registry.add({"halving-doubling", sched::Collective::AllGather,
                "recursive doubling, log2 N steps (Thakur, Rabenseifner & Gropp 2005)", &build_halving_doubling_allgather});
  registry.add({"recursive-doubling", sched::Collective::AllReduce,
                "whole-buffer pairwise exchange for small messages, log2 N steps (Thakur, Rabenseifner & Gropp 2005)",
                &build_recursive_doubling_allreduce});
  registry.add({"recursive-doubling", sched::Collective::AllGather,
                "rank sends 2^k parts in step k, log2 N steps (Thakur, Rabenseifner & Gropp 2005)",
                &build_recursive_doubling_allgather});
  registry.add({"ps", sched::Collective::AllReduce,
                "parameter server: push to K servers, reduce, pull back, 2 steps (Li et al. 2014)", &build_ps_allreduce});
}

AlgorithmRegistry builtin_registry() {
  AlgorithmRegistry r;
  register_builtin_algorithms(r);
  return r;
}

}  // namespace collsim::algo
