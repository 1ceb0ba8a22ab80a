#include "algorithms/halving_doubling_reduce_scatter.hpp"

#include "algorithms/recursive_exchange.hpp"
#include "sim/schedule/builder.hpp"

namespace collsim::algo {

sched::Schedule build_halving_doubling_reduce_scatter(const Request& request) {
  const PowerOfTwoFold fold(request.nranks);
  sched::ScheduleBuilder b(schedule_header(request, sched::Collective::ReduceScatter), split_parts(request, request.nranks));
  // MPI_Sendrecv-style progress, which the α-β form of Thakur et al. assumes.
  b.order_steps_per_rank();
  const auto parts = static_cast<sched::ChunkId>(request.nranks);
  std::uint32_t step = add_fold(b, fold, parts, 1);
  if (fold.log2p > 0) {
    const std::uint32_t halving = step;
    step = recursive_halving(b, fold, blocks_of_parts(fold), step);
    b.add_phase("reduce-scatter", halving, step - 1);
  }
  if (fold.folds()) {
    // Only the folded rank's own part goes back: reduce-scatter owes it nothing else.
    for (sched::Rank i = 0; i < fold.r; ++i) b.send(2 * i + 1, 2 * i, 2 * i, sched::Combine::Copy, step);
    b.add_phase("unfold", step, step);
  }
  return std::move(b).build("halving-doubling");
}

}  // namespace collsim::algo
