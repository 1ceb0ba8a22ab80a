#include "algorithms/recursive_doubling_allreduce.hpp"

#include "algorithms/recursive_exchange.hpp"
#include "sim/schedule/builder.hpp"

namespace collsim::algo {
namespace {

constexpr sched::ChunkId kData = 0;
constexpr sched::ChunkId kReceived = 1;  // scratch: where a rank receives its partner's buffer

}  // namespace

sched::Schedule build_recursive_doubling_allreduce(const Request& request) {
  const PowerOfTwoFold fold(request.nranks);
  std::vector<sched::Chunk> chunks{sched::Chunk{0, request.size, sched::Buffer::Data, 0},
                                   sched::Chunk{0, request.size, sched::Buffer::Scratch, 0}};
  sched::ScheduleBuilder b(schedule_header(request, sched::Collective::AllReduce), std::move(chunks));
  // MPI_Sendrecv-style progress, which the α-β form of Thakur et al. assumes.
  b.order_steps_per_rank();
  static_assert(kData == 0, "add_fold sends chunks [0, 1): the data chunk");
  std::uint32_t step = add_fold(b, fold, 1, 1);
  const std::uint32_t first_exchange = step;
  for (std::uint32_t m = 1; m <= fold.log2p; ++m, ++step) {
    const sched::Rank dist = sched::Rank{1} << (m - 1);
    // All sends of the step first, so each reads the buffer as it was before the step.
    for (sched::Rank j = 0; j < fold.p2; ++j)
      b.send(fold.rank_of(j), kData, fold.rank_of(j ^ dist), kReceived, sched::Combine::Copy, step);
    for (sched::Rank j = 0; j < fold.p2; ++j)
      b.send(fold.rank_of(j), kReceived, fold.rank_of(j), kData, sched::Combine::Reduce, step);
  }
  if (fold.log2p > 0) b.add_phase("exchange", first_exchange, step - 1);
  if (fold.folds()) {
    for (sched::Rank i = 0; i < fold.r; ++i) b.send(2 * i + 1, 2 * i, kData, sched::Combine::Copy, step);
    b.add_phase("unfold", step, step);
  }
  return std::move(b).build("recursive-doubling");
}

}  // namespace collsim::algo
