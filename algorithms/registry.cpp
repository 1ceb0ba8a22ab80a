#include "algorithms/direct_allgather.hpp"
#include "algorithms/direct_allreduce.hpp"
#include "algorithms/direct_alltoall.hpp"
#include "algorithms/direct_reduce_scatter.hpp"
#include "algorithms/double_tree_allreduce.hpp"
#include "algorithms/halving_doubling_allgather.hpp"
#include "algorithms/halving_doubling_allreduce.hpp"
#include "algorithms/halving_doubling_reduce_scatter.hpp"
#include "algorithms/hierarchical_allreduce.hpp"
#include "algorithms/ps_allreduce.hpp"
#include "algorithms/recursive_doubling_allgather.hpp"
#include "algorithms/recursive_doubling_allreduce.hpp"
#include "algorithms/registry.hpp"
#include "algorithms/ring_allgather.hpp"
#include "algorithms/ring_allreduce.hpp"
#include "algorithms/ring_alltoall.hpp"
#include "algorithms/ring_broadcast.hpp"
#include "algorithms/ring_reduce.hpp"
#include "algorithms/ring_reduce_scatter.hpp"
#include "algorithms/tree_allreduce.hpp"
#include "algorithms/tree_broadcast.hpp"
#include "algorithms/tree_reduce.hpp"

#include <algorithm>

#include <fmt/format.h>


namespace collsim::algo {

sched::ScheduleHeader schedule_header(const Request& request, sched::Collective collective, sched::Rank helpers) {
  const bool rooted = collective == sched::Collective::Broadcast || collective == sched::Collective::Reduce;
  return sched::ScheduleHeader{collective, request.nranks, request.size, rooted ? request.root : 0, helpers,
                               request.element_size};
}

std::vector<sched::Chunk> split_parts(const Request& request, std::uint32_t parts) {
  return sched::split_even(request.size, parts, request.element_size);
}

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
                "ring reduce-scatter then ring all-gather, 2(N-1) steps (Patarasuk & Yuan 2009)", &build_ring_allreduce, "2(N-1)", "2(N-1)/N*S", "", "2(N-1)(a + P/B)",
                &stream_ring_allreduce});
  registry.add({"ring", sched::Collective::ReduceScatter,
                "each part travels once round the ring, gathering sums, N-1 steps (Patarasuk & Yuan 2009)",
                &build_ring_reduce_scatter, "N-1", "(N-1)/N*S", "", "(N-1)(a + P/B)", &stream_ring_reduce_scatter});
  registry.add({"ring", sched::Collective::AllGather,
                "each part travels once round the ring, N-1 steps (Patarasuk & Yuan 2009)",
                &build_ring_allgather, "N-1", "(N-1)/N*S", "", "(N-1)(a + P/B)", &stream_ring_allgather});
  registry.add({"ring", sched::Collective::Broadcast,
                "pipelined chain from the root in ring order, N-1 + chunks-1 steps (NCCL ring broadcast)",
                &build_ring_broadcast, "N-1 + C-1", "S", "C = ceil(S / --chunk-size) pipeline chunks", "(N-1)(a + c/B) + (C-1)c/B"});
  registry.add({"ring", sched::Collective::Reduce,
                "pipelined chain in ring order ending at the root, N-1 + chunks-1 steps (NCCL ring reduce)",
                &build_ring_reduce, "N-1 + C-1", "S", "C = ceil(S / --chunk-size) pipeline chunks", "(N-1)(a + c/B) + (C-1)c/B"});
  registry.add({"ring", sched::Collective::AllToAll,
                "store-and-forward to the ring successor, N-1 steps, N(N-1)/2 blocks per rank (Grama et al. 2003)",
                &build_ring_alltoall, "N-1", "N(N-1)/2*floor(S/N)", "store-and-forward through neighbours", "a + max{m=1..N-1} [(sum{s<=m}(N-s) + N-1-m)b/B + (N-1-m)a]"});
  registry.add({"direct", sched::Collective::AllReduce,
                "direct reduce-scatter then direct all-gather, 2 steps (TensorRT-LLM two-shot all-reduce)",
                &build_direct_allreduce, "2", "2(N-1)/N*S", "", "2(a + P/B); one port >= 2(a + (N-1)P/B)"});
  registry.add({"direct", sched::Collective::ReduceScatter,
                "every rank sends part q to rank q, which reduces, 1 step (MPICH pairwise, all at once)",
                &build_direct_reduce_scatter, "1", "(N-1)/N*S", "receives into scratch slots, adds locally", "a + P/B; one port >= a + (N-1)P/B"});
  registry.add({"direct", sched::Collective::AllGather, "every rank sends its part to every peer, 1 step",
                &build_direct_allgather, "1", "(N-1)*ceil(S/N)", "", "a + P/B; one port >= a + (N-1)P/B"});
  registry.add({"direct", sched::Collective::AllToAll,
                "every rank sends block q to rank q, 1 step (MPICH medium-message all-to-all, nccl-tests)",
                &build_direct_alltoall, "1", "(N-1)*floor(S/N)", "", "a + b/B; one port >= a + (N-1)b/B"});
  registry.add({"tree", sched::Collective::AllReduce,
                "NCCL's binary tree (ncclGetBtree): pipelined reduce to rank 0 then broadcast, 2ceil(log2 N)+C-1 steps",
                &build_tree_allreduce, "2ceil(log2 N) + C-1", "3S (N >= 4)", "C = ceil(S / --chunk-size)", "2D(a + c/B) + (C-1)c/B, D = ceil(log2 N)"});
  registry.add({"tree", sched::Collective::Reduce,
                "NCCL's binary tree (ncclGetBtree) rooted at the root: pipelined reduce, ceil(log2 N)+C-1 steps",
                &build_tree_reduce, "ceil(log2 N) + C-1", "S", "C = ceil(S / --chunk-size); --root", "D(a + c/B) + (C-1)c/B, D = ceil(log2 N)"});
  registry.add({"tree", sched::Collective::Broadcast,
                "NCCL's binary tree (ncclGetBtree) rooted at the root: pipelined broadcast, ceil(log2 N)+C-1 steps",
                &build_tree_broadcast, "ceil(log2 N) + C-1", "2S (N >= 4)", "C = ceil(S / --chunk-size); --root", "D(a + c/B) + (C-1)c/B, D = ceil(log2 N)"});
  registry.add({"double-tree", sched::Collective::AllReduce,
                "NCCL's double binary tree (ncclGetDtree): half the buffer on each tree, 2ceil(log2 N)+ceil(C/2)-1 steps",
                &build_double_tree_allreduce, "2ceil(log2 N) + ceil(C/2)-1", "2S (N >= 4)", "C = ceil(S / --chunk-size)", "max(each tree: 2D(a + c/B) + (C'-1)c/B, C' chunks of S/2; a + busiest shared link)"});
  registry.add({"halving-doubling", sched::Collective::AllReduce,
                "Rabenseifner: recursive-halving reduce-scatter then recursive-doubling all-gather, 2 log2 N steps "
                "(Thakur, Rabenseifner & Gropp 2005)", &build_halving_doubling_allreduce, "2log2 N (+2 if N is not a power of 2)", "2(N-1)/N*S (N a power of 2)", "", "2log2(N)a + 2(N-1)P/B"});
  registry.add({"halving-doubling", sched::Collective::ReduceScatter,
                "recursive halving, log2 N steps (Thakur, Rabenseifner & Gropp 2005)",
                &build_halving_doubling_reduce_scatter, "log2 N (+2 if N is not a power of 2)", "(N-1)/N*S (N a power of 2)", "", "log2(N)a + (N-1)P/B"});
  registry.add({"halving-doubling", sched::Collective::AllGather,
                "recursive doubling, log2 N steps (Thakur, Rabenseifner & Gropp 2005)", &build_halving_doubling_allgather, "log2 N (+2 if N is not a power of 2)", "(N-1)/N*S (N a power of 2)", "", "log2(N)a + (N-1)P/B"});
  registry.add({"recursive-doubling", sched::Collective::AllReduce,
                "whole-buffer pairwise exchange for small messages, log2 N steps (Thakur, Rabenseifner & Gropp 2005)",
                &build_recursive_doubling_allreduce, "log2 N (+2 if N is not a power of 2)", "log2 N*S (N a power of 2)", "", "log2(N)(a + S/B)"});
  registry.add({"recursive-doubling", sched::Collective::AllGather,
                "rank sends 2^k parts in step k, log2 N steps (Thakur, Rabenseifner & Gropp 2005)",
                &build_recursive_doubling_allgather, "log2 N (+2 if N is not a power of 2)", "(N-1)/N*S (N a power of 2)", "", "log2(N)a + (N-1)P/B"});
  registry.add({"ps", sched::Collective::AllReduce,
                "parameter server: push to K servers, reduce, pull back, 2 steps (Li et al. 2014)", &build_ps_allreduce, "2", "worker S, server (N-1)*S (K = 1)", "--ps-shards K (1..N), --ps-node", "2(a + S/B); one port 2(a + (N-1)S/B)"});
  registry.add({"hierarchical", sched::Collective::AllReduce,
                "ring reduce-scatter in each host, ring all-reduce across hosts per local rank, ring all-gather in "
                "each host, 2(L-1)+2(K-1) steps (Horovod's hierarchical all-reduce; Mikami et al. 2018)",
                &build_hierarchical_allreduce, "2(L-1) + 2(K-1)", "2(L-1)/L*S + 2(K-1)/(K*L)*S",
                "only N = K hosts x L ranks, each host's ranks consecutive (topology \"host\" keys, --nodes K)", "<= 2(L-1)(a + K*P/B) + 2(K-1)(a' + M*P/B'), M ranks per host port"});
}

AlgorithmRegistry builtin_registry() {
  AlgorithmRegistry r;
  register_builtin_algorithms(r);
  return r;
}

bool takes_flag(const AlgorithmInfo& algorithm, std::string_view flag) {
  return algorithm.options.find(flag) != std::string_view::npos;
}

}  // namespace collsim::algo
