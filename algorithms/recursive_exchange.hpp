// Building blocks of the hypercube algorithms of Thakur, Rabenseifner & Gropp 2005 ("Optimization
// of Collective Communication Operations in MPICH", IJHPCA 19(1)): the fold of N ranks onto a power
// of two, recursive halving (reduce-scatter) and recursive doubling (all-gather) over blocks of
// chunks. Used by halving-doubling and recursive-doubling; not an algorithm of its own.
//
// Words used below: p' = the largest power of two <= N, r = N - p', L = log2 p'. The p' ranks that
// run the power-of-two algorithm are "core ranks" 0..p'-1; a core "block" is a contiguous range of
// chunks that core rank j owns at the end of recursive halving (block j) and starts recursive
// doubling with.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "sim/schedule/builder.hpp"

namespace collsim::algo {

/// The fold of Thakur et al. 2005 (all-reduce, for a number of processes that is not a power of two):
/// for i < r, rank 2i hands its data to rank 2i+1 and sits out; the p' core ranks are the odd
/// ranks below 2r and every rank from 2r on. Core rank j is rank 2j+1 for j < r, else j + r.
struct PowerOfTwoFold {
  /// Precondition: n >= 1.
  explicit PowerOfTwoFold(sched::Rank n);

  sched::Rank n = 1;         ///< participants
  sched::Rank p2 = 1;        ///< p', the largest power of two <= n
  sched::Rank r = 0;         ///< n - p': the number of ranks that fold into a partner
  std::uint32_t log2p = 0;   ///< L = log2 p'

  /// The rank that plays core rank `core` (< p2).
  [[nodiscard]] sched::Rank rank_of(sched::Rank core) const noexcept { return core < r ? 2 * core + 1 : core + r; }
  /// Whether N is not a power of two, so a fold step precedes and an unfold step follows the core.
  [[nodiscard]] bool folds() const noexcept { return r > 0; }
};

/// Core blocks when the buffer is cut into one chunk per part (N chunks, split_even): core block j
/// is parts 2j and 2j+1 for j < r (the core rank also speaks for the rank folded into it) and part
/// j + r otherwise. Returns p'+1 chunk ids: block j is chunks [result[j], result[j+1]).
std::vector<sched::ChunkId> blocks_of_parts(const PowerOfTwoFold& fold);

/// Core blocks when the buffer is cut into p' chunks: block j is chunk j. Returns p'+1 chunk ids.
std::vector<sched::ChunkId> one_chunk_blocks(const PowerOfTwoFold& fold);

/// Sends chunks [first, last) from rank `src` to the same chunks of rank `dst`, one op per chunk
/// (the IR moves one chunk per op), all at logical step `step`.
void send_chunks(sched::ScheduleBuilder& b, sched::Rank src, sched::Rank dst, sched::ChunkId first,
                 sched::ChunkId last, sched::Combine combine, std::uint32_t step);

/// The fold step of Thakur et al. 2005 when N is not a power of two: for i < r, rank 2i sends
/// chunks [0, count) to rank 2i+1, which adds them into its own, all in step `step`, named "fold".
/// Returns the next free step: step + 1, or `step` when N is a power of two (nothing to fold).
std::uint32_t add_fold(sched::ScheduleBuilder& b, const PowerOfTwoFold& fold, sched::ChunkId count, std::uint32_t step);

/// Recursive-halving reduce-scatter among the core ranks (Thakur et al. 2005): in
/// step m = 1..L, core rank j exchanges with core rank j XOR p'/2^m, keeps the half of its current
/// range of blocks that holds block j and sends the other half, which the partner adds into its
/// copy. Afterwards core rank j holds block j reduced over every core rank. Uses steps
/// first_step .. first_step+L-1; returns first_step + L. A core rank sends the whole buffer but its
/// own block: (p'-1)/p' of it when the blocks are equal.
std::uint32_t recursive_halving(sched::ScheduleBuilder& b, const PowerOfTwoFold& fold,
                                std::span<const sched::ChunkId> blocks, std::uint32_t first_step);

/// Recursive-doubling all-gather among the core ranks (Thakur et al. 2005): core rank
/// j starts with block j; in step m = 1..L it sends the 2^(m-1) blocks it holds to core rank
/// j XOR 2^(m-1), which copies them. Afterwards every core rank holds every block. Uses steps
/// first_step .. first_step+L-1; returns first_step + L. A core rank sends p'-1 blocks in all.
std::uint32_t recursive_doubling(sched::ScheduleBuilder& b, const PowerOfTwoFold& fold,
                                 std::span<const sched::ChunkId> blocks, std::uint32_t first_step);

}  // namespace collsim::algo
