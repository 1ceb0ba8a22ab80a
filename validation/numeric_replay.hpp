// The numeric core of the CPU replay (cpu_replay.hpp), for one element type: buffers as slots, ops
// applied in a given order, and the final comparison with the collective's definition.
//
// A slot (rank, chunk) keeps the tracked elements of the chunk: all of them (full coverage), or
// the first and the last (sampled). An op copies or reduces chunks of equal size, so position i of
// the source slot always meets position i of the destination slot; tracking the same positions in
// every slot of a chunk size is therefore closed under the schedule's ops, and replaying only
// those positions gives exactly the values a full replay would have there.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "sim/schedule/collective_spec.hpp"
#include "validation/cpu_replay.hpp"
#include "validation/element_types.hpp"
#include "validation/input_pattern.hpp"

namespace collsim::validation {

/// Which slots a replay allocates and how many elements each tracks; independent of the type.
struct SlotLayout {
  static constexpr std::uint64_t kNone = std::numeric_limits<std::uint64_t>::max();
  std::size_t nchunks = 0;
  std::uint32_t element_size = 1;
  bool sampled = false;
  std::vector<std::uint64_t> elements;  ///< per chunk: its size in elements
  std::vector<std::uint64_t> tracked;   ///< per chunk: elements replayed (all, or at most 2)
  std::vector<std::uint64_t> base;      ///< per slot (rank · nchunks + chunk): first tracked element in the pool, or kNone
  std::uint64_t pool_elements = 0;
  Bytes full_bytes = 0;                 ///< bytes the allocated slots would take in a full replay

  /// Slots defined before the collective (spec.initial) or written by an op get storage.
  SlotLayout(const sched::Schedule& s, const sched::CollectiveSpec& spec, std::uint32_t element_size, bool sampled);
  [[nodiscard]] std::size_t slot(sched::Rank r, sched::ChunkId c) const noexcept {
    return static_cast<std::size_t>(r) * nchunks + c;
  }
  /// The chunk position (element index within the chunk) of tracked element i.
  [[nodiscard]] std::uint64_t position(sched::ChunkId c, std::uint64_t i) const noexcept {
    return sampled && i == 1 ? elements[c] - 1 : i;
  }
};

/// Replays a schedule on elements of type E (element_types.hpp).
template <class E>
class NumericReplay {
 public:
  using Storage = typename E::Storage;

  /// Fills every initially defined slot with its input (input_pattern.hpp).
  NumericReplay(const sched::Schedule& s, const sched::CollectiveSpec& spec, const SlotLayout& layout,
                const InputPattern& input, DType dtype, ReduceOp op)
      : s_(s), spec_(spec), layout_(layout), input_(input), dtype_(dtype), floating_(is_floating(dtype)), op_(op),
        pool_(std::make_unique_for_overwrite<Storage[]>(static_cast<std::size_t>(layout.pool_elements))),
        defined_(layout.base.size(), 0) {
    std::vector<std::int64_t> exact;
    for (sched::Rank r = 0; r < s.total_ranks(); ++r)
      for (sched::ChunkId c = 0; c < s.chunks.size(); ++c) {
        const auto content = spec.initial(r, c);
        if (!content) continue;
        expected_values(*content, c, exact);
        const std::size_t slot = layout.slot(r, c);
        for (std::uint64_t i = 0; i < layout.tracked[c]; ++i) pool_[layout.base[slot] + i] = E::encode(exact[i]);
        defined_[slot] = 1;
      }
  }

  /// Applies the ops in `order`; returns the first op that reads or reduces into undefined data.
  std::optional<std::string> run(std::span<const sched::OpId> order) {
    for (const sched::OpId id : order) {
      const sched::Op& op = s_.ops[id];
      const std::size_t from = layout_.slot(op.src, op.src_chunk);
      const std::size_t to = layout_.slot(op.dst, op.dst_chunk);
      if (defined_[from] == 0)
        return fmt::format("op {} (step {}): rank {} sends chunk {}, which holds no defined data there", id, op.step,
                           op.src, op.src_chunk);
      const std::uint64_t n = layout_.tracked[op.src_chunk];
      const Storage* src = pool_.get() + layout_.base[from];
      Storage* dst = pool_.get() + layout_.base[to];
      if (op.combine == sched::Combine::Copy) {
        std::copy_n(src, n, dst);
        defined_[to] = 1;
        continue;
      }
      if (defined_[to] == 0)
        return fmt::format("op {} (step {}): reduces into chunk {} of rank {}, which holds no defined data", id, op.step,
                           op.dst_chunk, op.dst);
      switch (op_) {  // one loop per operator, so the compiler sees a constant operator in each
        case ReduceOp::Sum: reduce<ReduceOp::Sum>(dst, src, n); break;
        case ReduceOp::Min: reduce<ReduceOp::Min>(dst, src, n); break;
        case ReduceOp::Max: reduce<ReduceOp::Max>(dst, src, n); break;
        case ReduceOp::Prod: reduce<ReduceOp::Prod>(dst, src, n); break;
      }
    }
    return std::nullopt;
  }

  /// Compares every slot the collective defines with its expected value; records the first wrong
  /// one (lowest rank, then chunk, then element) and the number of values compared.
  void check(ReplayReport& report) const {
    std::optional<sched::Content> cached;
    std::vector<std::int64_t> exact;
    double factor = 0;  // the relative tolerance of the cached content (input_pattern.hpp)
    for (sched::ChunkId c = 0; c < s_.chunks.size(); ++c) {
      cached.reset();
      for (sched::Rank r = 0; r < s_.header.nranks; ++r) {
        // Chunks ascend, so a mismatch already found at a rank <= r is earlier than any here.
        if (report.mismatch && r >= report.mismatch->rank) break;
        const auto want = spec_.required(r, c);
        if (!want) continue;
        if (!cached || *cached != *want) {
          cached = *want;
          expected_values(*want, c, exact);
          // Only sums round; min and max are exact, and so is a product of +-1 inputs.
          factor = op_ == ReduceOp::Sum ? sum_tolerance_factor(dtype_, want->size(), input_.range()) : 0;
        }
        if (auto m = compare(r, c, *want, exact, factor, report.values_checked)) report.mismatch = std::move(m);
      }
    }
  }

 private:
  template <ReduceOp Op>
  static void reduce(Storage* dst, const Storage* src, std::uint64_t n) noexcept {
    for (std::uint64_t i = 0; i < n; ++i) dst[i] = E::combine(Op, dst[i], src[i]);
  }

  // The exact value of `content` at every tracked position of chunk c, as integers.
  void expected_values(const sched::Content& content, sched::ChunkId c, std::vector<std::int64_t>& out) const {
    out.resize(static_cast<std::size_t>(layout_.tracked[c]));
    for (std::size_t k = 0; k < content.size(); ++k) {
      switch (op_) {
        case ReduceOp::Sum: accumulate<ReduceOp::Sum>(content[k], c, k == 0, out); break;
        case ReduceOp::Min: accumulate<ReduceOp::Min>(content[k], c, k == 0, out); break;
        case ReduceOp::Max: accumulate<ReduceOp::Max>(content[k], c, k == 0, out); break;
        case ReduceOp::Prod: accumulate<ReduceOp::Prod>(content[k], c, k == 0, out); break;
      }
    }
  }

  // Combines contribution `from`'s inputs at chunk c's tracked positions into `out` (or sets them).
  template <ReduceOp Op>
  void accumulate(sched::Contribution from, sched::ChunkId c, bool first, std::vector<std::int64_t>& out) const {
    const std::uint64_t base = s_.chunks[from.chunk].offset / layout_.element_size;
    for (std::size_t i = 0; i < out.size(); ++i) {
      const std::int64_t v = input_.value(from.rank, base + layout_.position(c, i));
      out[i] = first ? v : element_detail::apply(Op, out[i], v);  // exact: small integers in int64
    }
  }

  std::optional<Mismatch> compare(sched::Rank r, sched::ChunkId c, const sched::Content& want,
                                  const std::vector<std::int64_t>& exact, double factor, std::uint64_t& checked) const {
    const std::size_t slot = layout_.slot(r, c);
    const std::uint64_t first_element = s_.chunks[c].offset / layout_.element_size;
    const auto mismatch = [&](std::uint64_t i, std::string expected, std::string found) {
      return Mismatch{r, c, s_.chunks[c].buffer, first_element + layout_.position(c, i), std::move(expected),
                      std::move(found)};
    };
    const std::uint64_t n = layout_.tracked[c];
    if (n == 0) return std::nullopt;  // an empty chunk holds nothing to get wrong
    if (want.empty()) return mismatch(0, "no value (the collective names no source)", "-");
    if (defined_[slot] == 0) return mismatch(0, expected_text(exact[0], factor), "undefined (never written)");
    const Storage* got = pool_.get() + layout_.base[slot];
    for (std::uint64_t i = 0; i < n; ++i) {
      ++checked;
      if (!matches(exact[i], factor, got[i])) return mismatch(i, expected_text(exact[i], factor), E::text(got[i]));
    }
    return std::nullopt;
  }

  [[nodiscard]] bool matches(std::int64_t exact, double factor, Storage got) const noexcept {
    if (!floating_) return E::encode(exact) == got;  // integers wrap and must match exactly
    // The fill is non-negative, so |x| sums to the exact sum. Written so that a NaN never matches.
    const auto want = static_cast<double>(exact);
    return std::abs(E::decode(got) - want) <= factor * want;
  }

  [[nodiscard]] std::string expected_text(std::int64_t exact, double factor) const {
    if (!floating_) return E::text(E::encode(exact));
    const double tol = factor * static_cast<double>(exact);
    return tol > 0 ? fmt::format("{} +- {:.6g}", exact, tol) : fmt::format("{}", exact);
  }

  const sched::Schedule& s_;
  const sched::CollectiveSpec& spec_;
  const SlotLayout& layout_;
  const InputPattern& input_;
  DType dtype_;
  bool floating_;
  ReduceOp op_;
  std::unique_ptr<Storage[]> pool_;  // not zeroed: a slot is written before it is marked defined
  std::vector<std::uint8_t> defined_;
};

}  // namespace collsim::validation
