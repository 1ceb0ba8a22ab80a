#include "validation/symbolic_replay.hpp"

#include <algorithm>
#include <iterator>

#include <fmt/format.h>

namespace collsim::validation {

SymbolicState::SymbolicState(const sched::Schedule& schedule) : nchunks_(schedule.chunks.size()) {
  slots_.resize(static_cast<std::size_t>(schedule.nranks) * nchunks_);
  for (sched::Rank r = 0; r < schedule.nranks; ++r)
    for (sched::ChunkId c = 0; c < nchunks_; ++c) slots_[index(r, c)] = {Contribution{r, c}};
}

void SymbolicState::apply(const sched::Op& op) {
  const Content& src = slots_[index(op.src, op.src_chunk)];
  Content& dst = slots_[index(op.dst, op.dst_chunk)];
  if (op.combine == sched::Combine::Copy) {
    dst = src;
    return;
  }
  Content merged;
  merged.reserve(src.size() + dst.size());
  std::merge(src.begin(), src.end(), dst.begin(), dst.end(), std::back_inserter(merged));
  dst = std::move(merged);
}

std::optional<std::string> verify_symbolic(const sched::Schedule& schedule) {
  if (schedule.collective != sched::Collective::AllReduce)
    return fmt::format("no definition of {} to check against yet", sched::collective_name(schedule.collective));
  SymbolicState state(schedule);
  for (const auto& op : schedule.ops) state.apply(op);
  for (sched::Rank r = 0; r < schedule.nranks; ++r) {
    for (sched::ChunkId c = 0; c < schedule.chunks.size(); ++c) {
      Content want;
      for (sched::Rank q = 0; q < schedule.nranks; ++q) want.push_back(Contribution{q, c});
      const Content& got = state.at(r, c);
      if (got != want) {
        std::string held;
        for (const auto& x : got) held += fmt::format("{}({},{})", held.empty() ? "" : "+", x.rank, x.chunk);
        return fmt::format("rank {} chunk {}: holds {} but all-reduce needs every rank's chunk {} exactly once", r, c,
                           held.empty() ? "nothing" : held, c);
      }
    }
  }
  return std::nullopt;
}

}  // namespace collsim::validation
