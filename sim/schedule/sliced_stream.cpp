#include "sim/schedule/sliced_stream.hpp"

#include <algorithm>
#include <limits>

#include "sim/schedule/slicing.hpp"

namespace collsim::sched {
namespace {

/// Pieces of a chunk of `size` bytes cut into `slice`s, as slice_schedule counts them.
Bytes pieces_of(Bytes size, Bytes slice) { return std::max<Bytes>(1, (size + slice - 1) / slice); }

class SlicedStream final : public OpStream {
 public:
  SlicedStream(std::unique_ptr<OpStream> inner, Bytes slice, std::uint32_t pieces)
      : inner_(std::move(inner)), slice_(slice), k_(pieces), header_(slice_schedule(inner_->header(), slice)) {}
  [[nodiscard]] const Schedule& header() const override { return header_; }
  [[nodiscard]] std::uint64_t op_count() const override { return inner_->op_count() * k_; }
  void roots(std::vector<OpKey>& out) const override { expand(out, [&](std::vector<OpKey>& v) { inner_->roots(v); }, 0, true); }
  [[nodiscard]] StreamOp op(OpKey key) const override {
    StreamOp op = inner_->op(key / k_);
    if (!op.join) {
      const Bytes done = std::min(op.bytes, (key % k_) * slice_);
      op.bytes = std::min(slice_, op.bytes - done);
    }
    return op;
  }
  void successors(OpKey key, std::vector<OpKey>& out) const override {
    expand(out, [&](std::vector<OpKey>& v) { inner_->successors(key / k_, v); }, key % k_, false);
  }
  [[nodiscard]] Rank rank_period() const override { return inner_->rank_period(); }
  [[nodiscard]] OpKey shift(OpKey key, Rank times) const override {
    return inner_->shift(key / k_, times) * k_ + key % k_;
  }
  [[nodiscard]] OpKey key_limit() const override { return inner_->key_limit() * k_; }

 private:
  /// The inner keys `fill` appends, as slice keys: every slice of each (roots, in slice_schedule's
  /// op order) or slice j of each (successors: slice j waits for slice j only).
  template <typename Fill>
  void expand(std::vector<OpKey>& out, Fill fill, std::uint64_t j, bool every) const {
    scratch_.clear();
    fill(scratch_);
    for (const OpKey inner : scratch_) {
      if (every)
        for (std::uint64_t q = 0; q < k_; ++q) out.push_back(inner * k_ + q);
      else
        out.push_back(inner * k_ + j);
    }
  }
  std::unique_ptr<OpStream> inner_;
  Bytes slice_;
  std::uint64_t k_;
  Schedule header_;
  mutable std::vector<OpKey> scratch_;  // the inner keys of one call; a stream is used by one run at a time
};

}  // namespace

std::unique_ptr<OpStream> slice_stream(std::unique_ptr<OpStream> inner, Bytes slice) {
  const auto& chunks = inner->header().chunks;
  if (chunks.empty()) return inner;
  const Bytes k = pieces_of(chunks.front().size, slice);
  if (std::any_of(chunks.begin(), chunks.end(), [&](const Chunk& c) { return pieces_of(c.size, slice) != k; }))
    return nullptr;
  if (k == 1) return inner;
  if (k * chunks.size() > kMaxSlices) return nullptr;
  const OpKey limit = inner->key_limit();
  if (limit == 0 || limit > (OpKey{1} << kChannelKeyBits) / k) return nullptr;
  return std::make_unique<SlicedStream>(std::move(inner), slice, static_cast<std::uint32_t>(k));
}

}  // namespace collsim::sched
