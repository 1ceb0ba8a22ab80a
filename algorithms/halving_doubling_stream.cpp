#include "algorithms/halving_doubling_stream.hpp"

#include <bit>
#include <string>
#include <utility>

#include "sim/schedule/builder.hpp"

namespace collsim::algo {
namespace {

// Keys: a send is (step << 48) | (rank << 24) | chunk (step <= 46); a join of (rank, step) sets
// bit 57, below sched::kChannelKeyBits.
constexpr sched::OpKey kJoin = sched::OpKey{1} << 57;

// Steps are numbered as in the all-reduce (halving 1..L, doubling L+1..2L) whatever the
// collective; a reduce-scatter runs steps 1..L, an all-gather L+1..2L, which its header calls 1..L.
class HalvingDoublingStream final : public sched::OpStream {
 public:
  HalvingDoublingStream(const Request& request, sched::Collective collective, std::string algorithm)
      : n_(request.nranks), log2_(static_cast<std::uint32_t>(std::countr_zero(request.nranks))),
        first_(collective == sched::Collective::AllGather ? log2_ + 1 : 1),
        last_(collective == sched::Collective::ReduceScatter ? log2_ : 2 * log2_),
        header_(sched::schedule_without_ops(schedule_header(request, collective), split_parts(request, request.nranks),
                                            std::move(algorithm), last_ + 1 - first_, phases(collective, log2_))) {}
  [[nodiscard]] const sched::Schedule& header() const override { return header_; }
  // N - 1 sends a rank per half (N/2 + N/4 + ... + 1 halving, 1 + 2 + ... + N/2 doubling).
  [[nodiscard]] std::uint64_t op_count() const override {
    return (first_ == 1 && last_ == 2 * log2_ ? 2 : 1) * std::uint64_t{n_} * (n_ - 1);
  }
  void roots(std::vector<sched::OpKey>& out) const override {
    if (log2_ == 0) return;
    for (sched::Rank j = 0; j < n_; ++j) append_sends(first_, j, out);
  }
  // Step 1's sends of one rank go to one partner on one connection, chunk after chunk: launched one
  // by one as the one before begins (N/2 per rank held from the start otherwise: 33 M at 8,192
  // ranks). The connection's next user, the last doubling step (the same partner), waits for them all.
  // An all-gather's roots are one send a rank (its own part): chains of one.
  [[nodiscard]] sched::OpKey root_after(sched::OpKey k) const override {
    if ((k & kJoin) || first_ != 1) return sched::kNoOpKey;
    const auto [s, j, c] = parts(k);
    if (s != 1) return sched::kNoOpKey;
    return c + 1 == first_chunk(1, j) + send_count(1) ? sched::kNoOpKey : key(1, j, c + 1);
  }
  void chain_heads(std::vector<sched::OpKey>& out) const override {
    if (log2_ == 0) return;
    if (first_ != 1) {
      roots(out);
      return;
    }
    for (sched::Rank j = 0; j < n_; ++j) out.push_back(key(1, j, first_chunk(1, j)));
  }
  [[nodiscard]] sched::StreamOp op(sched::OpKey k) const override {
    if (k & kJoin) {
      const auto [s, y, unused] = parts(k & ~kJoin);
      // Everything y received in step s - 1: halving step m brings n >> m chunks, doubling step
      // L + m brings 2^(m-1).
      const std::uint32_t prev = s - 1;
      const sched::Rank got = prev <= log2_ ? n_ >> prev : sched::Rank{1} << (prev - log2_ - 1);
      return sched::StreamOp{y, y, 0, 0, got, false, true};
    }
    const auto [s, j, c] = parts(k);
    const sched::Rank d = partner(s, j);
    std::uint32_t deps = 0;
    if (s <= log2_) {
      deps = s >= 2 ? 2 : 0;  // the join, and what last wrote d's chunk (d's receive in step s - 1)
    } else {
      // Doubling step m: the join, and what last wrote j's chunk c when that is not among the
      // join's (c came in two or more steps ago). The builder's two other edges are implied: d's
      // halving send of c to j and d's write of c before it both precede a write of c into j,
      // and every later write of j's chunk c waits for the one before (write after write), up to
      // the last, which this op waits for.
      // An all-gather starts at doubling: step 1 waits for nothing, and j's own part, which no op
      // wrote, only for the join.
      const std::uint32_t m = s - log2_;
      const bool gather = first_ != 1;
      deps = gather && m == 1 ? 0 : 1;
      if (m >= 2) {
        const sched::Rank half = sched::Rank{1} << (m - 2);  // what j received in the step before
        const sched::Rank lo = (j ^ half) & ~(half - 1);
        deps += (c >= lo && c < lo + half) || (gather && c == j) ? 0 : 1;
      }
    }
    return sched::StreamOp{j, d, header_.chunks[c].size, 0, deps, s <= log2_, false};
  }
  void successors(sched::OpKey k, std::vector<sched::OpKey>& out) const override {
    if (k & kJoin) {
      const auto [s, y, unused] = parts(k & ~kJoin);
      append_sends(s, y, out);
      return;
    }
    const auto [s, x, c] = parts(k);
    const sched::Rank y = partner(s, x);  // the receiver
    const auto join_next = [&] {
      if (s < last_) out.push_back(kJoin | key(s + 1, y, 0));
    };
    if (s < log2_) {
      // Halving, not the last step. The next write into y's chunk c, if y keeps c: y's partner of
      // step s + 1 (y's send of c otherwise waits for this op through the join).
      const sched::Rank next_block = n_ >> (s + 1);
      const bool keeps = (c & ~(next_block - 1)) == (y & ~(next_block - 1));
      const sched::Rank writer = y ^ next_block;
      if (keeps && writer < y) out.push_back(key(s + 1, writer, c));
      join_next();
      if (keeps && writer > y) out.push_back(key(s + 1, writer, c));
      return;
    }
    if (s == log2_) {
      // The last halving step brings y its own chunk: y forwards it in every doubling step (none
      // in a reduce-scatter).
      join_next();
      if (last_ > log2_)
        for (std::uint32_t m = 2; m <= log2_; ++m) out.push_back(key(log2_ + m, y, c));
      return;
    }
    // Doubling step m brings chunk c to y, which sends it on two steps later and after (the next
    // step's sends wait for it through the join).
    const std::uint32_t m = s - log2_;
    join_next();
    for (std::uint32_t later = m + 2; later <= log2_; ++later) out.push_back(key(log2_ + later, y, c));
  }

 private:
  struct Parts {
    std::uint32_t s;
    sched::Rank j;
    sched::ChunkId c;
  };
  static sched::OpKey key(std::uint32_t s, sched::Rank j, sched::ChunkId c) {
    return (sched::OpKey{s} << 48) | (sched::OpKey{j} << 24) | c;
  }
  static Parts parts(sched::OpKey k) {
    return {static_cast<std::uint32_t>(k >> 48), static_cast<sched::Rank>((k >> 24) & 0xFFFFFF),
            static_cast<sched::ChunkId>(k & 0xFFFFFF)};
  }
  // j's partner in step s: distance n >> s in halving, 2^(m-1) in doubling step L + m.
  [[nodiscard]] sched::Rank partner(std::uint32_t s, sched::Rank j) const {
    return s <= log2_ ? j ^ (n_ >> s) : j ^ (sched::Rank{1} << (s - log2_ - 1));
  }
  // How many chunks j sends in step s.
  [[nodiscard]] sched::Rank send_count(std::uint32_t s) const {
    return s <= log2_ ? n_ >> s : sched::Rank{1} << (s - log2_ - 1);
  }
  // The first chunk j sends in step s. Halving: the half that holds the partner's chunk; doubling:
  // the block j holds.
  [[nodiscard]] sched::ChunkId first_chunk(std::uint32_t s, sched::Rank j) const {
    return (s <= log2_ ? partner(s, j) : j) & ~(send_count(s) - 1);
  }
  // j's sends of step s, chunks ascending (the builder's order).
  void append_sends(std::uint32_t s, sched::Rank j, std::vector<sched::OpKey>& out) const {
    const sched::ChunkId lo = first_chunk(s, j);
    for (sched::ChunkId c = lo; c < lo + send_count(s); ++c) out.push_back(key(s, j, c));
  }
  static std::vector<sched::Phase> phases(sched::Collective collective, std::uint32_t log2) {
    if (log2 == 0) return {};
    if (collective == sched::Collective::ReduceScatter) return {{"reduce-scatter", 1, log2}};
    if (collective == sched::Collective::AllGather) return {{"all-gather", 1, log2}};
    return {{"reduce-scatter", 1, log2}, {"all-gather", log2 + 1, 2 * log2}};
  }
  sched::Rank n_;
  std::uint32_t log2_;
  std::uint32_t first_, last_;  // the steps run, numbered as in the all-reduce
  sched::Schedule header_;
};

}  // namespace

namespace {

std::unique_ptr<sched::OpStream> make_stream(const Request& request, sched::Collective collective,
                                             std::string algorithm) {
  // Ranks and chunks are 24-bit fields of a key.
  if (request.nranks == 0 || !std::has_single_bit(request.nranks) || request.nranks >= (1U << 24)) return nullptr;
  return std::make_unique<HalvingDoublingStream>(request, collective, std::move(algorithm));
}

}  // namespace

std::unique_ptr<sched::OpStream> stream_halving_doubling_allreduce(const Request& request) {
  return make_stream(request, sched::Collective::AllReduce, "halving-doubling");
}

std::unique_ptr<sched::OpStream> stream_halving_doubling_reduce_scatter(const Request& request) {
  return make_stream(request, sched::Collective::ReduceScatter, "halving-doubling");
}

std::unique_ptr<sched::OpStream> stream_halving_doubling_allgather(const Request& request) {
  return make_stream(request, sched::Collective::AllGather, "halving-doubling");
}

std::unique_ptr<sched::OpStream> stream_recursive_doubling_allgather(const Request& request) {
  return make_stream(request, sched::Collective::AllGather, "recursive-doubling");
}

}  // namespace collsim::algo
