// What each collective means, as pre- and post-conditions on every (rank, chunk) slot
// (msccl-tools style; STYLE.md pattern 9). Contents are symbolic: which ranks' original data a
// slot holds, so a check is exact and catches a missing or a doubled contribution.
//
//   collective      input (before)                          required output (after)
//   all-reduce      every rank: its own data                every rank: sum over all ranks
//   reduce-scatter  every rank: its own data                rank p, chunks of part p: sum over all ranks
//   all-gather      rank p: its own data in part p only    every rank: each part p from rank p
//   broadcast       root: its data; others: undefined       every rank: the root's data
//   reduce          every rank: its own data                root: sum over all ranks
//   all-to-all      every rank: its own data                rank r, output part q: rank q's data block r
//   sendrecv        every rank: its own data                rank r, output: rank r-1's data (mod N)
//
// Helper ranks and scratch chunks start undefined and owe nothing.
#pragma once

#include <compare>
#include <optional>
#include <span>
#include <vector>

#include "sim/schedule/schedule.hpp"

namespace collsim::sched {

/// Rank `rank`'s original data in data chunk `chunk`.
struct Contribution {
  Rank rank = 0;
  ChunkId chunk = 0;
  friend auto operator<=>(const Contribution&, const Contribution&) = default;
};

/// What one slot holds: a sorted multiset of contributions (a reduction merges them).
using Content = std::vector<Contribution>;

/// A slot's content seen without owning it: nullopt when undefined (garbage), else its sorted
/// contributions.
using ContentView = std::optional<std::span<const Contribution>>;

/// The pre/post-conditions of `schedule`'s collective over its chunk table.
class CollectiveSpec {
 public:
  /// Checks that the chunk table fits the collective: data chunks tile [0, S') in order (S' = S,
  /// or N·alltoall_block for all-to-all as nccl-tests counts it), each inside the part it names
  /// of split_even(S', N, schedule.element_size); all-to-all output chunks mirror the data chunks,
  /// sendrecv's tile [0, S) as its data chunks do. Throws std::invalid_argument.
  explicit CollectiveSpec(const Schedule& schedule);

  /// The slot's content before the collective; nullopt when undefined (garbage).
  [[nodiscard]] std::optional<Content> initial(Rank rank, ChunkId chunk) const;
  /// The content the slot must hold afterwards; nullopt when anything will do.
  [[nodiscard]] std::optional<Content> required(Rank rank, ChunkId chunk) const;

  /// required() without building the content, for checks over every slot of a large schedule:
  /// anything, every rank's contribution to data chunk `what.chunk` (a reduction), or exactly the
  /// one contribution `what`.
  struct Requirement {
    enum class Kind { Anything, Everyone, One } kind = Kind::Anything;
    Contribution what;
  };
  /// The slot's requirement; required() is its expansion.
  [[nodiscard]] Requirement requirement(Rank rank, ChunkId chunk) const;
  /// Whether `content` is what `need` asks for, exactly as comparing it with the expansion would
  /// say; allocates nothing.
  [[nodiscard]] bool meets(ContentView content, const Requirement& need) const noexcept;

 private:
  [[nodiscard]] Content everyone(ChunkId chunk) const;
  const Schedule& schedule_;
  // Output chunk -> the data chunk at the same place in the sender's block (all-to-all) or buffer
  // (sendrecv).
  std::vector<ChunkId> alltoall_source_;
};

/// Bytes of the all-to-all block each rank sends each peer: floor(S/N) counted in elements of
/// `element_size` bytes when S is a multiple of it (as nccl-tests' per-peer count), else in bytes.
Bytes alltoall_block(Rank nranks, Bytes size, Bytes element_size = 1) noexcept;

/// The bytes of the data buffer a collective really moves: S, except all-to-all, where each rank
/// sends alltoall_block bytes to every rank as nccl-tests does (its count is per-peer).
Bytes effective_size(Collective collective, Rank nranks, Bytes size, Bytes element_size = 1) noexcept;

}  // namespace collsim::sched
