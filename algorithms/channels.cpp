#include "algorithms/channels.hpp"

#include <algorithm>
#include <numeric>
#include <span>
#include <stdexcept>

#include <fmt/format.h>

#include "sim/schedule/header_of.hpp"
#include "sim/schedule/sliced_stream.hpp"

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

// Where rank r of `run`'s own schedule runs (build_with_channels' doc): helpers keep their place.
sched::Rank place_rank(const Request& request, const ChannelRun& run, std::uint32_t per_host, sched::Rank r) {
  const sched::Rank n = request.nranks;
  if (r >= n) return r;
  if (run.shift > 0) return r - r % per_host + (r % per_host + run.shift) % per_host;
  if (!run.reverse) return r;
  return static_cast<sched::Rank>((2 * std::uint64_t{request.root} + n - r) % n);
}

// The request channel `run` builds: its share, in the whole's unit.
Request part_request(const Request& request, const ChannelRun& run) {
  Request part = request;
  part.size = run.size;
  // A share of an S counted in bytes stays in bytes, even when it is a whole number of elements.
  part.element_size = sched::cut_unit(request.size, request.element_size);
  return part;
}

// The schedule of `runs` (build_with_channels' doc for what each does), each run's own schedule
// from `make(part request)`: built with its ops, or a stream's header without them (then the
// result is the header of the channels' stream).
template <typename Make>
sched::Schedule build_runs(const Request& request, std::span<const ChannelRun> runs, Make make) {
  const sched::Rank n = request.nranks;
  const std::uint32_t per_host = equal_host_blocks(request);
  // S = 0 runs one channel of plain ranges (nothing to place).
  const bool parts = per_rank_parts(request.collective) && request.size > 0;
  sched::Schedule out;
  bool first = true;
  Bytes scratch_base = 0;  // per-rank parts: each channel's scratch after the channels' before it
  for (const ChannelRun& run : runs) {
    const Request part = part_request(request, run);
    sched::Schedule s = make(part);
    const auto map = [&](sched::Rank r) { return place_rank(request, run, per_host, r); };
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

// The first run of each class of identical runs (ChannelRun::same_run), in channel order, and in
// `copies` (by channel, `channels` entries) the size of the class each leads, 0 for the others. A
// handful of classes (share sizes x directions x rotations): a linear search per channel.
std::vector<ChannelRun> fold_runs(std::vector<ChannelRun> runs, std::uint32_t channels,
                                  std::vector<std::uint32_t>& copies) {
  std::vector<ChannelRun> leaders;
  copies.assign(channels, 0);
  for (ChannelRun& run : runs) {
    const auto it = std::find_if(leaders.begin(), leaders.end(), [&](const ChannelRun& l) { return l.same_run(run); });
    const std::uint16_t leader = it == leaders.end() ? run.channel : it->channel;
    if (it == leaders.end()) leaders.push_back(std::move(run));
    ++copies[leader];
  }
  return leaders;
}

}  // namespace

sched::Schedule build_with_channels(const AlgorithmInfo& algorithm, const Request& request, std::uint32_t channels) {
  if (channels == 1) return algorithm.build(request);
  return build_runs(request, channel_runs(request, channels), algorithm.build);
}

FoldedChannels build_folded_channels(const AlgorithmInfo& algorithm, const Request& request, std::uint32_t channels) {
  FoldedChannels out;
  if (channels == 1) {
    out.schedule = algorithm.build(request);
    out.copies = {1};
    return out;
  }
  const std::vector<ChannelRun> leaders = fold_runs(channel_runs(request, channels), channels, out.copies);
  out.schedule = build_runs(request, leaders, algorithm.build);
  return out;
}

namespace {

// The channels of build_runs generated on demand: each run's own stream, its ranks placed as
// build_runs places them and its ops on its channel. A key is the run's index (bits 58..63) over
// its own stream's key (sched::kChannelKeyBits).
class ChannelsStream final : public sched::OpStream {
 public:
  struct Lane {
    std::unique_ptr<sched::OpStream> stream;
    ChannelRun run;
  };
  ChannelsStream(const Request& request, sched::Schedule header, std::vector<Lane> lanes)
      : request_(request), per_host_(equal_host_blocks(request)), header_(std::move(header)), lanes_(std::move(lanes)) {
    for (const Lane& l : lanes_) ops_ += l.stream->op_count();
    find_period();
  }
  [[nodiscard]] const sched::Schedule& header() const override { return header_; }
  [[nodiscard]] std::uint64_t op_count() const override { return ops_; }
  void roots(std::vector<sched::OpKey>& out) const override {
    for (std::size_t i = 0; i < lanes_.size(); ++i) {
      const std::size_t first = out.size();
      lanes_[i].stream->roots(out);
      for (std::size_t k = first; k < out.size(); ++k) out[k] = outer(i, out[k]);
    }
  }
  [[nodiscard]] sched::StreamOp op(sched::OpKey key) const override {
    const Lane& lane = lanes_[key >> sched::kChannelKeyBits];
    sched::StreamOp op = lane.stream->op(key & kInner);
    op.src = place_rank(request_, lane.run, per_host_, op.src);
    op.dst = place_rank(request_, lane.run, per_host_, op.dst);
    op.channel = lane.run.channel;
    return op;
  }
  void successors(sched::OpKey key, std::vector<sched::OpKey>& out) const override {
    const std::size_t lane = key >> sched::kChannelKeyBits;
    const std::size_t first = out.size();
    lanes_[lane].stream->successors(key & kInner, out);
    for (std::size_t k = first; k < out.size(); ++k) out[k] = outer(lane, out[k]);
  }
  [[nodiscard]] sched::Rank rank_period() const override { return period_; }
  /// Lane l's op moved on by times x P placed ranks: its own stream's op moved on by as many of its
  /// ranks (or back, where the lane runs reversed), in its own periods.
  [[nodiscard]] sched::OpKey shift(sched::OpKey key, sched::Rank times) const override {
    const std::size_t lane = key >> sched::kChannelKeyBits;
    const sched::Rank n = request_.nranks;
    const auto amount = static_cast<sched::Rank>(std::uint64_t{times} * period_ % n);
    const sched::Rank inner = forward_[lane] ? amount : (n - amount) % n;
    const sched::Rank units = inner / lanes_[lane].stream->rank_period();
    return outer(lane, lanes_[lane].stream->shift(key & kInner, units));
  }

 private:
  /// Rank symmetry of the channels together: P, the smallest multiple of every lane's own period
  /// (OpStream::rank_period) that divides N and moves every lane's placed ranks alike, place(r + P) =
  /// place(r) + P mod N for every rank r (forward), or place(r) - P (a lane run reversed). A lane's
  /// ranks rotated within each host block move alike when P is whole hosts (or the block is all N
  /// ranks). None (0) when a lane has no period. O(lanes x N), once.
  void find_period() {
    const sched::Rank n = request_.nranks;
    std::uint64_t p = 1;
    for (const Lane& l : lanes_) {
      const sched::Rank q = l.stream->rank_period();
      if (q == 0) return;
      p = std::lcm(p, std::uint64_t{q});
      if (p > n) return;
    }
    std::vector<std::uint64_t> candidates{p};
    if (per_host_ > 1) candidates.push_back(std::lcm(p, std::uint64_t{per_host_}));
    for (const std::uint64_t period : candidates) {
      if (period > n || n % period != 0) continue;
      std::vector<bool> forward(lanes_.size());
      bool ok = true;
      for (std::size_t i = 0; i < lanes_.size() && ok; ++i) {
        bool ahead = true, back = true;
        for (sched::Rank r = 0; r < n && (ahead || back); ++r) {
          const std::uint64_t from = place_rank(request_, lanes_[i].run, per_host_, r);
          const std::uint64_t to = place_rank(request_, lanes_[i].run, per_host_, static_cast<sched::Rank>((r + period) % n));
          ahead = ahead && to == (from + period) % n;
          back = back && to == (from + n - period) % n;
        }
        ok = ahead || back;
        forward[i] = ahead;
      }
      if (!ok) continue;
      period_ = static_cast<sched::Rank>(period);
      forward_ = std::move(forward);
      return;
    }
  }
  static constexpr sched::OpKey kInner = (sched::OpKey{1} << sched::kChannelKeyBits) - 1;
  static sched::OpKey outer(std::size_t lane, sched::OpKey inner) {
    return (sched::OpKey{lane} << sched::kChannelKeyBits) | inner;
  }
  Request request_;
  std::uint32_t per_host_;
  sched::Schedule header_;
  std::vector<Lane> lanes_;
  std::uint64_t ops_ = 0;
  sched::Rank period_ = 0;     // rank_period(); 0: none
  std::vector<bool> forward_;  // by lane, with a period: its ranks move on as the whole's (else back)
};

// The streams of `runs`, or nothing when the algorithm does not stream some run's request.
std::unique_ptr<sched::OpStream> stream_runs(const AlgorithmInfo& algorithm, const Request& request,
                                             std::span<const ChannelRun> runs, Bytes slice) {
  if (algorithm.stream == nullptr || runs.size() > (std::size_t{1} << (64 - sched::kChannelKeyBits))) return nullptr;
  std::vector<ChannelsStream::Lane> lanes;
  for (const ChannelRun& run : runs) {
    auto s = algorithm.stream(part_request(request, run));
    if (s && slice > 0) s = sched::slice_stream(std::move(s), slice);
    if (!s) return nullptr;
    lanes.push_back({std::move(s), run});
  }
  std::size_t next = 0;
  sched::Schedule header = build_runs(request, runs, [&](const Request&) { return lanes[next++].stream->header(); });
  return std::make_unique<ChannelsStream>(request, std::move(header), std::move(lanes));
}

}  // namespace

StreamedChannels stream_with_channels(const AlgorithmInfo& algorithm, const Request& request, std::uint32_t channels,
                                      bool fold, Bytes slice) {
  StreamedChannels out;
  if (algorithm.stream == nullptr) return out;
  if (channels == 1) {
    out.stream = algorithm.stream(request);
    if (out.stream && slice > 0) out.stream = sched::slice_stream(std::move(out.stream), slice);
    return out;
  }
  std::vector<ChannelRun> runs = channel_runs(request, channels);
  if (fold) runs = fold_runs(std::move(runs), channels, out.copies);
  out.stream = stream_runs(algorithm, request, runs, slice);
  if (!out.stream) out.copies.clear();
  return out;
}

}  // namespace collsim::algo
