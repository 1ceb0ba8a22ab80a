// Symbolic replay: runs a schedule on contributions instead of numbers, so a result can be checked
// exactly (no floating point): which ranks' original chunks each chunk holds (msccl-tools style
// pre/post-conditions; STYLE.md pattern 9).
#pragma once

#include <compare>
#include <optional>
#include <string>
#include <vector>

#include "sim/schedule/schedule.hpp"

namespace collsim::validation {

/// Rank `rank`'s original data of chunk `chunk`.
struct Contribution {
  sched::Rank rank = 0;
  sched::ChunkId chunk = 0;
  friend auto operator<=>(const Contribution&, const Contribution&) = default;
};

/// What one chunk of one rank holds: a sorted multiset of contributions (a reduction merges them).
using Content = std::vector<Contribution>;

/// The buffers of every rank, symbolically. Starts as the collective's input: rank r's chunk c
/// holds {(r, c)}.
class SymbolicState {
 public:
  explicit SymbolicState(const sched::Schedule& schedule);
  /// Executes one op: the receiver's chunk becomes the sender's (copy) or the merge of both (reduce).
  void apply(const sched::Op& op);
  [[nodiscard]] const Content& at(sched::Rank r, sched::ChunkId c) const { return slots_[index(r, c)]; }

 private:
  [[nodiscard]] std::size_t index(sched::Rank r, sched::ChunkId c) const { return static_cast<std::size_t>(r) * nchunks_ + c; }
  std::size_t nchunks_;
  std::vector<Content> slots_;
};

/// Replays `schedule` in op order and checks the result against its collective's definition.
/// Returns nullopt when it holds, else the first wrong rank and chunk and what it holds.
/// Only all-reduce has a definition so far; other collectives return a message saying so.
std::optional<std::string> verify_symbolic(const sched::Schedule& schedule);

}  // namespace collsim::validation
