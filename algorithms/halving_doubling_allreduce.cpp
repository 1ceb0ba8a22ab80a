#include "algorithms/halving_doubling_allreduce.hpp"

#include "algorithms/recursive_exchange.hpp"
#include "sim/schedule/builder.hpp"

namespace collsim::algo {

sched::Schedule build_halving_doubling_allreduce(const Request& request) {
  const PowerOfTwoFold fold(request.nranks);
  sched::ScheduleBuilder b(schedule_header(request, sched::Collective::AllReduce), split_parts(request, fold.p2));
  // MPI_Sendrecv-style progress, which the α-β form of Thakur et al. assumes.
  b.order_steps_per_rank();
  const auto whole = static_cast<sched::ChunkId>(fold.p2);
  std::uint32_t step = add_fold(b, fold, whole, 1);
  const auto blocks = one_chunk_blocks(fold);
  if (fold.log2p > 0) {
    const std::uint32_t halving = step;
    step = recursive_halving(b, fold, blocks, step);
    b.add_phase("reduce-scatter", halving, step - 1);
    const std::uint32_t doubling = step;
    step = recursive_doubling(b, fold, blocks, step);
    b.add_phase("all-gather", doubling, step - 1);
  }
  if (fold.folds()) {
    for (sched::Rank i = 0; i < fold.r; ++i) send_chunks(b, 2 * i + 1, 2 * i, 0, whole, sched::Combine::Copy, step);
    b.add_phase("unfold", step, step);
  }
  return std::move(b).build("halving-doubling");
}

}  // namespace collsim::algo
