// Rank symmetry (issue 18, item 4: identical flows simulated once, with a multiplicity): when moving
// every rank on by P maps the schedule, the topology, the rank placement and the routes onto
// themselves, and the routes of ranks 0 .. P-1 share no link or capacity with their own images, a
// run of N ranks is N/P identical, independent copies of one period of ranks. The engine then
// simulates ranks 0 .. P-1 only: an op of any other rank is the same op of its image in 0 .. P-1,
// which ends at the same time. Every time is the unfolded run's (tests/unit/rank_fold_test.cpp
// compares makespan, every rank's traffic and every link's bytes and busy time).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "sim/schedule/op_stream.hpp"
#include "topologies/topology.hpp"

namespace collsim::sim {

/// How a run folds its ranks: ranks 0 .. period-1 are simulated and stand for `images` copies.
struct RankFold {
  sched::Rank period = 0;   ///< P, a multiple of the stream's rank_period() and of the rotation's GPU shift
  sched::Rank images = 1;   ///< N / P (> 1)
  sched::Rank units = 1;    ///< P / stream.rank_period(): OpStream::shift() steps per period
  static constexpr topo::LinkId kNoOrbit = 0xFFFFFFFFu;
  /// By directed link: the first link (lowest id) of its orbit under the P-rank rotation; the links
  /// of one orbit carry the same bytes and busy time. kNoOrbit for a link whose orbit is not N / P
  /// links long, which no route of the run crosses.
  std::vector<topo::LinkId> link_orbit;
  /// The key of the op of ranks 0 .. P-1 that stands for op `key`, whose sender is `src`.
  [[nodiscard]] sched::OpKey representative(const sched::OpStream& stream, sched::OpKey key, sched::Rank src) const {
    const sched::Rank t = src / period;
    return t == 0 ? key : stream.shift(key, (images - t) * units);
  }
};

/// The fold of a run of `stream` with rank r on rank_to_gpu[r], or nullopt when one of its
/// conditions fails (then the run is simulated whole, as before): the stream is generated on demand
/// (not dense) with a rank period p; `topology` has a rotation (Topology::rotation) by s GPUs that
/// moves rank r's GPU to rank r + s's; P = lcm(p, s) divides N with N / P > 1; and every route the
/// ranks 0 .. P-1 send on, found by walking their ops, is carried by each rotation to the route
/// between the rotated GPUs (same links, same channel), and crosses no capacity that a rotation of
/// any of them crosses too; and one period holds at most 2^20 ops (the walk's memory). Cost: the walk over one period's ops, N / s route lookups per route of
/// the period and O(links) for the orbits.
std::optional<RankFold> plan_rank_fold(const sched::OpStream& stream, const topo::Topology& topology,
                                       std::span<const topo::NodeId> rank_to_gpu);

}  // namespace collsim::sim
