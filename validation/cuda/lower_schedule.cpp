#include "validation/cuda/lower_schedule.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>

namespace collsim::cuda {

Area area_of(sched::Buffer b) noexcept {
  switch (b) {
    case sched::Buffer::Data: return Area::Data;
    case sched::Buffer::Output: return Area::Output;
    case sched::Buffer::Scratch: return Area::Scratch;
  }
  return Area::Data;
}

namespace {

Region chunk_region(const sched::Schedule& s, sched::Rank rank, sched::ChunkId c) {
  const auto& ch = s.chunks[c];
  return Region{rank, area_of(ch.buffer), ch.offset, ch.size};
}

}  // namespace

StreamPlan lower_schedule(const sched::Schedule& s, std::uint32_t ranks_per_gpu) {
  if (ranks_per_gpu == 0) throw std::invalid_argument("ranks per GPU must be at least 1");
  StreamPlan plan;
  plan.ranks = s.total_ranks();
  plan.participants = s.header.nranks;
  plan.ranks_per_gpu = ranks_per_gpu;
  plan.devices = (plan.ranks + ranks_per_gpu - 1) / ranks_per_gpu;
  for (const auto& ch : s.chunks) {
    auto& bytes = plan.buffer_bytes[static_cast<int>(area_of(ch.buffer))];
    bytes = std::max<std::uint64_t>(bytes, ch.offset + ch.size);
  }

  // Streams ordered by (rank, channel): number them once every op's stream is known.
  std::map<std::pair<sched::Rank, std::uint16_t>, std::uint32_t> stream_of;
  for (std::size_t i = 0; i < s.ops.size(); ++i) {
    const auto& op = s.ops[i];
    if (op.src >= plan.ranks || op.dst >= plan.ranks || op.src_chunk >= s.chunks.size() ||
        op.dst_chunk >= s.chunks.size())
      throw std::invalid_argument("op " + std::to_string(i) + " names a rank or chunk the schedule does not have");
    stream_of.emplace(std::pair{op.dst, op.channel}, 0);
  }
  for (auto& [key, index] : stream_of) {
    index = static_cast<std::uint32_t>(plan.streams.size());
    plan.streams.push_back(Stream{key.first, key.second, key.first / ranks_per_gpu, 0, {}});
  }

  plan.ops.reserve(s.ops.size());
  std::vector<std::uint32_t> position(s.ops.size());  // op -> place in its stream
  for (sched::OpId i = 0; i < s.ops.size(); ++i) {
    const auto& op = s.ops[i];
    StreamOp so;
    so.op = i;
    so.stream = stream_of.at({op.dst, op.channel});
    Stream& st = plan.streams[so.stream];
    const Region src = chunk_region(s, op.src, op.src_chunk);
    const Region dst = chunk_region(s, op.dst, op.dst_chunk);
    so.peer = op.src != op.dst;
    so.reduce = op.combine == sched::Combine::Reduce;
    so.copy = so.peer || !so.reduce;
    so.copy_from = src;
    if (so.reduce) {
      so.reduce_into = dst;
      if (so.peer) {
        so.copy_to = Region{so.stream, Area::Staging, 0, src.bytes};
        so.reduce_from = so.copy_to;
        st.staging_bytes = std::max(st.staging_bytes, src.bytes);
      } else {
        so.reduce_from = src;
      }
    } else {
      so.copy_to = dst;
    }
    position[i] = static_cast<std::uint32_t>(st.ops.size());
    st.ops.push_back(i);
    plan.ops.push_back(std::move(so));
  }

  // Cross-stream deps: per other stream, only the dep issued last there.
  std::vector<std::vector<std::uint32_t>> waits_on(s.ops.size());  // op -> the ops it waits on
  std::vector<std::uint8_t> needs_event(s.ops.size(), 0);
  std::map<std::uint32_t, sched::OpId> last;
  for (sched::OpId i = 0; i < s.ops.size(); ++i) {
    last.clear();
    for (const sched::OpId d : s.deps_of(i)) {
      if (d >= i) throw std::invalid_argument("op " + std::to_string(i) + " depends on a later op " + std::to_string(d));
      const std::uint32_t ds = plan.ops[d].stream;
      if (ds == plan.ops[i].stream) continue;
      auto [it, fresh] = last.emplace(ds, d);
      if (!fresh && position[d] > position[it->second]) it->second = d;
    }
    for (const auto& [stream, d] : last) {
      waits_on[i].push_back(d);
      needs_event[d] = 1;
    }
  }
  for (std::size_t i = 0; i < plan.ops.size(); ++i)
    if (needs_event[i] != 0) plan.ops[i].record = plan.events++;
  for (std::size_t i = 0; i < plan.ops.size(); ++i) {
    for (const auto d : waits_on[i]) plan.ops[i].waits.push_back(plan.ops[d].record);
    std::sort(plan.ops[i].waits.begin(), plan.ops[i].waits.end());
  }
  return plan;
}

}  // namespace collsim::cuda
