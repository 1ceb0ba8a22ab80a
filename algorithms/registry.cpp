#include "algorithms/closed_form.hpp"
#include "algorithms/direct_allgather.hpp"
#include "algorithms/direct_allreduce.hpp"
#include "algorithms/direct_alltoall.hpp"
#include "algorithms/direct_reduce_scatter.hpp"
#include "algorithms/double_tree_allreduce.hpp"
#include "algorithms/halving_doubling_allgather.hpp"
#include "algorithms/halving_doubling_allreduce.hpp"
#include "algorithms/halving_doubling_stream.hpp"
#include "algorithms/halving_doubling_reduce_scatter.hpp"
#include "algorithms/hierarchical_allreduce.hpp"
#include "algorithms/nccl_tree_allreduce.hpp"
#include "algorithms/nvls_allreduce.hpp"
#include "algorithms/nvls_tree_allreduce.hpp"
#include "algorithms/nvls_tree_stream.hpp"
#include "algorithms/collnet_allreduce.hpp"
#include "algorithms/pat_allgather.hpp"
#include "algorithms/pat_reduce_scatter.hpp"
#include "algorithms/pat_stream.hpp"
#include "algorithms/ps_allreduce.hpp"
#include "algorithms/recursive_doubling_allgather.hpp"
#include "algorithms/recursive_doubling_allreduce.hpp"
#include "algorithms/registry.hpp"
#include "algorithms/ring_allgather.hpp"
#include "algorithms/ring_allreduce.hpp"
#include "algorithms/ring_alltoall.hpp"
#include "algorithms/ring_broadcast.hpp"
#include "algorithms/ring_chain_stream.hpp"
#include "algorithms/ring_reduce.hpp"
#include "algorithms/ring_reduce_scatter.hpp"
#include "algorithms/ring_sendrecv.hpp"
#include "algorithms/tree_allreduce.hpp"
#include "algorithms/tree_broadcast.hpp"
#include "algorithms/tree_reduce.hpp"
#include "algorithms/tree_stream.hpp"

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

bool AlgorithmInfo::answers_to(std::string_view candidate) const noexcept {
  return name == candidate || std::find(aliases.begin(), aliases.end(), candidate) != aliases.end();
}

void AlgorithmRegistry::add(AlgorithmInfo info) {
  for (const auto& e : entries_) {
    if (e.collective != info.collective) continue;
    const bool alias_taken =
        std::any_of(info.aliases.begin(), info.aliases.end(), [&](std::string_view a) { return e.answers_to(a); });
    if (e.answers_to(info.name) || alias_taken)
      throw std::logic_error(fmt::format("algorithm {} for {} registered twice", info.name,
                                         sched::collective_name(info.collective)));
  }
  entries_.push_back(info);
}

std::vector<std::string_view> AlgorithmRegistry::names() const {
  std::vector<std::string_view> out;
  for (const auto& e : entries_)
    if (std::find(out.begin(), out.end(), e.name) == out.end()) out.push_back(e.name);
  return out;
}

const AlgorithmInfo* AlgorithmRegistry::lookup(sched::Collective collective, std::string_view name) const noexcept {
  for (const auto& e : entries_)
    if (e.collective == collective && e.answers_to(name)) return &e;
  return nullptr;
}

std::vector<const AlgorithmInfo*> AlgorithmRegistry::named(std::string_view name) const {
  std::vector<const AlgorithmInfo*> out;
  for (const auto& e : entries_)
    if (e.answers_to(name)) out.push_back(&e);
  return out;
}

const AlgorithmInfo& AlgorithmRegistry::find(sched::Collective collective, std::string_view name) const {
  if (const AlgorithmInfo* e = lookup(collective, name)) return *e;
  std::vector<std::string_view> supported_by_name;
  for (const AlgorithmInfo* e : named(name)) supported_by_name.push_back(sched::collective_name(e->collective));
  std::vector<std::string_view> for_collective;
  for (const auto& e : entries_)
    if (e.collective == collective) for_collective.push_back(e.name);
  if (supported_by_name.empty())
    throw AlgorithmError(fmt::format("unknown algorithm \"{}\", expected one of: {}", name, fmt::join(names(), ", ")));
  throw AlgorithmError(fmt::format(
      "{} with algorithm {} is not supported yet; {} supports: {}; algorithms for {}: {}",
      sched::collective_name(collective), name, name, fmt::join(supported_by_name, ", "),
      sched::collective_name(collective), for_collective.empty() ? std::string("none yet") : fmt::format("{}", fmt::join(for_collective, ", "))));
}

void register_builtin_algorithms(AlgorithmRegistry& registry) {
  using sched::Collective;
  registry.add({.name = "ring", .collective = Collective::AllReduce,
                .description = "ring reduce-scatter then ring all-gather, 2(N-1) steps (Patarasuk & Yuan 2009)",
                .build = &build_ring_allreduce, .steps = "2(N-1)", .bytes_per_rank = "2(N-1)/N*S",
                .closed_form = "2(N-1)(a + P/B)", .stream = &stream_ring_allreduce,
                .closed_form_time = &ring_closed_form_time, .family = NcclFamily::Ring, .nccl_default = true});
  registry.add({.name = "ring", .collective = Collective::ReduceScatter,
                .description = "each part travels once round the ring, gathering sums, N-1 steps (Patarasuk & Yuan 2009)",
                .build = &build_ring_reduce_scatter, .steps = "N-1", .bytes_per_rank = "(N-1)/N*S",
                .closed_form = "(N-1)(a + P/B)", .stream = &stream_ring_reduce_scatter,
                .closed_form_time = &ring_closed_form_time, .family = NcclFamily::Ring, .nccl_default = true});
  registry.add({.name = "ring", .collective = Collective::AllGather,
                .description = "each part travels once round the ring, N-1 steps (Patarasuk & Yuan 2009)",
                .build = &build_ring_allgather, .steps = "N-1", .bytes_per_rank = "(N-1)/N*S",
                .closed_form = "(N-1)(a + P/B)", .stream = &stream_ring_allgather,
                .closed_form_time = &ring_closed_form_time, .family = NcclFamily::Ring, .nccl_default = true});
  registry.add({.name = "ring", .collective = Collective::Broadcast,
                .description = "pipelined chain from the root in ring order, N-1 + chunks-1 steps (NCCL ring broadcast)",
                .build = &build_ring_broadcast, .steps = "N-1 + C-1", .bytes_per_rank = "S",
                .options = "C = ceil(S / --chunk-size) pipeline chunks", .closed_form = "(N-1)(a + c/B) + (C-1)c/B",
                .stream = &stream_ring_broadcast, .closed_form_time = &ring_closed_form_time, .pipelined = true,
                .family = NcclFamily::Ring, .nccl_default = true});
  registry.add({.name = "ring", .collective = Collective::Reduce,
                .description = "pipelined chain in ring order ending at the root, N-1 + chunks-1 steps (NCCL ring reduce)",
                .build = &build_ring_reduce, .steps = "N-1 + C-1", .bytes_per_rank = "S",
                .options = "C = ceil(S / --chunk-size) pipeline chunks", .closed_form = "(N-1)(a + c/B) + (C-1)c/B",
                .stream = &stream_ring_reduce, .closed_form_time = &ring_closed_form_time, .pipelined = true,
                .family = NcclFamily::Ring, .nccl_default = true});
  registry.add({.name = "ring", .collective = Collective::AllToAll,
                .description = "store-and-forward to the ring successor, N-1 steps, N(N-1)/2 blocks per rank (Grama et al. 2003)",
                .build = &build_ring_alltoall, .steps = "N-1", .bytes_per_rank = "N(N-1)/2*floor(S/N)",
                .options = "store-and-forward through neighbours",
                .closed_form = "a + max{m=1..N-1} [(sum{s<=m}(N-s) + N-1-m)b/B + (N-1-m)a]",
                .closed_form_time = &ring_closed_form_time, .family = NcclFamily::Ring});
  registry.add({.name = "ring", .collective = Collective::SendRecv,
                .description = "every rank sends its buffer to the next rank of the ring at once, 1 step (nccl-tests "
                               "sendrecv_perf: grouped ncclSend to r+1 and ncclRecv from r-1)",
                .build = &build_ring_sendrecv, .steps = "1", .bytes_per_rank = "S", .closed_form = "a + S/B",
                .closed_form_time = &ring_closed_form_time, .nccl_default = true});
  registry.add({.name = "direct", .collective = Collective::AllReduce,
                .description = "direct reduce-scatter then direct all-gather, 2 steps (TensorRT-LLM two-shot all-reduce)",
                .build = &build_direct_allreduce, .steps = "2", .bytes_per_rank = "2(N-1)/N*S",
                .closed_form = "2(a + P/B); one port >= 2(a + (N-1)P/B)",
                .closed_form_time = &direct_closed_form_time});
  registry.add({.name = "direct", .collective = Collective::ReduceScatter,
                .description = "every rank sends part q to rank q, which reduces, 1 step (MPICH pairwise, all at once)",
                .build = &build_direct_reduce_scatter, .steps = "1", .bytes_per_rank = "(N-1)/N*S",
                .options = "receives into scratch slots, adds locally",
                .closed_form = "a + P/B; one port >= a + (N-1)P/B", .closed_form_time = &direct_closed_form_time});
  registry.add({.name = "direct", .collective = Collective::AllGather,
                .description = "every rank sends its part to every peer, 1 step",
                .build = &build_direct_allgather, .steps = "1", .bytes_per_rank = "(N-1)*ceil(S/N)",
                .closed_form = "a + P/B; one port >= a + (N-1)P/B", .closed_form_time = &direct_closed_form_time});
  registry.add({.name = "direct", .collective = Collective::AllToAll,
                .description = "every rank sends block q to rank q, 1 step (MPICH medium-message all-to-all, nccl-tests)",
                .build = &build_direct_alltoall, .steps = "1", .bytes_per_rank = "(N-1)*floor(S/N)",
                .closed_form = "a + b/B; one port >= a + (N-1)b/B", .closed_form_time = &direct_closed_form_time,
                .nccl_default = true});
  registry.add({.name = "tree", .collective = Collective::AllReduce,
                .description = "NCCL's binary tree (ncclGetBtree): pipelined reduce to rank 0 then broadcast, 2ceil(log2 N)+C-1 steps",
                .build = &build_tree_allreduce, .steps = "2ceil(log2 N) + C-1", .bytes_per_rank = "3S (N >= 4)",
                .options = "C = ceil(S / --chunk-size)", .closed_form = "2D(a + c/B) + (C-1)c/B, D = ceil(log2 N)",
                .stream = &stream_tree_allreduce, .closed_form_time = &tree_closed_form_time, .pipelined = true,
                .family = NcclFamily::Tree});
  registry.add({.name = "tree", .collective = Collective::Reduce,
                .description = "NCCL's binary tree (ncclGetBtree) rooted at the root: pipelined reduce, ceil(log2 N)+C-1 steps",
                .build = &build_tree_reduce, .steps = "ceil(log2 N) + C-1", .bytes_per_rank = "S",
                .options = "C = ceil(S / --chunk-size); --root",
                .closed_form = "D(a + c/B) + (C-1)c/B, D = ceil(log2 N)", .stream = &stream_tree_reduce,
                .closed_form_time = &tree_closed_form_time,
                .pipelined = true, .family = NcclFamily::Tree});
  registry.add({.name = "tree", .collective = Collective::Broadcast,
                .description = "NCCL's binary tree (ncclGetBtree) rooted at the root: pipelined broadcast, ceil(log2 N)+C-1 steps",
                .build = &build_tree_broadcast, .steps = "ceil(log2 N) + C-1", .bytes_per_rank = "2S (N >= 4)",
                .options = "C = ceil(S / --chunk-size); --root",
                .closed_form = "D(a + c/B) + (C-1)c/B, D = ceil(log2 N)", .stream = &stream_tree_broadcast,
                .closed_form_time = &tree_closed_form_time,
                .pipelined = true, .family = NcclFamily::Tree});
  registry.add({.name = "double-tree", .collective = Collective::AllReduce,
                .description = "NCCL's double binary tree (ncclGetDtree): half the buffer on each tree, 2ceil(log2 N)+ceil(C/2)-1 steps",
                .build = &build_double_tree_allreduce, .steps = "2ceil(log2 N) + ceil(C/2)-1",
                .bytes_per_rank = "2S (N >= 4)", .options = "C = ceil(S / --chunk-size)",
                .closed_form = "max(each tree: 2D(a + c/B) + (C'-1)c/B, C' chunks of S/2; a + busiest shared link)",
                .stream = &stream_double_tree_allreduce, .closed_form_time = &double_tree_closed_form_time,
                .pipelined = true, .family = NcclFamily::Tree});
  registry.add({.name = "nccl-tree", .collective = Collective::AllReduce,
                .description = "NCCL's tree as NCCL builds it (connect.cc, trees.cc): a chain in each host, a double binary "
                               "tree across hosts, half the buffer on each, 2D+ceil(C/2)-1 steps",
                .build = &build_nccl_tree_allreduce, .steps = "2D + ceil(C/2)-1, D ~ L-1 + ceil(log2 K)",
                .bytes_per_rank = "2S (a chain GPU with a child host)",
                .options = "C = ceil(S / --chunk-size); K hosts of L ranks (topology \"host\" keys, --nodes K), one host "
                           "without them",
                .closed_form = "one host: max(2(N-1)(a + c/B) + (C'-1)c/B, a + C*c/B), both halves on one chain",
                .stream = &stream_nccl_tree_allreduce, .closed_form_time = &nccl_tree_closed_form_time,
                .pipelined = true, .uses_hosts = true,
                .family = NcclFamily::Tree, .nccl_default = true});
  registry.add({.name = "nvls", .collective = Collective::AllReduce,
                .description = "NVLink SHARP (NCCL's NVLS): the NVSwitch adds each GPU's part and multicasts the sum, "
                               "C+3 steps (NVIDIA/nccl src/device/all_reduce.h)",
                .build = &build_nvls_allreduce, .steps = "C + 3",
                .bytes_per_rank = "S + P (and S + P received)",
                .options = "C = ceil(P / --chunk-size), default 128 KiB (NCCL_NVLS_CHUNKSIZE); one NVSwitch that "
                           "reduces (H100, H200, B200, GB200 or \"nvls\": true); protocol simple",
                .pipelined = true, .switch_reduction = true, .pipelines_parts = true, .default_chunk_size = kNvlsChunkSize,
                .family = NcclFamily::Nvls, .nccl_default = true});
  registry.add({.name = "nvls-tree", .collective = Collective::AllReduce,
                .description = "NCCL's NVLSTree: NVLink SHARP in each host, a head per part, NCCL's double binary tree "
                               "of hosts between the heads (NVIDIA/nccl src/device/all_reduce.h, connect.cc connectNvls)",
                .build = &build_nvls_tree_allreduce, .steps = "C + 2D + 3 (D = ceil(log2 K))",
                .bytes_per_rank = "S + S/L to the switch; each half of a head's part once up and once per child host",
                .options = "C = ceil(P / 2 / --chunk-size), P = S/L, default 128 KiB (NCCL_NVLS_CHUNKSIZE); K hosts "
                           "of L ranks (one host without them), an NVSwitch that reduces in each host when L > 1; "
                           "protocol simple",
                .stream = &stream_nvls_tree_allreduce, .pipelined = true, .uses_hosts = true,
                .switch_reduction = true, .pipelines_parts = true, .default_chunk_size = kNvlsChunkSize,
                .family = NcclFamily::NvlsTree, .nccl_default = true});
  registry.add({.name = "halving-doubling", .collective = Collective::AllReduce,
                .description = "Rabenseifner: recursive-halving reduce-scatter then recursive-doubling all-gather, 2 log2 N steps "
                               "(Thakur, Rabenseifner & Gropp 2005)",
                .build = &build_halving_doubling_allreduce, .steps = "2log2 N (+2 if N is not a power of 2)",
                .bytes_per_rank = "2(N-1)/N*S (N a power of 2)", .closed_form = "2log2(N)a + 2(N-1)P/B",
                .stream = &stream_halving_doubling_allreduce, .closed_form_time = &halving_doubling_closed_form_time});
  registry.add({.name = "halving-doubling", .collective = Collective::ReduceScatter,
                .description = "recursive halving, log2 N steps (Thakur, Rabenseifner & Gropp 2005)",
                .build = &build_halving_doubling_reduce_scatter, .steps = "log2 N (+2 if N is not a power of 2)",
                .bytes_per_rank = "(N-1)/N*S (N a power of 2)", .closed_form = "log2(N)a + (N-1)P/B",
                .stream = &stream_halving_doubling_reduce_scatter,
                .closed_form_time = &halving_doubling_closed_form_time});
  registry.add({.name = "halving-doubling", .collective = Collective::AllGather,
                .description = "recursive doubling, log2 N steps (Thakur, Rabenseifner & Gropp 2005)",
                .build = &build_halving_doubling_allgather, .steps = "log2 N (+2 if N is not a power of 2)",
                .bytes_per_rank = "(N-1)/N*S (N a power of 2)", .closed_form = "log2(N)a + (N-1)P/B",
                .stream = &stream_halving_doubling_allgather, .closed_form_time = &halving_doubling_closed_form_time});
  registry.add({.name = "collnet", .collective = Collective::AllReduce,
                .description = "NCCL's CollNet Direct: a head per part in each host, the network's SHARP switch adds the "
                               "hosts' sums and returns them (NVIDIA/nccl src/device/all_reduce.h runCollNetDirect)",
                .build = &build_collnet_allreduce, .steps = "C + 3 (one host: C + 1)",
                .bytes_per_rank = "2(S-P) in the host, P each way to the switch (P = S/L)",
                .options = "C = ceil(P / --chunk-size); K hosts of L ranks (one host without them); across hosts a "
                           "switch with \"sharp\": true; protocol simple; NCCL runs it only with NCCL_COLLNET_ENABLE=1",
                .pipelined = true, .uses_hosts = true, .switch_reduction = true, .pipelines_parts = true,
                .family = NcclFamily::CollNet});
  registry.add({.name = "pat", .collective = Collective::AllGather,
                .description = "NCCL's PAT (Parallel Aggregated Trees, one GPU per node): Bruck's log-depth exchange, "
                               "each rank forwards what it holds to the rank 2^k before it (src/include/collectives.h)",
                .build = &build_pat_allgather, .steps = "ceil(log2 N)", .bytes_per_rank = "(N-1)/N*S",
                .closed_form = "ceil(log2 N)a + (N-1)P/B", .stream = &stream_pat_allgather,
                .closed_form_time = &pat_closed_form_time,
                .family = NcclFamily::Pat, .nccl_default = true});
  registry.add({.name = "pat", .collective = Collective::ReduceScatter,
                .description = "NCCL's PAT reduce-scatter: the PAT all-gather's exchange backwards, partial sums up "
                               "its binomial trees (src/include/collectives.h PatRSAlgorithm)",
                .build = &build_pat_reduce_scatter, .steps = "ceil(log2 N)", .bytes_per_rank = "(N-1)/N*S",
                .closed_form = "ceil(log2 N)a + (N-1)P/B", .stream = &stream_pat_reduce_scatter,
                .closed_form_time = &pat_closed_form_time,
                .family = NcclFamily::Pat, .nccl_default = true});
  registry.add({.name = "recursive-doubling", .collective = Collective::AllReduce,
                .description = "whole-buffer pairwise exchange for small messages, log2 N steps (Thakur, Rabenseifner & Gropp 2005)",
                .build = &build_recursive_doubling_allreduce, .steps = "log2 N (+2 if N is not a power of 2)",
                .bytes_per_rank = "log2 N*S (N a power of 2)", .closed_form = "log2(N)(a + S/B)",
                .closed_form_time = &recursive_doubling_closed_form_time});
  registry.add({.name = "recursive-doubling", .collective = Collective::AllGather,
                .description = "rank sends 2^k parts in step k, log2 N steps (Thakur, Rabenseifner & Gropp 2005)",
                .build = &build_recursive_doubling_allgather, .steps = "log2 N (+2 if N is not a power of 2)",
                .bytes_per_rank = "(N-1)/N*S (N a power of 2)", .closed_form = "log2(N)a + (N-1)P/B",
                .stream = &stream_recursive_doubling_allgather,
                .closed_form_time = &recursive_doubling_closed_form_time});
  registry.add({.name = "ps", .collective = Collective::AllReduce,
                .description = "parameter server: push to K servers, reduce, pull back, 2 steps (Li et al. 2014)",
                .build = &build_ps_allreduce, .steps = "2", .bytes_per_rank = "worker S, server (N-1)*S (K = 1)",
                .options = "--ps-shards K (1..N), --ps-node", .closed_form = "2(a + S/B); one port 2(a + (N-1)S/B)",
                .closed_form_time = &ps_closed_form_time, .takes = {.ps_shards = true, .ps_node = true}});
  registry.add({.name = "hierarchical", .collective = Collective::AllReduce,
                .description = "ring reduce-scatter in each host, ring all-reduce across hosts per local rank, ring all-gather in "
                               "each host, 2(L-1)+2(K-1) steps (Horovod's hierarchical all-reduce; Mikami et al. 2018)",
                .build = &build_hierarchical_allreduce, .steps = "2(L-1) + 2(K-1)",
                .bytes_per_rank = "2(L-1)/L*S + 2(K-1)/(K*L)*S",
                .options = "only N = K hosts x L ranks, each host's ranks consecutive (topology \"host\" keys, --nodes K)",
                .closed_form = "<= 2(L-1)(a + K*P/B) + 2(K-1)(a' + M*P/B'), M ranks per host port",
                .closed_form_time = &hierarchical_closed_form_time, .needs_hosts = true, .uses_hosts = true});
}

AlgorithmRegistry builtin_registry() {
  AlgorithmRegistry r;
  register_builtin_algorithms(r);
  return r;
}

}  // namespace collsim::algo
