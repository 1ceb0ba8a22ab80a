#include "sim/schedule/op_stream.hpp"

namespace collsim::sched {

ScheduleStream::ScheduleStream(const Schedule& schedule)
    : schedule_(schedule), out_offsets_(schedule.ops.size() + 1, 0) {
  const auto nops = static_cast<OpId>(schedule.ops.size());
  for (OpId i = 0; i < nops; ++i)
    for (OpId d : schedule.deps_of(i)) ++out_offsets_[d + 1];
  for (OpId i = 0; i < nops; ++i) out_offsets_[i + 1] += out_offsets_[i];
  dependents_.resize(out_offsets_.back());
  std::vector<std::uint32_t> fill(out_offsets_.begin(), out_offsets_.end() - 1);
  // Ascending op ids per list: dependents start in schedule order, as they always have.
  for (OpId i = 0; i < nops; ++i)
    for (OpId d : schedule.deps_of(i)) dependents_[fill[d]++] = i;
}

void ScheduleStream::roots(std::vector<OpKey>& out) const {
  for (OpId i = 0; i < schedule_.ops.size(); ++i)
    if (schedule_.dep_offsets[i] == schedule_.dep_offsets[i + 1]) out.push_back(i);
}

StreamOp ScheduleStream::op(OpKey key) const {
  const auto id = static_cast<OpId>(key);
  const Op& o = schedule_.ops[id];
  return StreamOp{o.src, o.dst, schedule_.op_bytes(id), o.channel,
                  schedule_.dep_offsets[id + 1] - schedule_.dep_offsets[id], o.combine == Combine::Reduce};
}

void ScheduleStream::successors(OpKey key, std::vector<OpKey>& out) const {
  for (std::uint32_t k = out_offsets_[key]; k < out_offsets_[key + 1]; ++k) out.push_back(dependents_[k]);
}

}  // namespace collsim::sched
