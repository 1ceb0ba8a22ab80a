#include "sim/schedule/builder.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

namespace collsim::sched {

std::vector<Chunk> split_even(Bytes total, std::uint32_t parts, Bytes element_size) {
  if (parts == 0) throw std::invalid_argument("split_even: parts must be at least 1");
  if (element_size == 0) throw std::invalid_argument("split_even: the element size must be at least 1 byte");
  std::vector<Chunk> chunks(parts);
  const Bytes unit = cut_unit(total, element_size);
  const Bytes base = total / unit / parts;
  const Bytes extra = total / unit % parts;
  Bytes offset = 0;
  for (std::uint32_t i = 0; i < parts; ++i) {
    const Bytes size = (base + (i < extra ? 1 : 0)) * unit;
    chunks[i] = Chunk{offset, size, Buffer::Data, i};
    offset += size;
  }
  return chunks;
}

std::vector<Bytes> bytes_sent_per_rank(const Schedule& s) {
  std::vector<Bytes> sent(s.total_ranks(), 0);
  for (OpId i = 0; i < s.ops.size(); ++i)
    if (s.ops[i].src != s.ops[i].dst) sent[s.ops[i].src] += s.op_bytes(i);
  return sent;
}

std::vector<Bytes> bytes_received_per_rank(const Schedule& s) {
  std::vector<Bytes> received(s.total_ranks(), 0);
  for (OpId i = 0; i < s.ops.size(); ++i)
    if (s.ops[i].src != s.ops[i].dst) received[s.ops[i].dst] += s.op_bytes(i);
  return received;
}

Bytes max_bytes_sent(const Schedule& s) {
  const auto sent = bytes_sent_per_rank(s);
  return sent.empty() ? 0 : *std::max_element(sent.begin(), sent.end());
}

Schedule schedule_without_ops(const ScheduleHeader& h, std::vector<Chunk> chunks, std::string algorithm,
                              std::uint32_t steps, std::vector<Phase> phases) {
  if (h.nranks == 0) throw std::invalid_argument("schedule: a schedule needs at least one rank");
  if (h.root >= h.nranks)
    throw std::invalid_argument(fmt::format("root {} is out of range (ranks 0..{})", h.root, h.nranks - 1));
  if (h.element_size == 0) throw std::invalid_argument("schedule: the element size must be at least 1 byte");
  Schedule s;
  s.algorithm = std::move(algorithm);
  s.header = h;
  s.header.element_size = cut_unit(h.size, h.element_size);
  s.steps = steps;
  s.chunks = std::move(chunks);
  s.phases = std::move(phases);
  s.dep_offsets.push_back(0);
  return s;
}

ScheduleBuilder::ScheduleBuilder(const ScheduleHeader& h, std::vector<Chunk> chunks)
    : schedule_(schedule_without_ops(h, std::move(chunks))) {
  const std::uint64_t slots = (std::uint64_t{h.nranks} + h.helpers) * schedule_.chunks.size();
  if (slots > kMaxSlots)
    throw std::length_error(fmt::format("a schedule of {} ranks x {} chunks has {} buffer slots; a materialised "
                                        "schedule stops at {} (ring, tree, double-tree, nccl-tree, nvls-tree, PAT and, at a power "
                                        "of two of ranks, halving-doubling and recursive-doubling all-gather are "
                                        "generated on demand, without that limit, unless --verify or a file needs "
                                        "every op)",
                                        h.nranks + h.helpers, schedule_.chunks.size(), slots, kMaxSlots));
  slots_.resize(static_cast<std::size_t>(slots));
}

OpId ScheduleBuilder::send(Rank src, ChunkId src_chunk, Rank dst, ChunkId dst_chunk, Combine combine,
                           std::uint32_t step, std::uint16_t channel) {
  if (schedule_.ops.size() >= std::numeric_limits<OpId>::max())
    throw std::length_error("a schedule holds at most 2^32-1 ops");
  const auto id = static_cast<OpId>(schedule_.ops.size());
  const auto nchunks = schedule_.chunks.size();
  if (src >= schedule_.total_ranks() || dst >= schedule_.total_ranks())
    throw std::invalid_argument(fmt::format("op {}: rank {} -> {} is out of range (ranks 0..{})", id, src, dst,
                                            schedule_.total_ranks() - 1));
  if (src_chunk >= nchunks || dst_chunk >= nchunks)
    throw std::invalid_argument(fmt::format("op {}: chunk {} -> {} is out of range (chunks 0..{})", id, src_chunk,
                                            dst_chunk, nchunks == 0 ? 0 : nchunks - 1));
  if (schedule_.chunks[src_chunk].size != schedule_.chunks[dst_chunk].size)
    throw std::invalid_argument(fmt::format("op {}: chunk {} ({} bytes) does not fit chunk {} ({} bytes)", id,
                                            src_chunk, schedule_.chunks[src_chunk].size, dst_chunk,
                                            schedule_.chunks[dst_chunk].size));
  if (src == dst && src_chunk == dst_chunk)
    throw std::invalid_argument(fmt::format("op {}: rank {} combines chunk {} with itself", id, src, src_chunk));
  if (step == 0) throw std::invalid_argument(fmt::format("op {}: steps are 1-based, found step 0", id));

  Slot& from = slot(src, src_chunk);
  Slot& to = slot(dst, dst_chunk);
  scratch_.clear();
  if (from.last_writer != kNone) scratch_.push_back(from.last_writer);
  if (to.last_writer != kNone) scratch_.push_back(to.last_writer);
  for (OpId link = to.readers; link != kNone; link = reader_links_[link].next)
    scratch_.push_back(reader_links_[link].op);
  if (ordered_steps_) {
    if (received_.empty()) received_.resize(schedule_.total_ranks());
    // Wait for what src received in its latest step before this one.
    const Received& got = received_[src];
    if (got.step < step) scratch_.insert(scratch_.end(), got.ops.begin(), got.ops.end());
    else if (got.prev_step < step) scratch_.insert(scratch_.end(), got.prev_ops.begin(), got.prev_ops.end());
  }
  std::sort(scratch_.begin(), scratch_.end());
  scratch_.erase(std::unique(scratch_.begin(), scratch_.end()), scratch_.end());

  if (ordered_steps_ && src != dst) {
    Received& in = received_[dst];
    if (in.step != step) {
      in.prev_step = in.step;
      in.prev_ops = std::move(in.ops);
      in.ops.clear();
      in.step = step;
    }
    in.ops.push_back(id);
  }
  reader_links_.push_back(ReaderLink{id, from.readers});
  from.readers = static_cast<OpId>(reader_links_.size() - 1);
  to.last_writer = id;
  to.readers = kNone;

  schedule_.ops.push_back(Op{src, dst, src_chunk, dst_chunk, combine, step, channel});
  schedule_.deps.insert(schedule_.deps.end(), scratch_.begin(), scratch_.end());
  schedule_.dep_offsets.push_back(static_cast<std::uint32_t>(schedule_.deps.size()));
  schedule_.steps = std::max(schedule_.steps, step);
  return id;
}

void ScheduleBuilder::add_phase(std::string name, std::uint32_t first_step, std::uint32_t last_step) {
  if (first_step == 0 || last_step < first_step)
    throw std::invalid_argument(fmt::format("phase {}: bad step range {}..{}", name, first_step, last_step));
  for (const auto& p : schedule_.phases)
    if (first_step <= p.last_step && p.first_step <= last_step)
      throw std::invalid_argument(fmt::format("phase {} overlaps phase {}", name, p.name));
  schedule_.phases.push_back(Phase{std::move(name), first_step, last_step});
}

Schedule ScheduleBuilder::build(std::string algorithm) && {
  schedule_.algorithm = std::move(algorithm);
  slots_.clear();
  reader_links_.clear();
  return std::move(schedule_);
}

}  // namespace collsim::sched
