#include "algorithms/channels.hpp"

#include <algorithm>
#include <span>
#include <stdexcept>

#include <fmt/format.h>

#include "sim/schedule/header_of.hpp"

namespace collsim::algo {

namespace {

// L when the ranks sit on two or more hosts in consecutive blocks of L ranks each and the
// collective has no root (all-reduce, all-gather, reduce-scatter), else 0: then channel c rotates
// every host's block by c.
// Why: NCCL's search finds as many concurrent flows as it can, each entering a node from a NIC,
// going through every GPU over NVLink and leaving through another GPU's NIC, so an all-reduce's
// rings use all the NICs (NCCL maintainers in NVIDIA/nccl#412 and NVIDIA/nccl-tests#277). Without
// the rotation every channel would cross between nodes through the same two NICs.
std::uint32_t equal_host_blocks(const Request& request) {
  const auto& hosts = request.hosts;
  const bool rootless = request.collective == sched::Collective::AllReduce ||
                        request.collective == sched::Collective::AllGather ||
                        request.collective == sched::Collective::ReduceScatter;
  if (!rootless || hosts.size() != request.nranks || hosts.empty() ||
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
  return collective != sched::Collective::AllToAll;
}

namespace {

// True when the collective means the same with the ranks in reverse order: all but sendrecv, whose
// rank r sends to r+1 (reversed, it would send to r-1).
bool reversible(sched::Collective collective) { return collective != sched::Collective::SendRecv; }

// True for the collectives whose buffer is N per-rank parts (split_even), which a channel split
// cuts piece by piece; the others' chunks are plain byte ranges of one buffer.
bool per_rank_parts(sched::Collective c) {
  return c == sched::Collective::AllGather || c == sched::Collective::ReduceScatter;
}

// How one channel runs: the size it is built for, where its bytes sit in the whole buffer, and how
// its ranks are placed.
struct ChannelRun {
  std::uint16_t channel;
  Bytes size;    // the S the algorithm is built for
  Bytes offset;  // plain byte ranges: where the channel's share begins
  // Per-rank parts: where the channel's piece of each part p begins in the whole buffer.
  std::vector<Bytes> part_base;
  bool reverse;       // ranks in reverse order, r -> (2·root - r) mod N
  sched::Rank shift;  // every host's block rotated by it (0: none)
  // Channels with one key run the same ops between the same ranks (FoldedChannels).
  [[nodiscard]] bool same_run(const ChannelRun& o) const {
    return size == o.size && reverse == o.reverse && shift == o.shift;
  }
};

// The sizes of the channels of a per-rank-parts collective: channel c's own parts,
// split_even(S_c, N), are the c-th pieces of the whole's parts, split_even(S, N). With S = (N·m + r)
// units and m = C·a + b, channel c takes a + [c < b] units of every part and channel 0 also the one
// extra unit of each of the first r parts: its parts keep split_even's order (larger first), and
// the other channels' parts are all alike, so their ranks may be placed in any order.
std::vector<Bytes> part_channel_sizes(const Request& request, std::uint32_t channels) {
  const Bytes unit = sched::cut_unit(request.size, request.element_size);
  const Bytes units = request.size / unit, n = request.nranks;
  const Bytes m = units / n, r = units % n, a = m / channels, b = m % channels;
  std::vector<Bytes> sizes(channels);
  for (std::uint32_t c = 0; c < channels; ++c) sizes[c] = (n * (a + (c < b ? 1 : 0)) + (c == 0 ? r : 0)) * unit;
  return sizes;
}

// The channels that run (build_with_channels' doc), in channel order.
std::vector<ChannelRun> channel_runs(const Request& request, std::uint32_t channels) {
  if (channels == 0) throw std::invalid_argument("channels: expected at least 1");
  if (channels > 1 && !splits_over_channels(request.collective))
    throw AlgorithmError(fmt::format("{} channels: {} cuts every rank's block for every peer; expected 1 channel "
                                     "(channels split every collective but alltoall)",
                                     channels, sched::collective_name(request.collective)));
  const bool one_host =
      std::all_of(request.hosts.begin(), request.hosts.end(), [](std::uint32_t h) { return h == 0; });
  const std::uint32_t per_host = equal_host_blocks(request);
  const auto place = [&](std::uint16_t c, Bytes size, Bytes offset, std::vector<Bytes> base) {
    return ChannelRun{c, size, offset, std::move(base), c % 2 == 1 && one_host && reversible(request.collective),
                      per_host > 1 ? c % per_host : 0};
  };
  std::vector<ChannelRun> runs;
  if (per_rank_parts(request.collective) && request.size > 0) {
    const Bytes unit = sched::cut_unit(request.size, request.element_size);
    const auto whole = sched::split_even(request.size, request.nranks, request.element_size);
    std::vector<Bytes> filled(whole.size(), 0);
    const auto sizes = part_channel_sizes(request, channels);
    for (std::uint16_t c = 0; c < sizes.size(); ++c) {
      if (sizes[c] == 0) continue;  // more channels than units per part
      const auto own = sched::split_even(sizes[c], request.nranks, unit);
      std::vector<Bytes> base(whole.size());
      for (std::size_t p = 0; p < whole.size(); ++p) {
        base[p] = whole[p].offset + filled[p];
        filled[p] += own[p].size;
      }
      runs.push_back(place(c, sizes[c], 0, std::move(base)));
    }
    for (std::size_t p = 0; p < whole.size(); ++p)
      if (filled[p] != whole[p].size) throw std::logic_error("channels: the channels' pieces do not fill a part");
    return runs;
  }
  // With nothing to share (S = 0) one channel runs. Shares are whole elements, as each channel's
  // own parts are (NCCL splits counts of elements over channels).
  const auto shares = sched::split_even(request.size, request.size == 0 ? 1 : channels, request.element_size);
  for (std::uint16_t c = 0; c < shares.size(); ++c) {
    if (shares[c].size == 0 && request.size > 0) continue;  // more channels than bytes
    runs.push_back(place(c, shares[c].size, shares[c].offset, {}));
  }
  return runs;
}

// Puts the chunk table in buffer and offset order (data chunks must tile the buffer in order,
// sched::CollectiveSpec) and renumbers the ops' chunks to match.
void sort_chunks(sched::Schedule& s) {
  std::vector<sched::ChunkId> order(s.chunks.size());
  for (sched::ChunkId i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](sched::ChunkId x, sched::ChunkId y) {
    const auto& a = s.chunks[x];
    const auto& b = s.chunks[y];
    return a.buffer != b.buffer ? a.buffer < b.buffer : a.offset < b.offset;
  });
  std::vector<sched::ChunkId> new_id(order.size());
  std::vector<sched::Chunk> chunks(order.size());
  for (sched::ChunkId k = 0; k < order.size(); ++k) {
    new_id[order[k]] = k;
    chunks[k] = s.chunks[order[k]];
  }
  s.chunks = std::move(chunks);
  for (auto& op : s.ops) {
    op.src_chunk = new_id[op.src_chunk];
    op.dst_chunk = new_id[op.dst_chunk];
  }
}

// The schedule of `runs` (build_with_channels' doc for what each does).
sched::Schedule build_runs(const AlgorithmInfo& algorithm, const Request& request, std::span<const ChannelRun> runs) {
  const sched::Rank n = request.nranks;
  const std::uint32_t per_host = equal_host_blocks(request);
  // S = 0 runs one channel of plain ranges (nothing to place).
  const bool parts = per_rank_parts(request.collective) && request.size > 0;
  sched::Schedule out;
  bool first = true;
  Bytes scratch_base = 0;  // per-rank parts: each channel's scratch after the channels' before it
  for (const ChannelRun& run : runs) {
    Request part = request;
    part.size = run.size;
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
    if (parts) {
      // Part p of the channel's own buffer is its piece of part map(p) of the whole: the ranks
      // are placed by map, and so is the data each owns.
      const auto own = sched::split_even(run.size, n, part.element_size);
      Bytes scratch_end = 0;
      for (sched::Chunk ch : s.chunks) {
        if (ch.buffer == sched::Buffer::Data) {
          const sched::Rank p = ch.part;
          ch.part = map(p);
          ch.offset = run.part_base[ch.part] + (ch.offset - own[p].offset);
        } else {
          scratch_end = std::max(scratch_end, ch.offset + ch.size);
          ch.offset += scratch_base;
        }
        out.chunks.push_back(ch);
      }
      scratch_base += scratch_end;
    } else {
      for (sched::Chunk ch : s.chunks) {
        ch.offset += run.offset;
        out.chunks.push_back(ch);
      }
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
  if (parts) sort_chunks(out);
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
