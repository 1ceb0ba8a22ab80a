// Schedules that are generated on demand (issue 7 point 2): the engine asks for each op when it
// can run, so a run holds O(N + ops in flight), not O(total ops).
//
// A stream names its ops by 64-bit keys of its own choosing (ring all-reduce: step and rank) and
// gives, for each op, what the engine needs (ranks, bytes, channel, how many ops it waits for) and
// which ops wait for it (its successors). An op starts when its last dependency has finished, as
// in a materialised Schedule; the two are interchangeable wherever the dependency graphs have the
// same transitive closure. A Schedule is itself a stream (ScheduleStream), so the engine has one
// loop for both. Materialised schedules stay the form for --verify, --save-schedule, traces and the
// CUDA replay (bench/PROFILE.md, 3.1).
#pragma once

#include <cstdint>
#include <vector>

#include "sim/schedule/builder.hpp"
#include "sim/schedule/schedule.hpp"

namespace collsim::sched {

/// Names one op of a stream; the stream decides the encoding, below 2^kChannelKeyBits.
using OpKey = std::uint64_t;

/// A stream's keys stay below 2^58: the top six bits name the channel of a stream of channels
/// (algo::stream_with_channels; at most 64 channels, as NCCL's MAXCHANNELS).
inline constexpr unsigned kChannelKeyBits = 58;

/// No op: the end of a chain of roots (OpStream::root_after).
inline constexpr OpKey kNoOpKey = ~OpKey{0};

/// One op as the engine sees it: `src` sends `bytes` to `dst` (src == dst: a local op) on
/// `channel`, once `deps` ops that list it among their successors have finished; `reduce` when
/// the receiver adds what arrives (Combine::Reduce), which may cost it time (sim::OpCostModel).
/// A `join` moves nothing and is not counted among the stream's ops: it stands for the edges from
/// each of its dependencies to each of its successors (a barrier: "every op of this step waits for
/// everything the rank received in the last one" as one op instead of n x m edges), and its
/// successors are reached at once, in its place among the successors of the op that completed it,
/// with no event and no time of its own.
struct StreamOp {
  Rank src = 0;
  Rank dst = 0;
  Bytes bytes = 0;
  std::uint16_t channel = 0;
  std::uint32_t deps = 0;
  bool reduce = false;
  bool join = false;
  friend bool operator==(const StreamOp&, const StreamOp&) = default;
};

/// A schedule whose ops are produced on demand. Pure and deterministic: the same key always gives
/// the same op and the same successors, in the same order (the order in which the engine launches
/// them, which decides the order of transfers queued on one connection).
class OpStream {
 public:
  virtual ~OpStream() = default;
  /// The schedule without its ops: algorithm, collective, N, helpers, root, S, element size, step
  /// count, chunks and phases (`ops`, `dep_offsets` and `deps` may be empty).
  [[nodiscard]] virtual const Schedule& header() const = 0;
  /// Number of ops (for reports; the engine checks that this many ran).
  [[nodiscard]] virtual std::uint64_t op_count() const = 0;
  /// True when the keys are the op ids 0 .. op_count()-1 of a materialised schedule: the engine
  /// then reports per-op timings and per-op delays by that id.
  [[nodiscard]] virtual bool dense() const noexcept { return false; }
  /// Appends the ops with no dependency, in the order they start (no join among them).
  virtual void roots(std::vector<OpKey>& out) const = 0;
  /// The op named `key` (a key from roots() or successors()).
  [[nodiscard]] virtual StreamOp op(OpKey key) const = 0;
  /// Appends the ops that wait for op `key`, each once.
  virtual void successors(OpKey key, std::vector<OpKey>& out) const = 0;
  /// Rank symmetry: p > 0 (dividing N) when moving every rank on by p maps the stream onto itself:
  /// op shift(k, 1) is op k with src and dst moved on by p (mod N) and the same bytes, channel,
  /// deps, reduce and join, and its successors are op k's, shifted. 0 (the default): none known.
  /// What lets a run simulate one period of ranks on a topology that rotates alike (sim/rank_fold.hpp).
  [[nodiscard]] virtual Rank rank_period() const { return 0; }
  /// The key of op `key` with every rank moved on by `times` periods (mod N); only called when
  /// rank_period() > 0.
  [[nodiscard]] virtual OpKey shift(OpKey key, Rank /*times*/) const { return key; }
  /// Every key is below this bound; 0 (the default): not known. What lets a wrapper fold more into
  /// a key (slice_stream: key x slices + slice) without two ops meeting.
  [[nodiscard]] virtual OpKey key_limit() const { return 0; }
  /// Chains of roots: the root that follows root `key` on its connection (the same sender,
  /// receiver and channel, which no op outside the chain uses before the chain's last root has
  /// begun), later in roots()' order, or
  /// kNoOpKey (the default: no chains). Such a root cannot start transmitting before the one it
  /// follows has, so an engine whose network model says when a transfer begins launches it then,
  /// instead of holding it from the start (a tree's leaves send every pipeline chunk at once: 16.7 M
  /// transfers held at 16,384 ranks; bench/PROFILE.md section 11).
  [[nodiscard]] virtual OpKey root_after(OpKey /*key*/) const { return kNoOpKey; }
  /// Appends the roots that follow no root (root_after), in roots()' order; the default: roots().
  virtual void chain_heads(std::vector<OpKey>& out) const { roots(out); }
};

/// A materialised Schedule seen as a stream: keys are op ids, successors the reversed dependency
/// lists (built here, O(ops) memory, 8 bytes per dependency plus 4 per op). `schedule` must
/// outlive the stream.
class ScheduleStream final : public OpStream {
 public:
  explicit ScheduleStream(const Schedule& schedule);
  [[nodiscard]] const Schedule& header() const override { return schedule_; }
  [[nodiscard]] std::uint64_t op_count() const override { return schedule_.ops.size(); }
  [[nodiscard]] bool dense() const noexcept override { return true; }
  void roots(std::vector<OpKey>& out) const override;
  [[nodiscard]] StreamOp op(OpKey key) const override;
  void successors(OpKey key, std::vector<OpKey>& out) const override;

 private:
  const Schedule& schedule_;
  std::vector<std::uint32_t> out_offsets_;  // CSR: successors of op i are dependents_[out_offsets_[i] .. [i+1])
  std::vector<OpId> dependents_;
};

}  // namespace collsim::sched
