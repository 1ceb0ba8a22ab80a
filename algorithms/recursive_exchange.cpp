#include "algorithms/recursive_exchange.hpp"

#include <bit>

namespace collsim::algo {

PowerOfTwoFold::PowerOfTwoFold(sched::Rank nranks)
    : n(nranks), p2(std::bit_floor(nranks)), r(nranks - p2), log2p(static_cast<std::uint32_t>(std::countr_zero(p2))) {}

std::vector<sched::ChunkId> blocks_of_parts(const PowerOfTwoFold& fold) {
  std::vector<sched::ChunkId> first(fold.p2 + 1);
  for (sched::Rank j = 0; j <= fold.p2; ++j) first[j] = j < fold.r ? 2 * j : j + fold.r;
  return first;
}

std::vector<sched::ChunkId> one_chunk_blocks(const PowerOfTwoFold& fold) {
  std::vector<sched::ChunkId> first(fold.p2 + 1);
  for (sched::Rank j = 0; j <= fold.p2; ++j) first[j] = j;
  return first;
}

void send_chunks(sched::ScheduleBuilder& b, sched::Rank src, sched::Rank dst, sched::ChunkId first,
                 sched::ChunkId last, sched::Combine combine, std::uint32_t step) {
  for (sched::ChunkId c = first; c < last; ++c) b.send(src, c, dst, c, combine, step);
}

std::uint32_t add_fold(sched::ScheduleBuilder& b, const PowerOfTwoFold& fold, sched::ChunkId count, std::uint32_t step) {
  if (!fold.folds()) return step;
  for (sched::Rank i = 0; i < fold.r; ++i) send_chunks(b, 2 * i, 2 * i + 1, 0, count, sched::Combine::Reduce, step);
  b.add_phase("fold", step, step);
  return step + 1;
}

std::uint32_t recursive_halving(sched::ScheduleBuilder& b, const PowerOfTwoFold& fold,
                                std::span<const sched::ChunkId> blocks, std::uint32_t first_step) {
  for (std::uint32_t m = 1; m <= fold.log2p; ++m) {
    const sched::Rank dist = fold.p2 >> m;
    for (sched::Rank j = 0; j < fold.p2; ++j) {
      // Before step m, j holds the aligned range of 2·dist blocks around j; the partner keeps the
      // half that holds the partner's own block, so j sends exactly that half. The two halves are
      // disjoint, so the pair's ops neither read nor write each other's chunks within the step.
      const sched::Rank partner = j ^ dist;
      const sched::Rank lo = partner & ~(dist - 1);
      send_chunks(b, fold.rank_of(j), fold.rank_of(partner), blocks[lo], blocks[lo + dist], sched::Combine::Reduce,
                  first_step + m - 1);
    }
  }
  return first_step + fold.log2p;
}

std::uint32_t recursive_doubling(sched::ScheduleBuilder& b, const PowerOfTwoFold& fold,
                                 std::span<const sched::ChunkId> blocks, std::uint32_t first_step) {
  for (std::uint32_t m = 1; m <= fold.log2p; ++m) {
    const sched::Rank dist = sched::Rank{1} << (m - 1);
    for (sched::Rank j = 0; j < fold.p2; ++j) {
      // j holds the aligned range of dist blocks around j and sends all of it.
      const sched::Rank lo = j & ~(dist - 1);
      send_chunks(b, fold.rank_of(j), fold.rank_of(j ^ dist), blocks[lo], blocks[lo + dist], sched::Combine::Copy,
                  first_step + m - 1);
    }
  }
  return first_step + fold.log2p;
}

}  // namespace collsim::algo
