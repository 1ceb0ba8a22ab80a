#include "sim/schedule/collective_spec.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

namespace collsim::sched {

Bytes alltoall_block(Rank nranks, Bytes size, Bytes element_size) noexcept {
  const Bytes unit = cut_unit(size, element_size);
  return size / unit / nranks * unit;
}

Bytes effective_size(Collective collective, Rank nranks, Bytes size, Bytes element_size) noexcept {
  return collective == Collective::AllToAll ? alltoall_block(nranks, size, element_size) * nranks : size;
}

CollectiveSpec::CollectiveSpec(const Schedule& s) : schedule_(s) {
  const ScheduleHeader& h = s.header;
  const Bytes total = effective_size(h.collective, h.nranks, h.size, h.element_size);
  const auto parts = split_even(total, h.nranks, h.element_size);
  // All-reduce, broadcast and reduce treat the buffer as one whole; parts name nothing there.
  const bool parts_matter =
      h.collective == Collective::ReduceScatter || h.collective == Collective::AllGather || h.collective == Collective::AllToAll;
  const auto check_tiling = [&](Buffer buffer, const char* name) {
    Bytes next = 0;
    for (ChunkId c = 0; c < s.chunks.size(); ++c) {
      const Chunk& ch = s.chunks[c];
      if (ch.buffer != buffer) continue;
      if (ch.offset != next)
        throw std::invalid_argument(fmt::format("{} chunk {} starts at byte {}, expected {} (chunks must tile the buffer in order)",
                                                name, c, ch.offset, next));
      next += ch.size;
      if (!parts_matter) continue;
      if (ch.part >= h.nranks)
        throw std::invalid_argument(fmt::format("{} chunk {} names part {}, expected 0..{}", name, c, ch.part, h.nranks - 1));
      const Chunk& p = parts[ch.part];
      if (ch.offset < p.offset || ch.offset + ch.size > p.offset + p.size)
        throw std::invalid_argument(fmt::format("{} chunk {} (bytes {}..{}) lies outside part {} (bytes {}..{})", name,
                                                c, ch.offset, ch.offset + ch.size, ch.part, p.offset, p.offset + p.size));
    }
    if (next != total)
      throw std::invalid_argument(fmt::format("{} chunks cover {} bytes, expected {}", name, next, total));
  };
  check_tiling(Buffer::Data, "data");
  if (h.collective == Collective::SendRecv) {
    // The output buffer is S bytes too; each output chunk takes the data chunk at its place.
    check_tiling(Buffer::Output, "output");
    alltoall_source_.assign(s.chunks.size(), 0);
    for (ChunkId o = 0; o < s.chunks.size(); ++o) {
      const Chunk& out = s.chunks[o];
      if (out.buffer != Buffer::Output || out.size == 0) continue;
      const auto it = std::find_if(s.chunks.begin(), s.chunks.end(), [&](const Chunk& d) {
        return d.buffer == Buffer::Data && d.offset == out.offset && d.size == out.size;
      });
      if (it == s.chunks.end())
        throw std::invalid_argument(fmt::format("output chunk {} has no data chunk of the same size and place", o));
      alltoall_source_[o] = static_cast<ChunkId>(it - s.chunks.begin());
    }
    return;
  }
  if (h.collective != Collective::AllToAll) return;
  check_tiling(Buffer::Output, "output");
  // Output part q of rank r receives rank q's data block r; blocks all have alltoall_block bytes.
  const Bytes block = alltoall_block(h.nranks, h.size, h.element_size);
  alltoall_source_.assign(s.chunks.size(), 0);
  for (ChunkId o = 0; o < s.chunks.size(); ++o) {
    if (s.chunks[o].buffer != Buffer::Output || s.chunks[o].size == 0) continue;
    const Bytes within = s.chunks[o].offset - s.chunks[o].part * block;
    bool found = false;
    for (ChunkId c = 0; c < s.chunks.size() && !found; ++c) {
      const Chunk& d = s.chunks[c];
      if (d.buffer == Buffer::Data && d.size == s.chunks[o].size && d.offset - d.part * block == within) {
        alltoall_source_[o] = c;  // the part of c is checked per rank in required()
        found = true;
      }
    }
    if (!found)
      throw std::invalid_argument(fmt::format("output chunk {} has no data chunk of the same size and place", o));
  }
}

Content CollectiveSpec::everyone(ChunkId chunk) const {
  Content all;
  all.reserve(schedule_.header.nranks);
  for (Rank q = 0; q < schedule_.header.nranks; ++q) all.push_back(Contribution{q, chunk});
  return all;
}

std::optional<Content> CollectiveSpec::initial(Rank rank, ChunkId chunk) const {
  const Chunk& ch = schedule_.chunks.at(chunk);
  if (rank >= schedule_.header.nranks || ch.buffer != Buffer::Data) return std::nullopt;
  switch (schedule_.header.collective) {
    case Collective::AllGather:
      if (ch.part != rank) return std::nullopt;
      break;
    case Collective::Broadcast:
      if (rank != schedule_.header.root) return std::nullopt;
      break;
    default:
      break;
  }
  return Content{Contribution{rank, chunk}};
}

std::optional<Content> CollectiveSpec::required(Rank rank, ChunkId chunk) const {
  const Requirement need = requirement(rank, chunk);
  switch (need.kind) {
    case Requirement::Kind::Anything:
      return std::nullopt;
    case Requirement::Kind::Everyone:
      return everyone(need.what.chunk);
    case Requirement::Kind::One:
      return Content{need.what};
  }
  return std::nullopt;
}

bool CollectiveSpec::meets(ContentView content, const Requirement& need) const noexcept {
  switch (need.kind) {
    case Requirement::Kind::Anything:
      return true;
    case Requirement::Kind::Everyone: {
      // everyone() is ranks 0..N-1 in order, each once, all of chunk need.what.chunk.
      if (!content || content->size() != schedule_.header.nranks) return false;
      for (Rank q = 0; q < schedule_.header.nranks; ++q)
        if ((*content)[q] != Contribution{q, need.what.chunk}) return false;
      return true;
    }
    case Requirement::Kind::One:
      return content && content->size() == 1 && content->front() == need.what;
  }
  return false;
}

CollectiveSpec::Requirement CollectiveSpec::requirement(Rank rank, ChunkId chunk) const {
  using Kind = Requirement::Kind;
  const Requirement anything{};
  const auto everyone_of = [](ChunkId c) { return Requirement{Kind::Everyone, Contribution{0, c}}; };
  const auto one = [](Rank r, ChunkId c) { return Requirement{Kind::One, Contribution{r, c}}; };
  const Chunk& ch = schedule_.chunks.at(chunk);
  if (rank >= schedule_.header.nranks || ch.buffer == Buffer::Scratch) return anything;
  switch (schedule_.header.collective) {
    case Collective::AllReduce:
      return everyone_of(chunk);
    case Collective::ReduceScatter:
      if (ch.part != rank) return anything;
      return everyone_of(chunk);
    case Collective::AllGather:
      return one(ch.part, chunk);
    case Collective::Broadcast:
      return one(schedule_.header.root, chunk);
    case Collective::Reduce:
      if (rank != schedule_.header.root) return anything;
      return everyone_of(chunk);
    case Collective::SendRecv: {
      if (ch.buffer != Buffer::Output || ch.size == 0) return anything;
      const Rank n = schedule_.header.nranks;
      return one((rank + n - 1) % n, alltoall_source_[chunk]);
    }
    case Collective::AllToAll: {
      if (ch.buffer != Buffer::Output) return anything;
      if (ch.size == 0) return anything;
      // The sender is rank `part`; the data chunk it sends is the one at the same place in its
      // block for this rank, which has part == rank.
      const ChunkId base = alltoall_source_[chunk];
      const Bytes block = alltoall_block(schedule_.header.nranks, schedule_.header.size, schedule_.header.element_size);
      const Bytes want = schedule_.chunks[base].offset - schedule_.chunks[base].part * block + rank * block;
      for (ChunkId c = 0; c < schedule_.chunks.size(); ++c) {
        const Chunk& d = schedule_.chunks[c];
        if (d.buffer == Buffer::Data && d.part == rank && d.offset == want && d.size == ch.size) return one(ch.part, c);
      }
      // Unreachable for a checked table: a chunk id past the table, which no content holds.
      return one(ch.part, static_cast<ChunkId>(schedule_.chunks.size()));
    }
  }
  return anything;
}

}  // namespace collsim::sched
