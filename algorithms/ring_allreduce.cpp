#include "algorithms/ring_allreduce.hpp"

#include "sim/schedule/builder.hpp"

namespace collsim::algo {
namespace {

class RingAllReduceStream final : public sched::OpStream {
 public:
  explicit RingAllReduceStream(const Request& request)
      : n_(request.nranks),
        header_(sched::stream_header(schedule_header(request, sched::Collective::AllReduce), split_parts(request, n_),
                                     "ring", n_ > 1 ? 2 * (n_ - 1) : 0, phases(n_))) {}
  [[nodiscard]] const sched::Schedule& header() const override { return header_; }
  [[nodiscard]] std::uint64_t op_count() const override { return std::uint64_t{header_.steps} * n_; }
  void roots(std::vector<sched::OpKey>& out) const override {
    if (n_ > 1)
      for (sched::Rank r = 0; r < n_; ++r) out.push_back(key(1, r));
  }
  [[nodiscard]] sched::StreamOp op(sched::OpKey k) const override {
    const auto s = static_cast<std::uint32_t>(k >> 32);
    const auto r = static_cast<sched::Rank>(k & 0xFFFFFFFFu);
    // Reduce-scatter step s sends chunk r - s; all-gather step N-1+s' sends chunk r - s' + 1.
    // Both lie in (-N, N): one conditional add instead of a division (this runs once per op).
    std::int64_t c = s < n_ ? std::int64_t{r} - s : std::int64_t{r} - (s - (n_ - 1)) + 1;
    if (c < 0) c += n_;
    return sched::StreamOp{r, next(r), header_.chunks[static_cast<sched::ChunkId>(c)].size, 0, s == 1 ? 0U : 1U};
  }
  void successors(sched::OpKey k, std::vector<sched::OpKey>& out) const override {
    const auto s = static_cast<std::uint32_t>(k >> 32);
    const auto r = static_cast<sched::Rank>(k & 0xFFFFFFFFu);
    if (s < header_.steps) out.push_back(key(s + 1, next(r)));
  }

 private:
  [[nodiscard]] sched::Rank next(sched::Rank r) const { return r + 1 == n_ ? 0 : r + 1; }
  static sched::OpKey key(std::uint32_t step, sched::Rank r) { return (sched::OpKey{step} << 32) | r; }
  static std::vector<sched::Phase> phases(sched::Rank n) {
    if (n <= 1) return {};
    return {{"reduce-scatter", 1, n - 1}, {"all-gather", n, 2 * (n - 1)}};
  }
  sched::Rank n_;
  sched::Schedule header_;
};

}  // namespace

std::unique_ptr<sched::OpStream> stream_ring_allreduce(const Request& request) {
  return std::make_unique<RingAllReduceStream>(request);
}

sched::Schedule build_ring_allreduce(const Request& request) {
  const sched::Rank n = request.nranks;
  sched::ScheduleBuilder b(schedule_header(request, sched::Collective::AllReduce), split_parts(request, n));
  const auto chunk = [n](std::int64_t c) { return static_cast<sched::ChunkId>(((c % n) + n) % n); };
  for (std::uint32_t s = 1; s < n; ++s)
    for (sched::Rank r = 0; r < n; ++r)
      b.send(r, (r + 1) % n, chunk(std::int64_t{r} - s), sched::Combine::Reduce, s);
  for (std::uint32_t s = 1; s < n; ++s)
    for (sched::Rank r = 0; r < n; ++r)
      b.send(r, (r + 1) % n, chunk(std::int64_t{r} - s + 1), sched::Combine::Copy, n - 1 + s);
  if (n > 1) {
    b.add_phase("reduce-scatter", 1, n - 1);
    b.add_phase("all-gather", n, 2 * (n - 1));
  }
  return std::move(b).build("ring");
}

}  // namespace collsim::algo
