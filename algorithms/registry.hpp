// The table of collective algorithms: a name, the collective, a description, a builder, and what
// the rest of collsim needs to know of each (its closed form, whether it is pipelined, which of
// NCCL's algorithms it is, the options it takes), so that nothing decides by an algorithm's name.
//
// Registration is one explicit line per algorithm in register_builtin_algorithms() (registry.cpp),
// not static initialisers, which a linker may drop from a static library (STYLE.md pattern 8).
// Builders are pure: a request in, a schedule out; no topology, no time, no I/O.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "sim/schedule/builder.hpp"
#include "sim/schedule/op_stream.hpp"
#include "sim/schedule/schedule.hpp"

namespace collsim::algo {

/// What to build: the collective, the number of ranks (>= 1), S in bytes (as nccl-tests counts
/// it), and the options some algorithms take. Algorithms never see the topology; what the
/// hierarchical algorithm needs to know of it (which ranks share a host) comes in `hosts`.
struct Request {
  sched::Collective collective = sched::Collective::AllReduce;
  sched::Rank nranks = 1;
  Bytes size = 0;
  sched::Rank root = 0;                  ///< broadcast, reduce
  Bytes chunk_size = Bytes{512} << 10;   ///< pipelining unit of tree algorithms (--chunk-size)
  std::uint32_t ps_shards = 1;           ///< ps: number of servers the keys are spread over
  bool ps_external_server = false;       ///< ps: servers are helper ranks (nodes outside the GPUs)
  /// Bytes per element of the data type (--dtype; 4 = float32, nccl-tests' default -d float).
  /// Buffers are cut into parts and pipeline chunks of whole elements when S is a multiple of it,
  /// as NCCL counts in elements; otherwise in bytes (sched::split_even).
  Bytes element_size = 4;
  /// The host (machine, cluster node) of each rank: rank r runs on host hosts[r], hosts numbered
  /// 0, 1, .. in order of first appearance. Empty when unknown (the topology names no hosts), else
  /// of size nranks. Only hierarchical uses it (see host_grid.hpp); other algorithms ignore it.
  std::vector<std::uint32_t> hosts{};
};

/// The schedule header for `request` building `collective`: its N, S and element size, the root
/// for broadcast and reduce (0 otherwise), and `helpers` extra ranks.
sched::ScheduleHeader schedule_header(const Request& request, sched::Collective collective, sched::Rank helpers = 0);

/// S cut into `parts` parts of whole elements when S is a multiple of the element size, else of
/// bytes: sched::split_even(request.size, parts, request.element_size).
std::vector<sched::Chunk> split_parts(const Request& request, std::uint32_t parts);

struct AlphaBeta;  // closed_form.hpp: a fabric as the closed forms see it

/// Which of NCCL's algorithms an entry is, for what NCCL's tuning model knows of it
/// (src/graph/tuning.cc): the row of NCCL's tables its base and per-step latencies come from, and
/// whether NCCL's time formula (sim/nccl_formula.hpp) predicts it.
enum class NcclFamily : std::uint8_t {
  None,  ///< not one of NCCL's: the ring row's latencies apply (NCCL's default row), no formula
  Ring,  ///< NCCL_ALGO_RING: the ring row, and NCCL's ring formula
  Tree,  ///< NCCL_ALGO_TREE (a binary or double binary tree): the tree row, and NCCL's tree formula
  Nvls,  ///< NCCL_ALGO_NVLS (the NVSwitch reduces and multicasts): the NVLS row, NCCL's NVLS formula
  /// NCCL_ALGO_NVLS_TREE (NVLS in each host, a tree between hosts): its row, NCCL's NVLSTree formula
  NvlsTree,
  Pat,  ///< NCCL_ALGO_PAT (all-gather, reduce-scatter with one GPU per node): its row, NCCL's PAT formula
  /// NCCL_ALGO_COLLNET_DIRECT (the network's SHARP switch reduces across hosts): its row and formula;
  /// NCCL weighs it only with NCCL_COLLNET_ENABLE=1, so NCCL's choice leaves it out (not nccl_default)
  CollNet,
};

/// The options an algorithm reads from its Request beyond N, S and its collective's own: the
/// command line refuses the matching flag for an algorithm that would ignore it. --root follows
/// from the collective (broadcast and reduce have a root), --chunk-size from
/// AlgorithmInfo::pipelined.
struct Takes {
  bool ps_shards = false;  ///< --ps-shards: Request::ps_shards, the servers the keys are spread over
  bool ps_node = false;    ///< --ps-node: Request::ps_external_server, servers as helper ranks
};

/// One algorithm for one collective: how to build it, how to describe it, and what it is
/// (capabilities the simulator, the cost models and the command line ask for, rather than its name).
struct AlgorithmInfo {
  std::string_view name;  ///< command-line name, e.g. "ring"
  sched::Collective collective;
  std::string_view description;  ///< one line, with the source of the algorithm
  sched::Schedule (*build)(const Request&);
  std::string_view steps = {};           ///< step count as a formula, e.g. "2(N-1)"
  std::string_view bytes_per_rank = {};  ///< bytes sent by the busiest rank as a formula
  /// Flags it takes and limits it has, "" for none: text for people (`collsim algorithms`);
  /// code asks `pipelined`, `needs_hosts` and `takes` instead.
  std::string_view options = {};
  /// Its closed-form α-β time as a formula (closed_form.hpp; a = α, B, P = ceil(S/N), ...), or "".
  std::string_view closed_form = {};
  /// The same schedule generated on demand (sched::OpStream; O(N) memory), or null when the
  /// algorithm only materialises; it may itself return null for a request it does not stream
  /// (halving-doubling: N not a power of two), which then materialises. Its dependency graph has the transitive closure of build()'s, so
  /// both give the same times (tests/unit/op_stream_test.cpp checks it per algorithm).
  std::unique_ptr<sched::OpStream> (*stream)(const Request&) = nullptr;
  /// Its closed-form time for a request (of this entry's collective) on a fabric, or nullopt where
  /// the form does not apply (closed_form.hpp lists when); null when it has no form at all.
  std::optional<Time> (*closed_form_time)(const Request&, const AlphaBeta&) = nullptr;
  /// Cut into pipeline chunks of Request::chunk_size, so it takes --chunk-size (and its op count
  /// grows with S / chunk_size).
  bool pipelined = false;
  /// Needs Request::hosts (which ranks share a host) for N > 1; build() throws AlgorithmError
  /// without a host grid (host_grid.hpp).
  bool needs_hosts = false;
  /// Its schedule depends on Request::hosts, which ranks share a host (true whenever needs_hosts):
  /// tests build it on every host grid, not only without hosts.
  bool uses_hosts = false;
  /// Its schedule's helper ranks are the switches that reduce and multicast for the ranks, one per
  /// host in host order (NVLS: one; NVLSTree: one per host of more than one rank, none when every
  /// host has one), or the network's (CollNet: one when the ranks span hosts): the run places them
  /// on the NVLS switches (topologies/nvls.hpp) or the SHARP switch (topologies/sharp.hpp) and
  /// refuses a topology that has none.
  bool switch_reduction = false;
  /// Its pipeline chunks cut each rank's part of a channel's share (S / channels / N), not the
  /// whole share: the op budget counts them so (NVLS).
  bool pipelines_parts = false;
  /// Its pipeline chunk when --chunk-size is not given (0: Request's default, 512 KiB); only for
  /// pipelined entries.
  Bytes default_chunk_size = 0;
  NcclFamily family = NcclFamily::None;  ///< which of NCCL's algorithms it is, if any
  /// The entry that runs its family when NCCL's choice picks it (`--algorithm nccl`): ring, nccl-tree
  /// (NCCL's tree as NCCL builds it), nvls; at most one per family and collective. An entry of
  /// family None is what NCCL runs without a choice (all-to-all: grouped send/recv to every peer,
  /// direct).
  bool nccl_default = false;
  Takes takes = {};                      ///< the ps options it reads
  /// Other names find() accepts for it (as --algorithm); they point at storage that outlives the
  /// registry (a static array). Listings show `name` only.
  std::span<const std::string_view> aliases = {};

  /// True when `candidate` is its name or one of its aliases.
  [[nodiscard]] bool answers_to(std::string_view candidate) const noexcept;
};

/// Thrown for an unknown algorithm or an unsupported (algorithm, collective) pair; the message
/// lists what would work.
class AlgorithmError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class AlgorithmRegistry {
 public:
  /// Adds an entry; throws std::logic_error when its name or an alias already answers for its
  /// collective.
  void add(AlgorithmInfo info);
  /// The entry for (collective, name). Throws AlgorithmError: for an unknown name, listing every
  /// algorithm; for a known one that lacks the collective, listing what it supports and which
  /// algorithms support the collective.
  /// `name` may be an alias.
  [[nodiscard]] const AlgorithmInfo& find(sched::Collective collective, std::string_view name) const;
  /// The entry for (collective, name or alias), or null when there is none (no error).
  [[nodiscard]] const AlgorithmInfo* lookup(sched::Collective collective, std::string_view name) const noexcept;
  /// Every entry that answers to `name` (name or alias), whatever its collective, in registration
  /// order; empty for an unknown name.
  [[nodiscard]] std::vector<const AlgorithmInfo*> named(std::string_view name) const;
  [[nodiscard]] std::span<const AlgorithmInfo> all() const noexcept { return entries_; }
  /// Distinct algorithm names, in registration order.
  [[nodiscard]] std::vector<std::string_view> names() const;

 private:
  std::vector<AlgorithmInfo> entries_;
};

/// Registers every algorithm that ships with collsim.
void register_builtin_algorithms(AlgorithmRegistry& registry);

/// A registry with every built-in algorithm.
AlgorithmRegistry builtin_registry();

}  // namespace collsim::algo
