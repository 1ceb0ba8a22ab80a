#include "sim/rank_fold.hpp"

#include <algorithm>
#include <numeric>
#include <set>
#include <tuple>
#include <unordered_set>

#include "sim/op_costs.hpp"
#include "topologies/routes.hpp"

namespace collsim::sim {

namespace {

using Transfer = std::tuple<sched::Rank, sched::Rank, std::uint16_t>;  // src, dst, channel

/// The transfers (src != dst, no join) of every op of ranks 0 .. fold.period-1, reached from the
/// roots through successors moved into the period (RankFold::representative); nullopt when one
/// period holds more than 2^20 ops: the walk keeps each, and past that (two hosts of 8192 GPUs:
/// 2^28) its memory would dwarf the run's own O(N + ops in flight).
std::optional<std::vector<Transfer>> period_transfers(const sched::OpStream& stream, const RankFold& fold) {
  if (stream.op_count() / fold.images > (std::uint64_t{1} << 20)) return std::nullopt;
  std::set<Transfer> transfers;
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
  return std::vector<Transfer>(transfers.begin(), transfers.end());
}

/// The fold by the topology's recorded rotation (plan_rank_fold, first way).
std::optional<RankFold> fold_by_rotation(const sched::OpStream& stream, const topo::Topology& topology,
                                         std::span<const topo::NodeId> rank_to_gpu, topo::PathTable* paths) {
  const topo::Topology::Rotation* rotation = topology.rotation();
  const sched::Rank n = stream.header().header.nranks, p = stream.rank_period();
  if (rotation == nullptr) return std::nullopt;
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
  const auto transfers = period_transfers(stream, fold);
  if (!transfers) return std::nullopt;
  const std::uint32_t steps = fold.period / s;  // rotations by s GPUs per period
  const auto node_image = [&](topo::NodeId v) {
    for (std::uint32_t i = 0; i < steps; ++i) v = rotation->node[v];
    return v;
  };
  const auto link_image = [&](topo::LinkId l) {
    for (std::uint32_t i = 0; i < steps; ++i) l = rotation->link[l];
    return l;
  };

  // Each route, rotated, must be the route between the rotated GPUs.
  topo::RouteCache routes(topology, paths);
  std::vector<topo::LinkId> period_links;
  for (const auto& [src, dst, channel] : *transfers) {
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

/// Whether a flow sees links `a` and `b` alike: type (the route's class for NCCL's latencies),
/// rate, latency, and each a capacity of its own (full duplex).
bool alike(const topo::Link& a, const topo::Link& b) {
  return a.type == b.type && a.bandwidth == b.bandwidth && a.latency == b.latency && a.duplex == topo::Duplex::Full &&
         b.duplex == topo::Duplex::Full;
}

/// The fold found from the routes themselves (plan_rank_fold, second way).
std::optional<RankFold> fold_by_routes(const sched::OpStream& stream, const topo::Topology& topology,
                                       std::span<const topo::NodeId> rank_to_gpu, topo::PathTable* paths) {
  const sched::Rank n = stream.header().header.nranks, p = stream.rank_period();
  if (n % p != 0 || n / p < 2) return std::nullopt;
  const sched::Rank shifts = n / p;  // moves of every rank by p that the stream maps onto itself
  RankFold one;
  one.period = p;
  one.images = shifts;
  one.units = 1;
  const auto transfers = period_transfers(stream, one);
  if (!transfers || transfers->empty()) return std::nullopt;
  // Every route of the run: transfer b of ranks 0 .. p-1 moved on by j periods (mod N), at
  // j x B + b. Each is found once (RouteCache); past 2^20 of them (all-to-all: N^2) their memory
  // would be the run's, so such a run is not folded.
  const std::size_t per_shift = transfers->size();
  if (per_shift * shifts > (std::size_t{1} << 20)) return std::nullopt;
  topo::RouteCache cache(topology, paths);
  std::vector<const topo::Route*> route(per_shift * shifts);
  for (sched::Rank j = 0; j < shifts; ++j)
    for (std::size_t b = 0; b < per_shift; ++b) {
      const auto& [src, dst, channel] = (*transfers)[b];
      route[j * per_shift + b] = &cache.get(rank_to_gpu[(src + std::uint64_t{j} * p) % n],
                                            rank_to_gpu[(dst + std::uint64_t{j} * p) % n], channel);
    }
  // What a rank's own ops cost (OpCostModel): its GPU's reduce bandwidth.
  std::vector<std::optional<Bandwidth>> reduce(n);
  for (sched::Rank r = 0; r < n; ++r) reduce[r] = reduce_bandwidth(topology, rank_to_gpu[r]);

  // P = u x p for u = 1, 2, ... dividing N / p: the first P whose images are the period's run
  // again, on links of their own.
  constexpr std::uint32_t kNone = 0xFFFFFFFFu;
  struct Owner {
    std::uint32_t image = kNone;  // the one image whose routes cross the link
    topo::LinkId rep = 0;         // the link of the period it stands in for
  };
  std::vector<Owner> owner;
  for (sched::Rank units = 1; units <= shifts / 2; ++units) {
    if (shifts % units != 0) continue;
    const sched::Rank period = units * p;
    bool ok = true;
    for (sched::Rank r = period; r < n && ok; ++r) ok = reduce[r] == reduce[r % period];
    owner.assign(topology.links().size(), Owner{});
    for (sched::Rank j = 0; j < shifts && ok; ++j) {
      const std::uint32_t image = j / units;
      for (std::size_t b = 0; b < per_shift && ok; ++b) {
        const topo::Route& a = *route[(j % units) * per_shift + b];
        const topo::Route& c = *route[j * per_shift + b];
        ok = a.links.size() == c.links.size() && a.link_share == c.link_share;
        for (std::size_t k = 0; k < a.links.size() && ok; ++k) {
          const topo::LinkId l0 = a.links[k], l1 = c.links[k];
          Owner& o = owner[l1];
          if (o.image == kNone) o = Owner{image, l0};
          ok = o.image == image && o.rep == l0 && alike(topology.link(l0), topology.link(l1));
        }
      }
    }
    if (!ok) continue;
    RankFold fold;
    fold.period = period;
    fold.images = shifts / units;
    fold.units = units;
    fold.link_orbit.assign(owner.size(), RankFold::kNoOrbit);
    for (topo::LinkId l = 0; l < owner.size(); ++l)
      if (owner[l].image != kNone) fold.link_orbit[l] = owner[l].rep;
    return fold;
  }
  return std::nullopt;
}

}  // namespace

std::optional<RankFold> plan_rank_fold(const sched::OpStream& stream, const topo::Topology& topology,
                                       std::span<const topo::NodeId> rank_to_gpu, topo::PathTable* paths) {
  const sched::Schedule& header = stream.header();
  const sched::Rank n = header.header.nranks, p = stream.rank_period();
  if (stream.dense() || p == 0 || header.total_ranks() != n || rank_to_gpu.size() != n) return std::nullopt;
  if (auto fold = fold_by_rotation(stream, topology, rank_to_gpu, paths)) return fold;
  return fold_by_routes(stream, topology, rank_to_gpu, paths);
}

}  // namespace collsim::sim
