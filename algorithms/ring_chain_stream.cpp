#include "algorithms/ring_chain_stream.hpp"

#include <stdexcept>

#include <fmt/format.h>

#include "algorithms/chunk_tables.hpp"
#include "sim/schedule/builder.hpp"

namespace collsim::algo {
namespace {

class RingChainStream final : public sched::OpStream {
 public:
  RingChainStream(const Request& request, sched::Collective collective, sched::Rank first, sched::Combine combine,
                  std::vector<sched::Chunk> chunks)
      : n_(request.nranks), first_(first), chunks_(static_cast<std::uint32_t>(chunks.size())),
        reduce_(combine == sched::Combine::Reduce),
        header_(sched::schedule_without_ops(schedule_header(request, collective), std::move(chunks), "ring",
                                            n_ >= 2 && chunks_ >= 1 ? n_ + chunks_ - 2 : 0, {})) {}
  [[nodiscard]] const sched::Schedule& header() const override { return header_; }
  [[nodiscard]] std::uint64_t op_count() const override {
    return n_ < 2 ? 0 : std::uint64_t{chunks_} * (n_ - 1);
  }
  void roots(std::vector<sched::OpKey>& out) const override {
    if (n_ < 2) return;
    for (std::uint32_t c = 0; c < chunks_; ++c) out.push_back(key(c, 0));
  }
  // The first rank sends every chunk to the next on one connection, one after the other.
  [[nodiscard]] sched::OpKey root_after(sched::OpKey k) const override {
    const std::uint32_t c = chunk(k);
    return c + 1 < chunks_ ? key(c + 1, 0) : sched::kNoOpKey;
  }
  void chain_heads(std::vector<sched::OpKey>& out) const override {
    if (n_ >= 2 && chunks_ >= 1) out.push_back(key(0, 0));
  }
  [[nodiscard]] sched::StreamOp op(sched::OpKey k) const override {
    const std::uint32_t c = chunk(k);
    const sched::Rank r = place(k);
    return sched::StreamOp{rank(r), rank(r + 1), header_.chunks[c].size, 0, r >= 1 ? 1U : 0U, reduce_, false};
  }
  void successors(sched::OpKey k, std::vector<sched::OpKey>& out) const override {
    const sched::Rank r = place(k);
    if (r + 2 < n_) out.push_back(key(chunk(k), r + 1));
  }
  [[nodiscard]] sched::OpKey key_limit() const override { return sched::OpKey{chunks_} << 32; }

 private:
  static sched::OpKey key(std::uint32_t c, sched::Rank k) { return (sched::OpKey{c} << 32) | k; }
  static std::uint32_t chunk(sched::OpKey k) { return static_cast<std::uint32_t>(k >> 32); }
  static sched::Rank place(sched::OpKey k) { return static_cast<sched::Rank>(k & 0xFFFFFFFFu); }
  // Chain rank k's rank.
  [[nodiscard]] sched::Rank rank(sched::Rank k) const {
    return static_cast<sched::Rank>((std::uint64_t{first_} + k) % n_);
  }
  sched::Rank n_;
  sched::Rank first_;
  std::uint32_t chunks_;
  bool reduce_;
  sched::Schedule header_;
};

}  // namespace

std::unique_ptr<sched::OpStream> make_ring_chain_stream(const Request& request, sched::Collective collective,
                                                        sched::Rank first, sched::Combine combine) {
  if (request.nranks == 0) throw std::invalid_argument("ring chain: no ranks");
  if (request.root >= request.nranks)
    throw std::invalid_argument(fmt::format("root {} is out of range (ranks 0..{})", request.root,
                                            request.nranks - 1));
  auto chunks = pipeline_chunks(0, request.size, request.chunk_size, request.element_size);
  return std::make_unique<RingChainStream>(request, collective, first % request.nranks, combine, std::move(chunks));
}

std::unique_ptr<sched::OpStream> stream_ring_broadcast(const Request& request) {
  return make_ring_chain_stream(request, sched::Collective::Broadcast, request.root, sched::Combine::Copy);
}

std::unique_ptr<sched::OpStream> stream_ring_reduce(const Request& request) {
  return make_ring_chain_stream(request, sched::Collective::Reduce, request.root + 1, sched::Combine::Reduce);
}

}  // namespace collsim::algo
