// The numbers a user asks about one simulated collective, derived from a run.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "sim/engine.hpp"

namespace collsim::sim {

struct Summary {
  sched::Collective collective = sched::Collective::AllReduce;
  std::string algorithm;
  std::string topology;
  std::string network;
  sched::Rank ranks = 0;
  /// The root of a broadcast or reduce (sched::has_root); none for the other collectives.
  std::optional<sched::Rank> root;
  /// Helper ranks after the participants (a parameter server, the switch of NVLS).
  sched::Rank helpers = 0;
  Bytes size = 0;
  std::uint32_t steps = 0;
  Time time{0};
  /// algbw = S / t and busbw = algbw · factor (nccl-tests doc/PERFORMANCE.md), in GB/s = 1e9 B/s;
  /// empty when t = 0 (nothing had to move).
  std::optional<double> algbw_GBps;
  std::optional<double> busbw_GBps;
  /// The most bytes a participant (a GPU rank, not a helper) sends.
  Bytes bytes_sent_per_rank_max = 0;
  /// bytes_sent_per_rank_max / S (0 when S = 0): 2(N-1)/N for ring all-reduce.
  double traffic_factor = 0;
  /// factor · S / B, rounded down to the picosecond, where B is the smallest injection bandwidth
  /// (sum of outgoing link bandwidths) among the GPUs in use and factor the collective's
  /// bandwidth factor (2(N-1)/N for all-reduce; Patarasuk & Yuan 2009). No schedule can beat it.
  /// 0 when the schedule has helper ranks (a server outside the GPUs, a switch that reduces), to
  /// which it does not apply: they let each GPU send only S.
  Time lower_bound{0};
  Bandwidth injection_bandwidth;
  /// The link that needs the most time for its bytes alone (bytes / bandwidth); ties go to the
  /// lowest link id. Empty when no link carried data.
  std::optional<topo::LinkId> bottleneck_link;
  /// On a fabric of switches joined to switches (leaf/spine, or --nodes' host switches and network
  /// switch): the directed switch-to-switch links that carried the most bytes, at most 3, most first
  /// (ties: lowest id), and how unevenly those links were loaded: the most bytes one carried over the
  /// mean of all of them, idle ones included (1: even; ECMP's collisions raise it). Empty and
  /// nullopt when there are no such links or none carried data.
  std::vector<topo::LinkId> busiest_switch_links;
  std::optional<double> switch_link_imbalance;
  std::uint64_t events = 0;
  /// How many identical copies of one period of ranks the run stood for (sim::Result::rank_images):
  /// 1 when every rank was simulated; `events` are the period's.
  std::uint32_t rank_images = 1;
  /// The algorithm's α-β closed form for this fabric, when it has one (set by the caller, which
  /// knows the algorithms; algorithms/closed_form.hpp).
  std::optional<Time> closed_form;
  /// How the run was set up (run/fidelity.hpp), each with where its value came from:
  /// the protocol ("none" for the ideal α-β model), channels, and slice size (0: whole chunks).
  /// Why the algorithm runs when NCCL's choice picked it (run/nccl_choice.hpp), else empty.
  std::string algorithm_choice;
  std::string protocol = "none";
  std::string protocol_source = "default";
  std::uint32_t channels = 1;
  std::string channels_source = "default";
  Bytes slice = 0;
  std::string slice_source = "default";
  /// The pipeline chunk of a chunked algorithm (tree, ring broadcast/reduce; 0 for the others)
  /// and where it came from.
  Bytes chunk = 0;
  std::string chunk_source = "default";
  /// The second opinion of --model: "analytical" or "nccl" ("" when none was asked for), and its
  /// time (nullopt when the formula has none for this case).
  std::string model;
  std::optional<Time> model_time;
  /// The host (run/fidelity.hpp, topologies/host_costs.hpp): GPUs one thread drives, where that
  /// came from, and its time per iteration (G launches, or G empty calls for 0 bytes; 0 without a
  /// protocol). host_bound: the host's time exceeded the collective's and `time` is the host's.
  std::uint32_t gpus_per_thread = 1;
  std::string gpus_per_thread_source = "default";
  Time host_time{0};
  bool host_bound = false;
  /// The collective's own time (the engine's), which `time` replaces when host_bound.
  Time collective_time{0};
};

/// Derives the summary of `result`, the run of `schedule` on `topology` with ranks on `rank_to_gpu`.
Summary summarize(const sched::Schedule& schedule, const topo::Topology& topology,
                  std::span<const topo::NodeId> rank_to_gpu, const Result& result, std::string network_name);

/// Sets s.time to `t` and the algbw and busbw it gives (none for t = 0); s.size, s.collective
/// and s.ranks must be set.
void set_time(Summary& s, Time t);

/// The lower bound of `summarize` on its own: floor(factor · S · 8e12 / B) ps.
Time bandwidth_lower_bound(sched::Collective collective, sched::Rank ranks, Bytes size, Bandwidth injection);

}  // namespace collsim::sim
