#include "algorithms/channels.hpp"

#include <algorithm>
#include <span>
#include <stdexcept>

#include <fmt/format.h>

#include "sim/schedule/header_of.hpp"

namespace collsim::algo {

namespace {

// L when the ranks sit on two or more hosts in consecutive blocks of L ranks each and the
// collective has no root (all-reduce), else 0: then channel c rotates every host's block by c.
// Why: NCCL's search finds as many concurrent flows as it can, each entering a node from a NIC,
// going through every GPU over NVLink and leaving through another GPU's NIC, so an all-reduce's
// rings use all the NICs (NCCL maintainers in NVIDIA/nccl#412 and NVIDIA/nccl-tests#277). Without
// the rotation every channel would cross between nodes through the same two NICs.
std::uint32_t equal_host_blocks(const Request& request) {
  const auto& hosts = request.hosts;
  if (request.collective != sched::Collective::AllReduce || hosts.size() != request.nranks || hosts.empty() ||
      hosts.back() == 0)
    return 0;
  std::uint32_t per_host = 0;
  while (per_host < hosts.size() && hosts[per_host] == 0) ++per_host;
  if (hosts.size() % per_host != 0) return 0;
  for (std::size_t r = 0; r < hosts.size(); ++r)
    if (hosts[r] != r / per_host) return 0;
  return per_host;
}

}  // namespace

bool splits_over_channels(sched::Collective collective) noexcept {
  return collective == sched::Collective::AllReduce || collective == sched::Collective::Broadcast ||
         collective == sched::Collective::Reduce;
}

namespace {

// How one channel runs: its share of the buffer and how its ranks are placed.
struct ChannelRun {
  std::uint16_t channel;
  sched::Chunk share;
  bool reverse;       // ranks in reverse order, r -> (2·root - r) mod N
  sched::Rank shift;  // every host's block rotated by it (0: none)
  // Channels with one key run the same ops between the same ranks (FoldedChannels).
  [[nodiscard]] bool same_run(const ChannelRun& o) const {
    return share.size == o.share.size && reverse == o.reverse && shift == o.shift;
  }
};

// The channels that run (build_with_channels' doc), in channel order.
std::vector<ChannelRun> channel_runs(const Request& request, std::uint32_t channels) {
  if (channels == 0) throw std::invalid_argument("channels: expected at least 1");
  if (channels > 1 && !splits_over_channels(request.collective))
    throw AlgorithmError(fmt::format("{} channels: {} cuts its buffer into per-rank parts; expected 1 channel "
                                     "(channels split allreduce, broadcast and reduce)",
                                     channels, sched::collective_name(request.collective)));
  const bool one_host =
      std::all_of(request.hosts.begin(), request.hosts.end(), [](std::uint32_t h) { return h == 0; });
  const std::uint32_t per_host = equal_host_blocks(request);
  // With nothing to share (S = 0) one channel runs. Shares are whole elements, as each channel's
  // own parts are (NCCL splits counts of elements over channels).
  const auto shares = sched::split_even(request.size, request.size == 0 ? 1 : channels, request.element_size);
  std::vector<ChannelRun> runs;
  for (std::uint16_t c = 0; c < shares.size(); ++c) {
    if (shares[c].size == 0 && request.size > 0) continue;  // more channels than bytes
    runs.push_back(ChannelRun{c, shares[c], c % 2 == 1 && one_host, per_host > 1 ? c % per_host : 0});
  }
  return runs;
}

// The schedule of `runs` (build_with_channels' doc for what each does).
sched::Schedule build_runs(const AlgorithmInfo& algorithm, const Request& request, std::span<const ChannelRun> runs) {
  const sched::Rank n = request.nranks;
  const std::uint32_t per_host = equal_host_blocks(request);
  sched::Schedule out;
  bool first = true;
  for (const ChannelRun& run : runs) {
    Request part = request;
    part.size = run.share.size;
    // A share of an S counted in bytes stays in bytes, even when it is a whole number of elements.
    part.element_size = sched::cut_unit(request.size, request.element_size);
    sched::Schedule s = algorithm.build(part);
    const auto map = [&](sched::Rank r) -> sched::Rank {
      if (r >= n) return r;  // helpers keep their place
      if (run.shift > 0) return r - r % per_host + (r % per_host + run.shift) % per_host;
      if (!run.reverse) return r;
      return static_cast<sched::Rank>((2 * std::uint64_t{request.root} + n - r) % n);
    };
    if (first) {
      out = sched::header_of(s);
      out.header.size = request.size;
      first = false;
    }
    const auto chunk_base = static_cast<sched::ChunkId>(out.chunks.size());
    const auto op_base = static_cast<sched::OpId>(out.ops.size());
    for (sched::Chunk ch : s.chunks) {
      ch.offset += run.share.offset;
      out.chunks.push_back(ch);
    }
    for (sched::OpId i = 0; i < s.ops.size(); ++i) {
      sched::Op op = s.ops[i];
      op.src = map(op.src);
      op.dst = map(op.dst);
      op.src_chunk += chunk_base;
      op.dst_chunk += chunk_base;
      op.channel = run.channel;
      out.ops.push_back(op);
      for (sched::OpId d : s.deps_of(i)) out.deps.push_back(d + op_base);
      out.dep_offsets.push_back(static_cast<std::uint32_t>(out.deps.size()));
    }
    out.steps = std::max(out.steps, s.steps);
  }
  return out;
}

}  // namespace

sched::Schedule build_with_channels(const AlgorithmInfo& algorithm, const Request& request, std::uint32_t channels) {
  if (channels == 1) return algorithm.build(request);
  return build_runs(algorithm, request, channel_runs(request, channels));
}

FoldedChannels build_folded_channels(const AlgorithmInfo& algorithm, const Request& request, std::uint32_t channels) {
  FoldedChannels out;
  if (channels == 1) {
    out.schedule = algorithm.build(request);
    out.copies = {1};
    return out;
  }
  const std::vector<ChannelRun> runs = channel_runs(request, channels);
  // A handful of classes (share sizes x directions x rotations): a linear search per channel.
  std::vector<ChannelRun> leaders;
  out.copies.assign(channels, 0);
  for (const ChannelRun& run : runs) {
    const auto it = std::find_if(leaders.begin(), leaders.end(), [&](const ChannelRun& l) { return l.same_run(run); });
    const std::uint16_t leader = it == leaders.end() ? run.channel : it->channel;
    if (it == leaders.end()) leaders.push_back(run);
    ++out.copies[leader];
  }
  out.schedule = build_runs(algorithm, request, leaders);
  return out;
}

}  // namespace collsim::algo
