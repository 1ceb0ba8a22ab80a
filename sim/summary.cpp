#include "sim/summary.hpp"

#include "sim/units/int128.hpp"

#include <algorithm>
#include <limits>

namespace collsim::sim {

Time bandwidth_lower_bound(sched::Collective collective, sched::Rank ranks, Bytes size, Bandwidth injection) {
  if (ranks <= 1 || injection.bits_per_s == 0) return Time{0};
  const sched::Ratio f = sched::bandwidth_factor(collective, ranks);
  const u128 num = static_cast<u128>(size) * f.num * 8u * 1'000'000'000'000u;
  const u128 den = static_cast<u128>(f.den) * injection.bits_per_s;
  const u128 ps = num / den;
  return Time{static_cast<std::int64_t>(std::min<u128>(ps, std::numeric_limits<std::int64_t>::max()))};
}

void set_time(Summary& s, Time t) {
  s.time = t;
  s.algbw_GBps.reset();
  s.busbw_GBps.reset();
  if (s.time > Time{0}) {
    // S bytes / t ps in GB/s: S / (t·1e-12) / 1e9 = S·1e3 / t.
    s.algbw_GBps = static_cast<double>(s.size) * 1e3 / static_cast<double>(s.time.count());
    const sched::Ratio f = sched::bandwidth_factor(s.collective, s.ranks);
    s.busbw_GBps = *s.algbw_GBps * static_cast<double>(f.num) / static_cast<double>(f.den);
  }
}

Summary summarize(const sched::Schedule& schedule, const topo::Topology& topology,
                  std::span<const topo::NodeId> rank_to_gpu, const Result& result, std::string network_name) {
  Summary s;
  s.collective = schedule.header.collective;
  s.algorithm = schedule.algorithm;
  s.topology = topology.name();
  s.network = std::move(network_name);
  s.ranks = schedule.header.nranks;
  if (sched::has_root(s.collective)) s.root = schedule.header.root;
  s.size = schedule.header.size;
  s.steps = schedule.steps;
  s.events = result.events;
  s.rank_images = result.rank_images;
  set_time(s, result.makespan);
  s.helpers = schedule.header.helpers;
  for (std::size_t r = 0; r < result.ranks.size() && r < s.ranks; ++r)
    s.bytes_sent_per_rank_max = std::max(s.bytes_sent_per_rank_max, result.ranks[r].sent);
  if (s.size > 0) s.traffic_factor = static_cast<double>(s.bytes_sent_per_rank_max) / static_cast<double>(s.size);

  s.injection_bandwidth = Bandwidth{std::numeric_limits<std::uint64_t>::max()};
  for (topo::NodeId gpu : rank_to_gpu.first(schedule.header.nranks))
    s.injection_bandwidth = std::min(s.injection_bandwidth, topology.out_bandwidth(gpu));
  // A server outside the GPUs (ps --ps-node) or a switch that reduces (NVLS) lets each GPU send
  // only S: the bound does not apply.
  if (schedule.header.helpers == 0)
    s.lower_bound = bandwidth_lower_bound(s.collective, s.ranks, s.size, s.injection_bandwidth);

  // Compare bytes_a / bw_a with bytes_b / bw_b exactly by cross-multiplying.
  for (topo::LinkId l = 0; l < result.links.size(); ++l) {
    if (result.links[l].bytes == 0) continue;
    if (!s.bottleneck_link) {
      s.bottleneck_link = l;
      continue;
    }
    const topo::LinkId b = *s.bottleneck_link;
    const u128 lhs = static_cast<u128>(result.links[l].bytes) * topology.link(b).bandwidth.bits_per_s;
    const u128 rhs = static_cast<u128>(result.links[b].bytes) * topology.link(l).bandwidth.bits_per_s;
    if (lhs > rhs) s.bottleneck_link = l;
  }

  std::vector<topo::LinkId> between_switches;
  Bytes total = 0;
  for (topo::LinkId l = 0; l < result.links.size(); ++l) {
    const auto& link = topology.link(l);
    if (topology.node(link.from).type != topo::NodeType::Switch || topology.node(link.to).type != topo::NodeType::Switch)
      continue;
    between_switches.push_back(l);
    total += result.links[l].bytes;
  }
  if (total > 0) {
    std::stable_sort(between_switches.begin(), between_switches.end(),
                     [&](topo::LinkId a, topo::LinkId b) { return result.links[a].bytes > result.links[b].bytes; });
    const double mean = static_cast<double>(total) / static_cast<double>(between_switches.size());
    s.switch_link_imbalance = static_cast<double>(result.links[between_switches.front()].bytes) / mean;
    for (std::size_t i = 0; i < between_switches.size() && i < 3 && result.links[between_switches[i]].bytes > 0; ++i)
      s.busiest_switch_links.push_back(between_switches[i]);
  }
  return s;
}

}  // namespace collsim::sim
