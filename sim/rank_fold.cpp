#include "sim/rank_fold.hpp"

#include <algorithm>
#include <numeric>
#include <set>
#include <tuple>
#include <unordered_set>

#include "topologies/routes.hpp"

namespace collsim::sim {

std::optional<RankFold> plan_rank_fold(const sched::OpStream& stream, const topo::Topology& topology,
                                       std::span<const topo::NodeId> rank_to_gpu) {
  const topo::Topology::Rotation* rotation = topology.rotation();
  const sched::Schedule& header = stream.header();
  const sched::Rank n = header.header.nranks, p = stream.rank_period();
  if (stream.dense() || rotation == nullptr || p == 0 || header.total_ranks() != n || rank_to_gpu.size() != n)
    return std::nullopt;
  const std::uint32_t s = rotation->gpu_shift;
  const std::uint64_t period = std::lcm(std::uint64_t{p}, std::uint64_t{s});
  if (period >= n || n % period != 0) return std::nullopt;
  // The rotation by s GPUs must move rank r's GPU to rank r + s's.
  for (sched::Rank r = 0; r < n; ++r)
    if (rotation->node[rank_to_gpu[r]] != rank_to_gpu[(r + s) % n]) return std::nullopt;

  RankFold fold;
  fold.period = static_cast<sched::Rank>(period);
  fold.images = static_cast<sched::Rank>(n / period);
  fold.units = static_cast<sched::Rank>(period / p);
  // The walk below holds every op of one period: past 2^20 of them (two hosts of 8192 GPUs: 2^28)
  // its memory would dwarf the run's own O(N + ops in flight), so such a run is not folded.
  if (stream.op_count() / fold.images > (std::uint64_t{1} << 20)) return std::nullopt;
  const std::uint32_t steps = fold.period / s;  // rotations by s GPUs per period
  const auto node_image = [&](topo::NodeId v) {
    for (std::uint32_t i = 0; i < steps; ++i) v = rotation->node[v];
    return v;
  };
  const auto link_image = [&](topo::LinkId l) {
    for (std::uint32_t i = 0; i < steps; ++i) l = rotation->link[l];
    return l;
  };

  // The transfers of one period: every op of ranks 0 .. P-1, reached from their roots through
  // successors moved into the period.
  std::set<std::tuple<sched::Rank, sched::Rank, std::uint16_t>> transfers;
  std::unordered_set<sched::OpKey> seen;
  std::vector<sched::OpKey> todo, next;
  stream.roots(next);
  for (const sched::OpKey k : next)
    if (stream.op(k).src < fold.period && seen.insert(k).second) todo.push_back(k);
  while (!todo.empty()) {
    const sched::OpKey k = todo.back();
    todo.pop_back();
    const sched::StreamOp op = stream.op(k);
    if (op.src != op.dst && !op.join) transfers.emplace(op.src, op.dst, op.channel);
    next.clear();
    stream.successors(k, next);
    for (const sched::OpKey succ : next) {
      const sched::OpKey rep = fold.representative(stream, succ, stream.op(succ).src);
      if (seen.insert(rep).second) todo.push_back(rep);
    }
  }

  // Each route, rotated, must be the route between the rotated GPUs.
  topo::RouteCache routes(topology);
  std::vector<topo::LinkId> period_links;
  for (const auto& [src, dst, channel] : transfers) {
    const std::vector<topo::LinkId> links = routes.get(rank_to_gpu[src], rank_to_gpu[dst], channel).links;
    period_links.insert(period_links.end(), links.begin(), links.end());
    std::vector<topo::LinkId> image = links;
    topo::NodeId a = rank_to_gpu[src], b = rank_to_gpu[dst];
    for (sched::Rank i = 1; i < fold.images; ++i) {
      a = node_image(a);
      b = node_image(b);
      for (topo::LinkId& l : image) l = link_image(l);
      if (routes.get(a, b, channel).links != image) return std::nullopt;
    }
  }

  // Orbits of links under the rotation by P ranks. One of length N / P holds the images of one
  // link; any other (a link that the rotation keeps, or brings back early) is marked none, and no
  // route of the period may use it.
  const auto count = topology.links().size();
  fold.link_orbit.assign(count, RankFold::kNoOrbit);
  std::vector<bool> done(count);
  std::vector<topo::LinkId> cycle;
  for (topo::LinkId l = 0; l < count; ++l) {
    if (done[l]) continue;
    cycle.clear();
    topo::LinkId x = l;
    do {
      cycle.push_back(x);
      x = link_image(x);
    } while (x != l && cycle.size() <= fold.images);
    const bool whole = x == l && cycle.size() == fold.images;
    for (const topo::LinkId y : cycle) {
      done[y] = true;
      if (whole) fold.link_orbit[y] = l;
    }
  }
  // Distinct links of the period in one orbit would be a link that a flow of the period shares
  // with an image of another. A half-duplex link's two directions are one capacity, which the
  // link orbits do not follow: no fold over one (generated fabrics are full duplex).
  std::sort(period_links.begin(), period_links.end());
  period_links.erase(std::unique(period_links.begin(), period_links.end()), period_links.end());
  std::unordered_set<topo::LinkId> orbits;
  for (const topo::LinkId l : period_links)
    if (fold.link_orbit[l] == RankFold::kNoOrbit || topology.link(l).duplex != topo::Duplex::Full ||
        !orbits.insert(fold.link_orbit[l]).second)
      return std::nullopt;
  return fold;
}

}  // namespace collsim::sim
