#include "algorithms/recursive_doubling_allgather.hpp"

#include "algorithms/recursive_exchange.hpp"
#include "sim/schedule/builder.hpp"

namespace collsim::algo {

sched::Schedule build_recursive_doubling_allgather(const Request& request) {
  const PowerOfTwoFold fold(request.nranks);
  sched::ScheduleBuilder b(schedule_header(request, sched::Collective::AllGather), split_parts(request, request.nranks));
  // MPI_Sendrecv-style progress, which the α-β form of Thakur et al. assumes.
  b.order_steps_per_rank();
  const auto parts = static_cast<sched::ChunkId>(request.nranks);
  std::uint32_t step = 1;
  if (fold.folds()) {
    for (sched::Rank i = 0; i < fold.r; ++i) b.send(2 * i, 2 * i + 1, 2 * i, sched::Combine::Copy, step);
    b.add_phase("fold", step, step);
    ++step;
  }
  if (fold.log2p > 0) {
    const std::uint32_t doubling = step;
    step = recursive_doubling(b, fold, blocks_of_parts(fold), step);
    b.add_phase("all-gather", doubling, step - 1);
  }
  if (fold.folds()) {
    // Rank 2i already holds its own part; it gets the rest.
    for (sched::Rank i = 0; i < fold.r; ++i) {
      send_chunks(b, 2 * i + 1, 2 * i, 0, 2 * i, sched::Combine::Copy, step);
      send_chunks(b, 2 * i + 1, 2 * i, 2 * i + 1, parts, sched::Combine::Copy, step);
    }
    b.add_phase("unfold", step, step);
  }
  return std::move(b).build("recursive-doubling");
}

}  // namespace collsim::algo
