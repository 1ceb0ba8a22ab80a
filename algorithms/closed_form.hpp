// Closed-form α-β times of the algorithms (Thakur, Rabenseifner & Gropp 2005; Patarasuk & Yuan
// 2009; the pipelined-tree form of NCCL's src/graph/tuning.cc), for a fabric described by three
// numbers. They are the oracle the simulator is tested against on contention-free fabrics and the
// second opinion `simulate` prints beside its own time (closed_form_us).
//
// The forms follow the simulator's first network model: a transfer of n bytes holds its links
// for τ(n) = ceil(8n·1e12 / B) ps (rounded up once per transfer, as the engine does) and arrives
// α later; back-to-back transfers on one link overlap their latency.
#pragma once

#include <optional>
#include <string_view>

#include "algorithms/registry.hpp"

namespace collsim::algo {

/// The route between GPUs of different hosts of a multi-host fabric (--nodes K).
struct HostNetwork {
  Time alpha{0};        ///< latency of a GPU-to-GPU route between hosts (summed over its links)
  Bandwidth bandwidth;  ///< bottleneck bandwidth of that route
  /// How many ranks of a host send through one link to the next host at once: L on --nodes K
  /// (one uplink per host), 1 where every GPU has its own NIC.
  std::uint32_t port_sharing = 1;
};

/// A fabric as the closed forms see it.
struct AlphaBeta {
  Time alpha{0};              ///< latency of one GPU-to-GPU route (summed over its links); inside a host
  Bandwidth bandwidth;        ///< bottleneck bandwidth of one GPU-to-GPU route; inside a host
  bool shared_port = false;   ///< true: a GPU's sends to different peers share one port (switch);
                              ///< false: one link per peer (fully connected)
  /// True when a GPU has neither one port nor a link to every peer (a ring of GPUs): routes to
  /// farther peers cross other GPUs' links, so only ring's neighbour-to-neighbour forms apply.
  bool neighbours_only = false;
  /// Set when the ranks span several hosts: the route between them. Only hierarchical has a form
  /// then; the single-fabric forms would be wrong with two α and two B.
  std::optional<HostNetwork> inter_host{};
};

// Each algorithm's form, for a request of one of its collectives (request.collective), on
// `fabric`; the registry entries point at them (AlgorithmInfo::closed_form_time). nullopt where the
// form does not apply: for every algorithm but hierarchical, a fabric without a bandwidth or ranks
// spanning hosts (fabric.inter_host set); for all but ring, a fabric where only neighbours have a
// link of their own (fabric.neighbours_only); and besides:
//   ps with several shards or an external server; halving-doubling for N not a power of two,
//   parts of different sizes or one port; recursive doubling for N not a power of two or one port
//   (all-gather also for parts of different sizes); tree, double-tree and nccl-tree on one port
//   (a parent's children share it); direct reduce-scatter, all-gather and all-reduce on one port
//   with parts of different sizes;
//   hierarchical without an inter-host route or a host grid; any collective the algorithm lacks.
// Every one gives 0 for N <= 1.
// Exact on a contention-free fabric (one link per pair) for the unpipelined forms (ring
// all-reduce, reduce-scatter, all-gather and all-to-all, direct, halving-doubling, recursive
// doubling, ps); for the pipelined ones (tree, double-tree, ring broadcast/reduce) exact when the
// pipeline chunk divides S (each tree's half for double-tree), else an upper bound within one
// chunk time per hop; double-tree where its trees share a link, and nccl-tree, are estimates
// (see the .cpp).
// On one port, direct's forms are lower bounds. Hierarchical's form is step-synchronous, an upper
// bound (see the .cpp).

/// Ring: 2(N-1)(α + τ(P)) all-reduce, (N-1)(α + τ(P)) reduce-scatter and all-gather (Patarasuk &
/// Yuan 2009); a pipelined chain for broadcast and reduce; store-and-forward all-to-all.
std::optional<Time> ring_closed_form_time(const Request& request, const AlphaBeta& fabric);
/// Direct (one-shot): α + τ per step on a link per peer, α + (N-1)·τ on one port (a lower bound).
std::optional<Time> direct_closed_form_time(const Request& request, const AlphaBeta& fabric);
/// NCCL's binary tree: a pipeline of depth ceil(log2 N) (twice that for all-reduce).
std::optional<Time> tree_closed_form_time(const Request& request, const AlphaBeta& fabric);
/// NCCL's double binary tree all-reduce: the slower tree, or the busiest shared link.
std::optional<Time> double_tree_closed_form_time(const Request& request, const AlphaBeta& fabric);
/// NCCL's node-aware tree all-reduce (nccl-tree) on one host: the double tree's form on its two
/// chains, whose links both halves share (an estimate within 2(N-1)(α + τ(c))).
std::optional<Time> nccl_tree_closed_form_time(const Request& request, const AlphaBeta& fabric);
/// Halving-doubling (Thakur, Rabenseifner & Gropp 2005): log2 N·α + (N-1)·τ(P) per half.
std::optional<Time> halving_doubling_closed_form_time(const Request& request, const AlphaBeta& fabric);
std::optional<Time> pat_closed_form_time(const Request& request, const AlphaBeta& fabric);
/// Recursive doubling: log2 N·(α + τ(S)) all-reduce; as halving-doubling for all-gather.
std::optional<Time> recursive_doubling_closed_form_time(const Request& request, const AlphaBeta& fabric);
/// Parameter server with one colocated server: 2(α + τ(S)), one port 2(α + (N-1)·τ(S)).
std::optional<Time> ps_closed_form_time(const Request& request, const AlphaBeta& fabric);
/// Hierarchical all-reduce on K hosts of L ranks: a step-synchronous upper bound (see the .cpp).
std::optional<Time> hierarchical_closed_form_time(const Request& request, const AlphaBeta& fabric);

/// The form of the built-in entry (request.collective, `algorithm`: a name or alias), through its
/// AlgorithmInfo::closed_form_time; nullopt for a pair the built-in registry lacks. For callers that
/// hold only a name (tests); code holding the entry calls its pointer.
std::optional<Time> closed_form_time(std::string_view algorithm, const Request& request, const AlphaBeta& fabric);

}  // namespace collsim::algo
