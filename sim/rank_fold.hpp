// Rank symmetry (issue 18, item 4: identical flows simulated once, with a multiplicity): when moving
// every rank on by P maps the schedule onto itself, each image's routes are the period's moved onto
// links of their own (alike, one to one: by a rotation of the topology, or found route by route on
// a cluster whose ECMP routes differ from host to host), and no image shares a link or capacity with
// another, a run of N ranks is N/P identical, independent copies of one period of ranks. The engine
// then simulates ranks 0 .. P-1 only: an op of any other rank is the same op of its image in
// 0 .. P-1, which ends at the same time. Every time is the unfolded run's
// (tests/unit/rank_fold_test.cpp compares makespan, every rank's traffic and every link's bytes and
// busy time).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "sim/schedule/op_stream.hpp"
#include "topologies/routes.hpp"
#include "topologies/topology.hpp"

namespace collsim::sim {

/// How a run folds its ranks: ranks 0 .. period-1 are simulated and stand for `images` copies.
struct RankFold {
  sched::Rank period = 0;   ///< P, a multiple of the stream's rank_period() and of the rotation's GPU shift
  sched::Rank images = 1;   ///< N / P (> 1)
  sched::Rank units = 1;    ///< P / stream.rank_period(): OpStream::shift() steps per period
  static constexpr topo::LinkId kNoOrbit = 0xFFFFFFFFu;
  /// By directed link: the link that stands for it, one of its orbit (the lowest id under the
  /// P-rank rotation; the period's own link when found from the routes); the links of one orbit
  /// carry the same bytes and busy time. kNoOrbit for a link outside every orbit of N / P links,
  /// which no route of the run crosses.
  std::vector<topo::LinkId> link_orbit;
  /// The key of the op of ranks 0 .. P-1 that stands for op `key`, whose sender is `src`.
  [[nodiscard]] sched::OpKey representative(const sched::OpStream& stream, sched::OpKey key, sched::Rank src) const {
    const sched::Rank t = src / period;
    return t == 0 ? key : stream.shift(key, (images - t) * units);
  }
};

/// The fold of a run of `stream` with rank r on rank_to_gpu[r], or nullopt when no period P folds
/// it (then the run is simulated whole, as before). Always: the stream is generated on demand (not
/// dense) with a rank period p (OpStream::rank_period), and one period holds at most 2^20 ops (the
/// walk over its ops keeps them). Then, first, by the topology's rotation (Topology::rotation) by
/// s GPUs, where it moves rank r's GPU to rank r + s's: P = lcm(p, s) divides N with N / P > 1, and
/// every route of ranks 0 .. P-1 is carried by each rotation to the route between the rotated GPUs
/// (same links, same channel) and crosses no capacity that a rotation of one of them crosses too.
/// Cost: the walk, N / s route lookups per route of the period and O(links) for the orbits.
/// Otherwise (a cluster with no rotation, whose ECMP routes differ from host to host), from the
/// routes themselves: for the smallest P = u x p (N / P > 1) such that, for every transfer of
/// ranks 0 .. P-1 and each image i, the transfer moved on by i x P ranks takes a route of as many
/// links, each alike (type, rate, latency, full duplex, share of a sprayed flow) to the period's
/// link at its place, with the period's links mapped one to one and no link crossed by two
/// images; and every rank's GPU reduces at its period rank's rate (OpCostModel). Cost: the route
/// of every transfer of the run, N / p x (transfers of p ranks), at most 2^20 of them, and
/// O(N x route length) per P tried. With `paths` (topo::PathTable of this topology or a copy at
/// other bandwidths), routes are found once for every run that shares it (compare's rows).
std::optional<RankFold> plan_rank_fold(const sched::OpStream& stream, const topo::Topology& topology,
                                       std::span<const topo::NodeId> rank_to_gpu, topo::PathTable* paths = nullptr);

}  // namespace collsim::sim
