#include "algorithms/pat_stream.hpp"

#include <algorithm>
#include <bit>
#include <stdexcept>

#include <fmt/format.h>

#include "sim/schedule/builder.hpp"

namespace collsim::algo {
namespace {

// Keys: a send is (step << 48) | (rank << 24) | i; a join of (rank, step) sets bit 57, below
// sched::kChannelKeyBits.
constexpr sched::OpKey kJoin = sched::OpKey{1} << 57;

class PatStream final : public sched::OpStream {
 public:
  PatStream(const Request& request, sched::Collective collective)
      : n_(request.nranks),
        steps_(n_ <= 1 ? 0 : static_cast<std::uint32_t>(std::bit_width(n_ - 1))),
        gather_(collective == sched::Collective::AllGather),
        header_(sched::schedule_without_ops(schedule_header(request, collective), split_parts(request, n_), "pat",
                                            steps_, phases(collective, steps_))) {}
  [[nodiscard]] const sched::Schedule& header() const override { return header_; }
  // Every rank sends N - 1 parts: sum over steps of min(d, N - d).
  [[nodiscard]] std::uint64_t op_count() const override {
    return n_ == 0 ? 0 : std::uint64_t{n_} * (n_ - 1);
  }
  void roots(std::vector<sched::OpKey>& out) const override {
    if (steps_ == 0) return;
    for (sched::Rank r = 0; r < n_; ++r) append_sends(1, r, out);
  }
  // No chains of roots (sched::OpStream::root_after): a reduce-scatter's first step sends min(d,
  // N - d) parts from each rank to one peer, and launched one by one as the one before begins they
  // took other times than launched together on a ring fabric (N = 11, S = 7 B: 10.00095 against
  // 10.000965 us; N = 20, 1 MiB: 589 events against 586), where every root at the start is the
  // materialised run exactly. So they are all held from the start: N^2/2 at most.
  [[nodiscard]] sched::StreamOp op(sched::OpKey k) const override {
    if (k & kJoin) {
      // Everything y received in step k - 1: min(d, N - d) parts of that step's distance.
      const auto [step, y, unused] = parts(k & ~kJoin);
      return sched::StreamOp{y, y, 0, 0, count(step - 1), false, true};
    }
    const auto [step, r, i] = parts(k);
    const sched::Rank d = distance(step);
    const std::uint32_t join = step >= 2 ? 1 : 0;
    if (gather_) {
      // Part r + i (i >= 1) came to r in step bit_width(i); a step before this one is the join's.
      const bool older = i >= 1 && static_cast<std::uint32_t>(std::bit_width(i)) + 1 < step;
      return sched::StreamOp{r, (r + n_ - d) % n_, header_.chunks[(r + i) % n_].size, 0, join + (older ? 1 : 0),
                             false, false};
    }
    // The receiver's part was last written by its receive of step t - 1, if that step had it.
    const bool overwrites = step >= 2 && i < count(step - 1);
    return sched::StreamOp{r, (r + d) % n_, header_.chunks[(r + d + i) % n_].size, 0, join + (overwrites ? 1 : 0),
                           true, false};
  }
  void successors(sched::OpKey k, std::vector<sched::OpKey>& out) const override {
    if (k & kJoin) {
      const auto [step, y, unused] = parts(k & ~kJoin);
      append_sends(step, y, out);
      return;
    }
    const auto [step, r, i] = parts(k);
    const sched::Rank d = distance(step);
    if (gather_) {
      // y now holds the part at its index i + d: it sends it in step k + 1 (through the join) and
      // in the later steps whose count still reaches that index (counts fall from there on).
      const sched::Rank y = (r + n_ - d) % n_;
      if (step < steps_) out.push_back(kJoin | key(step + 1, y, 0));
      for (std::uint32_t later = step + 2; later <= steps_ && i + d < count(later); ++later)
        out.push_back(key(later, y, i + d));
      return;
    }
    if (step == steps_) return;
    // The receiver's next step (the join) and the next receive into the same part, from the rank
    // d/2 before it, in the builder's op order (by sender rank within a step).
    const sched::Rank y = (r + d) % n_;
    const sched::OpKey join = kJoin | key(step + 1, y, 0);
    if (i >= count(step + 1)) {
      out.push_back(join);
      return;
    }
    const sched::Rank writer = (y + n_ - d / 2) % n_;
    if (writer < y) out.push_back(key(step + 1, writer, i));
    out.push_back(join);
    if (writer > y) out.push_back(key(step + 1, writer, i));
  }
 private:
  struct Parts {
    std::uint32_t step;
    sched::Rank r;
    sched::Rank i;
  };
  static sched::OpKey key(std::uint32_t step, sched::Rank r, sched::Rank i) {
    return (sched::OpKey{step} << 48) | (sched::OpKey{r} << 24) | i;
  }
  static Parts parts(sched::OpKey k) {
    return {static_cast<std::uint32_t>(k >> 48), static_cast<sched::Rank>((k >> 24) & 0xFFFFFF),
            static_cast<sched::Rank>(k & 0xFFFFFF)};
  }
  // The distance of a step: 1, 2, 4, ... for the all-gather, the same backwards for the reduce-scatter.
  [[nodiscard]] sched::Rank distance(std::uint32_t step) const {
    return sched::Rank{1} << (gather_ ? step - 1 : steps_ - step);
  }
  // The parts a rank sends in a step: min(d, N - d).
  [[nodiscard]] sched::Rank count(std::uint32_t step) const {
    const sched::Rank d = distance(step);
    return std::min(d, n_ - d);
  }
  void append_sends(std::uint32_t step, sched::Rank r, std::vector<sched::OpKey>& out) const {
    for (sched::Rank i = 0; i < count(step); ++i) out.push_back(key(step, r, i));
  }
  static std::vector<sched::Phase> phases(sched::Collective collective, std::uint32_t steps) {
    if (steps == 0) return {};
    return {{collective == sched::Collective::AllGather ? "all-gather" : "reduce-scatter", 1, steps}};
  }
  sched::Rank n_;
  std::uint32_t steps_;  // K = ceil(log2 N)
  bool gather_;
  sched::Schedule header_;
};

std::unique_ptr<sched::OpStream> make_stream(const Request& request, sched::Collective collective) {
  if (request.nranks >= (1U << 24))
    throw std::invalid_argument(fmt::format("pat on demand: {} ranks, expected fewer than 2^24", request.nranks));
  return std::make_unique<PatStream>(request, collective);
}

}  // namespace

std::unique_ptr<sched::OpStream> stream_pat_allgather(const Request& request) {
  return make_stream(request, sched::Collective::AllGather);
}

std::unique_ptr<sched::OpStream> stream_pat_reduce_scatter(const Request& request) {
  return make_stream(request, sched::Collective::ReduceScatter);
}

}  // namespace collsim::algo
