// Symbolic replay: runs a schedule on contributions instead of numbers, so a result can be checked
// exactly (no floating point) against the collective's definition (sim/schedule/collective_spec.hpp).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/schedule/collective_spec.hpp"
#include "sim/schedule/schedule.hpp"

namespace collsim::validation {

using sched::Content;
using sched::ContentView;
using sched::Contribution;

/// The buffers of every rank, symbolically, starting from the collective's input. A slot holds
/// one contribution in place (every input slot) or shares a content of several: a copy op shares
/// the sender's and a reduce makes a new one, so only reduces allocate.
class SymbolicState {
 public:
  explicit SymbolicState(const sched::Schedule& schedule);
  /// Executes op `id`: the receiver's chunk becomes the sender's (copy) or the merge of both
  /// (reduce). Returns a message when the op reads an undefined chunk or reduces into one.
  std::optional<std::string> apply(sched::OpId id);
  /// What rank `r` holds in chunk `c`; valid until the next apply().
  [[nodiscard]] ContentView at(sched::Rank r, sched::ChunkId c) const { return slots_[index(r, c)].view(); }

 private:
  struct Slot {
    std::shared_ptr<const Content> many;  // set when the slot holds more than one contribution
    Contribution one;                     // the contribution, when defined and `many` is unset
    bool defined = false;
    [[nodiscard]] ContentView view() const {
      if (!defined) return std::nullopt;
      return many ? std::span<const Contribution>(*many) : std::span<const Contribution>(&one, 1);
    }
  };
  [[nodiscard]] std::size_t index(sched::Rank r, sched::ChunkId c) const {
    return static_cast<std::size_t>(r) * nchunks_ + c;
  }
  const sched::Schedule& schedule_;
  std::size_t nchunks_;
  std::vector<Slot> slots_;
};

/// Replays `schedule` in op order and checks every slot the collective defines. Returns nullopt
/// when the schedule computes its collective, else the first problem: the op, or the rank and
/// chunk that ends wrong and what it holds.
std::optional<std::string> verify_symbolic(const sched::Schedule& schedule);

/// "A0+B0+C0": contributions in rank order, ranks as letters when there are at most 26, else
/// "r12:c3" terms; "?" for an undefined slot.
std::string content_text(ContentView content, sched::Rank nranks);
/// content_text of an optional content (nullopt: undefined).
std::string content_text(const std::optional<Content>& content, sched::Rank nranks);

}  // namespace collsim::validation
