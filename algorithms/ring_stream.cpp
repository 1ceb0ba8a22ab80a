#include "algorithms/ring_stream.hpp"

#include <algorithm>
#include <optional>
#include <stdexcept>

namespace collsim::algo {
namespace {

class RingStream final : public sched::OpStream {
 public:
  RingStream(const Request& request, sched::Collective collective)
      : n_(request.nranks),
        reduce_(collective != sched::Collective::AllGather),
        gather_(collective != sched::Collective::ReduceScatter),
        header_(sched::schedule_without_ops(schedule_header(request, collective), split_parts(request, n_), "ring",
                                     n_ > 1 ? (reduce_ && gather_ ? 2 : 1) * (n_ - 1) : 0, phases(collective, n_))),
        even_(even_size(header_.chunks)) {}
  [[nodiscard]] const sched::Schedule& header() const override { return header_; }
  [[nodiscard]] std::uint64_t op_count() const override { return std::uint64_t{header_.steps} * n_; }
  void roots(std::vector<sched::OpKey>& out) const override {
    if (n_ > 1)
      for (sched::Rank r = 0; r < n_; ++r) out.push_back(key(1, r));
  }
  [[nodiscard]] sched::StreamOp op(sched::OpKey k) const override {
    const auto s = static_cast<std::uint32_t>(k >> 32);
    const auto r = static_cast<sched::Rank>(k & 0xFFFFFFFFu);
    // Reduce-scatter step s sends chunk r - s; all-gather step s' (after the reduce-scatter's
    // N - 1 steps in an all-reduce) sends chunk r - s' + 1. Both lie in (-N, N): one conditional
    // add instead of a division (this runs once per op).
    const bool reducing = reduce_ && s < n_;
    const std::uint32_t gather_step = reduce_ ? s - (n_ - 1) : s;
    std::int64_t c = reducing ? std::int64_t{r} - s : std::int64_t{r} - gather_step + 1;
    if (c < 0) c += n_;
    // Equal chunks (the usual case) need no look-up: on 32 channels of 1024 ranks the chunk
    // tables hold 32 x 1024 entries, and each op's read missed the cache (session 28: 8 % of
    // compare's profile).
    const Bytes bytes = even_ ? *even_ : header_.chunks[static_cast<sched::ChunkId>(c)].size;
    return sched::StreamOp{r, next(r), bytes, 0, s == 1 ? 0U : 1U, reducing};
  }
  void successors(sched::OpKey k, std::vector<sched::OpKey>& out) const override {
    const auto s = static_cast<std::uint32_t>(k >> 32);
    const auto r = static_cast<sched::Rank>(k & 0xFFFFFFFFu);
    if (s < header_.steps) out.push_back(key(s + 1, next(r)));
  }
  /// 1 when every chunk has one size: op (s, r + 1) then sends chunk c + 1 of op (s, r)'s chunk c,
  /// of the same size, to r + 2. With uneven chunks the ranks' ops differ: none.
  [[nodiscard]] sched::Rank rank_period() const override {
    return n_ > 1 && (even_ || header_.chunks.empty()) ? 1 : 0;
  }
  [[nodiscard]] sched::OpKey shift(sched::OpKey k, sched::Rank times) const override {
    const auto r = static_cast<std::uint64_t>(k & 0xFFFFFFFFu);
    return (k & ~sched::OpKey{0xFFFFFFFFu}) | ((r + times) % n_);
  }
  /// Steps 1 .. steps over ranks below 2^32.
  [[nodiscard]] sched::OpKey key_limit() const override { return sched::OpKey{header_.steps + 1} << 32; }

 private:
  [[nodiscard]] sched::Rank next(sched::Rank r) const { return r + 1 == n_ ? 0 : r + 1; }
  static sched::OpKey key(std::uint32_t step, sched::Rank r) { return (sched::OpKey{step} << 32) | r; }
  static std::vector<sched::Phase> phases(sched::Collective collective, sched::Rank n) {
    if (collective != sched::Collective::AllReduce || n <= 1) return {};
    return {{"reduce-scatter", 1, n - 1}, {"all-gather", n, 2 * (n - 1)}};
  }
  /// The size every chunk has, when they all have one.
  static std::optional<Bytes> even_size(const std::vector<sched::Chunk>& chunks) {
    if (chunks.empty() || std::any_of(chunks.begin(), chunks.end(),
                                      [&](const sched::Chunk& x) { return x.size != chunks.front().size; }))
      return std::nullopt;
    return chunks.front().size;
  }
  sched::Rank n_;
  bool reduce_, gather_;
  sched::Schedule header_;
  std::optional<Bytes> even_;
};

}  // namespace

std::unique_ptr<sched::OpStream> make_ring_stream(const Request& request, sched::Collective collective) {
  if (collective != sched::Collective::AllReduce && collective != sched::Collective::ReduceScatter &&
      collective != sched::Collective::AllGather)
    throw std::invalid_argument("make_ring_stream: the ring stream serves all-reduce, reduce-scatter and all-gather");
  return std::make_unique<RingStream>(request, collective);
}

}  // namespace collsim::algo
