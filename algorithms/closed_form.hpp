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

/// The closed-form time of `algorithm` (a registry name) for `request` on `fabric`, or nullopt
/// when there is none: ps with several shards or an external server; halving-doubling and
/// recursive doubling for N not a power of two or parts of different sizes; tree and double-tree
/// on one port (a parent's children share it); direct reduce-scatter, all-gather and all-reduce
/// on one port with parts of different sizes; hierarchical without an inter-host route or a host
/// grid; any other algorithm when the ranks span hosts.
/// Exact on a contention-free fabric (one link per pair) for the unpipelined forms (ring
/// all-reduce, reduce-scatter, all-gather and all-to-all, direct, halving-doubling, recursive
/// doubling, ps); for the pipelined ones (tree, double-tree, ring broadcast/reduce) exact when the
/// pipeline chunk divides S (each tree's half for double-tree), else an upper bound within one
/// chunk time per hop; double-tree where its trees share a link is an estimate (see the .cpp).
/// On one port, direct's forms are lower bounds. Hierarchical's form is step-synchronous, an upper
/// bound (see the .cpp).
std::optional<Time> closed_form_time(std::string_view algorithm, const Request& request, const AlphaBeta& fabric);

}  // namespace collsim::algo
